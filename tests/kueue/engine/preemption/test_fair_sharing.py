"""Fair-sharing preemption (kqctl/kueue/engine/preemption/fair_sharing.py, FS-5..FS-10)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.dominant_resource_share import DRS
from kqctl.kueue.engine.preemption.fair_sharing import (
    LESS_THAN_INITIAL_SHARE,
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    FairSharingPreemption,
    passes,
)
from kqctl.kueue.engine.preemption.targets import CandidateOrder, Target
from tests.kueue.engine.manifests import NOW, cluster_queue, cohort
from tests.kueue.engine.preemption.helpers import CPU, context, running, scenario, victims, waiting

RECLAIM = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
BOTH = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)


def targets(*documents: dict[str, Any], cpu: int, strategies: tuple[str, ...] = BOTH) -> list[Target]:
    """A cohort {a, b, c} of 4 cpu each; the preemptor ``p`` waits in a."""
    queues = [cluster_queue(n, {"default": {"cpu": "4"}}, cohort="co", preemption=RECLAIM) for n in "abc"]
    sim = scenario(cohort("co"), *queues, *documents, pending=waiting("p", "a", str(cpu // 1000), priority=5))
    usage_before = {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()}
    found = FairSharingPreemption(sim.cache, CandidateOrder(NOW), strategies).targets(context(sim, "p", cpu))
    assert {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()} == usage_before, \
        "the search puts every candidate back and removes the preemptor's simulated usage"
    return found


@pytest.mark.parametrize(("strategy", "preemptor_new", "target_old", "target_new", "passed"), [
    (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, 100.0, 300.0, 100.0, True),
    (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, 100.0, 300.0, 50.0, False),
    (LESS_THAN_INITIAL_SHARE, 100.0, 300.0, 0.0, True),
    (LESS_THAN_INITIAL_SHARE, 300.0, 300.0, 0.0, False),
])
def test_fs_8_fs_9_the_strategies(strategy: str, preemptor_new: float, target_old: float, target_new: float,
                                  passed: bool) -> None:
    def share(ratio: float) -> DRS:
        return DRS(1.0, ratio, "cpu", ratio > 0)

    assert passes(strategy, share(preemptor_new), share(target_old), share(target_new)) is passed


def test_fs_5_fs_8_a_preemptor_within_nominal_reclaims_only_from_borrowing_queues() -> None:
    # b borrows 2 (6 of 4), c uses its own 4: only b's workloads are candidates, taken unconditionally.
    found = targets(running("b1", "b", "3"), running("b2", "b", "3"), running("c1", "c", "4"), cpu=4000)
    assert victims(found) == [("b1", "InCohortReclamation")]


@pytest.mark.parametrize(("strategies", "expected"), [
    (BOTH, [("b1", "InCohortFairSharing")]),
    ((LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,), []),
])
def test_fs_9_less_than_initial_share_is_the_second_chance(strategies: tuple[str, ...],
                                                           expected: list[tuple[str, str]]) -> None:
    # a runs its 4 and wants 2 more (share 166 with them); b runs 8 (share 333). Taking one of b's 4-cpu
    # workloads leaves b at 0 < 166: the first strategy refuses, the second accepts (166 < 333).
    found = targets(running("a1", "a", "4", priority=9), running("b1", "b", "4"), running("b2", "b", "4"),
                    cpu=2000, strategies=strategies)
    assert victims(found) == expected


def test_fs_8_less_than_or_equal_to_final_share_takes_a_victim_that_keeps_the_target_above_the_preemptor() -> None:
    # b runs 8 as four 2-cpu workloads: without one it is at 6 (share 166), equal to the preemptor's.
    found = targets(running("a1", "a", "4", priority=9), *(running(f"b{i}", "b", "2") for i in range(4)),
                    cpu=2000, strategies=(LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,))
    assert [reason for _, reason in victims(found)] == ["InCohortFairSharing"] and len(found) == 1


def test_fs_8_victims_in_the_preemptors_own_queue_are_in_cluster_queue() -> None:
    found = targets(running("a-low", "a", "4", priority=0), running("b1", "b", "4"), running("c1", "c", "4"),
                    cpu=4000)
    assert victims(found) == [("a-low", "InClusterQueue")]


def test_fs_10_no_victims_when_nothing_makes_room() -> None:
    assert targets(running("a1", "a", "4", priority=9), running("b1", "b", "4"), running("c1", "c", "4"),
                   cpu=2000) == []
