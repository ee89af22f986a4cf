"""One scheduling cycle (kqctl/kueue/engine/cycle.py): nomination, order, admission, preemption (CYC, REQ-14)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.cycle import NominationFailure
from kqctl.kueue.engine.entry import CycleResult, Entry
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import (
    NOW,
    check_states,
    cluster_queue,
    flavor,
    local_queue,
    namespace,
    simulation,
    workload,
)

EARLY, LATE = "2025-12-31T00:00:00Z", "2025-12-31T01:00:00Z"
CPU = ("default", "cpu")


def setup(*documents: dict[str, Any], **options: Any) -> Simulation:
    queues = [local_queue(f"lq-{d['metadata']['name']}", d["metadata"]["name"])
              for d in documents if d["kind"] == "ClusterQueue"]
    return simulation(flavor("default"), *documents, *queues, **options)


def one_cycle(sim: Simulation) -> tuple[CycleResult, dict[str, Entry]]:
    result = sim.scheduler.run_cycle(NOW)
    return result, {e.workload.model.name: e for e in result.entries}


@pytest.mark.parametrize(("documents", "cq_name", "failure"), [
    ([cluster_queue("a", {"default": {"cpu": "4"}}), workload("w", "lq-a", status=check_states(check="Retry"))], "a",
     NominationFailure("PendingEvaluation", "The workload has failed admission checks")),
    ([cluster_queue("a", {"default": {"cpu": "4"}}, stop_policy="Hold"), workload("w", "lq-a")], "a",
     NominationFailure("Suspended", "ClusterQueue a is inactive")),
    ([cluster_queue("a", {"default": {"cpu": "4"}}), workload("w", "lq-a")], "nope",
     NominationFailure("Misconfigured", "ClusterQueue nope not found")),
    ([cluster_queue("a", {"default": {"cpu": "4"}}, namespace_selector={"matchLabels": {"team": "red"}}),
      namespace("ns", {"team": "blue"}), workload("w", "lq-a")], "a",
     NominationFailure("Misconfigured", "workload namespace doesn't match ClusterQueue selector", "NamespaceMismatch")),
    ([cluster_queue("a", {"default": {"cpu": "4"}}), namespace("elsewhere"), workload("w", "lq-a")], "a",
     NominationFailure("Misconfigured", 'workload namespace "ns" does not exist: namespaces "ns" not found')),
])
def test_cyc_4_req_15_what_stops_a_head_before_flavor_assignment(documents: list[dict[str, Any]], cq_name: str,
                                                                failure: NominationFailure) -> None:
    sim = setup(*documents)
    assert sim.scheduler.nomination_failure(sim.outcomes["ns/w"].workload, cq_name) == failure


def test_cyc_4_a_head_that_may_be_nominated_has_no_failure() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "4"}}), workload("w", "lq-a"))
    assert sim.scheduler.nomination_failure(sim.outcomes["ns/w"].workload, "a") is None


def test_cyc_3_an_inactive_cluster_queue_gives_no_head() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "4"}}, stop_policy="Hold"), workload("w", "lq-a"))
    result, _ = one_cycle(sim)
    assert result.entries == [] and "ns/w" in sim.queues["a"].active


def test_cyc_8_8_an_admission_reserves_quota_at_once() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "4"}}), workload("w", "lq-a", cpu="3"))
    result, entries = one_cycle(sim)
    w = entries["w"]
    assert (w.status, w.reason, w.message) == ("assumed", "QuotaReserved", "Quota reserved in ClusterQueue a")
    assert result.admitted == [w] and w.workload.admission is not None
    assert sim.cache.cluster_queues["a"].usage(CPU) == 3000 and "ns/w" in sim.cache.cluster_queues["a"].workloads


def test_cyc_6_cyc_8_lower_borrowing_goes_first_and_the_other_no_longer_fits() -> None:
    # a and b share 4 cpu. b's head is older and higher priority but borrows (level 1); a's fits its quota.
    sim = setup(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                cluster_queue("b", {"default": {"cpu": "2"}}, cohort="co"),
                workload("a-head", "lq-a", cpu="2", created=LATE), workload("b-head", "lq-b", cpu="3", priority=9,
                                                                            created=EARLY))
    result, entries = one_cycle(sim)
    assert [e.workload.model.name for e in result.admitted] == ["a-head"]
    assert (entries["b-head"].status, entries["b-head"].message) == (
        "skipped", "Workload no longer fits after processing another workload")
    assert "ns/b-head" in sim.queues["b"].active, "CYC-11: a skipped head goes straight back to the heap"


@pytest.mark.parametrize(("priorities", "first"), [((0, 9), "b-head"), ((5, 5), "a-head")])
def test_cyc_6_at_the_same_borrowing_level_higher_priority_then_earlier_first(priorities: tuple[int, int],
                                                                             first: str) -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                cluster_queue("b", {"default": {"cpu": "2"}}, cohort="co"),
                workload("a-head", "lq-a", cpu="3", priority=priorities[0], created=EARLY),
                workload("b-head", "lq-b", cpu="3", priority=priorities[1], created=LATE))
    result, _ = one_cycle(sim)
    assert [e.workload.model.name for e in result.admitted] == [first]


def test_pre_12_the_preemptor_waits_for_its_victims_and_is_not_admitted() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "4"}}, preemption={"withinClusterQueue": "LowerPriority"},
                              strategy="BestEffortFIFO"),
                workload("victim", "lq-a", cpu="4", priority=0, admitted_in="a"),
                workload("preemptor", "lq-a", cpu="2", priority=5))
    result, entries = one_cycle(sim)
    entry = entries["preemptor"]
    assert result.admitted == [] and entry.reason == "WaitingForPreemptedWorkloads"
    assert entry.message.endswith(". Pending the preemption of 1 workload(s)")
    assert [(e.victim.model.name, e.reason) for e in result.evictions] == [("victim", "InClusterQueue")]
    assert (sim.queues["a"].preemptor, sim.queues["a"].sticky) == ("ns/preemptor", True), "CYC-13"
    assert sim.cache.cluster_queues["a"].usage(CPU) == 4000, "held for the cycle only, the victim still holds its own"


def test_cyc_8_2_a_no_fit_head_is_requeued_with_its_reason() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "2"}}), workload("big", "lq-a", cpu="3"))
    _, entries = one_cycle(sim)
    assert (entries["big"].mode, entries["big"].reason) == ("NoFit", "ExceedsMaxQuota")
    assert "ns/big" in sim.queues["a"].inadmissible


@pytest.mark.parametrize(("nominal", "admitted_count"), [("4", 4), ("3", 3), ("2", 2), ("1", None)])
def test_cyc_5_req_14_partial_admission_shrinks_to_the_largest_count_that_fits(nominal: str,
                                                                               admitted_count: int | None) -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": nominal}}), workload("w", "lq-a", count=4, min_count=2))
    one_cycle(sim)
    admission = sim.outcomes["ns/w"].workload.admission
    assert (admission.pod_sets[0].count if admission is not None else None) == admitted_count


def test_cyc_5_partial_admission_is_off_with_its_gate() -> None:
    sim = setup(cluster_queue("a", {"default": {"cpu": "3"}}), workload("w", "lq-a", count=4, min_count=2),
                gates=FeatureGates({"PartialAdmission": False}))
    one_cycle(sim)
    assert sim.outcomes["ns/w"].workload.admission is None


def _limit_range(ns: str, max_cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": ns},
            "spec": {"limits": [{"type": "Container", "max": {"cpu": max_cpu}}]}}


def test_cyc_4_req_15_workloads_written_alike_share_the_answer_of_their_namespace() -> None:
    """REQ-15 reads a head's namespace and its pod sets' requests and limits: workloads written alike (one tuple of
    pod sets) get one answer, worked out once, and one written alike in a namespace whose LimitRange refuses it gets
    its own."""
    sim = setup(cluster_queue("a", {"default": {"cpu": "8"}}, namespace_selector={}),
                *(workload(f"w{i}", "lq-a", cpu="2") for i in range(3)),
                local_queue("lq-a", "a", namespace="other"), _limit_range("other", "1"),
                workload("w9", "lq-a", cpu="2", namespace="other"))
    infos = [sim.outcomes[key].workload for key in ("ns/w0", "ns/w1", "ns/w2", "other/w9")]
    assert len({id(info.pod_sets) for info in infos[:3]}) == 1  # written alike: one tuple of pod sets
    answers = [sim.scheduler.nomination_failure(info, "a") for info in infos]
    assert answers[:3] == [None, None, None]
    assert answers[3] is not None and answers[3].reason == "Misconfigured"
    assert "LimitRange" in answers[3].message
    assert len(sim.scheduler._admissible) == 2  # worked out once for the three alike, once for the other
