"""``kqctl.cli.app.main``, the entry point itself (CliRunner tests call the typer app and skip it): whatever way a
command ends, its exit code is kept and the objects still alive are frozen, so that the interpreter's collection at
shutdown skips them (about 0.5 s after a large simulate)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from support import REPO


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # main() disables the collector and freezes everything: undo both for the other tests
    gc.enable()


@pytest.mark.parametrize("argv,code", [
    (["simulate", str(REPO / "samples" / "preemption"), "-o", "name"], 0),       # typer.Exit(0)
    (["validate", str(REPO / "samples" / "broken")], 1),                           # findings
    (["simulate", "--no-such-flag"], 2),                                            # click's usage error
    (["simulate", str(REPO / "samples" / "does-not-exist")], 3),                   # KqctlError
])
def test_main_keeps_the_exit_code_and_freezes_what_is_left(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], code: int) -> None:
    from kqctl.cli.app import main

    monkeypatch.setattr("sys.argv", ["kqctl", *argv])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == code, capsys.readouterr().err
    assert gc.get_freeze_count() > 0


class _Terminal:
    """A stderr that says it is a terminal (a pytest capture never is)."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        return None


def _error_of(monkeypatch: pytest.MonkeyPatch, stderr: object, argv: list[str]) -> str:
    from kqctl.cli.app import main

    monkeypatch.setattr("sys.argv", ["kqctl", *argv])
    monkeypatch.setattr("sys.stderr", stderr)
    with pytest.raises(SystemExit):
        main()
    return stderr.text if isinstance(stderr, _Terminal) else ""


# A typo in a workload name gives a long message: it wraps at spaces on an 80-column terminal, each word whole.
TYPO = ["explain", "job-llm-distil-e25d8", str(REPO / "samples" / "spot-gpu")]


def test_an_error_wraps_at_spaces_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    shown = _error_of(monkeypatch, _Terminal(), TYPO)
    text = shown[shown.index("kqctl: error: "):]  # after the progress line the error erased
    lines = text.splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("kqctl: error: ") and all(line.startswith("  ") for line in lines[1:])
    assert "recsys-inference/job-llm-distill-e25d8" in text  # the did-you-mean name never broken


def test_an_error_into_a_pipe_stays_one_line(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from kqctl.cli.app import main

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.argv", ["kqctl", *TYPO])
    with pytest.raises(SystemExit):
        main()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) > 80
