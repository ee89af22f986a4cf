"""``kqctl plan``: the smallest nominal quota that meets a target, searched over replays.

A target is a condition on the replay of the workloads of the planned ClusterQueue (or of every
ClusterQueue of the planned cohort): ``p95(time-to-admission) < 30m``, ``mean(time-to-finish) <= 2h``,
``no workload inadmissible`` (every one of them gets in before the replay ends), or several joined
with ``and``. The quota searched is the nominal quota of each chosen flavor/resource: the
ClusterQueue's own, or for a cohort the total of its ClusterQueues' (shared out among those that list
the flavor/resource in proportion to what each has now, exactly, largest remainder first; a Cohort
object's own quota stays as it is).

The search assumes that more quota never makes the target worse, which holds for the waits of a
single queue but is not guaranteed by Kueue (more quota can change who preempts whom): the answer
is therefore always shown with the replay that meets the target at that quota and the replay one
step below that misses it. Evaluations are independent and can run in parallel (``evaluate_many``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from kqctl.k8s.quantity import QuantityError, format_resource_value, parse_quantity, resource_value
from kqctl.kueue.api.models import ClusterQueue, FlavorQuotas
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.replay.report import KueueReplayOptions, ReplayReport, replay_snapshot
from kqctl.kueue.validate.rules.resource_groups import LENDING_LIMIT_MSG

# The targets, their measures and the search are the same for every scheduler (kqctl.replay.planning).
from kqctl.replay.planning import (  # noqa: F401 (re-exported: Kueue's plan speaks these names too)
    METRICS,
    SEARCH_WIDTH,
    STATISTICS,
    Condition,
    Evaluation,
    Evaluator,
    Measure,
    PlanError,
    PlanResult,
    Values,
    measure,
    parse_target,
    refused_candidate,
    round_up,
    search,
    share_out,
)

FlavorResource = tuple[str, str]

# --- the problem ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanProblem:
    kind: str  # ClusterQueue | Cohort
    name: str
    resources: tuple[FlavorResource, ...]
    members: tuple[str, ...]  # the ClusterQueues whose quota changes and whose workloads count
    current: Values  # the total nominal quota now, per resource
    steps: Values
    target: tuple[Condition, ...]


DEFAULT_STEPS = {"cpu": 1000, "memory": 1024**3}


def make_problem(snapshot: Snapshot, target: str, scope: str, resources: Sequence[str] = (),
                 steps: Sequence[str] = ()) -> PlanProblem:
    """``scope``: ``clusterqueue/NAME`` or ``cohort/NAME``; ``resources``: ``flavor/resource`` (default: all)."""
    kind, _, name = scope.partition("/")
    kind = {"clusterqueue": "ClusterQueue", "cq": "ClusterQueue", "cohort": "Cohort"}.get(kind.lower(), "")
    if not kind or not name:
        raise PlanError(f"{scope!r}: expected clusterqueue/NAME or cohort/NAME{_scope_meant(snapshot, scope)}")
    members = _members(snapshot, kind, name)
    available = sorted({fr for cq in members for fr in snapshot.cluster_queues[cq].quotas})
    chosen = [_flavor_resource(text, available) for text in resources] or available
    if not chosen:
        raise PlanError(f"{kind} {name} has no quota to plan")
    current = tuple(sum(snapshot.cluster_queues[cq].quotas[fr].nominal for cq in members
                        if fr in snapshot.cluster_queues[cq].quotas) for fr in chosen)
    step_values = _steps(chosen, steps)
    return PlanProblem(kind, name, tuple(chosen), tuple(members), current, step_values, parse_target(target))


def _scope_meant(snapshot: Snapshot, scope: str) -> str:
    """For a bare name (no ``kind/``): the scope it names, when a ClusterQueue or a cohort is called that."""
    if "/" in scope:
        return ""
    cohorts = {cq.cohort for cq in snapshot.cluster_queues.values() if cq.cohort} | set(snapshot.cohorts)
    meant = [f"{kind}/{scope}" for kind, names in (("clusterqueue", snapshot.cluster_queues), ("cohort", cohorts))
             if scope in names]
    return f"; did you mean {' or '.join(meant)}?" if meant else ""


def _members(snapshot: Snapshot, kind: str, name: str) -> list[str]:
    if kind == "ClusterQueue":
        if name not in snapshot.cluster_queues:
            raise PlanError(f"ClusterQueue {name!r} is not in the inputs{_did_you_mean(name, snapshot.cluster_queues)}")
        return [name]
    cohorts = {name}
    changed = True
    while changed:  # nested cohorts: every cohort whose chain of parents reaches NAME
        changed = False
        for cohort in snapshot.cohorts.values():
            if cohort.parent in cohorts and cohort.name not in cohorts:
                cohorts.add(cohort.name)
                changed = True
    members = sorted(cq.name for cq in snapshot.cluster_queues.values() if cq.cohort in cohorts)
    if not members:
        known = {cq.cohort for cq in snapshot.cluster_queues.values() if cq.cohort} | set(snapshot.cohorts)
        raise PlanError(f"cohort {name!r} has no ClusterQueue in the inputs{_did_you_mean(name, known)}")
    return members


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _flavor_resource(text: str, available: list[FlavorResource]) -> FlavorResource:
    flavor, _, resource = text.partition("/")
    if (flavor, resource) not in available:
        names = ", ".join(f"{f}/{r}" for f, r in available)
        raise PlanError(f"--resource {text!r}: not a flavor/resource of the planned queue; choose from: {names}")
    return flavor, resource


def _steps(chosen: list[FlavorResource], steps: Sequence[str]) -> Values:
    given: dict[str, int] = {}
    for text in steps:
        resource, _, amount = text.partition("=")
        try:
            value = resource_value(resource, parse_quantity(amount))
        except QuantityError:
            raise PlanError(f"--step {text!r}: expected RESOURCE=QUANTITY, e.g. cpu=500m or memory=4Gi") from None
        if value <= 0:
            raise PlanError(f"--step {text!r}: must be more than 0")
        if resource not in {r for _, r in chosen}:
            raise PlanError(f"--step {text!r}: {resource} is not a planned resource; planned: "
                            f"{', '.join(f'{f}/{r}' for f, r in chosen)}")
        given[resource] = value
    return tuple(given.get(r, DEFAULT_STEPS.get(r, 1)) for _, r in chosen)


# --- candidates -----------------------------------------------------------------------------------------


def apply(snapshot: Snapshot, problem: PlanProblem, values: Values) -> Snapshot:
    """The snapshot with the planned quotas: one ClusterQueue's, or a cohort's total shared out."""
    queues = dict(snapshot.cluster_queues)
    for index, fr in enumerate(problem.resources):
        holders = [cq for cq in problem.members if fr in queues[cq].quotas]  # only those that list it get a share
        shares = share_out(values[index], [queues[cq].quotas[fr].nominal for cq in holders])
        for cq, nominal in zip(holders, shares, strict=True):
            queues[cq] = with_nominal(queues[cq], fr, nominal)
    return replace(snapshot, cluster_queues=queues, workloads=list(snapshot.workloads))


def with_nominal(queue: ClusterQueue, fr: FlavorResource, nominal: int) -> ClusterQueue:
    flavor, resource = fr
    flavors = []
    for item in queue.flavor_quotas:
        if item.name != flavor:
            flavors.append(item)
            continue
        quotas = tuple((r, replace(q, nominal=nominal) if r == resource else q) for r, q in item.resources)
        flavors.append(FlavorQuotas(item.name, quotas))
    return replace(queue, flavor_quotas=tuple(flavors))


def evaluate(snapshot: Snapshot, problem: PlanProblem, values: Values, options: KueueReplayOptions) -> Evaluation:
    """The candidate's replay; one the API server refuses (a lendingLimit above the nominal quota) misses unreplayed."""
    candidate = apply(snapshot, problem, values)
    reason = refusal(candidate, problem)
    if reason:
        return refused_candidate(values, problem.target, reason)
    report = replay_snapshot(candidate, options)
    return evaluation(report, problem, values)


