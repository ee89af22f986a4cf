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
