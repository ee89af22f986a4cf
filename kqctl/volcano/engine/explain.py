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
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from kqctl.volcano.api.config import SchedulerConf
from kqctl.volcano.api.models import QUEUE_NAME_ANNOTATION, PodGroup, Queue
from kqctl.volcano.api.resource import INFINITE, Resource, to_quantity
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.proportion import Round
from kqctl.volcano.engine.queue_attr import QueueAttr, capability_of, guarantee_of
from kqctl.volcano.engine.session import run_session
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
        notes=tuple(traced.trace.of(key)), queue=attr,
        real_capability=_real_capability(snapshot, group.queue, attr, traced.quota),
        rounds=tuple(traced.rounds) if group.queue in traced.quota else (), suggestions=(),
        gang_message=traced.gang.get(key), conf_source=snapshot.conf.source,
        limitations=tuple(snapshot.limitations))
    if with_suggestions and not explanation.running:
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


def suggest(snapshot: Snapshot, explanation: Explanation, options: SimulationOptions | None) -> list[Suggestion]:
    """Changes that could let the PodGroup run, each simulated again; those that do not help are kept too,
    marked, when they are the obvious one (so nobody tries them in vain)."""
    candidates = _candidates(snapshot, explanation)
    if not candidates:
        return []
    before = simulate(snapshot, options).groups
    return [_check(change, changed, explanation, options, before) for change, changed in candidates]


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


def _candidates(snapshot: Snapshot, explanation: Explanation) -> list[tuple[str, Snapshot]]:
    gates = {note.gate: note for note in explanation.notes}
    group, queue_name = explanation.group, explanation.group.queue
    queue = snapshot.queues.get(queue_name)
    found: list[tuple[str, Snapshot]] = []
    if queue is None:
        # A missing queue is most often a typo: the close names come first, then creating the queue as named.
        for close in difflib.get_close_matches(queue_name, sorted(snapshot.queues), n=2, cutoff=0.75):
            found.append((f"did you mean queue {close}? set {_queue_field(group)} to {close}",
                          _with_group(snapshot, replace(group, queue=close))))
        found.append((f"create queue {queue_name}", _with_queue(snapshot, Queue(queue_name))))
        return found
    if queue.state != "Open":
        found.append((f"open queue {queue_name} (vcctl queue operate --action open --name {queue_name})",
                      _with_queue(snapshot, replace(queue, state="Open"))))
    for gate in (trace.QUEUE_QUOTA, trace.ALLOCATABLE):
        note = gates.get(gate)
        if note is not None:  # hierarchical capacity: the queue that said no may be an ancestor
            limited = snapshot.queues.get(str(note.detail.get("queue") or queue_name), queue)
            found.extend(_capability_changes(snapshot, limited, note.detail))
    if trace.ALLOCATABLE in gates and explanation.quota_plugin == "proportion":
        found.append((f"double queue {queue_name}'s weight to {queue.weight * 2}",
                      _with_queue(snapshot, replace(queue, weight=queue.weight * 2))))
    if trace.OVERCOMMIT in gates:
        factor = _factor_needed(gates[trace.OVERCOMMIT].detail)
        if factor is not None:
            found.append((f"raise overcommit-factor to {factor}", _with_conf(snapshot, _overcommit(snapshot.conf,
                                                                                                 factor))))
    ancestors = set(explanation.queue.ancestors) if explanation.queue is not None else set()
    quota_gated = trace.QUEUE_QUOTA in gates or trace.ALLOCATABLE in gates
    for name, other in sorted(snapshot.queues.items()):
        if name != queue_name and name not in ancestors and other.guarantee and quota_gated:
            found.append((f"remove queue {name}'s guarantee", _with_queue(snapshot, replace(other, guarantee=None))))
            break
    quota_note = gates.get(trace.QUEUE_QUOTA) or gates.get(trace.OVERCOMMIT)
    if quota_note is not None:
        lowered = _lowered_min_resources(group, quota_note.detail)
        if lowered is not None:
            found.append((f"lower {group.key}'s minResources to {_format(lowered)}",
                          _with_group(snapshot, replace(group, min_resources=lowered))))
    if (trace.GANG in gates or trace.NO_NODE in gates or trace.JOB_INVALID in gates) and group.min_member > 1:
        gang = gates.get(trace.GANG)
        placed = len(gang.detail.get("placed", ())) if gang is not None else 0
        placed = placed or sum(1 for n in explanation.outcome.pods.values() if n) or 1
        lower = max(1, min(group.min_member - 1, placed))
        found.append((f"lower {group.key}'s minMember from {group.min_member} to {lower}",
                      _with_group(snapshot, replace(group, min_member=lower))))
    if (trace.NO_NODE in gates or trace.ALLOCATABLE in gates or trace.OVERUSED in gates) \
            and "reclaim" not in snapshot.conf.actions:
        actions = (*snapshot.conf.actions, "reclaim")
        found.append(("add reclaim to the scheduler's actions", _with_conf(snapshot, replace(snapshot.conf,
                                                                                              actions=actions))))
    return found[:6]


def _queue_field(group: PodGroup) -> str:
    """Where the user writes the PodGroup's queue: the vcjob's spec, the pod's annotation, or its own spec."""
    kind, _, name = group.created_by.partition("/")
    if kind == "Job":
        return f"spec.queue of Job {group.namespace}/{name}"
    if kind == "Pod":
        return f"annotation {QUEUE_NAME_ANNOTATION} of Pod {group.namespace}/{name}"
    return f"spec.queue of PodGroup {group.key}"


def _capability_changes(snapshot: Snapshot, queue: Queue, detail: Mapping[str, Any]) -> list[tuple[str, Snapshot]]:
    """Raise the capability just enough on the dimensions that failed (when capability is what binds)."""
    dims = detail.get("dimensions") or []
    if not queue.capability or not dims:
        return []
    needed: Resource = detail.get("minResources") or detail.get("request") or Resource()
    used = Resource()
    for key in ("allocated", "inqueue"):
        if detail.get(key) is not None:
            used.add(detail[key])
    if detail.get("elastic") is not None:
        used.sub(detail["elastic"])
    raised = dict(queue.capability)
    for dim in dims:
        if dim in raised:
            raised[dim] = max(raised[dim], int(used.get(dim) + needed.get(dim)))
    if raised == dict(queue.capability):
        return []
    text = ", ".join(f"{d} {_one(d, raised[d])}" for d in dims if d in raised)
    return [(f"raise queue {queue.name}'s capability to {text}",
             _with_queue(snapshot, replace(queue, capability=raised)))]


def _lowered_min_resources(group: PodGroup, detail: Mapping[str, Any]) -> dict[str, int] | None:
    if not group.min_resources:
        return None
    """Each failed dimension down to what is left under the gate's limit (the queue's, or the cluster's idle
    resources times the overcommit factor): the most the PodGroup can claim there and still pass."""
    dims = detail.get("dimensions") or []
    limit: Resource | None = detail.get("limit") if detail.get("limit") is not None else detail.get("idle")
    taken = Resource()
    for key in ("allocated", "inqueue"):
        if detail.get(key) is not None:
            taken.add(detail[key])
    if detail.get("elastic") is not None:
        taken.sub(detail["elastic"])
    lowered = dict(group.min_resources)
    for dim in dims:
        if dim in lowered:
            room = limit.get(dim) - taken.get(dim) if limit is not None else 0
            left = lowered[dim] if room == INFINITE else int(room)
            lowered[dim] = max(0, min(lowered[dim], left))
    return lowered if lowered != dict(group.min_resources) else None


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
