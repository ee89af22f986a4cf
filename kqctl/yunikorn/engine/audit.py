"""``kqctl audit`` for YuniKorn: the queue tree with guaranteed, max, allocated, pending and fair share per
resource type, and what costs capacity or time without being an error.

Nothing is scheduled: allocated is what bound pods hold now, pending what the placed pods ask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine.inadmissible import NeverFits
from kqctl.yunikorn.engine.objects import REJECTED
from kqctl.yunikorn.engine.partition import Partition, amount_text, build_partition
from kqctl.yunikorn.engine.queue import Queue


@dataclass(frozen=True)
class QueueRow:
    path: str
    depth: int
    leaf: bool
    managed: bool
    guaranteed: Resource | None
    max: Resource | None
    effective_max: Resource | None  # the smallest max up the path (the root's is the cluster)
    allocated: Resource
    pending: Resource
    share: float
    priority_policy: str
    offset: int


@dataclass(frozen=True)
class AuditFinding:
    rule: str  # YK-AUDIT-...
    severity: str  # error, warning or info: the catalogue's severity of the rule
    queue: str
    message: str


@dataclass(frozen=True)
class AuditReport:
    config: str
    cluster: Resource
    queues: tuple[QueueRow, ...]
    findings: tuple[AuditFinding, ...]
    rejected: tuple[str, ...]  # pods placement refused
    namespaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # namespace -> its pods' queues


def audit(snapshot: Snapshot) -> AuditReport:
    partition = build_partition(snapshot)
    rows = tuple(_row(partition, queue) for queue in partition.tree.queues())
    findings = [*_guarantees(partition), *_over_max(partition), *_never_fitting_pods(partition), *_fences(partition),
                *_config_lints(partition), *_preemption(partition)]
    refused = sorted((app for app in partition.apps.values() if app.state == REJECTED), key=lambda a: a.app_id)
    rejected = tuple(sorted(ask.key for app in refused for ask in app.asks))
    if rejected:
        findings.append(AuditFinding("YK-AUDIT-REJECTED", "warning", "root",
                                     f"{len(rejected)} pod(s) YuniKorn rejects: no placement rule takes them or their "
                                     f"queue refuses them (e.g. {refused[0].asks[0].key}: {refused[0].rejected})"))
    namespaces: dict[str, set[str]] = {}
    for app in partition.apps.values():
        if app.queue is not None:
            namespaces.setdefault(app.namespace, set()).add(app.queue.path)
    return AuditReport(snapshot.config.description, partition.tree.root.max or {}, rows, tuple(findings), rejected,
                       {ns: tuple(sorted(q)) for ns, q in sorted(namespaces.items())})


def for_namespace(report: AuditReport, namespace: str) -> AuditReport:
    """``audit -n``: the queues the namespace's pods are placed in, with the queues above them (their max and
    guaranteed bound them), and the findings about those queues."""
    kept: set[str] = set()
    for path in report.namespaces.get(namespace, ()):
        parts = path.split(".")
        kept.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return replace(report, queues=tuple(q for q in report.queues if q.path in kept),
                   findings=tuple(f for f in report.findings if f.queue in kept))


def _row(partition: Partition, queue: Queue) -> QueueRow:
    return QueueRow(queue.path, queue.depth, queue.leaf, queue.managed, queue.guaranteed, queue.max,
                    partition.max_of(queue), dict(queue.allocated), res.prune(queue.pending) or {},
                    res.fair_share(queue.allocated, queue.guaranteed, partition.fair_max.get(queue.path)),
                    queue.settings.priority_policy, queue.settings.priority_offset)


def effective_guaranteed(queue: Queue) -> Resource:
    """A queue's own guaranteed, or the sum of its children's (as the validator counts it, V12)."""
    if queue.guaranteed:
        return dict(queue.guaranteed)
    total: Resource = {}
    for child in queue.children.values():
        total = res.add(total, effective_guaranteed(child))
    return total


def _guarantees(partition: Partition) -> list[AuditFinding]:
    """Guaranteed above what can be given: a parent's max (dynamic queues are never validated), the cluster."""
    found = []
    for queue in partition.tree.queues():
        if queue.leaf:
            continue
        children: Resource = {}
        for child in queue.children.values():
            children = res.add(children, effective_guaranteed(child))
        limit = partition.max_of(queue)
        for name, value in sorted(children.items()):
            bound = (limit or {}).get(name)
            if bound is not None and value > bound:
                top = queue.parent is None
                where = f"the cluster has ({amount_text(name, bound)})" if top else \
                    f"its max ({amount_text(name, bound)})"
                found.append(AuditFinding(
                    "YK-AUDIT-GUARANTEED-OVER-CLUSTER" if top else "YK-AUDIT-GUARANTEED-OVER-MAX", "warning",
                    queue.path, f"the children of {queue.path} are guaranteed {amount_text(name, value)} {name}, more "
                    f"than {where}: not every guarantee can be met at once, and preemption cannot give what is not "
                    "there"))
    return found


