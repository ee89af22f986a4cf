"""The allocate action (``actions/allocate/allocate.go``): place the tasks of Inqueue jobs on nodes.

Queues in queue order (an overused one is skipped), each queue's jobs in job order, each job's pending tasks
in task order; a task must be allocatable for its queue, then fit a node (resources, pod count, predicates),
the best-scoring node wins (ties: the first by name; Volcano picks at random among them). A job's tasks go
into one statement, committed only when the job is ready (gang); a job that still has tasks is pushed back,
so the queue's share is looked at again after every job.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from kqctl.volcano.api.resource import Amount, less_equal
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
    fits_node,
)
from kqctl.volcano.engine.nodes import NodeChooser
from kqctl.volcano.engine.proportion import Proportion


def execute(ssn: Session, enqueue_configured: bool) -> None:
    if ssn.incremental and enqueue_configured:
        _execute_incremental(ssn)
        return
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_less)
    jobs_by_queue: dict[str, PriorityQueue[JobInfo]] = {}
    tasks_by_job: dict[str, PriorityQueue[TaskInfo]] = {}
    hopeless = _Hopeless(ssn) if ssn.incremental else None
    for key in _candidates(ssn, enqueue_configured):
        job = ssn.jobs[key]
        if job.is_pending():
            if enqueue_configured:
                continue
            job.phase = "Inqueue"  # without the enqueue action, allocate admits pending jobs itself
        invalid = ssn.job_valid(job)
        if invalid is not None:
            ssn.note(job, trace.JOB_INVALID, invalid.message)
            continue
        pending = job.by_status.get(PENDING)
        if not pending:
            continue  # nothing to place (most jobs of a large cluster): no task queue to build
        if hopeless is not None:
            if hopeless.job(job, pending.values()):
                continue
            job.fit_errors.clear()  # (an incremental session clears them for the jobs it takes up only)
        tasks: PriorityQueue[TaskInfo] = PriorityQueue(ssn.task_less)
        for task in sorted(pending.values(), key=lambda t: t.key):
            if task.pod.gated or task.best_effort:
                continue  # gated pods wait; best-effort ones are backfill's
            tasks.push(task)
        if tasks.empty():
            continue
        if job.queue not in jobs_by_queue:
            jobs_by_queue[job.queue] = PriorityQueue(ssn.job_less)
            queues.push(ssn.queues[job.queue])
        jobs_by_queue[job.queue].push(job)
        tasks_by_job[job.key] = tasks
    chooser = NodeChooser.of(ssn)
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            for job in jobs_by_queue[queue.name].items:
                ssn.note(job, trace.OVERUSED, f"queue {queue.name} is overused: its allocated reached its deserved "
                         "share on every resource")
            continue
        jobs = jobs_by_queue.get(queue.name)
        if jobs is None or jobs.empty():
            continue
        job = jobs.pop()
        tasks = tasks_by_job[job.key]
        if hopeless is not None and hopeless.job(job, tasks.items):
            # Its try would change nothing, nor would any later one (see _Hopeless); the queue would go back into its
            # heap unchanged and come out first again (the queue order is a strict order), so its next job is taken
            # up at once, and a queue whose jobs are all such is done.
            found = _next_hopeful(jobs, tasks_by_job, hopeless)
            if found is None:
                continue
            job, tasks = found
        _allocate_job(ssn, job, tasks, jobs, chooser)
        queues.push(queue)


def _execute_incremental(ssn: Session) -> None:
    """The action as :func:`execute` runs it in an incremental session with the enqueue action configured, except that
    a queue's job queue is built when the queue first comes out of the queue heap, of the jobs whose try may then
    place a task. Exact: a job of a queue not served yet is as the action found it (the action changes only the jobs
    it serves), so its validity, its pending tasks and the job order among them are the same then; a job whose try
    would place nothing then would place nothing when its turn came (see ``_Hopeless``: a "no" holds to the end of
    the action) and is skipped at its turn anyway. A queue goes into the heap, and has its job queue built, only when
    some job of it may place a task (:func:`_may_place`): a queue that comes out with no job left changes nothing, and
    the others come out in the same order."""
    hopeless = _Hopeless(ssn)
    waiting = _Waiting(ssn)
    queues = _queue_heap(ssn)
    if isinstance(queues, _ByShare):  # (a strict order on keys: the queues may go in in any order)
        names = _hopeful_queues(ssn, waiting, hopeless)
    else:
        names = [name for name in waiting.queues() if _may_place(ssn, ssn.queues[name], hopeless)]
    for name in names:
        queues.push(ssn.queues[name])
    chooser = NodeChooser.of(ssn)
    jobs_by_queue: dict[str, PriorityQueue[JobInfo]] = {}
    tasks_by_job: dict[str, PriorityQueue[TaskInfo]] = {}
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            continue  # (a quiet session writes no reason)
        jobs = jobs_by_queue.get(queue.name)
        if jobs is None:
            if not _may_place(ssn, queue, hopeless):
                continue  # (its jobs' tries would place nothing: see _job_queue)
            jobs = jobs_by_queue[queue.name] = _job_queue(ssn, waiting.jobs(queue.name), tasks_by_job, hopeless)
        found = _next_hopeful(jobs, tasks_by_job, hopeless)
        if found is None:
            continue
        job, tasks = found
        _allocate_job(ssn, job, tasks, jobs, chooser)
        queues.push(queue)


class _Waiting:
    """The jobs :func:`_candidates` gives that are not Pending (a Pending job is enqueue's), by queue, without going
    through all of them: those the cache's ledger names as placing at open (``JobLedger.placing``: pending tasks, not
    Pending; within the session only enqueue moves a phase, from Pending to Inqueue) and those changed since."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        ledger = self.ledger = ssn.job_sums
        self.placing: dict[str, set[str]] = ledger.placing
        self.changed: dict[str, set[str]] = {}
        jobs = ssn.jobs
        for key in ledger.changed:
            job = jobs.get(key)
            if job is not None and not job.is_pending():
                self.changed.setdefault(job.queue, set()).add(key)

    def has(self, queue: str) -> bool:
        """Whether the queue has such a job."""
        return queue in self.placing or queue in self.changed

    def _keys(self, queue: str) -> set[str]:
        return self.placing.get(queue, set()) | self.changed.get(queue, set())

    def queues(self) -> list[str]:
        """The queues with such a job, in the order of their first job by key (as _candidates lists them)."""
        names = set(self.placing) | set(self.changed)
        return sorted(names, key=self._first)

    def _first(self, queue: str) -> str:
        """The queue's first such job by key: the smaller of its two sets' firsts (no union of them built; the placing
        set's first as the ledger keeps it)."""
        changed = self.changed.get(queue)
        if queue not in self.placing:
            return min(changed)  # type: ignore[arg-type]  # (a queue listed has a job in one of the two sets)
        first = self.ledger.first_placing(queue)
        return min(first, min(changed)) if changed else first

    def jobs(self, queue: str) -> list[JobInfo]:
        """The queue's such jobs by key."""
        jobs = self.ssn.jobs
        return [jobs[key] for key in sorted(self._keys(queue))]


