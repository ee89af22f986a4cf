"""The scheduler's view of the cluster: ClusterQueues and Cohorts in a quota tree, and who holds quota.

Built once from a :class:`Snapshot`; admissions and releases then update usage incrementally
(Q-4). Inactive ClusterQueues (XO-1) and those under a cohort cycle (XO-3) get no heads and
are skipped when looking for preemption candidates, but their quota and usage stay in the tree.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kqctl.k8s.names import go_quote
from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import (
    MULTIKUEUE_CONTROLLER,
    ClusterQueue,
    Cohort,
    FlavorResource,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
)
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.quota import (
    Limits,
    QuotaNode,
    add_usage,
    available,
    compute_subtree_quota,
    potential,
    remove_usage,
)
from kqctl.kueue.engine.tas_cache import TASCache
from kqctl.kueue.engine.workloads import WorkloadInfo


class AdmittedWorkloads(dict[str, WorkloadInfo]):
    """The workloads holding quota in one ClusterQueue, with their usage summed per priority as they come and go.

    Preemption asks, for every head, how much the workloads below some priority hold in each ClusterQueue of
    the cohort (``classical._room_possible``): the sums answer that without walking every admitted workload.
    Each workload's priority and usage are taken when it is set (an admission never changes while it holds
    quota: it is removed first).
    """

    def __init__(self) -> None:
        super().__init__()
        self.by_priority: dict[int, dict[FlavorResource, int]] = {}
        self._counts: dict[int, int] = {}  # workloads per priority (an empty bucket is dropped)
        self._held: dict[str, tuple[int, Mapping[FlavorResource, int]]] = {}

    def __setitem__(self, key: str, workload: WorkloadInfo) -> None:
        if key in self._held:
            self._forget(key)
        super().__setitem__(key, workload)
        priority, usage = self._held[key] = (workload.priority, workload.held_usage())
        self._counts[priority] = self._counts.get(priority, 0) + 1
        bucket = self.by_priority.setdefault(priority, {})
        for fr, value in usage.items():
            bucket[fr] = sat_add(bucket.get(fr, 0), value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._forget(key)

    def _forget(self, key: str) -> None:
        priority, usage = self._held.pop(key)
        self._counts[priority] -= 1
        if not self._counts[priority]:
            del self._counts[priority], self.by_priority[priority]
            return
        bucket = self.by_priority[priority]
        for fr, value in usage.items():
            bucket[fr] = sat_sub(bucket[fr], value)

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        if key in self._held:
            self._forget(key)
        return super().pop(key, *default)

    def _unsupported(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("AdmittedWorkloads changes one workload at a time (set, del, pop)")

    popitem = setdefault = update = clear = __ior__ = _unsupported  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        raise TypeError("AdmittedWorkloads is engine state and is not copied or pickled")


@dataclass(eq=False)
class ClusterQueueState:
    model: ClusterQueue
    node: QuotaNode
    active: bool = True
    inactive_reason: str = ""
    inactive_message: str = ""
    workloads: AdmittedWorkloads = field(default_factory=AdmittedWorkloads)
    generation: int = 0  # Kueue's AllocatableResourceGeneration: bumps when quota in the tree changes
    # The model's name, and the root of its quota tree once the cache is built (the tree never changes shape during
    # a run): both read at nearly every step of a cycle, kept as plain attributes.
    name: str = field(init=False)
    root: QuotaNode | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.name = self.model.name

    def group_for(self, resource: str) -> ResourceGroup | None:
        """FA-3: the first resource group (spec order) covering the resource."""
        for group in self.model.resource_groups:
            if resource in group.covered:
                return group
        return None

    def covers(self, resource: str) -> bool:
        return self.group_for(resource) is not None

    def limits(self, fr: FlavorResource) -> Limits:
        return self.node.limits(fr)

    def nominal(self, fr: FlavorResource) -> int:
        return self.node.limits(fr).nominal

    def usage(self, fr: FlavorResource) -> int:
        return self.node.usage.get(fr, 0)

    def borrowing_with(self, fr: FlavorResource, value: int) -> bool:
        """Q-7: usage plus ``value`` goes above the nominal quota."""
        return self.nominal(fr) < self.usage(fr) + value

    def borrowing(self, fr: FlavorResource) -> bool:
        return self.borrowing_with(fr, 0)

    @property
    def has_parent(self) -> bool:
        return self.node.parent is not None


@dataclass(eq=False)
class CohortState:
    name: str
    node: QuotaNode
    model: Cohort | None
    in_cycle: bool = False


class QuotaCache:
    """ClusterQueues, Cohorts and the workloads holding quota, with incremental usage."""

    def __init__(self, snapshot: Snapshot, topology_aware: bool = False) -> None:
        self.flavors: dict[str, ResourceFlavor] = dict(snapshot.resource_flavors)
        self.cluster_queues: dict[str, ClusterQueueState] = {}
        self.cohorts: dict[str, CohortState] = {}
        self.snapshot = snapshot
        self._child_queues: dict[int, list[ClusterQueueState]] = {}
        self._child_cohorts: dict[int, list[QuotaNode]] = {}
        self._heights: dict[int, int] = {}
        self.quota_changes = 0  # how many times update_nominal_quota changed a quota (assignment_memo's key)
        # TAS-1, TAS-4: TAS flavors and node usage (TopologyAwareScheduling gate; empty without it).
        self.tas = TASCache(self.flavors, snapshot.topologies, snapshot.nodes, topology_aware)
        # QuotaNode.version values: every change of a tree's usage or quota gives its root a value never used
        # before, and a trial that undoes its changes gives back the value it found (see :meth:`trial`), so a
        # version names one state of its tree. Figures read of a tree are kept under that name (``_reads``).
        self._fresh_versions = itertools.count(1)
        self._reads: dict[int, dict[tuple[object, ...], object]] = {}
        # Q-6 potentials by (ClusterQueue, flavor/resource): they read quotas only, which change only through
        # update_nominal_quota (which empties this).
        self._potentials: dict[tuple[str, FlavorResource], int] = {}
        self._build(snapshot)
        self._child_queues.clear()  # in case building asked before every active flag was final
        self._heights.clear()
        for state in self.cluster_queues.values():
            state.root = self.root_of(state)
        for root in {id(s.root): s.root for s in self.cluster_queues.values()}.values():
            assert root is not None
            root.version = next(self._fresh_versions)

    # --- building ------------------------------------------------------------------------------------

    def _build(self, snapshot: Snapshot) -> None:
        for name in sorted(snapshot.cohorts):
            self._cohort(name)
        for name in sorted(snapshot.cluster_queues):
            self._add_cluster_queue(snapshot.cluster_queues[name])
        self._link_cohorts()
        for root in self.roots():
            compute_subtree_quota(root.node)
        for state in self.cluster_queues.values():
            self._mark_inactive(state, snapshot)

    def _cohort(self, name: str) -> CohortState:
        state = self.cohorts.get(name)
        if state is None:
            model = self.snapshot.cohorts.get(name)
            quotas = _limits(model.quotas) if model is not None else {}
            state = CohortState(name, QuotaNode(name, True, quotas), model)
            self.cohorts[name] = state
        return state

    def _add_cluster_queue(self, model: ClusterQueue) -> None:
        node = QuotaNode(model.name, False, _limits(model.quotas))
        state = ClusterQueueState(model, node)
        self.cluster_queues[model.name] = state
        if model.cohort:
            _attach(node, self._cohort(model.cohort).node)

    def _link_cohorts(self) -> None:
        for name in sorted(self.cohorts):
            model = self.cohorts[name].model
            if model is not None and model.parent:
                self._cohort(model.parent)
        cyclic = self._cyclic_cohorts()
        for name in sorted(self.cohorts):
            state = self.cohorts[name]
            state.in_cycle = name in cyclic
            parent = state.model.parent if state.model is not None else None
            if parent and not state.in_cycle:
                _attach(state.node, self.cohorts[parent].node)

    def _cyclic_cohorts(self) -> set[str]:
        """XO-3: cohorts on a parentName cycle, or whose chain of parents runs into one."""
        bad: set[str] = set()
        for start in self.cohorts:
            seen: list[str] = []
            current: str | None = start
            while current is not None and current not in seen:
                seen.append(current)
                model = self.cohorts[current].model if current in self.cohorts else None
                current = model.parent if model is not None and model.parent else None
            if current is not None:
                bad.update(seen)
        return bad

    def _mark_inactive(self, state: ClusterQueueState, snapshot: Snapshot) -> None:
        """XO-1 (first reason wins, fragments joined) and XO-3."""
        fragments, reasons = _inactive_fragments(state.model, snapshot, self.tas.enabled)
        if state.model.deleting:
            state.active, state.inactive_reason = False, "Terminating"
            state.inactive_message = "Can't admit new workloads; clusterQueue is terminating"
        elif reasons:
            state.active, state.inactive_reason = False, reasons[0]
            state.inactive_message = f"Can't admit new workloads: {', '.join(fragments)}."
        elif any(self.cohorts[a.name].in_cycle for a in self.cohort_chain(state) if a.name in self.cohorts):
            state.active, state.inactive_reason = False, "CohortCycle"
            state.inactive_message = "Can't admit new workloads: its cohort tree has a cycle."
        state.node.active = state.active

    def cohort_chain(self, state: ClusterQueueState) -> list[CohortState]:
        """The cohort named by the ClusterQueue and its parents, cycle-safe."""
        chain: list[CohortState] = []
        name = state.model.cohort
        while name and name in self.cohorts and all(c.name != name for c in chain):
            cohort = self.cohorts[name]
            chain.append(cohort)
            name = cohort.model.parent if cohort.model is not None else None
        return chain

    # --- queries -------------------------------------------------------------------------------------

    def roots(self) -> list[CohortState | ClusterQueueState]:
        result: list[CohortState | ClusterQueueState] = []
        result.extend(c for c in self.cohorts.values() if c.node.parent is None)
        result.extend(q for q in self.cluster_queues.values() if q.node.parent is None)
        return result

    def root_of(self, state: ClusterQueueState) -> QuotaNode:
        node = state.node
        while node.parent is not None:
            node = node.parent
        return node

    def child_cluster_queues(self, cohort: QuotaNode) -> list[ClusterQueueState]:
        """§0.4: children in name order; only ClusterQueues the scheduling snapshot holds.

        The tree and the active flags never change once built, so each list is sorted once.
        """
        cached = self._child_queues.get(id(cohort))
        if cached is None:
            cached = sorted((self.cluster_queues[c.name] for c in cohort.children
                             if not c.is_cohort and self.cluster_queues[c.name].active), key=lambda s: s.name)
            self._child_queues[id(cohort)] = cached
        return cached

    def child_cohorts(self, cohort: QuotaNode) -> list[QuotaNode]:
        cached = self._child_cohorts.get(id(cohort))
        if cached is None:
            cached = sorted((c for c in cohort.children if c.is_cohort), key=lambda n: n.name)
            self._child_cohorts[id(cohort)] = cached
        return cached

    def subtree_cluster_queues(self, node: QuotaNode) -> Iterator[ClusterQueueState]:
        for child in self.child_cohorts(node):
            yield from self.subtree_cluster_queues(child)
        yield from self.child_cluster_queues(node)

    def height(self, cohort: QuotaNode) -> int:
        """Q-8: 1 for a cohort with children, plus one per level of child cohorts (static: memoized)."""
        cached = self._heights.get(id(cohort))
        if cached is not None:
            return cached
        children = len(self.child_cohorts(cohort)) + len(self.child_cluster_queues(cohort))
        result = min(children, 1)
        for child in self.child_cohorts(cohort):
            result = max(result, self.height(child) + 1)
        self._heights[id(cohort)] = result
        return result

    def path(self, state: ClusterQueueState) -> str:
        """CYC-18: ``/root/.../cq`` (``/cq`` without a cohort)."""
        names = [state.name, *(a.name for a in state.node.ancestors())]
        return "/" + "/".join(reversed(names))

    def figures(self, state: ClusterQueueState) -> dict[tuple[object, ...], object]:
        """Figures worked out of the state's tree in its current version, by what they are (a version is never
        reused for another state of the tree, so a figure kept under it is the figure worked out now). Only for
        figures that depend on the tree's quotas and usage and on nothing else, its workloads' order included."""
        root = state.root
        version = (root if root is not None else self.root_of(state)).version
        figures = self._reads.get(version)
        if figures is None:
            if len(self._reads) >= 64:  # versions of trials and older states are seldom read again
                self._reads.clear()
            figures = self._reads[version] = {}
        return figures

    def available(self, state: ClusterQueueState, fr: FlavorResource) -> int:
        figures = self.figures(state)
        key = (0, state.name, fr)
        found = figures.get(key)
        if found is None:
            found = figures[key] = available(state.node, fr)
        return found  # type: ignore[return-value]

    def fits_available(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> bool:
        """FA-6: ``value`` is within what is available now (Q-5)."""
        return value <= self.available(state, fr)

    def potential(self, state: ClusterQueueState, fr: FlavorResource) -> int:
        key = (state.name, fr)
        found = self._potentials.get(key)
        if found is None:
            found = self._potentials[key] = potential(state.node, fr)
        return found

    def borrowing_level(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """Q-8: how far up the tree the quota for ``value`` comes from, and whether reclaim may help.

        Kueue's ``FindHeightOfLowestSubtreeThatFits``: 0 within the ClusterQueue's own quota, else the
        height of the lowest cohort whose subtree still has room.
        """
        figures = self.figures(state)
        key = (1, state.name, fr, value)
        found = figures.get(key)
        if found is None:
            found = figures[key] = self._borrowing_level(state, fr, value)
        return found  # type: ignore[return-value]

    def _borrowing_level(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> tuple[int, bool]:
        if not state.borrowing_with(fr, value) or not state.has_parent:
            return 0, state.has_parent
        remaining = sat_sub(value, state.node.local_available(fr))
        for node in state.node.ancestors():
            if not node.subtree.get(fr, 0) < sat_add(node.usage.get(fr, 0), remaining):
                return self.height(node), node.parent is not None
            remaining = sat_sub(remaining, node.local_available(fr))
        return self.height(self.root_of(state)), False

    # --- usage ---------------------------------------------------------------------------------------

    def add_workload(self, info: WorkloadInfo) -> None:
        """A workload starts holding quota in its ClusterQueue (from its admission)."""
        assert info.admission is not None
        state = self.cluster_queues.get(info.admission.cluster_queue)
        if state is None:
            return
        state.workloads[info.key] = info
        self.add_usage(state, info.held_usage())
        self.tas.add_workload(info)  # TAS-4: its pods' node usage

    def remove_workload(self, info: WorkloadInfo) -> None:
        assert info.admission is not None
        state = self.cluster_queues.get(info.admission.cluster_queue)
        if state is None or info.key not in state.workloads:
            return
        del state.workloads[info.key]
        self.remove_usage(state, info.held_usage())
        self.tas.remove_workload(info)

    def update_nominal_quota(self, name: str, fr: FlavorResource, nominal: int) -> bool:
        """A ClusterQueue's quota changes in the cache only (Kueue's ``Cache.UpdateClusterQueue``).

        Usage in the tree is re-added over the new subtree quotas; the ClusterQueue's generation
        (AllocatableResourceGeneration) is bumped when the quota really changed. For engine-API
        callers such as conformance cases that change quota between cycles.
        """
        state = self.cluster_queues[name]
        old = state.node.limits(fr)
        if old.nominal == nominal:
            return False
        tree = [q for q in self.cluster_queues.values() if self.root_of(q) is self.root_of(state)]
        for queue in tree:
            for workload in queue.workloads.values():
                self.remove_usage(queue, workload.usage())
        state.node.quotas[fr] = Limits(nominal, old.borrowing_limit, old.lending_limit)
        compute_subtree_quota(self.root_of(state))
        self._potentials.clear()
        for queue in tree:
            for workload in queue.workloads.values():
                self.add_usage(queue, workload.usage())
        self.root_of(state).version = next(self._fresh_versions)
        state.generation += 1
        self.quota_changes += 1
        return True

    def add_usage(self, state: ClusterQueueState, usage: Mapping[FlavorResource, int]) -> None:
        for fr, value in usage.items():
            add_usage(state.node, fr, value)
        self._root(state).version = next(self._fresh_versions)

    def remove_usage(self, state: ClusterQueueState, usage: Mapping[FlavorResource, int]) -> None:
        for fr, value in usage.items():
            remove_usage(state.node, fr, value)
        self._root(state).version = next(self._fresh_versions)

    def _root(self, state: ClusterQueueState) -> QuotaNode:
        root = state.root
        return root if root is not None else self.root_of(state)

    def tree_version(self, state: ClusterQueueState) -> int:
        """The state of the ClusterQueue's quota tree: equal versions mean equal usage and quotas
        (QuotaNode.version)."""
        return self._root(state).version

    def trial(self, states: Iterable[ClusterQueueState]) -> Trial:
        """A block that changes the trees of ``states`` and undoes every change before it ends (a preemption search
        taking candidates out and putting them back): the trees get back the versions they had, as their states are
        the ones they had. Only for blocks that undo every change they make to those trees, on every path."""
        return Trial([(root, root.version) for root in {id(r): r for r in map(self._root, states)}.values()])


class Trial:
    """:meth:`QuotaCache.trial`'s block: gives the trees their versions back when it ends (not on an exception: a
    block that stopped half-way may not have undone its changes)."""

    __slots__ = ("_saved",)

    def __init__(self, saved: list[tuple[QuotaNode, int]]) -> None:
        self._saved = saved

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            for root, version in self._saved:
                root.version = version


def _attach(child: QuotaNode, parent: QuotaNode) -> None:
    child.parent = parent
    parent.children.append(child)


def _limits(quotas: Mapping[FlavorResource, ResourceQuota]) -> dict[FlavorResource, Limits]:
    return {fr: Limits(q.nominal, q.borrowing_limit, q.lending_limit) for fr, q in quotas.items()}


def _inactive_fragments(model: ClusterQueue, snapshot: Snapshot, topology_aware: bool = False,
                        ) -> tuple[list[str], list[str]]:
    """XO-1 in its order: stopped, missing flavors, missing or inactive checks, MultiKueue misuse, Topology."""
    fragments: list[str] = []
    reasons: list[str] = []
    if model.stop_policy != "None":
        fragments.append("is stopped")
        reasons.append("Stopped")
    missing_flavors = [f for f in dict.fromkeys(model.flavors) if f not in snapshot.resource_flavors]
    if missing_flavors:
        fragments.append(f"references missing ResourceFlavor(s): {','.join(missing_flavors)}")
        reasons.append("FlavorNotFound")
    checks = sorted(model.admission_checks)
    missing_checks = [c for c in checks if c not in snapshot.admission_checks]
    if missing_checks:
        fragments.append(f"references missing AdmissionCheck(s): {','.join(missing_checks)}")
        reasons.append("AdmissionCheckNotFound")
    inactive = [c for c in checks if c in snapshot.admission_checks and not snapshot.admission_checks[c].active]
    if inactive:
        fragments.append(f"references inactive AdmissionCheck(s): {','.join(inactive)}")
        reasons.append("AdmissionCheckInactive")
    multikueue = [c for c in checks if c in snapshot.admission_checks
                  and snapshot.admission_checks[c].controller_name == MULTIKUEUE_CONTROLLER]
    if len(multikueue) > 1:
        fragments.append(f"Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: "
                         f"{','.join(multikueue)}")
        reasons.append("MultipleMultiKueueAdmissionChecks")
    if topology_aware and not multikueue:
        # TAS-1 clusterQueue.isTASViolated: a TAS flavor whose Topology is missing (Go: map order; here by name).
        for name in sorted(dict.fromkeys(model.flavors)):
            flavor = snapshot.resource_flavors.get(name)
            if flavor is not None and flavor.topology_name is not None \
                    and flavor.topology_name not in snapshot.topologies:
                fragments.append(f"there is no Topology {go_quote(flavor.topology_name)}"
                                 f" for TAS flavor {go_quote(name)}")
                reasons.append("TopologyNotFound")
    return fragments, reasons
