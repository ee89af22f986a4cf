"""``kqctl simulate`` for YuniKorn: cycles until nothing more happens, as a frozen result.

What changes between cycles is only what the cycles do (nothing finishes in a snapshot): allocations,
reservations, and preemptions whose victims are released at once. The result says, per pod, where it runs
(its node and the allocation's order), or why it waits with YuniKorn's own reason where it has one; per
queue its limits, usage and reported priority.
"""

from __future__ import annotations

from dataclasses import dataclass

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine import gang as gang_rules
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.inadmissible import NeverFits, fail_on_states
from kqctl.yunikorn.engine.objects import ACCEPTED, REJECTED, Application, Ask
from kqctl.yunikorn.engine.partition import Partition, bound_placeholders, build_partition
from kqctl.yunikorn.engine.state import ALLOCATED, ALLOCATED_RESERVED, PREEMPTED, CycleResult

RUNNING = "Running"  # bound before the simulation
ALLOCATED_STATE = "Allocated"  # placed by the simulation
PENDING = "Pending"
REJECTED_STATE = "Rejected"
PREEMPTED_STATE = "Preempted"
REPLACED_STATE = "Replaced"  # a placeholder whose place a real pod took (YK-GANG-4)
RELEASED_STATE = "Released"  # a placeholder released unreplaced (YK-GANG-4)
FAILED_STATE = "Failed"  # the shim failed its gang application (YK-GANG-1, YK-GANG-5)
PREEMPTED_FOR = "preempted to make room for "  # a victim's reason, followed by the preemptor's namespace/name
MAX_CYCLES = 1_000_000


@dataclass(frozen=True)
class PodOutcome:
    namespace: str
    name: str
    app_id: str
    queue: str
    state: str
    node: str
    order: int  # the allocation's position in the simulation (0: not allocated by it)
    priority: int
    resource: Resource
    reason: str  # why it waits, was rejected or preempted; how it was placed otherwise
    reserved_node: str = ""
    preempted: tuple[str, ...] = ()  # the pods its allocation preempted
    labels: tuple[tuple[str, str], ...] = ()
    inadmissible: str = ""  # a Pending pod that can never get in as configured: why (inadmissible.never_fits)
    placeholder: bool = False  # a placeholder pod of a gang (YK-GANG-1)
    task_group: str = ""
    replaced: str = ""  # a real pod: the placeholder whose place it took

    @property
    def fail_on(self) -> tuple[str, ...]:
        """The ``--fail-on`` states it ends in: inadmissible, pending, preempted (inadmissible.fail_on_states)."""
        return fail_on_states(self.state, self.inadmissible)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class QueueOutcome:
    path: str
    leaf: bool
    managed: bool
    guaranteed: Resource | None
    max: Resource | None
    allocated: Resource
    pending: Resource
    share: float
    priority: int  # reported (P4) at the end
    running_apps: int
    max_apps: int
    applications: int


@dataclass(frozen=True)
class Event:
    order: int
    kind: str  # allocated, allocated-reserved, reserved, preempted
    pod: str
    node: str
    queue: str
    victims: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimulationResult:
    config: str  # where the queue configuration came from
    partition: str
    node_sort_policy: str
    preemption_enabled: bool
    cluster: Resource
    pods: tuple[PodOutcome, ...]
    queues: tuple[QueueOutcome, ...]
    events: tuple[Event, ...]
    cycles: int


def simulate(snapshot: Snapshot, max_cycles: int = MAX_CYCLES) -> SimulationResult:
    partition = build_partition(snapshot)
    scheduler = Scheduler(partition)
    results = scheduler.run(max_cycles)
    return result_of(snapshot, partition, results)


def result_of(snapshot: Snapshot, partition: Partition, results: list[CycleResult]) -> SimulationResult:
    events = tuple(Event(i + 1, r.kind, r.ask.key, r.node, r.ask.app.queue.path if r.ask.app.queue else "",
                         tuple(v.key for v in r.victims)) for i, r in enumerate(results))
    preempted_by: dict[str, tuple[str, ...]] = {r.ask.key: tuple(v.key for v in r.victims) for r in results
                                                if r.kind == PREEMPTED}
    never = NeverFits(partition)
    outcomes = [_pod(ask, preempted_by, never) for ask in partition.asks.values()]
    released = [victim for r in results for victim in r.victims]
    outcomes.extend(_pod(victim, preempted_by, never) for victim in released)
    outcomes.extend(_held(ask) for ask in partition.held.values())
    queues = tuple(_queue(partition, queue) for queue in partition.tree.queues())
    return SimulationResult(
        config=snapshot.config.description,
        partition=partition.conf.name,
        node_sort_policy=partition.nodes.policy,
        preemption_enabled=partition.preemption_enabled,
        cluster=partition.tree.root.max or {},
        pods=tuple(sorted(outcomes, key=lambda o: (o.namespace, o.name))),
        queues=queues,
        events=events,
        cycles=len(results),
    )


