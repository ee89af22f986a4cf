"""Classical preemption (PRE-5..PRE-10): which admitted workloads to evict so a pending one fits.

Candidates of the preemptor's own ClusterQueue and, walking up its cohort tree, of the
ClusterQueues that borrow what it needs (PRE-6), tried in PRE-7 order until it fits, the set then
kept minimal (PRE-10). Kueue's classical preemption (preemption.go, preemption/classical).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.preemption.targets import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
    CandidateOrder,
    PreemptionContext,
    Target,
    fill_back,
    put_back,
    quota_fits,
    satisfies_policy,
    target_for,
    uses_resources,
    within_nominal,
    workload_fits,
)
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.workloads import WorkloadInfo

Source = tuple[ClusterQueueState, dict[FlavorResource, int]]  # a ClusterQueue and usage its candidates hold

# PRE-6 variants
WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(1, 5)
_VARIANT_REASON = {
    WITHIN_CQ: IN_CLUSTER_QUEUE,
    HIERARCHICAL_RECLAIM: IN_COHORT_RECLAMATION,
    RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
    RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING,
}


@dataclass(eq=False)
class Candidate:
    workload: WorkloadInfo
    lca: QuotaNode | None
    variant: int


def fits_in_quota(node: QuotaNode, requests: dict[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
    """PRE-6: whether the requests fit the node's subtree now, and what its parent must still give."""
    fits = True
    remaining: dict[FlavorResource, int] = {}
    for fr, value in requests.items():
        if node.subtree.get(fr, 0) < sat_add(node.usage.get(fr, 0), value):
            fits = False
        remaining[fr] = max(0, sat_sub(value, node.local_available(fr)))
    return fits, remaining


def known_without_room(cache: QuotaCache, context: PreemptionContext) -> bool:
    """Whether :meth:`ClassicalPreemption._room_known_possible` already knows, for the tree's current state, that no
    attempt can make room for this request: the classical search then finds no targets (PRE-6), and a caller may
    answer so without setting the search up (a replay asks this for most heads after each requeue, CYC-14)."""
    usage, needed = context.usage, context.needed
    if len(usage) != 1 or len(needed) != 1:
        return False
    for fr, value in usage.items():
        if fr not in needed:
            return False
        bounds = cache.figures(context.cq).get(("room", context.cq.name, fr))
        return bounds is not None and _known_room(bounds, context.preemptor.priority, value) is False  # type: ignore[arg-type]
    return False


def _known_room(bounds: dict[int, list[int | None]], priority: int, value: int) -> bool | None:
    """What the kept room answers of one state say for ``value`` at ``priority`` (None: they do not decide): room
    once a priority at most this one had room for at least this amount, none once a priority at least this one had
    none for at most this amount (see ``_room_known_possible``)."""
    for known_priority, (room, without) in bounds.items():
        if known_priority <= priority and room >= value:  # type: ignore[operator]
            return True
        if known_priority >= priority and without is not None and without <= value:
            return False
    return None


