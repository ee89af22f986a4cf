"""When a run's answer for one workload is known before its steady state (explain's checks, SIM-7).

Explain verifies each suggestion by running the cycles on to the next steady state and asking one
question: does the workload hold quota there? On 10,000 queued workloads that run tries every one
of them again, one cycle each, although the answer is often known after the first cycle. It is
known early when nothing in the workload's quota tree can be evicted any more:

* no workload enters a queue without an eviction (victims are requeued; nothing new arrives), and
  no quota changes, so usage in the tree only grows and what is available to the workload only
  shrinks (Q-4, Q-5);
* a workload that holds quota keeps it: only preemption (PRE) or a flavor migration takes it away;
* a workload that does not hold quota gets it only as a Fit (FA-6: its request within what is
  available), so once some pod set of it cannot fit on any flavor of some resource, even at its
  smallest partial-admission count, it never will.

Preemption can evict nothing in the tree when every preemption policy there admits no candidate
(Never, unset), or is LowerPriority while no queued workload of the tree has a higher priority than
any workload of the tree, queued or holding quota (PRE-3). Any other policy, fair-sharing or not,
counts as able to evict, as does the ConcurrentAdmission gate (flavor migrations) and any caller
hook between cycles. If an eviction happens anyway, the check gives up for the rest of the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kqctl.kueue.engine.entry import CycleResult
from kqctl.kueue.engine.quota import QuotaNode, available

if TYPE_CHECKING:
    from kqctl.kueue.engine.cache import ClusterQueueState
    from kqctl.kueue.engine.simulation import Simulation

INERT_POLICIES = (None, "", "Never")


def tree_of(sim: Simulation, cq: ClusterQueueState) -> list[ClusterQueueState]:
    """Every ClusterQueue of the cq's quota tree, active or not."""
    found: list[ClusterQueueState] = []
    stack: list[QuotaNode] = [sim.cache.root_of(cq)]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        state = sim.cache.cluster_queues.get(node.name) if not node.is_cohort else None
        if state is not None:
            found.append(state)
    return found


def evictions_possible(sim: Simulation, cq: ClusterQueueState) -> bool:
    """Can a later cycle evict anything in the cq's quota tree (preemption, a flavor migration)?

    No workload joins a queue of the tree without an eviction, and one that gets quota comes from a queue: so
    if this answers False now, it answers False after any number of cycles without evictions.
    """
    if sim.options.gates.enabled("ConcurrentAdmission"):
        return True
    tree = tree_of(sim, cq)
    queued = [w.priority for c in tree if (q := sim.queues.get(c.name)) is not None
              for w in (*q.active.values(), *q.inadmissible.values())]
    holding = [w.priority for c in tree for w in c.workloads.values()]
    # LowerPriority finds no candidate if no queued workload outranks any workload that holds or may get quota.
    lower_is_inert = not queued or max(queued) <= min(queued + holding)
    for state in tree:
        policy = state.model.preemption
        policies: list[str | None] = [policy.within_cluster_queue]
        if state.has_parent:
            borrow = policy.borrow_within_cohort
            policies += [policy.reclaim_within_cohort, borrow.policy if borrow is not None else None]
        for value in policies:
            if value in INERT_POLICIES or (value == "LowerPriority" and lower_is_inert):
                continue
            return True
    return False


class Settled:
    """``until`` for :meth:`Simulation.run_cycles`: True once whether ``key`` holds quota at the end of the
    run is known (read it from the simulation then; the rest of its state is not the steady state)."""

    def __init__(self, sim: Simulation, key: str) -> None:
        self.sim = sim
        outcome = sim.outcomes.get(key)
        self.workload = outcome.workload if outcome is not None else None
        self.enabled = self.workload is not None and self._applies()

    def _applies(self) -> bool:
        sim = self.sim
        if sim.options.between_cycles is not None or sim.options.gates.enabled("ConcurrentAdmission"):
            return False
        cq = self._cluster_queue()
        if cq is None:
            return False
        self.cq = cq
        self.smallest = self._smallest_requests()
        return not evictions_possible(sim, cq)

    def _cluster_queue(self) -> ClusterQueueState | None:
        assert self.workload is not None
        admission = self.workload.admission
        name = admission.cluster_queue if admission is not None else self.workload.cluster_queue
        return self.sim.cache.cluster_queues.get(name or "")

    def _smallest_requests(self) -> list[dict[str, int]]:
        """Per pod set, the least it asks of each resource at any count the scheduler may try (REQ-14)."""
        assert self.workload is not None
        smallest: list[dict[str, int]] = []
        for pod_set in self.workload.pod_sets:
            full = pod_set.total
            if pod_set.min_count is not None and pod_set.count > 0:
                reduced = pod_set.total_for(min(pod_set.count, pod_set.min_count))
                full = {r: min(v, reduced.get(r, v)) for r, v in full.items()}
            smallest.append(full)
        return smallest

    def __call__(self, result: CycleResult) -> bool:
        if not self.enabled:
            return False
        if result.evictions:
            self.enabled = False  # not foreseen: no more answers from this run
            return False
        assert self.workload is not None
        if self.workload.admission is not None:
            return True
        return self._never_fits()

    def _never_fits(self) -> bool:
        cq = self.cq
        for requests in self.smallest:
            for resource, value in requests.items():
                group = cq.group_for(resource)
                if value <= 0 or group is None:
                    continue
                if all(available(cq.node, (flavor, resource)) < value for flavor in group.flavors):
                    return True
        return False
