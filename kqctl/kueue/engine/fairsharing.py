"""Fair sharing (rule set FS): dominant resource shares, the admission tournament, fair preemption.

Used instead of the classical ordering (CYC-6) and target selection (PRE-5..10) when the Kueue
Configuration enables fair sharing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.quota import QuotaNode, add_usage, potential, remove_usage
from kqctl.kueue.engine.workloads import WorkloadInfo

if TYPE_CHECKING:
    from kqctl.kueue.engine.cycle import Entry
    from kqctl.kueue.engine.preemption import PreemptionContext, Preemptor, Target

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"


@dataclass(frozen=True)
class DRS:
    """FS-2: a node's dominant resource share (ratio in thousandths of what the tree could lend)."""

    weight: float = 1.0
    ratio: float = 0.0
    dominant: str = ""
    borrowing: bool = False
    borrowed: tuple[FlavorResource, ...] = ()

    @property
    def weighted(self) -> float:
        if self.ratio == 0:
            return 0.0
        return math.inf if self.weight == 0 else self.ratio / self.weight

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0

    def borrowing_on(self, requested: dict[FlavorResource, int]) -> bool:
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE_DRS = DRS(ratio=-1.0)


def compare_drs(a: DRS, b: DRS) -> int:
    """FS-3: weight-0 borrowers are above everyone else and compare by their raw ratio."""
    if a.zero_weight_borrows and b.zero_weight_borrows:
        return _cmp(a.ratio, b.ratio)
    if a.zero_weight_borrows:
        return 1
    if b.zero_weight_borrows:
        return -1
    return _cmp(a.weighted, b.weighted)


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


def weight_of(cache: QuotaCache, node: QuotaNode) -> float:
    if node.is_cohort:
        model = cache.cohorts[node.name].model
        return model.fair_weight if model is not None else 1.0
    return cache.cluster_queues[node.name].model.fair_weight


def dominant_resource_share(cache: QuotaCache, node: QuotaNode) -> DRS:
    """FS-2 on the current usage (a root's share is always 0)."""
    weight = weight_of(cache, node)
    if node.parent is None:
        return DRS(weight)
    borrowed: dict[str, int] = {}
    borrowed_frs: list[FlavorResource] = []
    for fr, quota in node.subtree.items():
        amount = sat_sub(node.usage.get(fr, 0), quota)
        if amount > 0:
            borrowed[fr[1]] = sat_add(borrowed.get(fr[1], 0), amount)
            borrowed_frs.append(fr)
    if not borrowed:
        return DRS(weight)
    lendable = _lendable(node.parent)
    ratio, dominant = 0.0, ""
    for resource, amount in borrowed.items():
        capacity = lendable.get(resource, 0)
        if capacity > 0:
            value = float(amount) * 1000.0 / float(capacity)
            if value > ratio or (value == ratio and resource < dominant):
                ratio, dominant = value, resource
    return DRS(weight, ratio, dominant, True, tuple(borrowed_frs))


def _lendable(node: QuotaNode) -> dict[str, int]:
    root = node
    while root.parent is not None:
        root = root.parent
    lendable: dict[str, int] = {}
    for fr in root.subtree:
        lendable[fr[1]] = sat_add(lendable.get(fr[1], 0), potential(node, fr))
    return lendable


# --- FS-4: the admission tournament -------------------------------------------------------------------


def tournament(cache: QuotaCache, entries: list[Entry]) -> Iterator[Entry]:
    """Yield entries one at a time; shares are recomputed after each yielded entry was processed."""
    by_cq = {entry.cq_name: entry for entry in entries}
    while by_cq:
        root = min((cache.root_of(by_cq[name].cq) for name in by_cq if by_cq[name].cq is not None),  # type: ignore[arg-type]
                   key=lambda n: n.name)
        if not root.is_cohort:
            yield by_cq.pop(root.name)
            continue
        shares, requested = _tournament_shares(cache, root, by_cq)
        winner = _run_tournament(cache, root, by_cq, shares, requested)
        assert winner is not None
        del by_cq[winner.cq_name]
        yield winner


