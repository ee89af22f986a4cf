"""``kqctl plan`` for YuniKorn: the smallest guaranteed or max of one queue (a path from root) that meets a target on
the replay of the applications in it and below it (the targets and the search are :mod:`kqctl.replay.planning`'s).

Amounts are YuniKorn's (vcore in millicores, memory in bytes); a candidate is written into the queue's
``resources.guaranteed`` or ``resources.max`` of the configuration, which the partition is then built from, as
YuniKorn builds it from a changed queues.yaml (validator included). Today's value is the search's starting point:
an unset max is unlimited (the cap stands for it), an unset guaranteed is 0.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Sequence
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
from kqctl.yunikorn.api.config import MapConf, QueueConf
from kqctl.yunikorn.api.names import DEFAULT_PARTITION, DOT, ROOT
from kqctl.yunikorn.api.resources import PODS, VCORE, parse_config_value
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine.partition import PartitionError
from kqctl.yunikorn.replay.report import YuniKornReplayOptions, replay_snapshot

FIELDS = ("guaranteed", "max")
DEFAULT_STEPS = {VCORE: 1000, "memory": 1024**3}  # a core, a GiB; other resources: 1


class PlanProblem(QueuePlanProblem):
    """A queue's (its path from root) guaranteed or max resources to plan."""

    KIND = "queue"


def _queues(snapshot: Snapshot) -> dict[str, QueueConf]:
    config = snapshot.config.parsed.config
    partition = next((p for p in (config.partitions or []) if p.name == DEFAULT_PARTITION), None) \
        if config is not None else None
    found: dict[str, QueueConf] = {}
    stack = [(q.name.lower(), q) for q in (partition.queues or [])] if partition is not None else []
    while stack:
        path, queue = stack.pop()
        found[path] = queue
        stack.extend((f"{path}{DOT}{child.name.lower()}", child) for child in queue.children)
    return found


