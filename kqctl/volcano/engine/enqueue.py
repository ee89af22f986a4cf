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
    for key in sorted(ssn.jobs):
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
