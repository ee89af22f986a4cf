"""What a simulation returns (kqctl/kueue/engine/results.py): frozen values renderers only format (SIM-9)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kqctl.kueue.engine.results import ClusterQueueResult, QuotaUsage, SimulationResult
from tests.kueue.engine.manifests import cluster_queue, flavor, local_queue, simulation, workload

EARLY, LATE = "2025-12-31T00:00:00Z", "2025-12-31T01:00:00Z"


def result_of(*documents: dict[str, Any], **options: Any) -> SimulationResult:
    return simulation(flavor("default"), local_queue("lq-a", "a"), local_queue("lq-b", "b"), *documents,
                      **options).run()


def borrowing_cohort(*documents: dict[str, Any]) -> SimulationResult:
    """a has 2 cpu, b 4, in one cohort; a's older workload holds its 2, a newer one borrows 2 of b's."""
    return result_of(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                     cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"),
                     workload("old", "lq-a", cpu="2", admitted_in="a"), workload("new", "lq-a", cpu="2"), *documents)


def test_q_7_borrowing_is_charged_to_the_workload_admitted_last() -> None:
    result = borrowing_cohort()
    assert (result.workloads["ns/new"].borrowed, result.workloads["ns/old"].borrowed) == ({("default", "cpu"): 2000},
                                                                                          {})


def test_q_7_each_cluster_queue_reports_usage_borrowed_and_lent() -> None:
    result = borrowing_cohort()
    assert result.cluster_queues["a"].quotas == (QuotaUsage("default", "cpu", 2000, None, None, 4000, 2000, 0),)
    assert result.cluster_queues["b"].quotas == (QuotaUsage("default", "cpu", 4000, None, None, 0, 0, 2000),)
    assert (result.cluster_queues["a"].cohort, result.cluster_queues["a"].active) == ("co", True)


def test_sim_9_the_queues_of_each_cluster_queue_at_the_end() -> None:
    result = result_of(cluster_queue("a", {"default": {"cpu": "2"}}), cluster_queue("b", {"default": {"cpu": "1"}}),
                       workload("fits", "lq-a", cpu="2", created=EARLY),
                       workload("waits", "lq-a", cpu="2", created=LATE), workload("too-big", "lq-b", cpu="2"))
    assert result.cluster_queues["a"] == ClusterQueueResult("a", None, True, "", result.cluster_queues["a"].quotas,
                                                            (), ("ns/waits",))
    assert (result.cluster_queues["b"].inadmissible, result.cluster_queues["b"].queued) == (("ns/too-big",), 1)


def test_sim_9_each_workload_carries_its_decision_reason_and_admission() -> None:
    result = borrowing_cohort()
    new = result.workloads["ns/new"]
    assert (new.decision, new.state, new.decision_text, new.admitted_in, new.reason) == (
        "Admitted", "Admitted", "Admitted", 1, "QuotaReserved")
    assert new.admission is not None and new.admission.cluster_queue == "a"
    assert (new.local_queue, new.cluster_queue, new.namespace, new.name) == ("ns/lq-a", "a", "ns", "new")


def test_sim_9_the_history_records_each_cycles_admissions_and_evictions() -> None:
    preemption = {"withinClusterQueue": "LowerPriority"}
    result = result_of(cluster_queue("a", {"default": {"cpu": "4"}}, preemption=preemption),
                       workload("victim", "lq-a", cpu="4", admitted_in="a"),
                       workload("preemptor", "lq-a", cpu="4", priority=5))
    first, second = result.history[:2]
    assert (first.admitted, [(e.victim, e.preemptor, e.reason) for e in first.evictions]) == (
        (), [("ns/victim", "ns/preemptor", "InClusterQueue")])
    assert second.admitted == ("ns/preemptor",)


@pytest.mark.parametrize("field", ["cycles", "workloads", "cluster_queues", "livelock"])
def test_the_result_is_frozen(field: str) -> None:
    result = borrowing_cohort()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.workloads["ns/new"].decision = "Pending"  # type: ignore[misc]


def test_sim_9_a_frozen_workload_result_is_the_dataclass_its_init_would_build() -> None:
    """freeze builds WorkloadResult without its generated __init__ (50,000 of them): every field is set, the value is
    equal to the one __init__ builds, and it stays frozen."""
    result = borrowing_cohort(workload("third", "lq-b", cpu="9"))
    names = {f.name for f in dataclasses.fields(result.workloads["ns/new"])}
    for frozen in result.workloads.values():
        assert set(vars(frozen)) == names
        rebuilt = dataclasses.replace(frozen)  # through __init__, every field as frozen holds it
        assert rebuilt == frozen and vars(rebuilt) == vars(frozen)
        with pytest.raises(dataclasses.FrozenInstanceError):
            frozen.reason = "changed"  # type: ignore[misc]
