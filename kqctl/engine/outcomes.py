"""The state a workload ends a simulation in, in words users see (simulate's and explain's Decision)."""

from __future__ import annotations

from collections.abc import Mapping

from kqctl.engine.queues import ClusterQueueQueue
from kqctl.engine.simulation import WorkloadOutcome

ADMITTED = "Admitted"
PENDING = "Pending"
INADMISSIBLE = "Inadmissible"
PREEMPTED = "Preempted"
WAITING = "Waiting for preemption"
NOT_QUEUED = "Not queued"


def decision(outcome: WorkloadOutcome, queues: Mapping[str, ClusterQueueQueue]) -> str:
    """Admitted, Pending, Inadmissible, Preempted (with where it waits now) or Waiting for preemption."""
    workload = outcome.workload
    if outcome.preempted_in is not None and workload.admission is None:
        queued = queue_state(outcome, queues)
        return PREEMPTED if queued is None else f"{PREEMPTED} ({queued.lower()})"
    if workload.admission is not None:
        return PREEMPTED if outcome.preempted_in is not None else ADMITTED
    entry = outcome.last_entry
    if outcome.victims and entry is not None and entry.reason == "WaitingForPreemptedWorkloads":
        return WAITING
    return queue_state(outcome, queues) or (NOT_QUEUED if outcome.queue_reason else PENDING)


def queue_state(outcome: WorkloadOutcome, queues: Mapping[str, ClusterQueueQueue]) -> str | None:
    key = outcome.workload.key
    own = queues.get(outcome.cluster_queue or "")
    # Its own ClusterQueue's queue first: scanning all of them for each of 50,000 workloads is slow.
    for queue in ([own] if own is not None else []) + list(queues.values()):
        if key in queue.active:
            return PENDING
        if key in queue.inadmissible:
            return INADMISSIBLE
    return None
