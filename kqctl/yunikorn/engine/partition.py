"""One partition built from a snapshot: its queues, the applications placed in them, the nodes.

``build_partition`` does what YuniKorn does when a config is loaded and the shim registers nodes and pods
(``initialPartitionFromConfig``, ``AddNode``, ``AddApplication``, ``AddAllocationAsk``, recovered
allocations). Bound pods are running allocations; pods of other schedulers occupy their node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import PartitionConf, RuleConf
from kqctl.yunikorn.api.configvalidator import ConfigValidator
from kqctl.yunikorn.api.names import DEFAULT_PARTITION, DOT, ROOT
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import PodInfo, Snapshot, gang_pod
from kqctl.yunikorn.engine import gang as gang_rules
from kqctl.yunikorn.engine import placement as placing
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine import ugm
from kqctl.yunikorn.engine.nodes import NodeSet
from kqctl.yunikorn.engine.objects import ACCEPTED, NEW, REJECTED, RUNNING, Application, Ask, Node
from kqctl.yunikorn.engine.placement import rule_error
from kqctl.yunikorn.engine.queue import MIN_PRIORITY, Queue, QueueCreationError, QueueTree, build_tree
from kqctl.yunikorn.engine.queue import set_resources as set_queue_resources

RESERVATION_DELAY = 2 * 1_000_000_000  # objects.reservationDelay: younger asks do not reserve a node


@dataclass(eq=False)
class Partition:
    conf: PartitionConf
    tree: QueueTree
    nodes: NodeSet
    now: int  # ns
    preemption_enabled: bool
    limits: ugm.UserGroupLimits
    rules: list[RuleConf] | None  # None: the rules could not be built (V21), every application is rejected
    rules_error: str = ""
    apps: dict[str, Application] = field(default_factory=dict)
    asks: dict[str, Ask] = field(default_factory=dict)
    held: dict[str, Ask] = field(default_factory=dict)  # pods the shim has not sent (YK-GANG-2): not the core's asks
    gang_ready: list[Application] = field(default_factory=list)  # gangs whose held real pods the shim sends next
    gang_apps: list[Application] = field(default_factory=list)  # applications with task groups (placed)
    sent: list[Ask] = field(default_factory=list)  # held pods sent since a replay last looked (YK-GANG-2)
    replacing: dict[Application, None] = field(default_factory=dict)  # gangs that may replace a placeholder now
    # task groups whose placeholders are all replaced or timed out since the last cycle: their real pods are
    # ordinary asks from now on (YK-GANG-3)
    gang_groups_done: list[tuple[Application, str]] = field(default_factory=list)

    def gang_members(self, app: Application, delta: int) -> None:
        """``delta`` real pods of a task group more (or fewer) wait in the core for a replacement."""
        gang = app.gang
        if gang is not None:
            gang.waiting_members += delta
            self.track_replacing(app)

    def hold(self, app: Application, pod: PodInfo) -> None:
        """YK-GANG-2: the shim keeps the pod back; it is an ask of the application's, not yet the core's."""
        held = Ask(pod, app, pod.resource, pod.priority, to_ns(pod.created))
        app.held.append(held)
        self.held[pod.key] = held

    def track_replacing(self, app: Application) -> None:
        """Keep ``replacing`` (the applications ``tryPlaceholderAllocate`` may do something for) up to date."""
        gang = app.gang
        if gang is not None and gang.may_replace() and app.state != REJECTED:
            self.replacing[app] = None
        else:
            self.replacing.pop(app, None)
    leaf_apps: dict[str, list[Application]] = field(default_factory=dict)
    fair_max: dict[str, Resource | None] = field(default_factory=dict)
    allocations: int = 0
    releases: int = 0
    reservation_changes: int = 0

    def queue(self, path: str) -> Queue | None:
        return self.tree.get(path)

    def root_max(self) -> Resource | None:
        """The cluster's size (``SetMaxResource``): nil when no node has anything."""
        total: Resource = {}
        for node in self.nodes.by_name.values():
            total = res.add(total, node.total)
        return total if res.strictly_greater_than_zero(total) else None

    # --- queue arithmetic (spec §8) ----------------------------------------------------------------

    def headroom(self, queue: Queue) -> Resource | None:
        """G3 ``getHeadRoom``: max - allocated per type of each max, componentwise minimum up to the root."""
        parent_room = self.headroom(queue.parent) if queue.parent is not None else None
        if queue.max is None:
            return parent_room
        own = res.sub_only_existing(queue.max, queue.allocated)
        return own if parent_room is None else res.component_wise_min(own, parent_room)

    def quota_detail(self, queue: Queue, ask: Resource) -> str:
        """Which queues' max the ask does not fit (G3), nearest first: ``root.a: vcore 1 of 4 left``."""
        parts = []
        for level in [queue, *queue.ancestors()]:
            if level.max is None:
                continue
            room = res.sub_only_existing(level.max, level.allocated) or {}
            short = [name for name, value in ask.items() if name in room and value > max(0, room[name])]
            if short:
                name = short[0]
                where = "root (the cluster)" if level.parent is None else level.path
                parts.append(f"{where}: {name} {amount_text(name, max(0, room[name]))} left of "
                             f"{amount_text(name, level.max[name])}, {amount_text(name, ask[name])} asked")
        return "; ".join(parts)

    def max_of(self, queue: Queue) -> Resource | None:
        """``GetMaxResource``: the effective max, the cluster at the top."""
        limit = self.max_of(queue.parent) if queue.parent is not None else None
        if limit is None:
            return dict(queue.max) if queue.max is not None else None
        if queue.max is None:
            return limit
        return res.component_wise_min(limit, queue.max)

    def compute_fair_max(self) -> None:
        """``GetFairMaxResource`` of every queue: the cluster size overridden by each max down the path."""
        for queue in self.tree.queues():
            if queue.parent is None:
                self.fair_max[queue.path] = dict(queue.max) if queue.max else None
                continue
            limit = self.fair_max.get(queue.parent.path)
            out = dict(limit) if limit is not None else None
            if queue.max and out:
                out.update(queue.max)
            self.fair_max[queue.path] = out

    def can_run_app(self, queue: Queue, app: Application) -> str:
        """G1 ``canRunApp``: "" when the application may start here; else which queue is full."""
        for level in queue.path_from_root():
            if not level.max_running_apps or app.app_id in level.allocating_accepted:
                continue
            if level.running_apps + len(level.allocating_accepted) + 1 > level.max_running_apps:
                held = len(level.allocating_accepted)
                reserving = f" ({held} of them gangs reserving)" if held else ""
                return (f"queue {level.path} runs {level.running_apps + held} applications{reserving}, its "
                        f"maxapplications is {level.max_running_apps}")
        return ""

    # --- priorities (spec §6) ------------------------------------------------------------------------

    def refresh_priority(self, queue: Queue) -> None:
        """P3 up the path: a leaf's raw priority is its applications' maximum, a parent's its children's
        reported maximum. A level whose priority does not change leaves its ancestors' as they are (every change
        comes through here, so they were worked out from the same values): the walk stops there."""
        current: Queue | None = queue
        while current is not None:
            if current.leaf:
                values = [app.ask_max_priority() for app in self.leaf_apps.get(current.path, [])]
            else:
                values = [child.reported_priority() for child in current.children.values()]
            raw = max(values, default=MIN_PRIORITY)
            if raw == current.raw_priority:
                return
            current.raw_priority = raw
            current = current.parent

    # --- bookkeeping of an allocation -------------------------------------------------------------------

    def path_add(self, queue: Queue, allocated: Resource, pending: Resource) -> None:
        current: Queue | None = queue
        while current is not None:
            if allocated:
                current.allocated = res.add(current.allocated, allocated)
            if pending:
                current.pending = res.add(current.pending, pending)
            current = current.parent

    def start_app(self, app: Application) -> None:
        """Accepted -> Running on its first allocation: it now counts against maxapplications (G1)."""
        if app.state != RUNNING:
            app.state = RUNNING
            queue: Queue | None = app.queue
            while queue is not None:
                queue.running_apps += 1
                queue.allocating_accepted.discard(app.app_id)
                queue = queue.parent

    def reserving_app(self, app: Application) -> None:
        """An Accepted gang got a placeholder, not yet all of them: it stays Accepted, and counts against
        maxapplications as if it ran (``setAllocatingAccepted``)."""
        queue: Queue | None = app.queue
        while queue is not None:
            queue.allocating_accepted.add(app.app_id)
            queue = queue.parent

    def forget_reserving(self, app: Application) -> None:
        """A failed gang no longer counts against maxapplications."""
        queue: Queue | None = app.queue
        while queue is not None:
            queue.allocating_accepted.discard(app.app_id)
            queue = queue.parent

    def place_on_node(self, ask: Ask, node: Node) -> None:
        """An ask becomes an allocation on ``node`` (``tryNode`` + ``TryIncAllocatedResource``)."""
        app = ask.app
        assert app.queue is not None
        node.take(ask.resource)
        node.allocations.append(ask)
        self.nodes.changed(node)
        ask.node = node.name
        app.asks_changed()
        self.allocations += 1
        ask.order = self.allocations
        minus = {name: -value for name, value in ask.resource.items()}
        app.pending = res.prune(res.add(app.pending, minus)) or {}
        app.allocated = res.add(app.allocated, ask.resource)
        self.path_add(app.queue, ask.resource, minus)
        gang = app.gang
        if gang is not None and ask.pod.is_placeholder and app.state != RUNNING and not \
                gang.all_placeholders_allocated(res.add(gang.allocated_placeholder, ask.resource)):
            self.reserving_app(app)  # the core's application turns Running with its last placeholder
        else:
            self.start_app(app)
        self.limits.track(app.queue.path, app.user, app.group, app.app_id, ask.resource)
        self.refresh_priority(app.queue)
        if app.gang is not None:
            if ask.pod.is_placeholder:
                self.placeholder_placed(ask)
            elif ask.pod.task_group:
                self.gang_members(app, -1)

    def placeholder_placed(self, ask: Ask) -> None:
        """The core's ``addAllocationInternal`` for a placeholder: the placeholder timer starts with the first one
        (YK-GANG-5); the shim sends the real pods once every task group has its placeholders (YK-GANG-2)."""
        gang = ask.app.gang
        assert gang is not None
        gang.add_placeholder(ask.resource, self.now)
        self.track_replacing(ask.app)
        if gang.all_placeholders_allocated(ask.app.placeholder):
            gang.all_allocated = True
        if gang.shim_state == gang_rules.RESERVING and reservation_complete(ask.app):
            self.send_held(ask.app)

    def send_held(self, app: Application) -> None:
        """The shim's application turns Running: its real pods are sent at the scheduler's next cycle."""
        gang = app.gang
        assert gang is not None
        gang.shim_state = gang_rules.RUNNING
        self.gang_ready.append(app)

    def release(self, ask: Ask, replaced: bool = False) -> None:
        """A victim's allocation goes away (the shim deleted the pod); ``releases`` counts them. A placeholder's
        release counts as a replacement (``replaced``) or a time-out (every other release, YK-GANG-4)."""
        self.releases += 1
        app = ask.app
        if ask.pod.is_placeholder and app.gang is not None:
            self._placeholder_released(ask, replaced)
        node = self.nodes.by_name[ask.node]
        minus = {name: -value for name, value in ask.resource.items()}
        node.give(ask.resource)
        node.allocations.remove(ask)
        self.nodes.changed(node)
        app.allocated = res.add(app.allocated, minus)
        assert app.queue is not None
        self.path_add(app.queue, minus, {})
        self.limits.track(app.queue.path, app.user, app.group, app.app_id, minus)
        ask.node = ""
        app.asks.remove(ask)
        app.asks_changed()
        self.asks.pop(ask.key, None)

    def _placeholder_released(self, ask: Ask, replaced: bool) -> None:
        """``removeAllocationInternal`` for a placeholder; a Reserving application's shim turns Running on any
        placeholder release (``ReleaseAppAllocation``, YK-GANG-2)."""
        gang = ask.app.gang
        assert gang is not None
        data = gang.data.setdefault(ask.pod.task_group, gang_rules.PlaceholderData())
        if replaced:
            data.replaced += 1
        else:
            data.timed_out += 1
        if not data.replaceable():
            self.gang_groups_done.append((ask.app, ask.pod.task_group))
        gang.allocated_placeholder = res.prune(res.sub(gang.allocated_placeholder, ask.resource)) or {}
        self.track_replacing(ask.app)
        if not gang.allocated_placeholder:
            gang.timer_start = None  # every placeholder is gone: the timer is cleared
        if gang.shim_state == gang_rules.RESERVING:
            self.send_held(ask.app)

    def reserve(self, ask: Ask, node: Node) -> None:
        self.reservation_changes += 1
        node.reserved_by = ask
        ask.reserved_node = node.name
        if not ask.reserve_order:
            ask.reserve_order = (ask.app.app_id, ask.pod.key)
        self.nodes.reserved += 1
        self.nodes.reservation_changed(node)

    def unreserve(self, ask: Ask) -> None:
        self.reservation_changes += 1
        node = self.nodes.by_name.get(ask.reserved_node)
        if node is not None and node.reserved_by is ask:
            node.reserved_by = None
            self.nodes.reserved -= 1
            self.nodes.reservation_changed(node)
        ask.reserved_node = ""

    def ask_age(self, ask: Ask) -> int:
        return self.now - ask.created


