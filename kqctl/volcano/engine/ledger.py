"""What opening a session sums over every node and every job, kept in the scheduler's cache from session to session.

Volcano's plugins sum, as each session opens (their ``OnSessionOpen``), what every node uses and what every job
holds: overcommit the nodes' used resources and the jobs' inqueue reservations, proportion each queue's allocated,
requested, inqueue and elastic resources, drf each job's allocated resources and dominant share. Volcano does it
afresh every session, over the whole cluster. kqctl keeps these sums in its cache (:class:`session.Cache`) and,
when a session opens, brings them up to date from the nodes and jobs that changed since the last one: a node or a
job names itself in its ledger's ``changed`` set whenever it changes (a task bound, evicted, finished or made
again, a pod scored onto a node, a phase). Only those are summed again, and the answer is the one a fresh sum
gives: the amounts are exact integers, and each sum drops the dimensions no current member holds, as a fresh
sum (``Resource.add`` from an empty vector) never has them.
"""

from __future__ import annotations

from typing import Any

from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine.framework import PENDING, JobInfo, NodeInfo, TaskInfo
from kqctl.volcano.engine.nodes import NodeChooser
from kqctl.volcano.engine.overcommit import reserved
from kqctl.volcano.engine.queue_attr import add_task_requests, job_inqueue


class ResourceSum:
    """A sum of resource vectors that members join and leave; :meth:`value` is the vector a fresh sum of the
    current members gives (a scalar dimension only while some member has it, in the order a fresh sum in the
    members' first order would have them)."""

    __slots__ = ("total", "holders")

    def __init__(self) -> None:
        self.total = Resource()
        self.holders: dict[str, int] = {}  # scalar -> how many members have it

    def add(self, member: Resource) -> None:
        self.total.add(member)
        holders = self.holders
        for name in member.scalars:
            holders[name] = holders.get(name, 0) + 1

    def remove(self, member: Resource) -> None:
        total = self.total
        total.cpu -= member.cpu
        total.memory -= member.memory
        holders = self.holders
        for name, amount in member.scalars.items():
            total.scalars[name] -= amount  # present: the member added it
            holders[name] -= 1

    def value(self) -> Resource:
        holders = self.holders
        return Resource(self.total.cpu, self.total.memory,
                        {name: amount for name, amount in self.total.scalars.items() if holders[name]})


class NodeLedger:
    """Over every node: the nodes by name, their allocatable summed (fixed: nodes do not change between sessions)
    and their used resources summed (overcommit's ``used``). A node's used vector only ever gains dimensions, so a
    plain running sum has the dimensions of a fresh one."""

    def __init__(self, nodes: dict[str, NodeInfo]) -> None:
        self.nodes = nodes
        self.node_list = [nodes[name] for name in sorted(nodes)]
        self.total = Resource()
        self.used = Resource()
        self.seen: dict[str, Resource] = {}  # node -> its used vector when last summed
        for node in self.node_list:
            self.total.add(node.allocatable)
            self.used.add(node.used)
            self.seen[node.name] = node.used.clone()
        self.changed: set[str] = set(nodes)  # every node is opened by the first session
        for node in self.node_list:
            node.watch = self.changed

    def open(self) -> set[str]:
        """A session opens: every node changed since the last opening gets kube-scheduler's view renewed
        (``NodeInfo.open_scored``) and its use summed again. Returns the nodes that changed."""
        changed = set(self.changed)
        self.changed.clear()  # the nodes write into this same set: opening one may name it again (harmless)
        for name in sorted(changed):
            node = self.nodes[name]
            node.open_scored()
            old = self.seen[name]
            if node.used != old:
                self.used.sub(old).add(node.used)
                self.seen[name] = node.used.clone()
        return changed


class JobUsage:
    """One job's part of the sums, as the plugins' session open computes it."""

    __slots__ = ("queue", "allocated", "request", "inqueue", "elastic", "overcommit", "drf_allocated")

    def __init__(self, job: JobInfo) -> None:
        self.queue = job.queue
        # proportion (``add_job_usage``): the allocated tasks, every allocated or pending task, inqueue, elastic
        self.allocated = Resource()
        self.request = Resource()
        add_task_requests(job, self.allocated, self.request)
        self.inqueue = job_inqueue(job)
        self.elastic = job.elastic()
        self.overcommit = reserved(job)  # overcommit's inqueue
        self.drf_allocated = job.allocated.clone()  # drf's account of the job at open (its ``drfAttr``)


