"""The bookkeeping a YuniKorn scheduling run shares between its cycles and its preemptions (yunikorn-core keeps
it on the partition and its queues): which asks failed and what would undo that, reservations, versions of the
sorted views, the caches preemption keeps; and what a cycle returns.

Split from ``allocation`` (the cycle) so that ``preemption`` needs only this, not the cycle that calls it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import sorting
from kqctl.yunikorn.engine.nodes import predicates_pass
from kqctl.yunikorn.engine.objects import REJECTED, Application, Ask, Node
from kqctl.yunikorn.engine.partition import RESERVATION_DELAY, Partition
from kqctl.yunikorn.engine.queue import Queue

ALLOCATED = "allocated"
ALLOCATED_RESERVED = "allocated-reserved"
RESERVED = "reserved"
PREEMPTED = "preempted"


@dataclass(frozen=True)
class CycleResult:
    kind: str
    ask: Ask
    node: str
    victims: tuple[Ask, ...] = ()


class Reservations:
    """The reserved asks in the order they reserved (a list's ``append``, ``remove``, ``in`` and iteration), also
    grouped by shape: a node that opens is checked once per shape, not once per reserved ask."""

    def __init__(self) -> None:
        self._asks: dict[Ask, None] = {}
        self.by_shape: dict[tuple[object, ...], dict[Ask, None]] = {}

    def append(self, ask: Ask) -> None:
        self._asks[ask] = None
        self.by_shape.setdefault(shape_of(ask), {})[ask] = None

    def remove(self, ask: Ask) -> None:
        del self._asks[ask]
        shape = shape_of(ask)
        group = self.by_shape[shape]
        del group[ask]
        if not group:
            del self.by_shape[shape]

    def __contains__(self, ask: object) -> bool:
        return ask in self._asks

    def __iter__(self) -> Iterator[Ask]:
        return iter(self._asks)

    def __len__(self) -> int:
        return len(self._asks)


class SchedulerState:
    """A partition under scheduling: what cycles and preemption attempts read and update."""

    def __init__(self, partition: Partition, remember_failures: bool = True) -> None:
        self.p = partition
        # False: retry every ask on every cycle, as YuniKorn does (slow; the reference the memo is tested against)
        self.remember = remember_failures
        self.active: dict[str, int] = {}
        self._chains: dict[str, list[str]] = {}  # a queue's path and its ancestors', for _add_active
        self._queue_cache: dict[str, tuple[int, list[Queue]]] = {}
        self._app_cache: dict[str, tuple[int, list[Application]]] = {}
        self._entry_cache: dict[str, tuple[int, sorting.QueueEntry[Queue] | None]] = {}
        self._share_cache: dict[Application, tuple[Resource, Resource | None, tuple[float, ...]]] = {}
        self.version: dict[str, int] = {}
        self.reserved = Reservations()
        # reserved asks for which something grew since they last failed: the nodes that opened for them
        # (None: anything may have changed, retry every node)
        self.reserved_dirty: dict[Ask, set[str] | None] = {}
        # failed asks by what would undo the failure
        self.blocked_quota: set[Ask] = set()  # queue or user headroom: quota given back
        # True: a quota release retries every ask a headroom stopped, and its reason says the headroom and the
        # preemption check as they are then (simulate and explain report reasons). False (a replay, which reports
        # none): only the asks whose retry can do more than write a reason again are retried
        # (``Scheduler.quota_released``); the others wait in ``blocked_headroom``.
        self.keep_reasons = True
        self.blocked_headroom: set[Ask] = set()
        self.blocked_nodes: dict[tuple[object, ...], set[Ask]] = {}  # no node fits: a node opening to that shape
        # asks a reservation's end let through to reserve the node (node_unreserved) and not retried yet
        self.reserve_candidates: set[Ask] = set()
        self.changes = 0  # counts releases and openings
        self.victim_cache: dict[tuple[object, ...], object] = {}
        self.failed_attempts: dict[tuple[object, ...], str] = {}
        # preemption attempts whose queue guarantees check failed, by state, leaf, priority and resources
        self.guarantees_failed: set[tuple[object, ...]] = set()
        self.leaf_victims: dict[tuple[object, ...], tuple[list[Ask], Resource]] = {}
        # preemption._candidates: a subtree's leaves with eligible victims, by its version (F2, F4)
        self.subtree_victims: dict[tuple[object, ...], list[tuple[Queue, list[Ask], Resource]]] = {}
        self.guarantee_cache: dict[tuple[object, ...], tuple[object, bool]] = {}
        # F3 per leaf (preemption._within_key): within its guaranteed, by the versions of the queues it depends on
        self.within_guaranteed: dict[tuple[object, ...], bool] = {}
        self.guaranteed_chains: dict[str, tuple[str, ...]] = {}
        self.victim_index: dict[int, tuple[object, Any]] = {}  # preemption._victim_index, by id(results)
        # preemption._groups_of: a leaf's victims by node, by id of the victims' list (kept while the leaf is)
        self.victim_groups: dict[int, tuple[list[Ask], dict[str, list[Ask]]]] = {}
        self._refresh_active()

    # --- which asks can still change anything ------------------------------------------------------------

    def _refresh_active(self) -> None:
        self.active = {queue.path: 0 for queue in self.p.tree.queues()}
        for path, apps in self.p.leaf_apps.items():
            count = sum(1 for app in apps if app.state != REJECTED for ask in app.asks if not ask.allocated)
            self._add_active(path, count)

    def _add_active(self, path: str, delta: int) -> None:
        chain = self._chains.get(path)
        if chain is None:  # the queue and its ancestors, once (queues are added, never removed or moved)
            chain = []
            queue = self.p.tree.get(path)
            while queue is not None:
                chain.append(queue.path)
                queue = queue.parent
            if chain:
                self._chains[path] = chain
        active = self.active
        for name in chain:
            active[name] += delta

    def block(self, ask: Ask, reason: str, kind: str = "") -> None:
        """The ask failed for ``reason``; it fails the same way until what ``kind`` names grows: "headroom" (queue or
        user headroom), "quota" (maxapplications: a running application ends, as quota is released), "nodes" (no
        node fits), "" (nothing in a snapshot undoes it)."""
        ask.failure = reason
        if ask.blocked or not self.remember:
            return
        ask.blocked = True
        assert ask.app.queue is not None
        self._add_active(ask.app.queue.path, -1)
        ask.blocked_kind = kind
        if kind == "quota" or (kind == "headroom" and self.keep_reasons):
            self.blocked_quota.add(ask)
        elif kind == "headroom":
            self.blocked_headroom.add(ask)
        elif kind == "nodes":
            self.blocked_nodes.setdefault(shape_of(ask), set()).add(ask)

    def unblock(self, ask: Ask) -> None:
        if self.reserve_candidates:
            self.reserve_candidates.discard(ask)  # something else may let it through: it must be retried
        if not ask.blocked or ask.allocated:
            return
        ask.blocked = False
        assert ask.app.queue is not None
        self._add_active(ask.app.queue.path, 1)

    def quota_released(self) -> None:
        """Quota was given back (a victim left): asks stopped by a headroom may fit now."""
        self.changes += 1
        for waiting in self.reserved:
            if waiting.waiting_quota:
                waiting.waiting_quota = False
                self.reserved_dirty[waiting] = None
        for ask in self.blocked_quota:
            self.unblock(ask)
        self.blocked_quota.clear()

    def node_opened(self, node: Node) -> None:
        """A node has more room for unreserved asks: those of a shape that fits it now may be placed."""
        self.changes += 1
        if node.reserved_by is not None:
            self.unblock(node.reserved_by)  # only the ask it is reserved for can use the room
            self.reserved_dirty.setdefault(node.reserved_by, set())
            return
        for group in self.reserved.by_shape.values():
            sample = next(iter(group))
            if node.schedulable and node.fits_total(sample.resource) and node.fits_available(sample.resource):
                for waiting in group:
                    opened = self.reserved_dirty.setdefault(waiting, set())
                    if opened is not None:
                        opened.add(node.name)
        for shape in list(self.blocked_nodes):
            asks = self.blocked_nodes[shape]
            if not asks:  # every ask of that shape was placed since (a reservation, or a replay's retry)
                del self.blocked_nodes[shape]
                continue
            sample = next(iter(asks))
            if node.schedulable and node.fits_total(sample.resource) and node.fits_available(sample.resource) \
                    and not predicates_pass(sample.pod, node):
                for ask in asks:
                    self.unblock(ask)
                del self.blocked_nodes[shape]

    def node_unreserved(self, node: Node) -> None:
        """YK-RESERVE: a node's reservation ended. Besides the asks it now has room for (``node_opened``), an old ask
        without a reservation that fits it by size may reserve it (yunikorn-core ``Application.tryNodes`` keeps the best
        node the ask fits by size, full or not, and reserves it), and the core retries every ask on every cycle: those
        that found no node to reserve when they failed (every node reserved, or none big enough) are retried."""
        if node.reserved_by is not None or not node.schedulable:
            return
        old_enough = self.p.now - RESERVATION_DELAY
        per_leaf: dict[str, int] = {}
        candidates = self.reserve_candidates
        for shape in list(self.blocked_nodes):
            asks = self.blocked_nodes[shape]
            sample = next(iter(asks), None)
            if sample is None or not node.fits_total(sample.resource) or predicates_pass(sample.pod, node):
                continue
            kept = set()
            for ask in asks:
                if ask.reserved_node or ask.created >= old_enough:
                    kept.add(ask)  # it holds a reservation, or is too young to reserve: a retry changes nothing
                elif ask.blocked:
                    ask.blocked = False
                    candidates.add(ask)
                    path = ask.app.queue.path  # type: ignore[union-attr]
                    per_leaf[path] = per_leaf.get(path, 0) + 1
            if kept:
                self.blocked_nodes[shape] = kept
            else:
                del self.blocked_nodes[shape]
        for path, count in per_leaf.items():  # once per leaf, not once per ask
            self._add_active(path, count)

    def every_node_reserved(self) -> None:
        """The last open node was just reserved: the asks ``node_unreserved`` let through and not retried yet would
        find every node reserved again, as when they failed, and fail the same way (a blocked ask's preemption
        preconditions fail until what unblocks it: E3 and E4 are undone by the replay's timers): blocked again without
        a retry."""
        per_leaf: dict[str, int] = {}
        blocked_nodes = self.blocked_nodes
        for ask in self.reserve_candidates:
            if ask.blocked or ask.allocated or ask.reserved_node:
                continue
            ask.blocked = True
            path = ask.app.queue.path  # type: ignore[union-attr]
            per_leaf[path] = per_leaf.get(path, 0) + 1
            shape = ask.shape or shape_of(ask)
            group = blocked_nodes.get(shape)
            if group is None:
                group = blocked_nodes[shape] = set()
            group.add(ask)
        for path, count in per_leaf.items():
            self._add_active(path, -count)
        self.reserve_candidates.clear()

    def _changed(self, queue: Queue) -> None:
        """Sorted orders that include ``queue`` or its ancestors are stale."""
        current: Queue | None = queue
        while current is not None:
            self.version[current.path] = self.version.get(current.path, 0) + 1
            current = current.parent

def shape_of(ask: Ask) -> tuple[object, ...]:
    """What decides where an ask fits: its resources and the pod's placement constraints."""
    if not ask.shape:
        pod = ask.pod
        ask.shape = (tuple(sorted(ask.resource.items())), tuple(sorted(pod.node_selector.items())),
                     repr(pod.affinity_terms), repr(pod.tolerations))
    return ask.shape


