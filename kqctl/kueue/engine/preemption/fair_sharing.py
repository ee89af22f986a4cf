"""Fair-sharing preemption (FS-5..FS-10): Kueue's preemption/fairsharing strategies.

Used instead of the classical search (PRE-5..PRE-10) when the Kueue Configuration enables fair
sharing: victims come from the ClusterQueues with the highest dominant resource share (FS-7),
and a strategy decides whether taking one keeps the preemptor's share at or below the target's
(FS-8, FS-9). The preemptor's usage is added while shares are computed (FS-6).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.dominant_resource_share import DRS, NEGATIVE_DRS, compare_drs, dominant_resource_share
from kqctl.kueue.engine.preemption.targets import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAMATION,
    CandidateOrder,
    PreemptionContext,
    Target,
    fill_back,
    put_back,
    satisfies_policy,
    uses_resources,
    workload_fits,
)
from kqctl.kueue.engine.quota import QuotaNode, add_usage, remove_usage
from kqctl.kueue.engine.workloads import WorkloadInfo

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)


@dataclass
class FairSharingPreemption:
    """FS-5..FS-10 against the current quota cache."""

    cache: QuotaCache
    order: CandidateOrder
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    within_nominal_gate: bool = True  # FairSharingPreemptWithinNominal (FS-8)

    def targets(self, context: PreemptionContext) -> list[Target]:
        """FS-5..FS-10 (with FS-6: the preemptor's usage is added while shares are computed)."""
        candidates = self._candidates(context)
        if not candidates:
            return []
        candidates.sort(key=lambda w: self.order.key(context, w))
        self.cache.add_usage(context.cq, context.usage)
        fits, targets, retry = self._first_strategy(context, candidates)
        if not fits and len(self.strategies) > 1:
            fits, targets = self._second_strategy(context, retry, targets)
        self.cache.remove_usage(context.cq, context.usage)
        if not fits:
            put_back(self.cache, [t.workload for t in targets])
            return []
        targets = fill_back(self.cache, context, targets, True)
        put_back(self.cache, [t.workload for t in targets])
        return targets

    def _candidates(self, context: PreemptionContext) -> list[WorkloadInfo]:
        """FS-5: same-queue candidates, and those of every borrowing ClusterQueue of the root's tree."""
        cq = context.cq
        policy = cq.model.preemption
        result: list[WorkloadInfo] = []
        if policy.within_cluster_queue != "Never":
            result.extend(w for w in cq.workloads.values()
                          if satisfies_policy(policy.within_cluster_queue, context.preemptor, w)
                          and uses_resources(w, context.needed))
        if cq.has_parent and policy.reclaim_within_cohort != "Never":
            for other in self.cache.subtree_cluster_queues(self.cache.root_of(cq)):
                if other is cq or not any(other.borrowing(fr) for fr in context.needed):
                    continue
                result.extend(w for w in other.workloads.values()
                              if satisfies_policy(policy.reclaim_within_cohort, context.preemptor, w)
                              and uses_resources(w, context.needed))
        return result

    def _fits(self, context: PreemptionContext) -> bool:
        """Whether the preemptor fits now, its own usage (added for FS-6) taken out for the check."""
        self.cache.remove_usage(context.cq, context.usage)
        try:
            return workload_fits(self.cache, context, True)
        finally:
            self.cache.add_usage(context.cq, context.usage)

    def _take(self, workload: WorkloadInfo, reason: str, cq: ClusterQueueState) -> Target:
        self.cache.remove_workload(workload)
        return Target(workload, reason, cq)

    def _first_strategy(self, context: PreemptionContext, candidates: list[WorkloadInfo],
                        ) -> tuple[bool, list[Target], list[WorkloadInfo]]:
        ordering = self._ordering(context, candidates)
        targets: list[Target] = []
        retry: list[WorkloadInfo] = []
        # FS-8: evaluated once, with the preemptor's usage added, before any candidate is removed.
        within_nominal = self.within_nominal_gate and not any(context.cq.borrowing(fr) for fr in context.needed)
        strategy = self.strategies[0]
        for target in ordering:
            if target is context.cq:
                targets.append(self._take(ordering.pop(target.name), IN_CLUSTER_QUEUE, target))
                if self._fits(context):
                    return True, targets, []
                continue
            if within_nominal:
                targets.append(self._take(ordering.pop(target.name), IN_COHORT_RECLAMATION, target))
                if self._fits(context):
                    return True, targets, []
                continue
            preemptor_new, target_old = ordering.shares(target)
            if math.isinf(preemptor_new.weighted) and not math.isinf(target_old.weighted):
                while ordering.has_workload(target.name):
                    retry.append(ordering.pop(target.name))
                continue
            while ordering.has_workload(target.name):
                workload = ordering.pop(target.name)
                target_new = ordering.target_share_after_removal(target, workload)
                if passes(strategy, preemptor_new, target_old, target_new):
                    targets.append(self._take(workload, IN_COHORT_FAIR_SHARING, target))
                    if self._fits(context):
                        return True, targets, []
                    break  # shares changed: pick the next ClusterQueue again
                retry.append(workload)
        return False, targets, retry

    def _second_strategy(self, context: PreemptionContext, retry: list[WorkloadInfo],
                         targets: list[Target]) -> tuple[bool, list[Target]]:
        """FS-9: LessThanInitialShare once per ClusterQueue, with its first remaining candidate."""
        ordering = self._ordering(context, retry)
        for target in ordering:
            preemptor_new, target_old = ordering.shares(target)
            workload = ordering.pop(target.name)
            if compare_drs(preemptor_new, target_old) < 0:
                targets.append(self._take(workload, IN_COHORT_FAIR_SHARING, target))
                if self._fits(context):
                    return True, targets
            ordering.pruned_queues.add(target.name)
        return False, targets

    def _ordering(self, context: PreemptionContext, candidates: list[WorkloadInfo]) -> TargetQueueOrdering:
        ordering = TargetQueueOrdering(self.cache, self.order, context)
        for workload in candidates:
            assert workload.admission is not None
            ordering.targets.setdefault(workload.admission.cluster_queue, []).append(workload)
        return ordering


def passes(strategy: str, preemptor_new: DRS, target_old: DRS, target_new: DRS) -> bool:
    """FS-9: LessThanInitialShare compares with the target's share before, the other with its share after."""
    if strategy == LESS_THAN_INITIAL_SHARE:
        return compare_drs(preemptor_new, target_old) < 0
    return compare_drs(preemptor_new, target_new) <= 0


@dataclass
class TargetQueueOrdering:
    """FS-7: which ClusterQueue to take the next victim from, by descending shares."""

    cache: QuotaCache
    order: CandidateOrder
    context: PreemptionContext
    targets: dict[str, list[WorkloadInfo]] = field(default_factory=dict)
    pruned_queues: set[str] = field(default_factory=set)
    pruned_cohorts: set[str] = field(default_factory=set)

    @property
    def preemptor_cq(self) -> ClusterQueueState:
        return self.context.cq

    def on_preemptor_path(self, node: QuotaNode) -> bool:
        return any(node is a for a in self.preemptor_cq.node.ancestors())

    def has_workload(self, name: str) -> bool:
        return bool(self.targets.get(name))

    def pop(self, name: str) -> WorkloadInfo:
        return self.targets[name].pop(0)

    def __iter__(self) -> Iterator[ClusterQueueState]:
        cq = self.preemptor_cq
        if not cq.has_parent:
            while cq.name not in self.pruned_queues and self.has_workload(cq.name):
                yield cq
            return
        root = self.cache.root_of(cq)
        while root.name not in self.pruned_cohorts:
            target = self._next_target(root)
            if target is not None:
                yield target

    def _next_target(self, cohort: QuotaNode) -> ClusterQueueState | None:
        best_cq, best_cq_share = self._best_queue(cohort)
        best_cohort: QuotaNode | None = None
        best_cohort_share = NEGATIVE_DRS
        for child in self.cache.child_cohorts(cohort):
            if child.name in self.pruned_cohorts:
                continue
            share = dominant_resource_share(self.cache, child)
            if not share.borrowing and not self.on_preemptor_path(child):
                self.pruned_cohorts.add(child.name)
            elif compare_drs(share, best_cohort_share) >= 0:
                best_cohort, best_cohort_share = child, share
        if best_cohort is None and best_cq is None:
            self.pruned_cohorts.add(cohort.name)
            return None
        if best_cohort is not None and compare_drs(best_cohort_share, best_cq_share) >= 0:
            return self._next_target(best_cohort)
        return best_cq

    def _best_queue(self, cohort: QuotaNode) -> tuple[ClusterQueueState | None, DRS]:
        best: ClusterQueueState | None = None
        best_share = NEGATIVE_DRS
        for cq in self.cache.child_cluster_queues(cohort):
            if cq.name in self.pruned_queues:
                continue
            share = dominant_resource_share(self.cache, cq.node)
            if (not share.borrowing and cq is not self.preemptor_cq) or not self.has_workload(cq.name):
                self.pruned_queues.add(cq.name)
                continue
            order = compare_drs(share, best_share)
            if order == 1:
                best, best_share = cq, share
            elif order == 0 and best is not None:
                mine = self.order.key(self.context, self.targets[cq.name][0])
                theirs = self.order.key(self.context, self.targets[best.name][0])
                if mine < theirs:
                    best = cq
        return best, best_share

    def shares(self, target: ClusterQueueState) -> tuple[DRS, DRS]:
        """FS-8: (preemptor side, target side) shares just below their lowest common ancestor."""
        lca = next(a for a in target.node.ancestors() if self.on_preemptor_path(a))
        return (dominant_resource_share(self.cache, _almost_lca(self.preemptor_cq.node, lca)),
                dominant_resource_share(self.cache, _almost_lca(target.node, lca)))

    def target_share_after_removal(self, target: ClusterQueueState, workload: WorkloadInfo) -> DRS:
        usage = workload.usage()
        for fr, value in usage.items():
            remove_usage(target.node, fr, value)
        try:
            return self.shares(target)[1]
        finally:
            for fr, value in usage.items():
                add_usage(target.node, fr, value)


def _almost_lca(node: QuotaNode, lca: QuotaNode) -> QuotaNode:
    current = node
    for ancestor in node.ancestors():
        if ancestor is lca:
            return current
        current = ancestor
    raise AssertionError("no common ancestor")