def refusal(candidate: Snapshot, problem: PlanProblem) -> str:
    """Why Kueue's ClusterQueue webhook refuses the candidate's planned quotas ("" when it accepts them). Of what
    the webhook checks, only VAL-CQ-23 reads the nominal quota against another field: a lendingLimit may not exceed
    it, so a plan never goes below a ClusterQueue's lendingLimit (lowering that too is another change, the user's)."""
    for name in problem.members:
        quotas = candidate.cluster_queues[name].quotas
        for flavor, resource in problem.resources:
            quota = quotas.get((flavor, resource))
            if quota is None or quota.lending_limit is None or quota.lending_limit <= quota.nominal:
                continue
            lending = format_resource_value(resource, quota.lending_limit, quota_side=True)
            nominal = format_resource_value(resource, quota.nominal, quota_side=True)
            return (f"the API server refuses ClusterQueue {name}: lendingLimit {lending} of {flavor}/{resource} "
                    f"{LENDING_LIMIT_MSG} ({nominal}) (VAL-CQ-23)")
    return ""


def with_seed(options: KueueReplayOptions, seed: int) -> KueueReplayOptions:
    """The replay options of one random draw (plan --seeds): the runtimes drawn from ``seed``."""
    return replace(options, timeline=replace(options.timeline, seed=seed))


def evaluation(report: ReplayReport, problem: PlanProblem, values: Values) -> Evaluation:
    members = set(problem.members)
    scope = [w for w in report.workloads if w.labels.target in members and w.arrival is not None]
    measures = tuple(measure(condition, scope) for condition in problem.target)
    return Evaluation(values, measures, report.end, len(scope), sum(1 for w in scope if w.admitted is not None),
                      report.assumptions)


def default_cap(snapshot: Snapshot, problem: PlanProblem) -> Values:
    """Enough for every workload in scope at once, and never below today's quota: no replay needs more."""
    members = set(problem.members)
    demand = [0] * len(problem.resources)
    for workload in snapshot.workloads:
        local_queue = snapshot.local_queues.get(f"{workload.namespace}/{workload.queue_name}")
        if local_queue is None or local_queue.cluster_queue not in members:
            continue
        requests = _requests(workload)
        for index, (_, resource) in enumerate(problem.resources):
            demand[index] += requests.get(resource, 0)
    return tuple(round_up(max(d, c, s), s) for d, c, s in zip(demand, problem.current, problem.steps, strict=True))


def _requests(workload: object) -> dict[str, int]:
    from kqctl.k8s.pods import pod_requests, read_pod_resources
    from kqctl.kueue.api.models import Workload

    assert isinstance(workload, Workload)
    totals: dict[str, int] = {}
    for pod_set in workload.pod_sets:
        template = pod_set.template if isinstance(pod_set.template, dict) else {}
        spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
        for name, value in pod_requests(read_pod_resources(spec or {})).items():
            totals[name] = totals.get(name, 0) + value * pod_set.count
    return totals
