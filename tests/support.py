"""Helpers shared by tests: run the real ``kqctl`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The Kueue conformance cases, copied into the repository (tests/conformance/data/README.md says from
# where): the suite must pass in a clone with nothing beside it.
KUEUE_CONFORMANCE = REPO / "tests" / "conformance" / "data" / "kueue"


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_kqctl(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Run:
    full_env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "kqctl", *args], input=stdin, capture_output=True,
                          cwd=REPO, env=full_env, timeout=300)
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
