"""The result of flavor assignment (kqctl/kueue/engine/flavors/assignment.py): modes, messages, reasons (FA, CYC-18)."""

from __future__ import annotations

import pytest

from kqctl.kueue.api.models import ResourceGroup
from kqctl.kueue.engine.flavors.assignment import (
    EXCEEDS_MAX_QUOTA,
    FIT,
    NO_FIT,
    NO_MATCHING_FLAVOR,
    PREEMPT,
    TOPOLOGY_PLACEMENT_FAILED,
    WAITING_FOR_QUOTA,
    Assignment,
    Attempt,
    FlavorChoice,
    PodSetAssignment,
    Status,
    format_attempts,
    most_severe,
    resolve_no_fit_reason,
)

GROUPS = (ResourceGroup(("cpu",), ("a", "b")), ResourceGroup(("memory",), ("c",)))


def pod_set(name: str, modes: dict[str, str], reasons: list[str] | None = None, error: str | None = None,
            attempts: list[Attempt] | None = None) -> PodSetAssignment:
    flavors = {r: FlavorChoice("a", mode, 0) for r, mode in modes.items()}
    return PodSetAssignment(name, 0, flavors, Status(reasons or [], error), {r: 1000 for r in modes}, 1,
                            attempts or [])


def assignment(*pod_sets: PodSetAssignment) -> Assignment:
    result = Assignment()
    for ps in pod_sets:
        result.append(ps.requests, ps)
    return result


@pytest.mark.parametrize(("modes", "representative"), [
    ([{"cpu": FIT}], FIT),
    ([{"cpu": FIT, "memory": PREEMPT}], PREEMPT),
    ([{"cpu": FIT}, {"cpu": PREEMPT}], PREEMPT),
    ([{"cpu": PREEMPT}, {}], NO_FIT),  # a pod set without flavors is NoFit
])
def test_fa_12_the_representative_mode_is_the_worst_pod_set_mode(modes: list[dict[str, str]],
                                                                 representative: str) -> None:
    sets = [pod_set(f"ps{i}", m, reasons=[] if all(v == FIT for v in m.values()) and m else ["r"])
            for i, m in enumerate(modes)]
    assert assignment(*sets).representative_mode() == representative


def test_fa_13_reasons_are_sorted_per_pod_set_and_pod_sets_joined() -> None:
    result = assignment(pod_set("driver", {"cpu": PREEMPT}, ["z reason", "a reason"]),
                        pod_set("workers", {"cpu": FIT}), pod_set("extra", {"cpu": PREEMPT}, ["only"]))
    assert result.message() == ("couldn't assign flavors to pod set driver: a reason, z reason; "
                                "couldn't assign flavors to pod set extra: only")


def test_fa_13_an_error_replaces_the_whole_message() -> None:
    result = assignment(pod_set("first", {"cpu": PREEMPT}, ["r"]), pod_set("bad", {}, error="bad selector"))
    assert result.message() == "failed to assign flavors to pod set bad: bad selector"


def test_fa_12_usage_borrowing_and_preemption_needs_sum_up_over_pod_sets() -> None:
    first, second = pod_set("a", {"cpu": FIT}), pod_set("b", {"cpu": PREEMPT}, ["r"])
    first.flavors["cpu"].borrow, second.flavors["cpu"].borrow = 2, 1
    result = assignment(first, second)
    assert (result.usage, result.borrowing, result.flavors_needing_preemption()) == (
        {("a", "cpu"): 2000}, 2, {("a", "cpu")})


@pytest.mark.parametrize(("a", "b", "worse"), [
    (NO_MATCHING_FLAVOR, EXCEEDS_MAX_QUOTA, NO_MATCHING_FLAVOR),
    (WAITING_FOR_QUOTA, EXCEEDS_MAX_QUOTA, EXCEEDS_MAX_QUOTA),
    (TOPOLOGY_PLACEMENT_FAILED, WAITING_FOR_QUOTA, WAITING_FOR_QUOTA),
    ("", TOPOLOGY_PLACEMENT_FAILED, TOPOLOGY_PLACEMENT_FAILED),
])
def test_fa_14_severity_order(a: str, b: str, worse: str) -> None:
    assert most_severe(a, b) == worse and most_severe(b, a) == worse


def test_fa_14_least_severe_within_a_group_most_severe_across_groups() -> None:
    attempts = [Attempt("a", NO_FIT, no_fit_reason=NO_MATCHING_FLAVOR),
                Attempt("b", NO_FIT, no_fit_reason=WAITING_FOR_QUOTA),    # group 0: the least severe, WaitingForQuota
                Attempt("c", NO_FIT, no_fit_reason=EXCEEDS_MAX_QUOTA)]    # group 1: ExceedsMaxQuota
    result = assignment(pod_set("main", {}, ["r"], attempts=attempts))
    assert resolve_no_fit_reason(result, GROUPS) == EXCEEDS_MAX_QUOTA


def test_fa_14_a_pod_set_without_attempts_is_no_matching_flavor_and_a_fit_has_no_reason() -> None:
    assert resolve_no_fit_reason(assignment(pod_set("main", {}, ["r"])), GROUPS) == NO_MATCHING_FLAVOR
    assert resolve_no_fit_reason(assignment(pod_set("main", {"cpu": FIT})), GROUPS) == ""


def test_cyc_18_flavors_considered_lists_every_attempt_but_a_plain_fit() -> None:
    attempts = [Attempt("a", FIT), Attempt("b", FIT, borrow=1),
                Attempt("c", PREEMPT, possibility="Reclaim", reasons=["insufficient"])]
    result = assignment(pod_set("main", {"cpu": FIT}, attempts=attempts))
    assert format_attempts(result) == "main: b(Fit;borrow=1), c(preemptionMode=Reclaim;insufficient)"
