"""``kqctl plan`` for Volcano: the smallest capability, deserved, guarantee or weight of one Queue that meets a target
on the replay of its PodGroups (the targets and the search are :mod:`kqctl.replay.planning`'s).

A resource field is planned per resource (cpu, memory, a device), in Volcano's units; ``weight`` is one whole
number. Today's value is the search's starting point: an unset capability is unlimited (the cap stands for it), an
unset deserved or guarantee is 0.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import replace

from kqctl.replay.planning import (
    Evaluation,
    PlanError,
    QueuePlanProblem,
    Values,
    measure,
    parse_target,
    refused_candidate,
    round_up,
)
from kqctl.replay.report import TimelineReport
from kqctl.volcano.api.models import Queue
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, resource_list, to_quantity
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_snapshot
from kqctl.volcano.validate.queue_webhook import UPDATE, Lister, QueueView, WebhookFlags, admit

FIELDS = ("capability", "deserved", "guarantee", "weight")
WEIGHT = "weight"
DEFAULT_STEPS = {CPU: 1000, MEMORY: 1024**3, PODS: 1}  # a core, a GiB, a pod; other resources: one device (1000)
WEIGHT_CAP_FACTOR = 100  # beyond a hundred times its siblings' weights a queue's share hardly moves


class PlanProblem(QueuePlanProblem):
    """A Queue's capability, deserved, guarantee (resources) or weight (resources: ("weight",)) to plan."""

    KIND = "Queue"


