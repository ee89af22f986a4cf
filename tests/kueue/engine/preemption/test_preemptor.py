"""The preemptor (kqctl/kueue/engine/preemption/preemptor.py): which search runs, and the oracle (PRE-11)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.preemption.preemptor import Preemptor
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import NOW, cluster_queue, cohort
from tests.kueue.engine.preemption.helpers import CPU, context, running, scenario, victims, waiting

RECLAIM = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}


def cohort_of_three(*documents: dict[str, Any], pending_cpu: str, preemption: dict[str, Any] = RECLAIM) -> Simulation:
    queues = [cluster_queue(n, {"default": {"cpu": "4"}}, cohort="co", preemption=preemption) for n in "abc"]
    return scenario(cohort("co"), *queues, *documents, pending=waiting("p", "a", pending_cpu, priority=5))


@pytest.mark.parametrize(("fair_sharing", "expected"), [
    (False, []),                                   # PRE-8: no borrowWithinCohort, a may not borrow by preempting
    (True, [("b1", "InCohortFairSharing")]),       # FS-9: b's share is above a's
])
def test_pre_fs_the_search_follows_the_fair_sharing_setting(fair_sharing: bool,
                                                            expected: list[tuple[str, str]]) -> None:
    sim = cohort_of_three(running("a1", "a", "4", priority=9), running("b1", "b", "4"), running("b2", "b", "4"),
                          pending_cpu="2")
    preemptor = Preemptor(sim.cache, NOW, fair_sharing=fair_sharing)
    assert victims(preemptor.targets(context(sim, "p", 2000))) == expected


@pytest.mark.parametrize(("documents", "answer"), [
    ([running("a-low", "a", "4", priority=0)], ("Preempt", 0)),          # a victim in its own queue
    ([running("b1", "b", "6"), running("c1", "c", "6")], ("Reclaim", 0)),  # victims elsewhere, then within nominal
    ([running("a-high", "a", "4", priority=9)], ("NoCandidates", 1)),  # the level it would borrow at now
])
def test_pre_11_the_oracle_answers_preempt_reclaim_or_no_candidates(documents: list[dict[str, Any]],
                                                                    answer: tuple[str, int]) -> None:
    sim = cohort_of_three(*documents, pending_cpu="4")
    usage = {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()}
    oracle = Preemptor(sim.cache, NOW).oracle(sim.outcomes["ns/p"].workload, sim.cache.cluster_queues["a"])
    assert oracle(CPU, 4000) == answer
    assert {name: state.usage(CPU) for name, state in sim.cache.cluster_queues.items()} == usage, \
        "asking the oracle changes nothing"


def test_pre_11_the_level_is_the_borrowing_level_after_the_victims_leave() -> None:
    # a wants 6, 2 more than its quota, and may reclaim while borrowing: c's workload goes, a still borrows.
    borrowing = {**RECLAIM, "borrowWithinCohort": {"policy": "LowerPriority"}}
    sim = cohort_of_three(running("b1", "b", "4"), running("c1", "c", "6"), pending_cpu="6", preemption=borrowing)
    oracle = Preemptor(sim.cache, NOW).oracle(sim.outcomes["ns/p"].workload, sim.cache.cluster_queues["a"])
    assert oracle(CPU, 6000) == ("Reclaim", 1)


def test_pre_2_get_targets_reads_the_flavors_needing_preemption_from_the_assignment() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "4"}}, preemption=RECLAIM),
                   running("a-low", "a", "4", priority=0), pending=waiting("p", "a", "2", priority=5))
    state, preemptor = sim.cache.cluster_queues["a"], sim.outcomes["ns/p"].workload
    assignment, _ = sim.scheduler.get_assignments(preemptor, state)
    assert assignment.flavors_needing_preemption() == {CPU}
    assert victims(Preemptor(sim.cache, NOW).get_targets(preemptor, state, assignment)) == [
        ("a-low", "InClusterQueue")]
