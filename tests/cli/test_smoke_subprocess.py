"""A few real-subprocess runs: the installed entry point as a process (every other CLI test runs in-process)."""

from __future__ import annotations

import subprocess
import sys

from support import REPO, run_kqctl_subprocess


def test_help_lists_the_commands() -> None:
    run = run_kqctl_subprocess("--help")
    assert run.code == 0
    for command in ("validate", "simulate", "explain", "audit", "convert", "snapshot"):
        assert command in run.out


def test_simulate_of_a_sample_exits_0_and_prints_a_table() -> None:
    run = run_kqctl_subprocess("simulate", "samples/preemption")
    assert run.code == 0, run.err
    assert run.out.startswith("CLUSTERQUEUE ") and not run.err


def test_unreadable_input_is_one_located_line_and_exit_3() -> None:
    run = run_kqctl_subprocess("validate", "-", stdin=b"kind: [unclosed\n")
    assert run.code == 3
    assert run.err.startswith("kqctl: error: <stdin>") and "Traceback" not in run.err


def test_a_closed_pipe_downstream_ends_quietly() -> None:
    # `kqctl simulate ... | head -1`: the reader goes away early; no traceback, no error line.
    proc = subprocess.run(f"{sys.executable} -m kqctl simulate samples/preemption -o yaml | head -c 10",
                          shell=True, cwd=REPO, capture_output=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr


def test_a_reader_that_goes_away_gives_exit_141_not_a_findings_exit() -> None:
    # `kqctl validate ... | head`: exit 1 would read as "findings"; 141 is what a shell reports for
    # any tool whose reader went away.
    # A report of about 1 MB: far more than a pipe buffer holds, so the write does meet the closed pipe.
    proc = subprocess.Popen([sys.executable, "-m", "kqctl", "validate", "-R",
                             "tests/conformance/data/kueue/fair-sharing", "-o", "json"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={"PYTHONPATH": str(REPO), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""
