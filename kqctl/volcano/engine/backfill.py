"""The backfill action (``actions/backfill/backfill.go``): best-effort tasks (no requests) of jobs that are no
longer pending go to the best node whose predicates pass, with no quota check.

VC-BACKFILL-1: the tasks in queue order, then job order, then task order (a best-effort task left pipelined is
taken back and tried again); each is allocated to the best-scored node, and a job's allocated tasks are bound
once the job is ready (``Session.Allocate``), so a gang of best-effort pods still waits for minMember.
"""

from __future__ import annotations

from kqctl.volcano.engine.framework import (
    PENDING,
    PIPELINED,
    JobInfo,
    PriorityQueue,
    QueueInfo,
    Session,
    Statement,
    TaskInfo,
)
from kqctl.volcano.engine.nodes import NodeChooser


def execute(ssn: Session) -> None:
    chooser: NodeChooser | None = None
    for task in _pending_tasks(ssn):
        chooser = chooser or NodeChooser.of(ssn)
        node = chooser.best(task)
        if node is None:
            task.job.fit_errors[task.key] = chooser.fit_error(task)
            continue
        ssn.allocate(task, node)
        chooser.changed(node)


def _pending_tasks(ssn: Session) -> list[TaskInfo]:
    """``pickUpPendingTasks``: by queue order, job order and task order."""
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
    jobs: dict[str, PriorityQueue[JobInfo]] = {}
    tasks: dict[str, PriorityQueue[TaskInfo]] = {}
    for key in _candidates(ssn):
        job = ssn.jobs[key]
        if not job.pending_best_effort_num() and not any(t.best_effort for t in job.with_status(PIPELINED)):
            continue  # nothing to backfill (checked first: the checks below read the whole job)
        if job.is_pending() or ssn.job_valid(job) is not None or job.queue not in ssn.queues:
            continue
        found: PriorityQueue[TaskInfo] = PriorityQueue(ssn.task_less)
        for task in sorted(job.with_status(PENDING), key=lambda t: t.key):
            if task.best_effort and not task.pod.gated:
                found.push(task)
        for task in sorted(job.with_status(PIPELINED), key=lambda t: t.key):
            if task.best_effort:
                Statement(ssn).unpipeline(task)
                found.push(task)
        if found.empty():
            continue
        tasks[job.key] = found
        if job.queue not in jobs:
            queues.push(ssn.queues[job.queue])
            jobs[job.queue] = PriorityQueue(ssn.job_less)
        jobs[job.queue].push(job)
    ordered = []
    while not queues.empty():
        queue = queues.pop()
        while not jobs[queue.name].empty():
            job = jobs[queue.name].pop()
            while not tasks[job.key].empty():
                ordered.append(tasks[job.key].pop())
    return ordered


def _candidates(ssn: Session) -> list[str]:
    """The jobs to go through, by key: every job, or in an incremental session only those with a pending
    best-effort task as the session opened and those the session changed (the only ones with pipelined tasks, or
    with best-effort tasks made pending since). Exact: the loop skips every other job first thing."""
    if not ssn.incremental:
        return sorted(ssn.jobs)
    ledger = ssn.job_sums
    jobs = ssn.jobs
    return sorted(key for key in ledger.best_effort.union(ledger.changed) if key in jobs)
