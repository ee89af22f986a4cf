"""One quota tree on its own: explain's checks run the cycles of the workload's cohort tree only.

Kueue's cohort trees share nothing a cycle decides with: a head's flavor assignment reads the quota of its own
tree (Q-5), preemption looks for candidates in its own tree (PRE-6), a victim goes back to its own LocalQueue's
ClusterQueue, and the cycles number and date themselves the same way whatever else is queued. So the workloads of
one tree are admitted, preempted and left waiting in a run of that tree alone exactly as in a run of the whole
snapshot, cycle for cycle, as long as:

* nothing couples the trees: no Topology-Aware Scheduling (nodes are shared between trees), no
  ConcurrentAdmission variants (a parent's variants may sit in different trees), no cohort cycle (XO-3), and no
  workload holding quota in one tree while its LocalQueue points into another (its eviction would requeue it
  there);
* the whole run does not stop early because of another tree: the unchanged snapshot's own run reached its
  steady state (other trees neither livelock nor run into the cycle limit, and a change inside this tree does
  not change them), and a run of the tree alone that ends in a livelock or at the cycle limit is done again on
  the whole snapshot (the whole run would see that livelock later, while other trees still change).

Explain checks each suggestion by running a changed snapshot from the start (or from its steady state); on
Kueue's large-scale shape (10 cohort trees, 50,000 workloads) a run of one tree is a tenth of the work.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kqctl.kueue.api.models import Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.results import STEADY
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions, cycle_limit


@dataclass(frozen=True)
class TreeScope:
    """The ClusterQueues and Cohorts of one quota tree, and how to run a snapshot's part in that tree."""

    cluster_queues: frozenset[str]
    cohorts: frozenset[str]
    # The tree's workloads of a snapshot's workload list and LocalQueues, by their ids (the objects kept with the
    # answer, so an id is never reused while it lives): explain's checks change a ClusterQueue's quota or policy and
    # keep the snapshot's workload list, whose 50,000 workloads need not be sorted out again for every check.
    _members: dict[tuple[int, int], tuple[object, object, list[Workload]]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)

    def restrict(self, snapshot: Snapshot, options: SimulationOptions) -> tuple[Snapshot, SimulationOptions]:
        """The snapshot's objects of this tree (and every object not in a tree: flavors, namespaces, ...), with the
        cycle limit of the whole snapshot (SIM-8 scales it to the input)."""
        workloads = self._workloads(snapshot)
        part = dataclasses.replace(
            snapshot, workloads=workloads,
            cluster_queues={n: q for n, q in snapshot.cluster_queues.items() if n in self.cluster_queues},
            cohorts={n: c for n, c in snapshot.cohorts.items() if n in self.cohorts})
        limit = options.max_cycles if options.max_cycles is not None else cycle_limit(snapshot)
        return part, dataclasses.replace(options, max_cycles=limit)

    def _workloads(self, snapshot: Snapshot) -> list[Workload]:
        key = (id(snapshot.workloads), id(snapshot.local_queues))
        known = self._members.get(key)
        if known is not None and known[0] is snapshot.workloads and known[1] is snapshot.local_queues:
            return known[2]
        workloads = [w for w in snapshot.workloads if self._in_tree(snapshot, w)]
        self._members[key] = (snapshot.workloads, snapshot.local_queues, workloads)
        return workloads

    def _in_tree(self, snapshot: Snapshot, workload: Workload) -> bool:
        """Queued to the tree, or holding (or having held) quota in it."""
        admission = workload.admission
        if admission is not None and admission.cluster_queue in self.cluster_queues:
            return True
        local_queue = snapshot.local_queues.get(f"{workload.namespace}/{workload.queue_name}")
        return local_queue is not None and local_queue.cluster_queue in self.cluster_queues


def tree_scope(steady: Simulation, cluster_queue: str) -> TreeScope | None:
    """The tree of ``cluster_queue`` in the unchanged snapshot's run to its steady state ``steady``, or None when a run
    of that tree alone could decide differently from a run of the whole snapshot (see the module's conditions)."""
    cache = steady.cache
    state = cache.cluster_queues.get(cluster_queue)
    if state is None or steady.stop_reason != STEADY or cache.tas.flavors \
            or steady.options.gates.enabled("ConcurrentAdmission") or any(c.in_cycle for c in cache.cohorts.values()):
        return None
    names: set[str] = set()
    cohorts: set[str] = set()
    stack: list[QuotaNode] = [cache.root_of(state)]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        (cohorts if node.is_cohort else names).add(node.name)
    scope = TreeScope(frozenset(names), frozenset(cohorts))
    snapshot = steady.snapshot
    for workload in snapshot.workloads:
        admission = workload.admission
        if admission is None or not workload.is_condition_true("QuotaReserved"):
            continue
        local_queue = snapshot.local_queues.get(f"{workload.namespace}/{workload.queue_name}")
        target = local_queue.cluster_queue if local_queue is not None else None
        if target is not None and (admission.cluster_queue in names) != (target in names):
            return None  # evicted, it would be queued in the other tree
    return scope


def run_in_tree(scope: TreeScope | None, snapshot: Snapshot, options: SimulationOptions) -> Simulation:
    """A Simulation of ``snapshot`` restricted to ``scope`` (the whole snapshot without one), not run yet."""
    if scope is None:
        return Simulation(snapshot, options)
    return Simulation(*scope.restrict(snapshot, options))


def ended_alone(sim: Simulation) -> bool:
    """Whether a run of one tree stopped where the whole run would (else the check is done on the whole)."""
    return sim.stop_reason == STEADY
