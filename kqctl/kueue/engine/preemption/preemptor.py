"""The preemptor (rule set PRE): victims for a workload whose flavors need preemption.

Chooses the classical search (PRE-5..PRE-10) or fair sharing's strategies (FS-5..FS-10) and
answers the flavor assigner's preemption oracle (PRE-11). Kueue's ``Preemptor`` and
``PreemptionOracle``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.flavors.assignment import Assignment, Oracle, total_requests_for
from kqctl.kueue.engine.flavors.tas_assigner import workload_requests
from kqctl.kueue.engine.preemption.classical import ClassicalPreemption, known_without_room
from kqctl.kueue.engine.preemption.fair_sharing import DEFAULT_STRATEGIES, FairSharingPreemption
from kqctl.kueue.engine.preemption.targets import CandidateOrder, PreemptionContext, Target, put_back, take_out
from kqctl.kueue.engine.tas_cache import PodSetRequest
from kqctl.kueue.engine.workloads import WorkloadInfo


@dataclass
class Preemptor:
    """Target selection, classical (PRE-5..10) or fair sharing (FS-5..10), as of ``now`` (the cycle's clock)."""

    cache: QuotaCache
    now: datetime
    fair_sharing: bool = False
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    lq_score: Callable[[WorkloadInfo], float | None] | None = None  # FS-11 LocalQueue usage
    gates_within_nominal: bool = True  # FairSharingPreemptWithinNominal (FS-8)
    topology_aware: bool = False  # TopologyAwareScheduling: victims must also free the nodes (TAS-7)
    # Searches made while one workload's assignment is worked out (``one_workload``), by their context: the
    # oracle's search for a flavor is usually the very search get_targets makes next, on the same cache.
    _searched: dict[tuple[object, ...], list[Target]] | None = field(default=None, repr=False)

    def one_workload(self) -> _OneWorkload:
        """While the cache does not change (one workload's flavor assignment and victims), equal searches are
        made once."""
        return _OneWorkload(self)

    def get_targets(self, workload: WorkloadInfo, cq: ClusterQueueState, assignment: Assignment) -> list[Target]:
        """PRE-2: victims for the flavors of ``assignment`` that need preemption (empty: none that make it fit)."""
        context = PreemptionContext(workload, cq, assignment.flavors_needing_preemption(),
                                    total_requests_for(workload, assignment),
                                    self._tas_requests(workload, cq, assignment))
        return list(self._search(context))

    def _tas_requests(self, workload: WorkloadInfo, cq: ClusterQueueState,
                      assignment: Assignment) -> dict[str, list[PodSetRequest]] | None:
        """TAS-7: with TopologyAwareScheduling, GetTargets asks the assignment for the pod sets to place
        (WorkloadsTopologyRequests), so that a candidate set is enough only when they then fit on the nodes too."""
        if not self.topology_aware or not self.cache.tas.flavors:
            # without a TAS flavor no pod set of the assignment is placed on nodes (TAS-2 gives a TAS pod set only
            # TAS flavors): nothing to place, and the per-search work is skipped on the clusters that have none
            return None
        checks = {name: check.controller_name for name, check in self.cache.snapshot.admission_checks.items()}
        return workload_requests(self.cache.tas, cq.model, self.cache.flavors, workload, assignment, checks) or None

    def search(self, context: PreemptionContext) -> list[Target]:
        """PRE-2 for a context built by the caller (its sets are not changed); equal searches made once while one
        workload's assignment is worked out. The list is shared: not to be changed."""
        return self._search(context)

    def _search(self, context: PreemptionContext) -> list[Target]:
        if not self.fair_sharing and known_without_room(self.cache, context):
            return []  # what the classical search answers at once (its room answer is known for this state)
        if self._searched is None:
            return self.targets(context)
        key = (id(context.preemptor), context.cq.name, frozenset(context.needed),
               tuple(sorted(context.usage.items())), context.tas_requests is not None)
        found = self._searched.get(key)
        if found is None:
            found = self._searched[key] = self.targets(context)
        return found

    def oracle(self, workload: WorkloadInfo, cq: ClusterQueueState) -> Oracle:
        """PRE-11: would victims exist for this one (flavor, resource) and amount?"""
        def simulate(fr: FlavorResource, quantity: int) -> tuple[str, int]:
            targets = self._search(PreemptionContext(workload, cq, {fr}, {fr: quantity}))
            if not targets:
                return "NoCandidates", self.cache.borrowing_level(cq, fr, quantity)[0]
            with self.cache.trial((cq,)):  # the victims are in the preemptor's tree
                take_out(self.cache, [t.workload for t in targets])
                level = self.cache.borrowing_level(cq, fr, quantity)[0]
                put_back(self.cache, [t.workload for t in targets])
            same_cq = any(t.cluster_queue is cq for t in targets)
            return ("Preempt" if same_cq else "Reclaim"), level
        return simulate

    def targets(self, context: PreemptionContext) -> list[Target]:
        order = CandidateOrder(self.now, self.lq_score)
        if self.fair_sharing:
            return FairSharingPreemption(self.cache, order, self.strategies, self.gates_within_nominal).targets(context)
        # The classical search takes candidates of the preemptor's tree out and puts every one back, on every path.
        with self.cache.trial((context.cq,)):
            return ClassicalPreemption(self.cache, order).targets(context)


class _OneWorkload:
    """:meth:`Preemptor.one_workload`'s block (a class: entered once per head of every cycle)."""

    __slots__ = ("_preemptor", "_outer")

    def __init__(self, preemptor: Preemptor) -> None:
        self._preemptor = preemptor
        self._outer: dict[tuple[object, ...], list[Target]] | None = None

    def __enter__(self) -> None:
        self._outer, self._preemptor._searched = self._preemptor._searched, {}

    def __exit__(self, *exc: object) -> None:
        self._preemptor._searched = self._outer
