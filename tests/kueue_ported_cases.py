"""Reading the Kueue unit-test cases ported by hand into tests/conformance/data/kueue-ported (its README.md).

Unlike tests/conformance/data/kueue, these cases hold no recording of Kueue: their expected outcome is
only what the Go test asserts. A case folder has the same layout (``snapshot.yaml``, ``expected.yaml``),
so tests/conformance_cases.py's ``Case``, ``cli_arguments`` and ``configuration_document`` read it.
"""

from __future__ import annotations

from typing import Any

import pytest
from conformance_cases import Case
from support import REPO

KUEUE_PORTED = REPO / "tests" / "conformance" / "data" / "kueue-ported"


def ported_cases(*suites: str) -> list[Case]:
    found = [Case(suite, path.name, path) for suite in suites
             for path in sorted((KUEUE_PORTED / suite).iterdir()) if path.is_dir()]
    if not found:
        raise RuntimeError(f"no ported cases for {suites} under {KUEUE_PORTED}")
    return found


def with_known_differences(cases: list[Case], differences: dict[str, str]) -> list[Any]:
    """The cases as pytest parameters, those named in ``differences`` (suite/name -> why) marked xfail(strict):
    a difference whose fix is large or risky, described where it is listed."""
    unknown = set(differences) - {str(c) for c in cases}
    assert not unknown, f"known differences of no case: {unknown}"
    return [pytest.param(c, id=str(c), marks=pytest.mark.xfail(strict=True, reason=differences[str(c)]))
            if str(c) in differences else pytest.param(c, id=str(c)) for c in cases]

