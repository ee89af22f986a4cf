"""The quota report of a Volcano cluster as it is now (nothing is scheduled): per queue, in tree order, what it
is given and what it uses, and the settings that cost money or time without being errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kqctl.volcano.api.models import ROOT_QUEUE, Pod
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Resource
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import queue_state
from kqctl.volcano.engine.inadmissible import NodeKinds, missing_group_message, never_runs
from kqctl.volcano.engine.report import QueueReport, queue_reports
from kqctl.volcano.engine.session import World, run_session
from kqctl.volcano.engine.simulation import initial_world


@dataclass(frozen=True)
class AuditFinding:
    rule_id: str
    severity: str
    subject: str  # a queue name, or namespace/podgroup
    message: str
    hint: str


@dataclass(frozen=True)
class QueueRow:
    report: QueueReport
    depth: int  # 0 for queues directly under root


@dataclass(frozen=True)
class AuditReport:
    rows: tuple[QueueRow, ...]
    findings: tuple[AuditFinding, ...]
    quota_plugin: str
    conf_source: str
    cluster: Resource
    notes: tuple[str, ...]
    namespaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # namespace -> its PodGroups' queues


def audit(snapshot: Snapshot) -> AuditReport:
    """The attributes a session computes when it opens (no action runs), for every queue, and the findings."""
    quiet = replace(snapshot, conf=replace(snapshot.conf, actions=()))
    world = initial_world(snapshot)
    opened = run_session(quiet, world)
    reports = queue_reports(snapshot, world, opened.quota, opened.quota_plugin == "capacity (hierarchical)",
                            opened.hdrf)
    cluster = Resource()
    for node in snapshot.nodes.values():
        if node.ready:
            cluster.add(Resource.of(node.allocatable))
    rows = tuple(_tree_order(reports))
    findings = _findings(snapshot, reports, cluster, opened.quota_plugin)
    above_cluster = {f.subject for f in findings if f.rule_id == "VC-AUDIT-NEVER-FITS"}  # said already, more plainly
    findings += _never_fits(snapshot, world, reports, above_cluster)
    namespaces: dict[str, set[str]] = {}
    for group in snapshot.pod_groups.values():
        namespaces.setdefault(group.namespace, set()).add(group.queue)
    return AuditReport(rows, tuple(findings), opened.quota_plugin, snapshot.conf.source, cluster,
                       tuple(snapshot.notes), {ns: tuple(sorted(q)) for ns, q in sorted(namespaces.items())})


def for_namespace(report: AuditReport, namespace: str) -> AuditReport:
    """``audit -n``: the queues the namespace's PodGroups are in, with their ancestors (whose capability and
    guarantees bound them), and the findings about those queues or the namespace's PodGroups."""
    parents = {row.report.name: row.report.parent for row in report.rows}
    kept: set[str] = set()
    for name in report.namespaces.get(namespace, ()):
        while name and name != ROOT_QUEUE and name not in kept and name in parents:
            kept.add(name)
            name = parents[name]
    rows = tuple(row for row in report.rows if row.report.name in kept)
    findings = tuple(f for f in report.findings if f.subject in kept or f.subject.startswith(f"{namespace}/"))
    return replace(report, rows=rows, findings=findings)


def _tree_order(reports: list[QueueReport]) -> list[QueueRow]:
    by_name = {r.name: r for r in reports}
    rows: list[QueueRow] = []

    # Depth first, children in name order, without recursion: a tree may be thousands of levels deep.
    stack = [(name, 0) for name in reversed(by_name[ROOT_QUEUE].children if ROOT_QUEUE in by_name else ())]
    seen: set[str] = set()
    while stack:
        name, depth = stack.pop()
        if name in seen:
            continue  # a parent cycle (refused by the webhook) must not loop
        seen.add(name)
        report = by_name[name]
        rows.append(QueueRow(report, depth))
        stack.extend((child, depth + 1) for child in reversed(report.children) if child in by_name)
    placed = {row.report.name for row in rows}
    rows.extend(QueueRow(r, 0) for r in reports if r.name not in placed and r.name != ROOT_QUEUE)
    return rows


