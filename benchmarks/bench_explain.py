"""Benchmark ``kqctl explain`` on a 50,000-workload Kueue snapshot, wait estimate included (issue 21).

    python benchmarks/bench_explain.py                                  # Kueue's large-scale shape, 3 workloads
    python benchmarks/bench_explain.py --dir /tmp/kueue-engine-50k      # a snapshot generate_engine.py wrote
    python benchmarks/bench_explain.py --json
    python benchmarks/bench_explain.py --sequential                     # phases without kqctl explain's copies

The snapshot is generate_engine.py's (Kueue's large-scale scheduler benchmark: 10 cohorts x 100 ClusterQueues,
50,000 pending workloads). Each explained workload is measured twice, each time in a fresh process: the command
end to end (``kqctl explain KEY DIR -o json``: reading 50,000 documents, the explanation with its checked
suggestions, the wait estimate's replay), and in-process phase by phase (load; ``explain()``; the estimate's
replay), with CPU times and peak RSS. As kqctl explain runs them, the estimate's replay and the checks of completions
and policies run in forked copies on the other core (kqctl/cli/forked.py): the explain phase then includes waiting
for those checks, the estimate phase is the wait for the replay's answer, and the copies' CPU is shown apart;
``--sequential`` runs everything in one process, one part after the other (what each part costs). Target (issue 21,
2 cores): the explanation with its wait estimate in at most 5 s. Nothing here is a test: a miss is printed, not
failed; on a loaded machine read the CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NOW = "2026-01-01T00:00:00Z"
KEYS = ("cq-0-0-cohort-0/small-0-10-0", "cq-0-0-cohort-0/medium-1-3-0", "cq-0-50-cohort-5/large-2-1-0")
TARGET_S = 5.0


def measure(directory: str, key: str, sequential: bool = False) -> dict[str, Any]:
    """In this process, as ``kqctl explain`` runs it: load, explain, the estimate's replay (``sequential``: without
    the copies kqctl explain forks on a large input, everything here one after the other)."""
    import dataclasses
    import gc

    gc.disable()  # as the kqctl command does
    from kqctl.cli.forked import EstimateAhead, checks_apart
    from kqctl.cli.options import load_inputs
    from kqctl.cli.simulate import load_snapshot, simulation_options
    from kqctl.kueue.engine.explain import explain
    from kqctl.kueue.engine.workloads import WorkloadMemo
    from kqctl.kueue.load import WorkloadsAhead
    from kqctl.kueue.replay.estimate import estimate_from, replay_for_estimates
    from kqctl.kueue.replay.report import KueueReplayOptions
    from kqctl.kueue.replay.timeline import TimelineOptions

    options = simulation_options(None, None, None, NOW)
    clock = [time.perf_counter(), time.process_time()]
    marks: dict[str, tuple[float, float]] = {}

    def mark(name: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        marks[name] = (wall - clock[0], cpu - clock[1])
        clock[:] = [wall, cpu]

    # Read and built as kqctl explain does it (the gate, Workloads decoded while the files are read: models written
    # alike then share their pod sets, which the engine's memo of pod-set arithmetic keys on).
    workloads_ahead = WorkloadsAhead()
    inputs = load_inputs([directory], None, False, False, False, None, None, prepare=workloads_ahead.prepare)
    snapshot = load_snapshot(inputs, None, options.now, ahead=workloads_ahead)
    mark("load")
    options = dataclasses.replace(options, memo=WorkloadMemo())
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # As kqctl explain runs them (cli/forked.py): the estimate's replay and some checks in copies on the other core;
    # with sequential, everything in this process one after the other (the CPU each part costs).
    ahead: list[EstimateAhead | None] = [None]

    def replay_meanwhile(steady: Any) -> None:  # as kqctl explain starts it: from explain's run as set up
        ahead[0] = EstimateAhead.start(snapshot, options, None, key, steady)

    explanation = explain(snapshot, key, options, None if sequential else checks_apart,
                          None if sequential else replay_meanwhile)
    mark("explain")
    timeline = TimelineOptions(gates=options.gates, fair_sharing=options.fair_sharing, memo=options.memo)
    report = ahead[0].report([key]) if ahead[0] is not None else None
    if report is None:
        report = replay_for_estimates(snapshot, KueueReplayOptions(timeline), None, [key])
    estimate = estimate_from(report, key, explanation.gets_in)
    mark("estimate")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    copies_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return {"phases": marks, "suggestions": [s.summary for s in explanation.suggestions],
            "estimate": estimate.sentence() if estimate else None, "copies_cpu_s": copies_cpu,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_cli(directory: str, key: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    before = os.getloadavg()[0]
    wall = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kqctl", "explain", key, directory, "--now", NOW, "-o", "json"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - wall
    stderr = proc.stderr.read() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"kqctl explain {key}: {stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024,
            "loadavg_before": before}


def run_measure(directory: str, key: str, sequential: bool = False) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, __file__, "--measure", directory, key,
                           *(["--sequential"] if sequential else [])], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{key}: {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="a snapshot generate_engine.py wrote (default: generate one in a temp dir)")
    parser.add_argument("--keys", nargs="*", default=list(KEYS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sequential", action="store_true",
                        help="phases without the copies kqctl explain forks on a large input (each part's CPU time)")
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        directory, key = args.measure
        print(json.dumps(measure(directory, key, sequential=args.sequential)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or str(Path(tmp) / "snapshot")
        if not args.dir:
            subprocess.run([sys.executable, str(HERE / "generate_engine.py"), "--out", directory], check=True,
                           stdout=subprocess.DEVNULL)
        figures = {key: {"cli": run_cli(directory, key), "in_process": run_measure(directory, key, args.sequential)}
                   for key in args.keys}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"kqctl explain, 50,000-workload Kueue snapshot (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    for key, f in figures.items():
        cli, phases = f["cli"], f["in_process"]["phases"]
        work = phases["explain"][0] + phases["estimate"][0]
        work_cpu = phases["explain"][1] + phases["estimate"][1]
        print(f"  {key}")
        print(f"    command    wall {cli['wall_s']:.1f} s, CPU {cli['cpu_s']:.1f} s, peak RSS "
              f"{cli['peak_rss_mib']:,.0f} MiB; load average {cli['loadavg_before']:.1f}")
        copies = f["in_process"].get("copies_cpu_s", 0.0)
        print(f"    phases     load {phases['load'][0]:.1f} s (CPU {phases['load'][1]:.1f}), explain "
              f"{phases['explain'][0]:.1f} s (CPU {phases['explain'][1]:.1f}), estimate {phases['estimate'][0]:.1f} s "
              f"(CPU {phases['estimate'][1]:.1f}), copies on the other core CPU {copies:.1f} s  [explain + estimate "
              f"{work:.1f} s, CPU {work_cpu + copies:.1f} s; target <= {TARGET_S:g} s: "
              f"{'met' if work <= TARGET_S else 'MISSED'}]")
        print(f"    answer     {len(f['in_process']['suggestions'])} suggestion(s); {f['in_process']['estimate']}")
    print("  (wall times include the time other processes held the cores; the CPU times do not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
