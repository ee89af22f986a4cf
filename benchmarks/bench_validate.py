"""Benchmark `kqctl validate` on a large generated Kueue snapshot.

    python benchmarks/bench_validate.py [--count 50000] [--out DIR | --dir DIR] [--repeat N] [--seed 42] [--json]

Generates ``--count`` valid Kueue v1beta2 documents with ``generate.py`` (into a temporary
directory, or ``--out`` which is then kept; ``--dir`` validates manifests generated earlier),
runs ``kqctl validate -R DIR -o json`` as a subprocess (``sys.executable -m kqctl``; ``--repeat``
times, the fastest run counts), and prints: the resource count, wall time, resources/s, CPU time
(user + system of validate and its workers: the figure to compare on a shared machine), peak RSS
of the validate process, and the startup time of ``kqctl --help`` (best of 5). Exit code 1
from validate (findings) still counts as a run; figures are printed whatever the exit code,
and the script exits non-zero only if validate failed to run (exit code >= 2, a crash or a
timeout).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402  (benchmarks/ is not a package)

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    exit_code: int
    wall_s: float
    cpu_s: float  # user + system time of validate and the worker processes it waited for
    peak_rss_mib: float
    stdout_bytes: int
    stderr_tail: str


def _env() -> dict[str, str]:
    """Environment in which `python -m kqctl` finds this checkout even when it is not installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return env


def _maxrss_mib(ru_maxrss: int) -> float:
    # Linux reports KiB, macOS bytes.
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024


def run_measured(cmd: list[str], stdout_path: Path, timeout: float | None) -> Run:
    """Run ``cmd``, returning its exit code, wall time and peak RSS.

    The peak RSS comes from the rusage of this one child (``os.wait4``), the same figure
    ``resource.getrusage(RUSAGE_CHILDREN)`` reports, but not mixed with other children.
    """
    with stdout_path.open("wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=_env(), cwd=REPO_ROOT)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, rusage = os.wait4(proc.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr_tail = err.read()[-2000:].decode("utf-8", "replace")
    cpu = rusage.ru_utime + rusage.ru_stime
    return Run(proc.returncode, wall, cpu, _maxrss_mib(rusage.ru_maxrss), stdout_path.stat().st_size, stderr_tail)


RESULT_MARK = "BENCH-STEPS "


def measure_steps(directory: Path) -> dict[str, float] | None:
    """step_times in a fresh process running this script (this checkout first on the path)."""
    proc = subprocess.run([sys.executable, __file__, "--steps-child", str(directory)], capture_output=True,
                          text=True, env=_env(), cwd=REPO_ROOT)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_MARK)]
    if proc.returncode != 0 or not lines:
        print(f"bench: --steps failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(lines[-1][len(RESULT_MARK):])
    return result


def startup_time(runs: int) -> tuple[float, int]:
    """Best wall time of ``kqctl --help`` over ``runs`` runs, and the last exit code."""
    best = float("inf")
    code = 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "kqctl", "--help"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_env(),
            cwd=REPO_ROOT,
        )
        best = min(best, time.perf_counter() - start)
        code = proc.returncode
    return best, code


