"""``kqctl explain NAMESPACE/POD`` for YuniKorn: why a pod runs where it does, or why it waits.

The state explained is the one the simulation ends in (nothing more can be allocated). Sections follow the
order YuniKorn decides in: placement (§9), the application's state and maxapplications (G1), priorities along
the path and the order at every level (§6, §7.1), the application's position in its leaf (§7.2), user and
group limits (G2), queue headroom per resource up the path (G3), node fit, and preemption (§10). Suggestions
change one thing in a copy of the inputs, by the smallest amount that works, and are kept only when a new simulation
lets the pod run (kqctl.yunikorn.engine.suggestions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.names import NAMESPACE_MAX_APPS, NAMESPACE_QUOTA
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import NamespaceInfo, Snapshot
from kqctl.yunikorn.engine import gang as gang_rules
from kqctl.yunikorn.engine import placement as placing
from kqctl.yunikorn.engine import preemption as preempting
from kqctl.yunikorn.engine import sorting, ugm
from kqctl.yunikorn.engine import suggestions as suggest
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import REJECTED, Application, Ask
from kqctl.yunikorn.engine.partition import Partition, build_partition, from_ns
from kqctl.yunikorn.engine.priority import Level, QueuePriority, queue_priority, sibling_order
from kqctl.yunikorn.engine.queue import Queue
from kqctl.yunikorn.engine.simulation import ALLOCATED_STATE, RUNNING, PodOutcome, result_of
from kqctl.yunikorn.engine.suggestions import Suggestion

INT32_MAX = (1 << 31) - 1


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
    gang: GangView | None = None


@dataclass(frozen=True)
class GangGroupView:
    name: str
    min_member: int
    min_resource: Resource
    allocated: int  # placeholders holding a node now
    pending: int  # placeholders the core has not placed
    replaced: int
    released: int  # released without a replacement (incompatible, preempted, timed out)


@dataclass(frozen=True)
class GangView:
    """The pod's application's gang scheduling (YK-GANG-1..5) at the end of the simulation."""

    decision: str  # YK-GANG-1 in words
    reserving: bool  # the shim still holds the real pods back (YK-GANG-2)
    style: str
    timeout_seconds: int  # the timeout that applies (the core's 15 minutes when none is given)
    groups: tuple[GangGroupView, ...]
    times_out_at: str | None  # the placeholder timer's end (it runs from the first placeholder allocation)
    blocker: str  # the placeholder the gang waits for (what the explanation below is about), "" when none


class UnknownPod(LookupError):
    """No YuniKorn pod of that name in the inputs (``known``: every pod simulate reports, placeholders included)."""

    def __init__(self, key: str, known: tuple[str, ...] = ()) -> None:
        super().__init__(key)
        self.known = known


def explain_pod(snapshot: Snapshot, key: str, suggest: bool = True) -> Explanation:
    partition = build_partition(snapshot)
    scheduler = Scheduler(partition)
    results = scheduler.run()
    outcomes = result_of(snapshot, partition, results).pods
    outcome = next((p for p in outcomes if p.key == key), None)
    if outcome is None:
        raise UnknownPod(key, tuple(p.key for p in outcomes))
    ask = partition.asks.get(key) or partition.held.get(key)
    app = partition.apps[outcome.app_id]
    queue = app.queue
    gang = _gang(partition, app)
    if gang is not None and gang.blocker and not outcome.placeholder:
        # a real pod the shim holds back: what keeps it waiting is the placeholder the gang waits for
        ask = partition.asks[gang.blocker]
    explanation = Explanation(
        pod=outcome,
        requested_queue=app.requested_queue,
        placement=_placement(partition, app, snapshot),
        app_state=app.state,
        chain=tuple(queue_priority(partition, q) for q in queue.path_from_root()) if queue else (),
        levels=tuple(sibling_order(partition, q) for q in queue.path_from_root() if not q.leaf) if queue else (),
        position=_position(partition, queue, app) if queue else (),
        sort_policy=queue.settings.sort_policy if queue else "",
        apps=_apps(queue, app) if queue else (),
        user_limits=tuple(partition.limits.headroom(queue.path, app.user, app.group)[1]) if queue else (),
        user_headroom=partition.limits.headroom(queue.path, app.user, app.group)[0] if queue else None,
        headroom=_headroom(partition, queue, ask) if queue is not None and ask is not None else (),
        nodes=_nodes(partition, ask),
        preemption=_preemption(scheduler, ask) if ask is not None and queue is not None and not ask.allocated
        and app.state != REJECTED else None,
        missing_queue=_missing_queue(partition, app),
        gang=gang,
    )
    if suggest and outcome.state not in (RUNNING, ALLOCATED_STATE):
        explanation = Explanation(**{**explanation.__dict__, "suggestions": tuple(suggestions(snapshot, explanation,
                                                                                          partition, ask))})
    return explanation


def _gang(partition: Partition, app: Application) -> GangView | None:
    gang = app.gang
    if gang is None:
        return None
    placeholders = [ask for ask in app.asks if ask.pod.is_placeholder]
    groups = []
    for group in gang.groups:
        mine = [ask for ask in placeholders if ask.pod.task_group == group.name]
        data = gang.data.get(group.name, gang_rules.PlaceholderData())
        placed = sum(1 for ask in mine if ask.allocated)
        groups.append(GangGroupView(group.name, group.min_member, dict(group.min_resource), placed,
                                    len(mine) - placed, data.replaced, data.timed_out))
    reserving = gang.shim_state == gang_rules.RESERVING
    blocker = next((ask.key for ask in sorted(placeholders, key=Ask.order_key) if not ask.allocated), "") \
        if reserving else ""
    ends = None
    if gang.timer_start is not None:
        ends = from_ns(gang.timer_start + gang.timeout_ns).isoformat().replace("+00:00", "Z")
    return GangView(gang.decision, reserving, gang.policy.style, gang.timeout_ns // 1_000_000_000, tuple(groups), ends,
                    blocker)


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


def _apps(queue: Queue, app: Application) -> tuple[AppsRow, ...]:
    """Per queue on the path, the applications that count against maxapplications (running, and gangs reserving
    but this one) and whether one more may start (``canRunApp``)."""
    rows = []
    for q in queue.path_from_root():
        running = q.running_apps + len(q.allocating_accepted - {app.app_id})
        ok = q.max_running_apps == 0 or app.app_id in q.allocating_accepted or running + 1 <= q.max_running_apps
        rows.append(AppsRow(q.path, running, q.max_running_apps, ok))
    return tuple(rows)


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


# --- suggestions, each verified by simulating again (kqctl.yunikorn.engine.suggestions) ---------------------


def suggestions(snapshot: Snapshot, explanation: Explanation, partition: Partition,
                ask: Ask | None) -> list[Suggestion]:
    return suggest.verify(snapshot, explanation.pod.key, _candidates(snapshot, explanation, partition, ask))


def _candidates(snapshot: Snapshot, explanation: Explanation, partition: Partition,
                ask: Ask | None) -> list[suggest.Candidate]:
    out: list[suggest.Candidate] = []
    queue_path = explanation.pod.queue
    missing = explanation.missing_queue
    if missing is not None:
        for close in missing.close:
            out.append(suggest.Fixed(f"name queue {close} in the pod's queue label (its application "
                                     f"{explanation.pod.app_id} asks for {missing.path}, which does not exist)",
                                     suggest.set_app_queue(explanation.pod.app_id, close)))
    if ask is not None and queue_path:
        out.extend(_quota_candidates(snapshot, explanation, partition, ask))
        out.extend(_order_candidates(explanation, partition))
        if snapshot.nodes and not ask.allocated:
            biggest = max(snapshot.nodes, key=lambda n: (n.capacity.get("vcore", 0), n.capacity.get("memory", 0)))
            out.append(suggest.Fixed(f"add one more node like {biggest.name} ({_resources(biggest.capacity)})",
                                     suggest.add_node(biggest)))
    elif explanation.placement is not None and not explanation.placement.queue:
        out.append(suggest.Fixed("allow everyone to submit: submitacl: '*' on root", suggest.set_root_acl("*")))
    return out


def _configured(partition: Partition, path: str) -> bool:
    """Dynamic queues get their settings from a template or the namespace, not from the configuration."""
    queue = partition.tree.get(path)
    return queue is not None and queue.managed


def _quota_candidates(snapshot: Snapshot, explanation: Explanation, partition: Partition,
                      ask: Ask) -> list[suggest.Candidate]:
    """YK-G3 maxes, YK-G2 user and group limits, YK-G1 maxapplications: each blocker raised (every short one of
    a kind together: a queue's max and its parent's, a user's limit at two levels), by the smallest amount."""
    out: list[suggest.Candidate] = []
    cluster = partition.root_max() or {}

    def up_to_cluster(needed: dict[Any, int]) -> dict[Any, int]:
        """Enough if anything is: more than the cluster has helps no pod."""
        return {key: max(value, cluster.get(key[1] if isinstance(key, tuple) else key, value))
                for key, value in needed.items()}

    asks = [a.resource for a in partition.asks.values()]

    def units(keys: dict[Any, int]) -> dict[Any, int]:
        return {key: suggest.resource_unit(key[1] if isinstance(key, tuple) else key, asks) for key in keys}

    namespace = snapshot.namespaces.get(explanation.pod.namespace)
    short = {(row.queue, row.resource): (row.allocated + row.ask, row.max, row.allocated)
             for row in explanation.headroom if not row.fits and row.max is not None and row.queue != "root"}
    managed = {key: value for key, value in short.items() if _configured(partition, key[0])}
    if managed:
        needed: dict[Any, int] = {key: value[0] for key, value in managed.items()}
        out.append(suggest.Search(partial(_raise_max_text, rows=managed), suggest.set_max, needed,
                                  up_to_cluster(needed), units(needed)))
    leaf_rows = {name: row for (path, name), row in short.items() if path == explanation.pod.queue}
    if leaf_rows and not _configured(partition, explanation.pod.queue) and namespace is not None \
            and namespace.quota and all(name in namespace.quota for name in leaf_rows):
        needed = {name: value[0] for name, value in leaf_rows.items()}
        out.append(suggest.Search(partial(_quota_text, namespace.name, rows=leaf_rows),
                                  partial(suggest.set_namespace_quota, namespace.name), needed,
                                  up_to_cluster(needed), units(needed)))
    lacking = {(suggest.LimitRef.of(binding), name): (binding.used.get(name, 0) + ask.resource[name], limit)
               for binding in explanation.user_limits for name, limit in binding.max_resources.items()
               if name in ask.resource and ask.resource[name] > binding.left.get(name, 0)}
    if lacking:
        needed = {key: value[0] for key, value in lacking.items()}
        out.append(suggest.Search(partial(_raise_limit_text, rows=lacking), partial(suggest.set_limits, max_apps={}),
                                  needed, up_to_cluster(needed), units(needed)))
    out.extend(_max_apps_candidates(explanation, partition, namespace))
    return out


def _max_apps_candidates(explanation: Explanation, partition: Partition,
                         namespace: NamespaceInfo | None) -> list[suggest.Candidate]:
    """YK-G1: a queue's maxapplications (or its namespace's annotation), and a user's or group's limit on them;
    enough if anything is: one for every application there is."""
    out: list[suggest.Candidate] = []
    every_app = max(1, len(partition.apps))
    for apps in explanation.apps:
        if apps.ok:
            continue
        low, high = {"apps": apps.running + 1}, {"apps": max(apps.running + 1, every_app)}
        if _configured(partition, apps.queue):
            out.append(suggest.Search(partial(_max_apps_text, apps.queue), partial(_set_max_apps, apps.queue),
                                      low, high, {"apps": 1}))
        elif apps.queue == explanation.pod.queue and namespace is not None and namespace.max_apps:
            out.append(suggest.Search(partial(_namespace_max_apps_text, namespace.name),
                                      partial(_set_namespace_max_apps, namespace.name), low, high, {"apps": 1}))
    app = partition.apps.get(explanation.pod.app_id)
    if app is None or app.queue is None:
        return out
    blockers = partition.limits.app_blockers(app.queue.path, app.user, app.group, app.app_id)
    if blockers:
        refs: dict[Any, int] = {suggest.LimitRef(kind, who, path, limit): running + 1
                                for kind, who, path, limit, _, running in blockers}
        out.append(suggest.Search(partial(_raise_limit_apps_text, blockers=blockers),
                                  partial(suggest.set_limits, {}), refs,
                                  {ref: max(low, every_app) for ref, low in refs.items()}, dict.fromkeys(refs, 1)))
    return out


def _set_max_apps(path: str, values: dict[Any, int]) -> suggest.Change:
    return suggest.set_max_apps(path, values["apps"])


def _set_namespace_max_apps(namespace: str, values: dict[Any, int]) -> suggest.Change:
    return suggest.set_namespace_max_apps(namespace, values["apps"])


def _max_apps_text(path: str, values: dict[Any, int]) -> str:
    return f"raise maxapplications of {path} to {values['apps']}"


def _namespace_max_apps_text(namespace: str, values: dict[Any, int]) -> str:
    return f"raise the {NAMESPACE_MAX_APPS} annotation of namespace {namespace} to {values['apps']}"


def _order_candidates(explanation: Explanation, partition: Partition) -> list[suggest.Candidate]:
    """YK-P4: a fence that hides the pod's priority removed, or a queue's priority.offset raised (the smallest
    offset that works: between one more and an offset above every priority and offset there is)."""
    out: list[suggest.Candidate] = []
    queue_path = explanation.pod.queue
    for level in explanation.chain:
        if level.policy == "fence" and level.path != queue_path and _configured(partition, level.path):
            out.append(suggest.Fixed(f"remove priority.policy: fence from {level.path} (it reports {level.offset} "
                                     "whatever is pending below it)",
                                     suggest.set_property(level.path, "priority.policy", "default")))
    priorities = [ask.priority for ask in partition.asks.values()] or [0]
    span = max(priorities) - min(priorities) + sum(abs(q.settings.priority_offset) for q in partition.tree.queues()) + 1
    for level in explanation.chain[1:]:
        if _configured(partition, level.path):
            low, high = level.offset + 1, min(level.offset + span, INT32_MAX)
            if high >= low:
                out.append(suggest.Search(partial(_offset_text, level), partial(_set_offset, level.path),
                                          {"offset": low}, {"offset": high}, {"offset": 1}, high_first=True))
    return out


def _offset_text(level: QueuePriority, values: dict[Any, int]) -> str:
    return f"raise priority.offset of {level.path} from {level.offset} to {values['offset']}"


def _set_offset(path: str, values: dict[Any, int]) -> suggest.Change:
    return suggest.set_property(path, "priority.offset", str(values["offset"]))


def _raise_max_text(values: dict[Any, int], rows: dict[tuple[str, str], tuple[int, int, int]]) -> str:
    by_queue: dict[str, list[str]] = {}
    for (path, name), value in sorted(values.items()):
        by_queue.setdefault(path, []).append(f"{name} {_shown(name, value)}")
    to = " and of ".join(f"{path} to {', '.join(parts)}" for path, parts in by_queue.items())
    allows = "; ".join(f"{path} {name}: it allows {_shown(name, limit)}, {_shown(name, used)} in use"
                       for (path, name), (_, limit, used) in sorted(rows.items()))
    return f"raise the max of {to} ({allows})"


def _quota_text(namespace: str, values: dict[Any, int], rows: dict[str, tuple[int, int, int]]) -> str:
    quota = ", ".join(f'"{"cpu" if name == res.VCORE else name}": "{suggest.quantity(name, value)}"'
                      for name, value in sorted(values.items()))
    allows = "; ".join(f"{name}: it allows {_shown(name, limit)}, {_shown(name, used)} in use"
                       for name, (_, limit, used) in sorted(rows.items()))
    return f"raise the {NAMESPACE_QUOTA} annotation of namespace {namespace} to {quota} ({allows})"


def _raise_limit_text(values: dict[Any, int], rows: dict[tuple[suggest.LimitRef, str], tuple[int, int]]) -> str:
    by_limit: dict[suggest.LimitRef, list[str]] = {}
    for (ref, name), value in values.items():
        by_limit.setdefault(ref, []).append(f"{name} {_shown(name, value)}")
    parts = [f"{ref.kind} {ref.name}'s limit {ref.limit or '(unnamed)'} on {ref.queue} to {', '.join(amounts)}"
             for ref, amounts in by_limit.items()]
    allows = "; ".join(f"{ref.queue} {name}: it allows {_shown(name, limit)}"
                       for (ref, name), (_, limit) in rows.items())
    return f"raise the maxresources of {' and of '.join(parts)} ({allows})"


def _raise_limit_apps_text(values: dict[Any, int], blockers: list[tuple[str, str, str, str, int, int]]) -> str:
    parts = [f"{kind} {who}'s limit {limit or '(unnamed)'} on {path} to "
             f"{values[suggest.LimitRef(kind, who, path, limit)]}" for kind, who, path, limit, _, _ in blockers]
    now = "; ".join(f"{path}: it allows {maximum}, {running} running" for _, _, path, _, maximum, running in blockers)
    return f"raise the maxapplications of {' and of '.join(parts)} ({now})"


def _shown(name: str, value: int) -> str:
    return res.human_amount(name, value)


def _resources(resource: Resource) -> str:
    return ", ".join(f"{n} {_shown(n, v)}" for n, v in sorted(resource.items()))
