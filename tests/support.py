"""Helpers shared by tests: run the real ``kqctl`` command, in this process or in a subprocess."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
# The Kueue conformance cases, copied into the repository (tests/conformance/data/README.md says from
# where): the suite must pass in a clone with nothing beside it.
KUEUE_CONFORMANCE = REPO / "tests" / "conformance" / "data" / "kueue"
# Kueue test cases translated by hand from the Go source (expected outcome = what the Go test asserts), not
# recorded from a run: tests/conformance/data/kueue-ported/README.md.
KUEUE_PORTED = REPO / "tests" / "conformance" / "data" / "kueue-ported"


@dataclass
class Run:
    code: int
    out: str
    err: str


class TerminalOutput(io.StringIO):
    """Standard output as a terminal: kqctl wraps free text at $COLUMNS there (never into a pipe)."""

    def isatty(self) -> bool:
        return True


def run_kqctl(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, tty: bool = False,
              cwd: Path | None = None) -> Run:
    """``kqctl ARGS`` through the installed command's entry point, in this process, in ``cwd`` (default: the
    repository); ``tty``: standard output is a terminal (of $COLUMNS columns, given in ``env``) instead of a pipe.

    Starting a Python per command cost most of the suite's time; what a subprocess would isolate
    (argv, standard streams, environment, working directory, the garbage collector that main()
    turns off) is set for the call and restored after it. run_kqctl_subprocess keeps the real thing
    for the few smoke tests that need it.
    """
    from kqctl.cli import app as app_module

    out, err = TerminalOutput() if tty else io.StringIO(), io.StringIO()
    stdin_stream = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    code: int | str | None = None
    previous = os.getcwd()
    os.chdir(cwd or REPO)
    try:
        with mock.patch.object(sys, "argv", ["kqctl", *args]), mock.patch.object(app_module.gc, "disable"), \
                mock.patch.object(sys, "stdin", stdin_stream), \
                mock.patch.dict(os.environ, {"NO_COLOR": "1", **(env or {})}), \
                redirect_stdout(out), redirect_stderr(err):
            if "KQCTL_DEBUG" not in (env or {}):
                os.environ.pop("KQCTL_DEBUG", None)
            try:
                app_module.main()
            except SystemExit as exited:
                code = exited.code
    finally:
        os.chdir(previous)
    if isinstance(code, str):
        err.write(code + "\n")
    return Run(code if isinstance(code, int) else (0 if code is None else 1), out.getvalue(), err.getvalue())


def run_kqctl_subprocess(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Run:
    """``python -m kqctl ARGS`` in a real subprocess: for smoke tests of the process itself."""
    full_env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "kqctl", *args], input=stdin, capture_output=True,
                          cwd=REPO, env=full_env, timeout=300)
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
