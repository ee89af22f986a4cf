"""A quota audit: what every ClusterQueue and Cohort holds, lends, borrows and uses, and what is wasted.

``audit(snapshot)`` builds a :class:`~kqctl.kueue.engine.simulation.Simulation` without running it, so
usage comes from the workloads already holding quota (Q-3) and pending demand from the workloads
waiting in ClusterQueue queues. All numbers are Kueue's integers in canonical units (QTY-5); the
renderers format them. The findings are not errors: they point at quota that costs money without
being usable, and at workloads or queues that can never make progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

from kqctl.k8s.quantity import UNLIMITED, sat_add, sat_sub
from kqctl.k8s.selectors import namespace_labels, selector_matches
from kqctl.kueue.api.models import ClusterQueue, FlavorResource, LocalQueue
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.quota import QuotaNode, available, lendable_from_tree, potential
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.engine.verdict import never_reasons
from kqctl.kueue.engine.workloads import PodSetInfo, WorkloadInfo

NodeKind = Literal["ClusterQueue", "Cohort"]
Severity = Literal["warning", "info"]

UNUSABLE_QUOTA = "AUDIT-UNUSABLE-QUOTA"
NEVER_FITS = "AUDIT-NEVER-FITS"
NO_BORROWING = "AUDIT-NO-BORROWING"
UNUSED_FLAVOR = "AUDIT-UNUSED-FLAVOR"
UNFED_CLUSTERQUEUE = "AUDIT-UNFED-CLUSTERQUEUE"
NAMESPACE_NOT_ADMITTED = "AUDIT-NAMESPACE-NOT-ADMITTED"

#: Rule ids in the order findings are listed; with their fixed severity.
RULES: dict[str, Severity] = {
    UNUSABLE_QUOTA: "warning",
    NEVER_FITS: "warning",
    NAMESPACE_NOT_ADMITTED: "warning",
    UNFED_CLUSTERQUEUE: "info",
    NO_BORROWING: "info",
    UNUSED_FLAVOR: "info",
}


# --- the report ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceRow:
    """One (flavor, resource) of one node. ``None`` limits mean "no limit"; UNLIMITED stays the sentinel."""

    flavor: str
    resource: str
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None
    subtree_quota: int  # Q-2 (= nominal for a ClusterQueue)
    guaranteed: int  # Q-1 local quota: never lent to the parent
    max_borrowable: int  # Q-6 potential minus subtree quota: the most it can ever borrow
    lendable: int  # what it offers its parent: subtree quota minus local quota (0 for a root)
    usage: int
    borrowed: int  # usage above subtree quota
    available: int | None  # Q-5, ClusterQueues only: what a new workload can use right now
    utilisation: Fraction | None  # usage / subtree quota; None when that is 0 or unlimited


@dataclass(frozen=True)
class PendingDemand:
    """What the queued workloads of a ClusterQueue ask for, per resource (their flavors are not known yet)."""

    resource: str
    amount: int


@dataclass(frozen=True)
class AuditNode:
    kind: NodeKind
    name: str
    parent: str | None
    path: str  # CYC-18 style: /root/.../name
    depth: int
    children: tuple[str, ...]  # child cohorts first, then ClusterQueues, each in name order
    resources: tuple[ResourceRow, ...]
    status: str  # "" when nothing to say: an inactive reason (XO-1), "CohortCycle" (XO-3), "implicit" (XO-2)
    local_queues: tuple[str, ...] = ()  # ClusterQueues: namespace/name of the LocalQueues naming it
    admitted_workloads: int = 0
    pending_workloads: int = 0
    pending: tuple[PendingDemand, ...] = ()


@dataclass(frozen=True)
class AuditFinding:
    rule_id: str
    severity: Severity
    object: str  # Kind/name, or Workload/namespace/name
    message: str
    hint: str | None = None


@dataclass(frozen=True)
class AuditReport:
    nodes: tuple[AuditNode, ...]  # depth-first: cohort trees, then ClusterQueues without a cohort
    findings: tuple[AuditFinding, ...]
    resource_flavors: tuple[str, ...]
    namespace: str | None = None  # audit -n: the namespace the report keeps what is used by
    left_out: int = 0  # audit -n: how many ClusterQueues and cohorts of the input it left out

    @property
    def cluster_queues(self) -> tuple[AuditNode, ...]:
        return tuple(n for n in self.nodes if n.kind == "ClusterQueue")

    @property
    def cohorts(self) -> tuple[AuditNode, ...]:
        return tuple(n for n in self.nodes if n.kind == "Cohort")


def for_namespace(report: AuditReport, namespace: str) -> AuditReport:
    """``audit -n``: the ClusterQueues a LocalQueue of the namespace feeds, with the cohorts above them (their
    quota is what those ClusterQueues borrow from), and the findings about them or about objects of the
    namespace."""
    by_name = {(n.kind, n.name): n for n in report.nodes}
    kept: set[tuple[str, str]] = set()
    for node in report.cluster_queues:
        if any(lq.split("/", 1)[0] == namespace for lq in node.local_queues):
            current: AuditNode | None = node
            while current is not None and (current.kind, current.name) not in kept:
                kept.add((current.kind, current.name))
                current = by_name.get(("Cohort", current.parent)) if current.parent else None
    nodes = tuple(replace(n, children=tuple(c for c in n.children if ("Cohort", c) in kept
                                            or ("ClusterQueue", c) in kept))
                  for n in report.nodes if (n.kind, n.name) in kept)
    objects = {f"{kind}/{name}" for kind, name in kept}
    findings = tuple(f for f in report.findings
                     if f.object in objects or f.object.split("/")[1:2] == [namespace] and f.object.count("/") >= 2)
    return replace(report, nodes=nodes, findings=findings, namespace=namespace,
                   left_out=report.left_out + len(report.nodes) - len(nodes))


def audit(snapshot: Snapshot, options: SimulationOptions | None = None) -> AuditReport:
    """The quota report of a snapshot: nothing is scheduled, the current state is read as it is."""
    sim = Simulation(snapshot, options or SimulationOptions())
    context = _Context(snapshot, sim)
    nodes = tuple(_tree_rows(context))
    return AuditReport(nodes, tuple(_sorted_findings(_findings(context))), tuple(sorted(snapshot.resource_flavors)))


@dataclass
class _Context:
    """What the rows and the findings both read: the quota tree, the queues and the LocalQueues."""

    snapshot: Snapshot
    sim: Simulation

    @property
    def cache(self) -> QuotaCache:
        return self.sim.cache

    def queued(self, name: str) -> list[WorkloadInfo]:
        queue = self.sim.queues.get(name)
        if queue is None:
            return []
        return sorted([*queue.active.values(), *queue.inadmissible.values()], key=lambda w: w.key)

    def local_queues_of(self, name: str) -> list[LocalQueue]:
        return sorted((lq for lq in self.snapshot.local_queues.values() if lq.cluster_queue == name),
                      key=lambda lq: lq.key)

    def partial_admission(self) -> bool:
        return self.sim.options.gates.enabled("PartialAdmission")

    def ignore_undeclared(self) -> bool:
        # REQ-12: with IgnoreUndeclared, resources no group covers are not counted anywhere.
        return (self.snapshot.config.quota_check_strategy == "IgnoreUndeclared"
                and self.sim.options.gates.enabled("QuotaCheckStrategy"))


# --- rows ------------------------------------------------------------------------------------------------


def _tree_rows(context: _Context) -> Iterator[AuditNode]:
    roots = sorted((c.node for c in context.cache.cohorts.values() if c.node.parent is None), key=lambda n: n.name)
    roots += sorted((q.node for q in context.cache.cluster_queues.values() if q.node.parent is None),
                    key=lambda n: n.name)
    for root in roots:
        yield from _subtree_rows(context, root, 0)


def _children(node: QuotaNode) -> list[QuotaNode]:
    """Cohorts first, then ClusterQueues: all of them, active or not (their quota is in the tree, XO-1)."""
    return sorted(node.children, key=lambda c: (not c.is_cohort, c.name))


def _subtree_rows(context: _Context, node: QuotaNode, depth: int) -> Iterator[AuditNode]:
    yield _node_row(context, node, depth)
    for child in _children(node):
        yield from _subtree_rows(context, child, depth + 1)


def _path(node: QuotaNode) -> str:
    names = [node.name, *(a.name for a in node.ancestors())]
    return "/" + "/".join(reversed(names))


def _node_row(context: _Context, node: QuotaNode, depth: int) -> AuditNode:
    parent = node.parent.name if node.parent is not None else None
    children = tuple(c.name for c in _children(node))
    rows = tuple(_resource_row(node, fr) for fr in _node_resources(node))
    if node.is_cohort:
        return AuditNode("Cohort", node.name, parent, _path(node), depth, children, rows, _cohort_status(context, node))
    state = context.cache.cluster_queues[node.name]
    queued = context.queued(node.name)
    return AuditNode(
        "ClusterQueue", node.name, parent, _path(node), depth, children, rows,
        "" if state.active else state.inactive_reason,
        local_queues=tuple(lq.key for lq in context.local_queues_of(node.name)),
        admitted_workloads=len(state.workloads),
        pending_workloads=len(queued),
        pending=_pending_demand(state, queued),
    )


def _cohort_status(context: _Context, node: QuotaNode) -> str:
    state = context.cache.cohorts[node.name]
    if state.in_cycle:
        return "CohortCycle"
    return "implicit" if state.model is None else ""


def _node_resources(node: QuotaNode) -> list[FlavorResource]:
    """Every FR the node has quota for, that reaches it from below (Q-2), or that it uses."""
    keys = set(node.quotas) | set(node.subtree) | {fr for fr, v in node.usage.items() if v}
    return sorted(keys)


def _resource_row(node: QuotaNode, fr: FlavorResource) -> ResourceRow:
    limits = node.limits(fr)
    subtree = node.subtree.get(fr, 0)
    usage = node.usage.get(fr, 0)
    local = node.local_quota(fr)
    return ResourceRow(
        flavor=fr[0],
        resource=fr[1],
        nominal=limits.nominal,
        borrowing_limit=limits.borrowing_limit,
        lending_limit=limits.lending_limit,
        subtree_quota=subtree,
        guaranteed=local,
        max_borrowable=max(0, sat_sub(potential(node, fr), subtree)),
        lendable=max(0, sat_sub(subtree, local)) if node.parent is not None else 0,
        usage=usage,
        borrowed=max(0, sat_sub(usage, subtree)),
        available=None if node.is_cohort else available(node, fr),
        utilisation=None if subtree <= 0 or subtree >= UNLIMITED else Fraction(usage, subtree),
    )


# --- pending demand ------------------------------------------------------------------------------------


def _requests(state: ClusterQueueState, pod_set: PodSetInfo, count: int | None = None) -> dict[str, int]:
    """A pod set's totals as flavor assignment sees them, ``pods`` included when covered (REQ-11)."""
    count = pod_set.count if count is None or pod_set.count == 0 else count
    requests = pod_set.total_for(count)
    if state.covers("pods"):
        requests["pods"] = count
    return requests


