"""Kueue's TestScheduleForTAS, TestScheduleForTASPreemption and TestScheduleForTASCohorts cases translated by
scripts/port_kueue_tas_cases.py (tests/conformance/data/kueue-ported/tas*/README.md), through the real
``kqctl simulate``.

Their expected.yaml holds what the Go test asserts after its one ``schedule()`` call: ``newAssignments``
(wantNewAssignments, compared whole: every quota reservation in the cache but those of workloads admitted before
the cycle, ``initiallyAdmitted``), each pod set's topology assignment included; ``pending`` (wantLeft) and
``inadmissible`` (wantInadmissibleLeft); ``preempted`` when the test asserts its events (a ``Preempted`` event).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conformance_cases import Case, normalized_admitted, ported_cases, scheduler_differences, simulate_json

# Ported suite -> its Go test, how many of its cases are written as data and how many need what kqctl does not
# model (listed in the suite's README with why): a case that disappears, or one more, fails
# test_every_tas_case_is_ported_or_listed.
SUITES = {
    "tas": ("TestScheduleForTAS", 33, 34),
    "tas-preemption": ("TestScheduleForTASPreemption", 11, 0),
    "tas-cohorts": ("TestScheduleForTASCohorts", 26, 0),
}
PORTED_TAS_CASES = ported_cases(*SUITES)

# A ported case ("suite/name") kqctl does not reproduce yet, with the rule behind it (strict: it fails once it
# passes). None today.
KNOWN_DIFFERENCES: dict[str, str] = {}


def _param(case: Case) -> object:
    reason = KNOWN_DIFFERENCES.get(str(case))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=str(case), marks=marks)


def new_assignments(got: dict[str, Any], initially: list[str]) -> dict[str, Any]:
    """Every quota reservation kqctl ends the cycle with but those the test leaves out (admitted before it)."""
    return {key: admission for key, admission in (got.get("admitted") or {}).items() if key not in initially}


def topologies(admitted: dict[str, Any]) -> dict[str, list[Any]]:
    return {key: [ps.get("topologyAssignment") for ps in admission["podSetAssignments"]]
            for key, admission in admitted.items()}


def tas_differences(got: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    diffs = scheduler_differences(got, expected, only_present=True)
    mine = new_assignments(got, expected.get("initiallyAdmitted") or [])
    theirs = expected.get("newAssignments") or {}
    if normalized_admitted(mine) != normalized_admitted(theirs) or topologies(mine) != topologies(theirs):
        diffs.append(f"newAssignments: got {mine!r}, expected {theirs!r}")
    return diffs


@pytest.mark.parametrize("case", [_param(c) for c in PORTED_TAS_CASES])
def test_ported_tas_case_matches_kueue(case: Case, tmp_path: Path) -> None:
    # simulate_json adds a Kueue Configuration for the case's resource transformations
    assert tas_differences(simulate_json(case, tmp_path), case.expected) == []


@pytest.mark.parametrize("suite", list(SUITES))
def test_every_tas_case_is_ported_or_listed(suite: str) -> None:
    _, ported, not_ported = SUITES[suite]
    assert len([c for c in PORTED_TAS_CASES if c.suite == suite]) == ported
    readme = (ported_cases(suite)[0].path.parent / "README.md").read_text()
    listed = readme.split("## Not ported", 1)[1]
    assert listed.count("\n- `") == not_ported


def test_every_ported_tas_case_names_its_go_source() -> None:
    for case in PORTED_TAS_CASES:
        source = case.expected["source"]
        assert source["repo"] == "kubernetes-sigs/kueue" and source["test"] == SUITES[case.suite][0], case
        assert source["case"] and source["ported"].startswith("by hand"), case