def amount_text(name: str, value: int) -> str:
    """An amount in YuniKorn's units (vcore milli-cores, memory bytes) in kqctl's reading style (kqctl.k8s.units),
    exact for vcore (``2.5``, ``500m``), memory in the largest binary unit with three significant digits."""
    from kqctl.k8s.units import cores, human_bytes

    if value == 0:
        return "0"
    if name == "vcore":
        return cores(value)
    if name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
        return human_bytes(value)
    return str(value)


def to_ns(moment: datetime) -> int:
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def from_ns(ns: int) -> datetime:
    """The moment ``to_ns`` gives ``ns`` for, in UTC (to the microsecond)."""
    from datetime import timedelta, timezone

    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=ns // 1000)


class PartitionError(Exception):
    """The partition cannot be built: YuniKorn would not schedule anything with this configuration."""


def build_partition(snapshot: Snapshot) -> Partition:
    """The partition ``default`` (the one the Kubernetes shim uses) with every pod placed."""
    parsed = snapshot.config.parsed
    config = parsed.config
    if config is None or parsed.errors or parsed.syntax is not None:
        raise PartitionError("the queue configuration does not decode (kqctl validate shows where)")
    validator = ConfigValidator()
    validator.validate(config)
    if validator.first is not None:
        raise PartitionError(f"YuniKorn rejects the queue configuration: {validator.first.message} "
                             "(kqctl validate shows every problem)")
    partition_conf = next((p for p in config.partitions or [] if p.name == DEFAULT_PARTITION), None)
    if partition_conf is None:
        raise PartitionError("the configuration has no partition named default: the Kubernetes shim submits every "
                             "application there, so nothing is scheduled (YK-V27C)")
    try:
        tree = build_tree(partition_conf)
    except QueueCreationError as exc:
        raise PartitionError(f"YuniKorn cannot build the queues: {exc} (YK-V20)") from None
    rules: list[RuleConf] | None = partition_conf.placementrules or None
    rules_error = next((e for e in (rule_error(r) for r in partition_conf.placementrules or []) if e), "")
    preemption = partition_conf.preemption
    nodes = [Node(info, dict(info.capacity)) for info in snapshot.nodes]
    node_set = NodeSet(nodes, partition_conf.nodesortpolicy.type, partition_conf.nodesortpolicy.resourceweights)
    assert snapshot.now is not None
    partition = Partition(partition_conf, tree, node_set, to_ns(snapshot.now),
                          preemption.enabled is None or preemption.enabled, ugm.from_config(partition_conf.root),
                          None if rules_error else (rules or []), rules_error)
    tree.root.max = partition.root_max()
    for pod in snapshot.foreign:
        node = node_set.by_name.get(pod.node)
        if node is not None:
            node.take(pod.resource, foreign=True)
    for node in nodes:
        node_set.changed(node)
    _add_applications(partition, snapshot)
    partition.compute_fair_max()
    for queue in tree.leaves():
        partition.refresh_priority(queue)
    return partition