@dataclass
class ClassicalPreemption:
    """PRE-5..PRE-10 against the current quota cache."""

    cache: QuotaCache
    order: CandidateOrder

    def targets(self, context: PreemptionContext) -> list[Target]:
        if not self._room_known_possible(context):
            return []
        same_cq = self._same_queue_candidates(context)
        hierarchy, priority = self._cohort_candidates(context)
        ordered = self._final_order(context, hierarchy, priority, same_cq)
        forbidden = borrowing_forbidden(context.cq)
        if (not hierarchy and not priority) or (forbidden and not under_nominal(context)):
            attempts = [True]
        elif forbidden and not hierarchy:
            attempts = [False, True]
        else:
            attempts = [True, False]
        for allow_borrowing in attempts:
            targets: list[Target] = []
            for candidate in self._valid(context, ordered, allow_borrowing):
                self.cache.remove_workload(candidate.workload)
                targets.append(target_for(self.cache, candidate.workload, _VARIANT_REASON[candidate.variant]))
                if workload_fits(self.cache, context, allow_borrowing):
                    targets = fill_back(self.cache, context, targets, allow_borrowing)
                    put_back(self.cache, [t.workload for t in targets])
                    return targets
            put_back(self.cache, [t.workload for t in targets])
        return []

    def _room_known_possible(self, context: PreemptionContext) -> bool:
        """:meth:`_room_possible`, answered from earlier answers of the same state of the tree where they decide.

        For a request of one (flavor, resource) that is the one needing preemption, the answer depends on the tree's
        state, the preemptor's ClusterQueue and priority, and the amount asked; and it can only go from room to no
        room as the amount grows: a larger amount borrows no less (``without_borrowing`` and each ``advantage``
        can only turn false), so each attempt removes no more usage (Q-5: less usage removed, no more available)
        and must fit more. So once an amount had room, every smaller one has; once one had none, no larger one has.
        Likewise it can only go from none to room as the priority grows: every policy's set of candidates (PRE-3:
        ``_policy_usage``'s limit, the borrowWithinCohort cap) only grows with it, and nothing else read depends on
        it, so each attempt removes no less usage. So room for an amount at one priority means room for it (and any
        smaller one) at every higher priority; none at one priority means none (nor for a larger amount) at every
        lower one. A replay asks this for every size and priority in a row after each requeue (CYC-14), under one
        state.
        """
        usage = context.usage
        if len(usage) != 1 or context.needed != usage.keys():
            return self._room_possible(context)
        [(fr, value)] = usage.items()
        figures = self.cache.figures(context.cq)
        key = ("room", context.cq.name, fr)
        bounds = figures.get(key)
        if bounds is None:
            # priority -> [the largest amount known to have room, the smallest known without (None: none known)]
            bounds = figures[key] = {}
        assert isinstance(bounds, dict)
        priority = context.preemptor.priority
        known = _known_room(bounds, priority, value)
        if known is not None:
            return known
        possible = value <= self._room_threshold(context, fr, value, figures)
        bound = bounds.get(priority)
        if bound is None:
            bound = bounds[priority] = [-1, None]
        if possible:
            bound[0] = max(bound[0], value)
        else:
            bound[1] = value if bound[1] is None else min(bound[1], value)
        return possible

    def _room_threshold(self, context: PreemptionContext, fr: FlavorResource, value: int,
                        figures: dict[tuple[object, ...], object]) -> int:
        """The largest amount of ``fr`` that :meth:`_room_possible` finds room for, among the amounts whose search
        removes the same sources as ``value``'s, kept for the tree's state (``figures``).

        What :meth:`_room_possible` removes depends on the amount only through whether the preemptor could end within
        its nominal quota (``without_borrowing``) and, level by level, whether it fits below that level
        (``advantage``): the regime. Within one regime the same usage is removed, so the first attempt fits exactly
        up to what is then available, and the second (without borrowing) up to the smaller of what is then available
        and what is left of the nominal quota (Q-5, Q-7): room is "the amount is at most T". A replay asks for one
        amount after another of the same ClusterQueue and priority under one state (each shape of a requeue, CYC-12,
        CYC-14): one regime's T answers them all."""
        cq, preemptor = context.cq, context.preemptor
        preemption = cq.model.preemption
        own = _policy_usage(preemption.within_cluster_queue, preemptor, cq)
        without_borrowing = not cq.borrowing_with(fr, sat_sub(value, own.get(fr, 0)))
        advantages = self._advantages(context)
        key = ("room-threshold", cq.name, fr, preemptor.priority, without_borrowing, advantages)
        threshold = figures.get(key)
        if threshold is None:
            threshold = figures[key] = self._threshold_of(context, fr, own, without_borrowing, advantages)
        return threshold  # type: ignore[return-value]

    @staticmethod
    def _advantages(context: PreemptionContext) -> tuple[bool, ...]:
        """Per ancestor of the preemptor's ClusterQueue (as :meth:`_room_possible` walks them), whether it fits below
        that level: empty when no cohort candidate is collected."""
        cq = context.cq
        if not cq.has_parent or cq.model.preemption.reclaim_within_cohort == "Never":
            return ()
        advantage, remaining = fits_in_quota(cq.node, context.usage)
        flags = []
        for node in cq.node.ancestors():
            flags.append(advantage)
            fits, remaining = fits_in_quota(node, remaining)
            advantage = advantage or fits
        return tuple(flags)

    def _threshold_of(self, context: PreemptionContext, fr: FlavorResource, own: dict[FlavorResource, int],
                      without_borrowing: bool, advantages: tuple[bool, ...]) -> int:
        """:meth:`_room_threshold` worked out: what the preemptor's ClusterQueue has once the sources
        :meth:`_room_possible` takes out in this regime are gone."""
        cq = context.cq
        every, while_borrowing = self._sources(context, without_borrowing, advantages)
        threshold = self._left_without(cq, fr, [(cq, own), *while_borrowing], within_nominal_only=False)
        if without_borrowing:
            threshold = max(threshold, self._left_without(cq, fr, [(cq, own), *every], within_nominal_only=True))
        return threshold

    def _left_without(self, cq: ClusterQueueState, fr: FlavorResource, sources: list[Source],
                      within_nominal_only: bool) -> int:
        """What is available to ``cq`` on ``fr`` with the usage of ``sources`` taken out meanwhile (and, within its
        nominal quota only, no more than what is left of that quota): the largest amount ``workload_fits`` then
        accepts. (Within a regime that may not borrow, what is left of the nominal quota is the regime's own bound:
        the cap is ``workload_fits``'s test, kept as it is.)"""
        with self._taken_out(sources):
            left = self.cache.available(cq, fr)
            return min(left, cq.nominal(fr) - cq.usage(fr)) if within_nominal_only else left

    def _room_possible(self, context: PreemptionContext) -> bool:
        """Whether some attempt of the search could make the preemptor fit, judged with all its candidates gone.

        Each attempt below only ever removes a subset of what it may try (PRE-6..PRE-9): the workloads of the
        preemptor's own ClusterQueue its policy allows, and of the ClusterQueues above their nominal quota on what
        it needs, those whose variant the attempt accepts (while borrowing, not RECLAIM_WITHOUT_BORROWING). Removing
        usage never lowers what is available (Q-5) nor raises what the preemptor borrows, so when neither attempt
        fits with its whole superset gone, every attempt fails and the answer is no targets. Most heads of a busy
        cohort are in that case (a replay asks for each head after each requeue); summing each source's usage
        costs a few tree updates instead of sorting and trying every candidate.
        """
        cq, preemptor = context.cq, context.preemptor
        own = [(cq, _policy_usage(cq.model.preemption.within_cluster_queue, preemptor, cq))]
        # Without borrowing, the preemptor's own ClusterQueue must end within nominal quota: only its own
        # candidates lower its usage, so when even all of them gone leave it borrowing, that attempt cannot fit.
        without_borrowing = all(not cq.borrowing_with(fr, sat_sub(value, own[0][1].get(fr, 0)))
                                for fr, value in context.usage.items())
        every, while_borrowing = self._sources(context, without_borrowing, self._advantages(context))
        if self._fits_without(context, own + while_borrowing, True):
            return True
        return without_borrowing and self._fits_without(context, own + every, False)

    def _sources(self, context: PreemptionContext, without_borrowing: bool, advantages: tuple[bool, ...],
                 ) -> tuple[list[Source], list[Source]]:
        """The ClusterQueues of the preemptor's cohort tree whose candidates an attempt may take, with the usage they
        hold: for the attempt that may not borrow (any variant) and for the one while borrowing (not
        RECLAIM_WITHOUT_BORROWING), level by level as ``advantages`` (:meth:`_advantages`) say the preemptor fits."""
        cq, preemptor = context.cq, context.preemptor
        preemption = cq.model.preemption
        every: list[Source] = []
        while_borrowing: list[Source] = []
        if not advantages:
            return every, while_borrowing
        forbidden = borrowing_forbidden(cq)
        borrow = preemption.borrow_within_cohort
        limit = borrow.max_priority_threshold if borrow is not None else None
        cap = preemptor.priority - 1 if limit is None else min(preemptor.priority - 1, limit)
        previous: QuotaNode | None = None
        for node, advantage in zip(cq.node.ancestors(), advantages, strict=True):
            if without_borrowing or advantage or not forbidden:
                for source in self._subtree_sources(context, node, previous):
                    usage = _policy_usage(preemption.reclaim_within_cohort, preemptor, source)
                    every.append((source, usage))
                    if advantage:  # HIERARCHICAL_RECLAIM
                        while_borrowing.append((source, usage))
                    elif not forbidden:  # RECLAIM_WHILE_BORROWING: lower priority, at most the threshold
                        while_borrowing.append((source, _policy_usage(preemption.reclaim_within_cohort, preemptor,
                                                                      source, cap)))
            previous = node
        return every, while_borrowing

    def _fits_without(self, context: PreemptionContext, sources: list[Source], allow_borrowing: bool) -> bool:
        """The search's own quota test (``quota_fits``) with the summed usage of ``sources`` taken out meanwhile.
        (Summed usage leaves the nodes as they are: the TAS part of ``workload_fits``, only ever stricter, is left to
        the search, so this stays an upper bound.)"""
        with self._taken_out(sources):
            return quota_fits(self.cache, context, allow_borrowing)

    @contextmanager
    def _taken_out(self, sources: list[Source]) -> Iterator[None]:
        """The summed usage of ``sources`` out of the cache while the block runs, put back after it whatever
        happens."""
        sources = [(state, usage) for state, usage in sources if usage]
        for state, usage in sources:
            self.cache.remove_usage(state, usage)
        try:
            yield
        finally:
            for state, usage in reversed(sources):
                self.cache.add_usage(state, usage)

    def _subtree_sources(self, context: PreemptionContext, cohort: QuotaNode, skip: QuotaNode | None,
                         ) -> Iterator[ClusterQueueState]:
        """The ClusterQueues :meth:`_collect_subtree` takes candidates from, in the same walk."""
        for child in self.cache.child_cohorts(cohort):
            if child is skip or within_nominal(child, context.needed):
                continue
            yield from self._subtree_sources(context, child, skip)
        for child_cq in self.cache.child_cluster_queues(cohort):
            if child_cq is context.cq or within_nominal(child_cq.node, context.needed):
                continue
            yield child_cq

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
            variant = classify(context, workload, advantage)
            if variant:
                result.append(Candidate(workload, lca, variant))
        return result

    def _final_order(self, context: PreemptionContext, hierarchy: list[Candidate], priority: list[Candidate],
                     same_cq: list[Candidate]) -> list[Candidate]:
        """PRE-7: evicted ones first, in hierarchical, priority, same-queue order; then the others."""
        lists = [sorted(group, key=lambda c: self.order.key(context, c.workload))
                 for group in (hierarchy, priority, same_cq)]
        evicted = [c for lst in lists for c in lst if c.workload.evicted]
        others = [c for lst in lists for c in lst if not c.workload.evicted]
        return evicted + others


