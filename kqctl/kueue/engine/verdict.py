"""Why each workload ends where it ends: the one reason, message and missing amounts every command shows.

A workload that holds no quota at the end of a run is out for a reason that the end state itself
gives: what Kueue's scheduler answers when it tries the workload there (CYC-4, CYC-5: its nomination,
flavor assignment and preemption search on the end state's quota and holders). That answer is the
one simulate, explain, audit, diff and replay show; it is worked out here, once per run, by
:func:`verdicts`, and frozen with the rest of the result (results.py).

Why not the message of the workload's last scheduling attempt, which is what Kueue writes into the
workload's ``QuotaReserved`` condition? Two of Kueue's rules make that message describe another state
than the end state:

* flavor-scan memory (FA-4): an attempt that resumes the scan after the flavor the previous attempt
  stopped at looks at the later flavors only. Its message names only them ("untolerated taint ...
  in flavor spot") although the resource group it never reached is what keeps the workload out; the
  scan reached the last flavor, so the next attempt starts from the first again;
* admissions later in the same cycle, or in later cycles, take quota after the attempt, without a
  requeue event (CYC-14 requeues only when quota is freed): "12 more needed" when the attempt was
  made, 14 more in the end state.

The next attempt on the end state (the one Kueue makes when anything frees quota) answers with the
end state's numbers; where nothing changed since the last attempt it is the same answer. The last
attempt's own reason and message stay in the result (``last_reason``, ``last_message``).

The same module says whether the workload could ever get in as configured (``never``): Kueue's flavor
assignment on the same ClusterQueues with no workload holding any quota (Q-5 then equals the maximum
capacity, Q-6), after the checks that come before any flavor (CYC-4: a LocalQueue, an active
ClusterQueue, a namespace it admits, requests within limits). A workload too big for every flavor of
a resource group, with no eligible flavor (FA-5: taints, node affinity), or in a closed queue can never
get in, whatever finishes; every other one could, once enough quota is free.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from kqctl.k8s.quantity import sat_add
from kqctl.k8s.units import human, human_request
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.cycle import Scheduler
from kqctl.kueue.engine.entry import WAITING_FOR_QUOTA
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.flavors.assigner import FlavorAssigner
from kqctl.kueue.engine.flavors.assignment import FIT, NO_FIT, PREEMPT, Assignment
from kqctl.kueue.engine.outcomes import WorkloadOutcome, reported_reason
from kqctl.kueue.engine.preemption.preemptor import Preemptor
from kqctl.kueue.engine.preemption.targets import Target
from kqctl.kueue.engine.queues import STRICT_FIFO, PendingQueue
from kqctl.kueue.engine.quota import potential
from kqctl.kueue.engine.workloads import PodSetInfo, ScanMemory, WorkloadInfo

PENDING_REASON = "Pending"


class _Options(Protocol):
    @property
    def cycles(self) -> int | None: ...
    @property
    def gates(self) -> FeatureGates: ...


class _Livelock(Protocol):
    @property
    def cycles(self) -> tuple[int, int]: ...


class Simulation(Protocol):
    """What a verdict reads of a run (engine.simulation.Simulation), named here so that the simulation can ask for
    verdicts without the two modules importing each other."""

    @property
    def snapshot(self) -> Snapshot: ...
    @property
    def options(self) -> _Options: ...
    @property
    def cache(self) -> QuotaCache: ...
    @property
    def queues(self) -> Mapping[str, PendingQueue]: ...
    @property
    def outcomes(self) -> Mapping[str, WorkloadOutcome]: ...
    @property
    def scheduler(self) -> Scheduler: ...
    @property
    def preemptor(self) -> Preemptor: ...
    @property
    def ledger(self) -> object | None: ...
    @property
    def history(self) -> Sequence[object]: ...
    @property
    def livelock(self) -> _Livelock | None: ...
    def compares_times(self) -> bool: ...
    def next_cycle_time(self) -> datetime: ...


@dataclass(frozen=True)
class Verdict:
    """One workload's answer at the end of a run, for a workload that holds no quota there."""

    reason: str | None  # Kueue's QuotaReserved=False reason of that answer (WaitingForQuota, NoMatchingFlavor, ...)
    message: str | None  # Kueue's message of that answer
    missing: Mapping[FlavorResource, int] = field(default_factory=dict)  # the unused quota it lacks ("N more needed")
    never: str | None = None  # why it can never get in as configured; None: it could (or we cannot say it cannot)
    blocked_by: str | None = None  # StrictFIFO: the head it waits behind