def _pending_demand(state: ClusterQueueState, queued: list[WorkloadInfo]) -> tuple[PendingDemand, ...]:
    totals: dict[str, int] = {}
    for workload in queued:
        for pod_set in workload.pod_sets:
            for resource, value in _requests(state, pod_set).items():
                totals[resource] = sat_add(totals.get(resource, 0), value)
    return tuple(PendingDemand(r, v) for r, v in sorted(totals.items()) if v)


# --- findings ------------------------------------------------------------------------------------------


def _finding(rule_id: str, obj: str, message: str, hint: str | None = None) -> AuditFinding:
    return AuditFinding(rule_id, RULES[rule_id], obj, message, hint)


def _findings(context: _Context) -> Iterator[AuditFinding]:
    yield from unusable_quota(context)
    yield from never_fits(context)
    yield from no_borrowing(context)
    yield from unused_flavors(context.snapshot)
    yield from unfed_cluster_queues(context)
    yield from namespaces_not_admitted(context.snapshot)


def _sorted_findings(findings: Iterable[AuditFinding]) -> list[AuditFinding]:
    order = {rule: i for i, rule in enumerate(RULES)}
    # Stable: within one rule and object, findings keep the (deterministic) order they were made in.
    return sorted(findings, key=lambda f: (order[f.rule_id], f.object))


