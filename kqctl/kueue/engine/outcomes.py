"""What happened to each workload over a run, and the state it ends in, in words users see.

A :class:`WorkloadOutcome` is the simulation's running record of one workload; :func:`decision`
turns it into simulate's and explain's Decision, and :data:`DECISION_TOKENS` into the stable
token of the json/yaml contract (README, "simulate -o json").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.entry import Entry
from kqctl.kueue.engine.queues import PendingQueue
from kqctl.kueue.engine.workloads import WorkloadInfo

ADMITTED = "Admitted"
PENDING = "Pending"
INADMISSIBLE = "Inadmissible"
PREEMPTED = "Preempted"
WAITING = "Waiting for preemption"
NOT_QUEUED = "Not queued"
RESERVED = "Quota reserved"
HELD_INACTIVE = "Admitted (ClusterQueue inactive)"

# Stable decision tokens of the json/yaml contract, by the words a decision starts with (HELD_INACTIVE
# first: it starts with "Admitted").
DECISION_TOKENS = {
    HELD_INACTIVE: "AdmittedInInactiveClusterQueue",
    ADMITTED: "Admitted",
    RESERVED: "QuotaReserved",
    PREEMPTED: "Preempted",
    WAITING: "WaitingForPreemption",
    PENDING: "Pending",
    INADMISSIBLE: "Inadmissible",
    NOT_QUEUED: "NotQueued",
}


@dataclass
class WorkloadOutcome:
    """What happened to one workload over the whole run (updated after every cycle)."""

    workload: WorkloadInfo
    cluster_queue: str | None
    local_queue: str | None
    admitted_in: int | None = None
    preempted_in: int | None = None
    preempted_by: str | None = None
    preemption_reason: str | None = None
    preemption_message: str | None = None
    victims: list[str] = field(default_factory=list)
    last_entry: Entry | None = None
    queue_message: str | None = None  # why it is in no ClusterQueue's queue (missing or stopped LocalQueue)
    queue_reason: str | None = None


def decision(outcome: WorkloadOutcome, queues: Mapping[str, PendingQueue], cache: QuotaCache) -> str:
    """Admitted, Quota reserved (waiting for checks), Pending, Inadmissible, Preempted (with where it
    waits now) or Waiting for preemption."""
    workload = outcome.workload
    if outcome.preempted_in is not None and workload.admission is None:
        queued = queue_state(outcome, queues)
        return PREEMPTED if queued is None else f"{PREEMPTED} ({queued.lower()})"
    if workload.admission is not None:
        if outcome.preempted_in is not None and not readmitted_after_preemption(outcome):
            return PREEMPTED
        if in_inactive_cluster_queue(workload, cache):
            return HELD_INACTIVE
        waiting = checks_not_ready(workload, cache)
        return f"{RESERVED} (waiting for checks: {', '.join(waiting)})" if waiting else ADMITTED
    entry = outcome.last_entry
    if outcome.victims and entry is not None and entry.reason == "WaitingForPreemptedWorkloads":
        return WAITING
    return queue_state(outcome, queues) or (NOT_QUEUED if outcome.queue_reason else PENDING)


def decision_token(state: str) -> str:
    """The stable token of a decision's words (``Preempted (pending)`` -> ``Preempted``)."""
    exact = DECISION_TOKENS.get(state)
    if exact is not None:
        return exact
    for prefix, token in DECISION_TOKENS.items():
        if state.startswith(prefix):
            return token
    raise ValueError(f"decision {state!r} has no token")


def decision_text(outcome: WorkloadOutcome, state: str) -> str:
    """The decision as simulate shows it: partial admission says how many pods got in, e.g. ``Admitted (4/8 pods)``."""
    admission = outcome.workload.admission
    if state != ADMITTED or admission is None:
        return state
    wanted = sum(ps.spec_count for ps in outcome.workload.pod_sets)
    got = sum(ps.count for ps in admission.pod_sets)
    return f"{ADMITTED} ({got}/{wanted} pods)" if got < wanted else state


def last_reason(outcome: WorkloadOutcome) -> tuple[str | None, str | None]:
    """The QuotaReserved reason and message of its last scheduling attempt, or why it is in no queue."""
    entry = outcome.last_entry
    if entry is not None:
        return entry.reason, entry.message
    return outcome.queue_reason, outcome.queue_message


def reported_reason(outcome: WorkloadOutcome) -> tuple[str | None, str | None]:
    """:func:`last_reason`, except for a workload admitted in its last attempt and then preempted: the
    preemption is the news."""
    reason, message = last_reason(outcome)
    if outcome.workload.admission is None and outcome.preempted_in is not None and reason == "QuotaReserved":
        return "Preempted", outcome.preemption_message
    return reason, message


def in_inactive_cluster_queue(workload: WorkloadInfo, cache: QuotaCache) -> bool:
    """XO-1, XO-3: the workload holds quota in a ClusterQueue that Kueue leaves out of its scheduling
    snapshot (inactive, or under a cohort cycle).

    It keeps running and its usage stays in the cohort's numbers, but the scheduler does not see it:
    it is never a preemption candidate and Kueue's view of admitted workloads (what the conformance
    cases record as ``admitted``) does not list it.
    """
    if workload.admission is None:
        return False
    state = cache.cluster_queues.get(workload.admission.cluster_queue)
    return state is not None and not state.active


def readmitted_after_preemption(outcome: WorkloadOutcome) -> bool:
    return outcome.admitted_in is not None and outcome.preempted_in is not None \
        and outcome.admitted_in > outcome.preempted_in


def checks_not_ready(workload: WorkloadInfo, cache: QuotaCache) -> list[str]:
    """AC-1, AC-2, CYC-8.8: the admission checks that keep a quota reservation from being an admission.

    The checks that apply are the ClusterQueue's checks for the assigned flavors; the workload is
    admitted when each has an entry in its status and every entry there is Ready.
    """
    assert workload.admission is not None
    state = cache.cluster_queues.get(workload.admission.cluster_queue)
    states = {c.name: c.state for c in workload.model.admission_check_states}
    flavors = {f for ps in workload.admission.pod_sets for f in ps.flavors.values()}
    required = [] if state is None else [name for name, applies in sorted(state.model.admission_checks.items())
                                         if applies & flavors or not applies]
    waiting = [name for name in required if name not in states]
    waiting += [name for name, value in sorted(states.items()) if value != "Ready" and name not in waiting]
    return waiting


def queue_state(outcome: WorkloadOutcome, queues: Mapping[str, PendingQueue]) -> str | None:
    """Pending (in a ClusterQueue's heap), Inadmissible (in its inadmissible set), or None (in no queue)."""
    key = outcome.workload.key
    own = queues.get(outcome.cluster_queue or "")
    # Its own ClusterQueue's queue first: scanning all of them for each of 50,000 workloads is slow.
    if own is not None:
        found = _state_in(own, key)
        if found is not None:
            return found
    for queue in queues.values():
        found = _state_in(queue, key)
        if found is not None:
            return found
    return None


def _state_in(queue: PendingQueue, key: str) -> str | None:
    if key in queue.active:
        return PENDING
    if key in queue.inadmissible:
        return INADMISSIBLE
    return None
