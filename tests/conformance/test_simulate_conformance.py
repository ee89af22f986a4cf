"""Kueue's recorded decisions reproduced through the real ``kqctl simulate`` command.

Scheduler suites compare admitted / newlyAdmitted / preempted / pending / inadmissible after the
case's cycles; preemption suites compare who the incoming workload preempts in one cycle
(``replay.endToEnd``, what the scheduler itself does). Cases whose config holds state no
manifest carries are in test_engine_conformance.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance_cases import (
    Case,
    cases,
    needs_engine_api,
    scheduler_differences,
    simulate_json,
)

SCHEDULER_SUITES = ("schedule", "fair-sharing", "concurrent-admission", "recompute-preemption-targets", "random")
PREEMPTION_SUITES = ("preemption", "preemption-hierarchical", "preemption-fair")

SCHEDULER_CASES = [c for c in cases(*SCHEDULER_SUITES) if not needs_engine_api(c)]
PREEMPTION_CASES = cases(*PREEMPTION_SUITES)


@pytest.mark.parametrize("case", SCHEDULER_CASES, ids=str)
def test_scheduler_case_matches_kueue(case: Case, tmp_path: Path) -> None:
    got = simulate_json(case, tmp_path)
    assert scheduler_differences(got, case.expected) == []


@pytest.mark.parametrize("case", PREEMPTION_CASES, ids=str)
def test_preemption_case_matches_kueue_end_to_end(case: Case, tmp_path: Path) -> None:
    expected = case.expected
    got = simulate_json(case, tmp_path)
    assert sorted(got["preempted"]) == sorted(expected["replay"]["endToEnd"]["preempted"])
    victims = set(got["workloads"][expected["incoming"]]["victims"])
    assert victims == set(expected["replay"]["endToEnd"]["preempted"])
