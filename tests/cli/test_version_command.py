"""kqctl version: kqctl's version and the scheduler versions it mirrors, as text and JSON."""

from __future__ import annotations

import json
from collections.abc import Callable

from support import Run

from kqctl import __version__

Kq = Callable[..., Run]


def test_text_names_kqctl_and_the_kueue_commit_it_mirrors(kqctl: Kq) -> None:
    run = kqctl("version")
    assert run.code == 0
    assert run.out.splitlines()[0] == f"kqctl {__version__}"
    assert "kueue: v0.20.0-devel" in run.out and "ff69552e" in run.out
    assert "yunikorn: yunikorn-core master of July 2026 (k8shim 23b6b47f), commit be3bb487" in run.out


def test_json_has_every_scheduler_with_the_same_keys(kqctl: Kq) -> None:
    data = json.loads(kqctl("version", "-o", "json").out)
    assert data["kqctl"] == __version__
    assert set(data["schedulers"]) == {"kueue", "volcano", "yunikorn"}
    assert len({tuple(sorted(entry)) for entry in data["schedulers"].values()}) == 1


def test_an_unknown_format_is_a_usage_error(kqctl: Kq) -> None:
    assert kqctl("version", "-o", "xml").code == 2