def _add_applications(partition: Partition, snapshot: Snapshot) -> None:
    by_app: dict[str, list[PodInfo]] = {}
    for pod in snapshot.pods:
        by_app.setdefault(pod.app_id, []).append(pod)
    assert snapshot.now is not None
    for app_id in sorted(by_app):
        pods = sorted(by_app[app_id], key=lambda p: (p.created, p.name))
        first, gang = pods[0], gang_pod(pods)
        app = Application(app_id, first.namespace, first.user, first.groups, to_ns(first.created),
                          requested_queue=first.queue, placeholder=gang.placeholder if gang else None)
        partition.apps[app_id] = app
        sent = gang_pods(partition, app, pods, gang, snapshot.now)
        for i, pod in enumerate(sent):
            ask = Ask(pod, app, pod.resource, pod.priority, to_ns(pod.created), originator=i == 0)
            app.asks.append(ask)
            partition.asks[pod.key] = ask
        app.asks.sort(key=Ask.order_key)
        app.asks_changed()
        _place(partition, app, snapshot)
        if app.state == REJECTED and app.gang is not None:
            unmake_placeholders(partition, app, {pod.key for pod in pods})


def unmake_placeholders(partition: Partition, app: Application, given: set[str]) -> None:
    """The shim reserves only for an application the core accepted: a rejected one gets no placeholders and its
    pods are its asks, as any rejected application's."""
    assert app.gang is not None
    for ask in [ask for ask in app.asks if ask.key not in given]:
        app.asks.remove(ask)
        del partition.asks[ask.key]
    for ask in app.held:
        del partition.held[ask.key]
        if ask.key in given:
            app.asks.append(ask)
            partition.asks[ask.key] = ask
    app.held = []
    app.asks.sort(key=Ask.order_key)
    app.gang = None