class QueueUsage:
    """A queue's jobs summed: how many, and proportion's four sums."""

    __slots__ = ("jobs", "allocated", "request", "inqueue", "elastic", "_values")

    def __init__(self) -> None:
        self.jobs = 0
        self.allocated = ResourceSum()
        self.request = ResourceSum()
        self.inqueue = ResourceSum()
        self.elastic = ResourceSum()
        self._values: tuple[Resource, Resource, Resource, Resource] | None = None

    def values(self) -> tuple[Resource, Resource, Resource, Resource]:
        """The four sums' values (allocated, request, inqueue, elastic), worked out once while no job of the queue
        changes: shared by every session in between, so nobody may change them in place (proportion copies one
        before it adds to it)."""
        found = self._values
        if found is None:
            found = self._values = (self.allocated.value(), self.request.value(), self.inqueue.value(),
                                    self.elastic.value())
        return found

    def add(self, usage: JobUsage) -> None:
        self._values = None
        self.jobs += 1
        self.allocated.add(usage.allocated)
        self.request.add(usage.request)
        self.inqueue.add(usage.inqueue)
        self.elastic.add(usage.elastic)

    def remove(self, usage: JobUsage) -> None:
        self._values = None
        self.jobs -= 1
        self.allocated.remove(usage.allocated)
        self.request.remove(usage.request)
        self.inqueue.remove(usage.inqueue)
        self.elastic.remove(usage.elastic)