class _ByShare:
    """The queue heap when proportion's order is the only queue order (P1: higher priority, then smaller share, then
    ``order_key``), on those keys: a strict order, so queues come out as from ``PriorityQueue(ssn.queue_less)`` (the
    smallest first); a queue's key is taken as it goes in, and within allocate only the queue being served (out of the
    heap) changes its share. The shares are worked out (``_fill_once``) before the first key is taken: they are those
    of the session's open whenever worked out."""

    def __init__(self, proportion: Proportion) -> None:
        self.proportion = proportion
        self.heap: list[tuple[int, Amount, float, str, QueueInfo]] = []

    def push(self, queue: QueueInfo) -> None:
        proportion = self.proportion
        if not proportion.filled:
            proportion._fill_once()
        created, name = queue.order_key()
        heapq.heappush(self.heap, (-queue.priority, proportion.attrs[name].share, created, name, queue))

    def pop(self) -> QueueInfo:
        return heapq.heappop(self.heap)[-1]

    def empty(self) -> bool:
        return not self.heap


def _queue_heap(ssn: Session) -> PriorityQueue[QueueInfo] | _ByShare:
    """The queues' heap: on keys when proportion alone orders queues (see _ByShare), else on ``queue_less``."""
    orders = ssn.all_hooks("queue_order")
    if len(orders) == 1 and getattr(orders[0], "__func__", None) is Proportion.queue_order:
        return _ByShare(orders[0].__self__)  # type: ignore[attr-defined]
    return PriorityQueue(ssn.queue_less)


