"""Queue priorities and sibling order for ``explain --queue`` (spec §6 P1-P4, §7.1).

Along the path from root to a queue: each queue's raw priority (P3: its applications' or children's
maximum), offset and policy, and what it reports to its siblings (P4: the offset alone when fenced, MIN when
nothing is pending, else raw + offset clamped to int32). At each level, the children with something pending in
YuniKorn's order (§7.1) and which neighbours YuniKorn could have ordered either way (a tie: upstream a Go
map's order decides, kqctl orders them by name).
"""

from __future__ import annotations

from dataclasses import dataclass

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine import sorting
from kqctl.yunikorn.engine.objects import REJECTED
from kqctl.yunikorn.engine.partition import Partition, leaf_path
from kqctl.yunikorn.engine.queue import MAX_PRIORITY, MIN_PRIORITY, Queue


@dataclass(frozen=True)
class QueuePriority:
    """P3/P4 of one queue."""

    path: str
    leaf: bool
    raw: int  # P3: the maximum of its applications' (leaf) or children's reported (parent) priorities
    source: str  # what raw comes from: the application or child holding the maximum
    offset: int
    policy: str  # default or fence
    reported: int  # P4
    rule: str  # which case of P4 applied
    sort_policy: str
    priority_sort: bool


@dataclass(frozen=True)
class SiblingEntry:
    name: str
    path: str
    priority: int
    share: float
    pending: Resource
    tie_with_next: bool


@dataclass(frozen=True)
class Level:
    """The children of one parent on the path, in the order YuniKorn tries them."""

    parent: str
    order: tuple[SiblingEntry, ...]
    considers_priority: bool  # the parent's application.sort.priority: priority first, else fair share first


@dataclass(frozen=True)
class RejectedApp:
    """An application placement refused that asked for this queue or one below it (or any, for root)."""

    app_id: str
    pods: tuple[str, ...]
    requested: str
    reason: str


@dataclass(frozen=True)
class QueueReport:
    path: str
    chain: tuple[QueuePriority, ...]  # root first
    levels: tuple[Level, ...]  # root's children first
    settings: dict[str, object]
    rejected: tuple[RejectedApp, ...] = ()


def queue_priority(partition: Partition, queue: Queue) -> QueuePriority:
    settings = queue.settings
    raw = queue.raw_priority
    if queue.leaf:
        holders = [(app.ask_max_priority(), app.app_id) for app in partition.leaf_apps.get(queue.path, [])]
    else:
        holders = [(child.reported_priority(), child.name) for child in queue.children.values()]
    best = [name for value, name in holders if value == raw and raw != MIN_PRIORITY]
    source = (f"{'application' if queue.leaf else 'child'} {sorted(best)[0]}" if best else
              "nothing pending")
    reported = queue.reported_priority()
    if raw == MIN_PRIORITY:
        rule = "nothing pending: reports MIN, fenced or not (YK-P4)"
    elif settings.priority_policy == props.FENCE:
        rule = f"fenced: reports its offset {settings.priority_offset}, whatever is pending below (YK-P4)"
    elif raw + settings.priority_offset > MAX_PRIORITY or raw + settings.priority_offset < MIN_PRIORITY:
        rule = f"{raw} + offset {settings.priority_offset} clamped to int32 (YK-P4)"
    else:
        rule = f"{raw} + offset {settings.priority_offset} (YK-P4)"
    return QueuePriority(queue.path, queue.leaf, raw, source, settings.priority_offset, settings.priority_policy,
                         reported, rule, settings.sort_policy, settings.priority_sort_enabled)


def sibling_order(partition: Partition, parent: Queue) -> Level:
    """§7.1 ``sortQueues``: children with pending resources; parents always sort fair."""
    entries = [sorting.QueueEntry(child.name, child.reported_priority(), child.allocated, child.guaranteed,
                                  partition.fair_max.get(child.path), child.pending, child)
               for child in parent.children.values() if res.strictly_greater_than_zero(child.pending)]
    consider = parent.settings.priority_sort_enabled
    ordered = sorting.sort_queues(entries, consider)
    ties = sorting.tied_with_next(ordered, sorting.queue_less(consider))
    return Level(parent.path, tuple(SiblingEntry(e.name, e.item.path if e.item else e.name, e.priority, e.share,
                                                 dict(e.pending), tie) for e, tie in zip(ordered, ties, strict=True)),
                 consider)


def queue_report(partition: Partition, path: str) -> QueueReport:
    """Everything ``explain --queue`` shows for the queue at ``path``."""
    queue = partition.tree.get(path)
    if queue is None:
        raise KeyError(path)
    chain = tuple(queue_priority(partition, q) for q in queue.path_from_root())
    levels = tuple(sibling_order(partition, q) for q in queue.path_from_root() if not q.leaf)
    settings = queue.settings
    return QueueReport(queue.path, chain, levels, settings={
        props.SORT_POLICY: settings.sort_policy if queue.leaf else "fair (parent)",
        props.SORT_PRIORITY: "enabled" if settings.priority_sort_enabled else "disabled",
        props.PRIORITY_POLICY: settings.priority_policy,
        props.PRIORITY_OFFSET: settings.priority_offset,
        props.PREEMPTION_POLICY: settings.preemption_policy,
        props.PREEMPTION_DELAY: props.format_duration(settings.preemption_delay),
    }, rejected=rejected_apps(partition, queue))


def rejected_apps(partition: Partition, queue: Queue) -> tuple[RejectedApp, ...]:
    """Applications refused (placement or AddApplication) that named this queue or one below it; at root, all:
    their pods are pending nowhere, so the priorities above do not show them."""
    found = []
    for app in sorted(partition.apps.values(), key=lambda a: a.app_id):
        if app.state != REJECTED:
            continue
        requested = leaf_path(app.requested_queue.lower()) if app.requested_queue else ""
        if queue.parent is not None and requested != queue.path and not requested.startswith(queue.path + "."):
            continue
        reason = f"{app.rejected} ({app.passed_over})" if app.passed_over else app.rejected
        found.append(RejectedApp(app.app_id, tuple(ask.key for ask in app.asks), requested, reason))
    return tuple(found)
