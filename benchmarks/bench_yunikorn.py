"""Benchmark kqctl's YuniKorn commands on a large cluster.

    python benchmarks/bench_yunikorn.py                       # 2,000 nodes, 310 queues, 50,000 pods / 5,000 apps
    python benchmarks/bench_yunikorn.py --pods 10000 --apps 1000 --nodes 400
    python benchmarks/bench_yunikorn.py --dir /tmp/yunikorn-50k --repeat 3
    python benchmarks/bench_yunikorn.py --dir /tmp/yunikorn-50k --replay        # also kqctl replay (two runtimes)
    python benchmarks/bench_yunikorn.py --dir /tmp/yunikorn-50k --profile /tmp/yk.prof   # cProfile of the split

Generates the cluster with ``generate_yunikorn.py`` (into a temporary directory, or ``--out`` which is kept;
``--dir`` reuses one generated earlier), then measures, each in a fresh process (``sys.executable``, this
checkout on ``PYTHONPATH``) so that every peak RSS belongs to one measurement:

* **simulate, end to end**: ``python -m kqctl simulate DIR -o json --now T``, stdout to a file: what a user
  waits for (start-up, reading 50,000 pods, the simulation, the JSON report);
* **simulate, split**: the same steps in-process, timed one by one (read, snapshot, partition, allocation
  cycles, result), wall and CPU time;
* **validate**: ``python -m kqctl validate queues.yaml -o json`` on a queues.yaml of about ``--queues`` queues
  (1,001 by default), and the same check in-process without the interpreter's start-up;
* **replay** (``--replay``): ``python -m kqctl replay DIR -o json --now T --runtime R`` end to end, for each
  runtime of ``--replay-runtime`` (default ``30m`` and ``lognormal(20m,0.8)``): pods run for their runtime and
  release their resources, pending pods get them (issue 21's target: <= 30 s each on 2 cores).

``--profile FILE`` runs the split under cProfile and writes its statistics to FILE (read them with
``python -m pstats FILE``); its times are then the profiler's, not the program's.

CPU time (user + system, from the child's rusage) is printed next to wall time: on a shared machine the wall
time includes waiting for a CPU. The issue's targets (2 cores): simulate end to end <= 10 s, validate of a
1,000-queue config <= 1 s. They are printed next to the figures; nothing fails on a miss.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import REPO_ROOT, _env, _maxrss_mib, describe_exit  # noqa: E402

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
from generate_yunikorn import cluster, queues_yaml, write  # noqa: E402

NOW = "2026-01-02T00:00:00Z"  # after every generated pod's creation: reservations and preemption are allowed
TARGET_SIMULATE_S = 10.0
TARGET_VALIDATE_S = 1.0
TARGET_REPLAY_S = 30.0
REPLAY_RUNTIMES = ("30m", "lognormal(20m,0.8)")
RESULT_MARK = "BENCH-YUNIKORN-RESULT "


# --- a measured child process ----------------------------------------------------------------------------


def measured(cmd: list[str], stdout_path: Path, timeout: float | None) -> dict[str, Any]:
    """Run ``cmd``: exit code, wall time, CPU time (user + system) and peak RSS of that one child."""
    import threading

    with stdout_path.open("wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=_env(), cwd=REPO_ROOT)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - start
        err.seek(0)
        tail = err.read()[-2000:].decode("utf-8", "replace")
    return {"code": os.waitstatus_to_exitcode(status), "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": _maxrss_mib(usage.ru_maxrss), "stderr": tail}


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return min(runs, key=lambda r: (r["code"] not in (0, 1), r["wall"]))


# --- in-process children ---------------------------------------------------------------------------------


def child_split(directory: str, profile: str = "") -> None:
    """The simulate pipeline step by step, in this process (wall and CPU seconds per step); under cProfile with
    ``profile`` (the statistics written there)."""
    from datetime import datetime

    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()

    steps: dict[str, tuple[float, float]] = {}
    clock = [time.perf_counter(), time.process_time()]

    def step(name: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        steps[name] = (wall - clock[0], cpu - clock[1])
        clock[:] = [wall, cpu]

    import gc

    gc.disable()  # as the kqctl CLI runs
    from kqctl.cli.options import load_inputs
    from kqctl.yunikorn.engine.allocation import Scheduler
    from kqctl.yunikorn.engine.partition import build_partition
    from kqctl.yunikorn.engine.simulation import result_of
    from kqctl.yunikorn.load import build_snapshot
    from kqctl.yunikorn.render.simulation import contract
    step("imports")
    inputs = load_inputs([directory], None, False, False, False, None, None)
    step("read")
    snapshot = build_snapshot(inputs, datetime.fromisoformat(NOW.replace("Z", "+00:00")))
    step("snapshot")
    partition = build_partition(snapshot)
    step("partition")
    results = Scheduler(partition).run()
    step("cycles")
    result = result_of(snapshot, partition, results)
    report = json.dumps(contract(result))
    step("result + JSON")
    if profile:
        profiler.disable()
        profiler.dump_stats(profile)
    out = {"steps": steps, "cycles": len(results), "json_bytes": len(report),
           "rss": _maxrss_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)}
    print(RESULT_MARK + json.dumps(out))


def child_validate(path: str) -> None:
    from kqctl.yunikorn.validate.checks import check_config_text

    text = Path(path).read_text()
    start = time.perf_counter()
    check = check_config_text(text)
    wall = time.perf_counter() - start
    print(RESULT_MARK + json.dumps({"wall": wall, "findings": len(check.findings)}))


def run_child(mode: str, argument: str, timeout: float | None, scratch: Path, extra: list[str] | None = None) \
        -> dict[str, Any]:
    out = scratch / f"child-{mode}.txt"
    run = measured([sys.executable, str(Path(__file__).resolve()), "--child", mode, argument, *(extra or [])], out,
                   timeout)
    for line in out.read_text().splitlines():
        if line.startswith(RESULT_MARK):
            return {**run, **json.loads(line[len(RESULT_MARK):]), "process_rss": run["rss"]}
    raise RuntimeError(f"{mode} measurement failed ({describe_exit(run['code'])}): {run['stderr']}")


def replay_run(directory: Path, runtime: str, timeout: float | None, scratch: Path) -> dict[str, Any]:
    """``kqctl replay DIR -o json`` with ``--runtime runtime``, end to end in a fresh process."""
    out = scratch / "replay.json"
    run = measured([sys.executable, "-m", "kqctl", "replay", str(directory), "-o", "json", "--now", NOW,
                    "--runtime", runtime], out, timeout)
    if run["code"] != 0:
        raise RuntimeError(f"replay --runtime {runtime} failed ({describe_exit(run['code'])}): {run['stderr']}")
    overall = json.loads(out.read_text())["overall"]
    return {"runtime": runtime, **{k: run[k] for k in ("wall", "cpu", "rss")}, "report_mib": out.stat().st_size / 2**20,
            **{k: overall[k] for k in ("workloads", "started", "finished", "evictions")}}


# --- main ------------------------------------------------------------------------------------------------


def count_queues(text: str) -> int:
    import yaml

    def walk(queues: list[dict[str, Any]]) -> int:
        return sum(1 + walk(q.get("queues") or []) for q in queues)

    return walk(yaml.safe_load(text)["partitions"][0]["queues"])


def verdict(value: float, target: float) -> str:
    return f"[target <= {target:g} s: {'met' if value <= target else 'MISSED'}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark kqctl simulate and validate for YuniKorn.")
    parser.add_argument("--child", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--apps", type=int, default=5000)
    parser.add_argument("--queues", type=int, default=1000, help="queues of the validate benchmark (about)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, help="generate the cluster here and keep it")
    parser.add_argument("--dir", type=Path, help="use a cluster generated earlier (generate_yunikorn.py)")
    parser.add_argument("--repeat", type=int, default=1, help="best of N end-to-end runs (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, help="per measurement, seconds (0: none)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--replay", action="store_true", help="also time kqctl replay on the cluster")
    parser.add_argument("--replay-runtime", action="append", metavar="DIST",
                        help=f"--runtime of the replays (repeatable; default {' and '.join(REPLAY_RUNTIMES)})")
    parser.add_argument("--profile", metavar="FILE", help="run the split under cProfile, statistics to FILE")
    args = parser.parse_args(argv)
    if args.child:
        mode, argument, *rest = args.child
        if mode == "split":
            child_split(argument, *rest)
        else:
            child_validate(argument)
        return 0

    timeout = args.timeout or None
    scratch = Path(tempfile.mkdtemp(prefix="kqctl-yunikorn-bench-"))
    figures: dict[str, Any] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        if args.dir:
            directory = args.dir
            figures["generate"] = None
        else:
            directory = args.out or scratch / "cluster"
            start = time.perf_counter()
            write(cluster(args.nodes, args.pods, args.apps, 10, 3, 9, args.seed), directory)
            figures["generate"] = time.perf_counter() - start
        report = scratch / "simulate.json"
        runs = [measured([sys.executable, "-m", "kqctl", "simulate", str(directory), "-o", "json", "--now", NOW],
                         report, timeout) for _ in range(max(1, args.repeat))]
        cli = best_of(runs)
        if cli["code"] != 0:
            print(f"simulate failed ({describe_exit(cli['code'])}):\n{cli['stderr']}", file=sys.stderr)
            return 1
        data = json.loads(report.read_text())
        figures["simulate"] = {**{k: cli[k] for k in ("wall", "cpu", "rss")}, "summary": data["summary"],
                               "queues": len(data["queues"]), "report_mib": report.stat().st_size / 2**20}
        profile = [str(Path(args.profile).resolve())] if args.profile else []
        figures["split"] = run_child("split", str(directory), timeout, scratch, profile)
        figures["replay"] = [replay_run(directory, runtime, timeout, scratch)
                             for runtime in (args.replay_runtime or REPLAY_RUNTIMES)] if args.replay else []

        queues_file = scratch / "queues.yaml"
        leaves = max(1, -(-(args.queues - 41) // 30))
        queues_file.write_text(queues_yaml(10, 3, leaves))
        validate_runs = [measured([sys.executable, "-m", "kqctl", "validate", str(queues_file), "-o", "json"],
                                  scratch / "validate.json", timeout) for _ in range(max(1, args.repeat))]
        validate = best_of(validate_runs)
        in_process = run_child("validate", str(queues_file), timeout, scratch)
        figures["validate"] = {"queues": count_queues(queues_file.read_text()), "code": validate["code"],
                               "wall": validate["wall"], "cpu": validate["cpu"], "rss": validate["rss"],
                               "in_process": in_process["wall"], "findings": in_process["findings"]}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    sim, split, val = figures["simulate"], figures["split"], figures["validate"]
    s = sim["summary"]
    print("kqctl YuniKorn benchmark")
    print(f"  cluster          {args.nodes:,} nodes, {sim['queues']:,} queues, {args.pods:,} pods in {args.apps:,} "
          f"applications ({directory if args.dir or args.out else 'temp dir, removed'})")
    print(f"  processes        Python {figures['python']}, {figures['cpus']} CPUs")
    if figures["generate"] is not None:
        print(f"  generate         {figures['generate']:.2f} s")
    print(f"  simulate         {sim['wall']:.2f} s wall, {sim['cpu']:.2f} s CPU (kqctl simulate DIR -o json, end to end"
          f"{f', best of {args.repeat}' if args.repeat > 1 else ''})  {verdict(sim['wall'], TARGET_SIMULATE_S)}")
    print(f"    outcome        {s['cycles']:,} cycles: {s['running']:,} running before, {s['allocated']:,} allocated, "
          f"{s['pending']:,} pending, {s['preempted']:,} preempted; report {sim['report_mib']:.1f} MiB")
    print(f"    peak RSS       {sim['rss']:,.1f} MiB")
    steps = ", ".join(f"{name} {wall:.2f}/{cpu:.2f}" for name, (wall, cpu) in split["steps"].items())
    print(f"    split          (wall/CPU s) {steps}")
    print(f"  validate         {val['wall']:.2f} s wall, {val['cpu']:.2f} s CPU (kqctl validate queues.yaml -o json, "
          f"{val['queues']:,} queues, exit {val['code']})  {verdict(val['wall'], TARGET_VALIDATE_S)}")
    print(f"    in-process     {val['in_process']:.3f} s (the checks alone); peak RSS {val['rss']:,.1f} MiB")
    for replay in figures["replay"]:
        print(f"  replay           {replay['wall']:.2f} s wall, {replay['cpu']:.2f} s CPU (kqctl replay DIR -o json "
              f"--runtime {replay['runtime']})  {verdict(replay['wall'], TARGET_REPLAY_S)}")
        print(f"    outcome        {replay['workloads']:,} applications: {replay['started']:,} started, "
              f"{replay['finished']:,} finished, {replay['evictions']:,} evictions; "
              f"report {replay['report_mib']:.1f} MiB")
        print(f"    peak RSS       {replay['rss']:,.1f} MiB")
    print(f"  load average     {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
