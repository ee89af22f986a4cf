#!/usr/bin/env python3
"""Benchmark Volcano simulate on a large cluster, end to end.

    python benchmarks/bench_volcano.py                     # 5,000 nodes, 200 queues, 10,000 PodGroups (~50,000 pods)
    python benchmarks/bench_volcano.py --groups 1000 --nodes 500 --queues 20
    python benchmarks/bench_volcano.py --file /tmp/volcano-large.json   # reuse a generated cluster

Generates the cluster with ``generate_volcano.py`` (one JSON ``kind: List``), then:

* **CLI**: ``python -m kqctl simulate FILE -o json`` (stdout to /dev/null) in a subprocess: start-up, loading,
  the snapshot, every session to the steady state, the JSON contract. Wall time, CPU time (user + system) and
  peak RSS come from the child's own rusage (``os.wait4``). On a busy machine the wall time includes waiting
  for a CPU; the CPU time does not.
* **phases**: the same work in a fresh subprocess, its CPU time step by step (read, snapshot, simulate, render).

The issue's target: simulate to a steady state end to end in <= 10 s on 2 cores; the peak memory is reported.
Nothing fails on a miss: the figures are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_volcano import generate  # noqa: E402

TARGET_S = 10.0
PHASES = """
import io, json, sys, time
t0 = time.process_time()
from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.load.objects import load_paths
from kqctl.validate.gate import admit
from kqctl.volcano.load import build_snapshot
from kqctl.volcano.engine.simulation import simulate
from kqctl.volcano.render.simulation import render_simulation
t1 = time.process_time()
loaded = admit(load_paths(ALL_KINDS, [sys.argv[1]]), validation_profiles(None)).result  # read + the gate
t2 = time.process_time()
snapshot = build_snapshot(loaded)
t3 = time.process_time()
result = simulate(snapshot)
t4 = time.process_time()
render_simulation(result, "json", io.StringIO())
t5 = time.process_time()
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "snapshot": t3 - t2, "simulate": t4 - t3, "json": t5 - t4,
                  "sessions": result.sessions, "stop": result.stop_reason, "binds": len(result.binds),
                  "podGroups": len(snapshot.pod_groups), "pods": len(snapshot.pods)}))
"""


def run_measured(command: list[str]) -> tuple[int, float, float, float, str]:
    """(exit code, wall s, cpu s, peak RSS MiB, stdout) of one child, from its own rusage."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "KQCTL_NO_PROGRESS": "1"}
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, env=env, cwd=REPO_ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode()
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, rss, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--queues", type=int, default=200)
    parser.add_argument("--groups", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--file", type=Path, help="a cluster generated earlier (kept); default: a temporary file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        path = args.file or Path(scratch) / "volcano.json"
        generated = 0.0
        if args.file is None or not args.file.exists():
            start = time.perf_counter()
            path.write_text(json.dumps(generate(args.nodes, args.queues, args.groups, args.seed)), encoding="utf-8")
            generated = time.perf_counter() - start
        code, wall, cpu, rss, _ = run_measured([sys.executable, "-m", "kqctl", "simulate", str(path), "-o", "json"])
        phases_code, _, _, _, phases_out = run_measured([sys.executable, "-c", PHASES, str(path)])
    phases = json.loads(phases_out) if phases_code == 0 else {}
    print("kqctl simulate benchmark (Volcano)")
    print(f"  cluster          {args.nodes:,} nodes, {args.queues:,} queues, {phases.get('podGroups', 0):,} PodGroups, "
          f"{phases.get('pods', 0):,} pods" + (f" (generated in {generated:.1f} s)" if generated else ""))
    print(f"  sessions         {phases.get('sessions', '?')} ({phases.get('stop', '?')}), "
          f"{phases.get('binds', 0):,} pods bound")
    print(f"  end to end       wall {wall:.2f} s, cpu {cpu:.2f} s (target <= {TARGET_S:.0f} s on 2 cores)"
          + ("" if code == 0 else f"; exit {code}"))
    print(f"  peak RSS         {rss:,.1f} MiB")
    if phases:
        print("  phases (cpu time, fresh process): " + ", ".join(
            f"{name} {phases[name]:.2f} s" for name in ("imports", "read", "snapshot", "simulate", "json")))
    return 0 if code == 0 and phases_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
