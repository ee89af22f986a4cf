"""Why a workload is (not) admitted: the engine's own reasoning, resource by resource, flavor by flavor.

``explain(snapshot, key)`` nominates the workload exactly as the next cycle would (same flavor
assigner, same preemption), lays out the quota arithmetic behind every flavor it tried, runs
the cycles to the steady state for the decision (reading the first cycle's on the way), and
proposes changes that would let it in, each one verified by running the engine again on a
changed snapshot (never guessed).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from kqctl.kueue.api.models import (
    BorrowWithinCohort,
    ClusterQueue,
    FlavorQuotas,
    FlavorResource,
    Preemption,
    ResourceGroup,
    Workload,
)
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState
from kqctl.kueue.engine.entry import CycleResult
from kqctl.kueue.engine.flavors.assignment import FIT, PREEMPT, Assignment
from kqctl.kueue.engine.outcomes import WorkloadOutcome
from kqctl.kueue.engine.preemption.targets import (
    PreemptionContext,
    Target,
    satisfies_policy,
    uses_resources,
    within_nominal,
)
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.quota_trees import TreeScope, ended_alone, run_in_tree, tree_scope
from kqctl.kueue.engine.results import CYCLE_LIMIT
from kqctl.kueue.engine.settled import Settled, evictions_possible
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.engine.verdict import Nomination, missing_amounts, verdict_of
from kqctl.kueue.engine.workloads import WorkloadInfo, WorkloadMemo, resource_order

MAX_COMPLETION_SUGGESTIONS = 5


class UnknownWorkload(LookupError):
    """No workload with that key (or Job name) in the snapshot."""


class NoWorkload(LookupError):
    """The name is a Job or Pod of the inputs for which Kueue creates no Workload (REQ-1, XO-8)."""

    def __init__(self, kind: str, key: str, reason: str) -> None:
        super().__init__(f"{kind} {key}: Kueue creates no Workload for it: {reason}")
        self.kind, self.key, self.reason = kind, key, reason


@dataclass(frozen=True)
class CohortLevel:
    """One ancestor of the ClusterQueue as flavor assignment sees it (Q-2, Q-5)."""

    name: str
    subtree_quota: int
    usage: int
    available: int  # what this level could still give (Q-5 at this node, before limits of lower levels)
    borrowing_limit: int | None  # of the child on the path, towards this level
    lending_limit: int | None  # of the child on the path, towards this level


@dataclass(frozen=True)
class ResourceCheck:
    """FA-6 arithmetic for one (flavor, resource) of one pod set."""

    resource: str
    requested: int
    previously_assigned: int
    nominal: int
    usage: int
    borrowing_limit: int | None
    lending_limit: int | None
    available: int
    potential: int
    levels: tuple[CohortLevel, ...]

    @property
    def needed(self) -> int:
        return self.previously_assigned + self.requested


@dataclass(frozen=True)
class FlavorReport:
    """A flavor of a pod set's resource group: tried (with its mode and Kueue's reasons) or not, and why."""

    pod_set: str
    flavor: str
    tried: bool
    mode: str | None
    borrow: int
    possibility: str | None
    reasons: tuple[str, ...]
    note: str
    checks: tuple[ResourceCheck, ...]


@dataclass(frozen=True)
class AheadEntry:
    key: str
    priority: int
    queued_at: datetime
    why: str


@dataclass(frozen=True)
class CandidateReport:
    key: str
    cluster_queue: str
    priority: int
    verdict: str


@dataclass(frozen=True)
class Decision:
    state: str
    reason: str | None
    message: str | None
    cycle: int | None
    victims: tuple[str, ...]
    preempted_by: str | None
    admitted: bool = False  # holds quota at the end of that run
    text: str = ""  # the state as simulate shows it: ``Admitted (4/8 pods)`` for a partial admission
    cut_short: str | None = None  # the warning of a run the cycle limit stopped before its steady state
    # The verdict's amounts (verdict.py), as simulate reports them: unused quota it lacks per (flavor, resource),
    # and why it can never get in as configured.
    missing: Mapping[FlavorResource, int] = field(default_factory=dict, hash=False)
    never: str | None = None
    decision: str = ""  # simulate's stable token (outcomes.DECISION_TOKENS): Admitted, Preempted, Inadmissible, ...


@dataclass(frozen=True)
class Suggestion:
    kind: str  # nominal-quota | completion | policy
    summary: str
    verified: bool
    details: dict[str, object] = field(default_factory=dict, hash=False)
    # By how much, per resource: the quota increase, or what the finishing/preempted workloads free.
    amounts: dict[str, int] = field(default_factory=dict, hash=False)
    action: str = ""  # the change itself, without the amounts (renderers add them in their units)
    totals: dict[str, int] = field(default_factory=dict, hash=False)  # nominal-quota: the quota it sets, per resource
    note: str = ""  # what the amounts mean beyond themselves (a raise below the shortfall shown above, and why)


@dataclass(frozen=True)
class ChosenFlavor:
    """The flavor one resource of a pod set got (FA-7 mode, borrowing level, FA-4 scan position)."""

    flavor: str
    mode: str
    borrow: int
    tried_index: int


@dataclass(frozen=True)
class FlavorAttempt:
    """One flavor tried for a pod set, merged over its resources (CYC-18)."""

    flavor: str
    mode: str
    borrow: int
    possibility: str | None
    reasons: tuple[str, ...]
    no_fit_reason: str


@dataclass(frozen=True)
class PodSetAssignmentReport:
    name: str
    count: int
    requests: Mapping[str, int]  # totals for this attempt, ``pods`` included when covered
    flavors: Mapping[str, ChosenFlavor]  # by resource
    mode: str
    reasons: tuple[str, ...]  # sorted
    message: str  # FA-13: the error, or the reasons joined
    attempts: tuple[FlavorAttempt, ...]


@dataclass(frozen=True)
class AssignmentReport:
    """What the flavor assigner answered for the workload (FA), as Kueue's ``Assignment`` reports it."""

    mode: str  # the representative mode (FA-7)
    borrowing: int
    message: str  # FA-13
    no_fit_reason: str  # FA-14 ("" when it is not NoFit)
    pod_sets: tuple[PodSetAssignmentReport, ...]


@dataclass(frozen=True)
class VictimReport:
    """A workload the preemption search chose (PRE, FS), with its reason."""

    workload: str
    cluster_queue: str
    reason: str


@dataclass(frozen=True)
class Analysis:
    """The arithmetic behind one state's answer: what stops the workload there, flavor by flavor."""

    queue_problem: tuple[str, str] | None = None  # (reason, message) before any flavor is looked at
    assignment: AssignmentReport | None = None
    targets: tuple[VictimReport, ...] = ()  # by workload key
    flavors: tuple[FlavorReport, ...] = ()
    candidates: tuple[CandidateReport, ...] = ()
    ahead: tuple[AheadEntry, ...] = ()
    blocked_by: str | None = None
    preemption_allowed: bool = True  # False: every preemption policy of its ClusterQueue is Never
    # Why no workload is preempted although its policies allow some candidates (PRE-6..PRE-9, FS-8).
    no_preemption: str | None = None
    # Its next attempt would admit it or preempt for it, but Kueue does not make one: a workload in the inadmissible
    # set is tried again only when quota is freed (CYC-14), and the admissions since its last attempt freed none.
    not_retried: str | None = None


