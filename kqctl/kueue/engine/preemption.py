"""Which admitted workloads to evict so a pending one fits (rule set PRE; §8.4 via fairsharing.py).

Candidates are removed from the quota cache one by one until the preemptor fits, then the
set is minimised (PRE-10) and the cache restored: nothing here changes state for good.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.flavors.assignment import Assignment, Oracle, total_requests_for
from kqctl.kueue.engine.quota import QuotaNode
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

# PRE-6 variants
WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(1, 5)
_VARIANT_REASON = {
    WITHIN_CQ: IN_CLUSTER_QUEUE,
    HIERARCHICAL_RECLAIM: IN_COHORT_RECLAMATION,
    RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
    RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING,
}


@dataclass(eq=False)
class Target:
    workload: WorkloadInfo
    reason: str
    cluster_queue: ClusterQueueState


@dataclass
class PreemptionContext:
    preemptor: WorkloadInfo
    cq: ClusterQueueState
    needed: set[FlavorResource]  # frs_need_preemption
    usage: dict[FlavorResource, int]  # the preemptor's usage (PRE-2)


@dataclass(eq=False)
class Candidate:
    workload: WorkloadInfo
    lca: QuotaNode | None
    variant: int


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
    if workload.admission is None:
        return False
    return any((flavor, resource) in needed for ps in workload.admission.pod_sets
               for resource, flavor in ps.flavors.items())


def fits_in_quota(node: QuotaNode, requests: dict[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
    fits = True
    remaining: dict[FlavorResource, int] = {}
    for fr, value in requests.items():
        if node.subtree.get(fr, 0) < sat_add(node.usage.get(fr, 0), value):
            fits = False
        remaining[fr] = max(0, sat_sub(value, node.local_available(fr)))
    return fits, remaining


def within_nominal(node: QuotaNode, frs: set[FlavorResource]) -> bool:
    """Q-9 (a plain loop: called for every sibling of every preemptor's ClusterQueue)."""
    subtree, usage = node.subtree, node.usage
    for fr in frs:
        if subtree.get(fr, 0) < usage.get(fr, 0):
            return False
    return True


@dataclass
class Preemptor:
    """Target selection, classical (PRE-5..10) or fair sharing (FS-5..10)."""

    cache: QuotaCache
    now: datetime
    fair_sharing: bool = False
    strategies: tuple[str, ...] = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
    lq_score: Callable[[WorkloadInfo], float | None] | None = None  # FS-11 LocalQueue usage
    gates_within_nominal: bool = True  # FairSharingPreemptWithinNominal (FS-8)

    def get_targets(self, workload: WorkloadInfo, cq: ClusterQueueState, assignment: Assignment) -> list[Target]:
        context = PreemptionContext(workload, cq, assignment.flavors_needing_preemption(),
                                    total_requests_for(workload, assignment))
        return self._targets(context)

    def oracle(self, workload: WorkloadInfo, cq: ClusterQueueState) -> Oracle:
        """PRE-11: would victims exist for this one (flavor, resource) and amount?"""
        def simulate(fr: FlavorResource, quantity: int) -> tuple[str, int]:
            targets = self._targets(PreemptionContext(workload, cq, {fr}, {fr: quantity}))
            if not targets:
                return "NoCandidates", self.cache.borrowing_level(cq, fr, quantity)[0]
            self._remove([t.workload for t in targets])
            level = self.cache.borrowing_level(cq, fr, quantity)[0]
            self._restore([t.workload for t in targets])
            same_cq = any(t.cluster_queue is cq for t in targets)
            return ("Preempt" if same_cq else "Reclaim"), level
        return simulate

    def _targets(self, context: PreemptionContext) -> list[Target]:
        if self.fair_sharing:
            from kqctl.kueue.engine.fairsharing import fair_preemptions

            return fair_preemptions(self, context)
        return self.classical(context)

    # --- classical ---------------------------------------------------------------------------------

    def classical(self, context: PreemptionContext) -> list[Target]:
        same_cq = self._same_queue_candidates(context)
        hierarchy, priority = self._cohort_candidates(context)
        ordered = self._final_order(context, hierarchy, priority, same_cq)
        forbidden = _borrowing_forbidden(context.cq)
        if (not hierarchy and not priority) or (forbidden and not _under_nominal(context)):
            attempts = [True]
        elif forbidden and not hierarchy:
            attempts = [False, True]
        else:
            attempts = [True, False]
        for allow_borrowing in attempts:
            targets: list[Target] = []
            for candidate in self._valid(context, ordered, allow_borrowing):
                self.cache.remove_workload(candidate.workload)
                targets.append(self._target(candidate.workload, _VARIANT_REASON[candidate.variant]))
                if self.workload_fits(context, allow_borrowing):
                    targets = self.fill_back(context, targets, allow_borrowing)
                    self._restore([t.workload for t in targets])
                    return targets
            self._restore([t.workload for t in targets])
        return []

    def _target(self, workload: WorkloadInfo, reason: str) -> Target:
        assert workload.admission is not None
        return Target(workload, reason, self.cache.cluster_queues[workload.admission.cluster_queue])

    def _valid(self, context: PreemptionContext, candidates: list[Candidate], allow_borrowing: bool,
               ) -> Iterator[Candidate]:
        """PRE-9: validity is re-checked as victims are removed (a lender back under nominal stops)."""
        for candidate in candidates:
            assert candidate.workload.admission is not None
            if candidate.workload.admission.cluster_queue == context.cq.name:
                yield candidate
                continue
            if allow_borrowing and candidate.variant == RECLAIM_WITHOUT_BORROWING:
                continue
            node = self.cache.cluster_queues[candidate.workload.admission.cluster_queue].node
            if within_nominal(node, context.needed):
                continue
            if any(within_nominal(a, context.needed) for a in _ancestors_below(node, candidate.lca)):
                continue
            yield candidate

    def _same_queue_candidates(self, context: PreemptionContext) -> list[Candidate]:
        if context.cq.model.preemption.within_cluster_queue == "Never":
            return []
        return self._candidates_from(context, context.cq, None, False)

    def _cohort_candidates(self, context: PreemptionContext) -> tuple[list[Candidate], list[Candidate]]:
        """PRE-6: walk up the tree; candidates under a subtree where the preemptor fits are hierarchical."""
        hierarchy: list[Candidate] = []
        priority: list[Candidate] = []
        cq = context.cq
        if not cq.has_parent or cq.model.preemption.reclaim_within_cohort == "Never":
            return hierarchy, priority
        advantage, remaining = fits_in_quota(cq.node, context.usage)
        previous: QuotaNode | None = None
        for node in cq.node.ancestors():
            target = hierarchy if advantage else priority
            self._collect_subtree(context, node, node, previous, advantage, target)
            fits, remaining = fits_in_quota(node, remaining)
            advantage = advantage or fits
            previous = node
        return hierarchy, priority

    def _collect_subtree(self, context: PreemptionContext, cohort: QuotaNode, root: QuotaNode,
                         skip: QuotaNode | None, advantage: bool, result: list[Candidate]) -> None:
        for child in self.cache.child_cohorts(cohort):
            if child is skip or within_nominal(child, context.needed):
                continue
            self._collect_subtree(context, child, root, skip, advantage, result)
        for child_cq in self.cache.child_cluster_queues(cohort):
            if child_cq is context.cq or within_nominal(child_cq.node, context.needed):
                continue
            result.extend(self._candidates_from(context, child_cq, root, advantage))

    def _candidates_from(self, context: PreemptionContext, source: ClusterQueueState, lca: QuotaNode | None,
                         advantage: bool) -> list[Candidate]:
        result: list[Candidate] = []
        for workload in source.workloads.values():
            variant = self._classify(context, workload, advantage)
            if variant:
                result.append(Candidate(workload, lca, variant))
        return result

    def _classify(self, context: PreemptionContext, workload: WorkloadInfo, advantage: bool) -> int:
        """PRE-6 classification of a candidate (0: not preemptable)."""
        if not uses_resources(workload, context.needed):
            return 0
        assert workload.admission is not None
        same_cq = workload.admission.cluster_queue == context.cq.name
        preemption = context.cq.model.preemption
        policy = preemption.within_cluster_queue if same_cq else preemption.reclaim_within_cohort
        if not satisfies_policy(policy, context.preemptor, workload):
            return 0
        if same_cq:
            return WITHIN_CQ
        if advantage:
            return HIERARCHICAL_RECLAIM
        if _borrowing_forbidden(context.cq):
            return RECLAIM_WITHOUT_BORROWING
        threshold = preemption.borrow_within_cohort.max_priority_threshold if preemption.borrow_within_cohort else None
        if workload.priority >= context.preemptor.priority or (threshold is not None and workload.priority > threshold):
            return RECLAIM_WITHOUT_BORROWING
        return RECLAIM_WHILE_BORROWING

    def _final_order(self, context: PreemptionContext, hierarchy: list[Candidate], priority: list[Candidate],
                     same_cq: list[Candidate]) -> list[Candidate]:
        """PRE-7: evicted ones first, in hierarchical, priority, same-queue order; then the others."""
        lists = [sorted(group, key=lambda c: self.candidate_key(context, c.workload))
                 for group in (hierarchy, priority, same_cq)]
        evicted = [c for lst in lists for c in lst if c.workload.evicted]
        others = [c for lst in lists for c in lst if not c.workload.evicted]
        return evicted + others

    def candidate_key(self, context: PreemptionContext, workload: WorkloadInfo) -> tuple[object, ...]:
        """PRE-7 ordering key (the AFS LocalQueue-usage key applies within the same ClusterQueue only)."""
        assert workload.admission is not None
        reserved = workload.reservation_time or self.now
        score = self.lq_score(workload) if self.lq_score is not None else None
        afs = -score if score is not None else 0.0  # higher LocalQueue usage first
        return (not workload.evicted, workload.admission.cluster_queue == context.cq.name, afs, workload.priority,
                -reserved.timestamp(), workload.order_key())

    # --- fitting -----------------------------------------------------------------------------------

    def workload_fits(self, context: PreemptionContext, allow_borrowing: bool) -> bool:
        for fr, value in context.usage.items():
            if not allow_borrowing and context.cq.borrowing_with(fr, value):
                return False
            if value > self.cache.available(context.cq, fr):
                return False
        return True

    def fill_back(self, context: PreemptionContext, targets: list[Target], allow_borrowing: bool) -> list[Target]:
        """PRE-10: put victims back, newest first, while the preemptor still fits (Go's swap-remove)."""
        for i in range(len(targets) - 2, -1, -1):
            self.cache.add_workload(targets[i].workload)
            if self.workload_fits(context, allow_borrowing):
                targets[i] = targets[-1]
                targets.pop()
            else:
                self.cache.remove_workload(targets[i].workload)
        return targets

    def _remove(self, workloads: list[WorkloadInfo]) -> None:
        for workload in workloads:
            self.cache.remove_workload(workload)

    def _restore(self, workloads: list[WorkloadInfo]) -> None:
        for workload in workloads:
            self.cache.add_workload(workload)


def _borrowing_forbidden(cq: ClusterQueueState) -> bool:
    borrow = cq.model.preemption.borrow_within_cohort
    return borrow is None or borrow.policy == "Never"


def _under_nominal(context: PreemptionContext) -> bool:
    """PRE-8: usage strictly below nominal on every (flavor, resource) needing preemption."""
    return all(context.cq.nominal(fr) > context.cq.usage(fr) for fr in context.needed)


def _ancestors_below(node: QuotaNode, lca: QuotaNode | None) -> Iterator[QuotaNode]:
    for ancestor in node.ancestors():
        if ancestor is lca:
            return
        yield ancestor
