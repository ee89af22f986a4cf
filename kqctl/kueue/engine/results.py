"""What a simulation returns (rule set SIM): frozen values, computed once, that renderers only format.

``simulate`` runs Kueue's cycles on live, mutable state (the quota cache, the pending queues, the
cycles' entries); :func:`freeze` reads from that state everything a user is shown and returns it as
frozen dataclasses, so that nothing downstream (renderers, ``--fail-on``, explain) reads engine
internals or works out a decision, a borrowed amount or a lent amount itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.entry import CycleResult
from kqctl.kueue.engine.lending import Borrowed, Lent, borrowed_by_workload, lent_by_cluster_queue
from kqctl.kueue.engine.outcomes import (
    WorkloadOutcome,
    decision,
    decision_text,
    decision_token,
    in_inactive_cluster_queue,
    last_reason,
    reported_reason,
)
from kqctl.kueue.engine.queues import PendingQueue
from kqctl.kueue.engine.verdict import Verdict
from kqctl.kueue.engine.workloads import Admission, WorkloadInfo

# Why the run stopped (SIM-7, SIM-8).
STEADY = "steady"
CYCLES_GIVEN = "cycles"
CYCLE_LIMIT = "limit"
LIVELOCK = "livelock"


@dataclass(frozen=True)
class WorkloadResult:
    """One workload at the end of the run."""

    key: str  # namespace/name
    namespace: str
    name: str
    labels: Mapping[str, str]
    local_queue: str | None  # namespace/name of the LocalQueue it names
    cluster_queue: str | None
    priority: int
    decision: str  # the stable token (outcomes.DECISION_TOKENS)
    state: str  # the decision in words: ``Preempted (pending)``, ``Quota reserved (waiting for checks: x)``
    decision_text: str  # ``state`` as simulate shows it: ``Admitted (4/8 pods)`` for a partial admission
    admission: Admission | None  # the quota it holds at the end
    in_inactive_cluster_queue: bool  # XO-1, XO-3: holds quota where Kueue's scheduler does not look
    admitted_in: int | None  # the cycle that admitted it (None: admitted before, or not at all)
    preempted_in: int | None  # the last cycle that preempted it
    preempted_by: str | None
    preemption_reason: str | None
    preemption_message: str | None
    victims: tuple[str, ...]  # whom it preempted, sorted, each once
    # Why it ends where it ends (verdict.py): for a workload holding no quota, the answer of its next attempt on the
    # end state; for one holding quota, its admission (or the preemption that happened after it: the news).
    reason: str | None
    message: str | None
    last_reason: str | None  # its last scheduling attempt's QuotaReserved reason, or why it is not queued
    last_message: str | None
    borrowed: Mapping[FlavorResource, int]  # its share of its ClusterQueue's borrowing (lending.py)
    missing: Mapping[FlavorResource, int] = field(default_factory=dict)  # unused quota it lacks at the end
    never: str | None = None  # why it can never get in as configured (None: it could, or it holds quota)
    blocked_by: str | None = None  # StrictFIFO: the head it waits behind

    @property
    def running(self) -> bool:
        """Holds quota and runs at the end (admitted, also in an inactive ClusterQueue; not waiting for checks)."""
        return self.decision in ("Admitted", "AdmittedInInactiveClusterQueue")

    @property
    def evicted(self) -> bool:
        """Preempted (or moved off a flavor) during the run, whatever happened to it afterwards."""
        return self.preempted_in is not None


@dataclass(frozen=True)
class QuotaUsage:
    """One (flavor, resource) of a ClusterQueue at the end of the run."""

    flavor: str
    resource: str
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None
    used: int
    borrowed: int  # used above nominal
    lent: int  # what the rest of its cohort uses of its quota (lending.py)


@dataclass(frozen=True)
class ClusterQueueResult:
    name: str
    cohort: str | None
    active: bool
    inactive_reason: str  # XO-1, XO-3 ("" when active)
    quotas: tuple[QuotaUsage, ...]  # by flavor, then resource
    pending: tuple[str, ...]  # workloads in its heap, by key
    inadmissible: tuple[str, ...]  # workloads in its inadmissible set, by key

    @property
    def queued(self) -> int:
        return len(self.pending) + len(self.inadmissible)


@dataclass(frozen=True)
class EvictionRecord:
    victim: str
    preemptor: str
    reason: str


@dataclass(frozen=True)
class CycleRecord:
    """What one cycle did: the workloads it admitted and the victims it asked to leave."""

    number: int
    admitted: tuple[str, ...]
    evictions: tuple[EvictionRecord, ...]


@dataclass(frozen=True)
class Livelock:
    """SIM-8: the cycles that repeat, and the workloads trading places in them."""

    cycles: tuple[int, int]
    workloads: tuple[str, ...]


@dataclass(frozen=True)
class SimulationResult:
    cycles: int
    stop_reason: str  # STEADY, CYCLES_GIVEN, CYCLE_LIMIT or LIVELOCK
    fair_sharing: bool
    workloads: Mapping[str, WorkloadResult]  # by key
    cluster_queues: Mapping[str, ClusterQueueResult]  # by name
    history: tuple[CycleRecord, ...]
    livelock: Livelock | None = None
    warnings: tuple[str, ...] = ()


def freeze(cache: QuotaCache, queues: Mapping[str, PendingQueue], outcomes: Mapping[str, WorkloadOutcome],
           history: Iterable[CycleRecord], stop_reason: str, fair_sharing: bool, livelock: Livelock | None,
           warnings: Iterable[str], verdicts: Mapping[str, Verdict] | None = None) -> SimulationResult:
    """The run's end state as frozen values (``history``: :func:`cycle_record` of every cycle run)."""
    history = tuple(history)
    borrowed = borrowed_by_workload(cache, _admission_order(outcomes))
    lent = lent_by_cluster_queue(cache)
    verdicts = verdicts or {}
    workloads = {key: _workload_result(outcomes[key], queues, cache, borrowed, verdicts.get(key))
                 for key in sorted(outcomes)}
    cluster_queues = {name: _cluster_queue_result(state, queues.get(name), lent)
                      for name, state in sorted(cache.cluster_queues.items())}
    return SimulationResult(len(history), stop_reason, fair_sharing, workloads, cluster_queues, history, livelock,
                            tuple(warnings))