def _allocate_job(ssn: Session, job: JobInfo, tasks: PriorityQueue[TaskInfo], jobs: PriorityQueue[JobInfo],
                  chooser: NodeChooser) -> None:
    """The job's pending tasks placed (allocate_tasks) and kept when the job is then ready; a job with tasks left goes
    back into its queue's job queue."""
    statement = allocate_tasks(ssn, job, tasks, chooser)
    if statement is not None and ssn.job_ready(job):
        statement.commit()
        if not tasks.empty():
            jobs.push(job)


def _may_place(ssn: Session, queue: QueueInfo, hopeless: _Hopeless) -> bool:
    """Whether some job of the queue may place a task now: a task shape its jobs had pending as the session opened
    (``JobLedger.shapes``; a job's pending tasks only got fewer since: the actions before allocate place, pipeline,
    evict or undo) that some node takes and the queue lets in."""
    table = ssn.job_sums.shapes.get(queue.name)
    return bool(table) and any(not hopeless.task(queue, entry[1]) for entry in table.values())


def _hopeful_queues(ssn: Session, waiting: _Waiting, hopeless: _Hopeless) -> list[str]:
    """The waiting queues :func:`_may_place` lets in as the action starts, by name, found shape by shape
    (``JobLedger.holders``): a shape no node takes rules out at one look every queue holding it, where asking queue by
    queue went through each one's table (some 200 queues, every session, most holding only shapes the full nodes
    refuse). The same verdicts: each (queue, task shape) asked is asked of ``_Hopeless`` as ``_may_place`` asks it,
    and before the first placement nothing they read moves (one epoch), so the order of asking changes no answer; a
    shape is asked of the nodes only when a waiting queue holds it, as before."""
    found: set[str] = set()
    queues = ssn.queues
    for holders in ssn.job_sums.holders.values():
        shape_judged = False
        for name, entry in holders.items():
            if name in found or not waiting.has(name):
                continue
            task: TaskInfo = entry[1]
            if task.pod.gated or task.best_effort:
                continue  # (the ledger holds neither: as _Hopeless skips them)
            if not shape_judged:
                if hopeless.fits_nowhere(task):
                    break  # (every task of the shape: the verdict is the shape's)
                shape_judged = True
            if not hopeless.refused(queues[name], task):
                found.add(name)
    return sorted(found)


def _job_queue(ssn: Session, candidates: list[JobInfo], tasks_by_job: dict[str, PriorityQueue[TaskInfo]],
               hopeless: _Hopeless) -> PriorityQueue[JobInfo]:
    """A queue's jobs in job order, each with its pending tasks in task order, as :func:`execute` builds them, less the
    jobs whose try would place nothing now."""
    jobs: PriorityQueue[JobInfo] = PriorityQueue(ssn.job_less)
    for job in candidates:  # (the two checks in either order: each only leaves the job out; quiet: no reason kept)
        pending = job.by_status.get(PENDING)
        if not pending or hopeless.job(job, pending.values()) or ssn.job_valid(job) is not None:
            continue
        job.fit_errors.clear()
        tasks: PriorityQueue[TaskInfo] = PriorityQueue(ssn.task_less)
        for task in sorted(pending.values(), key=lambda t: t.key):
            if not task.pod.gated and not task.best_effort:
                tasks.push(task)
        if not tasks.empty():
            jobs.push(job)
            tasks_by_job[job.key] = tasks
    return jobs


