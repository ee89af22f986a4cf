"""Progress shows on a terminal only, and leaves nothing behind; piped runs print nothing extra."""

from __future__ import annotations

import io

from support import run_kqctl

from kqctl.cli.progress import LARGE_INPUT, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_written_to_a_terminal_and_erased() -> None:
    terminal = _Terminal()
    progress = Progress(terminal)
    progress.step("kqctl: simulating 50,000 workloads...", LARGE_INPUT)
    progress.done()
    assert "simulating 50,000 workloads" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\x1b[K")


def test_small_inputs_and_pipes_get_no_progress(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    terminal = _Terminal()
    Progress(terminal).step("x", LARGE_INPUT - 1)
    assert terminal.getvalue() == ""
    piped = io.StringIO()
    Progress(piped).step("x")
    assert piped.getvalue() == ""
    monkeypatch.setenv("KQCTL_NO_PROGRESS", "1")
    Progress(terminal).step("x")
    assert terminal.getvalue() == ""


def test_piped_runs_print_nothing_on_stderr() -> None:
    for args in (("simulate", "samples/preemption"), ("validate", "samples/preemption")):
        assert run_kqctl(*args).err == ""