def gang_pods(partition: Partition, app: Application, pods: list[PodInfo], gang: PodInfo | None,
               now: datetime) -> list[PodInfo]:
    """YK-GANG-1 and YK-GANG-2 as the shim applies them when it starts: the pods it sends the core now, with the
    placeholders it makes; the others wait in ``app.held`` (``partition.held`` finds them by key)."""
    state, made = gang_rules.plan(pods, gang, now)
    app.gang = state
    if state is None:
        return pods
    everything = pods + made
    if state.shim_state == gang_rules.RESERVING:
        sent = [pod for pod in everything if pod.is_placeholder]
    elif state.shim_state == gang_rules.RUNNING:
        # a running application's pending placeholders are never sent (only real pods are, ``Schedule``); bound
        # ones are allocations the core recovers
        sent = [pod for pod in everything if not pod.is_placeholder or pod.node]
    else:
        sent = []  # failed: nothing is sent
    kept = {pod.key for pod in sent}
    for pod in everything:
        if pod.key not in kept:
            partition.hold(app, pod)
    gang_rules.placeholder_data(state, [pod for pod in sent if pod.is_placeholder])
    return sent


def _place(partition: Partition, app: Application, snapshot: Snapshot) -> None:
    """``PartitionContext.AddApplication``: placement, queue creation, namespace limits on dynamic leaves."""
    namespace = snapshot.namespaces.get(app.namespace)
    tags = {placing.TAG_NAMESPACE: app.namespace}
    if namespace is not None and namespace.parent_queue:
        tags[placing.TAG_PARENT_QUEUE] = namespace.parent_queue
    if partition.rules is None:
        _reject(app, f"placement rules cannot be built ({partition.rules_error}): {placing.REJECTED}")
        return
    submitter = placing.Submitter(app.requested_queue, app.user, app.groups, tags)
    decided = placing.place(partition.rules, submitter, partition.tree.get)
    app.decision = decided
    if not decided.queue:
        _reject(app, f"failed to place application {app.app_id}: {decided.error}")
        app.placement = decided.rule
        app.passed_over = "; ".join(f"{step.result}: {step.outcome}" for step in decided.steps if step.result)
        return
    queue = partition.tree.get(decided.queue)
    if queue is None:
        try:
            queue = partition.tree.create_dynamic(decided.queue)
        except QueueCreationError as exc:
            _reject(app, f"failed to create rule based queue {decided.queue} for application {app.app_id}: {exc}")
            return
    if not queue.leaf:
        _reject(app, f"failed to find queue {decided.queue} for application {app.app_id}")
        return
    if not queue.managed and namespace is not None:
        _apply_namespace_limits(queue, namespace.quota, namespace.guaranteed, namespace.max_apps)
    why = _gang_refused(queue, app)
    if why:
        _reject(app, why)
        return
    app.queue = queue
    app.placement = decided.rule
    app.group = partition.limits.group_for(queue.path, app.groups)
    partition.leaf_apps.setdefault(queue.path, []).append(app)
    _add_asks(partition, app)
    gang = app.gang
    if gang is not None:
        partition.gang_apps.append(app)
        gang.all_allocated = gang.all_placeholders_allocated(app.placeholder)
        partition.track_replacing(app)
    if gang is not None and gang.shim_state == gang_rules.RESERVING and reservation_complete(app):
        partition.send_held(app)  # recovered with every placeholder bound (``onReserving``, YK-GANG-2)


