"""Taints and tolerations as Kubernetes matches them (TAINT-1..TAINT-5), table-driven."""

from __future__ import annotations

import pytest

from kqctl.k8s.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    Taint,
    Toleration,
    intolerable_prefer_no_schedule,
    normalized_scores,
    refuses_cordoned,
    untolerated_taint,
    with_api_server_defaults,
)

GPU = Taint("gpu", "true", NO_SCHEDULE)


@pytest.mark.parametrize(("toleration", "taint", "expected"), [
    (Toleration("gpu", "Equal", "true", NO_SCHEDULE), GPU, True),
    (Toleration("gpu", "", "true", NO_SCHEDULE), GPU, True),  # empty operator reads as Equal
    (Toleration("gpu", "Equal", "false", NO_SCHEDULE), GPU, False),
    (Toleration("gpu", "Exists", "", NO_SCHEDULE), GPU, True),
    (Toleration("gpu", "Exists"), GPU, True),  # empty effect matches every effect
    (Toleration("gpu", "Exists", "", NO_EXECUTE), GPU, False),  # effects must match
    (Toleration("", "Exists"), GPU, True),  # empty key with Exists tolerates everything
    (Toleration("", "Exists", "", NO_EXECUTE), GPU, False),
    (Toleration("other", "Exists"), GPU, False),
    (Toleration("gpu", "Lt", "5"), Taint("gpu", "9", NO_SCHEDULE), False),  # Lt/Gt: alpha gate off
    (Toleration("gpu", "Bogus", "true"), GPU, False),
])
def test_taint_1_toleration_matches_taint(toleration: Toleration, taint: Taint, expected: bool) -> None:
    assert toleration.tolerates(taint) is expected


@pytest.mark.parametrize(("taints", "tolerations", "blocking"), [
    ((GPU,), (), GPU),
    ((Taint("x", "", NO_EXECUTE),), (), Taint("x", "", NO_EXECUTE)),
    ((Taint("x", "", PREFER_NO_SCHEDULE),), (), None),  # TAINT-3: never a filter
    ((GPU, Taint("y", "", NO_SCHEDULE)), (Toleration("gpu", "Exists"),), Taint("y", "", NO_SCHEDULE)),
    ((GPU,), (Toleration("", "Exists"),), None),
])
def test_taint_2_no_schedule_and_no_execute_must_be_tolerated(taints: tuple[Taint, ...],
                                                             tolerations: tuple[Toleration, ...],
                                                             blocking: Taint | None) -> None:
    assert untolerated_taint(taints, tolerations) == blocking


def test_taint_3_prefer_no_schedule_is_counted_for_the_score() -> None:
    taints = (Taint("a", "", PREFER_NO_SCHEDULE), Taint("b", "", PREFER_NO_SCHEDULE), GPU)
    assert intolerable_prefer_no_schedule(taints, ()) == 2
    # Only tolerations of effect PreferNoSchedule (or none) count for the score.
    assert intolerable_prefer_no_schedule(taints, (Toleration("a", "Exists", "", PREFER_NO_SCHEDULE),)) == 1
    assert intolerable_prefer_no_schedule(taints, (Toleration("a", "Exists", "", NO_SCHEDULE),)) == 2
    assert normalized_scores({"n1": 0, "n2": 2, "n3": 1}) == {"n1": 100, "n2": 0, "n3": 50}
    assert normalized_scores({"n1": 0}) == {"n1": 100}


def test_taint_4_api_server_adds_not_ready_and_unreachable_tolerations() -> None:
    added = with_api_server_defaults(())
    assert [(t.key, t.operator, t.effect, t.seconds) for t in added] == [
        ("node.kubernetes.io/not-ready", "Exists", NO_EXECUTE, 300),
        ("node.kubernetes.io/unreachable", "Exists", NO_EXECUTE, 300)]
    # A pod that already tolerates them (by key, or every key) gets nothing more.
    own = (Toleration("node.kubernetes.io/not-ready", "Exists", "", NO_EXECUTE, 10),)
    assert [t.key for t in with_api_server_defaults(own)] == ["node.kubernetes.io/not-ready",
                                                              "node.kubernetes.io/unreachable"]
    everything = (Toleration("", "Exists"),)
    assert with_api_server_defaults(everything) == everything


def test_taint_5_cordoned_node_refuses_a_pod_that_does_not_tolerate_unschedulable() -> None:
    assert refuses_cordoned(True, ())
    assert not refuses_cordoned(False, ())
    assert not refuses_cordoned(True, (Toleration("node.kubernetes.io/unschedulable", "Exists", "", NO_SCHEDULE),))