def make_problem(snapshot: Snapshot, target: str, scope: str, field: str, resources: Sequence[str] = (),
                 steps: Sequence[str] = ()) -> PlanProblem:
    """``scope``: ``queue/PATH`` (``root.tenant1``, or ``tenant1`` under root); ``field``: guaranteed or max."""
    kind, _, name = scope.partition("/")
    queues = _queues(snapshot)
    if kind.lower() not in ("queue", "queues", "q") or not name:
        meant = f"; did you mean queue/{scope}?" if not name and _path_of(scope) in queues else ""
        raise PlanError(f"{scope!r}: expected queue/PATH (a YuniKorn queue such as root.tenant1){meant}")
    path = _path_of(name)
    if path not in queues:
        close = difflib.get_close_matches(path, sorted(queues), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise PlanError(f"queue {path} is not in the configuration (plan changes a configured queue){hint}")
    if field not in FIELDS:
        raise PlanError(f"--field {field!r}: choose one of {', '.join(FIELDS)} (a YuniKorn queue's resources)")
    conf = getattr(queues[path].resources, field)
    set_now = dict(conf.values) if conf is not None else {}
    requested = _requested(snapshot, path)
    chosen = [_resource(text, set_now, requested) for text in resources] \
        or sorted(r for r in set_now if r != PODS) or sorted(requested) or [VCORE, "memory"]
    current = tuple(_current(set_now, field, resource) for resource in chosen)
    return PlanProblem(path, field, tuple(chosen), current, _steps(chosen, steps), parse_target(target))


def _path_of(name: str) -> str:
    """A queue named as --for names it: its full path, or a path under root (queue paths are lower case)."""
    return name.lower() if name.lower() == ROOT or name.lower().startswith(ROOT + DOT) else f"{ROOT}{DOT}{name.lower()}"


def _resource(text: str, set_now: dict[str, str], requested: dict[str, int]) -> str:
    """A --resource: a resource the queue's field sets or its pods ask for (``cpu`` is YuniKorn's ``vcore``, as pods
    reach it, and as --step reads it)."""
    resource = VCORE if text == "cpu" else text
    known = sorted({*set_now, *requested, VCORE, "memory"} - {PODS})
    if resource not in known:
        close = difflib.get_close_matches(resource, known, n=2)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise PlanError(f"--resource {text!r}: not a resource of this queue or its pods; {hint}choose from: "
                        f"{', '.join(known)}")
    return resource


def _current(values: dict[str, str], field: str, resource: str) -> int:
    if resource not in values:
        return -1 if field == "max" else 0  # -1: unlimited today (the cap stands for it)
    try:
        return parse_config_value(resource, values[resource])
    except ValueError:
        return 0


def _in_scope(leaf: str, path: str) -> bool:
    return leaf == path or leaf.startswith(path + DOT)


def _requested(snapshot: Snapshot, path: str) -> dict[str, int]:
    """What the pods asking for the queue (or a queue below it) request, in all; ``pods`` left out."""
    total: dict[str, int] = {}
    for pod in snapshot.pods:
        leaf = pod.queue.lower() if pod.queue.lower().startswith(ROOT) else f"{ROOT}{DOT}{pod.queue.lower()}"
        if pod.queue and _in_scope(leaf, path):
            for name, value in pod.resource.items():
                if name != PODS:
                    total[name] = total.get(name, 0) + value
    return total


def _steps(chosen: list[str], texts: Sequence[str]) -> Values:
    given: dict[str, int] = {}
    for text in texts:
        resource, _, amount = text.partition("=")
        resource = VCORE if resource == "cpu" else resource
        try:
            value = parse_config_value(resource, amount)
        except ValueError:
            value = 0
        if value <= 0:
            raise PlanError(f"--step {text!r}: expected RESOURCE=QUANTITY above 0, e.g. vcore=500m or memory=4Gi")
        if resource not in chosen:
            raise PlanError(f"--step {text!r}: {resource} is not a planned resource; planned: {', '.join(chosen)}")
        given[resource] = value
    return tuple(given.get(r, DEFAULT_STEPS.get(r, 1)) for r in chosen)


def default_cap(snapshot: Snapshot, problem: PlanProblem) -> Values:
    """Enough for every pod asking for the queue at once, never below today's value; a guaranteed no higher than the
    queue's own max (YuniKorn refuses a guaranteed above it)."""
    demand = _requested(snapshot, problem.queue)
    limit: dict[str, int] = {}
    if problem.field == "guaranteed":
        conf = _queues(snapshot)[problem.queue].resources.max
        for name, text in (conf.values.items() if conf is not None else ()):
            try:
                limit[name] = parse_config_value(name, text)
            except ValueError:
                continue
    caps = []
    for resource, current, step in zip(problem.resources, problem.current, problem.steps, strict=True):
        wanted = round_up(max(demand.get(resource, 0), current, step), step)
        caps.append(min(wanted, limit[resource]) if resource in limit and limit[resource] >= step else wanted)
    return tuple(caps)


def apply(snapshot: Snapshot, problem: PlanProblem, values: Values) -> Snapshot:
    """The snapshot with the queue's ``resources.<field>`` at ``values`` (the inputs are left untouched)."""
    parsed = copy.deepcopy(snapshot.config.parsed)
    changed = replace(snapshot, config=replace(snapshot.config, parsed=parsed))
    queue = _queues(changed)[problem.queue]
    conf: MapConf | None = getattr(queue.resources, problem.field)
    values_now = dict(conf.values) if conf is not None else {}
    for resource, value in zip(problem.resources, values, strict=True):
        values_now[resource] = f"{value}m" if resource == VCORE else str(value)
    setattr(queue.resources, problem.field, MapConf(values_now, conf.loc if conf is not None else queue.loc))
    return changed


def evaluate(snapshot: Snapshot, problem: PlanProblem, values: Values, options: YuniKornReplayOptions) -> Evaluation:
    """The candidate's replay; a configuration YuniKorn refuses (a guaranteed above its parent's, say) misses."""
    try:
        report = replay_snapshot(apply(snapshot, problem, values), options)
    except PartitionError as exc:
        return refused_candidate(values, problem.target, f"YuniKorn refuses the configuration: {exc}")
    return evaluation(report, problem, values)


def evaluation(report: TimelineReport, problem: PlanProblem, values: Values) -> Evaluation:
    scope = [w for w in report.workloads if _in_scope(w.labels.target, problem.queue) and w.arrival is not None]
    measures = tuple(measure(condition, scope) for condition in problem.target)
    return Evaluation(values, measures, report.end, len(scope), sum(1 for w in scope if w.admitted is not None),
                      report.assumptions)


def with_seed(options: YuniKornReplayOptions, seed: int) -> YuniKornReplayOptions:
    """The replay options of one random draw (plan --seeds): the runtimes drawn from ``seed``."""
    return replace(options, timeline=replace(options.timeline, seed=seed))