def make_problem(snapshot: Snapshot, target: str, scope: str, field: str, resources: Sequence[str] = (),
                 steps: Sequence[str] = ()) -> PlanProblem:
    """``scope``: ``queue/NAME``; ``field``: one of :data:`FIELDS`; ``resources``: which to plan (default: those the
    field sets, else those the Queue's PodGroups request)."""
    kind, _, name = scope.partition("/")
    if kind.lower() not in ("queue", "queues", "q") or not name:
        meant = f"; did you mean queue/{scope}?" if not name and scope in snapshot.queues else ""
        raise PlanError(f"{scope!r}: expected queue/NAME (a Volcano Queue){meant}")
    queue = snapshot.queues.get(name)
    if queue is None or queue.implicit and name != "default":
        close = difflib.get_close_matches(name, sorted(snapshot.queues), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise PlanError(f"Queue {name!r} is not in the inputs{hint}")
    if field not in FIELDS:
        raise PlanError(f"--field {field!r}: choose one of {', '.join(FIELDS)}")
    parsed = parse_target(target)
    if field == WEIGHT:
        if resources:
            raise PlanError("--resource does not apply to --field weight (a weight is one number)")
        return PlanProblem(name, field, (WEIGHT,), (queue.weight,), (1,), parsed)
    set_now = dict(getattr(queue, field) or {})
    chosen = list(resources) or sorted(r for r in set_now if r != PODS) or sorted(_requested(snapshot, name)) or [CPU]
    for resource in chosen:
        if not resource_list({resource: "1"}):
            raise PlanError(f"--resource {resource!r}: not a resource Volcano counts (cpu, memory, a device such as "
                            "nvidia.com/gpu)")
    current = tuple(_current(queue, field, resource) for resource in chosen)
    return PlanProblem(name, field, tuple(chosen), current, _steps(chosen, steps), parsed)


def _current(queue: Queue, field: str, resource: str) -> int:
    values = getattr(queue, field)
    if values is None or resource not in values:
        return -1 if field == "capability" else 0  # -1: unlimited today (the cap stands for it)
    return int(values[resource])


def _requested(snapshot: Snapshot, queue: str) -> dict[str, int]:
    """What the Queue's PodGroups' pods request, in all (Volcano's units; ``pods`` left out)."""
    groups = {key for key, group in snapshot.pod_groups.items() if group.queue == queue}
    total: dict[str, int] = {}
    for pod in snapshot.pods:
        if pod.group and f"{pod.namespace}/{pod.group}" in groups:
            for name, value in pod.request.items():
                if name != PODS:
                    total[name] = total.get(name, 0) + value
    return total


def _steps(chosen: list[str], texts: Sequence[str]) -> Values:
    given: dict[str, int] = {}
    for text in texts:
        resource, _, amount = text.partition("=")
        try:
            value = resource_list({resource: amount}).get(resource)
        except ValueError:
            value = None
        if value is None or value <= 0:
            raise PlanError(f"--step {text!r}: expected RESOURCE=QUANTITY above 0, e.g. cpu=500m or memory=4Gi")
        if resource not in chosen:
            raise PlanError(f"--step {text!r}: {resource} is not a planned resource; planned: {', '.join(chosen)}")
        given[resource] = value
    return tuple(given.get(r, DEFAULT_STEPS.get(r, 1000)) for r in chosen)


def default_cap(snapshot: Snapshot, problem: PlanProblem) -> Values:
    """Enough for every PodGroup of the Queue at once, never below today's value; for a weight, a hundred times its
    siblings' weights."""
    if problem.field == WEIGHT:
        queue = snapshot.queues[problem.queue]
        siblings = sum(q.weight for q in snapshot.queues.values()
                       if q.name != queue.name and q.parent_name == queue.parent_name and q.name != "root")
        return (max(problem.current[0], WEIGHT_CAP_FACTOR * max(1, siblings)),)
    demand = _requested(snapshot, problem.queue)
    return tuple(round_up(max(demand.get(r, 0), c, s), s) for r, c, s in zip(problem.resources, problem.current,
                                                                           problem.steps, strict=True))


def apply(snapshot: Snapshot, problem: PlanProblem, values: Values) -> Snapshot:
    """The snapshot with the Queue's planned field at ``values`` (the inputs are left untouched)."""
    queue = snapshot.queues[problem.queue]
    if problem.field == WEIGHT:
        changed = replace(queue, weight=max(1, values[0]))  # the webhook writes 1 for 0
    else:
        current: dict[str, int] = dict(getattr(queue, problem.field) or {})
        current.update(zip(problem.resources, values, strict=True))
        if problem.field == "capability":
            changed = replace(queue, capability=current)
        elif problem.field == "deserved":
            changed = replace(queue, deserved=current)
        else:
            changed = replace(queue, guarantee=current)
    return replace(snapshot, queues={**snapshot.queues, problem.queue: changed})


def evaluate(snapshot: Snapshot, problem: PlanProblem, values: Values, options: VolcanoReplayOptions) -> Evaluation:
    """The candidate's replay; one Volcano's queue webhook refuses (a deserved above the capability, a guarantee above
    the deserved, a capability above the parent's) misses unreplayed, and so does a cpu or memory capability of 0,
    which Volcano reads as unlimited."""
    candidate = apply(snapshot, problem, values)
    reason = refusal(snapshot, candidate, problem)
    if reason:
        return refused_candidate(values, problem.target, reason)
    return evaluation(replay_snapshot(candidate, options), problem, values)


def refusal(snapshot: Snapshot, candidate: Snapshot, problem: PlanProblem) -> str:
    """Why the candidate is not a smaller value of the planned field ("" when it is one): the queue webhook's
    refusal of the change as an update of today's Queue (VC-Q2..VC-Q4, VC-H4..VC-H7), or a capability of 0."""
    if problem.field == "capability":
        capability = candidate.queues[problem.queue].capability or {}
        zero = [name for name in (CPU, MEMORY) if name in problem.resources and capability.get(name) == 0]
        if zero:
            return (f"a {' and '.join(zero)} capability of 0 does not cap the queue: Volcano reads it as unlimited (or "
                    "its parent's value under hierarchical capacity), not as a smaller one (VC-LINT-ZERO-CAPABILITY)")
    if problem.field == WEIGHT:
        return ""
    views = {name: _view(queue) for name, queue in candidate.queues.items() if not queue.implicit}
    before = snapshot.queues[problem.queue]
    denial = admit(UPDATE, views.get(problem.queue), _view(before), Lister(views.values()), WebhookFlags())
    return "" if denial is None else f"Volcano's queue webhook refuses it: {denial.message} ({denial.rule_id})"


def _view(queue: Queue) -> QueueView:
    """The Queue as the webhook reads it (its resource lists written back as quantities of Volcano's units)."""
    def written(values: Mapping[str, int] | None) -> dict[str, str]:
        return {name: to_quantity(name, value) for name, value in (values or {}).items()}

    return QueueView(queue.name, queue.parent, written(queue.capability), written(queue.deserved),
                     written(queue.guarantee), queue.state, queue.allocated_pods, {})


def evaluation(report: TimelineReport, problem: PlanProblem, values: Values) -> Evaluation:
    scope = [w for w in report.workloads if w.labels.target == problem.queue and w.arrival is not None]
    measures = tuple(measure(condition, scope) for condition in problem.target)
    return Evaluation(values, measures, report.end, len(scope), sum(1 for w in scope if w.admitted is not None),
                      report.assumptions)


def with_seed(options: VolcanoReplayOptions, seed: int) -> VolcanoReplayOptions:
    """The replay options of one random draw (plan --seeds): the runtimes drawn from ``seed``."""
    return replace(options, timeline=replace(options.timeline, seed=seed))
