"""Exit 70 is kqctl's own bug, and its message says so: the user should report it, not fix their input."""

from __future__ import annotations

import pytest

from kqctl.cli import app as app_module
from kqctl.errors import EXIT_INTERNAL


def test_an_unexpected_exception_asks_the_user_to_report_a_bug(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> None:
        raise KeyError("resourceGroups")

    monkeypatch.delenv("KQCTL_DEBUG", raising=False)
    monkeypatch.setattr(app_module, "app", broken)
    monkeypatch.setattr(app_module.gc, "disable", lambda: None)  # main() would leave it off for the whole run
    with pytest.raises(SystemExit) as exited:
        app_module.main()
    assert exited.value.code == EXIT_INTERNAL == 70
    err = capsys.readouterr().err
    assert "this is a bug in kqctl, please report it" in err
    assert "Traceback" not in err
    assert err.count("\n") == 1  # one line
