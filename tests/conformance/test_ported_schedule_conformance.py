"""Kueue's TestSchedule cases translated by hand (tests/conformance/data/kueue-ported/README.md), through the real
``kqctl simulate`` command, exactly as test_simulate_conformance.py runs the recorded ones.

These cases were not recorded from a Kueue run: their expected.yaml holds only what the Go test asserts
(wantAssignments, wantLeft, wantInadmissibleLeft and, read off wantWorkloads, who got quota this cycle and who
was preempted), so only the keys present there are compared.
"""

from __future__ import annotations

import json

import pytest
from conformance_cases import Case, cases, cli_arguments, ported_cases, scheduler_differences
from support import run_kqctl

PORTED_SCHEDULE_CASES = ported_cases("schedule")

# A ported case kqctl does not reproduce yet, with the rule behind it (strict: it fails once it passes).
KNOWN_DIFFERENCES: dict[str, str] = {}


def _param(case: Case) -> object:
    reason = KNOWN_DIFFERENCES.get(case.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=str(case), marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in PORTED_SCHEDULE_CASES])
def test_ported_schedule_case_matches_kueue(case: Case) -> None:
    run = run_kqctl(*cli_arguments(case, []))
    assert run.code == 0, f"kqctl exited {run.code}: {run.err}"
    got = json.loads(run.out)
    assert scheduler_differences(got, case.expected, only_present=True) == []


def test_every_ported_case_names_its_go_source() -> None:
    for case in PORTED_SCHEDULE_CASES:
        source = case.expected["source"]
        assert source["repo"] == "kubernetes-sigs/kueue" and source["test"] == "TestSchedule", case
        assert source["case"] and source["ported"].startswith("by hand"), case


def test_ported_cases_are_not_already_recorded() -> None:
    """A ported case is one the recorded copy lacks: the two roots never hold the same upstream case."""
    recorded = {c.expected["source"]["case"] for c in cases("schedule")}
    assert not recorded & {c.expected["source"]["case"] for c in PORTED_SCHEDULE_CASES}
