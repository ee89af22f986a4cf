"""The bookkeeping a YuniKorn scheduling run shares between its cycles and its preemptions (yunikorn-core keeps
it on the partition and its queues): which asks failed and what would undo that, reservations, versions of the
sorted views, the caches preemption keeps; and what a cycle returns.

Split from ``allocation`` (the cycle) so that ``preemption`` needs only this, not the cycle that calls it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
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
REPLACED = "replaced"  # a real pod took a placeholder's place (YK-GANG-4): victims holds the placeholder
PLACEHOLDER_RELEASED = "placeholder-released"  # placeholders released, none replaced: victims holds them


# Groups of asks let out or let through kept before the first compaction (``_Groups``)
COMPACTED_AT = 256


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
        self.by_shape: dict[int, dict[Ask, None]] = {}

    def append(self, ask: Ask) -> None:
        self._asks[ask] = None
        self.by_shape.setdefault(shape_key(ask), {})[ask] = None

    def remove(self, ask: Ask) -> None:
        del self._asks[ask]
        shape = shape_key(ask)
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


class _Groups:
    """Asks kept by the leaf and shape they left their group from (``every_node_reserved`` puts them back group by
    group), for as long as ``still`` says of each. While some node stays open ``every_node_reserved`` never comes to
    take them, and every completion adds some: they are compacted (the asks no longer ``still`` dropped) whenever their
    number of groups has doubled since."""

    def __init__(self, still: Callable[[Ask], bool]) -> None:
        self._still = still
        self._groups: list[tuple[str, int, Collection[Ask]]] = []
        self._bound = COMPACTED_AT

    def add(self, path: str, shape: int, asks: Collection[Ask]) -> None:
        self._groups.append((path, shape, asks))
        if len(self._groups) > self._bound:
            self.compact()

    def compact(self) -> None:
        still = self._still
        kept: list[tuple[str, int, Collection[Ask]]] = []
        for path, shape, asks in self._groups:
            left = [ask for ask in asks if still(ask)]
            if left:
                kept.append((path, shape, left))
        self._groups = kept
        self._bound = 2 * len(kept) + COMPACTED_AT

    def take(self) -> list[tuple[str, int, Collection[Ask]]]:
        """Every group kept, and none kept any more."""
        groups, self._groups, self._bound = self._groups, [], COMPACTED_AT
        return groups

    def __bool__(self) -> bool:
        return bool(self._groups)

    def __iter__(self) -> Iterator[tuple[str, int, Collection[Ask]]]:
        return iter(self._groups)


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
        # no node fits: a node opening to that shape; by leaf, then shape (``shape_key``). An ask stays in its group
        # (``Ask.grouped``) until a node opening or a reservation's end lets it out, or it is allocated, even when
        # something else unblocked it meanwhile
        self.blocked_nodes: dict[str, dict[int, set[Ask]]] = {}
        self._shape_leaves: dict[int, set[str]] = {}  # the leaves with a group of each shape (node_opened's way in)
        self._shape_sample: dict[int, Ask] = {}  # an ask of each shape: what a shape needs of a node is the ask's
        # asks a reservation's end let through to reserve the node (node_unreserved) and not retried yet
        self.reserve_candidates: set[Ask] = set()
        # ... as they were let through, by leaf and shape (``every_node_reserved`` puts them back group by group)
        self._let_through = _Groups(lambda ask: ask in self.reserve_candidates)
        # Reservations' ends not yet applied to every leaf (YK-RESERVE, ``node_unreserved``): the node and the
        # creation time before which an ask may reserve it, in order; ``_applied``: how many of them a leaf has had.
        # A leaf gets them when anything is about to read or change its grouped asks (``_settle``), which on a full
        # cluster is mostly never: the first ask let through reserves the node again and ``every_node_reserved``
        # drops the rest, as the asks let through would have been blocked again without a retry.
        self._released: list[tuple[Node, int]] = []
        self._applied: dict[str, int] = {}
        self._unsettled: set[str] = set()  # leaves with grouped asks that may not have every release yet
        self._unsettled_below: dict[str, int] = {}  # per queue, how many of those leaves it holds (the walk's way in)
        self._loose: set[Ask] = set()  # grouped asks unblocked since
        # Without reasons: the groups a node's opening let out (leaf, shape, asks), each ask marked ``let_out`` until
        # it is retried (``Scheduler.every_node_reserved`` blocks again, group by group, those whose retry would change
        # nothing). Kept as the groups they were: a completion on a full cluster lets out thousands of asks, and most
        # go back to the group they came from.
        self.opened = _Groups(lambda ask: ask.let_out)
        self._fits_node: dict[tuple[str, int], bool] = {}  # a node's size and predicates for a shape never change
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

    def _chain(self, path: str) -> list[str]:
        """The queue's path and its ancestors' (queues are added, never removed or moved: worked out once)."""
        chain = self._chains.get(path)
        if chain is None:
            chain = []
            queue = self.p.tree.get(path)
            while queue is not None:
                chain.append(queue.path)
                queue = queue.parent
            if chain:
                self._chains[path] = chain
        return chain

    def _add_active(self, path: str, delta: int) -> None:
        active = self.active
        for name in self._chains.get(path) or self._chain(path):
            active[name] += delta

    def block(self, ask: Ask, reason: str, kind: str = "") -> None:
        """The ask failed for ``reason``; it fails the same way until what ``kind`` names grows: "headroom" (queue or
        user headroom), "quota" (maxapplications: a running application ends, as quota is released), "nodes" (no
        node fits), "" (nothing in a snapshot undoes it)."""
        ask.failure = reason
        ask.let_out = False
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
        elif kind == "nodes" and not ask.grouped:
            self._group(ask)
        if ask.grouped:
            self._loose.discard(ask)

    def _group(self, ask: Ask) -> None:
        self._group_of(ask.app.queue.path, shape_key(ask), ask).add(ask)  # type: ignore[union-attr]
        ask.grouped = True

    def _group_of(self, path: str, shape: int, sample: Ask) -> set[Ask]:
        """The leaf's group of asks of that shape no node fits (a new one: ``sample`` stands for its shape)."""
        leaf = self.blocked_nodes.get(path)
        if leaf is None:
            leaf = self.blocked_nodes[path] = {}
        group = leaf.get(shape)
        if group is None:
            group = leaf[shape] = set()
            self._shape_sample.setdefault(shape, sample)
            self._shape_leaves.setdefault(shape, set()).add(path)
        return group

    def _drop_group(self, path: str, leaf: dict[int, set[Ask]], shape: int) -> None:
        """The leaf's group of that shape is empty now."""
        del leaf[shape]
        if not leaf:
            del self.blocked_nodes[path]
        leaves = self._shape_leaves[shape]
        leaves.discard(path)
        if not leaves:
            del self._shape_leaves[shape]

    def ungroup(self, ask: Ask) -> None:
        """The ask leaves its group (it was allocated)."""
        if not ask.grouped:
            return
        ask.grouped = False
        self._loose.discard(ask)
        path = ask.app.queue.path  # type: ignore[union-attr]
        leaf = self.blocked_nodes[path]
        group = leaf[ask.shape_id]
        group.discard(ask)
        if not group:
            self._drop_group(path, leaf, ask.shape_id)

    def retire(self, ask: Ask) -> None:
        """The ask is pending no more (allocated, or withdrawn): out of the count of asks to retry, its group of
        asks no node fits, and the sets of failed asks."""
        assert ask.app.queue is not None
        if not ask.blocked:
            self._add_active(ask.app.queue.path, -1)
        ask.blocked = False
        self.ungroup(ask)
        self.blocked_quota.discard(ask)
        self.blocked_headroom.discard(ask)
        ask.let_out = False

    def unblock(self, ask: Ask) -> None:
        if self._released:
            self._settle(ask.app.queue.path)  # type: ignore[union-attr]
        if self.reserve_candidates:
            self.reserve_candidates.discard(ask)  # something else may let it through: it must be retried
        if not ask.blocked or ask.allocated:
            return
        ask.blocked = False
        assert ask.app.queue is not None
        self._add_active(ask.app.queue.path, 1)
        if ask.grouped:
            self._loose.add(ask)

    def quota_released(self) -> None:
        """Quota was given back (a victim left): asks stopped by a headroom may fit now."""
        self._settle_all()
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
        self._settle_all()
        self.changes += 1
        if node.reserved_by is not None:
            self.unblock(node.reserved_by)  # only the ask it is reserved for can use the room
            self.reserved_dirty.setdefault(node.reserved_by, set())
            return
        for group in self.reserved.by_shape.values():
            sample = next(iter(group))
            if node.schedulable and node.fits_total(sample.resource) and node.fits_available(sample.resource):
                for waiting in group:
                    nodes_opened = self.reserved_dirty.setdefault(waiting, set())
                    if nodes_opened is not None:
                        nodes_opened.add(node.name)
        samples = self._shape_sample
        blocked_nodes = self.blocked_nodes
        track = not self.keep_reasons
        for shape in list(self._shape_leaves):
            sample = samples[shape]
            if not (node.schedulable and node.fits_total(sample.resource) and node.fits_available(sample.resource)
                    and not predicates_pass(sample.pod, node)):
                continue
            for path in self._shape_leaves.pop(shape):
                leaf = blocked_nodes[path]
                self._let_out(path, shape, leaf.pop(shape), track)
                if not leaf:
                    del blocked_nodes[path]

    def _let_out(self, path: str, shape: int, asks: set[Ask], track: bool) -> None:
        """A group of the leaf's asks leaves the blocked ones (``unblock`` for each, the leaf's count changed once).
        ``track``: remember them as let out and not retried."""
        if self._released:
            self._settle(path)  # as unblock does (node_opened settled every leaf already: nothing left, as a rule)
        candidates, loose = self.reserve_candidates, self._loose
        count = 0
        for ask in asks:
            ask.grouped = False
            ask.let_out = track
            if candidates:
                candidates.discard(ask)  # something else may let it through: it must be retried
            if not ask.blocked:
                loose.discard(ask)
            elif not ask.node:  # not allocated
                ask.blocked = False
                count += 1
        if count:
            self._add_active(path, count)
        if track:
            self.opened.add(path, shape, asks)

    def node_unreserved(self, node: Node) -> None:
        """YK-RESERVE: a node's reservation ended. Besides the asks it now has room for (``node_opened``), an old ask
        without a reservation that fits it by size may reserve it (yunikorn-core ``Application.tryNodes`` keeps the best
        node the ask fits by size, full or not, and reserves it), and the core retries every ask on every cycle: those
        that found no node to reserve when they failed (every node reserved, or none big enough) are retried.

        Which asks those are is worked out leaf by leaf when the walk (or anything else) comes to the leaf
        (``_settle``); until then the leaf counts as holding some (``_unsettled_below``)."""
        if node.reserved_by is not None or not node.schedulable or not self.blocked_nodes:
            return
        self._released.append((node, self.p.now - RESERVATION_DELAY))
        unsettled = self._unsettled
        below = self._unsettled_below
        for path in self.blocked_nodes:
            if path not in unsettled:
                unsettled.add(path)
                for name in self._chains.get(path) or self._chain(path):
                    below[name] = below.get(name, 0) + 1

    def _settle(self, path: str) -> None:
        """Apply to the leaf's grouped asks the reservations' ends it has not had yet, as ``node_unreserved`` would
        have then: every ask of a shape that fits the node by size lets go of its group, unless it holds a reservation
        or is too young to reserve (a retry changes nothing then); those still blocked are let through."""
        released = self._released
        start = self._applied.get(path, 0)
        if start == len(released):
            return
        self._applied[path] = len(released)
        if path in self._unsettled:
            self._unsettled.discard(path)
            below = self._unsettled_below
            for name in self._chains.get(path) or self._chain(path):
                below[name] -= 1
        leaf = self.blocked_nodes.get(path)
        if leaf is None:
            return
        candidates = self.reserve_candidates
        fits_node = self._fits_node
        samples = self._shape_sample
        let_through = 0
        for node, old_enough in released[start:]:
            for shape in list(leaf):
                takes = fits_node.get((node.name, shape))
                if takes is None:
                    sample = samples[shape]
                    takes = fits_node[(node.name, shape)] = node.fits_total(sample.resource) \
                        and not predicates_pass(sample.pod, node)
                if not takes:
                    continue
                kept = set()
                through = []
                for ask in leaf[shape]:
                    if ask.reserved_node or ask.created >= old_enough:
                        kept.add(ask)  # it holds a reservation, or is too young to reserve: a retry changes nothing
                        continue
                    ask.grouped = False
                    if ask.blocked:
                        ask.blocked = False
                        candidates.add(ask)
                        through.append(ask)
                    else:
                        self._loose.discard(ask)
                if through:
                    self._let_through.add(path, shape, through)
                    let_through += len(through)
                if kept:
                    leaf[shape] = kept
                else:
                    self._drop_group(path, leaf, shape)
                    if not leaf:
                        break
        if let_through:
            self._add_active(path, let_through)

    def _settle_all(self) -> None:
        if self._released:
            for path in list(self._unsettled):
                self._settle(path)

    def every_node_reserved(self) -> None:
        """The last open node was just reserved: the asks ``node_unreserved`` let through and not retried yet would
        find every node reserved again, as when they failed, and fail the same way (a blocked ask's preemption
        preconditions fail until what unblocks it: E3 and E4 are undone by the replay's timers): blocked again without
        a retry. Leaves not settled since need nothing more (their asks would be let through and blocked again), but
        for the grouped asks something else had unblocked: the reservation's end let go of those."""
        if self._released:
            for ask in list(self._loose):
                self._settle(ask.app.queue.path)  # type: ignore[union-attr]
            self._released = []
            self._applied.clear()
            self._unsettled.clear()
            self._unsettled_below.clear()
        candidates = self.reserve_candidates
        for path, shape, asks in self._let_through.take():
            again = [ask for ask in asks if ask in candidates and not (ask.blocked or ask.node or ask.reserved_node)]
            if again:
                self.block_group_again(path, shape, again)
        candidates.clear()

    def block_group_again(self, path: str, shape: int, asks: list[Ask]) -> None:
        """Asks of one leaf and shape whose retry could only find every node reserved, blocked again: back into their
        group together (``_group`` for all of them), the leaf's count changed once."""
        loose = self._loose
        ungrouped = []
        for ask in asks:
            ask.blocked = True
            if ask.grouped:
                loose.discard(ask)
            else:
                ask.grouped = True
                ungrouped.append(ask)
        if ungrouped:
            self._group_of(path, shape, ungrouped[0]).update(ungrouped)
        self._add_active(path, -len(asks))

    def may_hold_asks(self, path: str) -> bool:
        """The walk goes into the queue: it has asks to retry, or a leaf below that reservations' ends may let some
        asks out of (found out when the walk gets there)."""
        return self.active.get(path, 0) > 0 or self._unsettled_below.get(path, 0) > 0

    def node_reserved(self) -> None:
        """A node was just reserved. When it was the last open one, the asks waiting for a retry that can only find
        every node reserved (let through by a reservation's end, or let out by a node's opening, and not retried
        since) are dealt with: ``every_node_reserved``."""
        if (self.reserve_candidates or self._released or self.opened) \
                and self.p.nodes.reserved == len(self.p.nodes.by_name):
            self.every_node_reserved()

    def settle_leaf(self, path: str) -> None:
        """Before the walk looks at the leaf's asks (or anything changes one)."""
        if self._released:
            self._settle(path)

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


_SHAPE_IDS: dict[tuple[object, ...], int] = {}  # every shape seen in this process, numbered in order


def shape_key(ask: Ask) -> int:
    """The ask's shape (``shape_of``) as a small integer, the same for equal shapes: the key of the scheduler's groups
    of asks by shape and of the node blocks' memos, looked up millions of times, where a shape (nested tuples, whose
    hash Python does not keep) would be hashed again at each lookup."""
    key = ask.shape_id
    if key < 0:
        key = ask.shape_id = _SHAPE_IDS.setdefault(shape_of(ask), len(_SHAPE_IDS))
    return key


