"""What happens to a partition between two scheduling cycles, applied to the core's state: the shim submits asks
of new pods, a pod finishes and its allocation is released, time passes.

The core learns of a new pod when the shim sends its ask (``AddAllocationAsk``, after ``AddApplication`` for an
application it does not know yet: placement, queue creation); of a finished one when the shim releases its
allocation (``RemoveAllocation``: the node and the queues get the resources back; an application with nothing
allocated and nothing pending is Completing, which takes it out of its queues' running applications). The
scheduler's memo of failed asks (:class:`state.SchedulerState`) is told what grew, as a preemption's releases do.
kqctl's replay (:mod:`kqctl.yunikorn.replay`) calls these in virtual time; simulate never does.
"""

from __future__ import annotations

from collections.abc import Iterable

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.snapshot import HARD, PodInfo, Snapshot, gang_pod
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.gang import FAILED, RESERVING, TIMED_OUT_FAILURE, PlaceholderData
from kqctl.yunikorn.engine.gang import RUNNING as RUNNING_GANG
from kqctl.yunikorn.engine.objects import ACCEPTED, NEW, REJECTED, RUNNING, Application, Ask, Node
from kqctl.yunikorn.engine.partition import Partition, _place, from_ns, gang_pods, to_ns, unmake_placeholders

COMPLETING = "Completing"


def set_clock(scheduler: Scheduler, now_ns: int) -> None:
    """The core's clock (asks' ages: reservation delay, preemption delay) reads ``now_ns``."""
    scheduler.p.now = now_ns


def submit(scheduler: Scheduler, snapshot: Snapshot, pods: Iterable[PodInfo], reserving_ns: int | None = None
           ) -> list[Ask]:
    """The shim sends these pods' asks; an application the core does not know is placed first (it may be
    rejected). A gang application's placeholders are made with it and its real pods held back while it reserves
    (YK-GANG-1, YK-GANG-2). Returns the asks the core holds now (none for a rejected application's pods, nor for
    pods held back).

    ``reserving_ns``: when the shim took a new gang application to Reserving, if not now. k8shim does it one run
    before the run that sends the placeholders (Accepted: ``postAppAccepted``, then ``onReserving``): it checks the
    placeholder timeout and creates the placeholder pods then, so their creation time, from which the core ages their
    asks, is that run's."""
    p = scheduler.p
    added: list[Ask] = []
    by_app: dict[str, list[PodInfo]] = {}
    for pod in pods:
        by_app.setdefault(pod.app_id, []).append(pod)
    for app_id, members in by_app.items():
        members.sort(key=lambda pod: (pod.created, pod.name))
        app = p.apps.get(app_id)
        if app is None:
            first, gang = members[0], gang_pod(members)
            app = Application(app_id, first.namespace, first.user, first.groups, to_ns(first.created),
                              requested_queue=first.queue, placeholder=gang.placeholder if gang else None)
            p.apps[app_id] = app
            sent = gang_pods(p, app, members, gang, from_ns(p.now if reserving_ns is None else reserving_ns))
            asks = _asks(app, sent)
            app.asks.extend(asks)
            app.asks.sort(key=Ask.order_key)
            app.asks_changed()
            _place(p, app, snapshot)  # placement, a dynamic queue, the asks' pending resources (AddApplication)
            if app.state == REJECTED and app.gang is not None:
                unmake_placeholders(p, app, {pod.key for pod in members})
            if app.state == REJECTED or app.queue is None:
                continue
            for ask in asks:
                p.asks[ask.key] = ask
            if app.queue.path not in scheduler.active:
                _new_queues(scheduler)
        else:
            if app.state == REJECTED or app.queue is None:
                continue
            asks = _asks(app, _not_held(p, app, members))
            app.asks.extend(asks)
            app.asks.sort(key=Ask.order_key)
            app.asks_changed()
            for ask in asks:
                p.asks[ask.key] = ask
                app.pending = res.add(app.pending, ask.resource)
                p.path_add(app.queue, {}, ask.resource)
            p.gang_members(app, sum(1 for ask in asks if ask.pod.task_group and not ask.pod.is_placeholder))
            if asks and app.state in (NEW, COMPLETING):
                app.state = ACCEPTED  # it runs again with its next allocation, checked against maxapplications
        assert app.queue is not None
        scheduler._add_active(app.queue.path, len(asks))
        scheduler._changed(app.queue)
        p.refresh_priority(app.queue)
        added.extend(asks)
    return added


def _not_held(p: Partition, app: Application, pods: list[PodInfo]) -> list[PodInfo]:
    """YK-GANG-2: a real pod of an application still reserving waits with the others the shim holds back."""
    gang = app.gang
    if gang is None or gang.shim_state == RUNNING_GANG:
        return pods
    for pod in pods:
        p.hold(app, pod)
    return []


