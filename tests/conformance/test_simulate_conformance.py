"""Kueue's recorded decisions reproduced through the real ``kqctl simulate`` command.

Scheduler suites compare admitted / newlyAdmitted / preempted / pending / inadmissible after the
case's cycles; preemption suites compare who the incoming workload preempts in one cycle
(``replay.endToEnd``, what the scheduler itself does). Cases whose config holds state no
manifest carries are in test_engine_conformance.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conformance_cases import (
    Case,
    cases,
    cli_arguments,
    configuration_document,
    needs_engine_api,
    scheduler_differences,
)
from support import run_kqctl

SCHEDULER_SUITES = ("schedule", "fair-sharing", "concurrent-admission", "recompute-preemption-targets", "random")
PREEMPTION_SUITES = ("preemption", "preemption-hierarchical", "preemption-fair")

SCHEDULER_CASES = [c for c in cases(*SCHEDULER_SUITES) if not needs_engine_api(c)]
PREEMPTION_CASES = cases(*PREEMPTION_SUITES)


def simulate(case: Case, tmp_path: Path) -> dict:
    extra = []
    document = configuration_document(case)
    if document is not None:
        config = tmp_path / "kueue-config.yaml"
        config.write_text(document)
        extra.append(str(config))
    run = run_kqctl(*cli_arguments(case, extra))
    assert run.code == 0, f"kqctl exited {run.code}: {run.err}"
    return json.loads(run.out)


@pytest.mark.parametrize("case", SCHEDULER_CASES, ids=str)
def test_scheduler_case_matches_kueue(case: Case, tmp_path: Path) -> None:
    got = simulate(case, tmp_path)
    assert scheduler_differences(got, case.expected) == []


@pytest.mark.parametrize("case", PREEMPTION_CASES, ids=str)
def test_preemption_case_matches_kueue_end_to_end(case: Case, tmp_path: Path) -> None:
    expected = case.expected
    got = simulate(case, tmp_path)
    assert sorted(got["preempted"]) == sorted(expected["replay"]["endToEnd"]["preempted"])
    victims = set(got["workloads"][expected["incoming"]]["victims"])
    assert victims == set(expected["replay"]["endToEnd"]["preempted"])
