"""Benchmark ``kqctl plan --seeds`` on Kueue's baseline generator: local processes vs a Dask LocalCluster (issue 21).

    python benchmarks/bench_plan_seeds.py                          # 20 candidates x 10 seeds, local and Dask
    python benchmarks/bench_plan_seeds.py --budget 4 --seeds 2     # a smaller study
    python benchmarks/bench_plan_seeds.py --skip-dask --json

The same plan runs twice on the same cores: ``--executor local --jobs W`` (W worker processes forked by kqctl), then
``--executor tcp://...`` against a ``distributed.LocalCluster`` of W single-threaded worker processes started
here. For each: wall time, CPU time (kqctl and its workers: ``os.wait4``; plus the Dask workers' own
``getrusage`` before and after), peak RSS of the largest process, the load average before and after, and whether the
two answers are identical (they must be: the same candidates and seeds, each replay a pure function of them).

Kueue's baseline declares a runtime for every workload (the performance runner's label), so ``--runtime`` draws
nothing there and the 10 draws of a candidate are equal replays: the study measures the cost of 200 replays and
of the distributed engine, not a spread of answers (tests/cli/test_plan_seeds.py checks draws that differ). Nothing
here is a test: no thresholds; on a machine other work keeps busy, read the CPU times.
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
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "data" / "replay" / "kueue-baseline-generator.yaml"
PLAN = ("plan", "--generator", str(BASELINE), "--for", "cohort/cohort-0", "--resource", "rf/cpu", "--step", "cpu=10m",
        "--target", "p95(time-to-admission) < 4m", "--runtime", "lognormal(500ms,0.8)", "-o", "json")


def run_plan(extra: list[str], timeout: float | None) -> dict[str, Any]:
    """``kqctl plan`` in a child process; its and its workers' CPU time and peak RSS from ``os.wait4``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    before = os.getloadavg()[0]
    wall = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kqctl", *PLAN, *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise RuntimeError(f"kqctl plan {' '.join(extra)}: no answer in {timeout} s") from None
    wall = time.perf_counter() - wall
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # every child waited for so far, workers included
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"kqctl plan {' '.join(extra)}: exit {proc.returncode}: {err[-2000:]}")
    data = json.loads(out)
    replays = sum(len(r.get("draws", {}).get("seeds", [None])) for r in data["replays"])
    return {"wall_s": wall, "children_cpu_s": usage.ru_utime + usage.ru_stime, "children_peak_rss_mib":
            usage.ru_maxrss / 1024, "loadavg_before": before, "loadavg_after": os.getloadavg()[0],
            "candidates": len(data["replays"]), "replays": replays, "answer": data["answer"], "data": data}


def _worker_usage() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=20, help="candidates (plan --budget)")
    parser.add_argument("--seeds", type=int, default=10, help="draws per candidate (plan --seeds)")
    parser.add_argument("--workers", type=int, default=2, help="local processes and Dask workers (default 2)")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--timeout", type=float, default=0, help="seconds per plan (0: none)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    study = ["--budget", str(args.budget), "--seeds", str(args.seeds)]
    timeout = args.timeout or None
    figures: dict[str, Any] = {}
    cpu_before = _children_cpu()
    local = run_plan([*study, "--executor", "local", "--jobs", str(args.workers)], timeout)
    local["cpu_s"] = local.pop("children_cpu_s") - cpu_before
    local["peak_rss_mib"] = local.pop("children_peak_rss_mib")
    figures["local"] = local
    if not args.skip_dask:
        figures["dask"] = run_dask(study, args.workers, timeout)
        figures["identical"] = figures["dask"]["data"] == local["data"]
    for entry in ("local", "dask"):
        if entry in figures:
            figures[entry].pop("data")
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"kqctl plan --seeds on Kueue's baseline (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"{args.workers} workers)")
    for name, f in figures.items():
        if name == "identical":
            continue
        print(f"  {name:<6} {f['candidates']} candidates, {f['replays']} replays: wall {f['wall_s']:.1f} s, CPU "
              f"{f['cpu_s']:.1f} s ({f['cpu_s'] / max(1, f['replays']):.2f} s per replay), peak RSS "
              f"{f['peak_rss_mib']:,.0f} MiB; load average {f['loadavg_before']:.1f} -> {f['loadavg_after']:.1f}; "
              f"answer {f['answer']}")
    if "identical" in figures:
        print(f"  answers identical (every replay's figures): {figures['identical']}")
        overhead = figures["dask"]["cpu_s"] - figures["local"]["cpu_s"]
        later = figures["dask"]["wall_s"] - figures["local"]["wall_s"]
        print(f"  Dask overhead: {overhead:+.1f} s CPU, {later:+.1f} s wall (the cluster's start-up not included)")
    print("  (wall times include the time other processes held the cores; the CPU times do not)")
    return 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_dask(study: list[str], workers: int, timeout: float | None) -> dict[str, Any]:
    """The same plan against a LocalCluster of ``workers`` single-threaded processes started here."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster.scheduler_address, set_as_default=False) as client:
        client.run(_import_kqctl)  # the workers' imports are start-up, as a local worker's fork inherits them
        before = client.run(_worker_usage)
        cpu_before = _children_cpu()
        figures = run_plan([*study, "--executor", cluster.scheduler_address], timeout)
        after = client.run(_worker_usage)
    client_cpu = figures.pop("children_cpu_s") - cpu_before  # the kqctl process (and the cluster's nannies: idle)
    workers_cpu = sum(after[w][0] - before[w][0] for w in after)
    figures["cpu_s"] = client_cpu + workers_cpu
    figures["client_cpu_s"], figures["workers_cpu_s"] = client_cpu, workers_cpu
    figures["peak_rss_mib"] = max([figures.pop("children_peak_rss_mib"), *(after[w][1] for w in after)])
    return figures


def _import_kqctl() -> None:
    import kqctl.kueue.replay.plan  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