def withdraw(scheduler: Scheduler, ask: Ask) -> None:
    """A pending ask is removed (``removeAsksInternal``): its pending resources leave the application and queues."""
    p = scheduler.p
    app = ask.app
    queue = app.queue
    assert queue is not None and not ask.allocated
    if ask.reserved_node:
        node = p.nodes.by_name.get(ask.reserved_node)
        p.unreserve(ask)
        scheduler.reserved.remove(ask)
        if node is not None:
            scheduler.node_opened(node)
            scheduler.node_unreserved(node)
    scheduler.retire(ask)
    scheduler.reserved_dirty.pop(ask, None)
    app.asks.remove(ask)
    app.asks_changed()
    p.asks.pop(ask.key, None)
    if ask.pod.task_group and not ask.pod.is_placeholder:
        p.gang_members(app, -1)
    app.pending = res.prune(res.sub(app.pending, ask.resource)) or {}
    p.path_add(queue, {}, {name: -value for name, value in ask.resource.items()})
    scheduler._changed(queue)
    p.refresh_priority(queue)


def placeholder_timeout(scheduler: Scheduler, app: Application) -> tuple[list[Ask], list[Ask]]:
    """YK-GANG-5 ``timeoutPlaceholderProcessing``: (the placeholders released or withdrawn, the pods failed). An
    application whose placeholders were all allocated releases those not replaced; any other is resumed (Soft: its
    placeholders go, the shim sends its real pods) or failed (Hard: every pending pod goes and is Failed)."""
    gang = app.gang
    assert gang is not None
    gang.timer_start = None
    hard_failure = not gang.all_allocated and gang.policy.style == HARD
    if hard_failure:
        gang.shim_state = FAILED  # before the releases: a failed application's shim sends nothing more
    placeholders = [ask for ask in app.asks if ask.pod.is_placeholder]
    released: list[Ask] = []
    failed: list[Ask] = []
    for ph in placeholders:
        if ph.allocated:
            ph.released = "placeholder timeout"
            grown(scheduler, [release(scheduler, ph)])
            released.append(ph)
        elif not gang.all_allocated:
            ph.released = "placeholder timeout (never allocated)"
            data = gang.data.setdefault(ph.pod.task_group, PlaceholderData())
            data.timed_out += 1
            if not data.replaceable():
                scheduler.p.gang_groups_done.append((app, ph.pod.task_group))
            withdraw(scheduler, ph)
            released.append(ph)
    if gang.all_allocated:
        return released, failed
    if hard_failure:
        gang.failed = TIMED_OUT_FAILURE
        scheduler.p.forget_reserving(app)
        for ask in [ask for ask in app.asks if not ask.allocated]:
            withdraw(scheduler, ask)
            failed.append(ask)
        for ask in app.held:
            scheduler.p.held.pop(ask.key, None)
        failed.extend(app.held)
        app.held = []
    elif gang.shim_state == RESERVING:
        scheduler.p.send_held(app)
    return released, failed


def _asks(app: Application, pods: list[PodInfo]) -> list[Ask]:
    return [Ask(pod, app, pod.resource, pod.priority, to_ns(pod.created), originator=not app.asks and i == 0)
            for i, pod in enumerate(pods)]


def _new_queues(scheduler: Scheduler) -> None:
    """Queues placement created: the scheduler counts their asks, and their fair max is worked out."""
    fresh = [q for q in scheduler.p.tree.queues() if q.path not in scheduler.active]
    if fresh:
        for queue in fresh:
            scheduler.active[queue.path] = 0
        scheduler.p.compute_fair_max()


def release(scheduler: Scheduler, ask: Ask) -> Node:
    """The pod finished: its allocation goes away (``RemoveAllocation``). Returns its node: the caller tells the
    scheduler what grew with :func:`grown` once every release of the moment is done (YuniKorn's memo of failed
    asks is then undone once, not once per release)."""
    p = scheduler.p
    node = p.nodes.by_name[ask.node]
    app = ask.app
    assert app.queue is not None
    p.release(ask)  # counted in p.releases: memoized preemption attempts and victims are stale now
    scheduler._changed(app.queue)
    p.refresh_priority(app.queue)
    if not res.strictly_greater_than_zero(app.allocated) and not app.pending_asks():
        complete_application(scheduler, app)
    return node


def grown(scheduler: Scheduler, nodes: Iterable[Node]) -> None:
    """Quota was given back and these nodes have more room: asks that failed on either may fit now."""
    for node in nodes:
        scheduler.node_opened(node)
    scheduler.quota_released()


def complete_application(scheduler: Scheduler, app: Application) -> None:
    """Running -> Completing: nothing allocated, nothing pending; it stops counting against maxapplications (G1)
    and the user's and group's application limits (``leave_Running``: ``decRunningApps``)."""
    if app.state != RUNNING:
        return
    app.state = COMPLETING
    queue = app.queue
    while queue is not None:
        queue.running_apps -= 1
        queue = queue.parent


def unblock(scheduler: Scheduler, ask: Ask, preemption_check_expired: bool = False) -> None:
    """Time made a difference to this ask (old enough to reserve a node or to preempt; with
    ``preemption_check_expired`` its last preemption check is 15 s old, YK-E4): the next cycle tries it again."""
    if preemption_check_expired:
        ask.preempt_checked = False
    if not ask.allocated and ask.app.queue is not None and ask.app.state != REJECTED:
        scheduler.unblock(ask)
        scheduler._changed(ask.app.queue)