@dataclass
class Nomination:
    """The end-state nomination behind a verdict (live engine values: explain lays them out)."""

    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)


def verdicts(sim: Simulation, keys: Iterable[str]) -> dict[str, Verdict]:
    """The verdict of every workload of ``keys`` that holds no quota at the end of ``sim``'s run."""
    judge = _Judge(sim, shared=True)
    wanted = [key for key in keys if sim.outcomes[key].workload.admission is None]
    found: dict[str, Verdict] = {}
    queued: list[tuple[str, ClusterQueueState, _Answer]] = []
    states: list[tuple[str, ClusterQueueState]] = []
    for key in wanted:
        early = judge.before_nomination(key)
        if isinstance(early, Verdict):
            found[key] = early
        else:
            states.append((key, early))
    for key, state in states:  # first the nominations the cycles made that still hold, for equivalent workloads
        judge.seed(key, state)
    queued = [(key, state, judge.answer(key, state)) for key, state in states]
    never = never_reasons(sim, [(key, state) for key, state, _ in queued])
    for key, state, answer in queued:
        found[key] = judge.verdict(key, state, answer, never.get(key))
    return {key: found[key] for key in wanted}


def verdict_of(sim: Simulation, key: str) -> tuple[Verdict, Nomination]:
    """One workload's verdict and the nomination behind it (explain: the same answer :func:`verdicts` gives)."""
    judge = _Judge(sim, shared=False)
    early = judge.before_nomination(key)
    if isinstance(early, Verdict):
        return early, Nomination()
    answer = judge.answer(key, early)
    never = never_reasons(sim, [(key, early)]).get(key)
    return judge.verdict(key, early, answer, never), answer.nomination


class _Judge:
    """Verdicts on one end state: StrictFIFO heads read once, nominations shared by equivalent workloads."""

    def __init__(self, sim: Simulation, shared: bool) -> None:
        self.sim = sim
        self.heads = _strict_heads(sim)
        self.memo: dict[object, _Answer] | None = {} if shared and _shareable(sim) else None
        self.compares_times = sim.compares_times() if self.memo is not None else False
        cycles = sim.options.cycles
        self.untried = None if cycles is None else Verdict(
            PENDING_REASON, f"not tried in the {cycles:,} cycle(s) run (--cycles): it did not reach the head of its "
            "queue")

    def before_nomination(self, key: str) -> Verdict | ClusterQueueState:
        """The verdict when the answer comes before any flavor (CYC-4), else the ClusterQueue to nominate it in."""
        sim = self.sim
        outcome = sim.outcomes[key]
        workload = outcome.workload
        if outcome.queue_reason is not None:
            message = outcome.queue_message or outcome.queue_reason
            return Verdict(outcome.queue_reason, outcome.queue_message, never=message)
        if self.untried is not None and outcome.last_entry is None and outcome.preempted_in is None:
            # --cycles N: a run cut short on purpose; what was never tried is only that (and costs nothing: 49,000
            # workloads behind the heads of one cycle are not looked at, as the cycle does not look at them).
            return self.untried
        state = sim.cache.cluster_queues.get(workload.cluster_queue or "")
        if state is None or _queue_of(sim, workload) is None:
            # Preempted, and not requeued (its LocalQueue was stopped or removed since): out of every queue.
            return _last_attempt(outcome)
        failure = sim.scheduler.nomination_failure(workload, state.name)
        if failure is not None:
            return Verdict(failure.reason, failure.message, never=failure.message)
        return state

    def answer(self, key: str, state: ClusterQueueState) -> _Answer:
        """The end-state nomination of the workload: its own last one when nothing it read has changed since
        (_still_valid), else one shared by equivalent workloads (_equivalence), else a new one."""
        sim = self.sim
        workload = sim.outcomes[key].workload
        if self.memo is None:
            return _Answer.of(self._nomination(key, state))
        equivalence = _equivalence(sim, workload, state, self.compares_times)
        answer = self.memo.get(equivalence)
        if answer is None:
            answer = self.memo[equivalence] = _Answer.of(self._nomination(key, state))
        return answer

    def seed(self, key: str, state: ClusterQueueState) -> None:
        """Remember the workload's last nomination for its equivalent workloads, when it still holds."""
        if self.memo is None:
            return
        sim = self.sim
        workload = sim.outcomes[key].workload
        if _still_valid(sim, key, state) is not None:
            equivalence = _equivalence(sim, workload, state, self.compares_times)
            if equivalence not in self.memo:
                self.memo[equivalence] = _Answer.of(self._nomination(key, state))

    def _nomination(self, key: str, state: ClusterQueueState) -> Nomination:
        kept = _still_valid(self.sim, key, state)
        return kept if kept is not None else nominate(self.sim, self.sim.outcomes[key].workload, state)

    def verdict(self, key: str, state: ClusterQueueState, answer: _Answer, never: str | None) -> Verdict:
        outcome = self.sim.outcomes[key]
        blocked_by = self.heads.get(key)
        out = answer.out
        if out is not None:
            return Verdict(out.reason, out.message, out.missing, never, blocked_by)
        # It fits (or would preempt) on its next attempt: the run ended before it was tried again (a cycle limit, a
        # livelock, --cycles), or it waits behind a StrictFIFO head. Its last attempt says what happened.
        verdict = dataclasses.replace(_last_attempt(outcome), never=never)
        if blocked_by is not None:
            message = f"waiting behind {blocked_by}, the head of StrictFIFO ClusterQueue {state.name}"
            return dataclasses.replace(verdict, message=message, blocked_by=blocked_by)
        if outcome.last_entry is None and outcome.preempted_in is None:
            targets = answer.nomination.targets
            would = (f"preempt {', '.join(sorted(t.workload.key for t in targets))}" if targets else "admit it")
            return dataclasses.replace(verdict, message=f"not tried: {self._why_stopped()} before it reached the head "
                                       f"of its queue; its next attempt would {would}")
        return verdict

    def _why_stopped(self) -> str:
        sim = self.sim
        if sim.livelock is not None:
            first, last = sim.livelock.cycles
            return f"the run stopped at a livelock (cycles {first}-{last} repeat)"
        return f"the run stopped after {len(sim.history):,} cycles"


