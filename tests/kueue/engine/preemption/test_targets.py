"""What every preemption search shares (kqctl/kueue/engine/preemption/targets.py): PRE-3/4/7/10/12, Q-9."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kqctl.kueue.engine.preemption.targets import (
    IN_CLUSTER_QUEUE,
    CandidateOrder,
    fill_back,
    preemption_message,
    satisfies_policy,
    target_for,
    uses_resources,
    within_nominal,
    workload_fits,
)
from kqctl.kueue.engine.workloads import WorkloadInfo, build_workload_info
from tests.kueue.engine.manifests import NOW, cluster_queue, snapshot, workload
from tests.kueue.engine.preemption.helpers import CPU, context, running, scenario, waiting


def info(name: str, priority: int, created: str = "2025-12-31T00:00:00Z") -> WorkloadInfo:
    built = snapshot(workload(name, priority=priority, created=created))
    return build_workload_info(built.workloads[0], None, built.config)


@pytest.mark.parametrize(("policy", "preemptor", "candidate", "allowed"), [
    ("Never", (5, 0), (1, 0), False),
    ("", (5, 0), (1, 0), False),                       # DEF-4: unset is Never
    ("Any", (1, 0), (5, 0), True),
    ("LowerPriority", (5, 0), (1, 0), True),
    ("LowerPriority", (5, 0), (5, 0), False),
    ("LowerOrNewerEqualPriority", (5, 0), (5, 1), True),   # same priority, the candidate is newer
    ("LowerOrNewerEqualPriority", (5, 1), (5, 0), False),  # same priority, the candidate is older
    ("LowerOrNewerEqualPriority", (5, 0), (5, 0), False),  # same priority and time
])
def test_pre_3_the_policy_test(policy: str, preemptor: tuple[int, int], candidate: tuple[int, int],
                               allowed: bool) -> None:
    def at(hour: int) -> str:
        return f"2025-12-31T{hour:02d}:00:00Z"

    assert satisfies_policy(policy, info("p", preemptor[0], at(preemptor[1])),
                            info("c", candidate[0], at(candidate[1]))) is allowed


def test_pre_4_a_candidate_must_hold_a_flavor_resource_that_needs_preemption() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "4"}}), running("holder", "a", "2"),
                   pending=waiting("p", "a", "1"))
    holder = sim.outcomes["ns/holder"].workload
    assert uses_resources(holder, {CPU}) and not uses_resources(holder, {("spot", "cpu")})
    assert not uses_resources(sim.outcomes["ns/p"].workload, {CPU})  # holds no quota: never a candidate


def test_q_9_within_nominal_is_usage_at_most_the_subtree_quota() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                   cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"), running("borrower", "a", "3"))
    assert not within_nominal(sim.cache.cluster_queues["a"].node, {CPU})
    assert within_nominal(sim.cache.cluster_queues["b"].node, {CPU})


def test_pre_7_evicted_first_other_queues_first_lower_priority_first_newest_reservation_first() -> None:
    since = {"conditions": [{"type": "Evicted", "status": "True", "reason": "Preempted", "message": "m",
                             "lastTransitionTime": "2025-12-31T00:00:00Z"}]}
    sim = scenario(cluster_queue("a", {"default": {"cpu": "10"}}, cohort="co"),
                   cluster_queue("b", {"default": {"cpu": "10"}}, cohort="co"),
                   running("a-low", "a", "1", 0), running("a-high", "a", "1", 5), running("b-high", "b", "1", 5),
                   running("a-evicted", "a", "1", 9, status=since), pending=waiting("p", "a", "1", 10))
    ctx = context(sim, "p", 1000)
    order = CandidateOrder(NOW)
    holders = [o.workload for key, o in sim.outcomes.items() if key != "ns/p"]
    ranked = sorted(holders, key=lambda w: order.key(ctx, w))
    assert [w.model.name for w in ranked] == ["a-evicted", "b-high", "a-low", "a-high"]


def test_pre_7_admission_fair_sharing_puts_the_busier_local_queue_first() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "10"}}), running("quiet", "a", "1", 0),
                   running("busy", "a", "1", 5), pending=waiting("p", "a", "1", 10))
    ctx = context(sim, "p", 1000)
    order = CandidateOrder(NOW, lq_score=lambda w: 9.0 if w.model.name == "busy" else 1.0)
    holders = [sim.outcomes["ns/quiet"].workload, sim.outcomes["ns/busy"].workload]
    assert [w.model.name for w in sorted(holders, key=lambda w: order.key(ctx, w))] == ["busy", "quiet"]


def test_pre_9_workload_fits_within_nominal_unless_borrowing_is_allowed() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                   cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"), pending=waiting("p", "a", "3"))
    ctx = context(sim, "p", 3000)
    assert workload_fits(sim.cache, ctx, allow_borrowing=True)
    assert not workload_fits(sim.cache, ctx, allow_borrowing=False)


def test_pre_10_fill_back_keeps_only_the_victims_the_preemptor_needs() -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "4"}}), running("small", "a", "1"),
                   running("big", "a", "3"), pending=waiting("p", "a", "2"))
    ctx = context(sim, "p", 2000)
    targets = [target_for(sim.cache, sim.outcomes[f"ns/{n}"].workload, IN_CLUSTER_QUEUE) for n in ("small", "big")]
    for target in targets:
        sim.cache.remove_workload(target.workload)
    kept = fill_back(sim.cache, ctx, targets, allow_borrowing=False)
    assert [t.workload.model.name for t in kept] == ["big"]
    assert sim.cache.cluster_queues["a"].usage(CPU) == 1000, "the victim put back holds its quota again"


@pytest.mark.parametrize(("labels", "uids"), [({}, "UID: p, JobUID: UNKNOWN"),
                                              ({"kueue.x-k8s.io/job-uid": "j-1"}, "UID: p, JobUID: j-1")])
def test_pre_12_the_victims_message_names_the_preemptor_and_both_paths(labels: dict[str, str], uids: str) -> None:
    sim = scenario(cluster_queue("a", {"default": {"cpu": "4"}}), running("victim", "a", "4"),
                   pending=workload("p", "lq-a", cpu="1", labels=labels))
    target = target_for(sim.cache, sim.outcomes["ns/victim"].workload, IN_CLUSTER_QUEUE)
    message = preemption_message(sim.cache, sim.outcomes["ns/p"].workload, sim.cache.cluster_queues["a"], target)
    assert message == (f"Preempted to accommodate a workload ({uids}) due to prioritization in the ClusterQueue;"
                       " preemptor path: /a; preemptee path: /a")


def test_the_clock_of_the_order_stands_in_for_a_missing_reservation_time() -> None:
    order = CandidateOrder(datetime(2030, 1, 1, tzinfo=timezone.utc))
    sim = scenario(cluster_queue("a", {"default": {"cpu": "4"}}), running("holder", "a", "1"),
                   pending=waiting("p", "a", "1"))
    holder = sim.outcomes["ns/holder"].workload
    holder.reservation_time = None
    assert order.key(context(sim, "p", 1000), holder)[4] == -order.now.timestamp()