def summarize_findings(stdout_path: Path) -> tuple[bool, str]:
    """(is the output JSON?, a one-line summary of the findings).

    Reads kqctl's report shape ({"summary": {...}, "documents": [{"findings": [...]}]}) and
    falls back to counting a plain list of findings.
    """
    try:
        data = json.loads(stdout_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, "output is not JSON"
    if isinstance(data, dict) and isinstance(data.get("summary"), dict):
        summary = data["summary"]
        parts = [f"{summary[k]:,} {k}" for k in ("errors", "warnings", "infos") if k in summary]
        return True, "findings: " + (", ".join(parts) or json.dumps(summary))
    findings = data.get("findings") if isinstance(data, dict) else data
    if isinstance(data, dict) and isinstance(data.get("documents"), list):
        findings = [f for doc in data["documents"] if isinstance(doc, dict) for f in doc.get("findings", [])]
    if not isinstance(findings, list):
        return True, "JSON report without findings"
    by_severity: dict[str, int] = {}
    for f in findings:
        sev = str(f.get("severity", "?")) if isinstance(f, dict) else "?"
        by_severity[sev] = by_severity.get(sev, 0) + 1
    detail = ", ".join(f"{n:,} {sev}" for sev, n in sorted(by_severity.items()))
    return True, f"{len(findings):,} findings" + (f" ({detail})" if detail else "")


def kinds_in(directory: Path) -> dict[str, int]:
    """The kinds of the documents in manifests generate.py wrote (one top-level ``kind:`` line each)."""
    found: dict[str, int] = {}
    for path in sorted(directory.glob("*.yaml")):
        for kind in re.findall(r"^kind: (\S+)$", path.read_text(encoding="utf-8"), re.MULTILINE):
            found[kind] = found.get(kind, 0) + 1
    if not found:
        raise ValueError(f"{directory} holds no manifests")
    return found


# --- --steps: where the CPU time goes ----------------------------------------------------------------

# (label, [(module, function), ...]): each function is timed where the validation code finds it, in the
# module that defines it and in the runner's namespace (which of the two the runner calls through
# depends on how it imports it; a function is never counted twice).
STEPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("YAML parse", (("kqctl.validate.parallel", "parse_documents"),)),
    ("objects_of (kinds, List items)", (("kqctl.validate.parallel", "objects_of"),)),
    ("schema defaulting (DEF-1, twice)", tuple((module, name) for module in ("kqctl.validate.schema",
                                                                             "kqctl.validate.runner")
                                               for name in ("schema_defaulted", "apply_schema_defaults"))),
    ("mutating webhook codec (DEF-3)", (("kqctl.validate.runner", "_mutated"),)),
    ("schema check", (("kqctl.validate.schema", "validate_schema"), ("kqctl.validate.runner", "validate_schema"))),
    ("metadata rules", (("kqctl.validate.rules", "run_metadata_rules"),
                        ("kqctl.validate.runner", "run_metadata_rules"))),
    ("CEL", (("kqctl.validate.cel", "validate_cel"), ("kqctl.validate.runner", "validate_cel"))),
    ("validating webhooks", (("kqctl.validate.runner", "_webhook_findings"),)),
    ("trim for the parent (+ pod requests)", (("kqctl.validate.parallel", "_trimmed"),)),
)
PARENT_STEPS = ("pickle results (all files)", "parent: unpickle results (all files)",
                "parent: merge + cross-object checks", "parent: render -o json")


def step_times(directory: Path) -> dict[str, float]:
    """CPU seconds per step of `kqctl validate -R DIRECTORY -o json`, in this one process: every file as a
    worker validates it, every file's result pickled and unpickled (a real run sends only the workers'
    files), then the parent's merge, cross-object checks and rendering. Steps whose function a code
    change renamed are left out (their time shows under "other")."""
    import gc
    import importlib
    import io
    import pickle

    gc.disable()  # as the kqctl CLI runs
    spent: dict[str, float] = {label: 0.0 for label, _ in STEPS}

    def timed(function: Any, label: str) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - start
        return run

    for label, places in STEPS:
        for module_name, function_name in places:
            module = importlib.import_module(module_name)
            if hasattr(module, function_name):
                setattr(module, function_name, timed(getattr(module, function_name), label))
    from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
    from kqctl.load.sources import expand_paths
    from kqctl.render.validation import render_validation
    from kqctl.validate import parallel

    job = parallel.Job(ALL_KINDS, validation_profiles(None), False)
    start = time.process_time()
    parts = [parallel._validate_file((name, job)) for name in expand_paths([str(directory)], True)]
    spent["other per-object work (runner, reports, loops)"] = time.process_time() - start - sum(spent.values())
    start = time.process_time()
    sent = [pickle.dumps(part) for part in parts]
    spent["pickle results (all files)"] = time.process_time() - start
    start = time.process_time()
    parts = [pickle.loads(blob) for blob in sent]
    spent["parent: unpickle results (all files)"] = time.process_time() - start
    start = time.process_time()
    report = parallel._merge(parts, job, False)
    spent["parent: merge + cross-object checks"] = time.process_time() - start
    start = time.process_time()
    render_validation(report, "json", io.StringIO(), color="never")
    spent["parent: render -o json"] = time.process_time() - start
    return spent


def print_steps(spent: dict[str, float]) -> None:
    print("  CPU per step (one process; a real run shares the files between the cores):")
    for label, seconds in spent.items():
        print(f"    {label:46s} {seconds:6.2f} s")
    print(f"    {'total':46s} {sum(spent.values()):6.2f} s")