@dataclass(frozen=True)
class _Answer:
    """A nomination, and the verdict it gives when it keeps the workload out (None: it would admit or preempt)."""

    nomination: Nomination
    out: Verdict | None

    @classmethod
    def of(cls, nomination: Nomination) -> _Answer:
        assignment = nomination.assignment
        assert assignment is not None
        mode = assignment.representative_mode()
        if mode == NO_FIT or (mode == PREEMPT and not nomination.targets):
            reason = assignment.no_fit_reason if mode == NO_FIT else WAITING_FOR_QUOTA
            return cls(nomination, Verdict(reason or WAITING_FOR_QUOTA, assignment.message(),
                                           missing_amounts(assignment)))
        return cls(nomination, None)


def _shareable(sim: Simulation) -> bool:
    """Whether equivalent workloads (_equivalence) get the same nomination: not when the assignment reads more of the
    workload than its scheduling shape (TAS requests, ConcurrentAdmission annotations) or preemption reads its
    LocalQueue's usage (admission fair sharing)."""
    return not sim.cache.tas.flavors and sim.ledger is None and not sim.options.gates.enabled("ConcurrentAdmission")


def _equivalence(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState, compares_times: bool) -> object:
    """What a nomination on one state reads of the workload: its ClusterQueue, its scheduling shape (CYC-12: requests,
    pod spec, priority), the flavor-scan memory (FA-4) the next cycle would use, and its queue-order time where a
    policy compares it (PRE-3)."""
    memory = _effective_memory(sim, workload, state)
    scan = None if memory is None else tuple(tuple(sorted(d.items())) for d in memory.last_tried)
    return state.name, workload.shape, scan, workload.queue_order_time if compares_times else None


def _effective_memory(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState) -> ScanMemory | None:
    """The flavor-scan memory the next cycle would start from (None: every group from its first flavor)."""
    memory = workload.scan_memory
    if memory is None:
        return None
    scheduler = sim.scheduler
    scheduler.cycle += 1  # as the next cycle reads it
    try:
        outdated = scheduler.memory_outdated(memory, workload, state)
    finally:
        scheduler.cycle -= 1
    return None if outdated or not memory.has_pending_flavors() else memory