class JobLedger:
    """Over every job: each queue's usage (proportion), the inqueue reservations (overcommit), each job's
    allocated resources (drf's account at open, shared until a session changes it); and which jobs an action can
    act on (a session that ``Session.incremental`` lets skip the others): the jobs with pending tasks (allocate's),
    the jobs in the Pending phase (enqueue's), the jobs with pending best-effort tasks (backfill's), each set as
    the session opens, and the jobs changed since the last session closed (``unclosed`` plus ``changed``)."""

    def __init__(self, jobs: dict[str, JobInfo]) -> None:
        self.jobs = jobs
        self.usage: dict[str, JobUsage] = {}
        self.queues: dict[str, QueueUsage] = {}
        self.inqueue = ResourceSum()  # overcommit's
        self.drf_allocated: dict[str, Resource] = {}
        self.changed: set[str] = set()
        self.waiting: set[str] = set()  # jobs with a pending task
        self.pending_phase: set[str] = set()  # jobs whose PodGroup is Pending (``is_pending``)
        self.best_effort: set[str] = set()  # jobs with a pending best-effort task
        self.unclosed: set[str] = set()  # the jobs changed between the last session's close and this opening
        # The jobs with a pending task whose PodGroup is not Pending (those allocate takes up), by queue
        self.placing: dict[str, set[str]] = {}
        self._placing_in: dict[str, str] = {}  # job -> its queue in ``placing``
        self._first_placing: dict[str, str] = {}  # queue -> the smallest key of its ``placing`` set, once asked
        # The task shapes (``NodeChooser.shape``, by id) of each queue's pending tasks that allocate places (not gated,
        # not best-effort), as the session opens: queue -> shape -> [how many jobs have one, a task of the shape]
        self.shapes: dict[str, dict[int, list[Any]]] = {}
        # The same entries by shape: shape -> queue -> its entry in ``shapes`` (allocate rules out every queue holding a
        # shape no node takes at one look, see allocate._hopeful_queues)
        self.holders: dict[int, dict[str, list[Any]]] = {}
        self._shapes_of: dict[str, tuple[str, tuple[int, ...]]] = {}  # job -> its queue and shapes, as counted
        # proportion's last water-filling: (its inputs, each queue's deserved, the rounds), reused while the inputs
        # are the same (Proportion._water_fill)
        self.water_fill: tuple[Any, dict[str, Resource], list[Any] | None] | None = None
        # proportion's queue limits: (the cluster total, the queue models, their guarantees' total, each queue's
        # capability, guarantee and real capability), kept while the total and the queues are the same
        # (Proportion._queue_limits)
        self.queue_limits: tuple[Any, ...] | None = None
        self.fill_rows: dict[str, tuple[Any, ...]] = {}  # each queue's row of the integer fill (fill_in_integers)
        # proportion's queue attributes of an incremental session, by queue: (the sums, the limits and the weight they
        # were built from, the attributes), used again while those are the same (Proportion._kept_attr)
        self.queue_attrs: dict[str, tuple[Any, ...]] = {}
        for key in sorted(jobs):  # a fresh sum's order: the plugins go through the jobs by key
            self.watch(jobs[key])

    def watch(self, job: JobInfo) -> None:
        """A job joined the cache (or the ledger): it is summed when the next session opens."""
        job.watch = self.changed
        self.changed.add(job.key)

    def open(self) -> None:
        """A session opens: the jobs changed since the last opening (or gone from the cache) are summed again."""
        if not self.changed:
            return
        changed = sorted(self.changed)
        self.unclosed.update(changed)
        self.changed.clear()
        for key in changed:
            self._index(key)
            old = self.usage.pop(key, None)
            if old is not None:
                left = self.queues[old.queue]
                left.remove(old)
                self.inqueue.remove(old.overcommit)
                if not left.jobs:
                    del self.queues[old.queue]
                del self.drf_allocated[key]
            job = self.jobs.get(key)
            if job is None:
                continue
            usage = self.usage[key] = JobUsage(job)
            queue = self.queues.get(usage.queue)
            if queue is None:
                queue = self.queues[usage.queue] = QueueUsage()
            queue.add(usage)
            self.inqueue.add(usage.overcommit)
            self.drf_allocated[key] = usage.drf_allocated

    def _index(self, key: str) -> None:
        """The job's place in the sets of jobs an action can act on, as it is now."""
        job = self.jobs.get(key)
        self._index_shapes(key, job)
        self._index_placing(key, job)
        for found, member in ((self.waiting, job is not None and bool(job.by_status.get(PENDING))),
                              (self.pending_phase, job is not None and job.is_pending()),
                              (self.best_effort, job is not None and job.pending_best_effort > 0)):
            if member:
                found.add(key)
            else:
                found.discard(key)

    def _index_placing(self, key: str, job: JobInfo | None) -> None:
        old = self._placing_in.pop(key, None)
        firsts = self._first_placing
        if old is not None:
            members = self.placing[old]
            members.discard(key)
            if firsts.get(old) == key:
                del firsts[old]
            if not members:
                del self.placing[old]
        if job is not None and job.by_status.get(PENDING) and not job.is_pending():
            self.placing.setdefault(job.queue, set()).add(key)
            self._placing_in[key] = job.queue
            first = firsts.get(job.queue)
            if first is not None and key < first:
                firsts[job.queue] = key

    def first_placing(self, queue: str) -> str:
        """The smallest key of the queue's ``placing`` set (which must not be empty): allocate orders the queues by it
        every session, and most sets outlive many sessions (a min over each, 200 queues, was 2 % of a replay)."""
        first = self._first_placing.get(queue)
        if first is None:
            first = self._first_placing[queue] = min(self.placing[queue])
        return first

    def _index_shapes(self, key: str, job: JobInfo | None) -> None:
        old = self._shapes_of.pop(key, None)
        if old is not None:
            table = self.shapes[old[0]]
            for shape in old[1]:
                entry = table[shape]
                entry[0] -= 1
                if not entry[0]:
                    del table[shape]
                    self._unhold(shape, old[0])
        pending = job.by_status.get(PENDING) if job is not None else None
        if not pending:
            return
        found: dict[int, TaskInfo] = {}
        for task in pending.values():
            if not task.pod.gated and not task.best_effort:
                found.setdefault(id(NodeChooser.shape(task)), task)
        if found:
            assert job is not None
            table = self.shapes.setdefault(job.queue, {})
            for shape, task in found.items():
                counted = table.get(shape)
                if counted is None:
                    entry = table[shape] = [1, task]
                    self.holders.setdefault(shape, {})[job.queue] = entry
                else:
                    counted[0] += 1
            self._shapes_of[key] = (job.queue, tuple(found))

    def _unhold(self, shape: int, queue: str) -> None:
        holders = self.holders[shape]
        del holders[queue]
        if not holders:
            del self.holders[shape]

    def closing(self) -> set[str]:
        """A session closes: the jobs that changed since the last one closed (before this one opened, or in it)."""
        found = self.changed.union(self.unclosed)
        self.unclosed.clear()
        return found