def _fr_text(fr: FlavorResource) -> str:
    return f"{fr[0]}/{fr[1]}"


def _cq_object(name: str) -> str:
    return f"ClusterQueue/{name}"


def _node_object(node: QuotaNode) -> str:
    return f"{'Cohort' if node.is_cohort else 'ClusterQueue'}/{node.name}"


def _kind_name(node: QuotaNode) -> str:
    return f"{'Cohort' if node.is_cohort else 'ClusterQueue'} {node.name}"


# AUDIT-UNUSABLE-QUOTA ---------------------------------------------------------------------------------


def admits(state: ClusterQueueState) -> bool:
    """Can the ClusterQueue admit anything at all: active (XO-1, XO-3) and a non-nil namespaceSelector (DEF-2)."""
    return state.active and state.model.namespace_selector is not None


def _subtree_queues(cache: QuotaCache, node: QuotaNode) -> Iterator[ClusterQueueState]:
    if not node.is_cohort:
        yield cache.cluster_queues[node.name]
        return
    for child in _children(node):
        yield from _subtree_queues(cache, child)


def _users(cache: QuotaCache, node: QuotaNode, fr: FlavorResource) -> list[ClusterQueueState]:
    """XO-5: only ClusterQueues listing the FR can use (or borrow) quota of it."""
    return [q for q in _subtree_queues(cache, node) if fr in q.node.quotas]