def _still_valid(sim: Simulation, key: str, state: ClusterQueueState) -> Nomination | None:
    """The workload's last nomination, when the next cycle would make the same one: made from scratch (no flavor-scan
    memory in effect, FA-4; not a recomputation, CYC-10) in the same ClusterQueue, on a quota tree in which no usage
    or quota has changed since (QuotaNode.version), with no flavor-scan memory in effect now either, and not under TAS
    or admission fair sharing (they read more than the tree's quota: _shareable)."""
    entry = sim.outcomes[key].last_entry
    if entry is None or entry.assignment is None or not entry.assignment.from_first_flavors:
        return None
    if entry.cq_name != state.name or entry.tree_version != sim.cache.tree_version(state) or not _shareable(sim):
        return None
    if _effective_memory(sim, sim.outcomes[key].workload, state) is not None:
        return None
    return Nomination(entry.assignment, list(entry.targets))


def nominate(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState) -> Nomination:
    """CYC-5 for the workload as the next cycle would run it on the end state, leaving the state as it was.

    The next cycle's number and clock: flavor-scan memory (FA-4) is read as that cycle reads it, and
    preemption orders candidates as of its time.
    """
    scheduler, preemptor = sim.scheduler, sim.preemptor
    saved = scheduler.cycle, scheduler.now, preemptor.now, workload.scan_memory
    scheduler.cycle += 1
    scheduler.now = preemptor.now = sim.next_cycle_time()
    try:
        assignment, targets = scheduler.get_assignments(workload, state)
    finally:
        scheduler.cycle, scheduler.now, preemptor.now, workload.scan_memory = saved
    return Nomination(assignment, list(targets))


def missing_amounts(assignment: Assignment) -> dict[FlavorResource, int]:
    """Per (flavor, resource), the unused quota the assignment lacks (the largest over its pod sets: a later pod set
    counts what earlier ones were assigned, FA-6)."""
    missing: dict[FlavorResource, int] = {}
    for pod_set in assignment.pod_sets:
        if pod_set.mode() == FIT:
            continue
        for fr, amount in pod_set.status.missing.items():
            missing[fr] = max(amount, missing.get(fr, 0))
    return dict(sorted(missing.items()))


def _last_attempt(outcome: WorkloadOutcome) -> Verdict:
    """What its last attempt said (the preemption that followed, for one admitted then preempted)."""
    if outcome.last_entry is not None or outcome.preempted_in is not None:
        reason, message = reported_reason(outcome)
        entry = outcome.last_entry
        # The amounts its message states (a preemptor waiting for its victims still lacks them).
        own = entry is not None and entry.assignment is not None and message == entry.message
        missing = missing_amounts(entry.assignment) if own and entry is not None and entry.assignment else {}
        return Verdict(reason or PENDING_REASON, message or None, missing)
    return Verdict(PENDING_REASON, "not tried yet: the run ended before it reached the head of its queue")


def _queue_of(sim: Simulation, workload: WorkloadInfo) -> str | None:
    queue = sim.queues.get(workload.cluster_queue or "")
    if queue is not None and (workload.key in queue.active or workload.key in queue.inadmissible):
        return queue.name
    return None


def _strict_heads(sim: Simulation, only: str | None = None) -> dict[str, str]:
    """StrictFIFO (CYC-2): every active workload but the head waits behind the head, whatever it would fit."""
    behind: dict[str, str] = {}
    for name, queue in sim.queues.items():
        if (only is not None and name != only) or queue.strategy != STRICT_FIFO or len(queue.active) < 2:
            continue
        ordered = queue.ordered()
        head = ordered[0].key
        behind.update((w.key, head) for w in ordered[1:])
    return behind


# --- can it ever get in? -----------------------------------------------------------------------------------


def never_reasons(sim: Simulation, queued: list[tuple[str, ClusterQueueState]]) -> dict[str, str]:
    """Why each of ``queued`` (queued in that ClusterQueue, past the checks before any flavor, CYC-4) can never get in
    as configured, for those that cannot (XO-5, XO-9).

    Some pod set (with its FA-15 group, at its smallest partial-admission count, REQ-13) finds, for some resource
    group it asks of, no flavor that both admits it (FA-5: taints, node affinity, TAS) and could ever hold it (Q-6:
    its maximum capacity, everything borrowed, holds every resource of the group); or it asks for a resource no
    group covers. A sufficient condition: pod sets that each fit alone but not together are not caught (the greedy
    assignment of FA may find a way in one state and not another), so "never" is only said when it is certain.
    """
    found: dict[str, str] = {}
    memo: dict[tuple[str, str], str | None] = {}
    shareable = not sim.cache.tas.flavors  # a TAS request is not in the scheduling shape
    for key, state in queued:
        workload = sim.outcomes[key].workload
        memo_key = (state.name, workload.shape)
        if shareable and memo_key in memo:
            reason = memo[memo_key]
        else:
            reason = memo[memo_key] = _never(sim, workload, state)
        if reason is not None:
            found[key] = reason
    return found


