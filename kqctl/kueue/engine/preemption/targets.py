"""What every preemption search shares: candidates, their order, the fit check and the minimal set.

A search removes candidates from the quota cache one by one until the preemptor fits, keeps the
set minimal (PRE-10) and puts every candidate back: nothing here changes state for good.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.tas_cache import PodSetRequest, find_assignments, first_failure
from kqctl.kueue.engine.workloads import WorkloadInfo

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"

HUMAN_REASONS = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
}

JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"


@dataclass(eq=False)
class Target:
    """A workload a search chose as a victim, why, and the ClusterQueue it holds quota in."""

    workload: WorkloadInfo
    reason: str
    cluster_queue: ClusterQueueState


@dataclass
class PreemptionContext:
    preemptor: WorkloadInfo
    cq: ClusterQueueState
    needed: set[FlavorResource]  # frs_need_preemption
    usage: dict[FlavorResource, int]  # the preemptor's usage (PRE-2)
    # TAS-7: the preemptor's pod sets to place on the nodes, by flavor (WorkloadsTopologyRequests); None: no TAS
    tas_requests: Mapping[str, list[PodSetRequest]] | None = None


def satisfies_policy(policy: str, preemptor: WorkloadInfo, candidate: WorkloadInfo) -> bool:
    """PRE-3 (an empty policy admits no candidate, like Never: DEF-4)."""
    lower = preemptor.priority > candidate.priority
    if policy == "LowerPriority":
        return lower
    if policy == "LowerOrNewerEqualPriority":
        newer = preemptor.priority == candidate.priority and preemptor.queue_order_time < candidate.queue_order_time
        return lower or newer
    return policy == "Any"


def uses_resources(workload: WorkloadInfo, needed: set[FlavorResource]) -> bool:
    """PRE-4: the candidate holds quota on at least one (flavor, resource) that needs preemption."""
    admission = workload.admission
    if admission is None:
        return False
    return not admission.flavor_resources.isdisjoint(needed)


def within_nominal(node: QuotaNode, frs: set[FlavorResource]) -> bool:
    """Q-9 (a plain loop: called for every sibling of every preemptor's ClusterQueue)."""
    subtree, usage = node.subtree, node.usage
    for fr in frs:
        if subtree.get(fr, 0) < usage.get(fr, 0):
            return False
    return True


@dataclass(frozen=True)
class CandidateOrder:
    """PRE-7: the order candidates are tried in, as of the cycle's clock."""

    now: datetime
    lq_score: Callable[[WorkloadInfo], float | None] | None = None  # FS-11 LocalQueue usage

    def key(self, context: PreemptionContext, workload: WorkloadInfo) -> tuple[object, ...]:
        """Evicted first, other ClusterQueues first, higher LocalQueue usage first (AFS), lower priority first,
        most recently reserved first, then UID."""
        assert workload.admission is not None
        reserved = workload.reservation_time or self.now
        score = self.lq_score(workload) if self.lq_score is not None else None
        afs = -score if score is not None else 0.0  # higher LocalQueue usage first
        return (not workload.evicted, workload.admission.cluster_queue == context.cq.name, afs, workload.priority,
                -reserved.timestamp(), workload.order_key())


def target_for(cache: QuotaCache, workload: WorkloadInfo, reason: str) -> Target:
    assert workload.admission is not None
    return Target(workload, reason, cache.cluster_queues[workload.admission.cluster_queue])


def take_out(cache: QuotaCache, workloads: Iterable[WorkloadInfo]) -> None:
    """Release the quota of candidates while a search tries whether the preemptor fits without them."""
    for workload in workloads:
        cache.remove_workload(workload)


def put_back(cache: QuotaCache, workloads: Iterable[WorkloadInfo]) -> None:
    """The inverse of :func:`take_out`: the candidates hold their quota again."""
    for workload in workloads:
        cache.add_workload(workload)


def quota_fits(cache: QuotaCache, context: PreemptionContext, allow_borrowing: bool) -> bool:
    """The preemptor's usage fits what is available now (within nominal quota unless borrowing is allowed)."""
    for fr, value in context.usage.items():
        if not allow_borrowing and context.cq.borrowing_with(fr, value):
            return False
        if value > cache.available(context.cq, fr):
            return False
    return True


def workload_fits(cache: QuotaCache, context: PreemptionContext, allow_borrowing: bool) -> bool:
    """Kueue's ``workloadFits``: the quota fits (:func:`quota_fits`) and, TAS-7, the preemptor's TAS pod sets can be
    placed on the nodes as the candidates taken out so far leave them."""
    if not quota_fits(cache, context, allow_borrowing):
        return False
    if context.tas_requests:
        return first_failure(find_assignments(cache.tas, context.tas_requests)) is None
    return True


def fill_back(cache: QuotaCache, context: PreemptionContext, targets: list[Target],
              allow_borrowing: bool) -> list[Target]:
    """PRE-10: put victims back, newest first, while the preemptor still fits (Go's swap-remove)."""
    for i in range(len(targets) - 2, -1, -1):
        cache.add_workload(targets[i].workload)
        if workload_fits(cache, context, allow_borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            cache.remove_workload(targets[i].workload)
    return targets


def preemption_message(cache: QuotaCache, preemptor: WorkloadInfo, preemptor_cq: ClusterQueueState,
                       target: Target) -> str:
    """PRE-12: the Evicted/Preempted condition message of a victim (CYC-18 paths)."""
    uid = preemptor.uid or "UNKNOWN"
    job_uid = preemptor.model.labels.get(JOB_UID_LABEL) or "UNKNOWN"
    return (f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{HUMAN_REASONS.get(target.reason, 'UNKNOWN')}; preemptor path: {cache.path(preemptor_cq)}; "
            f"preemptee path: {cache.path(target.cluster_queue)}")
