"""Check that a change to the engine or the replay changes no result: run the same commands with two kqctl trees.

    # outputs of the tree under test, then of a reference tree (e.g. `git archive main | tar -x -C /tmp/base`)
    python benchmarks/replay_equivalence.py --repo . --out /tmp/after
    python benchmarks/replay_equivalence.py --repo /tmp/base --out /tmp/before
    python benchmarks/replay_equivalence.py --compare /tmp/before /tmp/after

The cases: ``simulate -o json`` and ``replay -o json`` (fixed and drawn runtimes) of every Kueue sample;
``replay`` of Kueue's baseline generator config (15,000 workloads); and ``replay`` of preemption-heavy
snapshots from ``generate_preemption.py`` in many variants (queueing strategies, preemption policies,
borrowing and lending limits, a cohort hierarchy, several flavors, fair sharing, several seeds). The
generated inputs are written once into ``OUT/inputs`` by the tree under test's generator, so both trees
replay the same files. Each output is kept as a file; ``--compare`` lists the files that differ (byte for byte)
and exits 1 if any does. Nothing here is a test: it is the script a performance change is checked with.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NOW = "2026-01-01T00:00:00Z"
KUEUE_SAMPLES = ("cohort-borrowing", "fair-sharing", "hierarchical-cohorts", "preemption", "replay",
                 "single-clusterqueue", "spot-gpu")

# (name, generate_preemption.py arguments, extra replay arguments)
GENERATED: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("flat-1k", ("--workloads", "1000"), ()),
    ("flat-2k-busy", ("--workloads", "2000", "--spread-hours", "2"), ()),
    ("flat-2k-seed7", ("--workloads", "2000", "--spread-hours", "2", "--seed", "7"), ()),
    ("strict-2k", ("--workloads", "2000", "--spread-hours", "2", "--queueing-strategy", "StrictFIFO"), ()),
    ("newer-equal", ("--workloads", "1500", "--spread-hours", "2", "--within-cluster-queue",
                     "LowerOrNewerEqualPriority"), ()),
    ("reclaim-lower", ("--workloads", "1500", "--spread-hours", "2", "--reclaim-within-cohort", "LowerPriority"), ()),
    ("reclaim-never", ("--workloads", "1500", "--spread-hours", "2", "--reclaim-within-cohort", "Never"), ()),
    ("limits", ("--workloads", "1500", "--spread-hours", "2", "--borrowing-limit", "30", "--lending-limit", "20"),
     ()),
    ("hierarchy", ("--workloads", "1500", "--spread-hours", "2", "--parent-cohorts", "2", "--lending-limit", "30"),
     ()),
    ("flavors", ("--workloads", "1500", "--spread-hours", "2", "--flavors", "2"), ()),
    ("fair-sharing", ("--workloads", "1000", "--spread-hours", "2"), ("--fair-sharing",)),
    ("drawn-runtimes", ("--workloads", "1000", "--spread-hours", "2", "--seed", "3"),
     ("--runtime", "lognormal(20m,0.6)", "--seed", "5")),
)


def cases(out: Path) -> list[tuple[str, list[str]]]:
    """(output file name, kqctl arguments)."""
    result: list[tuple[str, list[str]]] = []
    for sample in KUEUE_SAMPLES:
        path = str(REPO / "samples" / sample)
        result.append((f"simulate-{sample}.json", ["simulate", path, "-o", "json", "--now", NOW]))
        result.append((f"replay-{sample}.json", ["replay", path, "-o", "json", "--now", NOW, "--runtime", "20m"]))
        result.append((f"replay-drawn-{sample}.json", ["replay", path, "-o", "json", "--now", NOW, "--runtime",
                                                       "exponential(15m)", "--seed", "11"]))
    trace = REPO / "samples" / "replay" / "arrivals.csv"
    result.append(("replay-trace.json", ["replay", str(REPO / "samples" / "replay"), "--trace", str(trace), "-o",
                                         "json", "--now", "2026-09-14T09:00:00Z"]))
    baseline = REPO / "tests" / "data" / "replay" / "kueue-baseline-generator.yaml"
    result.append(("replay-baseline.json", ["replay", "--generator", str(baseline), "-o", "json"]))
    for name, _, extra in GENERATED:
        result.append((f"replay-{name}.json", ["replay", str(out / "inputs" / name), "-o", "json", "--now", NOW,
                                               *extra]))
    return result


def generate_inputs(out: Path) -> None:
    for name, arguments, _ in GENERATED:
        target = out / "inputs" / name
        if target.exists():
            continue
        subprocess.run([sys.executable, str(HERE / "generate_preemption.py"), "--out", str(target), *arguments],
                       check=True, stdout=subprocess.DEVNULL)


def run(repo: Path, out: Path, inputs: Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    source = inputs or out
    generate_inputs(source)
    env = {**os.environ, "PYTHONPATH": str(repo), "KQCTL_NO_PROGRESS": "1", "COLUMNS": "200"}
    failed = 0
    for name, arguments in cases(source):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "kqctl", *arguments], cwd=repo, env=env, capture_output=True,
                              text=True)
        (out / name).write_text(f"exit {proc.returncode}\n{proc.stdout}\n--- stderr\n{proc.stderr}")
        failed += proc.returncode not in (0, 1)
        print(f"{name:<40} exit {proc.returncode}  {time.perf_counter() - start:6.1f} s", flush=True)
    return 1 if failed else 0


def compare(before: Path, after: Path) -> int:
    names = sorted(p.name for p in before.glob("*.json"))
    different = [n for n in names if not (after / n).exists() or not filecmp.cmp(before / n, after / n, False)]
    for name in different:
        print(f"DIFFERENT  {name}")
    print(f"{len(names) - len(different)} of {len(names)} outputs identical")
    return 1 if different else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the kqctl tree to run (default: this one)")
    parser.add_argument("--out", type=Path, help="where to write the outputs")
    parser.add_argument("--inputs", type=Path, help="read the generated inputs from this earlier --out")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("--out is required (or --compare BEFORE AFTER)")
    return run(args.repo.resolve(), args.out, args.inputs)


if __name__ == "__main__":
    sys.exit(main())
