"""The preempt action (``actions/preempt/preempt.go``): within a queue, starving jobs take nodes from running
tasks the plugins let them evict.

Jobs that are not pending, valid and starving are the preemptors (a job with ``networkTopology`` is left out).
Queue by queue in queue order (no overused check here, unlike reclaim and allocate):

- VC-PREEMPT-1 between jobs: the queue's preemptors in job order; each pending task of the job tries the
  nodes (see :func:`preempt`) while the job starves; victims are running or bound tasks of *other* jobs of
  the *same* queue. The job's statement is committed when the job is pipelined, else undone.
- VC-PREEMPT-2 within a job: then every preemptor job of the queue, each of its pending tasks in task order,
  one statement per task: victims are tasks of the same job; the first task that finds no node ends the job.
  A task that fits a node as it is takes it without evicting anyone, and is committed on its own: it waits
  pipelined for the next session.

On a node (VC-PREEMPT-4, ``normalPreempt``): the nodes that pass the predicates a preemption cannot change
(cordoned, untolerated taints) in score order (the allocate action's node scores; equal scores by name, where
Volcano keeps its own node order); the candidates filtered as above (a best-effort preemptor evicts only
best-effort tasks; a pod marked not preemptable never), the plugins' Preemptable vote (gang, conformance,
priority (VC-PREEMPT-3), drf) picks the victims, and the node is taken when its future idle plus the victims
holds the task (``ValidateVictims``). Victims are evicted in victim order until the task fits: its queue
allows it (``Allocatable``), the node's future idle holds it and the predicates pass. Then the task is
pipelined there.

A task whose pod has ``preemptionPolicy: Never`` never preempts, nor does one whose pod is already nominated
to a node that passes the predicates (``taskEligibleToPreempt``).
"""

from __future__ import annotations

from collections.abc import Callable

from kqctl.volcano.api.resource import less_equal
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.framework import (
    PENDING,
    JobInfo,
    NodeInfo,
    PriorityQueue,
    QueueInfo,
    Session,
    Statement,
    TaskInfo,
    validate_victims,
)

PREEMPTABLE_STATUSES = frozenset({"Bound", "Running"})  # ``PreemptableStatus``

Filter = Callable[[TaskInfo], bool]


def execute(ssn: Session) -> None:
    preemptors: dict[str, PriorityQueue[JobInfo]] = {}
    tasks: dict[str, PriorityQueue[TaskInfo]] = {}
    under_request: dict[str, list[JobInfo]] = {}
    for key in sorted(ssn.jobs):
        job = ssn.jobs[key]
        if job.is_pending() or ssn.job_valid(job) is not None or job.queue not in ssn.queues:
            continue
        if not ssn.job_starving(job) or job.group.network_topology:
            continue
        preemptors.setdefault(job.queue, PriorityQueue(ssn.job_less)).push(job)
        under_request.setdefault(job.queue, []).append(job)
        tasks[job.key] = _pending(ssn, job)
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
    for name in sorted(preemptors):
        queues.push(ssn.queues[name])
    while not queues.empty():
        queue = queues.pop()
        jobs = preemptors[queue.name]
        while not jobs.empty():
            job = jobs.pop()
            statement = Statement(ssn)
            while ssn.job_starving(job) and not tasks[job.key].empty():
                preemptor = tasks[job.key].pop()
                preempt(ssn, statement, preemptor, _between_jobs(preemptor))
            if ssn.job_pipelined(job):
                statement.commit()
            else:
                statement.discard()
        for job in under_request[queue.name]:
            within = _pending(ssn, job)
            while not within.empty():
                preemptor = within.pop()
                statement = Statement(ssn)
                if not preempt(ssn, statement, preemptor, _within_job(preemptor)):
                    statement.discard()
                    break
                statement.commit()


def _pending(ssn: Session, job: JobInfo) -> PriorityQueue[TaskInfo]:
    pending: PriorityQueue[TaskInfo] = PriorityQueue(ssn.task_less)
    for task in sorted(job.with_status(PENDING), key=lambda t: t.key):
        if not task.pod.gated:
            pending.push(task)
    return pending


def _preemptable(preemptor: TaskInfo, task: TaskInfo) -> bool:
    """What both phases ask of a candidate: running or bound, preemptable, and not best-effort-for-not."""
    return task.status in PREEMPTABLE_STATUSES and task.preemptable and (not preemptor.best_effort or task.best_effort)


def _between_jobs(preemptor: TaskInfo) -> Filter:
    def keep(task: TaskInfo) -> bool:
        return _preemptable(preemptor, task) and task.job.queue == preemptor.job.queue and task.job is not preemptor.job

    return keep


def _within_job(preemptor: TaskInfo) -> Filter:
    def keep(task: TaskInfo) -> bool:
        return _preemptable(preemptor, task) and task.job is preemptor.job

    return keep


def eligible(ssn: Session, preemptor: TaskInfo) -> bool:
    """``taskEligibleToPreempt``: not with preemptionPolicy Never; not when the pod's nominated node exists and
    already passes the predicates (nothing is left terminating on it in kqctl's sessions)."""
    if preemptor.pod.preempt_never:
        return False
    if preemptor.nominated:
        node = ssn.nodes.get(preemptor.nominated)
        return node is not None and ssn.predicate(preemptor, node) is not None
    return True


def preempt(ssn: Session, statement: Statement, preemptor: TaskInfo, candidates: Filter) -> bool:
    """VC-PREEMPT-4: the first node, in score order, where the victims make room; the task pipelined there."""
    if not eligible(ssn, preemptor):
        return False
    nodes = [node for node in ssn.node_list if ssn.predicate(preemptor, node) is None]
    scored = sorted(((score, node.name, node) for score, node in ssn.scored_nodes(preemptor, nodes)),
                    key=lambda entry: (-entry[0], entry[1]))
    queue = ssn.queues[preemptor.job.queue]
    for _, _, node in scored:
        preemptees = [t for t in sorted(node.tasks.values(), key=lambda t: t.key) if candidates(t)]
        victims = ssn.preemptable(preemptor, preemptees)
        if not validate_victims(preemptor, node, victims):
            continue
        node_statement = Statement(ssn)
        heap = ssn.victims_queue(victims, preemptor)
        fits = _fits(ssn, queue, preemptor, node)
        evicted: list[TaskInfo] = []
        while not heap.empty() and not fits:
            victim = heap.pop()
            victim.evicted_by = preemptor.key
            node_statement.evict(victim, f"preempted by {preemptor.key}")
            evicted.append(victim)
            fits = _fits(ssn, queue, preemptor, node)
        if not fits:
            node_statement.discard()
            continue
        # EvictionOccurred: something was preempted (a victim that requests nothing does not count)
        node_statement.pipeline(preemptor, node, any(not v.request.is_empty() for v in evicted))
        statement.merge(node_statement)
        ssn.note(preemptor.job, trace.PREEMPT, f"{preemptor.pod.name} preempts on {node.name} from "
                 f"{', '.join(sorted({v.job.key for v in evicted}))}" if evicted else
                 f"{preemptor.pod.name} is pipelined to {node.name} by preempt (it fits there; nothing to evict)")
        return True
    return False


def _fits(ssn: Session, queue: QueueInfo, preemptor: TaskInfo, node: NodeInfo) -> bool:
    """``preemptorFitsOnNode``: the queue allows the task, the node's future idle holds it, predicates pass."""
    return ssn.allocatable(queue, preemptor) and less_equal(preemptor.request, node.future_idle(), "zero") \
        and ssn.predicate(preemptor, node) is None