def _next_hopeful(jobs: PriorityQueue[JobInfo], tasks_by_job: dict[str, PriorityQueue[TaskInfo]],
                  hopeless: _Hopeless) -> tuple[JobInfo, PriorityQueue[TaskInfo]] | None:
    """The next job of the queue, in job order, whose try may place a task (None: there is none left)."""
    while not jobs.empty():
        job = jobs.pop()
        tasks = tasks_by_job[job.key]
        if not hopeless.job(job, tasks.items):
            return job, tasks
    return None


def _candidates(ssn: Session, enqueue_configured: bool) -> list[str]:
    """The jobs to go through, by key: every job, or in an incremental session only those with a pending task
    (and, without the enqueue action, the Pending ones, which allocate makes Inqueue). Exact: the loop does
    nothing else with a job that has no pending task."""
    if not ssn.incremental:
        return sorted(ssn.jobs)
    ledger = ssn.job_sums
    keys = ledger.waiting.union(ledger.changed)  # (changed: an action before this one may have made tasks pending)
    if not enqueue_configured:
        keys |= ledger.pending_phase
    jobs = ssn.jobs
    return sorted(key for key in keys if key in jobs)


class _Hopeless:
    """In an incremental session, the jobs whose try would place no task at all, found without trying them: when
    the action builds its job queues and again when a job comes out of its queue. A task is placed only when its
    queue lets it in (``allocatable``) and a node takes it. Within the action a queue's allocated only grows (an
    allocation adds to it, a discarded statement takes back only what it added) and a node's idle and future idle
    only shrink (allocate evicts nothing), while a node's predicates read only its labels, taints and cordon: a
    task its queue refuses, or that no node takes, is refused and fits nowhere until the action ends. A job all of
    whose tasks are such places nothing, its statement is empty, and trying it (once or again) changes nothing the
    session decides: the jobs and queues come out of their heaps in the same order without it (both orders are
    strict orders on keys that only move for the job being served and its queue). The queue's verdict is used only
    when proportion alone votes on ``allocatable`` (its check is monotonic in the queue's allocated); a shape's
    verdict is the node choice's own (``NodeChooser``: no best node, the nominated one included). A "no" holds to
    the end of the action; a "yes" only while nothing was placed or undone since (the session's epoch)."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.chooser = NodeChooser.of(ssn)
        self.by_queue = all(plugin.option.name == "proportion" for tier in ssn.tiers for plugin in tier
                            if "allocatable" in plugin.hooks and plugin.option.enabled("enabledAllocatable"))
        # Proportion, when it alone votes on ``allocatable``: its bounds answer without the water-filling when they can
        self.proportion = _sole_proportion(ssn) if self.by_queue else None
        self.dead: set[object] = set()  # (queue, request) the queue refuses, task shapes no node takes
        self.alive: dict[object, int] = {}  # the others, with the epoch they were found at

    def task(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """A task of this shape in this queue cannot be placed now."""
        return self._hopeless(queue, (task,))

    def job(self, job: JobInfo, tasks: Iterable[TaskInfo]) -> bool:
        """No task of the job (of ``tasks``: its pending ones, or those left in its queue) can be placed now."""
        return self._hopeless(self.ssn.queues[job.queue], tasks)

    def _hopeless(self, queue: QueueInfo, tasks: Iterable[TaskInfo]) -> bool:
        for task in tasks:
            if task.pod.gated or task.best_effort:
                continue
            # (the queue asked second: the queues' deserved are worked out only when needed)
            if self.fits_nowhere(task) or self.refused(queue, task):
                continue
            return False
        return True

    def fits_nowhere(self, task: TaskInfo) -> bool:
        """No node takes a task of this shape now."""
        shape = id(self.chooser.shape(task))  # (shapes are interned: nodes._INTERNED)
        if shape in self.dead:
            return True
        epoch = self.ssn.epoch
        if self.alive.get(shape) != epoch:
            if self.chooser.fits_nowhere(task):
                self.dead.add(shape)
                return True
            self.alive[shape] = epoch
        return False

    def refused(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """The queue lets no task of this request in now (known only when proportion alone votes: else False)."""
        if not self.by_queue:
            return False
        key = (queue.name, id(self.chooser.shape(task)[0]))  # (the request's amounts)
        if key in self.dead:
            return True
        epoch = self.ssn.epoch
        if self.alive.get(key) != epoch:
            if not self._allocatable(queue, task):
                self.dead.add(key)
                return True
            self.alive[key] = epoch
        return False

    def _allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """``Session.allocatable``, from proportion's bounds when they answer (the queues' deserved are then not
        worked out for it: a session that places nothing never needs them), else from its hook, the only one (asked
        directly: allocate asks of every waiting queue's task shapes, every session)."""
        proportion = self.proportion
        if proportion is not None:
            known = proportion.allocatable_bound(queue, task)
            return known if known is not None else proportion.task_allocatable(queue, task)
        return self.ssn.allocatable(queue, task)


def _sole_proportion(ssn: Session) -> Proportion | None:
    """The proportion plugin when its hook is the only ``allocatable`` one."""
    hooks = ssn.all_hooks("allocatable")
    if len(hooks) == 1 and getattr(hooks[0], "__func__", None) is Proportion.task_allocatable:
        return hooks[0].__self__  # type: ignore[attr-defined, no-any-return]
    return None


def allocate_tasks(ssn: Session, job: JobInfo, tasks: PriorityQueue[TaskInfo],
                   chooser: NodeChooser) -> Statement | None:
    """``allocateResourcesForTasks``: tasks until the job is ready; the statement if ready or pipelined."""
    queue = ssn.queues[job.queue]
    statement = Statement(ssn)
    while not tasks.empty():
        task = tasks.pop()
        if not ssn.allocatable(queue, task):
            continue
        if task.role and any(job.tasks[k].role == task.role for k in job.fit_errors if k in job.tasks):
            job.fit_errors[task.key] = f"Task {task.pod.name} with role spec {task.role} has already predicated " \
                                       "failed, skip"
            continue
        node = chooser.best(task)
        if node is None:
            if ssn.quiet:
                job.fit_errors[task.key] = ""  # which tasks failed still counts (need_continue_allocating)
            else:
                job.fit_errors[task.key] = chooser.fit_error(task)
                ssn.note(job, trace.NO_NODE, f"{task.pod.name}: {job.fit_errors[task.key]}", {"task": task.key})
            if job.need_continue_allocating():
                continue
            break
        place(statement, task, node)
        chooser.changed(node)
        if ssn.job_ready(job):
            break
    if ssn.job_ready(job) or ssn.job_pipelined(job):
        return statement
    if statement.operations:
        ssn.note(job, trace.GANG, f"only {job.ready_task_num() + job.waiting_task_num()} of minMember "
                 f"{job.min_available} tasks could be placed: none is bound (gang)",
                 {"placed": [op.task.key for op in statement.operations]})
    touched = {op.node for op in statement.operations}
    statement.discard()
    for name in sorted(touched):
        chooser.changed(ssn.nodes[name])
    return None


def place(statement: Statement, task: TaskInfo, node: NodeInfo) -> None:
    """``allocateResourcesForTask``: allocate onto idle resources, else pipeline onto what is being released."""
    if less_equal(task.request, node.idle, "zero"):
        statement.allocate(task, node)
    elif not fits_node(task, node):
        statement.pipeline(task, node)