def _gang_refused(queue: Queue, app: Application) -> str:
    """V28 ``AddApplication`` for a gang application: only a fifo leaf takes it, and its placeholders must fit the
    smallest max below root on the queue's path (``GetMaxQueueSet``)."""
    ask = app.placeholder
    if ask is None or res.is_zero(ask):
        return ""
    if queue.settings.sort_policy != props.FIFO:
        return f"queue {queue.path} cannot run application {app.app_id} with task group request: unsupported sort type"
    limit: Resource | None = None
    for level in queue.path_from_root()[1:]:
        if level.max is not None:
            limit = dict(level.max) if limit is None else res.component_wise_min(limit, level.max)
    if limit is not None and not res.fit_in_max_undef(limit, ask):
        return (f"queue {queue.path} cannot fit application {app.app_id}: task group request {res.go_string(ask)} "
                f"larger than max queue allocation {res.go_string(limit)}")
    return ""


def _apply_namespace_limits(queue: Queue, quota: Resource | None, guaranteed: Resource | None, max_apps: int) -> None:
    """G6: namespace annotations set limits on the application's dynamic leaf (never on a configured one)."""
    if guaranteed is None and quota is None and max_apps == 0:
        return
    if max_apps:
        queue.max_running_apps = max_apps
    if guaranteed is not None or quota is not None:
        set_queue_resources(queue, guaranteed, quota)