def unusable_quota(context: _Context) -> Iterator[AuditFinding]:
    """Quota no workload can ever be admitted on: a node's private part (Q-1) when nothing below it can
    admit on the FR, and a whole tree's pooled quota (Q-2) when nothing in the tree can."""
    cache = context.cache
    for node in _all_nodes(cache):
        for fr in _node_resources(node):
            yield from _unusable_private_part(cache, node, fr)
            if node.parent is None and node.is_cohort:
                yield from _unusable_tree_quota(cache, node, fr)
        if node.parent is None and not node.is_cohort:
            yield from _unusable_lone_queue(cache.cluster_queues[node.name])
    for state in sorted(cache.cluster_queues.values(), key=lambda s: s.name):
        yield from _unusable_with_group(state)


def _all_nodes(cache: QuotaCache) -> list[QuotaNode]:
    return sorted([*(c.node for c in cache.cohorts.values()), *(q.node for q in cache.cluster_queues.values())],
                  key=lambda n: (not n.is_cohort, n.name))


def _unusable_private_part(cache: QuotaCache, node: QuotaNode, fr: FlavorResource) -> Iterator[AuditFinding]:
    # A root's private part is part of its whole pool, reported by _unusable_tree_quota.
    private = node.local_quota(fr)
    if node.parent is None or private <= 0 or any(admits(q) for q in _users(cache, node, fr)):
        return
    yield _finding(
        UNUSABLE_QUOTA, _node_object(node),
        f"{_amount(fr[1], private)} of {_fr_text(fr)} in {_kind_name(node)} is never lent (lendingLimit) and "
        f"{_why_nobody(cache, node, fr)}: it can never be used",
        "raise lendingLimit so the cohort can use it, or lower nominalQuota")


