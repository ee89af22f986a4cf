"""The state a workload ends a simulation in, in words users see (simulate's and explain's Decision)."""

from __future__ import annotations

from collections.abc import Mapping

from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.queues import PendingQueue
from kqctl.kueue.engine.simulation import WorkloadOutcome
from kqctl.kueue.engine.workloads import WorkloadInfo

ADMITTED = "Admitted"
PENDING = "Pending"
INADMISSIBLE = "Inadmissible"
PREEMPTED = "Preempted"
WAITING = "Waiting for preemption"
NOT_QUEUED = "Not queued"
RESERVED = "Quota reserved"
HELD_INACTIVE = "Admitted (ClusterQueue inactive)"


def decision(outcome: WorkloadOutcome, queues: Mapping[str, PendingQueue],
             cache: QuotaCache | None = None) -> str:
    """Admitted, Quota reserved (waiting for checks), Pending, Inadmissible, Preempted (with where it
    waits now) or Waiting for preemption."""
    workload = outcome.workload
    if outcome.preempted_in is not None and workload.admission is None:
        queued = queue_state(outcome, queues)
        return PREEMPTED if queued is None else f"{PREEMPTED} ({queued.lower()})"
    if workload.admission is not None:
        if outcome.preempted_in is not None and not readmitted_after_preemption(outcome):
            return PREEMPTED
        if cache is not None and in_inactive_cluster_queue(workload, cache):
            return HELD_INACTIVE
        waiting = checks_not_ready(workload, cache) if cache is not None else []
        return f"{RESERVED} (waiting for checks: {', '.join(waiting)})" if waiting else ADMITTED
    entry = outcome.last_entry
    if outcome.victims and entry is not None and entry.reason == "WaitingForPreemptedWorkloads":
        return WAITING
    return queue_state(outcome, queues) or (NOT_QUEUED if outcome.queue_reason else PENDING)


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
    key = outcome.workload.key
    own = queues.get(outcome.cluster_queue or "")
    # Its own ClusterQueue's queue first: scanning all of them for each of 50,000 workloads is slow.
    for queue in ([own] if own is not None else []) + list(queues.values()):
        if key in queue.active:
            return PENDING
        if key in queue.inadmissible:
            return INADMISSIBLE
    return None
