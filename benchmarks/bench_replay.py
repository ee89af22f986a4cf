"""Benchmark ``kqctl replay`` and ``kqctl plan`` on Kueue's own scheduler performance configurations.

    python benchmarks/bench_replay.py            # baseline, large-scale, plan over 20 candidates
    python benchmarks/bench_replay.py --repeat 3 --json

Targets (issue 12, on 2 cores): the large-scale config (50,000 workloads, 1,000 ClusterQueues) in at most
10 s, the baseline (15,000 workloads) in at most 3 s, a plan over 20 candidate quotas on the baseline in at
most 30 s. Each measurement runs in a fresh process, for its own peak memory. Nothing here is a test: a
missed target is printed, not failed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "replay"
CONFIGS = {"baseline": DATA / "kueue-baseline-generator.yaml", "large-scale": DATA / "kueue-large-scale-generator.yaml"}
TARGETS = {"baseline": 3.0, "large-scale": 10.0, "plan": 30.0}
PLAN_ARGS = ("--for", "cohort/cohort-0", "--resource", "rf/cpu", "--step", "cpu=10m",
             "--target", "p95(time-to-admission) < 4m", "--budget", "20")


def measure_engine(name: str) -> dict[str, object]:
    """In this process: read the config, build the snapshot, replay it (the engine alone, no rendering)."""
    import gc

    import yaml

    gc.disable()  # as the kqctl command does
    from kqctl.kueue.engine.simulation import DEFAULT_NOW
    from kqctl.kueue.replay.generator import build_snapshot, parse_generator
    from kqctl.kueue.replay.report import replay_snapshot

    wall, cpu = time.perf_counter(), time.process_time()
    snapshot = build_snapshot(parse_generator(yaml.safe_load(CONFIGS[name].read_text())), DEFAULT_NOW)
    built = time.perf_counter()
    report = replay_snapshot(snapshot)
    done_wall, done_cpu = time.perf_counter(), time.process_time()
    queue_class = dict(report.performance.cluster_queue_classes)["cq"]
    return {
        "build_s": built - wall, "replay_s": done_wall - built, "total_s": done_wall - wall, "cpu_s": done_cpu - cpu,
        "workloads": len(report.workloads), "cycles": report.cycles, "virtual_end_s": report.end / 1000,
        "usage_percent": float(queue_class.usage_percent or 0),
        "classes": {k: v.average_time_to_admission_ms for k, v in report.performance.workload_classes},
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


CPU_USED: list[float] = [0.0]  # CPU seconds of the last child and its own children (workers)


def child(args: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run a process; its wall time and its peak RSS in MiB (the largest of it and its own children).

    The CPU time it and its children used goes to CPU_USED: on a shared machine, wall time also counts
    the time other processes held the cores.
    """
    env = {**os.environ, "PYTHONPATH": str(REPO), "KQCTL_NO_PROGRESS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_USED[0] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    rss = 0.0
    lines = proc.stderr.splitlines()
    if lines and lines[-1].startswith(RSS_MARK):
        rss = float(lines[-1][len(RSS_MARK):])
        proc = subprocess.CompletedProcess(args, proc.returncode, proc.stdout, "\n".join(lines[:-1]))
    return wall, rss, proc


RSS_MARK = "bench-replay-peak-rss-mib="


def run_kqctl(argv: list[str]) -> int:
    """``kqctl ARGV`` in this process; the peak RSS (this process and its children) as the last stderr line."""
    import atexit

    def report() -> None:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        sys.stderr.write(f"\n{RSS_MARK}{max(own, children) / 1024:.1f}\n")

    atexit.register(report)
    sys.argv = ["kqctl", *argv]
    from kqctl.cli.app import main as kqctl_main

    kqctl_main()
    return 0


def run_engine(name: str) -> dict[str, object]:
    wall, rss, proc = child([sys.executable, __file__, "--measure", name])
    if proc.returncode != 0:
        raise RuntimeError(f"{name}: {proc.stderr[-2000:]}")
    result: dict[str, object] = json.loads(proc.stdout)
    result["process_s"] = wall
    return result


def run_cli(name: str) -> dict[str, object]:
    wall, rss, proc = child([sys.executable, __file__, "--run-kqctl", "replay", "--generator", str(CONFIGS[name]),
                             "-o", "summary"])
    if proc.returncode != 0:
        raise RuntimeError(f"kqctl replay {name}: {proc.stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": CPU_USED[0], "peak_rss_mib": rss}


def run_plan() -> dict[str, object]:
    args = [sys.executable, __file__, "--run-kqctl", "plan", "--generator", str(CONFIGS["baseline"]), *PLAN_ARGS,
            "-o", "json"]
    wall, rss, proc = child(args)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"kqctl plan: {proc.stderr[-2000:]}")
    data = json.loads(proc.stdout)
    return {"wall_s": wall, "cpu_s": CPU_USED[0], "peak_rss_mib": rss, "replays": len(data["replays"]),
            "answer": data["answer"]}


