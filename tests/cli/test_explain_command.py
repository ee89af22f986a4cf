"""``kqctl explain`` end to end on the shipped samples."""

from __future__ import annotations

import json
from collections.abc import Callable

from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = str(REPO / "samples" / "cohort-borrowing")
NOW = ["--now", "2026-01-01T00:00:00Z"]
WAITING = "team-a/job-llm-finetune-0d5b7"


def test_table_explains_flavors_position_preemption_and_suggestions(kqctl: Kq) -> None:
    run = kqctl("explain", WAITING, SAMPLE, *NOW)
    assert run.code == 0, run.err
    for text in ("Steady state: Inadmissible", "flavor default-flavor", "not allowed",
                 "What would make it fit", "raise nominalQuota"):
        assert text in run.out


def test_json_has_the_contract_keys_and_verified_suggestions(kqctl: Kq) -> None:
    data = json.loads(kqctl("explain", WAITING, "-f", SAMPLE, "-o", "json", *NOW).out)
    assert {"clusterQueue", "representativeMode", "borrowing", "podSets", "message"} <= set(data)
    assert data["podSets"][0]["flavors"]["cpu"]["name"] == "default-flavor"
    assert data["suggestions"] and all(s["verified"] for s in data["suggestions"])


def test_unknown_workload_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("explain", "team-a/nothing-here", SAMPLE)
    assert run.code == 2 and "no workload" in run.err


def test_a_path_given_before_the_workload_is_a_usage_error_naming_the_order(kqctl: Kq) -> None:
    swapped = kqctl("explain", SAMPLE, WAITING)
    assert swapped.code == 2
    assert "the workload comes first" in swapped.err and f"kqctl explain {WAITING} {SAMPLE}" in swapped.err
    # The right order is untouched by the check.
    assert kqctl("explain", WAITING, SAMPLE, *NOW).code == 0


def test_a_path_without_a_workload_is_a_usage_error_saying_the_workload_is_missing(kqctl: Kq) -> None:
    run = kqctl("explain", SAMPLE)
    assert run.code == 2
    assert "is a directory, not a workload" in run.err and f"kqctl explain NAMESPACE/NAME {SAMPLE}" in run.err


def test_workload_admitted_in_the_snapshot_is_explained_as_admitted(kqctl: Kq) -> None:
    data = json.loads(kqctl("explain", "team-b/job-feature-pipeline-e93a4", SAMPLE, "-o", "json", *NOW).out)
    assert data["admitted"] is True and data["steadyState"]["state"] == "Admitted"


def test_pending_workload_that_fits_is_admitted_in_the_next_cycle(kqctl: Kq) -> None:
    data = json.loads(kqctl("explain", "team-b/job-model-eval-6a0f3", SAMPLE, "-o", "json", *NOW).out)
    assert data["admitted"] is False and data["representativeMode"] == "Fit"
    assert data["nextCycle"] == {**data["nextCycle"], "state": "Admitted", "cycle": 1}