def _tournament_shares(cache: QuotaCache, root: QuotaNode, by_cq: dict[str, Entry],
                       ) -> tuple[dict[tuple[str, str], DRS], dict[str, dict[FlavorResource, int]]]:
    shares: dict[tuple[str, str], DRS] = {}
    requested: dict[str, dict[FlavorResource, int]] = {}
    for cq in cache.subtree_cluster_queues(root):
        entry = by_cq.get(cq.name)
        if entry is None or entry.assignment is None:
            continue
        usage = entry.assignment.usage
        for fr, value in usage.items():
            add_usage(cq.node, fr, value)
        key = entry.workload.key
        requested[key] = dict(usage)
        share = dominant_resource_share(cache, cq.node)
        for ancestor in cq.node.ancestors():
            shares[(ancestor.name, key)] = share
            share = dominant_resource_share(cache, ancestor)
        for fr, value in usage.items():
            remove_usage(cq.node, fr, value)
    return shares, requested


def _run_tournament(cache: QuotaCache, cohort: QuotaNode, by_cq: dict[str, Entry],
                    shares: dict[tuple[str, str], DRS], requested: dict[str, dict[FlavorResource, int]],
                    ) -> Entry | None:
    candidates: list[Entry] = []
    for child in cache.child_cohorts(cohort):
        winner = _run_tournament(cache, child, by_cq, shares, requested)
        if winner is not None:
            candidates.append(winner)
    for cq in cache.child_cluster_queues(cohort):
        if cq.name in by_cq:
            candidates.append(by_cq[cq.name])
    if not candidates:
        return None
    best = candidates[0]
    for current in candidates[1:]:
        if _less(current, best, cohort.name, shares, requested):
            best = current
    return best


def _less(a: Entry, b: Entry, cohort: str, shares: dict[tuple[str, str], DRS],
          requested: dict[str, dict[FlavorResource, int]]) -> bool:
    a_share, b_share = shares[(cohort, a.workload.key)], shares[(cohort, b.workload.key)]
    a_borrowing = a_share.borrowing_on(requested.get(a.workload.key, {}))
    b_borrowing = b_share.borrowing_on(requested.get(b.workload.key, {}))
    if a_borrowing != b_borrowing:
        return not a_borrowing
    order = compare_drs(a_share, b_share)
    if order != 0:
        return order == -1
    if a.workload.priority != b.workload.priority:
        return a.workload.priority > b.workload.priority
    return a.workload.queue_order_time < b.workload.queue_order_time


# --- FS-5..FS-10: fair-sharing preemption -------------------------------------------------------------


@dataclass
class _Ordering:
    """FS-7: which ClusterQueue to take the next victim from, by descending shares."""

    cache: QuotaCache
    preemptor: Preemptor
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
                mine = self.preemptor.candidate_key(self.context, self.targets[cq.name][0])
                theirs = self.preemptor.candidate_key(self.context, self.targets[best.name][0])
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


def _passes(strategy: str, preemptor_new: DRS, target_old: DRS, target_new: DRS) -> bool:
    if strategy == LESS_THAN_INITIAL_SHARE:
        return compare_drs(preemptor_new, target_old) < 0
    return compare_drs(preemptor_new, target_new) <= 0


def fair_preemptions(preemptor: Preemptor, context: PreemptionContext) -> list[Target]:
    """FS-5..FS-10 (with FS-6: the preemptor's usage is added while shares are computed)."""
    candidates = _candidates(preemptor, context)
    if not candidates:
        return []
    candidates.sort(key=lambda w: preemptor.candidate_key(context, w))
    cache = preemptor.cache
    cache.add_usage(context.cq, context.usage)
    fits, targets, retry = _first_strategy(preemptor, context, candidates)
    if not fits and len(preemptor.strategies) > 1:
        fits, targets = _second_strategy(preemptor, context, retry, targets)
    cache.remove_usage(context.cq, context.usage)
    if not fits:
        preemptor._restore([t.workload for t in targets])
        return []
    targets = preemptor.fill_back(context, targets, True)
    preemptor._restore([t.workload for t in targets])
    return targets


