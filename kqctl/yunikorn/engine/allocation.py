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
again until something it depends on grows. kqctl remembers each failure with what would undo it (quota given
back by a preemption; a node opening to asks of its size, when a reservation ends or a victim leaves it) instead
of retrying it on every cycle: YuniKorn's retries change nothing after the first attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from operator import attrgetter

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import gang as gang_rules
from kqctl.yunikorn.engine import sorting
from kqctl.yunikorn.engine.nodes import predicates_pass
from kqctl.yunikorn.engine.objects import ACCEPTED, NEW, REJECTED, RUNNING, Application, Ask, Node
from kqctl.yunikorn.engine.partition import RESERVATION_DELAY, Partition
from kqctl.yunikorn.engine.preemption import preconditions_pass, try_preemption
from kqctl.yunikorn.engine.queue import Queue
from kqctl.yunikorn.engine.state import (
    ALLOCATED,
    ALLOCATED_RESERVED,
    PLACEHOLDER_RELEASED,
    REPLACED,
    RESERVED,
    CycleResult,
    SchedulerState,
    shape_key,
)

NOT_ENOUGH_QUEUE_QUOTA = "Not enough queue quota"
NOT_ENOUGH_USER_QUOTA = "Not enough user quota"
PREEMPTION_DOES_NOT_HELP = "Preemption does not help"
MAX_PREEMPTIONS_PER_QUEUE = 10
MAX_PREEMPTION_ATTEMPTS = "Preemption max attempts exhausted"