@dataclass(frozen=True)
class Default:
    """DEF-1: a field the input leaves out that the API server fills in, with the value it stores (which the
    simulation reads): ``object`` is ``ClusterQueue/name`` or ``Workload/namespace/name``."""

    object: str
    field: str  # as validate writes it: spec.queueingStrategy
    value: Any

    @property
    def name(self) -> str:
        """The field within the spec: queueingStrategy, preemption.borrowWithinCohort."""
        return self.field.removeprefix("spec.")


@dataclass(frozen=True)
class Explanation:
    """Why a workload is (not) admitted.

    ``now`` is the nomination on the inputs as given (the next cycle: what Kueue's flavor assigner
    answers, the recorded contract); ``steady`` is the same analysis in the steady state, where the
    headline answer comes from, None when the workload gets in. Suggestions are only made for a
    workload that does not get in in the steady state.
    """

    key: str
    local_queue: str | None
    cluster_queue: str | None
    priority: int
    admitted: bool = False
    now: Analysis = field(default_factory=Analysis)
    next_cycle: Decision | None = None
    steady_state: Decision | None = None
    steady: Analysis | None = None
    suggestions: tuple[Suggestion, ...] = ()
    suggestions_tried: tuple[str, ...] = ()  # what was tried when no suggestion works
    # DEF-1: what the API server filled in of its ClusterQueue's and its own spec (the values simulated)
    defaults: tuple[Default, ...] = ()

    @property
    def gets_in(self) -> bool:
        """Admitted (holding quota) in the steady state."""
        return self.steady_state is not None and self.steady_state.admitted


# --- entry point -------------------------------------------------------------------------------------


def resolve_key(snapshot: Snapshot, name: str) -> str:
    """namespace/name of a Workload, or of the Workload a Job or Pod of that name maps to."""
    keys = {f"{w.namespace}/{w.name}": w for w in snapshot.workloads}
    if name in keys:
        return name
    namespace, _, short = name.rpartition("/")
    matches = [key for key, w in keys.items() if (not namespace or w.namespace == namespace)
               and (w.name == short or _is_job_workload_name(w.name, short) or w.name == f"job-{short}"
                    or any(o == short for o in _owner_names(w)))]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UnknownWorkload(f"{name!r} matches several workloads: {', '.join(sorted(matches))}")
    for key, (kind, reason) in sorted(snapshot.without_workload.items()):
        key_namespace, _, key_name = key.partition("/")
        if key_name == short and (not namespace or namespace == key_namespace):
            raise NoWorkload(kind, key, reason)
    close = similar_names(name, [*keys, *snapshot.without_workload])
    if close:
        hint = f"; did you mean {' or '.join(close)}?"
    elif namespace:
        namespaces = sorted({w.namespace for w in snapshot.workloads})
        hint = f" (workloads are in namespace(s) {', '.join(namespaces)})" if namespaces else " (it holds none)"
    else:
        hint = " (give namespace/name)"
    raise UnknownWorkload(f"no workload {name!r} in the inputs{hint}")


def similar_names(name: str, keys: Iterable[str], limit: int = 3) -> list[str]:
    """Workload keys close to a mistyped name: same prefix first (a name typed without its hash suffix),
    then by spelling, within the namespace when one is given."""
    import difflib

    namespace, _, short = name.rpartition("/")
    pool = sorted(k for k in keys if not namespace or k.startswith(f"{namespace}/"))
    prefixed = [k for k in pool if k.rpartition("/")[2].startswith(short) or short.startswith(k.rpartition("/")[2])]
    by_name = {k.rpartition("/")[2]: k for k in pool}
    spelled = [by_name[n] for n in difflib.get_close_matches(short, list(by_name), n=limit, cutoff=0.6)]
    spelled += [k for k in difflib.get_close_matches(name, pool, n=limit, cutoff=0.6) if k not in spelled]
    found = list(dict.fromkeys([*prefixed, *spelled]))[:limit]
    if found or not namespace:
        return found
    # The namespace itself may be the typo (defualt/...): the same name elsewhere, then the closest keys.
    everywhere = sorted(keys)
    same_name = [k for k in everywhere if k.rpartition("/")[2] == short]
    spelled = difflib.get_close_matches(name, everywhere, n=limit, cutoff=0.6)
    return list(dict.fromkeys([*same_name, *spelled]))[:limit]


def _is_job_workload_name(workload_name: str, job_name: str) -> bool:
    """REQ-2: Kueue names a Job's Workload job-<job name>-<5 hex digits of a hash>."""
    prefix = f"job-{job_name}-"
    suffix = workload_name[len(prefix):]
    return workload_name.startswith(prefix) and len(suffix) == 5 and all(c in "0123456789abcdef" for c in suffix)


def _owner_names(workload: object) -> Iterable[str]:
    labels = getattr(workload, "labels", {})
    job = labels.get("kueue.x-k8s.io/job-name") if isinstance(labels, dict) else None
    return [job] if job else []


_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Apart(Protocol):
    """Runs a check of explain's suggestions apart from the others (the CLI: in a forked process, on another core):
    called with the check, returns its :class:`Pending` answer. The checks are pure: where they run changes nothing
    but the time they take. A copy's changes to what it shares never reach this process; a copy that fails leaves
    the check to be run here (:meth:`Pending.result`)."""

    def __call__(self, check: Callable[[], _T]) -> Pending[_T]: ...


class Pending(Protocol[_T_co]):
    def result(self) -> _T_co:
        """The check's answer (waits for it)."""
        ...

    def cancel(self) -> None:
        """Not wanted any more (explain failed meanwhile): end it."""
        ...


