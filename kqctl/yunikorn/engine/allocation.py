"""YuniKorn's scheduling cycle (spec §7-§8; yunikorn-core ``ClusterContext.schedule``,
``PartitionContext.tryReservedAllocate`` / ``tryAllocate``, ``Queue.TryAllocate``, ``Application.tryAllocate``,
``tryNodes``, ``tryReservedAllocate``).

Each cycle gives at most one result: an allocation, a node reservation, or a preemption. It first retries
the reserved asks, then walks the tree depth first from root: children sorted (§7.1, only those with
something pending), applications of a leaf sorted (§7.2, only those with something pending), asks in order
(higher priority, then older). An ask must fit the user's headroom (G2) and the queue's (G3, else preemption
may be tried, §10), then a node: the first one in the node sort order where it fits; none fits and the ask
is older than 2 s: the best-fitting node is reserved for it (no other ask may use it).

Nothing in a snapshot ever finishes, so capacity only shrinks between releases: an ask that failed fails
again until something is released (a preemption, a reservation given back). kqctl remembers those failures
per release epoch instead of retrying them on every cycle; YuniKorn's retries change nothing after the first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import sorting
from kqctl.yunikorn.engine.nodes import predicates_pass
from kqctl.yunikorn.engine.objects import ACCEPTED, REJECTED, Application, Ask, Node
from kqctl.yunikorn.engine.partition import RESERVATION_DELAY, Partition
from kqctl.yunikorn.engine.queue import Queue

NOT_ENOUGH_QUEUE_QUOTA = "Not enough queue quota"
NOT_ENOUGH_USER_QUOTA = "Not enough user quota"
PREEMPTION_DOES_NOT_HELP = "Preemption does not help"
MAX_PREEMPTIONS_PER_QUEUE = 10

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


class Scheduler:
    """Runs cycles on a partition; ``preempt`` is the preemption attempt (§10), injected to keep modules small."""

    def __init__(self, partition: Partition) -> None:
        from kqctl.yunikorn.engine.preemption import try_preemption

        self.p = partition
        self.try_preemption = try_preemption
        self.active: dict[str, int] = {}
        self.active_epoch = -1
        self._queue_cache: dict[str, tuple[int, list[Queue]]] = {}
        self._app_cache: dict[str, tuple[int, list[Application]]] = {}
        self.version: dict[str, int] = {}
        self.reserved: list[Ask] = []

    # --- the loop ------------------------------------------------------------------------------------

    def run(self, limit: int | None = None) -> list[CycleResult]:
        results: list[CycleResult] = []
        while limit is None or len(results) < limit:
            result = self.cycle()
            if result is None:
                break
            results.append(result)
        return results

    def cycle(self) -> CycleResult | None:
        """``ClusterContext.schedule`` for the partition: reservations first, then a regular walk."""
        if self.p.tree.root.max is None:
            return None  # no nodes: the partition is skipped
        self._refresh_active()
        return self.try_reserved_allocate() or self.try_allocate()

    # --- which asks can still change anything ------------------------------------------------------------

    def _refresh_active(self) -> None:
        if self.active_epoch == self.p.epoch:
            return
        self.active_epoch = self.p.epoch
        self.active = {queue.path: 0 for queue in self.p.tree.queues()}
        for path, apps in self.p.leaf_apps.items():
            count = sum(1 for app in apps if app.state != REJECTED for ask in app.asks if not ask.allocated)
            self._add_active(path, count)
        self._queue_cache.clear()
        self._app_cache.clear()

    def _add_active(self, path: str, delta: int) -> None:
        queue = self.p.tree.get(path)
        while queue is not None:
            self.active[queue.path] += delta
            queue = queue.parent

    def block(self, ask: Ask, reason: str) -> None:
        """The ask failed for ``reason``; it will fail the same way until something is released."""
        ask.failure = reason
        if ask.blocked != self.p.epoch:
            ask.blocked = self.p.epoch
            assert ask.app.queue is not None
            self._add_active(ask.app.queue.path, -1)

    def _changed(self, queue: Queue) -> None:
        """Sorted orders that include ``queue`` or its ancestors are stale."""
        current: Queue | None = queue
        while current is not None:
            self.version[current.path] = self.version.get(current.path, 0) + 1
            current = current.parent

    # --- sorted views ------------------------------------------------------------------------------------

    def sorted_children(self, parent: Queue) -> list[Queue]:
        """``sortQueues``: children with pending resources, §7.1 order (cached until one of them changes)."""
        stamp = self.version.get(parent.path, 0)
        cached = self._queue_cache.get(parent.path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        entries = [sorting.QueueEntry(child.name, child.reported_priority(), child.allocated, child.guaranteed,
                                      self.p.fair_max.get(child.path), child.pending, child)
                   for child in parent.children.values() if res.strictly_greater_than_zero(child.pending)]
        consider = parent.settings.priority_sort_enabled
        keys = [(-e.priority, e.share) if consider else (e.share, -e.priority) for e in entries]
        if len(set(keys)) == len(keys):  # no exact tie: the comparator is a plain key order
            ordered = [e for _, e in sorted(zip(keys, entries, strict=True), key=lambda kv: (kv[0], kv[1].name))]
        else:
            ordered = sorting.sort_queues(entries, consider)
        queues = [e.item for e in ordered if e.item is not None]
        self._queue_cache[parent.path] = (stamp, queues)
        return queues

    def sorted_apps(self, leaf: Queue) -> list[Application]:
        """``sortApplications``: applications with pending resources, §7.2 order."""
        stamp = self.version.get(leaf.path, 0)
        cached = self._app_cache.get(leaf.path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        apps = [app for app in self.p.leaf_apps.get(leaf.path, [])
                if app.state != REJECTED and res.strictly_greater_than_zero(app.pending)]
        ordered = sorted(apps, key=self._app_key(leaf))
        self._app_cache[leaf.path] = (stamp, ordered)
        return ordered

    def _app_key(self, leaf: Queue):  # type: ignore[no-untyped-def]
        policy, consider = leaf.settings.sort_policy, leaf.settings.priority_sort_enabled
        total = leaf.guaranteed
        width = 1 + max((len(app.allocated) for app in self.p.leaf_apps.get(leaf.path, [])), default=0)

        def fair_shares(app: Application) -> tuple[float, ...]:
            shares = sorted(res.usage_shares(app.allocated, total), reverse=True)
            return tuple(-s for s in shares) + (0.0,) * (width - len(shares))

        if policy == sorting.FAIR:
            if consider:
                return lambda app: (-app.ask_max_priority(), tuple(-x for x in fair_shares(app)), app.app_id)
            return lambda app: (tuple(-x for x in fair_shares(app)), -app.ask_max_priority(), app.app_id)
        if consider:
            return lambda app: (-app.ask_max_priority(), app.submission, app.app_id)
        return lambda app: (app.submission, -app.ask_max_priority(), app.app_id)

    # --- the regular walk --------------------------------------------------------------------------------

    def try_allocate(self) -> CycleResult | None:
        if not res.strictly_greater_than_zero(self.p.tree.root.pending):
            return None
        return self._walk(self.p.tree.root)

    def _walk(self, queue: Queue) -> CycleResult | None:
        if self.active.get(queue.path, 0) <= 0:
            return None
        if queue.leaf:
            return self._leaf(queue)
        for child in self.sorted_children(queue):
            if self.active.get(child.path, 0) > 0:
                result = self._walk(child)
                if result is not None:
                    return result
        return None

    def _leaf(self, queue: Queue) -> CycleResult | None:
        """``Queue.TryAllocate`` on a leaf."""
        headroom = self.p.headroom(queue)
        attempts = [MAX_PREEMPTIONS_PER_QUEUE]
        for app in self.sorted_apps(queue):
            open_asks = [ask for ask in app.asks if not ask.allocated and ask.blocked != self.p.epoch]
            if not open_asks:
                continue
            if app.state == ACCEPTED:
                why = self.p.can_run_app(queue, app) or self.p.limits.can_run_app(queue.path, app.user, app.group,
                                                                                    app.app_id)
                if why:
                    for ask in open_asks:
                        self.block(ask, f"waiting to run: {why}")
                    continue
            result = self._app(app, queue, headroom, attempts)
            if result is not None:
                return result
        return None

    def _app(self, app: Application, queue: Queue, headroom: Resource | None,
             attempts: list[int]) -> CycleResult | None:
        """``Application.tryAllocate``."""
        user_room, _ = self.p.limits.headroom(queue.path, app.user, app.group)
        for ask in list(app.asks):
            if ask.allocated or ask.blocked == self.p.epoch:
                continue
            if not res.fit_in_max_undef(user_room, ask.resource):
                self.block(ask, NOT_ENOUGH_USER_QUOTA)
                continue
            if not res.fit_in_max_undef(headroom, ask.resource):
                detail = self.p.quota_detail(queue, ask.resource)
                reason = f"{NOT_ENOUGH_QUEUE_QUOTA} ({detail})" if detail else NOT_ENOUGH_QUEUE_QUOTA
                if self.p.preemption_enabled:
                    result, why = self.try_preemption(self, ask, headroom, attempts, nodes_tried=False)
                    if result is not None:
                        return result
                    reason = f"{reason}; {why}" if why else reason
                self.block(ask, reason)
                continue
            if self.p.nodes.reserved < len(self.p.nodes.by_name):
                result = self.try_nodes(ask)
                if result is not None:
                    return result
                why = ask.failure
                if self.p.preemption_enabled:
                    result, reason = self.try_preemption(self, ask, headroom, attempts, nodes_tried=True)
                    if result is not None:
                        return result
                    why = f"{why}; {reason}"
                self.block(ask, why)
            else:
                self.block(ask, "every node is reserved for another ask")
        return None

    # --- nodes ----------------------------------------------------------------------------------------------

    def try_nodes(self, ask: Ask) -> CycleResult | None:
        """``tryNodes``: the first node (policy order, unreserved) where the ask fits; else reserve the best."""
        best: Node | None = None
        best_score = math.inf
        may_reserve = not ask.reserved_node and self.p.ask_age(ask) > RESERVATION_DELAY
        counts = {"unschedulable": 0, "too small": 0, "full": 0, "predicates": 0}
        predicate_reason = ""
        for node in self.p.nodes.iterate(unreserved=True):
            if not node.schedulable:
                counts["unschedulable"] += 1
                continue
            if not node.fits_total(ask.resource):
                counts["too small"] += 1
                continue
            if node.fits_available(ask.resource):
                why = predicates_pass(ask.pod, node)
                if not why:
                    return self._allocate(ask, node)
                counts["predicates"] += 1
                predicate_reason = predicate_reason or why
            else:
                counts["full"] += 1
            if may_reserve:
                score = node.fit_in_score(ask.resource)
                if score < best_score:
                    best, best_score = node, score
        ask.failure = describe_no_node(counts, predicate_reason, len(self.p.nodes.by_name))
        if best is not None and best.reserved_by is None and not predicates_pass(ask.pod, best):
            self.p.reserve(ask, best)
            self.reserved.append(ask)
            assert ask.app.queue is not None
            self._changed(ask.app.queue)
            return CycleResult(RESERVED, ask, best.name)
        return None

    def _allocate(self, ask: Ask, node: Node) -> CycleResult:
        kind = ALLOCATED
        if ask.reserved_node:
            self.p.unreserve(ask)
            self.reserved.remove(ask)
            kind = ALLOCATED_RESERVED
        self.p.place_on_node(ask, node)
        assert ask.app.queue is not None
        if ask.blocked != self.p.epoch:
            self._add_active(ask.app.queue.path, -1)
        self._changed(ask.app.queue)
        return CycleResult(kind, ask, node.name)

    # --- reservations -----------------------------------------------------------------------------------

    def try_reserved_allocate(self) -> CycleResult | None:
        """``tryReservedAllocate``: each reserved ask on its node, then on any other unreserved node."""
        for ask in sorted(self.reserved, key=lambda a: (a.app.app_id, a.key)):
            if ask.blocked == self.p.epoch or ask.retried == self.p.epoch or ask.allocated:
                continue
            ask.retried = self.p.epoch  # nothing it needs can grow before the next release
            queue = ask.app.queue
            assert queue is not None
            room = self.p.headroom(queue)
            user_room, _ = self.p.limits.headroom(queue.path, ask.app.user, ask.app.group)
            if not (res.fit_in_max_undef(user_room, ask.resource) and res.fit_in_max_undef(room, ask.resource)):
                continue  # the reservation waits (it is only given up after an hour)
            node = self.p.nodes.by_name[ask.reserved_node]
            if node.fits_available(ask.resource) and not predicates_pass(ask.pod, node):
                return self._allocate(ask, node)
            for other in self.p.nodes.iterate(unreserved=True):
                if other.schedulable and other.fits_total(ask.resource) and other.fits_available(ask.resource) \
                        and not predicates_pass(ask.pod, other):
                    return self._allocate(ask, other)
        return None


def describe_no_node(counts: dict[str, int], predicate: str, total: int) -> str:
    """Why an ask fits no node, counted over the nodes tried (reserved nodes are not tried)."""
    parts = []
    if counts["full"]:
        parts.append(f"{counts['full']} without enough available")
    if counts["too small"]:
        parts.append(f"{counts['too small']} too small for the request")
    if counts["predicates"]:
        parts.append(f"{counts['predicates']} rejected by predicates ({predicate})")
    if counts["unschedulable"]:
        parts.append(f"{counts['unschedulable']} unschedulable")
    tried = sum(counts.values())
    reserved = total - tried
    if reserved:
        parts.append(f"{reserved} reserved for other asks")
    return f"no node fits: {', '.join(parts) or 'no nodes'} (of {total})"
