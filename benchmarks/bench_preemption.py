"""Benchmark ``kqctl replay`` of a preemption-heavy Kueue snapshot at several sizes (issue 21).

    python benchmarks/bench_preemption.py                         # 1,000, 10,000 and 50,000 workloads
    python benchmarks/bench_preemption.py --workloads 10000 --json
    python benchmarks/bench_preemption.py --keep /tmp/preempt     # keep the generated snapshots

The snapshot is ``generate_preemption.py``'s (50 ClusterQueues in 5 cohorts, reclaimWithinCohort Any,
withinClusterQueue LowerPriority, 1-8 cpu at three priorities, runtime 30m, arrivals spread over 6 hours, an
explicit BestEffortFIFO); the cluster stays the same at every size, so a larger size means longer queues and a
longer replay. Each size is replayed in a fresh process: reading the files and building the snapshot, then the
replay itself (``replay_snapshot``, no rendering), with its wall and CPU time and peak RSS, and the replay's own
figures (virtual time, cycles, heads tried, admissions, evictions). Target (issue 21, 2 cores): 10,000 workloads
in at most 20 s, the cost close to linear in the number of workloads. Nothing here is a test: a missed target is
printed, not failed. On a machine other work keeps busy, compare CPU times.
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NOW = "2026-01-01T00:00:00Z"
TARGET_S = 20.0  # at 10,000 workloads


def measure(directory: str) -> dict[str, object]:
    """In this process: read and build the snapshot, then replay it (the engine alone)."""
    import gc

    gc.disable()  # as the kqctl command does
    from kqctl.cli.replay import replay_input
    from kqctl.kueue.engine import cycle
    from kqctl.kueue.replay.report import replay_snapshot

    heads = [0]
    run_cycle = cycle.Scheduler.run_cycle

    def counted(self: cycle.Scheduler, now: object) -> object:
        result = run_cycle(self, now)  # type: ignore[arg-type]
        heads[0] += len(result.entries)
        return result

    cycle.Scheduler.run_cycle = counted  # type: ignore[method-assign,assignment]
    wall, cpu = time.perf_counter(), time.process_time()
    snapshot = replay_input([directory], None, False, None, None, NOW, 0, False, None, False, False, None, None, None)
    built_wall, built_cpu = time.perf_counter(), time.process_time()
    report = replay_snapshot(snapshot)
    done_wall, done_cpu = time.perf_counter(), time.process_time()
    return {
        "workloads": len(report.workloads), "load_s": built_wall - wall, "load_cpu_s": built_cpu - cpu,
        "replay_s": done_wall - built_wall, "replay_cpu_s": done_cpu - built_cpu, "cycles": report.cycles,
        "heads": heads[0], "evictions": len(report.evictions), "virtual_h": report.end / 3_600_000,
        "finished": sum(1 for w in report.workloads if w.state == "Finished"),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "loadavg": os.getloadavg()[0],
    }


def run_size(workloads: int, keep: Path | None, timeout: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        directory = (keep / f"preempt-{workloads}") if keep else Path(tmp) / "snapshot"
        if not directory.exists():
            subprocess.run([sys.executable, str(HERE / "generate_preemption.py"), "--out", str(directory),
                            "--workloads", str(workloads)], check=True, stdout=subprocess.DEVNULL)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        before = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, __file__, "--measure", str(directory)], env=env, capture_output=True,
                              text=True, timeout=timeout or None)
        if proc.returncode != 0:
            raise RuntimeError(f"{workloads} workloads: {proc.stderr[-2000:]}")
        result: dict[str, object] = json.loads(proc.stdout)
        result["loadavg_before"] = before
        return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, nargs="*", default=[1000, 10000, 50000])
    parser.add_argument("--keep", type=Path, help="generate the snapshots here (and reuse them when present)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per size (0: none)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    if args.json:
        print(json.dumps({n: run_size(n, args.keep, args.timeout) for n in args.workloads}, indent=2))
        return 0
    print(f"kqctl replay, preemption-heavy Kueue snapshot (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    base = None
    for n in args.workloads:  # each size printed as soon as it is measured (the 50,000 one takes longest)
        f = run_size(n, args.keep, args.timeout)
        per = float(f["replay_cpu_s"]) / n * 1000  # type: ignore[arg-type]
        base = base or per
        verdict = f"  [target <= {TARGET_S:g} s: {'met' if float(f['replay_s']) <= TARGET_S else 'MISSED'}]" \
            if n == 10000 else ""  # type: ignore[arg-type]
        print(f"  {n:>7,} workloads  replay {f['replay_s']:.1f} s wall, {f['replay_cpu_s']:.1f} s CPU "
              f"({per:.2f} ms CPU per workload, x{per / base:.2f}); load {f['load_s']:.1f} s; peak RSS "
              f"{f['peak_rss_mib']:,.0f} MiB{verdict}")
        print(f"           {f['virtual_h']:.1f} h of virtual time, {f['cycles']:,} cycles, {f['heads']:,} heads tried, "
              f"{f['evictions']:,} evictions, {f['finished']:,} finished; load average {f['loadavg_before']:.1f}",
              flush=True)
    print("  (wall times include the time other processes held the cores; the CPU times do not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