def _findings(snapshot: Snapshot, reports: list[QueueReport], cluster: Resource, plugin: str) -> list[AuditFinding]:
    found: list[AuditFinding] = []
    on_nodes = set(cluster.as_dict()) | {CPU, MEMORY, PODS}
    for report in reports:
        queue = snapshot.queues[report.name]
        # root's guarantee (hierarchical capacity sums its children's) holds nothing back from a sibling; a queue
        # with pending work is not idle: its guarantee is about to be used (its own work waits, not the others')
        pending_work = any(report.request.get(n) > report.allocated.get(n) for n in report.request.as_dict())
        for name in sorted(report.guarantee.as_dict() if report.name != ROOT_QUEUE and not pending_work else ()):
            unused = report.guarantee.get(name) - report.allocated.get(name)
            if name != PODS and unused > 0:
                found.append(AuditFinding(
                    "VC-AUDIT-IDLE-GUARANTEE", "warning", report.name,
                    f"guarantees {_text(name, report.guarantee.get(name))} {name} and uses "
                    f"{_text(name, report.allocated.get(name))}: {_text(name, unused)} is held back from the "
                    f"{'sibling' if report.parent != ROOT_QUEUE else 'other'} queues' real capability while "
                    "it sits idle",
                    "lower the guarantee to what the queue needs as a floor"))
        for name in sorted(queue.capability or {}):
            if name not in on_nodes:
                found.append(AuditFinding("VC-AUDIT-CAPABILITY-RESOURCE", "warning", report.name,
                                          f"capability names {name}, which no node has: it limits nothing",
                                          "a typo? compare with the nodes' allocatable"))
            elif name in (CPU, MEMORY) and (queue.capability or {})[name] <= 0:
                found.append(AuditFinding("VC-AUDIT-ZERO-CAPABILITY", "warning", report.name,
                                          f"capability {name} 0 is read as unlimited, not as closed",
                                          "close the queue instead, or give it a small positive capability"))
        if plugin == "proportion" and queue.deserved:
            found.append(AuditFinding("VC-AUDIT-DESERVED-IGNORED", "info", report.name,
                                      "deserved is ignored: proportion derives the deserved share from weight",
                                      "set weight, or switch to the capacity plugin to use deserved as written"))
        for name in (CPU, MEMORY):
            pending = report.request.get(name) - report.allocated.get(name)
            if report.real_capability.get(name) <= 0 < pending:
                found.append(AuditFinding("VC-AUDIT-STARVED", "warning", report.name,
                                          f"real capability for {name} is 0: the other queues' guarantees take the "
                                          "whole cluster, so its pending work can never start",
                                          "lower the other queues' guarantees"))
    for key, group in sorted(snapshot.pod_groups.items()):
        if group.absent:
            found.append(AuditFinding("VC-POD-PG", "warning", key, missing_group_message(key),
                                      "create the PodGroup, or remove the annotation scheduling.k8s.io/group-name "
                                      "from its pods to have the podgroup controller make one"))
            continue
        if group.min_resources is None or group.queue not in snapshot.queues:
            continue
        too_big = sorted(n for n, v in group.min_resources.items()
                         if n != PODS and v > cluster.get(n) and (n in (CPU, MEMORY) or n in cluster.scalars))
        if too_big:
            found.append(AuditFinding("VC-AUDIT-NEVER-FITS", "warning", key,
                                      f"minResources ask more {', '.join(too_big)} than the whole cluster has: the "
                                      "PodGroup can never be enqueued", "lower minResources or minMember"))
    return found


def _never_fits(snapshot: Snapshot, world: World, reports: list[QueueReport],
                said: set[str]) -> list[AuditFinding]:
    """VC-NEVER-1 for the PodGroups not running now, by the checks that need no session's verdict (the same function
    simulate's neverFits comes from): a queue that is not Open (VC-QUEUE-STATE-1), minResources or the gang's pods
    above the queue's real capability, pods that fit no node. A missing PodGroup is VC-POD-PG above; a missing queue
    is the validate's. ``said``: PodGroups VC-AUDIT-NEVER-FITS names, left out unless their queue refuses them first
    (the gate they meet before their size matters)."""
    capabilities = {report.name: report.real_capability for report in reports}
    members: dict[str, list[Pod]] = {}
    for pod in world.pods.values():
        if pod.group:
            members.setdefault(f"{pod.namespace}/{pod.group}", []).append(pod)
    kinds = NodeKinds(snapshot)
    found = []
    for key, group in sorted(snapshot.pod_groups.items()):
        if group.absent or group.queue not in snapshot.queues or group.phase in ("Running", "Completed"):
            continue
        pods = sorted(members.get(key, ()), key=lambda p: p.key)
        if key in said and not queue_state.refusal(snapshot, group, group.phase, pods):
            continue
        never = never_runs(snapshot, group, False, None, capabilities.get(group.queue), pods, kinds)
        if never:
            found.append(AuditFinding("VC-NEVER-1", "warning", key, f"can never run as configured: {never}",
                                      "kqctl explain shows the gate and what would let it run"))
    return found


def _text(name: str, value: object) -> str:
    """An amount in kqctl's reading style, as the audit table prints it (kqctl.k8s.units)."""
    from kqctl.volcano.api.resource import human_amount

    return human_amount(name, value)  # type: ignore[arg-type]
