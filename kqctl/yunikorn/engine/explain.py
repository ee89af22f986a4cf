"""``kqctl explain NAMESPACE/POD`` for YuniKorn: why a pod runs where it does, or why it waits.

The state explained is the one the simulation ends in (nothing more can be allocated). Sections follow the
order YuniKorn decides in: placement (§9), the application's state and maxapplications (G1), priorities along
the path and the order at every level (§6, §7.1), the application's position in its leaf (§7.2), user and
group limits (G2), queue headroom per resource up the path (G3), node fit, and preemption (§10). Suggestions
change one thing in a copy of the inputs and are kept only when a new simulation lets the pod run.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import MapConf, QueueConf, SchedulerConf
from kqctl.yunikorn.api.names import NAMESPACE_MAX_APPS, NAMESPACE_QUOTA, WILDCARD
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import NodeInfo, Snapshot
from kqctl.yunikorn.engine import placement as placing
from kqctl.yunikorn.engine import preemption as preempting
from kqctl.yunikorn.engine import sorting, ugm
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import REJECTED, Application, Ask
from kqctl.yunikorn.engine.partition import Partition, PartitionError, amount_text, build_partition
from kqctl.yunikorn.engine.priority import Level, QueuePriority, queue_priority, sibling_order
from kqctl.yunikorn.engine.queue import Queue
from kqctl.yunikorn.engine.simulation import ALLOCATED_STATE, RUNNING, PodOutcome, result_of

MAX_SUGGESTIONS = 6
MAX_TRIES = 12  # each candidate change costs a whole simulation


@dataclass(frozen=True)
class HeadroomRow:
    """G3 at one queue for one resource type: max, allocated, what is left, what the pod asks."""

    queue: str
    resource: str
    max: int | None
    allocated: int
    headroom: int | None  # after the ancestors' (componentwise minimum); None: unlimited
    ask: int
    fits: bool


@dataclass(frozen=True)
class AppsRow:
    """G1 at one queue: running applications against maxapplications."""

    queue: str
    running: int
    max: int
    ok: bool


@dataclass(frozen=True)
class AppPosition:
    app_id: str
    priority: int
    submitted: int
    usage: Resource
    tie_with_next: bool
    this: bool


@dataclass(frozen=True)
class PreemptionView:
    enabled: bool
    verdict: str
    preconditions: str  # "" when met
    fence: str
    victims: tuple[str, ...]
    remaining_guaranteed: Resource | None


@dataclass(frozen=True)
class Suggestion:
    change: str
    verified: bool
    outcome: str  # the pod's state when the change is made


@dataclass(frozen=True)
class Explanation:
    pod: PodOutcome
    requested_queue: str
    placement: placing.Placement | None
    app_state: str
    chain: tuple[QueuePriority, ...]
    levels: tuple[Level, ...]
    position: tuple[AppPosition, ...]
    sort_policy: str
    apps: tuple[AppsRow, ...]
    user_limits: tuple[ugm.Binding, ...]
    user_headroom: Resource | None
    headroom: tuple[HeadroomRow, ...]
    nodes: str
    preemption: PreemptionView | None
    suggestions: tuple[Suggestion, ...] = field(default=())
    missing_queue: placing.MissingQueue | None = None  # the queue the pod names does not exist and was not made


class UnknownPod(LookupError):
    """No YuniKorn pod of that name in the inputs."""


def explain_pod(snapshot: Snapshot, key: str, suggest: bool = True) -> Explanation:
    partition = build_partition(snapshot)
    scheduler = Scheduler(partition)
    results = scheduler.run()
    outcome = next((p for p in result_of(snapshot, partition, results).pods if p.key == key), None)
    if outcome is None:
        raise UnknownPod(key)
    ask = partition.asks.get(key)
    app = partition.apps[outcome.app_id]
    queue = app.queue
    explanation = Explanation(
        pod=outcome,
        requested_queue=app.requested_queue,
        placement=_placement(partition, app, snapshot),
        app_state=app.state,
        chain=tuple(queue_priority(partition, q) for q in queue.path_from_root()) if queue else (),
        levels=tuple(sibling_order(partition, q) for q in queue.path_from_root() if not q.leaf) if queue else (),
        position=_position(partition, queue, app) if queue else (),
        sort_policy=queue.settings.sort_policy if queue else "",
        apps=_apps(queue) if queue else (),
        user_limits=tuple(partition.limits.headroom(queue.path, app.user, app.group)[1]) if queue else (),
        user_headroom=partition.limits.headroom(queue.path, app.user, app.group)[0] if queue else None,
        headroom=_headroom(partition, queue, ask) if queue is not None and ask is not None else (),
        nodes=_nodes(partition, ask),
        preemption=_preemption(scheduler, ask) if ask is not None and queue is not None and not ask.allocated
        and app.state != REJECTED else None,
        missing_queue=_missing_queue(partition, app),
    )
    if suggest and outcome.state not in (RUNNING, ALLOCATED_STATE):
        explanation = Explanation(**{**explanation.__dict__, "suggestions": tuple(suggestions(snapshot, explanation,
                                                                                          partition, ask))})
    return explanation


def _placement(partition: Partition, app: Application, snapshot: Snapshot) -> placing.Placement | None:
    if partition.rules is None:
        return placing.Placement("", "", (), f"placement rules cannot be built: {partition.rules_error}")
    namespace = snapshot.namespaces.get(app.namespace)
    tags = {placing.TAG_NAMESPACE: app.namespace}
    if namespace is not None and namespace.parent_queue:
        tags[placing.TAG_PARENT_QUEUE] = namespace.parent_queue
    return placing.place(partition.rules, placing.Submitter(app.requested_queue, app.user, app.groups, tags),
                         partition.tree.get)


def _nodes(partition: Partition, ask: Ask | None) -> str:
    """Why no node took the pod; a resource no node has is named (it counts as 0 at root, G4: never fits)."""
    if ask is None or ask.allocated or not ask.failure.startswith("no node"):
        return ""
    cluster = partition.root_max() or {}
    absent = sorted(name for name, value in ask.resource.items() if value > 0 and cluster.get(name, 0) <= 0)
    if not absent:
        return ask.failure
    return (f"{ask.failure}; no node has any {', '.join(absent)}: YuniKorn counts it as 0 at root, so this pod "
            "never fits (YK-G4)")


def _missing_queue(partition: Partition, app: Application) -> placing.MissingQueue | None:
    """The queue the pod names when it does not exist and placement did not create it (a typo, most often)."""
    tree = partition.tree
    paths = [q.path for q in tree.leaves()] + [q.path for q in tree.queues() if not q.leaf]
    missing = placing.missing_queue(app.requested_queue, tree.get, paths)
    if missing is None or (app.queue is not None and app.queue.path == missing.path):
        return None
    return missing


def _position(partition: Partition, queue: Queue, app: Application) -> tuple[AppPosition, ...]:
    """§7.2: the applications of the leaf with something pending, in the order YuniKorn tries them."""
    apps = [a for a in partition.leaf_apps.get(queue.path, [])
            if a.state != REJECTED and (res.strictly_greater_than_zero(a.pending) or a is app)]
    entries = [sorting.AppEntry(a.app_id, a.ask_max_priority(), a.allocated, a.submission, queue.guaranteed, a)
               for a in apps]
    settings = queue.settings
    ordered = sorting.sort_applications(entries, settings.sort_policy, settings.priority_sort_enabled)
    ties = sorting.tied_with_next(ordered, sorting.app_less(settings.sort_policy, settings.priority_sort_enabled))
    return tuple(AppPosition(e.app_id, e.priority, e.submission_time, dict(e.allocated), tie, e.item is app)
                 for e, tie in zip(ordered, ties, strict=True))


def _apps(queue: Queue) -> tuple[AppsRow, ...]:
    return tuple(AppsRow(q.path, q.running_apps, q.max_running_apps,
                         q.max_running_apps == 0 or q.running_apps + 1 <= q.max_running_apps)
                 for q in queue.path_from_root())


def _headroom(partition: Partition, queue: Queue, ask: Ask) -> tuple[HeadroomRow, ...]:
    rows = []
    for level in queue.path_from_root():
        room = partition.headroom(level)
        for name in sorted(ask.resource):
            maximum = level.max.get(name) if level.max is not None else None
            left = room.get(name) if room is not None else None
            fits = left is None or ask.resource[name] <= max(0, left)
            rows.append(HeadroomRow(level.path, name, maximum, level.allocated.get(name, 0), left,
                                    ask.resource[name], fits))
    return tuple(rows)


def _preemption(scheduler: Scheduler, ask: Ask) -> PreemptionView:
    partition = scheduler.p
    queue = ask.app.queue
    assert queue is not None
    if not partition.preemption_enabled:
        return PreemptionView(False, "preemption is disabled for the partition", "", "", (), None)
    why = preempting.preconditions(partition.now, ask, queue) if not ask.preempt_checked else ""
    results, fence = preempting.eligible_victims(scheduler, ask)
    own = results.get(queue.path)
    remaining = own.remaining_guaranteed() if own is not None else None
    victims = tuple(sorted(v.key for v in preempting.by_victim_list(results)))
    if why:
        verdict = f"{preempting.PRECONDITIONS_FAILED}: {why}"
    elif remaining is None:
        verdict = "no guaranteed resources on the queue's path: YuniKorn never preempts for it"
    elif not preempting.check_guarantees(results, ask, queue.path):
        verdict = (f"{preempting.GUARANTEES_FAILED}: the queue is not below its guaranteed resources, and "
                   "removing the eligible victims would not bring it there")
    elif not victims:
        verdict = f"{preempting.DOES_NOT_HELP}: no eligible victim below {fence.path}"
    else:
        verdict = ask.failure if "Preemption" in ask.failure else "preemption could free room (see victims)"
    return PreemptionView(True, verdict, why, fence.path, victims, remaining)


# --- suggestions, each verified by simulating again -----------------------------------------------------


def suggestions(snapshot: Snapshot, explanation: Explanation, partition: Partition,
                ask: Ask | None) -> list[Suggestion]:
    found: list[Suggestion] = []
    for text, change in _candidates(snapshot, explanation, partition, ask)[:MAX_TRIES]:
        if len(found) >= MAX_SUGGESTIONS:
            break
        state = _try(snapshot, change, explanation.pod.key)
        if state in (ALLOCATED_STATE, RUNNING):
            found.append(Suggestion(text, True, state))
    return found


Change = Callable[[Snapshot], None]


def _candidates(snapshot: Snapshot, explanation: Explanation, partition: Partition,
                ask: Ask | None) -> list[tuple[str, Change]]:
    out: list[tuple[str, Change]] = []
    queue_path = explanation.pod.queue

    def configured(path: str) -> bool:  # dynamic queues get their settings from a template or the namespace
        queue = partition.tree.get(path)
        return queue is not None and queue.managed

    namespace = snapshot.namespaces.get(explanation.pod.namespace)
    missing = explanation.missing_queue
    if missing is not None:
        for close in missing.close:
            out.append((f"name queue {close} in the pod's queue label (its application {explanation.pod.app_id} "
                        f"asks for {missing.path}, which does not exist)", _set_app_queue(explanation.pod.app_id,
                                                                                           close)))
    if ask is not None and queue_path:
        short: dict[str, dict[str, tuple[int, int, int]]] = {}  # queue -> resource -> (needed, max, in use)
        for row in explanation.headroom:
            if row.fits or row.max is None or row.queue == "root":
                continue
            short.setdefault(row.queue, {})[row.resource] = (row.allocated + row.ask, row.max, row.allocated)
        for path, rows in short.items():
            to = ", ".join(f"{name} {_shown(name, needed)}" for name, (needed, _, _) in rows.items())
            allows = "; ".join(f"{name}: it allows {_shown(name, limit)}, {_shown(name, used)} in use"
                               for name, (_, limit, used) in rows.items())
            wanted = {name: needed for name, (needed, _, _) in rows.items()}
            if configured(path):
                out.append((f"raise the max of {path} to {to} ({allows})", _set_max(path, wanted)))
            elif path == queue_path and namespace is not None and namespace.quota \
                    and all(name in namespace.quota for name in rows):
                quota = ", ".join(f'"{"cpu" if name == res.VCORE else name}": "{_quantity(name, needed)}"'
                                  for name, (needed, _, _) in rows.items())
                out.append((f"raise the {NAMESPACE_QUOTA} annotation of namespace {namespace.name} to {quota} "
                            f"({allows})", _set_namespace_quota(namespace.name, wanted)))
        for binding in explanation.user_limits:
            lacking = {name: ask.resource[name] - left for name, left in binding.left.items()
                       if name in ask.resource and ask.resource[name] > left}
            if not lacking:
                continue
            wanted = {name: binding.max_resources[name] + more for name, more in lacking.items()}
            to = ", ".join(f"{name} {_shown(name, value)}" for name, value in wanted.items())
            limit = binding.limit or "(unnamed)"
            out.append((f"raise the maxresources of {binding.kind} {binding.name}'s limit {limit} on {binding.queue} "
                        f"to {to}", _set_limit(binding, wanted)))
        for apps in explanation.apps:
            if apps.ok:
                continue
            if configured(apps.queue):
                out.append((f"raise maxapplications of {apps.queue} to {apps.running + 1}",
                            _set_max_apps(apps.queue, apps.running + 1)))
            elif apps.queue == queue_path and namespace is not None and namespace.max_apps:
                out.append((f"raise the {NAMESPACE_MAX_APPS} annotation of namespace {namespace.name} to "
                            f"{apps.running + 1}", _set_namespace_max_apps(namespace.name, apps.running + 1)))
        for level in explanation.chain:
            if level.policy == "fence" and level.path != queue_path and configured(level.path):
                out.append((f"remove priority.policy: fence from {level.path} (it reports {level.offset} whatever "
                            "is pending below it)", _set_property(level.path, "priority.policy", "default")))
        for level in explanation.chain[1:]:
            if configured(level.path):
                out.append((f"raise priority.offset of {level.path} from {level.offset} to {level.offset + 1000}",
                            _set_property(level.path, "priority.offset", str(level.offset + 1000))))
        if snapshot.nodes and not ask.allocated:
            biggest = max(snapshot.nodes, key=lambda n: (n.capacity.get("vcore", 0), n.capacity.get("memory", 0)))
            out.append((f"add one more node like {biggest.name} ({_resources(biggest.capacity)})",
                        _add_node(biggest)))
    elif explanation.placement is not None and not explanation.placement.queue:
        out.append(("allow everyone to submit: submitacl: '*' on root", _set_root_acl("*")))
    return out


def _try(snapshot: Snapshot, change: Change, key: str) -> str:
    changed = copy.deepcopy(snapshot)
    try:
        change(changed)
        partition = build_partition(changed)
    except (PartitionError, KeyError, ValueError):
        return ""
    scheduler = Scheduler(partition)
    results = scheduler.run()
    outcome = next((p for p in result_of(changed, partition, results).pods if p.key == key), None)
    return outcome.state if outcome is not None else ""


def _queue_conf(config: SchedulerConf, path: str) -> QueueConf:
    partition = next(p for p in config.partitions or [] if p.name == "default")
    parts = path.split(".")
    queue = partition.root
    for part in parts[1:]:
        found = next((q for q in queue.children if q.name.lower() == part), None)
        if found is None:
            raise KeyError(path)  # not in the configuration: a dynamic queue
        queue = found
    return queue


def _config(snapshot: Snapshot) -> SchedulerConf:
    config = snapshot.config.parsed.config
    assert config is not None
    return config


def _set_max(path: str, values: dict[str, int]) -> Change:
    def change(snapshot: Snapshot) -> None:
        queue = _queue_conf(_config(snapshot), path)
        if queue.resources.max is None:
            queue.resources.max = MapConf({}, queue.loc)
        for name, value in values.items():
            queue.resources.max.values[name] = f"{value}m" if name == res.VCORE else str(value)
    return change


def _set_namespace_quota(name: str, values: dict[str, int]) -> Change:
    def change(snapshot: Snapshot) -> None:
        namespace = snapshot.namespaces[name]
        snapshot.namespaces[name] = replace(namespace, quota={**(namespace.quota or {}), **values})
    return change


def _set_namespace_max_apps(name: str, value: int) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.namespaces[name] = replace(snapshot.namespaces[name], max_apps=value)
    return change


def _set_max_apps(path: str, value: int) -> Change:
    def change(snapshot: Snapshot) -> None:
        _queue_conf(_config(snapshot), path).maxapplications = value
    return change


def _set_property(path: str, key: str, value: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        queue = _queue_conf(_config(snapshot), path)
        if queue.properties is None:
            queue.properties = MapConf({}, queue.loc)
        queue.properties.values[key] = value
    return change


def _set_limit(binding: ugm.Binding, values: dict[str, int]) -> Change:
    """The limit naming the user (or group, or the wildcard) on the queue gets a higher maxresources."""
    def change(snapshot: Snapshot) -> None:
        queue = _queue_conf(_config(snapshot), binding.queue)
        for limit in queue.limits or []:
            names = (limit.users if binding.kind == "user" else limit.groups) or []
            if binding.name in names or (WILDCARD in names and limit.limit == binding.limit):
                if limit.maxresources is None:
                    limit.maxresources = MapConf({}, limit.loc)
                for name, value in values.items():
                    limit.maxresources.values[name] = f"{value}m" if name == res.VCORE else str(value)
                return
        raise KeyError(binding.queue)
    return change


def _set_app_queue(app_id: str, path: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.pods = [replace(pod, queue=path) if pod.app_id == app_id else pod for pod in snapshot.pods]
    return change


def _set_root_acl(acl: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        _queue_conf(_config(snapshot), "root").submitacl = acl
    return change


def _add_node(template: NodeInfo) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.nodes.append(NodeInfo(f"{template.name}-copy", dict(template.capacity), dict(template.labels),
                                       template.taints, False))
    return change


def _quantity(name: str, value: int) -> str:
    """A Kubernetes quantity for an annotation (vcore in millicores as cpu)."""
    if name == res.VCORE:
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    for suffix, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value and value % size == 0:
            return f"{value // size}{suffix}"
    return str(value)


def _shown(name: str, value: int) -> str:
    return amount_text(name, value)


def _resources(resource: Resource) -> str:
    return ", ".join(f"{n} {_shown(n, v)}" for n, v in sorted(resource.items()))
