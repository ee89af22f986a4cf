"""The reclaim action (``actions/reclaim/reclaim.go``): a starving job takes resources back from other,
reclaimable queues.

Queues in queue order (an overused one is skipped); all starving jobs of a queue in job order; each pending
task of the job (PreemptionPolicy Never and a queue that is not preemptive skip it) tries the nodes in turn.
On a node, the running, preemptable tasks of *other*, reclaimable queues are the reclaimees; the plugins'
Reclaimable vote picks the victims; the node is taken when its future idle plus the victims holds the task
(``ValidateVictims``). Victims are evicted in victim order only until the task fits, so a task that already
fits the node's future idle evicts nothing and is pipelined there all the same (VC-RECLAIM-1): it waits for
the next session, and an allocate later in the session does not bind it. The job's statement is committed
when the job is pipelined, else undone.
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.volcano.api.resource import Resource, less_equal
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.framework import (
    PENDING,
    RUNNING,
    JobInfo,
    NodeInfo,
    PriorityQueue,
    QueueInfo,
    Session,
    Statement,
    TaskInfo,
    validate_victims,
)


class _Rooms:
    """Per node (at its version): its future idle plus every running, preemptable task of a reclaimable queue,
    the most any vote could free there. A node where even that cannot hold the task is refused by
    ``ValidateVictims`` whatever the votes (which have no side effects), so it is skipped unvoted."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.rooms: dict[str, tuple[int, Resource]] = {}
        self.fits: dict[tuple[object, ...], dict[str, tuple[int, bool]]] = {}

    def nodes(self, shape: tuple[object, ...], task: TaskInfo) -> Iterator[NodeInfo]:
        """The session's nodes by name, without those where the task cannot fit even with every victim."""
        known = self.fits.setdefault(shape, {})
        for node in self.ssn.node_list:
            hit = known.get(node.name)
            if hit is None or hit[0] != node.version:
                hit = (node.version, less_equal(task.request, self._room(node), "zero"))
                known[node.name] = hit
            if hit[1]:
                yield node

    def _room(self, node: NodeInfo) -> Resource:
        hit = self.rooms.get(node.name)
        if hit is not None and hit[0] == node.version:
            return hit[1]
        room = node.future_idle()
        queues = self.ssn.queues
        for task in node.tasks.values():
            if task.status == RUNNING and task.preemptable and task.job.queue in queues \
                    and queues[task.job.queue].model.reclaimable:
                room.add(task.request)
        self.rooms[node.name] = (node.version, room)
        return room


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
    # A task that found no node leaves the session as it was; another task of its queue with the same request
    # would search the same nodes with the same votes (the voters read the reclaimer's queue and request only:
    # gang, conformance, proportion, capacity), so it is skipped until something changes. Hierarchical drf's vote
    # also reads the reclaimer's job: then only the job's own tasks are skipped.
    failed: dict[tuple[object, ...], int] = {}
    per_job = any(p.name == "drf" and p.hierarchy for p in ssn.conf.plugins())
    rooms = _Rooms(ssn)
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
                shape = (job.queue, tuple(sorted(task.request.as_dict().items())), task.pod.tolerations)
                memo = (*shape, job.key) if per_job else shape
                if failed.get(memo) == ssn.epoch:
                    continue
                if not reclaim_for_task(ssn, statement, task, job, rooms, shape[1:]):
                    failed[memo] = ssn.epoch
            if ssn.job_pipelined(job):
                statement.commit()
            else:
                statement.discard()
            if not jobs.empty():
                queues.push(queue)  # Volcano pushes the queue back while it has starving jobs left


def reclaim_for_task(ssn: Session, statement: Statement, task: TaskInfo, job: JobInfo,
                     rooms: _Rooms | None = None, shape: tuple[object, ...] = ()) -> bool:
    """The first node, by name, where evicting the chosen victims makes room for the task (False: none)."""
    rooms = rooms if rooms is not None else _Rooms(ssn)
    shape = shape or (tuple(sorted(task.request.as_dict().items())),)
    for node in rooms.nodes(shape, task):
        if ssn.predicate(task, node) is not None:
            continue
        reclaimees = [t for t in node.tasks.values() if t.status == RUNNING and t.preemptable
                      and t.job.queue != job.queue and t.job.queue in ssn.queues
                      and ssn.queues[t.job.queue].model.reclaimable]
        if not reclaimees:
            continue
        victims = ssn.reclaimable(task, sorted(reclaimees, key=lambda t: t.key))
        if not validate_victims(task, node, victims):
            continue
        evicted = evict_until_fit(ssn, statement, task, node, victims, "reclaim")
        if evicted is not None:
            ssn.note(job, trace.RECLAIM, f"{task.pod.name} reclaims on {node.name} from "
                     f"{', '.join(sorted({v.job.queue for v in evicted}))}" if evicted else
                     f"{task.pod.name} is pipelined to {node.name} by reclaim (it fits there; nothing to evict)")
            return True
    return False


def evict_until_fit(ssn: Session, statement: Statement, task: TaskInfo, node: NodeInfo, victims: list[TaskInfo],
                    reason: str) -> list[TaskInfo] | None:
    """Victims in victim order until the task fits the node's future idle, then the task pipelined there; the
    node's own statement is merged into the job's only when the task fits (else undone, and None)."""
    available = node.future_idle()
    node_statement = Statement(ssn)
    evicted: list[TaskInfo] = []
    queue = ssn.victims_queue(victims, task)
    while not queue.empty():
        if less_equal(task.request, available, "zero"):
            break
        victim = queue.pop()
        victim.evicted_by = task.key
        node_statement.evict(victim, f"{reason}ed by {task.key}")
        available.add(victim.request)
        evicted.append(victim)
    if not less_equal(task.request, available, "zero"):
        node_statement.discard()
        return None
    node_statement.pipeline(task, node, bool(evicted))
    statement.merge(node_statement)
    return evicted