def _common(ask: Ask) -> dict[str, object]:
    app = ask.app
    return dict(namespace=ask.pod.namespace, name=ask.pod.name, app_id=app.app_id,
                queue=app.queue.path if app.queue is not None else "", priority=ask.priority,
                resource=dict(ask.resource), labels=tuple(sorted(ask.pod.labels.items())),
                placeholder=ask.pod.is_placeholder, task_group=ask.pod.task_group, replaced=ask.replaced)


def _held(ask: Ask) -> PodOutcome:
    """A pod the shim has not sent the core (YK-GANG-1, YK-GANG-2)."""
    gang = ask.app.gang
    assert gang is not None
    common = _common(ask)
    if ask.app.state == REJECTED:
        return PodOutcome(**common, state=REJECTED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=ask.app.rejected)
    if gang.shim_state == gang_rules.FAILED:
        return PodOutcome(**common, state=FAILED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=f"{gang.failed}: {gang.decision} (YK-GANG-1)")
    if ask.pod.is_placeholder:
        reason = "a placeholder of an application that runs already: the shim sends only its real pods (YK-GANG-2)"
    else:
        reason = f"waiting for its gang's placeholders: {gang_progress(ask.app)} (YK-GANG-2)"
    return PodOutcome(**common, state=PENDING, node="", order=0, reason=reason)  # type: ignore[arg-type]


def gang_progress(app: Application) -> str:
    """How far the application's reservation is: placeholders allocated of those each task group needs."""
    gang = app.gang
    assert gang is not None
    bound = bound_placeholders(app)
    return ", ".join(f"task group {group.name} {min(bound.get(group.name, 0), group.min_member)} of "
                     f"{group.min_member} allocated" for group in gang.groups)


def _pod(ask: Ask, preempted_by: dict[str, tuple[str, ...]], never: NeverFits) -> PodOutcome:
    app = ask.app
    common = _common(ask)
    if ask.replaced_by:
        return PodOutcome(**common, state=REPLACED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=f"replaced by {ask.replaced_by} (YK-GANG-4)")
    if ask.released:
        return PodOutcome(**common, state=RELEASED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=f"released: {ask.released} (YK-GANG-4)")
    if ask.preempted_by:
        return PodOutcome(**common, state=PREEMPTED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=f"{PREEMPTED_FOR}{ask.preempted_by}")
    if app.state == REJECTED:
        return PodOutcome(**common, state=REJECTED_STATE, node="", order=0,  # type: ignore[arg-type]
                          reason=app.rejected)
    if ask.allocated:
        state = ALLOCATED_STATE if ask.order else RUNNING
        reason = f"placed by {app.placement}" if ask.order else "bound before the snapshot"
        if ask.replaced:
            reason = f"took the place of placeholder {ask.replaced} (YK-GANG-4)"
        return PodOutcome(**common, state=state, node=ask.node, order=ask.order, reason=reason,  # type: ignore[arg-type]
                          preempted=preempted_by.get(ask.key, ()))
    reason = ask.failure or ("application waiting to run" if app.state == ACCEPTED else "not tried")
    if app.gang is not None and app.gang.can_replace(ask.pod):
        reason = (f"it may only take the place of a placeholder of task group {ask.pod.task_group}: none could be "
                  "swapped for it (YK-GANG-3, YK-GANG-4)")
    if ask.reserved_node:
        reason = f"{reason}; node {ask.reserved_node} is reserved for it"
    return PodOutcome(**common, state=PENDING, node="", order=0, reason=reason,  # type: ignore[arg-type]
                      reserved_node=ask.reserved_node, preempted=preempted_by.get(ask.key, ()),
                      inadmissible=never(ask))


def _queue(partition: Partition, queue: object) -> QueueOutcome:
    from kqctl.yunikorn.engine.queue import Queue

    assert isinstance(queue, Queue)
    apps = partition.leaf_apps.get(queue.path, [])
    count = len(apps) if queue.leaf else sum(len(partition.leaf_apps.get(q.path, [])) for q in queue.walk())
    return QueueOutcome(
        path=queue.path, leaf=queue.leaf, managed=queue.managed, guaranteed=queue.guaranteed, max=queue.max,
        allocated=dict(queue.allocated), pending=res.prune(queue.pending) or {},
        share=res.fair_share(queue.allocated, queue.guaranteed, partition.fair_max.get(queue.path)),
        priority=queue.reported_priority(), running_apps=queue.running_apps, max_apps=queue.max_running_apps,
        applications=count)


__all__ = ["ALLOCATED", "ALLOCATED_RESERVED", "SimulationResult", "simulate"]