def _candidates(preemptor: Preemptor, context: PreemptionContext) -> list[WorkloadInfo]:
    """FS-5: same-queue candidates, and those of every borrowing ClusterQueue of the root's tree."""
    from kqctl.kueue.engine.preemption import satisfies_policy, uses_resources

    cq = context.cq
    policy = cq.model.preemption
    result: list[WorkloadInfo] = []
    if policy.within_cluster_queue != "Never":
        result.extend(w for w in cq.workloads.values()
                      if satisfies_policy(policy.within_cluster_queue, context.preemptor, w)
                      and uses_resources(w, context.needed))
    if cq.has_parent and policy.reclaim_within_cohort != "Never":
        for other in preemptor.cache.subtree_cluster_queues(preemptor.cache.root_of(cq)):
            if other is cq or not any(other.borrowing(fr) for fr in context.needed):
                continue
            result.extend(w for w in other.workloads.values()
                          if satisfies_policy(policy.reclaim_within_cohort, context.preemptor, w)
                          and uses_resources(w, context.needed))
    return result


def _fits(preemptor: Preemptor, context: PreemptionContext) -> bool:
    cache = preemptor.cache
    cache.remove_usage(context.cq, context.usage)
    try:
        return preemptor.workload_fits(context, True)
    finally:
        cache.add_usage(context.cq, context.usage)


def _take(preemptor: Preemptor, workload: WorkloadInfo, reason: str, cq: ClusterQueueState) -> Target:
    from kqctl.kueue.engine.preemption import Target

    preemptor.cache.remove_workload(workload)
    return Target(workload, reason, cq)


def _first_strategy(preemptor: Preemptor, context: PreemptionContext, candidates: list[WorkloadInfo],
                    ) -> tuple[bool, list[Target], list[WorkloadInfo]]:
    from kqctl.kueue.engine.preemption import IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAMATION

    ordering = _ordering(preemptor, context, candidates)
    targets: list[Target] = []
    retry: list[WorkloadInfo] = []
    # FS-8: evaluated once, with the preemptor's usage added, before any candidate is removed.
    within_nominal = preemptor.gates_within_nominal and not any(context.cq.borrowing(fr) for fr in context.needed)
    strategy = preemptor.strategies[0]
    for target in ordering:
        if target is context.cq:
            targets.append(_take(preemptor, ordering.pop(target.name), IN_CLUSTER_QUEUE, target))
            if _fits(preemptor, context):
                return True, targets, []
            continue
        if within_nominal:
            targets.append(_take(preemptor, ordering.pop(target.name), IN_COHORT_RECLAMATION, target))
            if _fits(preemptor, context):
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
            if _passes(strategy, preemptor_new, target_old, target_new):
                targets.append(_take(preemptor, workload, IN_COHORT_FAIR_SHARING, target))
                if _fits(preemptor, context):
                    return True, targets, []
                break  # shares changed: pick the next ClusterQueue again
            retry.append(workload)
    return False, targets, retry


def _second_strategy(preemptor: Preemptor, context: PreemptionContext, retry: list[WorkloadInfo],
                     targets: list[Target]) -> tuple[bool, list[Target]]:
    """FS-9: LessThanInitialShare once per ClusterQueue, with its first remaining candidate."""
    from kqctl.kueue.engine.preemption import IN_COHORT_FAIR_SHARING

    ordering = _ordering(preemptor, context, retry)
    for target in ordering:
        preemptor_new, target_old = ordering.shares(target)
        workload = ordering.pop(target.name)
        if compare_drs(preemptor_new, target_old) < 0:
            targets.append(_take(preemptor, workload, IN_COHORT_FAIR_SHARING, target))
            if _fits(preemptor, context):
                return True, targets
        ordering.pruned_queues.add(target.name)
    return False, targets


def _ordering(preemptor: Preemptor, context: PreemptionContext, candidates: list[WorkloadInfo]) -> _Ordering:
    ordering = _Ordering(preemptor.cache, preemptor, context)
    for workload in candidates:
        assert workload.admission is not None
        ordering.targets.setdefault(workload.admission.cluster_queue, []).append(workload)
    return ordering