def explain(snapshot: Snapshot, key: str, options: SimulationOptions | None = None,
            apart: Apart | None = None, on_setup: Callable[[Simulation], None] | None = None) -> Explanation:
    """``apart``: where the suggestions' checks of completions and policies run while those of quota run here (None:
    here, after them). ``on_setup``: told of the run to the steady state once it is set up, before anything reads or
    runs it (it must change nothing: kqctl explain forks the wait estimate's replay from it there)."""
    options = options or SimulationOptions()
    # Every simulation below reads the same workload models: their pod sets and shapes are worked out once.
    options = dataclasses.replace(options, memo=options.memo or WorkloadMemo())
    # One simulation gives the three states explain describes: the inputs as given (nothing run yet), the end of the
    # first cycle, and the steady state (on 50,000 workloads each set-up is half a second).
    next_cycle = _FirstCycle(key)
    steady = Simulation(snapshot, dataclasses.replace(options, cycles=None, on_cycle=next_cycle))
    if on_setup is not None:
        on_setup(steady)
    outcome = steady.outcomes.get(key)
    if outcome is None:
        raise UnknownWorkload(f"no workload {key!r} in the inputs")
    workload = outcome.workload
    admitted = workload.admission is not None
    local_queue, cluster_queue = outcome.local_queue, outcome.cluster_queue  # as the inputs give them
    now = _analyse_untouched(steady, outcome) if not admitted else Analysis()
    next_cycle.sim = steady
    steady.run_cycles()
    next_cycle.sim = None  # the hook stays in the run's options: no cycle back to the run (nothing would free it)
    steady_state = _decision_of(steady, key)
    first = next_cycle.decision if next_cycle.decision is not None else \
        _decision(snapshot, key, dataclasses.replace(options, cycles=1))  # no cycle ran: nothing to pop
    result = Explanation(key, local_queue, cluster_queue, workload.priority, admitted, now, first, steady_state,
                         defaults=defaults_behind(snapshot, key, cluster_queue))
    if result.gets_in:
        return result  # it gets in: no arithmetic of a failure, no suggestions
    # The headline's reason, message and amounts are the verdict simulate reports (verdict.py); the arithmetic below
    # lays out the same nomination.
    _, nomination = verdict_of(steady, key)
    analysed = _analyse(steady, steady.outcomes[key], reset_clock=False, nomination=nomination)
    result = dataclasses.replace(result, steady=analysed.analysis)
    assignment = analysed.assignment
    if analysed.analysis.queue_problem is not None:
        found = _queue_suggestions(snapshot, key, options)
        return dataclasses.replace(result, suggestions=tuple(found))
    if assignment is not None and assignment.representative_mode() != FIT:
        state = steady.cache.cluster_queues[steady.outcomes[key].workload.cluster_queue or ""]
        found = suggestions(snapshot, key, options, state, assignment, analysed.targets, steady, apart)
        result = dataclasses.replace(result, suggestions=tuple(found), suggestions_tried=SUGGESTIONS_TRIED)
    return result


def defaults_behind(snapshot: Snapshot, key: str, cluster_queue: str | None) -> tuple[Default, ...]:
    """DEF-1: the fields of its ClusterQueue's spec and of its own that the files leave out and the API server
    fills in (kqctl.validate.gate), with the stored value the simulation read: e.g. queueingStrategy
    BestEffortFIFO, under which Kueue keeps a preempting workload at the head of its queue (CYC-13)."""
    found: list[Default] = []
    for name in (f"ClusterQueue/{cluster_queue}" if cluster_queue else None, f"Workload/{key}"):
        for field_path, value in sorted(snapshot.defaulted.get(name or "", {}).items()):
            found.append(Default(name or "", field_path, value))
    return tuple(found)


SUGGESTIONS_TRIED = ("more nominal quota in each flavor of its resource groups",
                     f"the completion of each of the {MAX_COMPLETION_SUGGESTIONS} smallest workloads holding quota "
                     "in its cohort", "a preemption policy that allows making room")


@dataclass(frozen=True)
class _Analysed:
    """An analysis, and the live assignment and targets behind it (what the suggestions start from)."""

    analysis: Analysis
    assignment: Assignment | None = None
    targets: tuple[Target, ...] = ()


def _analyse(sim: Simulation, outcome: WorkloadOutcome, reset_clock: bool,
             nomination: Nomination | None = None) -> _Analysed:
    """Nominate the workload on the simulation's current state (or take ``nomination``, the verdict's) and lay out
    why it fits or not."""
    workload = outcome.workload
    if outcome.queue_reason is not None:
        return _Analysed(Analysis(queue_problem=(outcome.queue_reason, outcome.queue_message or "")))
    state = sim.cache.cluster_queues.get(workload.cluster_queue or "")
    if state is None:
        return _Analysed(Analysis())
    allowed = preemption_allowed(state.model.preemption)
    if workload.admission is not None:
        return _Analysed(Analysis(preemption_allowed=allowed))  # holds quota in this state: nothing to nominate
    ahead, blocked_by = _position(sim, workload, state)
    problem = _nomination_problem(sim, workload, state)
    if problem is not None:
        return _Analysed(Analysis(problem, ahead=tuple(ahead), blocked_by=blocked_by, preemption_allowed=allowed))
    if nomination is not None and nomination.assignment is not None:
        assignment, targets = nomination.assignment, list(nomination.targets)
    else:
        assignment, targets = _nominate(sim, workload, state, reset_clock)
    flavors = _flavor_reports(sim, workload, state, assignment)
    mode = assignment.representative_mode()
    candidates = _candidates(sim, workload, state, assignment) if mode != FIT else []
    victims = tuple(VictimReport(t.workload.key, t.cluster_queue.name, t.reason)
                    for t in sorted(targets, key=lambda t: t.workload.key))
    no_preemption = None
    if mode == PREEMPT and not targets and any(c.verdict.startswith("allowed") for c in candidates):
        no_preemption = why_no_preemption(sim, workload, state, assignment, candidates)
    not_retried = None
    if not reset_clock and (mode == FIT or targets) and workload.key in sim.queues[state.name].inadmissible:
        what = "admit it" if mode == FIT else f"preempt {', '.join(v.workload for v in victims)} for it"
        not_retried = (f"tried now, Kueue would {what}; but it waits in the inadmissible set, which Kueue requeues "
                       "only when quota is freed, and the admissions since its last attempt freed none")
    analysis = Analysis(None, assignment_report(assignment), victims, tuple(flavors), tuple(candidates), tuple(ahead),
                        blocked_by, allowed, no_preemption, not_retried)
    return _Analysed(analysis, assignment, tuple(targets))


def assignment_report(assignment: Assignment) -> AssignmentReport:
    """The flavor assigner's answer as frozen values (what explain shows, and the recorded contract compares)."""
    return AssignmentReport(
        assignment.representative_mode(), assignment.borrowing, assignment.message(), assignment.no_fit_reason,
        tuple(PodSetAssignmentReport(
            ps.name, ps.count, dict(ps.requests),
            {r: ChosenFlavor(c.flavor, c.mode, c.borrow, c.tried_index) for r, c in ps.flavors.items()},
            ps.mode(), tuple(sorted(ps.status.reasons)), ps.status.message(),
            tuple(FlavorAttempt(a.flavor, a.mode, a.borrow, a.possibility, tuple(a.reasons), a.no_fit_reason)
                  for a in ps.attempts))
              for ps in assignment.pod_sets))


def preemption_allowed(policy: Preemption) -> bool:
    """PRE-2: can this ClusterQueue preempt at all (any policy other than Never)?"""
    borrow = policy.borrow_within_cohort.policy if policy.borrow_within_cohort is not None else None
    return any(value not in (None, "", "Never") for value in
               (policy.within_cluster_queue, policy.reclaim_within_cohort, borrow))