def _admission_order(outcomes: Mapping[str, WorkloadOutcome]) -> Callable[[WorkloadInfo], tuple[object, ...]]:
    def admission_order(workload: WorkloadInfo) -> tuple[object, ...]:
        """Admitted by the simulation (later cycles later) after anything admitted in the snapshot."""
        outcome = outcomes.get(workload.key)
        cycle = outcome.admitted_in if outcome is not None and outcome.admitted_in is not None else 0
        reserved = workload.reservation_time
        return (cycle, reserved.timestamp() if reserved is not None else float("-inf"), workload.key)

    return admission_order


def freeze_workload(cache: QuotaCache, queues: Mapping[str, PendingQueue], outcomes: Mapping[str, WorkloadOutcome],
                    key: str, verdict: Verdict | None) -> WorkloadResult:
    """One workload's entry of :func:`freeze`'s result, without the others' (explain asks for one of 50,000)."""
    borrowed = borrowed_by_workload(cache, _admission_order(outcomes))
    return _workload_result(outcomes[key], queues, cache, borrowed, verdict)


def _workload_result(outcome: WorkloadOutcome, queues: Mapping[str, PendingQueue], cache: QuotaCache,
                     borrowed: Borrowed, verdict: Verdict | None) -> WorkloadResult:
    workload = outcome.workload
    state = decision(outcome, queues, cache)
    reason, message = reported_reason(outcome)
    if verdict is not None and workload.admission is None:
        reason, message = verdict.reason, verdict.message
    attempt_reason, attempt_message = last_reason(outcome)
    return _workload_result_of(
        key=workload.key,
        namespace=workload.model.namespace,
        name=workload.model.name,
        labels=workload.model.labels,
        local_queue=outcome.local_queue,
        cluster_queue=outcome.cluster_queue,
        priority=workload.priority,
        decision=decision_token(state),
        state=state,
        decision_text=decision_text(outcome, state),
        admission=workload.admission,
        in_inactive_cluster_queue=in_inactive_cluster_queue(workload, cache),
        admitted_in=outcome.admitted_in,
        preempted_in=outcome.preempted_in,
        preempted_by=outcome.preempted_by,
        preemption_reason=outcome.preemption_reason,
        preemption_message=outcome.preemption_message or None,
        victims=tuple(sorted(set(outcome.victims))),
        reason=reason,
        message=message,
        last_reason=attempt_reason,
        last_message=attempt_message,
        borrowed=dict(sorted(borrowed.get(workload.key, {}).items())) if workload.admission is not None else {},
        missing=dict(verdict.missing) if verdict is not None else {},
        never=verdict.never if verdict is not None else None,
        blocked_by=verdict.blocked_by if verdict is not None else None,
    )


def _workload_result_of(**values: object) -> WorkloadResult:
    """``WorkloadResult(**values)``, every field given: the frozen dataclass's generated ``__init__`` sets its 26
    fields one ``object.__setattr__`` call at a time, about half of freezing 50,000 workloads; the instance is the
    same (equal and frozen alike)."""
    result = object.__new__(WorkloadResult)
    result.__dict__.update(values)
    return result


def _cluster_queue_result(state: ClusterQueueState, queue: PendingQueue | None, lent: Lent) -> ClusterQueueResult:
    quotas = tuple(
        QuotaUsage(flavor, resource, limits.nominal, limits.borrowing_limit, limits.lending_limit,
                   state.usage((flavor, resource)), max(0, state.usage((flavor, resource)) - limits.nominal),
                   lent.get(state.name, {}).get((flavor, resource), 0))
        for (flavor, resource), limits in sorted(state.node.quotas.items()))
    pending = tuple(sorted(queue.active)) if queue is not None else ()
    inadmissible = tuple(sorted(queue.inadmissible)) if queue is not None else ()
    return ClusterQueueResult(state.name, state.model.cohort or None, state.active, state.inactive_reason, quotas,
                              pending, inadmissible)


def cycle_record(result: CycleResult) -> CycleRecord:
    """What the report keeps of a cycle, taken as it ends: the keys it admitted and its evictions."""
    return CycleRecord(result.number, tuple(entry.workload.key for entry in result.admitted),
                       tuple(EvictionRecord(e.victim.key, e.preemptor.key, e.reason) for e in result.evictions))
