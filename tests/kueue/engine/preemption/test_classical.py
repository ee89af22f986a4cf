"""Classical preemption (kqctl/kueue/engine/preemption/classical.py, PRE-5..PRE-10)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.preemption.classical import ClassicalPreemption
from kqctl.kueue.engine.preemption.targets import CandidateOrder, Target
from tests.kueue.engine.manifests import NOW, cluster_queue
from tests.kueue.engine.preemption.helpers import CPU, context, running, scenario, victims, waiting

LOWER = {"withinClusterQueue": "LowerPriority"}
RECLAIM = {"reclaimWithinCohort": "Any"}


def targets(*documents: dict[str, Any], pending: dict[str, Any], cpu: int) -> list[Target]:
    sim = scenario(*documents, pending=pending)
    search = ClassicalPreemption(sim.cache, CandidateOrder(NOW))
    usage_before = {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()}
    found = search.targets(context(sim, pending["metadata"]["name"], cpu))
    assert {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()} == usage_before, \
        "a search puts every candidate back"
    return found


@pytest.mark.parametrize(("within", "expected"), [
    (LOWER, [("low", "InClusterQueue")]),
    ({"withinClusterQueue": "Never"}, []),
])
def test_pre_5_same_queue_victims_lowest_priority_first(within: dict[str, str],
                                                        expected: list[tuple[str, str]]) -> None:
    found = targets(cluster_queue("a", {"default": {"cpu": "4"}}, preemption=within),
                    running("low", "a", "2", priority=1), running("mid", "a", "2", priority=3),
                    pending=waiting("p", "a", "2", priority=5), cpu=2000)
    assert victims(found) == expected


def test_pre_5_a_candidate_of_equal_priority_is_not_lower() -> None:
    found = targets(cluster_queue("a", {"default": {"cpu": "2"}}, preemption=LOWER),
                    running("same", "a", "2", priority=5), pending=waiting("p", "a", "2", priority=5), cpu=2000)
    assert found == []


def test_pre_10_the_fewest_victims_that_make_room() -> None:
    # Tried in PRE-7 order (lowest priority first): small, then big; big alone makes room, so small stays.
    found = targets(cluster_queue("a", {"default": {"cpu": "4"}}, preemption=LOWER),
                    running("small", "a", "1", priority=0), running("big", "a", "3", priority=1),
                    pending=waiting("p", "a", "3", priority=5), cpu=3000)
    assert victims(found) == [("big", "InClusterQueue")]


def reclaim_scenario(b_workloads: list[dict[str, Any]], preemption: dict[str, Any] | None = None,
                     cpu: str = "4") -> list[Target]:
    return targets(cluster_queue("a", {"default": {"cpu": "4"}}, cohort="co", preemption=preemption or RECLAIM),
                   cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"), *b_workloads,
                   pending=waiting("p", "a", cpu, priority=5), cpu=int(cpu) * 1000)


def test_pre_6_reclaim_from_a_cluster_queue_borrowing_the_preemptors_quota() -> None:
    # b uses 6 of its 4: it borrows 2 of a's quota; a needs its 4 back: one of b's 3-cpu workloads goes.
    # Priority does not protect b's workloads: a only takes back its own quota (PRE-7: UID breaks the tie).
    found = reclaim_scenario([running("b1", "b", "3", priority=9), running("b2", "b", "3", priority=9)])
    assert victims(found) == [("b1", "InCohortReclamation")]


def test_q_9_pre_6_a_cluster_queue_within_its_nominal_quota_is_no_candidate() -> None:
    # b uses 4 of its 4 and a uses 4 of its 4: a's preemptor needs borrowing, and nobody borrows.
    found = targets(cluster_queue("a", {"default": {"cpu": "4"}}, cohort="co", preemption=RECLAIM),
                    cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"), running("a1", "a", "4", priority=9),
                    running("b1", "b", "4"), pending=waiting("p", "a", "2", priority=5), cpu=2000)
    assert found == []


def test_pre_6_reclaim_within_cohort_never_leaves_other_queues_alone() -> None:
    found = reclaim_scenario([running("b1", "b", "3"), running("b2", "b", "3")],
                             preemption={"reclaimWithinCohort": "Never"})
    assert found == []


@pytest.mark.parametrize(("borrow", "expected"), [
    (None, []),
    ({"policy": "LowerPriority"}, [("c1", "InCohortReclaimWhileBorrowing")]),
])
def test_pre_6_pre_8_reclaiming_while_borrowing_needs_borrow_within_cohort(borrow: dict[str, str] | None,
                                                                          expected: list[tuple[str, str]]) -> None:
    # a (nominal 2) already uses its 2 and wants 2 more, borrowing them from b's quota, which c borrows.
    preemption: dict[str, Any] = {"reclaimWithinCohort": "LowerPriority"}
    if borrow is not None:
        preemption["borrowWithinCohort"] = borrow
    found = targets(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co", preemption=preemption),
                    cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"),
                    cluster_queue("c", {"default": {"cpu": "0"}}, cohort="co"),
                    running("a1", "a", "2", priority=9), running("c1", "c", "4", priority=0),
                    pending=waiting("p", "a", "2", priority=5), cpu=2000)
    assert victims(found) == expected
