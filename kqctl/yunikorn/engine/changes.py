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
from kqctl.yunikorn.api.snapshot import PodInfo, Snapshot, gang_pod
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import ACCEPTED, NEW, REJECTED, RUNNING, Application, Ask, Node
from kqctl.yunikorn.engine.partition import _place, to_ns

COMPLETING = "Completing"


def set_clock(scheduler: Scheduler, now_ns: int) -> None:
    """The core's clock (asks' ages: reservation delay, preemption delay) reads ``now_ns``."""
    scheduler.p.now = now_ns


def submit(scheduler: Scheduler, snapshot: Snapshot, pods: Iterable[PodInfo]) -> list[Ask]:
    """The shim sends these pods' asks; an application the core does not know is placed first (it may be
    rejected). Returns the asks the core holds now (none for a rejected application's pods)."""
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
            asks = _asks(app, members)
            app.asks.extend(asks)
            app.asks.sort(key=Ask.order_key)
            app.asks_changed()
            _place(p, app, snapshot)  # placement, a dynamic queue, the asks' pending resources (AddApplication)
            if app.state == REJECTED or app.queue is None:
                continue
            for ask in asks:
                p.asks[ask.key] = ask
            if app.queue.path not in scheduler.active:
                _new_queues(scheduler)
        else:
            if app.state == REJECTED or app.queue is None:
                continue
            asks = _asks(app, members)
            app.asks.extend(asks)
            app.asks.sort(key=Ask.order_key)
            app.asks_changed()
            for ask in asks:
                p.asks[ask.key] = ask
                app.pending = res.add(app.pending, ask.resource)
                p.path_add(app.queue, {}, ask.resource)
            if app.state in (NEW, COMPLETING):
                app.state = ACCEPTED  # it runs again with its next allocation, checked against maxapplications
        assert app.queue is not None
        scheduler._add_active(app.queue.path, len(asks))
        scheduler._changed(app.queue)
        p.refresh_priority(app.queue)
        added.extend(asks)
    return added


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