class Scheduler(SchedulerState):
    """Runs cycles on a partition; ``try_preemption`` is the preemption attempt (§10), kept in its own module."""

    def __init__(self, partition: Partition, remember_failures: bool = True) -> None:
        super().__init__(partition, remember_failures)
        self.try_preemption = try_preemption

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
        """``ClusterContext.schedule`` for the partition: reservations first, then placeholder replacements
        (YK-GANG-4), then a regular walk."""
        if self.p.tree.root.max is None:
            return None  # no nodes: the partition is skipped
        if self.p.gang_ready:
            self.send_held_pods()
        if self.p.gang_groups_done:
            self.release_members()
        return self.try_reserved_allocate() or self.try_placeholder_allocate() or self.try_allocate()

    # --- gang scheduling (YK-GANG-2, YK-GANG-4; kqctl.yunikorn.engine.gang) ----------------------------------

    def send_held_pods(self) -> None:
        """YK-GANG-2: the shim sends the real pods it held back while the application was Reserving."""
        p = self.p
        ready, p.gang_ready = p.gang_ready, []
        for app in ready:
            gang, queue = app.gang, app.queue
            assert gang is not None
            real = [ask for ask in app.held if not ask.pod.is_placeholder]
            if not real or queue is None or app.state == REJECTED or gang.shim_state == gang_rules.FAILED:
                continue
            app.held = [ask for ask in app.held if ask.pod.is_placeholder]
            for ask in real:
                del p.held[ask.key]
                p.asks[ask.key] = ask
                p.sent.append(ask)
                app.asks.append(ask)
                app.pending = res.add(app.pending, ask.resource)
                p.path_add(queue, {}, ask.resource)
            p.gang_members(app, sum(1 for ask in real if ask.pod.task_group))
            app.asks.sort(key=Ask.order_key)
            app.asks_changed()
            if app.state == NEW:
                app.state = ACCEPTED
            self._add_active(queue.path, len(real))
            self._changed(queue)
            p.refresh_priority(queue)

    def release_members(self) -> None:
        """YK-GANG-3: task groups with no placeholder left to replace: their real pods are ordinary asks now."""
        done, self.p.gang_groups_done = self.p.gang_groups_done, []
        for app, group in done:
            queue = app.queue
            if queue is None:
                continue
            for ask in app.asks:
                if ask.blocked and ask.blocked_kind == gang_rules.BLOCKED_KIND and ask.pod.task_group == group:
                    self.unblock(ask)
            self._changed(queue)

    def try_placeholder_allocate(self) -> CycleResult | None:
        """``tryPlaceholderAllocate`` over the tree: queues and applications in the walk's order, only applications
        with placeholders allocated and a real pod of a task group pending."""
        if not self.p.replacing:
            return None
        return self._placeholder_walk(self.p.tree.root)

    def _placeholder_walk(self, queue: Queue) -> CycleResult | None:
        if queue.leaf:
            replacing = self.p.replacing
            for app in self.sorted_apps(queue):
                if app in replacing:
                    result = self._replace_in(app)
                    if result is not None:
                        return result
            return None
        for child in self.sorted_children(queue):
            result = self._placeholder_walk(child)
            if result is not None:
                return result
        return None

    def _replace_in(self, app: Application) -> CycleResult | None:
        """``Application.tryPlaceholderAllocate`` (YK-GANG-4). Go walks the placeholders in map order (random);
        kqctl in allocation order."""
        placeholders = sorted((ask for ask in app.asks if ask.pod.is_placeholder and ask.allocated),
                              key=lambda ask: (ask.order, ask.pod.name))
        first: tuple[Ask, Ask] | None = None
        released: list[Ask] = []
        for request in list(app.asks):  # a release takes the placeholder out of app.asks
            if request.pod.is_placeholder or not request.pod.task_group or request.allocated:
                continue
            for ph in placeholders:
                if ph.replaced_by or ph.released or not ph.allocated or ph.pod.task_group != request.pod.task_group:
                    continue
                if _larger_somewhere(request.resource, ph.resource):
                    released.append(self._release_incompatible(ph, request))
                    continue
                if first is None:
                    first = (request, ph)
                node = self.p.nodes.by_name[ph.node]
                if not predicates_pass(request.pod, node):
                    return self._replace(request, ph, node)
        # the first pair, unless a larger pod has released its placeholder since (Go would link the pod to a
        # placeholder already released; kqctl leaves the pod to the next cycle)
        if first is not None and first[1].allocated:
            request, ph = first
            found = self.p.nodes.first_fit(shape_key(request), request.resource, _fits(request))
            if found is not None:
                return self._replace(request, ph, found)
        if released:
            return CycleResult(PLACEHOLDER_RELEASED, released[0], "", tuple(released))
        return None

    def _release_incompatible(self, ph: Ask, request: Ask) -> Ask:
        """A real pod larger than the placeholder in some resource: the placeholder is released (a time-out)."""
        node = self.p.nodes.by_name[ph.node]
        ph.released = f"{gang_rules.INCOMPATIBLE}: {request.key} asks more than it holds"
        self._gone(ph, node, replaced=False)
        return ph

    def _replace(self, request: Ask, ph: Ask, node: Node) -> CycleResult:
        """The real pod takes ``node`` and the placeholder goes (the shim deletes it; the core's
        ``ReplaceAllocation``): on the placeholder's own node the usage only shrinks, elsewhere the real pod's room
        was checked."""
        ph_node = self.p.nodes.by_name[ph.node]
        ph.replaced_by, request.replaced = request.key, ph.key
        self._gone(ph, ph_node, replaced=True)
        self._place(request, node)
        return CycleResult(REPLACED, request, node.name, (ph,))

    def _gone(self, ph: Ask, node: Node, replaced: bool) -> None:
        """A placeholder's allocation is released: its node and queues get the room back."""
        queue = ph.app.queue
        assert queue is not None
        self.p.release(ph, replaced=replaced)
        self._changed(queue)
        self.p.refresh_priority(queue)
        self.node_opened(node)
        self.quota_released()

    def quota_released(self) -> None:
        """Quota was given back. Without reasons to keep (``keep_reasons``), an ask a headroom stopped is retried
        only when its retry can do more than fail again: it now fits its user's and its queue's headroom, or it fits
        the user's and may try preemption (E1-E4 pass). Otherwise the retry would find the same headrooms short
        (they only grow with a quota release, and this is the last one) and preemption refused, and only write its
        reason again: it waits for the next release or for the timer that makes preemption possible (YK-E3, YK-E4;
        ``changes.unblock``). An ask blocked since for another reason, or holding a reservation, is retried, as every
        ask is with reasons."""
        super().quota_released()
        if self.keep_reasons or not self.blocked_headroom:
            return
        waiting: set[Ask] = set()
        queue_room: dict[str, Resource | None] = {}
        user_room: dict[tuple[str, str, str], Resource | None] = {}
        for ask in self.blocked_headroom:
            if not ask.blocked or ask.allocated:
                continue  # retried since: its next failure puts it back
            # an ask holding a reservation is retried as with reasons: try_reserved_allocate retries it (its room on
            # any node) only while it is not blocked, and its failing there is remembered (``waiting_quota``)
            if ask.blocked_kind == "headroom" and not ask.reserved_node \
                    and not self._may_pass(ask, queue_room, user_room):
                waiting.add(ask)
            else:
                self.unblock(ask)
        self.blocked_headroom = waiting

    def every_node_reserved(self) -> None:
        """The last open node was just reserved. Besides the asks a reservation's end let through (the base's), without
        reasons to keep: an ask a node's opening let out and not retried since is blocked again, as its retry would
        be, when that retry can only fail as before: its application runs or may start (maxapplications lets it)
        and is no gang (no placeholder to replace), it holds no reservation, it fits its user's and its queue's
        headroom (its failure stays "no node"), and preemption is off or its preconditions fail (E1, E2 for good; E3
        and E4 until the replay's timers retry it). With every node reserved the retry finds no node, tries no
        preemption and takes no attempt from its queue; whatever opens a node for it again lets it out again. On a
        full cluster each completion lets out every ask of a shape that fits the freed node before another ask
        reserves it."""
        super().every_node_reserved()
        groups = self.opened.take()
        if not groups or not self.remember:
            return
        memo: dict[object, bool] = {}
        user_room: dict[tuple[str, str, str], Resource | None] = {}
        queue_room: dict[str, Resource | None] = {}
        for path, shape, asks in groups:
            self._block_again(path, shape, asks, memo, user_room, queue_room)

    def _block_again(self, path: str, shape: int, asks: Collection[Ask], memo: dict[object, bool],
                     user_room: dict[tuple[str, str, str], Resource | None],
                     queue_room: dict[str, Resource | None]) -> None:
        """``every_node_reserved`` for one group let out (one leaf and shape): each of its asks still let out is
        dealt with (``let_out`` cleared), and those open whose retry could only fail as before are blocked again
        (``block`` with its reason kept, ``block_group_again``), tested in one pass over the group: a completion lets
        out thousands of asks (``memo``: answers per application; the headrooms themselves; all for one call)."""
        candidates = self.reserve_candidates  # (emptied by the base's every_node_reserved, as a rule)
        check_preconditions, now = self.p.preemption_enabled, self.p.now
        per_app: dict[Application, bool] = {}  # the application's part of the test, for this shape
        again: list[Ask] = []
        for ask in asks:
            if not ask.let_out:
                continue
            ask.let_out = False
            if ask.blocked or ask.node or ask.reserved_node or (candidates and ask in candidates):
                continue
            app = ask.app
            fails = per_app.get(app)
            if fails is None:
                fails = per_app[app] = self._app_fails_again(ask, memo, user_room, queue_room)
            if not fails:
                continue
            if check_preconditions and preconditions_pass(now, ask, app.queue):  # type: ignore[arg-type]
                continue  # it may try preemption: its retry does more
            ask.blocked_kind = "nodes"
            again.append(ask)
        if again:
            self.block_group_again(path, shape, again)

    def _app_fails_again(self, ask: Ask, memo: dict[object, bool],
                         user_room: dict[tuple[str, str, str], Resource | None],
                         queue_room: dict[str, Resource | None]) -> bool:
        """What of ``_block_again``'s test depends on the ask's application and shape only: no gang, it runs or may
        start, and an ask of this shape fits its user's and its queue's headroom."""
        app = ask.app
        queue = app.queue
        if app.gang is not None or queue is None:
            return False
        if app.state != RUNNING:
            starts = memo.get(app)
            if starts is None:
                starts = memo[app] = app.state == ACCEPTED and not self._waits_to_run(queue, app)
            if not starts:
                return False  # its retry would stop at maxapplications: another failure
        key = (queue.path, app.user, app.group, ask.shape_id)
        fits = memo.get(key)
        if fits is None:
            fits = memo[key] = self._fits_user(ask, queue, user_room) and self._fits_queue(ask, queue, queue_room)
        return fits

    def _may_pass(self, ask: Ask, queue_room: dict[str, Resource | None],
                  user_room: dict[tuple[str, str, str], Resource | None]) -> bool:
        """A retry of the ask, stopped by a headroom, can do more than fail again (``_app``'s first two checks)."""
        app = ask.app
        queue = app.queue
        assert queue is not None
        if not self._fits_user(ask, queue, user_room):
            return False
        if self._fits_queue(ask, queue, queue_room):
            return True
        return self.p.preemption_enabled and preconditions_pass(self.p.now, ask, queue)

    def _fits_user(self, ask: Ask, queue: Queue, user_room: dict[tuple[str, str, str], Resource | None]) -> bool:
        """The ask fits its user's (and group's) headroom now (``user_room``: the headrooms worked out so far)."""
        app = ask.app
        key = (queue.path, app.user, app.group)
        if key not in user_room:
            user_room[key] = self.p.limits.headroom(queue.path, app.user, app.group)[0]
        return res.fit_in_max_undef(user_room[key], ask.resource)

    def _fits_queue(self, ask: Ask, queue: Queue, queue_room: dict[str, Resource | None]) -> bool:
        """The ask fits its queue's headroom now (``queue_room``: the headrooms worked out so far)."""
        if queue.path not in queue_room:
            queue_room[queue.path] = self.p.headroom(queue)
        return res.fit_in_max_undef(queue_room[queue.path], ask.resource)

    # --- sorted views ------------------------------------------------------------------------------------

    def sorted_children(self, parent: Queue) -> list[Queue]:
        """``sortQueues``: children with pending resources, §7.1 order (cached until one of them changes)."""
        stamp = self.version.get(parent.path, 0)
        cached = self._queue_cache.get(parent.path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        entries = [entry for entry in map(self._entry, parent.children.values()) if entry is not None]
        consider = parent.settings.priority_sort_enabled
        keys = [(-e.priority, e.share) if consider else (e.share, -e.priority) for e in entries]
        if len(set(keys)) == len(keys):  # no exact tie: the comparator is a plain key order
            ordered = [e for _, e in sorted(zip(keys, entries, strict=True), key=lambda kv: (kv[0], kv[1].name))]
        else:
            ordered = sorting.sort_queues(entries, consider)
        queues = [e.item for e in ordered if e.item is not None]
        self._queue_cache[parent.path] = (stamp, queues)
        return queues

    def _entry(self, queue: Queue) -> sorting.QueueEntry[Queue] | None:
        """The queue as its parent's sort sees it (None: nothing pending, not sorted), until its usage, pending or
        priority change."""
        stamp = self.version.get(queue.path, 0)
        cached = self._entry_cache.get(queue.path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        entry = sorting.QueueEntry(queue.name, queue.reported_priority(), queue.allocated, queue.guaranteed,
                                   self.p.fair_max.get(queue.path), queue.pending, queue) \
            if res.strictly_greater_than_zero(queue.pending) else None
        self._entry_cache[queue.path] = (stamp, entry)
        return entry

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

        cache = self._share_cache

        def fair_shares(app: Application) -> tuple[float, ...]:
            """The app's usage shares, largest first, padded with zeros to one width: compared in order."""
            known = cache.get(app)
            if known is not None and known[0] is app.allocated and known[1] is total:
                shares = known[2]  # app.allocated is replaced, never changed in place
            else:
                shares = tuple(sorted(res.usage_shares(app.allocated, total), reverse=True))
                cache[app] = (app.allocated, total, shares)
            return shares + (0.0,) * (width - len(shares))

        if policy == sorting.FAIR:
            if consider:
                return lambda app: (-app.ask_max_priority(), fair_shares(app), app.app_id)
            return lambda app: (fair_shares(app), -app.ask_max_priority(), app.app_id)
        if consider:
            return lambda app: (-app.ask_max_priority(), app.submission, app.app_id)
        return lambda app: (app.submission, -app.ask_max_priority(), app.app_id)

    # --- the regular walk --------------------------------------------------------------------------------

    def try_allocate(self) -> CycleResult | None:
        if not res.strictly_greater_than_zero(self.p.tree.root.pending):
            return None
        return self._walk(self.p.tree.root)

    def _walk(self, queue: Queue) -> CycleResult | None:
        if not self.may_hold_asks(queue.path):
            return None
        if queue.leaf:
            self.settle_leaf(queue.path)
            if self.active.get(queue.path, 0) <= 0:
                return None  # nothing to retry here after all: the leaf's walk would find no ask
            return self._leaf(queue)
        may_hold_asks = self.may_hold_asks
        for child in self.sorted_children(queue):
            if may_hold_asks(child.path):
                result = self._walk(child)
                if result is not None:
                    return result
        return None

    def _leaf(self, queue: Queue) -> CycleResult | None:
        """``Queue.TryAllocate`` on a leaf."""
        headroom = self.p.headroom(queue)
        attempts = [MAX_PREEMPTIONS_PER_QUEUE]
        for app in self.sorted_apps(queue):
            # some ask not blocked, not allocated (``node`` read without the property: ten asks an application, every
            # walk, most of them blocked: no list made of them until one is open)
            for ask in app.asks:
                if not ask.blocked and not ask.node:
                    break
            else:
                continue
            if app.state == ACCEPTED:
                why = self._waits_to_run(queue, app)
                if why:
                    for ask in [ask for ask in app.asks if not ask.blocked and not ask.node]:
                        self.block(ask, f"waiting to run: {why}", "quota")
                    continue
            result = self._app(app, queue, headroom, attempts)
            if result is not None:
                return result
        return None

    def _waits_to_run(self, queue: Queue, app: Application) -> str:
        """Why an accepted application may not start running yet (its queue's or its user's maxapplications), or ""."""
        return self.p.can_run_app(queue, app) or self.p.limits.can_run_app(queue.path, app.user, app.group, app.app_id)

    def _app(self, app: Application, queue: Queue, headroom: Resource | None,
             attempts: list[int]) -> CycleResult | None:
        """``Application.tryAllocate``."""
        user_room, _ = self.p.limits.headroom(queue.path, app.user, app.group)
        candidates = self.reserve_candidates
        gang = app.gang
        # Both headrooms stay as they are until an ask is placed, reserves or preempts (the loop ends then): asks of one
        # shape (equal resources) fit them alike. By shape, for the asks whose shape is known (not worked out here:
        # shapes are numbered as first seen).
        fits_rooms: dict[int, tuple[bool, bool]] = {}
        for ask in list(app.asks):
            if ask.blocked or ask.node:  # (not allocated)
                continue
            if gang is not None and gang.can_replace(ask.pod):
                # YK-GANG-3: only a replacement places it; retried here once its group has no placeholder left
                self.block(ask, gang_rules.WAITS_FOR_REPLACEMENT, gang_rules.BLOCKED_KIND)
                continue
            if candidates:
                candidates.discard(ask)  # retried now
            ask.let_out = False
            fits = fits_rooms.get(ask.shape_id)
            if fits is None:
                fits = (res.fit_in_max_undef(user_room, ask.resource), res.fit_in_max_undef(headroom, ask.resource))
                if ask.shape_id >= 0:
                    fits_rooms[ask.shape_id] = fits
            if not fits[0]:
                self.block(ask, NOT_ENOUGH_USER_QUOTA, "headroom")
                continue
            if not fits[1]:
                detail = self.p.quota_detail(queue, ask.resource)
                reason = f"{NOT_ENOUGH_QUEUE_QUOTA} ({detail})" if detail else NOT_ENOUGH_QUEUE_QUOTA
                if self.p.preemption_enabled:
                    result, why = self.try_preemption(self, ask, headroom, attempts, nodes_tried=False)
                    if result is not None:
                        return result
                    reason = f"{reason}; {why}" if why else reason
                    if why == MAX_PREEMPTION_ATTEMPTS:
                        ask.failure = reason
                        continue  # not tried yet: the next walk gives it an attempt
                self.block(ask, reason, "headroom")
                continue
            if self.p.nodes.reserved < len(self.p.nodes.by_name):
                result = self.try_nodes(ask)
                if result is not None:
                    return result
                why = ask.failure
            else:
                # The core's iterator over unreserved nodes is then empty, not absent: tryNodes finds nothing and
                # preemption is still tried below (``Application.tryAllocate``), the ask's own reserved node among
                # the candidates.
                # Its reason starts with its last tryNodes' answer (``failure`` has more after it since: the reason
                # preemption did not happen, which would be said once more on each retry).
                why = ask.no_node if ask.reserved_node and ask.no_node else "every node is reserved for another ask"
            if self.p.preemption_enabled:
                result, reason = self.try_preemption(self, ask, headroom, attempts, nodes_tried=True)
                if result is not None:
                    return result
                why = f"{why}; {reason}"
                if reason == MAX_PREEMPTION_ATTEMPTS:
                    ask.failure = why
                    continue  # not tried yet: the next walk gives it an attempt
            self.block(ask, why, "nodes")
        return None

    # --- nodes ----------------------------------------------------------------------------------------------

    def try_nodes(self, ask: Ask) -> CycleResult | None:
        """``tryNodes``: the first node (policy order, unreserved) where the ask fits; else reserve the best
        (YK-RESERVE)."""
        wanted = ask.resource
        pod = ask.pod
        found = self.p.nodes.first_fit(shape_key(ask), wanted, _fits(ask))
        if found is not None:
            return self._allocate(ask, found)
        # no node takes it: why, per node, and the node to reserve (the best fit, first in order on a tie)
        may_reserve = not ask.reserved_node and self.p.ask_age(ask) > RESERVATION_DELAY
        scan = self.p.nodes.scan(shape_key(ask), wanted, pod)
        counts = {"unschedulable": scan.unschedulable, "too small": scan.too_small, "full": scan.full,
                  "predicates": scan.predicates}
        ask.failure = ask.no_node = describe_no_node(counts, scan.predicate_reason, len(self.p.nodes.by_name))
        best = scan.best if may_reserve else None
        if best is not None and best.reserved_by is None and not predicates_pass(ask.pod, best):
            self.p.reserve(ask, best)
            self.reserved.append(ask)
            assert ask.app.queue is not None
            self._changed(ask.app.queue)
            self.node_reserved()
            return CycleResult(RESERVED, ask, best.name)
        return None

    def _place(self, ask: Ask, node: Node) -> None:
        """The ask is an allocation on ``node`` now: no longer among the asks to retry or the failed ones."""
        self.p.place_on_node(ask, node)
        self.retire(ask)
        assert ask.app.queue is not None
        self._changed(ask.app.queue)

    def _allocate(self, ask: Ask, node: Node) -> CycleResult:
        kind = ALLOCATED
        reserved = self.p.nodes.by_name.get(ask.reserved_node)
        if ask.reserved_node:
            self.p.unreserve(ask)
            self.reserved.remove(ask)
            kind = ALLOCATED_RESERVED
        self._place(ask, node)
        if reserved is not None:
            self.node_opened(reserved)  # the reservation is over: the node is open to every ask again
            self.node_unreserved(reserved)  # and an ask that does not fit it may reserve it
        return CycleResult(kind, ask, node.name)

    # --- reservations -----------------------------------------------------------------------------------

    def try_reserved_allocate(self) -> CycleResult | None:
        """``tryReservedAllocate``: each reserved ask on its node, then on any other unreserved node."""
        candidates: dict[Ask, set[str] | None] = self.reserved_dirty if self.remember else dict.fromkeys(self.reserved)
        # nothing changes until an ask is allocated: each queue's and user's headroom is worked out once (thousands of
        # reserved asks share a few hundred queues)
        queue_room: dict[str, Resource | None] = {}
        user_room: dict[tuple[str, str, str], Resource | None] = {}
        for ask in sorted(candidates, key=RESERVED_ORDER):
            opened = candidates.get(ask)
            self.reserved_dirty.pop(ask, None)  # tried now; it comes back when something it needs grows
            # reserved_node is set exactly while the ask is in self.reserved (a list: membership is slow)
            if ask.blocked or ask.allocated or not ask.reserved_node:
                continue
            queue = ask.app.queue
            assert queue is not None
            if not (self._fits_user(ask, queue, user_room) and self._fits_queue(ask, queue, queue_room)):
                ask.waiting_quota = True
                continue  # the reservation waits (it is only given up after an hour)
            node = self.p.nodes.by_name[ask.reserved_node]
            if node.fits_available(ask.resource) and not predicates_pass(ask.pod, node):
                return self._allocate(ask, node)
            if opened is None:
                other = self.p.nodes.first_fit(shape_key(ask), ask.resource, _fits(ask))
                if other is not None:
                    return self._allocate(ask, other)
                continue
            by_name = self.p.nodes.by_name
            open_nodes = [by_name[name] for name in opened if by_name[name].reserved_by is None]
            if not open_nodes:
                continue  # every node opened for it is reserved again (the usual case on a full cluster)
            # the first in order that fits: the least of those that fit (names differ, no tie), most often none
            fitting = list(filter(_fits(ask), open_nodes))
            if fitting:
                return self._allocate(ask, min(fitting, key=_node_order))
        return None


def _larger_somewhere(real: Resource, placeholder: Resource) -> bool:
    """``Sub(placeholder, real).HasNegativeValue()``: the real pod asks more of some resource."""
    return any(value > placeholder.get(name, 0) for name, value in real.items())


# The order reserved asks are retried in: by application, then pod (``Ask.reserve_order``, read in C: the reserved
# asks something grew for are sorted at every cycle, two thousand of them on a full cluster)
RESERVED_ORDER = attrgetter("reserve_order")


def _node_order(node: Node) -> tuple[float, str]:
    """The order the nodes opened for a reserved ask are tried in: by score (YuniKorn's node sorting), then name."""
    return node.score, node.name


def _fits(ask: Ask) -> Callable[[Node], bool]:
    """The ask fits the node now: schedulable, big enough, enough available, the predicates pass."""
    wanted, pod = ask.resource, ask.pod

    def fits(node: Node) -> bool:
        return node.schedulable and node.fits_total(wanted) and node.fits_available(wanted) \
            and not predicates_pass(pod, node)

    return fits


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
