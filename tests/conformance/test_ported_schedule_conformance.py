"""Kueue's TestSchedule cases (and those of two sibling tests run by the same Go procedure) translated by hand
(tests/conformance/data/kueue-ported/README.md), through the real ``kqctl simulate`` command, exactly as
test_simulate_conformance.py runs the recorded ones.

These cases were not recorded from a Kueue run: their expected.yaml holds only what the Go test asserts
(wantAssignments, wantLeft, wantInadmissibleLeft and, read off wantWorkloads, who got quota this cycle and who
was preempted), so only the keys present there are compared.
"""

from __future__ import annotations

import json

import pytest
from conformance_cases import Case, cases, cli_arguments, ported_cases, scheduler_differences
from support import run_kqctl

# Ported suite -> the Go test its cases come from (all run by Kueue's runScheduleTestCases).
PORTED_SUITES = {
    "schedule": "TestSchedule",
    "fair-sharing": "TestScheduleForFairSharing",
    "recompute-preemption-targets": "TestScheduleRecomputePreemptionTargets",
}
PORTED_SCHEDULE_CASES = ported_cases(*PORTED_SUITES)

# A ported case ("suite/name") kqctl does not reproduce yet, with the rule behind it (strict: it fails once it
# passes). None today.
KNOWN_DIFFERENCES: dict[str, str] = {}


def _param(case: Case) -> object:
    reason = KNOWN_DIFFERENCES.get(str(case))
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
        assert source["repo"] == "kubernetes-sigs/kueue" and source["test"] == PORTED_SUITES[case.suite], case
        assert source["case"] and source["ported"].startswith("by hand"), case


def test_ported_cases_are_not_already_recorded() -> None:
    """A ported case is one the recorded copy lacks: the two roots never hold the same upstream case."""
    def key(case: Case) -> tuple[str, str]:
        return case.expected["source"]["test"], case.expected["source"]["case"]

    recorded = {key(c) for c in cases(*PORTED_SUITES)}
    assert not recorded & {key(c) for c in PORTED_SCHEDULE_CASES}
