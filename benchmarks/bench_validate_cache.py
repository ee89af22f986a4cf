"""Benchmark `kqctl validate --cache`: a second run after a few files changed.

    python benchmarks/bench_validate_cache.py [--count 50000] [--per-file 100] [--changed 10] [--repeat 3]
                                              [--output json|table] [--check]

Generates ``--count`` valid Kueue documents with ``generate.py`` in files of ``--per-file`` documents, then runs
``kqctl validate -R DIR -o json`` as a subprocess: without a cache; with ``--cache`` into an empty directory (cold:
every file validated and stored); and, ``--repeat`` times, after changing ``--changed`` files (one comment line
appended, so their content hash changes), with the cache (warm: those files validated, every other file's
per-object results read back, the cross-object checks over every object run again). Prints wall and CPU time of
each (the fastest of the repeats for warm) and the warm run's share of the uncached run: the target is 50,000
documents with 10 files changed in at most 1.5 s on 2 cores; on a shared machine compare the ratios and CPU times
(the load average is printed beside each run). ``--check`` validates the changed files once more without a cache
and checks that the last warm run printed the same bytes.

kqctl runs with its bytecode written and read (PYTHONDONTWRITEBYTECODE is dropped for it, as an installed kqctl has
its .pyc files): compiling kqctl's modules anew on every run costs about 0.5 s of CPU, more than a warm run's
reading of the cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_validate import REPO_ROOT, Run, run_measured

TARGET_S = 1.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=50000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output", choices=("json", "table"), default="json")
    parser.add_argument("--check", action="store_true", help="compare the last warm run with an uncached one")
    args = parser.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bench_validate._env copies os.environ for kqctl
    work = Path(tempfile.mkdtemp(prefix="kqctl-bench-cache-"))
    try:
        manifests, cache = work / "manifests", work / "cache"
        subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "generate.py"), "--count", str(args.count),
                        "--out", str(manifests), "--per-file", str(args.per_file), "--seed", str(args.seed)],
                       check=True, stdout=subprocess.DEVNULL)
        files = sorted(manifests.glob("*.yaml"))
        command = [sys.executable, "-m", "kqctl", "validate", "-R", str(manifests), "-o", args.output]
        out = work / "out.json"
        uncached, load_uncached = run_measured(command, out, None), _load()
        cold, load_cold = run_measured([*command, "--cache", str(cache)], out, None), _load()
        warm: list[tuple[Run, str]] = []
        for round_ in range(args.repeat):
            for path in files[round_ * args.changed:(round_ + 1) * args.changed]:
                with path.open("a", encoding="utf-8") as handle:
                    handle.write(f"# changed in round {round_}\n")
            warm.append((run_measured([*command, "--cache", str(cache)], out, None), _load()))
        same = None
        if args.check:
            again = work / "again.json"
            run_measured(command, again, None)
            same = again.read_bytes() == out.read_bytes()
        for run in (uncached, cold, *(w for w, _ in warm)):
            if run.exit_code >= 2:
                print(f"validate failed (exit {run.exit_code}): {run.stderr_tail}", file=sys.stderr)
                return 1
        best, load_best = min(warm, key=lambda w: w[0].wall_s)
        least_cpu = min(w.cpu_s for w, _ in warm)
        print(f"{args.count:,} documents in {len(files)} files, {args.changed} files changed before each warm run, "
              f"-o {args.output}")
        print(f"{'RUN':<28}{'WALL s':>9}{'CPU s':>9}{'PEAK MiB':>10}{'LOAD':>7}")
        for name, run, load in (("no cache", uncached, load_uncached), ("--cache, cold", cold, load_cold),
                                ("--cache, warm (best)", best, load_best)):
            print(f"{name:<28}{run.wall_s:>9.2f}{run.cpu_s:>9.2f}{run.peak_rss_mib:>10.0f}{load:>7}")
        print(f"warm runs: wall {', '.join(f'{w.wall_s:.2f}' for w, _ in warm)} s; CPU "
              f"{', '.join(f'{w.cpu_s:.2f}' for w, _ in warm)} s (least {least_cpu:.2f})")
        if same is not None:
            print(f"last warm run's output {'is byte for byte' if same else 'DIFFERS from'} the uncached run's")
        print(f"warm / uncached: wall {best.wall_s / uncached.wall_s:.2f}, CPU {best.cpu_s / uncached.cpu_s:.2f}; "
              f"target {TARGET_S} s on a quiet 2-core machine: {'met' if best.wall_s <= TARGET_S else 'not met'} "
              "here")
        return 0 if same is not False else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _load() -> str:
    """The 1-minute load average after a run (how shared the cores were)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "-"


if __name__ == "__main__":
    sys.exit(main())
