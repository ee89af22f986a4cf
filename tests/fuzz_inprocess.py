"""Run ``kqctl`` through its real entry point in this process: fast enough for thousands of runs."""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from unittest import mock

from kqctl.cli import app as app_module
from kqctl.errors import EXIT_OK


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_kqctl(*args: str) -> Run:
    """``kqctl ARGS`` through main(), as the installed command runs it (one line on error, exit code)."""
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = None
    # main() turns the garbage collector off for its short-lived process; not for the test run.
    with mock.patch.object(sys, "argv", ["kqctl", *args]), mock.patch.object(app_module.gc, "disable"), \
            mock.patch.dict(os.environ, {"NO_COLOR": "1"}), redirect_stdout(out), redirect_stderr(err):
        os.environ.pop("KQCTL_DEBUG", None)
        try:
            app_module.main()
        except SystemExit as exited:
            code = exited.code
    return Run(code if isinstance(code, int) else (EXIT_OK if code is None else 1), out.getvalue(), err.getvalue())