def _never(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState) -> str | None:
    groups: dict[str, tuple[list[PodSetInfo], dict[str, int]]] = {}
    for pod_set in workload.pod_sets:
        members, summed = groups.setdefault(pod_set.group, ([], {}))
        members.append(pod_set)
        for resource, value in _smallest_requests(sim, state, pod_set).items():
            summed[resource] = sat_add(summed.get(resource, 0), value)
    for members, requests in groups.values():
        reason = _group_never(sim, workload, state, members, {r: v for r, v in requests.items() if v > 0})
        if reason is not None:
            names = ", ".join(ps.name or str(ps.index) for ps in members)
            return f"pod set {names} {reason}"
    return None


def _smallest_requests(sim: Simulation, state: ClusterQueueState, pod_set: PodSetInfo) -> dict[str, int]:
    """REQ-13: with partial admission a pod set may shrink to its minCount; ``pods`` counted when covered (REQ-11)."""
    count = pod_set.count
    if sim.options.gates.enabled("PartialAdmission") and pod_set.min_count is not None and pod_set.count > 0:
        count = min(pod_set.count, pod_set.min_count)
    requests = pod_set.total_for(count)
    if state.covers("pods"):
        requests["pods"] = count
    return requests


def _group_never(sim: Simulation, workload: WorkloadInfo, state: ClusterQueueState, members: list[PodSetInfo],
                 requests: Mapping[str, int]) -> str | None:
    ignore_undeclared = (sim.snapshot.config.quota_check_strategy == "IgnoreUndeclared"
                         and sim.options.gates.enabled("QuotaCheckStrategy"))
    by_group: dict[int, dict[str, int]] = {}
    for resource, value in sorted(requests.items()):
        group = state.group_for(resource)
        if group is None:
            if ignore_undeclared:
                continue
            return f"requests {resource}, which no resource group of the ClusterQueue covers (XO-5)"
        by_group.setdefault(state.model.resource_groups.index(group), {})[resource] = value
    for index, wanted in sorted(by_group.items()):
        group = state.model.resource_groups[index]
        assigner = FlavorAssigner(workload, state, sim.cache, _no_preemption,
                                  topology_aware=sim.options.gates.enabled("TopologyAwareScheduling"))
        refusals = {f: assigner.eligibility(f, members, group.covered) for f in group.flavors}
        eligible = [f for f, status in refusals.items() if status.is_fit]
        if not eligible:
            why = "; ".join(status.message() for status in refusals.values()) or "the group lists no flavor"
            return f"can use no flavor of its resource group for {', '.join(sorted(wanted))}: {why}"
        reason = _capacity_never(state, eligible, wanted, "any flavor" if len(eligible) == len(refusals) else
                                 "any flavor it may use")
        if reason is not None:
            return reason
    return None


def _capacity_never(state: ClusterQueueState, flavors: list[str], wanted: Mapping[str, int],
                    which: str) -> str | None:
    """One flavor must hold every resource of the group (FA), within its maximum capacity (Q-6)."""
    caps = {f: {r: potential(state.node, (f, r)) for r in wanted} for f in flavors}
    if any(all(v <= caps[f][r] for r, v in wanted.items()) for f in flavors):
        return None
    for resource, value in wanted.items():
        best = max((caps[f][resource] for f in flavors), default=0)
        if value > best:
            return (f"needs {human_request(resource, value)} {resource}, more than {which} can ever provide "
                    f"({human(resource, best)} with everything borrowed)")
    together = " and ".join(f"{human_request(r, v)} {r}" for r, v in wanted.items())
    return f"needs {together} on one flavor, and no{which.removeprefix('any')} can ever provide them together"


def _no_preemption(fr: FlavorResource, amount: int) -> tuple[str, int]:
    return "NoCandidates", 0  # eligibility asks no quota question