def _unusable_lone_queue(state: ClusterQueueState) -> Iterator[AuditFinding]:
    """A ClusterQueue without a cohort that admits nothing: all its quota is idle (one finding for all FRs)."""
    if admits(state):
        return
    amounts = [f"{_set_amount(fr[1], v.nominal)} {_fr_text(fr)}" for fr, v in sorted(state.node.quotas.items())
               if v.nominal > 0]
    if amounts:
        yield _finding(
            UNUSABLE_QUOTA, _cq_object(state.name),
            f"{', '.join(amounts)} in ClusterQueue {state.name} can never be used: it admits nothing "
            f"({_not_admitting_reason(state)}) and has no cohort to lend it to",
            "fix what keeps the ClusterQueue from admitting, or remove the quota")


def _unusable_tree_quota(cache: QuotaCache, root: QuotaNode, fr: FlavorResource) -> Iterator[AuditFinding]:
    """The pooled quota of a cohort tree (Q-2) when no ClusterQueue in the tree can admit on the FR."""
    pooled = sat_sub(root.subtree.get(fr, 0), root.local_quota(fr))
    if pooled <= 0 or any(admits(q) for q in _users(cache, root, fr)):
        return
    holders = [n for n in _walk(root) if n.limits(fr).nominal > 0]
    held = ", ".join(f"{n.name} {_set_amount(fr[1], n.limits(fr).nominal)}" for n in holders)
    yield _finding(
        UNUSABLE_QUOTA, _node_object(root),
        f"{_amount(fr[1], pooled)} of {_fr_text(fr)} in the cohort tree of {root.name} (nominalQuota: {held or 'none'})"
        f" can never be used: {_why_nobody(cache, root, fr)}",
        f"list {_fr_text(fr)} in a ClusterQueue that admits workloads (nominalQuota: 0 is enough to borrow),"
        " or remove the quota")


def _walk(node: QuotaNode) -> Iterator[QuotaNode]:
    yield node
    for child in _children(node):
        yield from _walk(child)


def _why_nobody(cache: QuotaCache, node: QuotaNode, fr: FlavorResource) -> str:
    users = _users(cache, node, fr)
    if not users:
        return f"no ClusterQueue under {node.name} lists {_fr_text(fr)} (XO-5)" if node.is_cohort else \
            f"ClusterQueue {node.name} does not list {_fr_text(fr)} (XO-5)"
    reasons = ", ".join(f"{q.name} ({_not_admitting_reason(q)})" for q in users)
    return f"the ClusterQueues listing it admit nothing: {reasons}"


def _not_admitting_reason(state: ClusterQueueState) -> str:
    if not state.active:
        return f"inactive: {state.inactive_reason}"
    return "no namespaceSelector, so it matches no namespace"


def _amount(resource: str, value: int) -> str:
    """A quota-side value in human units (UNLIMITED is "unlimited"); the amounts these findings name are
    computed (a private part, a pool, a maximum capacity), so cpu reads rounded (kqctl.k8s.units)."""
    from kqctl.k8s.units import human_figure

    return human_figure(resource, value)


def _set_amount(resource: str, value: int) -> str:
    """A nominalQuota as written: exact where that is short (kqctl.k8s.units)."""
    from kqctl.k8s.units import human

    return human(resource, value)


def _unusable_with_group(state: ClusterQueueState) -> Iterator[AuditFinding]:
    """FA: one flavor serves all the resources of a group; quota of a flavor that can never provide
    another resource of the group is only usable by workloads requesting none of that resource."""
    if not admits(state):
        return
    for group in state.model.resource_groups:
        for flavor in group.flavors:
            caps = {r: potential(state.node, (flavor, r)) for r in group.covered}
            zero = sorted(r for r, v in caps.items() if v <= 0)
            wasted = sorted(r for r, v in caps.items() if v > 0 and state.node.limits((flavor, r)).nominal > 0)
            if zero and wasted:
                yield _wasted_by_group(state, flavor, zero, wasted)


