"""The reclaim action (``actions/reclaim/reclaim.go``): a starving job takes resources back from other,
reclaimable queues.

Queues in queue order (an overused one is skipped); their starving jobs in job order; each pending task
that is allowed to preempt and whose queue is preemptive looks at the nodes in turn: the running,
preemptable tasks there of other, reclaimable queues are candidates, the plugins' Reclaimable vote picks the
victims, and they are evicted in victim order until the task fits the node's future idle. The task is then
pipelined there; the job's statement is committed when the job is pipelined.
"""

from __future__ import annotations

from kqctl.volcano.api.resource import less_equal
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.capacity import sorted_victims
from kqctl.volcano.engine.framework import (
    PENDING,
    RUNNING,
    JobInfo,
    PriorityQueue,
    QueueInfo,
    Session,
    Statement,
    TaskInfo,
)


def execute(ssn: Session) -> None:
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
    seen: set[str] = set()
    starving: dict[str, PriorityQueue[JobInfo]] = {}
    tasks: dict[str, PriorityQueue[TaskInfo]] = {}
    for key in sorted(ssn.jobs):
        job = ssn.jobs[key]
        if job.is_pending() or ssn.job_valid(job) is not None:
            continue
        if job.queue not in seen:
            seen.add(job.queue)
            queues.push(ssn.queues[job.queue])
        if ssn.job_starving(job):
            starving.setdefault(job.queue, PriorityQueue(ssn.job_less)).push(job)
            pending: PriorityQueue[TaskInfo] = PriorityQueue(ssn.task_less)
            for task in sorted(job.with_status(PENDING), key=lambda t: t.key):
                if not task.pod.gated:
                    pending.push(task)
            tasks[job.key] = pending
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            continue
        jobs = starving.get(queue.name)
        while jobs is not None and not jobs.empty():
            job = jobs.pop()
            statement = Statement(ssn)
            while ssn.job_starving(job) and not tasks[job.key].empty():
                task = tasks[job.key].pop()
                if task.pod.preempt_never or not ssn.preemptive(queue, [task]):
                    continue
                reclaim_for_task(ssn, statement, task, job)
            if ssn.job_pipelined(job):
                statement.commit()
            else:
                statement.discard()


def reclaim_for_task(ssn: Session, statement: Statement, task: TaskInfo, job: JobInfo) -> None:
    """The first node, by name, where evicting the chosen victims makes room for the task."""
    for node in ssn.node_list:
        if ssn.predicate(task, node) is not None:
            continue
        reclaimees = [t for t in node.tasks.values() if t.status == RUNNING and t.preemptable
                      and t.job.queue != job.queue and t.job.queue in ssn.queues
                      and ssn.queues[t.job.queue].model.reclaimable]
        if not reclaimees:
            continue
        victims = ssn.reclaimable(task, sorted(reclaimees, key=lambda t: t.key))
        if not victims or not _victims_make_room(task, node, victims):
            continue
        available = node.future_idle()
        node_statement = Statement(ssn)
        evicted = False
        for victim in sorted_victims(ssn, victims, task):
            if less_equal(task.request, available, "zero"):
                break
            victim.evicted_by = task.key
            node_statement.evict(victim, f"reclaimed by {task.key}")
            available.add(victim.request)
            evicted = True
        if not less_equal(task.request, available, "zero"):
            node_statement.discard()
            continue
        node_statement.pipeline(task, node)
        task.nominated = node.name if evicted else ""
        statement.merge(node_statement)
        ssn.note(job, trace.RECLAIM, f"{task.pod.name} reclaims on {node.name} from "
                 f"{', '.join(sorted({v.job.queue for v in victims}))}")
        return


def _victims_make_room(task: TaskInfo, node: object, victims: list[TaskInfo]) -> bool:
    """``ValidateVictims``: the node's future idle plus every victim must hold the task."""
    from kqctl.volcano.engine.framework import NodeInfo

    assert isinstance(node, NodeInfo)
    room = node.future_idle()
    for victim in victims:
        room.add(victim.request)
    return less_equal(task.request, room, "zero")
