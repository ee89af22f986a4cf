"""The enqueue action (``actions/enqueue/enqueue.go``): Pending PodGroups become Inqueue.

Queues in queue order, each queue's pending jobs in job order; every job gets one try per session (a
rejected job does not block the ones behind it). A job without minResources, or one every voting plugin
permits (overcommit, proportion/capacity), is enqueued and reserves its minResources.
"""

from __future__ import annotations

from kqctl.volcano.engine.framework import JobInfo, PriorityQueue, QueueInfo, Session

INQUEUE = "Inqueue"


def execute(ssn: Session) -> None:
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
    seen: set[str] = set()
    jobs: dict[str, PriorityQueue[JobInfo]] = {}
    for key in _candidates(ssn):
        job = ssn.jobs[key]
        queue = ssn.queues[job.queue]
        if queue.name not in seen:
            seen.add(queue.name)
            queues.push(queue)
        if job.is_pending():
            jobs.setdefault(job.queue, PriorityQueue(ssn.job_less)).push(job)
    while not queues.empty():
        queue = queues.pop()
        pending = jobs.get(queue.name)
        if pending is None or pending.empty():
            continue
        job = pending.pop()
        if job.min_resources is None or ssn.job_enqueueable(job):
            ssn.job_enqueued(job)
            job.phase = INQUEUE
        queues.push(queue)


def _candidates(ssn: Session) -> list[str]:
    """The jobs to go through, by key: every job, or in an incremental session only the Pending ones. Exact: a
    queue without a Pending job is popped once and dropped, changing nothing, and the others come out of the queue
    heap in the same order without it (the queue order is a strict order on keys that do not move in enqueue: it
    ends on the queue's creation and name); and a job the voters turn down as the action starts (see
    ``MONOTONIC_VOTERS``) is left out too."""
    if not ssn.incremental:
        return sorted(ssn.jobs)
    ledger = ssn.job_sums
    jobs = ssn.jobs
    keys = sorted(key for key in ledger.pending_phase.union(ledger.changed) if key in jobs and jobs[key].is_pending())
    if any(plugin.option.name not in MONOTONIC_VOTERS for tier in ssn.tiers for plugin in tier
           if "job_enqueueable" in plugin.hooks and plugin.option.enabled("enableJobEnqueued")):
        return keys
    return [key for key in keys if jobs[key].min_resources is None or ssn.job_enqueueable(jobs[key])]


# Voters on job_enqueueable whose "no" holds to the end of the action once given: each compares the job's
# minResources with room (the cluster's idle for overcommit, the queue's real capability for proportion) that only the
# reservations of jobs enqueued since take from (their inqueue grows; nothing else they read moves in enqueue); and
# each tier with one of them votes (permit or reject, never abstain), so the vote is the first such tier's. A job they
# turn down as enqueue starts is turned down when its turn comes, changing nothing: it need not be queued at all.
MONOTONIC_VOTERS = frozenset({"overcommit", "proportion"})