def _wasted_by_group(state: ClusterQueueState, flavor: str, zero: list[str], wasted: list[str]) -> AuditFinding:
    amounts = ", ".join(f"{_set_amount(r, state.nominal((flavor, r)))} {r}" for r in wasted)
    missing = " or ".join(zero)
    return _finding(
        UNUSABLE_QUOTA, _cq_object(state.name),
        f"flavor {flavor} of ClusterQueue {state.name} has {amounts} but can never provide any {missing} "
        f"(nominal and borrowable are 0): only workloads requesting no {missing} can use it",
        f"give flavor {flavor} quota for {missing}, or move {', '.join(wasted)} to a resource group of its own")


# AUDIT-NEVER-FITS -------------------------------------------------------------------------------------


def never_fits(context: _Context) -> Iterator[AuditFinding]:
    """XO-5 and XO-9: a queued workload that can never be admitted, whatever finishes: simulate's own check
    (verdict.never_reasons), on the workloads queued in the snapshot and past the checks before any flavor (CYC-4;
    a namespace the ClusterQueue does not admit has its own finding)."""
    sim = context.sim
    queued = [(workload.key, state) for name, state in sorted(context.cache.cluster_queues.items())
              for workload in context.queued(name) if sim.scheduler.nomination_failure(workload, name) is None]
    never = never_reasons(sim, queued)
    for key, state in queued:
        if key in never:
            yield _finding(
                NEVER_FITS, f"Workload/{key}", f"can never be admitted in ClusterQueue {state.name}: {never[key]}",
                "shrink the workload, or raise nominalQuota/borrowingLimit (or add quota to the cohort), or let it "
                "use a flavor (tolerations, node selection)")


# AUDIT-NO-BORROWING -----------------------------------------------------------------------------------


def no_borrowing(context: _Context) -> Iterator[AuditFinding]:
    """Q-6: a cohort none of whose ClusterQueues can ever use more than its nominal quota; only the
    highest such cohort of a tree is reported (its sub-cohorts follow)."""
    cache = context.cache
    flagged: set[str] = set()
    for node in (n for n in _all_nodes(cache) if n.is_cohort):
        blockers = _borrow_blockers(cache, node)
        if blockers is None:
            continue
        flagged.add(node.name)
        if any(a.name in flagged or _borrow_blockers(cache, a) is not None for a in node.ancestors()):
            continue
        yield _finding(
            NO_BORROWING, f"Cohort/{node.name}",
            f"no ClusterQueue of cohort {node.name} can ever borrow: {blockers}",
            "let members lend (lendingLimit above 0) or give the cohort quota of its own, and keep borrowingLimit "
            "above 0; or drop the cohort")


def _borrow_blockers(cache: QuotaCache, cohort: QuotaNode) -> str | None:
    """Why no member can borrow, or None when some member can (or there is nothing to borrow for)."""
    reasons: set[str] = set()
    for state in _subtree_queues(cache, cohort):
        for fr, limits in state.node.quotas.items():
            if potential(state.node, fr) > limits.nominal:
                return None
            if limits.borrowing_limit == 0 and lendable_from_tree(state.node, fr) > 0:
                reasons.add("borrowingLimit is 0")
            else:
                reasons.add("nothing in the cohort is lent to them (lendingLimit 0, or no other quota)")
    return " and ".join(sorted(reasons)) if reasons else None


# AUDIT-UNUSED-FLAVOR ----------------------------------------------------------------------------------


def unused_flavors(snapshot: Snapshot) -> Iterator[AuditFinding]:
    used = {f for cq in snapshot.cluster_queues.values() for f in cq.flavors}
    for name in sorted(set(snapshot.resource_flavors) - used):
        cohorts = sorted(c.name for c in snapshot.cohorts.values() if any(fq.name == name for fq in c.flavor_quotas))
        extra = f" (only Cohort {', '.join(cohorts)} lists it, which no workload can use)" if cohorts else ""
        yield _finding(
            UNUSED_FLAVOR, f"ResourceFlavor/{name}",
            f"no ClusterQueue lists ResourceFlavor {name}: no workload can be admitted on it{extra}",
            "add it to a ClusterQueue's resource group, or delete it (and free the nodes it selects)")