class _FirstCycle:
    """``on_cycle`` of the run to the steady state: the workload's decision at the end of its first cycle, as a run of
    that one cycle (``--cycles 1``) reports it. Told of the cycle before its victims are released, the simulation is
    then where a one-cycle run stops (a run's last cycle releases nothing); the verdict reads the options' cycle count
    (what was not tried in the cycles run), so it is asked under a count of one. A verdict leaves the state as it
    found it (verdict.nominate): the run goes on as if it had not been asked."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.sim: Simulation | None = None
        self.decision: Decision | None = None

    def __call__(self, result: CycleResult, limit: int) -> None:
        sim = self.sim
        if result.number != 1 or sim is None:
            return
        options = sim.options
        sim.options = dataclasses.replace(options, cycles=1)
        try:
            self.decision = _decision_of(sim, self.key)
        finally:
            sim.options = options


def _analyse_untouched(sim: Simulation, outcome: WorkloadOutcome) -> Analysis:
    """The analysis on the inputs as given (as the first cycle would nominate it), on a simulation that has not run
    yet and runs on afterwards: the scheduler's cycle and clocks and the workload's flavor-scan memory are put back
    as they were (the nomination's other traces are memos of answers, which give the same answers again)."""
    scheduler, preemptor, workload = sim.scheduler, sim.preemptor, outcome.workload
    saved = scheduler.cycle, scheduler.now, preemptor.now, workload.scan_memory
    try:
        return _analyse(sim, outcome, reset_clock=True).analysis
    finally:
        scheduler.cycle, scheduler.now, preemptor.now, workload.scan_memory = saved


def _decision(snapshot: Snapshot, key: str, options: SimulationOptions) -> Decision:
    sim = Simulation(snapshot, options)
    sim.run_cycles()
    return _decision_of(sim, key)


def _decision_of(run: Simulation, key: str) -> Decision:
    """The run's answer for the workload, as simulate reports it (results.py, verdict.py): its entry alone, frozen as
    simulate freezes every workload's."""
    workload = run.workload_result(key)
    cycle = workload.admitted_in if workload.admitted_in is not None else workload.preempted_in
    # A run stopped at its limit says so last in its warnings (Simulation.result).
    cut_short = run.limit_warning() if run.stop_reason == CYCLE_LIMIT else None
    holds = workload.admission is not None
    reason, message = (workload.last_reason, workload.last_message) if holds else (workload.reason, workload.message)
    return Decision(workload.state, reason, message, cycle, workload.victims, workload.preempted_by, holds,
                    workload.decision_text, cut_short, dict(workload.missing), workload.never, workload.decision)


# --- before flavor assignment ------------------------------------------------------------------------


def _nomination_problem(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState) -> tuple[str, str] | None:
    """CYC-4: what stops the workload before any flavor is looked at."""
    failure = sim.scheduler.nomination_failure(workload, state.name)
    if failure is None:
        return None
    reason, message = failure.reason, failure.message
    if not state.active:
        message = f"{message}: {state.inactive_message or state.inactive_reason}"
    return reason, message


def _position(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState,
              ) -> tuple[list[AheadEntry], str | None]:
    """CYC-2: who is before it in its ClusterQueue's heap, and whether StrictFIFO blocks it behind them."""
    queue = sim.queues[state.name]
    ordered = queue.ordered()
    ahead: list[AheadEntry] = []
    for other in ordered:
        if other.key == workload.key:
            break
        ahead.append(AheadEntry(other.key, other.priority, other.queue_order_time, _why_ahead(other, workload, queue)))
    blocked = ahead[0].key if ahead and state.model.queueing_strategy == "StrictFIFO" else None
    return ahead, blocked


def _why_ahead(other: WorkloadInfo, workload: WorkloadInfo, queue: object) -> str:
    if getattr(queue, "sticky", False) and getattr(queue, "preemptor", None) == other.key:
        return "it is waiting for its preemptions (sticky head of a BestEffortFIFO queue)"
    if other.priority > workload.priority:
        return f"higher priority ({other.priority} > {workload.priority})"
    if other.queue_order_time < workload.queue_order_time:
        return "same priority, queued earlier"
    return "same priority and time, earlier UID/name"


def _nominate(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState,
              reset_clock: bool = True) -> tuple[Assignment, list[Target]]:
    """CYC-5 as the first cycle would run it (``reset_clock``), or as the next one after the last run."""
    if reset_clock:
        sim.scheduler.cycle = 1
        sim.scheduler.now = sim.start
        sim.preemptor.now = sim.start
    return sim.scheduler.get_assignments(workload, state)


# --- flavor by flavor ----------------------------------------------------------------------------------


def _flavor_reports(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState,
                    assignment: Assignment) -> list[FlavorReport]:
    reports: list[FlavorReport] = []
    assigned: dict[FlavorResource, int] = {}
    for ps in assignment.pod_sets:
        attempts = {a.flavor: a for a in ps.attempts}
        for group in _groups(state, ps.requests):
            requested = {r: v for r, v in ps.requests.items() if r in group.covered}
            chosen = {c.flavor for r, c in ps.flavors.items() if r in group.covered}
            for flavor in group.flavors:
                attempt = attempts.get(flavor)
                checks = tuple(_check(sim, state, flavor, r, requested[r], assigned.get((flavor, r), 0))
                               for r in resource_order(requested))
                reports.append(FlavorReport(
                    ps.name, flavor, attempt is not None, attempt.mode if attempt else None,
                    attempt.borrow if attempt else 0, attempt.possibility if attempt else None,
                    tuple(attempt.reasons) if attempt else (), _note(flavor, attempt is not None, chosen, state),
                    checks))
        for resource, choice in ps.flavors.items():
            fr = (choice.flavor, resource)
            assigned[fr] = assigned.get(fr, 0) + ps.requests.get(resource, 0)
    return reports


def _groups(state: ClusterQueueState, requests: dict[str, int]) -> list[ResourceGroup]:
    seen: list[ResourceGroup] = []
    for resource in resource_order(requests):
        group = state.group_for(resource)
        if group is not None and group not in seen:
            seen.append(group)
    return seen


def _note(flavor: str, tried: bool, chosen: set[str], state: ClusterQueueState) -> str:
    if flavor in chosen:
        return "chosen"
    if tried:
        return "tried"
    fungibility = state.model.flavor_fungibility
    return (f"not tried: the search stopped at an earlier flavor (whenCanBorrow: {fungibility.when_can_borrow},"
            f" whenCanPreempt: {fungibility.when_can_preempt}) or the flavor-scan memory skipped it (FA-4, FA-10)")


def _check(sim: Simulation, state: ClusterQueueState, flavor: str, resource: str, requested: int,
           previous: int) -> ResourceCheck:
    fr = (flavor, resource)
    limits = state.limits(fr)
    return ResourceCheck(
        resource, requested, previous, limits.nominal, state.usage(fr), limits.borrowing_limit,
        limits.lending_limit, sim.cache.available(state, fr), sim.cache.potential(state, fr),
        tuple(_levels(state.node, fr)))


def _levels(node: QuotaNode, fr: FlavorResource) -> Iterable[CohortLevel]:
    from kqctl.kueue.engine.quota import available

    child = node
    for ancestor in node.ancestors():
        limits = child.limits(fr)
        yield CohortLevel(ancestor.name, ancestor.subtree.get(fr, 0), ancestor.usage.get(fr, 0),
                          available(ancestor, fr), limits.borrowing_limit, limits.lending_limit)
        child = ancestor


# --- preemption ----------------------------------------------------------------------------------------


def _candidates(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState,
                assignment: Assignment) -> list[CandidateReport]:
    """Every admitted workload on a (flavor, resource) that needs preemption, and whether policy allows it."""
    needed = assignment.flavors_needing_preemption()
    if not needed:
        return []
    context = PreemptionContext(workload, state, needed, dict(assignment.usage))
    root = sim.cache.root_of(state)
    queues = [state] if not root.is_cohort else list(sim.cache.subtree_cluster_queues(root))
    reports: list[CandidateReport] = []
    for cq in sorted(queues, key=lambda q: q.name):
        for other in sorted(cq.workloads.values(), key=lambda w: w.key):
            if not uses_resources(other, needed):
                continue
            reports.append(CandidateReport(other.key, cq.name, other.priority, _verdict(context, cq, other)))
    return reports


def _verdict(context: PreemptionContext, cq: ClusterQueueState, other: WorkloadInfo) -> str:
    policy = context.cq.model.preemption
    if cq is context.cq:
        if not satisfies_policy(policy.within_cluster_queue, context.preemptor, other):
            return f"not allowed: withinClusterQueue is {policy.within_cluster_queue or 'unset'}"
        return "allowed (InClusterQueue)"
    if not satisfies_policy(policy.reclaim_within_cohort, context.preemptor, other):
        return f"not allowed: reclaimWithinCohort is {policy.reclaim_within_cohort or 'unset'}"
    if within_nominal(cq.node, context.needed):
        return "not allowed: its ClusterQueue is not borrowing what is needed (within nominal quota)"
    return "allowed (reclaim from a borrowing ClusterQueue)"


def why_no_preemption(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState, assignment: Assignment,
                      candidates: list[CandidateReport]) -> str:
    """Why Kueue's preemption search chose no victim although its policies allow some of the candidates.

    Asked of the quota tree with every allowed candidate gone (as the search removes them, PRE-9): whether the
    workload then fits at all, and whether it fits without borrowing (PRE-8's attempts).
    """
    from kqctl.k8s.quantity import format_resource_value
    from kqctl.kueue.engine.flavors.assignment import total_requests_for
    from kqctl.kueue.engine.preemption.classical import borrowing_forbidden
    from kqctl.kueue.engine.preemption.targets import put_back, take_out, workload_fits

    if sim.fair_sharing:
        return ("none is preempted: with fair sharing a candidate is preempted only when a preemption strategy "
                "allows it (its ClusterQueue's share must stay at or above the preemptor's), and none does")
    allowed = {c.key for c in candidates if c.verdict.startswith("allowed")}
    holders = [w for cq in sim.cache.cluster_queues.values() for w in cq.workloads.values() if w.key in allowed]
    context = PreemptionContext(workload, state, assignment.flavors_needing_preemption(),
                                total_requests_for(workload, assignment))
    take_out(sim.cache, holders)
    try:
        fits_borrowing = workload_fits(sim.cache, context, allow_borrowing=True)
        fits_within = workload_fits(sim.cache, context, allow_borrowing=False)
        short = {fr: v - sim.cache.available(state, fr) for fr, v in sorted(context.usage.items())
                 if v > sim.cache.available(state, fr)}
        over = {fr: state.usage(fr) + v for fr, v in sorted(context.usage.items()) if state.borrowing_with(fr, v)}
    finally:
        put_back(sim.cache, holders)
    count = f"the {len(allowed)} allowed candidates" if len(allowed) > 1 else "the allowed candidate"
    if not fits_borrowing:
        lacking = ", ".join(f"{format_resource_value(r, v, quota_side=True)} {r} in flavor {f}"
                            for (f, r), v in short.items())
        return f"none is preempted: even with {count} gone it would still lack {lacking}"
    if not fits_within:
        uses = ", ".join(f"{r} {format_resource_value(r, total, quota_side=True)} of nominal "
                         f"{format_resource_value(r, state.nominal((f, r)), quota_side=True)} in flavor {f}"
                         for (f, r), total in over.items())
        if borrowing_forbidden(state):
            policy = state.model.preemption.borrow_within_cohort
            setting = "unset" if policy is None else f"policy {policy.policy}"
            return (f"none is preempted: with {count} gone it would still have to borrow ({uses}), and Kueue "
                    f"preempts in the cohort for a workload that borrows only under borrowWithinCohort ({setting} "
                    f"on ClusterQueue {state.name})")
        return (f"none is preempted: with {count} gone it would still have to borrow ({uses}), and while it borrows "
                "only candidates of a lower priority than its own (and at most borrowWithinCohort."
                "maxPriorityThreshold) may be preempted in the cohort")
    return (f"none is preempted: Kueue takes victims from another ClusterQueue only while that one uses more than "
            f"its nominal quota, and {count} stop being candidates before it fits")


# --- what would make it fit (each verified by running the engine again) --------------------------------


def suggestions(snapshot: Snapshot, key: str, options: SimulationOptions, state: ClusterQueueState,
                assignment: Assignment, targets: tuple[Target, ...], steady: Simulation | None = None,
                apart: Apart | None = None) -> list[Suggestion]:
    """Changes under which the workload gets in, each made to the steady state the headline and the
    arithmetic describe (its quota, its holders, its policies) and verified by running the cycles on.

    ``steady``: that steady state, already run (its holders are read, never changed); None: run it here. ``apart``:
    where the checks of completions and policies run meanwhile (they read nothing the quota checks change); None:
    here, after the quota checks. Either way the suggestions come in the same order."""
    missing = missing_amounts(assignment)
    # Each check runs the cycles of the workload's quota tree only, when that decides as the whole would.
    scope = tree_scope(steady, state.name) if steady is not None else None

    def others() -> list[Suggestion]:
        found = _completion_suggestions(snapshot, key, options, state, steady, scope, apart)
        if not targets:
            found.extend(_policy_suggestions(snapshot, key, options, state, scope))
        return found

    pending = apart(others) if apart is not None else None
    try:
        found = _quota_suggestions(snapshot, key, options, state, assignment, missing, scope)
    except BaseException:
        if pending is not None:
            pending.cancel()
        raise
    found.extend(pending.result() if pending is not None else others())
    return found


def admitted_after(snapshot: Snapshot, key: str, options: SimulationOptions, scope: TreeScope | None = None) -> bool:
    """Does the engine admit the workload on this (changed) snapshot?

    Read from the live simulation: a probe needs one workload's admission, not the whole frozen result. With a
    ``scope``, the cycles of its quota tree only (quota_trees.py), the whole snapshot when that one cannot tell.
    """
    sim = run_in_tree(scope, snapshot, options)
    sim.run_cycles(until=Settled(sim, key))
    if scope is not None and not ended_alone(sim):
        return admitted_after(snapshot, key, options)
    return _holds_quota(sim, key)


def _holds_quota(sim: Simulation, key: str) -> bool:
    outcome = sim.outcomes.get(key)
    return outcome is not None and outcome.workload.admission is not None


def from_steady_state(snapshot: Snapshot, options: SimulationOptions, change: Callable[[Simulation], None],
                      key: str, scope: TreeScope | None = None) -> Simulation:
    """The steady state, then ``change`` made to it as a cluster would see it (a requeue event for every
    ClusterQueue, SIM-6), then the cycles run on to the next steady state: the check behind every suggestion.

    The run stops as soon as whether ``key`` holds quota at the end is known (settled.py): ask it only that. With a
    ``scope``, the cycles of its quota tree only (quota_trees.py), the whole snapshot when that one cannot tell.
    """
    sim, alone = _steady_run(snapshot, options, scope)
    return _after_change(snapshot, options, change, key, sim, alone)


def _steady_run(snapshot: Snapshot, options: SimulationOptions,
                scope: TreeScope | None) -> tuple[Simulation, TreeScope | None]:
    """The run to the steady state :func:`from_steady_state` starts from, and the scope it was made in: ``scope``'s
    quota tree, or the whole snapshot (None) when that tree's run cannot tell."""
    sim = run_in_tree(scope, snapshot, dataclasses.replace(options, cycles=None))
    sim.run_cycles()
    if scope is not None and not ended_alone(sim):
        sim = Simulation(snapshot, dataclasses.replace(options, cycles=None))
        sim.run_cycles()
        return sim, None
    return sim, scope


def _after_change(snapshot: Snapshot, options: SimulationOptions, change: Callable[[Simulation], None], key: str,
                  sim: Simulation, alone: TreeScope | None) -> Simulation:
    """``change`` made to ``sim``, a run to the steady state in the scope ``alone`` (:func:`_steady_run`), and the
    cycles run on; the whole snapshot's answer when the scope's run cannot tell any more."""
    change(sim)
    sim.requeue_inadmissible()
    sim.run_cycles(until=Settled(sim, key))
    if alone is not None and not ended_alone(sim):
        return from_steady_state(snapshot, options, change, key)
    return sim


def _raise_quota(cq: str, flavor: str, increases: Mapping[str, int]) -> Callable[[Simulation], None]:
    def change(sim: Simulation) -> None:
        for resource, value in increases.items():
            fr = (flavor, resource)
            sim.cache.update_nominal_quota(cq, fr, sim.cache.cluster_queues[cq].node.limits(fr).nominal + value)
    return change


def _quota_suggestions(snapshot: Snapshot, key: str, options: SimulationOptions, state: ClusterQueueState,
                       assignment: Assignment, missing: Mapping[FlavorResource, int],
                       scope: TreeScope | None = None) -> list[Suggestion]:
    """Per flavor of its resource groups: the smallest nominalQuota increases that get it admitted, in the units the
    ClusterQueue's quota is written in (quota_step), each checked as a user would: the changed manifests simulated
    from the start (a raise made after the steady state is another question: who is admitted by then)."""
    found: list[Suggestion] = []
    for flavor, resources in _flavor_resources(state, assignment).items():
        steps = {r: quota_step(r, state.nominal((flavor, r))) for r in resources}
        needed = {r: _round_up(_total_request(assignment, r), steps[r]) for r in resources}
        increases = _enough(snapshot, key, options, state.name, flavor, {r: v for r, v in needed.items() if v > 0},
                            scope)
        if increases is None:
            continue
        for resource in resource_order(increases):
            increases[resource] = _smallest_increase(snapshot, key, options, state.name, flavor, increases, resource,
                                                     steps[resource], scope)
        increases = {r: v for r, v in increases.items() if v > 0}
        if not increases:
            continue
        totals = {r: state.nominal((flavor, r)) + v for r, v in sorted(increases.items())}
        text = ", ".join(f"{r} by {_fmt(r, v)} (to {_fmt(r, totals[r])})" for r, v in sorted(increases.items()))
        action = f"raise nominalQuota in flavor {flavor} of ClusterQueue {state.name}"
        note = _below_shortfall(increases, {r: v for (f, r), v in missing.items() if f == flavor})
        found.append(Suggestion("nominal-quota", f"{action}: {text}" + (f" ({note})" if note else ""), True,
                                {"clusterQueue": state.name, "flavor": flavor,
                                 "increase": {r: _fmt(r, v) for r, v in sorted(increases.items())},
                                 "nominalQuota": {r: _fmt(r, v) for r, v in totals.items()}},
                                dict(sorted(increases.items())), action, totals, note))
    return found


def _below_shortfall(increases: Mapping[str, int], missing: Mapping[str, int]) -> str:
    """Why a raise can be smaller than what the workload lacks in the steady state: the run changes with it."""
    below = [r for r in sorted(missing) if increases.get(r, 0) < missing[r]]
    if not below:
        return ""
    return (f"less than the {' and '.join(below)} it lacks in the steady state: with the raise in the manifests it is "
            "admitted before the workloads that take that quota now")


MAX_DOUBLINGS = 6  # the workload's own request, then up to 64 times it: others may take a raise first


def _enough(snapshot: Snapshot, key: str, options: SimulationOptions, cq: str, flavor: str,
            increases: dict[str, int], scope: TreeScope | None = None) -> dict[str, int] | None:
    """Increases that get the workload in (None: none found). Its own request first; when workloads ahead of it take
    the raised quota first, twice as much, and so on."""
    if not increases:
        return None
    for _ in range(MAX_DOUBLINGS + 1):
        if _gets_in_with(snapshot, key, options, cq, flavor, increases, scope):
            return dict(increases)
        increases = {r: v * 2 for r, v in increases.items()}
    return None


def _gets_in_with(snapshot: Snapshot, key: str, options: SimulationOptions, cq: str, flavor: str,
                  increases: Mapping[str, int], scope: TreeScope | None = None) -> bool:
    """The suggestion's check: the ClusterQueue's manifest with the raise, simulated from the start."""
    return admitted_after(with_nominal_increases(snapshot, cq, flavor, dict(increases)), key, options, scope)


def quota_step(resource: str, nominal: int) -> int:
    """The unit a quota of ``resource`` is set in, as the ClusterQueue already writes it: whole cores unless its cpu
    quota has fractions (then 100m, 10m or 1m); memory and other byte sizes in Gi, Mi or Ki as far as its quota is a
    multiple of them; every other resource (GPUs, pods) in whole units."""
    if resource == "cpu":
        units: tuple[int, ...] = (1000, 100, 10, 1)
    elif _fmt(resource, 1024) == "1Ki":  # printed with binary suffixes: a byte size
        units = (1024**3, 1024**2, 1024, 1)
    else:
        return 1
    return next(unit for unit in units if nominal % unit == 0)


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def _fmt(resource: str, value: int) -> str:
    from kqctl.k8s.quantity import format_resource_value

    return format_resource_value(resource, value)


def _smallest_increase(snapshot: Snapshot, key: str, options: SimulationOptions, cq: str, flavor: str,
                       increases: dict[str, int], resource: str, step: int, scope: TreeScope | None = None) -> int:
    """Binary search on one resource, in whole steps, with the others held; every probe is a full engine run of the
    changed manifests. ``increases[resource]`` gets it in (checked), so the answer is always a checked one."""
    low, high = 0, increases[resource] // step
    while low < high:
        middle = (low + high) // 2
        if _gets_in_with(snapshot, key, options, cq, flavor, {**increases, resource: middle * step}, scope):
            high = middle
        else:
            low = middle + 1
    return low * step


def _flavor_resources(state: ClusterQueueState, assignment: Assignment) -> dict[str, list[str]]:
    pairs: dict[str, list[str]] = {}
    for ps in assignment.pod_sets:
        for resource in resource_order(ps.requests):
            group = state.group_for(resource)
            for flavor in group.flavors if group is not None else ():
                if (flavor, resource) in state.node.quotas and resource not in pairs.setdefault(flavor, []):
                    pairs[flavor].append(resource)
    return pairs


def _total_request(assignment: Assignment, resource: str) -> int:
    return sum(ps.requests.get(resource, 0) for ps in assignment.pod_sets)


def with_nominal_increases(snapshot: Snapshot, cq: str, flavor: str, increases: dict[str, int]) -> Snapshot:
    """The snapshot with the ClusterQueue's nominalQuota in ``flavor`` raised by ``increases`` (per resource)."""
    model = snapshot.cluster_queues[cq]
    quotas = tuple(
        FlavorQuotas(fq.name, tuple(
            (res, dataclasses.replace(q, nominal=q.nominal + increases.get(res, 0)) if fq.name == flavor else q)
            for res, q in fq.resources))
        for fq in model.flavor_quotas)
    return _with_cluster_queue(snapshot, dataclasses.replace(model, flavor_quotas=quotas))


def _with_cluster_queue(snapshot: Snapshot, model: ClusterQueue) -> Snapshot:
    return dataclasses.replace(snapshot, cluster_queues={**snapshot.cluster_queues, model.name: model})


def _completion_suggestions(snapshot: Snapshot, key: str, options: SimulationOptions,
                            state: ClusterQueueState, steady: Simulation | None,
                            scope: TreeScope | None = None, apart: Apart | None = None) -> list[Suggestion]:
    """Workloads holding quota in its quota tree in the steady state whose completion alone lets it in.

    ``apart``: each check made on a copy of one run to the steady state (:class:`_SharedSteady`), instead of a run
    of its own to that state."""
    if steady is None:
        steady = Simulation(snapshot, dataclasses.replace(options, cycles=None))
        steady.run_cycles()
    root = steady.cache.root_of(steady.cache.cluster_queues[state.name])
    queues = [steady.cache.cluster_queues[state.name]] if not root.is_cohort else \
        steady.cache.subtree_cluster_queues(root)
    holders = sorted((w for cq in queues for w in cq.workloads.values()),
                     key=lambda w: (sum(w.usage().values()), w.key))
    found: list[Suggestion] = []
    answers: dict[object, bool] = {}
    shared = _SharedSteady(snapshot, options, key, scope) if apart is not None else None
    for holder in holders[:MAX_COMPLETION_SUGGESTIONS]:
        twin = _interchangeable(steady, holder)
        gets_in = answers.get(twin) if twin is not None else None
        if gets_in is None:
            if shared is not None and apart is not None:
                gets_in = shared.lets_in(_finish(holder.key), apart)
            else:
                gets_in = _holds_quota(from_steady_state(snapshot, options, _finish(holder.key), key, scope), key)
            if gets_in and holder.model.admission is not None:
                # It runs in the snapshot: a user re-simulating once it has finished drops it from the inputs. The
                # promise must hold there too (another workload may then get in first).
                gets_in = admitted_after(_without(snapshot, holder.key), key, options, scope)
            if twin is not None:
                answers[twin] = gets_in
        if gets_in:
            where = holder.admission.cluster_queue if holder.admission else "?"
            frees = _by_resource(holder.usage())
            action = f"it gets in once {holder.key} (ClusterQueue {where}) finishes"
            text = ", ".join(f"{r} {_fmt(r, v)}" for r, v in frees.items())
            found.append(Suggestion("completion", f"{action}, freeing {text}" if text else action, True,
                                    {"workload": holder.key, "frees": {r: _fmt(r, v) for r, v in frees.items()}},
                                    frees, action))
    return found


class _SharedSteady:
    """:func:`from_steady_state`'s checks from one run to the steady state: the run made once, here, and each check
    (the change, a requeue event, the cycles on) made ``apart`` on a copy of it (the CLI forks one per check: the
    copy's changes never reach this run). The engine is deterministic, so a copy of the run is the run each check
    would otherwise make again (on Kueue's 50,000-workload shape a tree's set-up and cycles to the steady state,
    a third of each check). A check the copy could not make is made here, on the run itself, which is then spent:
    the checks after it run to the steady state on their own, as without it."""

    def __init__(self, snapshot: Snapshot, options: SimulationOptions, key: str, scope: TreeScope | None) -> None:
        self.snapshot, self.options, self.key, self.scope = snapshot, options, key, scope
        self.sim: Simulation | None = None
        self.alone: TreeScope | None = None  # the scope the run was made in (None: the whole snapshot)
        self.spent = False

    def lets_in(self, change: Callable[[Simulation], None], apart: Apart) -> bool:
        """Does the workload hold quota once ``change`` is made to the steady state (from_steady_state's answer)?"""
        if self.sim is None and not self.spent:
            self._run()
        answer: list[bool] = apart(lambda: [self._check(change)]).result()
        return answer[0]

    def _run(self) -> None:
        """The steady state as from_steady_state reaches it."""
        self.sim, self.alone = _steady_run(self.snapshot, self.options, self.scope)

    def _check(self, change: Callable[[Simulation], None]) -> bool:
        sim = self.sim
        if sim is None or self.spent:
            return _holds_quota(from_steady_state(self.snapshot, self.options, change, self.key, self.scope), self.key)
        self.spent = True  # in a copy, the copy's run; here (the copy failed), this one
        return _holds_quota(_after_change(self.snapshot, self.options, change, self.key, sim, self.alone), self.key)


def _without(snapshot: Snapshot, key: str) -> Snapshot:
    """The snapshot without one workload (it finished before the run)."""
    return dataclasses.replace(snapshot, workloads=[w for w in snapshot.workloads if f"{w.namespace}/{w.name}" != key])


def _interchangeable(steady: Simulation, holder: WorkloadInfo) -> object | None:
    """What makes holders interchangeable for the completion check, or None when who finishes may matter.

    Once a holder finishes, the cycles see what it held only as usage numbers unless something can read who
    holds quota: a preemption search (its candidates), TAS (its pods' nodes), admission fair sharing (its
    LocalQueue's usage). With none of them (settled.evictions_possible says no preemption can find a candidate
    in the tree, now or later), two holders of the same ClusterQueue with the same usage free the same thing,
    and the engine's answer for one is its answer for the other: the check runs once for them.
    """
    admission = holder.admission
    if admission is None or steady.ledger is not None or steady.cache.tas.flavors:
        return None
    state = steady.cache.cluster_queues.get(admission.cluster_queue)
    if state is None or evictions_possible(steady, state):
        return None
    return admission.cluster_queue, tuple(sorted(holder.usage().items()))


def _finish(holder: str) -> Callable[[Simulation], None]:
    """The workload finishes: it leaves the cache and releases its quota, and is not queued again."""
    def change(sim: Simulation) -> None:
        workload = sim.outcomes[holder].workload
        if workload.admission is None:
            return
        state = sim.cache.cluster_queues.get(workload.admission.cluster_queue)
        sim.cache.remove_workload(workload)
        workload.admission = None
        if state is not None:
            state.generation += 1
    return change


def _policy_suggestions(snapshot: Snapshot, key: str, options: SimulationOptions,
                        state: ClusterQueueState, scope: TreeScope | None = None) -> list[Suggestion]:
    """A preemption policy of its ClusterQueue under which Kueue would make room for it, each checked as a user would:
    the ClusterQueue's manifest with that policy, simulated from the start; the victims are those it preempts there."""
    model = snapshot.cluster_queues[state.name]
    current = model.preemption
    variants = [
        ("withinClusterQueue: LowerPriority", dataclasses.replace(current, within_cluster_queue="LowerPriority")),
        ("reclaimWithinCohort: Any", dataclasses.replace(current, reclaim_within_cohort="Any")),
        ("reclaimWithinCohort: LowerPriority and borrowWithinCohort.policy: LowerPriority",
         Preemption("LowerPriority", current.within_cluster_queue, BorrowWithinCohort("LowerPriority"))),
    ]
    found: list[Suggestion] = []
    for text, preemption in variants:
        if preemption == current:
            continue
        changed = _with_cluster_queue(snapshot, dataclasses.replace(model, preemption=preemption))
        held: dict[str, dict[FlavorResource, int]] = {}
        if not _admitted_preempting(changed, key, options, held, scope):
            continue
        victims = sorted(held)
        frees = _by_resource({fr: sum(held[v].get(fr, 0) for v in victims) for fr in
                              {fr for v in victims for fr in held[v]}})
        action = f"set {text} on ClusterQueue {state.name}: it gets in" + (
            f" by preempting {', '.join(victims)}" if victims else "")
        freed = ", ".join(f"{r} {_fmt(r, v)}" for r, v in frees.items())
        found.append(Suggestion("policy", f"{action}, freeing {freed}" if freed else action, True,
                                {"preemption": text, "victims": victims,
                                 "frees": {r: _fmt(r, v) for r, v in frees.items()}}, frees, action))
    return found


def _admitted_preempting(snapshot: Snapshot, key: str, options: SimulationOptions,
                         held: dict[str, dict[FlavorResource, int]], scope: TreeScope | None = None) -> bool:
    """Does the engine admit the workload on this snapshot? ``held`` gets what each workload it preempts held."""
    def watch(result: CycleResult, limit: int) -> None:
        for eviction in result.evictions:  # told before the victims leave: their admission is still there
            if eviction.preemptor.key == key and eviction.victim.admission is not None:
                held[eviction.victim.key] = dict(eviction.victim.usage())

    sim = run_in_tree(scope, snapshot, dataclasses.replace(options, cycles=None, on_cycle=watch))
    sim.run_cycles()
    if scope is not None and not ended_alone(sim):
        held.clear()
        return _admitted_preempting(snapshot, key, options, held)
    return _holds_quota(sim, key)


MAX_QUEUE_SUGGESTIONS = 3


def _queue_suggestions(snapshot: Snapshot, key: str, options: SimulationOptions) -> list[Suggestion]:
    """What gets a workload that is not queued into a queue: its LocalQueue created (or started, or pointed at
    an existing ClusterQueue), each verified by running the engine on the changed snapshot."""
    from kqctl.kueue.api.models import LocalQueue

    workload = next(w for w in snapshot.workloads if f"{w.namespace}/{w.name}" == key)
    lq_key = f"{workload.namespace}/{workload.queue_name}"
    existing = snapshot.local_queues.get(lq_key)
    if existing is not None and existing.stop_policy != "None":
        started = dataclasses.replace(existing, stop_policy="None")
        changed = dataclasses.replace(snapshot, local_queues={**snapshot.local_queues, lq_key: started})
        action = f"set spec.stopPolicy: None on LocalQueue {lq_key} (it is stopped: {existing.stop_policy})"
        gets_in = admitted_after(changed, key, options)
        return [Suggestion("local-queue", action + (": it then gets in" if gets_in else
                                                    ": it is then queued, but still not admitted"), True,
                           {"localQueue": lq_key, "stopPolicy": "None", "admitted": gets_in}, action=action)]
    if not workload.queue_name:
        return []
    found: list[Suggestion] = []
    queued: list[str] = []
    for cq in sorted(snapshot.cluster_queues):
        if existing is not None and existing.cluster_queue == cq:
            continue
        queue = LocalQueue(workload.namespace, workload.queue_name, cq, "None", 1.0)
        changed = dataclasses.replace(snapshot, local_queues={**snapshot.local_queues, lq_key: queue})
        if existing is None:
            action = (f"create LocalQueue {workload.queue_name} in namespace {workload.namespace} "
                      f"with spec.clusterQueue: {cq}")
        else:
            action = f"point LocalQueue {lq_key} at ClusterQueue {cq} (its ClusterQueue {existing.cluster_queue} " \
                     "does not exist)"
        if admitted_after(changed, key, options):
            found.append(Suggestion("local-queue", f"{action}: it then gets in", True,
                                    {"localQueue": lq_key, "clusterQueue": cq, "admitted": True}, action=action))
        else:
            queued.append(cq)
        if len(found) >= MAX_QUEUE_SUGGESTIONS:
            break
    if not found and queued:
        what = "create LocalQueue" if existing is None else "point LocalQueue"
        action = (f"{what} {workload.queue_name} in namespace {workload.namespace} at one of ClusterQueue(s) "
                  f"{', '.join(queued[:MAX_QUEUE_SUGGESTIONS])}{' ...' if len(queued) > MAX_QUEUE_SUGGESTIONS else ''}"
                  ": it is then queued, but none of them admits it in the steady state")
        found.append(Suggestion("local-queue", action, True, {"localQueue": lq_key, "admitted": False},
                                action=action))
    if not snapshot.cluster_queues:
        action = (f"create LocalQueue {workload.queue_name} in namespace {workload.namespace} and the "
                  "ClusterQueue it points at (the inputs hold no ClusterQueue)")
        found.append(Suggestion("local-queue", action, False, {"localQueue": lq_key, "admitted": None},
                                action=action))
    if existing is None:
        found.extend(_other_local_queues(snapshot, key, options, workload))
    return found


def _other_local_queues(snapshot: Snapshot, key: str, options: SimulationOptions, workload: Workload,
                        ) -> list[Suggestion]:
    """The LocalQueues that do exist in its namespace, closest name first: a typo in the queue-name label."""
    import difflib

    names = sorted(q.name for q in snapshot.local_queues.values() if q.namespace == workload.namespace)
    if not names:
        return []
    close = difflib.get_close_matches(workload.queue_name, names, n=len(names), cutoff=0.0)
    found: list[Suggestion] = []
    for name in close[:MAX_QUEUE_SUGGESTIONS]:
        relabelled = dataclasses.replace(workload, queue_name=name)
        changed = dataclasses.replace(snapshot, workloads=[relabelled if w is workload else w
                                                           for w in snapshot.workloads])
        gets_in = admitted_after(changed, key, options)
        action = (f"submit it to the existing LocalQueue {name} of namespace {workload.namespace} instead "
                  "(label kueue.x-k8s.io/queue-name, spec.queueName)")
        found.append(Suggestion("local-queue", action + (": it then gets in" if gets_in else
                                                         ": it is then queued, but still not admitted"), True,
                                {"localQueue": f"{workload.namespace}/{name}", "admitted": gets_in}, action=action))
    return found


def _by_resource(usage: dict[FlavorResource, int]) -> dict[str, int]:
    """Usage summed over flavors, per resource, in resource order."""
    totals: dict[str, int] = {}
    for (_, resource), value in usage.items():
        totals[resource] = totals.get(resource, 0) + value
    return {r: totals[r] for r in resource_order(totals)}