def _add_asks(partition: Partition, app: Application) -> None:
    """Pending asks make the application Accepted; bound pods are its running allocations."""
    assert app.queue is not None
    for ask in app.asks:
        if ask.pod.node:
            node = partition.nodes.by_name.get(ask.pod.node)
            if node is None:
                continue  # bound to a node kqctl was not given: its usage is unknown
            node.take(ask.resource)
            node.allocations.append(ask)
            partition.nodes.changed(node)
            ask.node = node.name
            app.asks_changed()
            app.allocated = res.add(app.allocated, ask.resource)
            if ask.pod.is_placeholder and app.gang is not None:
                app.gang.add_placeholder(ask.resource, partition.now)  # recovered: the timer starts now
            partition.path_add(app.queue, ask.resource, {})
            partition.limits.track(app.queue.path, app.user, app.group, app.app_id, ask.resource)
            if not ask.pod.is_placeholder or app.gang is None or \
                    app.gang.all_placeholders_allocated(app.gang.allocated_placeholder):
                partition.start_app(app)  # recovered placeholders run the application once they are all there
        else:
            app.pending = res.add(app.pending, ask.resource)
            partition.path_add(app.queue, {}, ask.resource)
            if app.gang is not None and ask.pod.task_group and not ask.pod.is_placeholder:
                app.gang.waiting_members += 1
            if app.state == NEW:
                app.state = ACCEPTED


def bound_placeholders(app: Application) -> dict[str, int]:
    """The application's placeholders on a node, per task group."""
    bound: dict[str, int] = {}
    for ask in app.asks:
        if ask.pod.is_placeholder and ask.allocated:
            bound[ask.pod.task_group] = bound.get(ask.pod.task_group, 0) + 1
    return bound


def reservation_complete(app: Application) -> bool:
    """``onReservationStateChange``: every task group has at least ``minMember`` placeholders bound."""
    gang = app.gang
    assert gang is not None
    bound = bound_placeholders(app)
    return all(bound.get(group.name, 0) >= group.min_member for group in gang.groups)


def _reject(app: Application, reason: str) -> None:
    app.state = REJECTED
    app.rejected = reason


def leaf_path(path: str) -> str:
    return path if path.startswith(ROOT) else f"{ROOT}{DOT}{path}"


def admit(partition: Partition, app: Application, queue: Queue) -> None:
    """Add an application to a leaf directly, without placement (as YuniKorn's own unit tests do), then its
    asks; priorities are refreshed up the path."""
    app.queue = queue
    partition.apps[app.app_id] = app
    partition.leaf_apps.setdefault(queue.path, []).append(app)
    for ask in app.asks:
        partition.asks[ask.key] = ask
    _add_asks(partition, app)
    partition.refresh_priority(queue)