# AUDIT-UNFED-CLUSTERQUEUE -----------------------------------------------------------------------------


def unfed_cluster_queues(context: _Context) -> Iterator[AuditFinding]:
    """XO-4, XO-6: a ClusterQueue receives workloads only from running LocalQueues in namespaces it admits."""
    for name, state in sorted(context.cache.cluster_queues.items()):
        local_queues = context.local_queues_of(name)
        if any(_feeds(context.snapshot, lq, state.model) for lq in local_queues):
            continue
        if local_queues:
            keys = ", ".join(lq.key for lq in local_queues)
            message = (f"ClusterQueue {name} gets no workloads: its LocalQueues ({keys}) are stopped or in "
                       "namespaces it does not admit")
        else:
            message = f"no LocalQueue points to ClusterQueue {name}: nobody can submit workloads to it"
        if state.model.cohort:
            message += f" (cohort {state.model.cohort} can still borrow its unused quota)"
        yield _finding(UNFED_CLUSTERQUEUE, _cq_object(name), message,
                       "create a LocalQueue for it in a namespace its namespaceSelector matches, or delete it")


def _feeds(snapshot: Snapshot, lq: LocalQueue, model: ClusterQueue) -> bool:
    return lq.stop_policy == "None" and namespace_rejection(snapshot, model, lq.namespace) is None


# AUDIT-NAMESPACE-NOT-ADMITTED -------------------------------------------------------------------------


@dataclass(frozen=True)
class Rejection:
    """Why a ClusterQueue turns away every workload of a namespace, and the message Kueue then gives."""

    reason: str
    kueue_message: str


SELECTOR_MISMATCH = "workload namespace doesn't match ClusterQueue selector"


def namespace_rejection(snapshot: Snapshot, model: ClusterQueue, namespace: str) -> Rejection | None:
    """REQ-15 as the scheduler checks it: the namespace must exist (when the inputs hold namespaces) and
    match the namespaceSelector (XO-6); a nil selector matches nothing (DEF-2)."""
    labels: Mapping[str, str] = {}
    if snapshot.namespaces is not None:
        found = snapshot.namespaces.get(namespace)
        if found is None:
            return Rejection(f"Namespace {namespace} is not in the inputs",
                             f'workload namespace "{namespace}" does not exist: namespaces "{namespace}" not found')
        labels = found.labels
    if model.namespace_selector is None:
        return Rejection(f"ClusterQueue {model.name} has no namespaceSelector, which matches no namespace (DEF-2)",
                         SELECTOR_MISMATCH)
    if not selector_matches(model.namespace_selector, namespace_labels(namespace, labels)):
        return Rejection(f"the namespaceSelector of ClusterQueue {model.name} does not match it (XO-6)",
                         SELECTOR_MISMATCH)
    return None


def namespaces_not_admitted(snapshot: Snapshot) -> Iterator[AuditFinding]:
    """One finding per namespace and ClusterQueue, naming the LocalQueues that lead nowhere."""
    by_target: dict[tuple[str, str], list[str]] = {}
    for lq in snapshot.local_queues.values():
        if lq.cluster_queue in snapshot.cluster_queues:
            by_target.setdefault((lq.namespace, lq.cluster_queue), []).append(lq.name)
    for (namespace, target), names in sorted(by_target.items()):
        rejection = namespace_rejection(snapshot, snapshot.cluster_queues[target], namespace)
        if rejection is None:
            continue
        queues = ", ".join(sorted(names))
        yield _finding(
            NAMESPACE_NOT_ADMITTED, f"Namespace/{namespace}",
            f"LocalQueue {queues} in namespace {namespace} feeds ClusterQueue {target}, which does not admit "
            f"the namespace: {rejection.reason}; every workload fails with \"{rejection.kueue_message}\"",
            "label the namespace or widen the ClusterQueue's namespaceSelector")


__all__ = ["AuditFinding", "AuditNode", "AuditReport", "PendingDemand", "ResourceRow", "audit"]