def classify(context: PreemptionContext, workload: WorkloadInfo, advantage: bool) -> int:
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
    if borrowing_forbidden(context.cq):
        return RECLAIM_WITHOUT_BORROWING
    threshold = preemption.borrow_within_cohort.max_priority_threshold if preemption.borrow_within_cohort else None
    if workload.priority >= context.preemptor.priority or (threshold is not None and workload.priority > threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


def _policy_usage(policy: str, preemptor: WorkloadInfo, source: ClusterQueueState,
                  cap: int | None = None) -> dict[FlavorResource, int]:
    """The summed usage of the workloads of ``source`` that ``policy`` could let ``preemptor`` evict (PRE-3), or of a
    few more (LowerOrNewerEqualPriority counts every equal priority, whatever its time); with ``cap``, only those
    of a priority at most ``cap``."""
    if policy == "Any":
        limit = cap
    elif policy == "LowerPriority":
        limit = preemptor.priority - 1 if cap is None else min(preemptor.priority - 1, cap)
    elif policy == "LowerOrNewerEqualPriority":
        limit = preemptor.priority if cap is None else min(preemptor.priority, cap)
    else:
        return {}
    total: dict[FlavorResource, int] = {}
    for priority, usage in source.workloads.by_priority.items():
        if limit is not None and priority > limit:
            continue
        for fr, value in usage.items():
            total[fr] = sat_add(total.get(fr, 0), value)
    return total


def borrowing_forbidden(cq: ClusterQueueState) -> bool:
    """PRE-8: no borrowWithinCohort policy, or Never: the preemptor may not borrow while preempting."""
    borrow = cq.model.preemption.borrow_within_cohort
    return borrow is None or borrow.policy == "Never"


def under_nominal(context: PreemptionContext) -> bool:
    """PRE-8: usage strictly below nominal on every (flavor, resource) needing preemption."""
    return all(context.cq.nominal(fr) > context.cq.usage(fr) for fr in context.needed)


def _ancestors_below(node: QuotaNode, lca: QuotaNode | None) -> Iterator[QuotaNode]:
    for ancestor in node.ancestors():
        if ancestor is lca:
            return
        yield ancestor