def describe_exit(code: int) -> str:
    meaning = {0: "ok", 1: "findings", 2: "usage error", 3: "input error", 4: "cluster error"}
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return meaning.get(code, "failure")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark kqctl validate on a generated Kueue snapshot.")
    parser.add_argument("--count", type=int, default=50000, help="documents to generate (default 50000)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--out", type=Path, help="write the manifests here and keep them (default: a temp dir)"
    )
    where.add_argument("--dir", type=Path, help="validate manifests generated earlier (--out of a previous run)")
    parser.add_argument("--repeat", type=int, default=1, help="run validate this many times; the fastest run counts")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--per-file", type=int, default=5000, help="maximum documents per file (default 5000)"
    )
    parser.add_argument("--help-runs", type=int, default=5, help="runs of `kqctl --help` (best is reported)")
    parser.add_argument("--timeout", type=float, default=None, help="kill validate after this many seconds")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--steps", action="store_true",
                        help="also measure the CPU time of each step of validation (in a fresh process)")
    parser.add_argument("--steps-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.steps_child:
        print(RESULT_MARK + json.dumps(step_times(args.steps_child)))
        return 0

    work = args.dir or args.out or Path(tempfile.mkdtemp(prefix="kqctl-bench-"))
    try:
        if args.out and args.out.exists() and any(args.out.glob("*.yaml")):
            print(f"bench: {args.out} already holds manifests; refusing to mix runs", file=sys.stderr)
            return 2
        start = time.perf_counter()
        try:
            kinds = kinds_in(work) if args.dir else generate(args.count, work, args.seed, args.per_file)
        except ValueError as exc:
            print(f"bench: {exc}", file=sys.stderr)
            return 2
        gen_s = time.perf_counter() - start
        total = sum(kinds.values())
        files = sorted(work.glob("*.yaml"))

        cmd = [sys.executable, "-m", "kqctl", "validate", "-R", str(work), "-o", "json"]
        with tempfile.TemporaryDirectory(prefix="kqctl-bench-out-") as tmp:
            stdout_path = Path(tmp) / "validate.json"
            runs = [run_measured(cmd, stdout_path, args.timeout) for _ in range(max(1, args.repeat))]
            run = min(runs, key=lambda r: (r.exit_code > 1, r.wall_s))
            is_json, findings = summarize_findings(stdout_path)
        # Exit 1 means "findings" only if validate printed its report; a Python traceback or
        # "No module named kqctl.__main__" also exits 1, with no JSON on stdout.
        completed = run.exit_code == 0 or (run.exit_code == 1 and is_json)
        help_s, help_code = startup_time(args.help_runs)
        steps = measure_steps(work) if args.steps else None
    finally:
        if args.out is None and args.dir is None:
            shutil.rmtree(work, ignore_errors=True)

    figures = {
        "resources": total,
        "kinds": dict(kinds),
        "files": len(files),
        "generate_s": round(gen_s, 3),
        "validate_exit_code": run.exit_code,
        "validate_wall_s": round(run.wall_s, 3),
        "resources_per_s": round(total / run.wall_s, 1) if run.wall_s > 0 else None,
        "validate_cpu_s": round(run.cpu_s, 3),
        "validate_peak_rss_mib": round(run.peak_rss_mib, 1),
        "validate_stdout_bytes": run.stdout_bytes,
        "validate_completed": completed,
        "findings": findings,
        "help_startup_s": round(help_s, 4),
        "help_exit_code": help_code,
        "python": sys.version.split()[0],
    }
    if steps is not None:
        figures["cpu_per_step_s"] = {label: round(seconds, 3) for label, seconds in steps.items()}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        mix = ", ".join(f"{n:,} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        where = str(work) if args.out or args.dir else "temp dir, removed"
        print("kqctl validate benchmark")
        print(f"  resources        {total:,} in {len(files)} files ({where})")
        print(f"  mix              {mix}")
        if not args.dir:
            print(f"  generate         {gen_s:.2f} s")
        if args.repeat > 1:
            print(f"  runs             {len(runs)} (the fastest counts; wall times "
                  f"{', '.join(f'{r.wall_s:.2f}' for r in runs)} s)")
        print(f"  validate exit    {run.exit_code} ({describe_exit(run.exit_code)}); {findings}")
        print(f"  wall time        {run.wall_s:.2f} s")
        print(f"  throughput       {figures['resources_per_s']:,} resources/s")
        print(f"  cpu time         {run.cpu_s:.2f} s (user + system, validate and its workers)")
        print(f"  peak RSS         {run.peak_rss_mib:,.1f} MiB")
        print(f"  --help startup   {help_s * 1000:.0f} ms (best of {args.help_runs}; exit {help_code})")
        if steps is not None:
            print_steps(steps)
    if not completed:
        why = describe_exit(run.exit_code) if run.exit_code != 1 else "exit 1 without a JSON report"
        print(
            f"bench: validate did not complete normally ({why}); the figures above are not a valid run",
            file=sys.stderr,
        )
        if run.stderr_tail:
            print("--- validate stderr (tail) ---", file=sys.stderr)
            print(run.stderr_tail.rstrip(), file=sys.stderr)
        return run.exit_code if run.exit_code > 1 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
