"""Why a PodGroup is not running, gate by gate, and what would change that (each change simulated again).

The steady state is simulated, then its last session is run once more with a trace, so every gate that
said no is known with its numbers: the queue (missing, closed, not a leaf), gang validity, overcommit, the
queue quota at enqueue (proportion P4 / capacity C3, per dimension), an overused queue, the quota at
allocation (P3 deserved / C2 real capability), no node that fits, and gang all-or-nothing. The real
capability is spelled out (cluster, others' guarantees, capability) and, under proportion, the rounds of
the water-filling that gave each queue its deserved share.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from kqctl.volcano.api.config import SchedulerConf
from kqctl.volcano.api.models import DEFAULT_QUEUE, QUEUE_NAME_ANNOTATION, PodGroup, Queue
from kqctl.volcano.api.resource import INFINITE, Resource, to_quantity
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.proportion import Round
from kqctl.volcano.engine.queue_attr import QueueAttr, capability_of, guarantee_of
from kqctl.volcano.engine.session import World, run_session
from kqctl.volcano.engine.simulation import GroupOutcome, SimulationOptions, run_to_end, simulate
from kqctl.volcano.engine.trace import Note, Trace


class UnknownPodGroup(Exception):
    """The name matches no PodGroup, vcjob or pod of the input."""


@dataclass(frozen=True)
class RealCapability:
    """How a queue's real capability comes about, per dimension: the cluster (hierarchical capacity: the
    parent's real capability), minus the other queues' (the siblings') guarantees, plus its own, bounded by its
    capability (hierarchical: inherited from the ancestors where unset)."""

    total: Resource
    others_guarantee: Resource
    guarantee: Resource
    capability: Resource | None
    result: Resource
    parent: str | None = None  # hierarchical capacity: the parent whose real capability ``total`` is


@dataclass(frozen=True)
class Suggestion:
    change: str
    helps: bool
    effect: str  # what the simulation then says about the PodGroup
    side_effects: tuple[str, ...] = ()


@dataclass(frozen=True)
class Explanation:
    key: str
    resolved_from: str  # "" when named directly; "Job ns/x" or "Pod ns/p"
    outcome: GroupOutcome
    group: PodGroup
    quota_plugin: str
    notes: tuple[Note, ...]  # the gates that said no in the steady session, in order
    queue: QueueAttr | None
    real_capability: RealCapability | None
    rounds: tuple[Round, ...]
    suggestions: tuple[Suggestion, ...]
    gang_message: str | None
    conf_source: str
    limitations: tuple[str, ...] = field(default=())

    @property
    def running(self) -> bool:
        return self.outcome.phase in ("Running", "Completed") and all(self.outcome.pods.values())


def resolve(snapshot: Snapshot, name: str) -> tuple[str, str]:
    """(PodGroup key, how it was found) for ``namespace/name`` or ``name`` of a PodGroup, vcjob or pod."""
    if name in snapshot.pod_groups:
        return name, ""
    if name in snapshot.vcjobs:
        return snapshot.vcjobs[name], f"Job {name}"
    pods = {p.key: p for p in snapshot.pods}
    if name in pods and pods[name].group:
        pod = pods[name]
        return f"{pod.namespace}/{pod.group}", f"Pod {name}"
    if "/" not in name:
        found = sorted({k for k in snapshot.pod_groups if k.split("/", 1)[1] == name}
                       | {v for k, v in snapshot.vcjobs.items() if k.split("/", 1)[1] == name}
                       | {f"{p.namespace}/{p.group}" for p in snapshot.pods if p.name == name and p.group})
        if len(found) == 1:
            return found[0], ""
        if len(found) > 1:
            raise UnknownPodGroup(f"{name!r} is ambiguous: {', '.join(found)}; name it as namespace/name")
    known = list(dict.fromkeys([*snapshot.pod_groups, *snapshot.vcjobs, *(p.key for p in snapshot.pods if p.group)]))
    by_name: dict[str, list[str]] = {}
    for key in known:
        by_name.setdefault(key.split("/", 1)[1], []).append(key)
    close = difflib.get_close_matches(name, known, n=3) or [
        key for match in difflib.get_close_matches(name.split("/")[-1], list(by_name), n=3) for key in by_name[match]]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownPodGroup(f"no PodGroup, vcjob or pod {name!r} in the input{hint}")


def _distinct(notes: Iterable[Note]) -> tuple[Note, ...]:
    """The gates in order, each saying one thing once: a gate asked again for every task of the job (allocate's
    allocatable check per pod) repeats the same answer, which is one reason, not four."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for note in notes:
        if (note.gate, note.message) not in seen:
            seen.add((note.gate, note.message))
            kept.append(note)
    return tuple(kept)


def explain(snapshot: Snapshot, name: str, options: SimulationOptions | None = None,
            with_suggestions: bool = True) -> Explanation:
    key, resolved = resolve(snapshot, name)
    final = run_to_end(snapshot, options)
    outcome = final.result.groups[key]
    traced = run_session(snapshot, final.world, Trace())
    assert traced.trace is not None
    group = snapshot.pod_groups[key]
    attr = traced.quota.get(group.queue)
    explanation = Explanation(
        key=key, resolved_from=resolved, outcome=outcome, group=group, quota_plugin=traced.quota_plugin,
        notes=_distinct(traced.trace.of(key)), queue=attr,
        real_capability=_real_capability(snapshot, group.queue, attr, traced.quota),
        rounds=tuple(traced.rounds) if group.queue in traced.quota else (), suggestions=(),
        gang_message=traced.gang.get(key), conf_source=snapshot.conf.source,
        limitations=tuple(snapshot.limitations))
    if with_suggestions and not explanation.running and key not in final.world.ended:
        explanation = replace(explanation, suggestions=tuple(suggest(snapshot, explanation, options)))
    return explanation


def _real_capability(snapshot: Snapshot, queue: str, attr: QueueAttr | None,
                     attrs: Mapping[str, QueueAttr]) -> RealCapability | None:
    if attr is None or queue not in snapshot.queues:
        return None
    parent = attrs.get(attr.ancestors[-1]) if attr.ancestors else None
    if parent is not None:  # hierarchical capacity: checkHierarchicalQueue
        siblings = Resource()
        for name in parent.children:
            if name != queue and name in attrs:
                siblings.add(attrs[name].guarantee)
        return RealCapability(parent.real_capability.clone(), siblings, attr.guarantee.clone(),
                              attr.capability.clone() if attr.capability is not None else None,
                              attr.real_capability, parent.name)
    total = Resource()
    for node in snapshot.nodes.values():
        if node.ready:
            total.add(Resource.of(node.allocatable))
    others = Resource()
    for name, model in snapshot.queues.items():
        if name != queue:
            others.add(guarantee_of(model))
    model = snapshot.queues[queue]
    return RealCapability(total, others, guarantee_of(model), capability_of(model), attr.real_capability)


# --- suggestions --------------------------------------------------------------------------------------------


MAX_COMPLETION_PROBES = 8  # running PodGroups tried as "it gets in once X finishes"
MAX_DOUBLINGS = 4  # an amount the arithmetic gives that does not help is doubled at most this often


def suggest(snapshot: Snapshot, explanation: Explanation, options: SimulationOptions | None) -> list[Suggestion]:
    """Changes that let the PodGroup run, each simulated again: one that does not change the answer is dropped;
    an amount is the smallest that works (bisection, every probe a full run) in a unit the API stores and a
    person writes (whole devices, milli-cores, MiB), verified once more as rounded; then the running PodGroups
    whose completion alone lets it in ("it gets in once X finishes")."""
    before = simulate(snapshot, options).groups
    found: list[Suggestion] = []
    for candidate in _candidates(snapshot, explanation):
        checked = _verified(candidate, explanation, options, before)
        if checked is not None:
            found.append(checked)
    found.extend(_completions(snapshot, explanation, options, before))
    return found


# A candidate: the change as text, and the snapshot it makes; an amount candidate also knows how to make the
# change for any other amount, so the smallest that works can be searched.
@dataclass(frozen=True)
class _Candidate:
    change: str
    changed: Snapshot
    search: _Search | None = None


@dataclass(frozen=True)
class _Search:
    """Amounts to search, per dimension: from the value now (``start``, which does not help) towards ``guess`` in
    steps of the dimension's unit; ``build`` makes the text and the snapshot for a set of amounts."""

    start: dict[str, int]
    guess: dict[str, int]
    build: Any  # Callable[[dict[str, int]], tuple[str, Snapshot]]
    upward: bool = True  # raising helps (capability, weight); lowering helps (minResources) otherwise
    units: dict[str, int] = field(default_factory=dict)  # per dimension; settable_unit() where not given


def _verified(candidate: _Candidate, explanation: Explanation, options: SimulationOptions | None,
              before: Mapping[str, GroupOutcome]) -> Suggestion | None:
    if candidate.search is None:
        result = _check(candidate.change, candidate.changed, explanation, options, before)
        return result if result.helps else None
    return _smallest(candidate.search, explanation, options, before)


def _smallest(search: _Search, explanation: Explanation, options: SimulationOptions | None,
              before: Mapping[str, GroupOutcome]) -> Suggestion | None:
    """The smallest change that lets the PodGroup run, assuming more of it never hurts: the guess (rounded to
    settable units, doubled while it does not help), then each dimension in turn bisected with the others
    held; None when even the doubled guess does not help."""
    sign = 1 if search.upward else -1
    units = {d: search.units.get(d) or settable_unit(d) for d in search.start}
    # Every amount probed is a whole number of units: counted from the value now rounded to a unit, down for a
    # raise and up for a lowering (so a capability of 1.5 GPUs is raised to 2, never to 2.5).
    base = {d: (search.start[d] // units[d] if search.upward else -(-search.start[d] // units[d])) * units[d]
            for d in search.start}
    steps = {d: max(1, -(-abs(search.guess[d] - base[d]) // units[d])) for d in search.start}

    def amounts(counts: dict[str, int]) -> dict[str, int]:
        return {d: base[d] + sign * counts[d] * units[d] for d in search.start}

    def probe(counts: dict[str, int]) -> Suggestion | None:
        values = amounts(counts)
        if any(v < 0 for v in values.values()):
            return None
        change, changed = search.build(values)
        result = _check(change, changed, explanation, options, before)
        return result if result.helps else None

    helping = None
    for _ in range(MAX_DOUBLINGS + 1):
        helping = probe(steps)
        if helping is not None:
            break
        steps = {d: n * 2 for d, n in steps.items()}
    if helping is None:
        return None
    for dim in sorted(steps):
        low, high = 0, steps[dim]
        while high - low > 1:
            middle = (low + high) // 2
            found = probe({**steps, dim: middle})
            if found is not None:
                high, helping = middle, found
            else:
                low = middle
        steps[dim] = high
    return helping


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def settable_unit(name: str) -> int:
    """The step of an amount a person writes, in Volcano's units: 1m of cpu, 1Mi of memory, one pod, one
    device (1000 milli-units) for every other resource."""
    from kqctl.volcano.api.resource import CPU, MEMORY, PODS

    if name == CPU:
        return 1
    if name == MEMORY:
        return 1024 * 1024
    if name == PODS:
        return 1
    return 1000


def _check(change: str, changed: Snapshot, explanation: Explanation, options: SimulationOptions | None,
           before: Mapping[str, GroupOutcome]) -> Suggestion:
    result = simulate(changed, options)
    outcomes = result.groups
    mine = outcomes[explanation.key]
    placed = sum(1 for node in mine.pods.values() if node)
    helps = mine.phase in ("Running", "Completed") and placed > sum(1 for n in explanation.outcome.pods.values() if n)
    effect = f"{mine.phase}, {placed}/{len(mine.pods)} pod(s) bound"
    if not helps and mine.reason is not None:
        effect += f" ({mine.reason[1]})"
    running = ("Running", "Completed")
    worse = [f"{k} becomes {o.phase}" for k, o in sorted(outcomes.items())
             if k != explanation.key and k in before and before[k].phase in running and o.phase not in running]
    evicted = sorted({e.pod for e in result.evictions if e.pod not in mine.pods})
    if evicted:
        worse.append(f"evicts {', '.join(evicted[:5])}" + (" ..." if len(evicted) > 5 else ""))
    return Suggestion(change, helps, effect, tuple(worse))


def _completions(snapshot: Snapshot, explanation: Explanation, options: SimulationOptions | None,
                 before: Mapping[str, GroupOutcome]) -> list[Suggestion]:
    """Running PodGroups whose completion alone lets this one in, from the steady state: its own queue's first,
    then the smallest. Each is simulated: its pods finish (Succeeded) and the sessions run on."""
    final = run_to_end(snapshot, options)
    mine = explanation.group.queue
    running = [o for o in final.result.groups.values()
               if o.key != explanation.key and o.phase == "Running" and any(o.pods.values())]
    sizes = {o.key: _held(final.world, o) for o in running}
    running.sort(key=lambda o: (o.queue != mine, sum(sizes[o.key].values()), o.key))
    helping: dict[tuple[str, str], list[tuple[str, Suggestion]]] = {}
    for holder in running[:MAX_COMPLETION_PROBES]:
        finished = _finished(snapshot, final.world, holder)
        probe = _check(f"it gets in once {holder.key} finishes", finished, explanation, options, before)
        if probe.helps:
            frees = ", ".join(f"{name} {_one(name, value)}" for name, value in sizes[holder.key].items() if value)
            helping.setdefault((holder.queue, frees), []).append((holder.key, probe))
    found = []
    for (queue, frees), holders in helping.items():
        # PodGroups of one queue that hold the same are one line: any of them finishing is enough (each verified).
        names = holders[0][0] if len(holders) == 1 else "any of " + ", ".join(key for key, _ in holders)
        text = f"it gets in once {names} (queue {queue}) finishes" + (
            f", freeing {frees}" + (" each" if len(holders) > 1 else "") if frees else "")
        found.append(replace(holders[0][1], change=text))
    return found


def _held(world: World, outcome: GroupOutcome) -> dict[str, int]:
    """What a PodGroup's bound pods hold, cpu and memory first (pods left out)."""
    from kqctl.volcano.api.resource import CPU, MEMORY, PODS

    held: dict[str, int] = {}
    for pod, node in outcome.pods.items():
        if node:
            for name, value in world.pods[pod].request.items():
                if name != PODS:
                    held[name] = held.get(name, 0) + value
    return dict(sorted(held.items(), key=lambda item: (item[0] not in (CPU, MEMORY), item[0] != CPU, item[0])))


def _finished(snapshot: Snapshot, world: World, holder: GroupOutcome) -> Snapshot:
    """The steady state as an input, with the holder's pods Succeeded: sessions continue from there."""
    pods = [replace(pod, phase="Succeeded") if pod.key in holder.pods else pod for pod in world.pods.values()]
    groups = {key: replace(group, phase=world.phases.get(key, group.phase))
              for key, group in snapshot.pod_groups.items()}
    return replace(snapshot, pods=pods, pod_groups=groups)


def _candidates(snapshot: Snapshot, explanation: Explanation) -> list[_Candidate]:
    gates = {note.gate: note for note in explanation.notes}
    group, queue_name = explanation.group, explanation.group.queue
    queue = snapshot.queues.get(queue_name)
    found: list[_Candidate] = []
    if group.absent:
        # Its pods name it: create it, a gang of them all, in the queue a pod's own PodGroup would get.
        pods = [pod for pod in snapshot.pods if f"{pod.namespace}/{pod.group}" == group.key]
        queue_named = next((pod.queue_annotation for pod in pods if pod.queue_annotation), "") or DEFAULT_QUEUE
        created = replace(group, absent=False, queue=queue_named, min_member=len(pods))
        return [_Candidate(f"create PodGroup {group.key} (queue {queue_named}, minMember {len(pods)})",
                           _with_group(snapshot, created))]
    if queue is None:
        # A missing queue is most often a typo: the close names come first, then creating the queue as named.
        for close in difflib.get_close_matches(queue_name, sorted(snapshot.queues), n=2, cutoff=0.75):
            found.append(_Candidate(f"did you mean queue {close}? set {_queue_field(group)} to {close}",
                                    _with_group(snapshot, replace(group, queue=close))))
        found.append(_Candidate(f"create queue {queue_name}", _with_queue(snapshot, Queue(queue_name))))
        return found
    if queue.state != "Open":
        found.append(_Candidate(f"open queue {queue_name} (vcctl queue operate --action open --name {queue_name})",
                                _with_queue(snapshot, replace(queue, state="Open"))))
    for gate in (trace.QUEUE_QUOTA, trace.ALLOCATABLE):
        note = gates.get(gate)
        if note is not None:  # hierarchical capacity: the queue that said no may be an ancestor
            limited = snapshot.queues.get(str(note.detail.get("queue") or queue_name), queue)
            if explanation.quota_plugin == "capacity (hierarchical)":
                limited = _capped_by(snapshot, limited, note.detail)
            found.extend(_capability_changes(snapshot, limited, note.detail))
    if trace.ALLOCATABLE in gates and explanation.quota_plugin == "proportion":
        def weighted(values: dict[str, int]) -> tuple[str, Snapshot]:
            return (f"raise queue {queue_name}'s weight from {queue.weight} to {values['weight']}",
                    _with_queue(snapshot, replace(queue, weight=values["weight"])))
        found.append(_Candidate("weight", snapshot, _Search({"weight": queue.weight}, {"weight": queue.weight * 2},
                                                            weighted, units={"weight": 1})))
    if trace.OVERCOMMIT in gates:
        factor = _factor_needed(gates[trace.OVERCOMMIT].detail)
        if factor is not None:
            found.append(_Candidate(f"raise overcommit-factor to {factor}",
                                    _with_conf(snapshot, _overcommit(snapshot.conf, factor))))
    ancestors = set(explanation.queue.ancestors) if explanation.queue is not None else set()
    quota_gated = trace.QUEUE_QUOTA in gates or trace.ALLOCATABLE in gates
    for name, other in sorted(snapshot.queues.items()):
        if name != queue_name and name not in ancestors and other.guarantee and quota_gated:
            # Verified like the rest: under an ancestor's cap, a sibling's guarantee changes nothing and goes.
            found.append(_Candidate(f"remove queue {name}'s guarantee",
                                    _with_queue(snapshot, replace(other, guarantee=None))))
            break
    quota_note = gates.get(trace.QUEUE_QUOTA) or gates.get(trace.OVERCOMMIT)
    if quota_note is not None:
        lowered = _lowered_min_resources(snapshot, group, quota_note.detail)
        if lowered is not None:
            found.append(lowered)
    if (trace.GANG in gates or trace.NO_NODE in gates or trace.JOB_INVALID in gates) and group.min_member > 1:
        gang = gates.get(trace.GANG)
        placed = len(gang.detail.get("placed", ())) if gang is not None else 0
        placed = placed or sum(1 for n in explanation.outcome.pods.values() if n) or 1
        lower = max(1, min(group.min_member - 1, placed))
        found.append(_Candidate(f"lower {group.key}'s minMember from {group.min_member} to {lower}",
                                _with_group(snapshot, replace(group, min_member=lower))))
    if (trace.NO_NODE in gates or trace.ALLOCATABLE in gates or trace.OVERUSED in gates) \
            and "reclaim" not in snapshot.conf.actions:
        actions = (*snapshot.conf.actions, "reclaim")
        found.append(_Candidate("add reclaim to the scheduler's actions",
                                _with_conf(snapshot, replace(snapshot.conf, actions=actions))))
    return found[:7]


def _queue_field(group: PodGroup) -> str:
    """Where the user writes the PodGroup's queue: the vcjob's spec, the pod's annotation, or its own spec."""
    kind, _, name = group.created_by.partition("/")
    if kind == "Job":
        return f"spec.queue of Job {group.namespace}/{name}"
    if kind == "Pod":
        return f"annotation {QUEUE_NAME_ANNOTATION} of Pod {group.namespace}/{name}"
    return f"spec.queue of PodGroup {group.key}"


def _capped_by(snapshot: Snapshot, queue: Queue, detail: Mapping[str, Any]) -> Queue:
    """The queue whose capability caps the failed dimensions: the queue itself when it sets them, else (under
    hierarchical capacity, where an unset capability is inherited) the nearest ancestor that does."""
    dims = [d for d in detail.get("dimensions") or []]
    current: Queue | None = queue
    seen: set[str] = set()
    while current is not None and current.name not in seen:
        if current.capability and any(d in current.capability for d in dims):
            return current
        seen.add(current.name)
        current = snapshot.queues.get(current.parent_name) if current.parent_name else None
    return queue


def _capability_changes(snapshot: Snapshot, queue: Queue, detail: Mapping[str, Any]) -> list[_Candidate]:
    """Raise the capability on the dimensions that failed (when capability is what binds): the arithmetic's
    amount is the guess, the search finds the smallest in settable units."""
    dims = [d for d in detail.get("dimensions") or [] if d in (queue.capability or {})]
    if not queue.capability or not dims:
        return []
    needed: Resource = detail.get("minResources") or detail.get("request") or Resource()
    used = Resource()
    for key in ("allocated", "inqueue"):
        if detail.get(key) is not None:
            used.add(detail[key])
    if detail.get("elastic") is not None:
        used.sub(detail["elastic"])
    capability = dict(queue.capability)
    start = {d: capability[d] for d in dims}
    guess = {d: max(capability[d], int(used.get(d) + needed.get(d))) for d in dims}

    def raised(values: dict[str, int]) -> tuple[str, Snapshot]:
        text = ", ".join(f"{d} {_one(d, values[d])}" for d in dims)
        return (f"raise queue {queue.name}'s capability to {text}",
                _with_queue(snapshot, replace(queue, capability={**capability, **values})))

    return [_Candidate("capability", snapshot, _Search(start, guess, raised))]


def _lowered_min_resources(snapshot: Snapshot, group: PodGroup, detail: Mapping[str, Any]) -> _Candidate | None:
    """Each failed dimension of minResources lowered: the arithmetic's room under the gate's limit (the queue's,
    or the cluster's idle resources times the overcommit factor) is the guess; the search finds the largest
    value, in settable units, that still lets the PodGroup in."""
    if not group.min_resources:
        return None
    dims = [d for d in detail.get("dimensions") or [] if d in group.min_resources]
    if not dims:
        return None
    limit: Resource | None = detail.get("limit") if detail.get("limit") is not None else detail.get("idle")
    taken = Resource()
    for key in ("allocated", "inqueue"):
        if detail.get(key) is not None:
            taken.add(detail[key])
    if detail.get("elastic") is not None:
        taken.sub(detail["elastic"])
    current = dict(group.min_resources)
    start = {d: current[d] for d in dims}
    guess = {}
    for dim in dims:
        room = limit.get(dim) - taken.get(dim) if limit is not None else 0
        guess[dim] = current[dim] if room == INFINITE else max(0, min(current[dim], int(room)))

    def lowered(values: dict[str, int]) -> tuple[str, Snapshot]:
        result = {**current, **values}
        return (f"lower {group.key}'s minResources to {_format(result)}",
                _with_group(snapshot, replace(group, min_resources=result)))

    return _Candidate("minResources", snapshot, _Search(start, guess, lowered, upward=False))


def _with_queue(snapshot: Snapshot, queue: Queue) -> Snapshot:
    return replace(snapshot, queues={**snapshot.queues, queue.name: queue})


def _with_group(snapshot: Snapshot, group: PodGroup) -> Snapshot:
    return replace(snapshot, pod_groups={**snapshot.pod_groups, group.key: group})


def _with_conf(snapshot: Snapshot, conf: SchedulerConf) -> Snapshot:
    return replace(snapshot, conf=conf)


def _one(name: str, value: int) -> str:
    return to_quantity(name, value)


def _format(values: dict[str, int]) -> str:
    return ", ".join(f"{k} {_one(k, v)}" for k, v in sorted(values.items())) or "nothing"



def _factor_needed(detail: Mapping[str, Any]) -> str | None:
    """The overcommit factor, in tenths, at which the job's minResources fit: (inqueue + min + used) / total."""
    total, used = detail.get("total"), detail.get("used")
    inqueue, minimum, factor = detail.get("inqueue"), detail.get("minResources"), detail.get("factor")
    if not (isinstance(total, Resource) and isinstance(used, Resource) and isinstance(inqueue, Resource)
            and isinstance(minimum, Resource) and isinstance(factor, Fraction)):
        return None
    needed = factor
    for dim in detail.get("dimensions") or []:
        if total.get(dim) > 0:
            wanted = Fraction(inqueue.get(dim) + minimum.get(dim) + used.get(dim))
            needed = max(needed, wanted / Fraction(total.get(dim)))
    tenths = -(-needed * 10 // 1)
    return f"{tenths / 10:.1f}" if needed > factor else None


def _overcommit(conf: SchedulerConf, factor: str) -> SchedulerConf:
    from kqctl.volcano.api.config import PluginOption

    tiers = tuple(tuple(PluginOption(p.name, p.flags, {**p.arguments, "overcommit-factor": Fraction(factor)},
                                     p.hierarchy) if p.name == "overcommit" else p for p in tier)
                  for tier in conf.tiers)
    return replace(conf, tiers=tiers)