def _over_max(partition: Partition) -> list[AuditFinding]:
    """A queue holding more than its own max (a max lowered under running pods, pods bound before YuniKorn saw
    them): its headroom is negative, so nothing more is allocated in it or below it (``getHeadRoom``, G3) until
    pods finish. Quota preemption (``quota_preemptor.go``) takes it back down only when the partition enables it
    and the queue sets a delay."""
    found = []
    for queue in partition.tree.queues():
        over = sorted(name for name, limit in (queue.max or {}).items() if queue.allocated.get(name, 0) > limit)
        if not over:
            continue
        amounts = ", ".join(f"{name} {amount_text(name, queue.allocated[name])} of max "
                            f"{amount_text(name, (queue.max or {})[name])}" for name in over)
        below = " or below it" if not queue.leaf else ""
        found.append(AuditFinding(
            "YK-AUDIT-OVER-MAX", "warning", queue.path,
            f"holds more than its max ({amounts}): nothing more is allocated in it{below} until running pods "
            f"finish and bring it under max; {_quota_preemption(partition, queue)}"))
    return found


def _quota_preemption(partition: Partition, queue: Queue) -> str:
    enabled = bool(partition.conf.preemption.quotapreemptionenabled)
    delay = queue.settings.quota_preemption_delay
    if enabled and delay > 0:
        wait = f"{delay // 1_000_000_000}s" if delay % 1_000_000_000 == 0 else f"{delay // 1_000_000}ms"
        return f"quota preemption takes it back under max after {wait} (quota.preemption.delay)"
    return ("YuniKorn does not preempt to enforce a max here (quota preemption needs the partition's "
            "preemption.quotapreemptionenabled: true and the queue's quota.preemption.delay)")


def _never_fitting_pods(partition: Partition) -> list[AuditFinding]:
    """A pending pod that can never get in as configured: simulate's own answer (``inadmissible.NeverFits``, which
    reads only what no cycle changes: maxes up the path, user and group limits, node totals and predicates), so
    audit names exactly the pods simulate calls inadmissible."""
    never = NeverFits(partition)
    found = []
    for path, apps in sorted(partition.leaf_apps.items()):
        for app in apps:
            if app.state == REJECTED:
                continue
            for ask in sorted(app.asks, key=lambda a: a.key):
                why = never(ask) if not ask.allocated else ""
                if why:
                    found.append(AuditFinding("YK-AUDIT-NEVER-FITS", "warning", path,
                                              f"{ask.key} can never get in as configured: {why}"))
    return found


def _fences(partition: Partition) -> list[AuditFinding]:
    """A fenced queue always reports its offset: a fenced sibling with a higher offset goes first whenever it has
    anything pending, so the lower one runs first only while that sibling is idle."""
    found = []
    for parent in partition.tree.queues():
        fenced = [(child.settings.priority_offset, child.name) for child in parent.children.values()
                  if child.settings.priority_policy == props.FENCE]
        for offset, name in fenced:
            higher = sorted(other for o, other in fenced if o > offset)
            if higher:
                found.append(AuditFinding("YK-AUDIT-FENCED-BEHIND", "info", f"{parent.path}.{name}",
                                          f"fenced with offset {offset}: behind fenced {', '.join(higher)} (higher "
                                          "offsets) whenever they have anything pending, whatever its pods' priority"))
    return found


def _config_lints(partition: Partition) -> list[AuditFinding]:
    """What validate's V24 and V25 say, seen from the queue tree: limits on names pods never ask for, and
    zero-only maps (no limit at all)."""
    found = []
    for queue in partition.tree.queues():
        conf = queue.conf
        if conf is None:
            continue
        for label, values in (("guaranteed", conf.resources.guaranteed), ("max", conf.resources.max)):
            names = sorted(values.values) if values else []
            for name in names:
                meant = res.kubectl_name(name) or res.near_miss(name)
                if meant is not None:
                    found.append(AuditFinding("YK-V24", "warning", queue.path, f"{label} {name} limits nothing: "
                                              f"pods ask for {meant}"))
            if values and values.values and (queue.max if label == "max" else queue.guaranteed) is None:
                found.append(AuditFinding("YK-V25", "warning", queue.path, f"{label} has only zero values: "
                                          "YuniKorn ignores it (no limit at all)"))
    return found


def _preemption(partition: Partition) -> list[AuditFinding]:
    if partition.preemption_enabled and not any(q.guaranteed for q in partition.tree.queues()):
        return [AuditFinding("YK-AUDIT-NO-GUARANTEE", "info", "root",
                             "preemption is enabled but no queue has guaranteed resources: YuniKorn preempts only to "
                             "give a queue its guaranteed resources, so it never preempts here")]
    return []