def verdict(seconds: float, target: float) -> str:
    return f"[target <= {target:g} s: {'met' if seconds <= target else 'MISSED'}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs of each measurement")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--measure", choices=sorted(CONFIGS), help=argparse.SUPPRESS)
    parser.add_argument("--skip-plan", action="store_true", help="leave out the plan measurement")
    if sys.argv[1:2] == ["--run-kqctl"]:
        return run_kqctl(sys.argv[2:])
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure_engine(args.measure)))
        return 0
    figures: dict[str, dict[str, object]] = {}
    for name in CONFIGS:
        engine = min((run_engine(name) for _ in range(args.repeat)), key=lambda r: float(r["total_s"]))  # type: ignore[arg-type]
        cli = min((run_cli(name) for _ in range(args.repeat)), key=lambda r: float(r["wall_s"]))  # type: ignore[arg-type]
        figures[name] = {"engine": engine, "cli": cli}
    if not args.skip_plan:
        figures["plan"] = min((run_plan() for _ in range(args.repeat)), key=lambda r: float(r["wall_s"]))  # type: ignore[arg-type]
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"kqctl replay benchmark (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, best of {args.repeat})")
    for name in CONFIGS:
        engine, cli = figures[name]["engine"], figures[name]["cli"]
        assert isinstance(engine, dict) and isinstance(cli, dict)
        print(f"  {name:<12} {engine['workloads']:,} workloads, {engine['cycles']:,} cycles, "
              f"{engine['virtual_end_s']:.1f} s of virtual time")
        print(f"    engine     {engine['total_s']:.2f} s (build {engine['build_s']:.2f} s + replay "
              f"{engine['replay_s']:.2f} s; CPU {engine['cpu_s']:.2f} s), peak RSS {engine['peak_rss_mib']:,.0f} MiB  "
              f"{verdict(float(engine['total_s']), TARGETS[name])}")
        print(f"    command    {cli['wall_s']:.2f} s (CPU {cli['cpu_s']:.2f} s) `kqctl replay --generator {name} -o "
              f"summary`, peak RSS {cli['peak_rss_mib']:,.0f} MiB")
        classes = ", ".join(f"{k} {v / 1000:.1f} s" for k, v in sorted(engine["classes"].items()))  # type: ignore[union-attr]
        print(f"    result     usage {engine['usage_percent']:.1f}%, average time to admission: {classes}")
    if "plan" in figures:
        plan = figures["plan"]
        cores = os.cpu_count() or 1
        print(f"  plan         {plan['wall_s']:.2f} s for {plan['replays']} replays on the baseline "
              f"({cores} processes; "
              f"CPU {plan['cpu_s']:.1f} s, {float(plan['cpu_s']) / cores:.1f} s per core), answer {plan['answer']}, "  # type: ignore[arg-type]
              f"peak RSS {plan['peak_rss_mib']:,.0f} MiB (largest process)  "
              f"{verdict(float(plan['wall_s']), TARGETS['plan'])}")  # type: ignore[arg-type]
    print("  (wall times include the time other processes held the cores; the CPU times do not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
