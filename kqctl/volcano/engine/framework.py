"""One scheduling session as Volcano's framework holds it (``pkg/scheduler/framework``, ``pkg/scheduler/api``).

Tasks, jobs, queues and nodes are mutable session state; plugins register hooks; the session combines their
votes exactly as ``session_plugins.go`` does (tiers in order, each hook behind its ``enable*`` flag); a
:class:`Statement` records tentative allocations, pipelines and evictions so that a gang can be committed
or discarded as a whole. Everything is deterministic: where Volcano iterates a Go map, kqctl goes in name
order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from kqctl.volcano.api.config import PluginOption, SchedulerConf
from kqctl.volcano.api.models import Node, Pod, PodGroup, Queue
from kqctl.volcano.api.resource import Resource, less_equal, less_equal_with_names

if TYPE_CHECKING:
    from kqctl.volcano.engine.trace import Trace

# Task statuses (api/types.go).
PENDING, ALLOCATED, PIPELINED, BINDING = "Pending", "Allocated", "Pipelined", "Binding"
BOUND, RUNNING = "Bound", "Running"
RELEASING, SUCCEEDED, FAILED, UNKNOWN = "Releasing", "Succeeded", "Failed", "Unknown"
ALLOCATED_STATUSES = frozenset({BOUND, BINDING, RUNNING, ALLOCATED})
READY_STATUSES = frozenset({BOUND, BINDING, RUNNING, ALLOCATED, "Succeeded"})
SCHEDULED_STATUSES = frozenset({RUNNING, BOUND, FAILED, SUCCEEDED})
PERMIT, ABSTAIN, REJECT = 1, 0, -1
_EPOCH = datetime(1, 1, 1)  # Go's zero time: objects without creationTimestamp sort together, then by UID


def creation_key(created: datetime | None) -> float:
    return created.timestamp() if created is not None else float("-inf")


class TaskInfo:
    """A pod as a task of a job (``api.TaskInfo``)."""

    __slots__ = ("pod", "key", "job", "request", "status", "node", "priority", "preemptable", "role", "index",
                 "best_effort", "evicted_by", "nominated", "eviction_occurred", "last_transaction", "shape")

    def __init__(self, pod: Pod, job: JobInfo) -> None:
        self.pod = pod
        self.key = pod.key
        self.job = job
        self.request = request_of(pod)
        self.status = pod.status
        self.node = pod.node_name
        self.priority = pod.priority
        self.preemptable = pod.preemptable
        self.role = pod.task_role
        self.index = _pod_index(pod.name)
        self.best_effort = self.request.is_empty()
        self.evicted_by: str | None = None
        self.nominated = ""  # the pod's status.nominatedNodeName, written when a session closes
        self.eviction_occurred = False  # pipelined where victims were evicted for it (``EvictionOccurred``)
        # ``LastTransaction``: (status, node, eviction occurred) before a statement undid the task's change
        self.last_transaction: tuple[str, str, bool] | None = None
        self.shape: tuple[Any, ...] | None = None  # nodes.NodeChooser.shape, worked out once

    def __repr__(self) -> str:
        return f"Task({self.key} {self.status} {self.node})"


_REQUESTS: dict[tuple[tuple[str, int], ...], Resource] = {}
_BY_MAPPING: dict[int, tuple[object, Resource]] = {}


def request_of(pod: Pod) -> Resource:
    """The pod's request as a vector, shared by every pod that asks the same: nothing changes it in place."""
    known = _BY_MAPPING.get(id(pod.request))
    if known is not None and known[0] is pod.request:
        return known[1]
    key = tuple(sorted(pod.request.items()))
    found = _REQUESTS.get(key)
    if found is None:
        found = _REQUESTS[key] = Resource.of(pod.request)
    _BY_MAPPING[id(pod.request)] = (pod.request, found)
    return found


def _pod_index(name: str) -> int | None:
    """``GetPodIndexUnderTask``: the number after the last '-' of ``<job>-<task>-<index>``."""
    parts = name.split("-")
    if len(parts) >= 3 and parts[-1].isdigit():
        return int(parts[-1])
    return None


class JobInfo:
    """A PodGroup and its tasks (``api.JobInfo``)."""

    def __init__(self, group: PodGroup, priority: int) -> None:
        self.group = group
        self.key = group.key
        self.namespace, self.name = group.namespace, group.name
        self.queue = group.queue
        self.priority = priority
        self.min_available = group.min_member
        self.task_min_available = dict(group.min_task_member)
        self.task_min_total = sum(self.task_min_available.values())
        self.min_resources = Resource.of(group.min_resources) if group.min_resources is not None else None
        # The cache's set of changed jobs (ledger.JobLedger): the job names itself there whenever its tasks or its
        # phase change, so that the next session sums again only the jobs that changed. None: nobody watches.
        self.watch: set[str] | None = None
        self._phase = group.phase or PENDING
        self.creation = creation_key(group.creation)
        self.tasks: dict[str, TaskInfo] = {}
        self.by_status: dict[str, dict[str, TaskInfo]] = {}
        self.pending_best_effort = 0
        self.ready = 0  # tasks in READY_STATUSES
        self.waiting = 0  # pipelined tasks
        self.allocated = Resource()
        self.fit_errors: dict[str, str] = {}  # task key -> why no node fits
        self.unschedulable = False  # gang marked it unschedulable this session
        self.reason: tuple[str, str] | None = None  # the last gate that stopped it this session, and why

    @property
    def phase(self) -> str:
        return self._phase

    @phase.setter
    def phase(self, phase: str) -> None:
        if phase != self._phase:
            self._phase = phase
            self.changed()

    def changed(self) -> None:
        """The job's tasks or phase changed: its ledger sums it again when the next session opens."""
        if self.watch is not None:
            self.watch.add(self.key)

    def add_task(self, task: TaskInfo) -> None:
        if self.watch is not None:
            self.watch.add(self.key)
        self.tasks[task.key] = task
        self.by_status.setdefault(task.status, {})[task.key] = task
        if task.status in ALLOCATED_STATUSES:
            self.allocated.add(task.request)
        if task.status == PENDING and task.best_effort:
            self.pending_best_effort += 1
        self.ready += task.status in READY_STATUSES
        self.waiting += task.status == PIPELINED

    def update_task_status(self, task: TaskInfo, status: str) -> None:
        if self.watch is not None:
            self.watch.add(self.key)
        old = task.status
        self.by_status[old].pop(task.key, None)
        if old in ALLOCATED_STATUSES:
            self.allocated.sub(task.request)
        if old == PENDING and task.best_effort:
            self.pending_best_effort -= 1
        self.ready += (status in READY_STATUSES) - (old in READY_STATUSES)
        self.waiting += (status == PIPELINED) - (old == PIPELINED)
        task.status = status
        self.by_status.setdefault(status, {})[task.key] = task
        if status in ALLOCATED_STATUSES:
            self.allocated.add(task.request)
        if status == PENDING and task.best_effort:
            self.pending_best_effort += 1

    def with_status(self, status: str) -> Iterable[TaskInfo]:
        return self.by_status.get(status, {}).values()

    def count(self, *statuses: str) -> int:
        by_status = self.by_status
        total = 0
        for status in statuses:
            tasks = by_status.get(status)
            if tasks:
                total += len(tasks)
        return total

    # --- job state (job_info.go) -----------------------------------------------------------------------

    def is_pending(self) -> bool:
        return self.phase in (PENDING, "")

    def ready_task_num(self) -> int:
        return self.ready

    def waiting_task_num(self) -> int:
        return self.waiting

    def pending_best_effort_num(self) -> int:
        return self.pending_best_effort

    def allocated_task_num(self) -> int:
        return self.count(*ALLOCATED_STATUSES)

    def valid_task_num(self) -> int:
        return self.count(*ALLOCATED_STATUSES, SUCCEEDED, PIPELINED, PENDING)

    def scheduled_task_num(self) -> int:
        return self.count(*SCHEDULED_STATUSES)

    def is_ready(self) -> bool:
        return self.ready + self.pending_best_effort >= self.min_available

    def is_pipelined(self) -> bool:
        return self.waiting + self.ready + self.pending_best_effort >= self.min_available

    def is_starving(self) -> bool:
        return self.waiting + self.ready < self.min_available

    def _roles(self, statuses: Iterable[str], best_effort_pending: bool) -> dict[str, int]:
        counts: dict[str, int] = {}
        for status in statuses:
            for task in self.with_status(status):
                counts[task.role] = counts.get(task.role, 0) + 1
        if best_effort_pending:
            for task in self.with_status(PENDING):
                if task.best_effort:
                    counts[task.role] = counts.get(task.role, 0) + 1
        return counts

    def _roles_meet(self, counts: dict[str, int]) -> bool:
        if not self.task_min_available:
            return True
        return all(counts.get(role, 0) >= minimum for role, minimum in self.task_min_available.items() if minimum)

    def check_task_valid(self) -> bool:
        if self.min_available < self.task_min_total or not self.task_min_available:
            return True
        return self._roles_meet(self._roles((*ALLOCATED_STATUSES, SUCCEEDED, PIPELINED, PENDING), False))

    def check_task_ready(self) -> bool:
        if self.min_available < self.task_min_total or not self.task_min_available:
            return True
        return self._roles_meet(self._roles((*ALLOCATED_STATUSES, SUCCEEDED), True))

    def check_task_pipelined(self) -> bool:
        if self.min_available < self.task_min_total or not self.task_min_available:
            return True
        return self._roles_meet(self._roles((*ALLOCATED_STATUSES, SUCCEEDED, PIPELINED), True))

    def need_continue_allocating(self) -> bool:
        """``NeedContinueAllocating``: after a task found no node, whether the job's other tasks still may."""
        if self.min_available == len(self.tasks):
            return False
        failed = {self.tasks[key].role for key in self.fit_errors if key in self.tasks}
        if self.min_available < self.task_min_total:
            left = sum(1 for t in self.with_status(PENDING) if t.role not in failed)
            return self.ready_task_num() + left >= self.min_available
        allocated = self._roles((*ALLOCATED_STATUSES, SUCCEEDED), True)
        return all(allocated.get(role, 0) >= self.task_min_available.get(role, 0) for role in failed
                   if self.task_min_available.get(role, 0))

    def elastic(self) -> Resource:
        """``GetElasticResources``: what the job runs above its minResources."""
        minimum = self.min_resources if self.min_resources is not None else Resource()
        from kqctl.volcano.api.resource import exceeded_part

        return exceeded_part(self.allocated, minimum)

    def min_request(self) -> Resource:
        return self.min_resources.clone() if self.min_resources is not None else Resource()

    def __repr__(self) -> str:
        return f"Job({self.key} {self.phase})"


class NodeInfo:
    """A node's resources in the session (``api.NodeInfo``): idle, used, releasing and pipelined; and the pods
    kube-scheduler's NodeInfo holds for the node scorers (``scored``)."""

    __slots__ = ("model", "name", "allocatable", "idle", "used", "releasing", "pipelined", "tasks", "on_node",
                 "scored", "version", "_key", "watch")

    def __init__(self, model: Node) -> None:
        self.model = model
        self.name = model.name
        self.allocatable = Resource.of(model.allocatable)
        self.idle = self.allocatable.clone()
        self.used = Resource()
        self.releasing = Resource()
        self.pipelined = Resource()
        self.tasks: dict[str, TaskInfo] = {}
        self.on_node = ScoredPods()  # every pod on the node, whatever its status: kube-scheduler's view at open
        self.scored = ScoredPods()  # kube-scheduler's view during the session
        self.version = 0  # bumped on every change: node-choice caches key on it
        self._key: tuple[int, tuple[Any, ...]] | None = None
        # The cache's set of changed nodes (session.Cache.changed_nodes): the node names itself there whenever its
        # version moves, so that the next session opens only the nodes that changed. None: nobody watches.
        self.watch: set[str] | None = None

    def add(self, key: str, status: str, request: Resource, task: TaskInfo | None, pod: Pod | None = None) -> None:
        """``AddTask``: releasing and running tasks use the node; a pipelined one only reserves future idle.
        ``pod``: a pod on the node that is no task (another scheduler's)."""
        if task is not None:
            self.tasks[key] = task
            self.on_node.add(task.pod)
        elif pod is not None:
            self.on_node.add(pod)
        if status == PIPELINED:
            self.pipelined.add(request)
        else:
            self.idle.sub(request)
            self.used.add(request)
            if status == RELEASING:
                self.releasing.add(request)
        self.version += 1
        if self.watch is not None:
            self.watch.add(self.name)

    def remove(self, key: str, status: str, request: Resource) -> None:
        task = self.tasks.pop(key, None)
        if task is not None:
            self.on_node.remove(task.pod)
        if status == PIPELINED:
            self.pipelined.sub(request)
        else:
            self.idle.add(request)
            self.used.sub(request)
            if status == RELEASING:
                self.releasing.sub(request)
        self.version += 1
        if self.watch is not None:
            self.watch.add(self.name)

    def open_scored(self) -> None:
        """At session open kube-scheduler's view of the node holds every pod on it, whatever its status
        (``framework.GenerateNodeMapAndSlice``: ``NewNodeInfo(node.Pods()...)``). Unchanged when the last
        session's view already equals it (the node's version, and what was judged at it, then still holds)."""
        scored, on_node = self.scored, self.on_node
        if scored.nonzero_cpu == on_node.nonzero_cpu and scored.nonzero_memory == on_node.nonzero_memory \
                and scored.requested == on_node.requested:
            return
        self.scored = on_node.copy()
        self.version += 1
        if self.watch is not None:
            self.watch.add(self.name)

    def score_add(self, pod: Pod) -> None:
        self.scored.add(pod)
        self.version += 1
        if self.watch is not None:
            self.watch.add(self.name)

    def score_remove(self, pod: Pod) -> None:
        self.scored.remove(pod)
        self.version += 1
        if self.watch is not None:
            self.watch.add(self.name)

    def future_idle(self) -> Resource:
        """``FutureIdle``: idle plus what is being released minus what is pipelined onto the node."""
        return self.idle.clone().add(self.releasing).sub(self.pipelined)

    def state_key(self) -> tuple[Any, ...]:
        """Nodes with the same key are interchangeable for fit and resource scores (used is allocatable - idle)."""
        if self._key is not None and self._key[0] == self.version:
            return self._key[1]
        key = (tuple(sorted(self.allocatable.as_dict().items())), tuple(sorted(self.idle.as_dict().items())),
               tuple(sorted(self.releasing.as_dict().items())), tuple(sorted(self.pipelined.as_dict().items())),
               self.scored.key(), self.model.unschedulable, self.model.taints)
        self._key = (self.version, key)
        return key


class ScoredPods:
    """What kube-scheduler's ``NodeInfo`` sums over the pods it holds: ``Requested`` (the pods' requests) and
    ``NonZeroRequested`` (cpu and memory with 100m and 200Mi for a container that asks for none). Volcano's
    predicates plugin adds a pod when a task is allocated or pipelined to the node and removes it when the
    task is evicted or the allocation is undone (its ``AllocateFunc``/``DeallocateFunc`` event handlers)."""

    __slots__ = ("requested", "nonzero_cpu", "nonzero_memory")

    def __init__(self) -> None:
        self.requested: dict[str, int] = {}
        self.nonzero_cpu = 0
        self.nonzero_memory = 0

    def copy(self) -> ScoredPods:
        copied = ScoredPods()
        copied.requested = dict(self.requested)
        copied.nonzero_cpu, copied.nonzero_memory = self.nonzero_cpu, self.nonzero_memory
        return copied

    def add(self, pod: Pod) -> None:
        requested = self.requested
        for name, amount in pod.request.items():
            requested[name] = requested.get(name, 0) + amount
        self.nonzero_cpu += pod.score_request[0]
        self.nonzero_memory += pod.score_request[1]

    def remove(self, pod: Pod) -> None:
        requested = self.requested
        for name, amount in pod.request.items():
            requested[name] = requested.get(name, 0) - amount
        self.nonzero_cpu -= pod.score_request[0]
        self.nonzero_memory -= pod.score_request[1]

    def key(self) -> tuple[Any, ...]:
        # Names with their amounts in the dict's order: equal states may differ in order (a cache miss only).
        return (tuple(self.requested.items()), self.nonzero_cpu, self.nonzero_memory)


@dataclass
class QueueInfo:
    """A queue of the session (``api.QueueInfo``)."""

    model: Queue

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def open(self) -> bool:
        return self.model.state == "Open"

    @property
    def priority(self) -> int:
        return self.model.priority

    def order_key(self) -> tuple[float, str]:
        return (creation_key(self.model.creation), self.model.name)


T = TypeVar("T")


class PriorityQueue(Generic[T]):
    """``util.PriorityQueue``: Go's container/heap with a less function, sift for sift."""

    def __init__(self, less: Callable[[T, T], bool]) -> None:
        self.less = less
        self.items: list[T] = []

    def __len__(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items

    def push(self, item: T) -> None:
        self.items.append(item)
        self._up(len(self.items) - 1)

    def pop(self) -> T:
        n = len(self.items) - 1
        self.items[0], self.items[n] = self.items[n], self.items[0]
        self._down(0, n)
        return self.items.pop()

    def _up(self, j: int) -> None:
        items, less = self.items, self.less
        while j > 0:
            i = (j - 1) // 2
            if i == j or not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            j = i

    def _down(self, i: int, n: int) -> None:
        items, less = self.items, self.less
        while True:
            j1 = 2 * i + 1
            if j1 >= n:
                return
            j = j1
            j2 = j1 + 1
            if j2 < n and less(items[j2], items[j1]):
                j = j2
            if not less(items[j], items[i]):
                return
            items[i], items[j] = items[j], items[i]
            i = j


@dataclass
class Operation:
    kind: str  # allocate, pipeline, evict
    task: TaskInfo
    node: str
    previous: str = ""  # the task's status before
    reason: str = ""


class Statement:
    """``framework.Statement``: tentative changes to the session, committed or discarded together."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.operations: list[Operation] = []

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        previous = task.status
        self.session.epoch += 1
        task.job.update_task_status(task, ALLOCATED)
        task.node = node.name
        node.add(task.key, ALLOCATED, task.request, task)
        self.session.fire_allocate(task)
        self.operations.append(Operation("allocate", task, node.name, previous))

    def pipeline(self, task: TaskInfo, node: NodeInfo, eviction_occurred: bool = False) -> None:
        previous = task.status
        self.session.epoch += 1
        task.job.update_task_status(task, PIPELINED)
        task.node = node.name
        task.eviction_occurred = eviction_occurred
        node.add(task.key, PIPELINED, task.request, task)
        self.session.fire_allocate(task)
        self.operations.append(Operation("pipeline", task, node.name, previous))

    def evict(self, task: TaskInfo, reason: str) -> None:
        previous = task.status
        self.session.epoch += 1
        node = self.session.nodes[task.node]
        node.remove(task.key, previous, task.request)
        task.job.update_task_status(task, RELEASING)
        node.add(task.key, RELEASING, task.request, task)
        self.session.fire_deallocate(task)
        self.operations.append(Operation("evict", task, task.node, previous, reason))

    def unpipeline(self, task: TaskInfo) -> None:
        """``UnPipeline``: a pipelined task back to pending, off its node (not an operation of the statement)."""
        self.session.epoch += 1
        node = self.session.nodes[task.node]
        node.remove(task.key, PIPELINED, task.request)
        task.job.update_task_status(task, PENDING)
        self.session.fire_deallocate(task)
        task.node = ""

    def has_evictions(self) -> bool:
        return any(op.kind == "evict" for op in self.operations)

    def merge(self, other: Statement) -> None:
        self.operations.extend(other.operations)
        other.operations = []

    def discard(self) -> None:
        self.session.epoch += 1
        for op in reversed(self.operations):
            node = self.session.nodes[op.node]
            task = op.task
            task.last_transaction = (task.status, task.node, task.eviction_occurred)  # GenerateLastTxContext
            if op.kind != "evict":
                self.session.undone.append(task)
            if op.kind == "evict":
                task.evicted_by = None
                node.remove(task.key, RELEASING, task.request)
                task.job.update_task_status(task, op.previous)
                node.add(task.key, op.previous, task.request, task)
                self.session.fire_allocate(task)
            else:
                node.remove(task.key, task.status, task.request)
                task.job.update_task_status(task, op.previous)
                self.session.fire_deallocate(task)  # before the task leaves the node, as unallocate/unPipeline
                task.node = ""
        self.operations = []

    def commit(self) -> None:
        """Allocations become binds, evictions become deletions; pipelines stay until the next session."""
        self.session.epoch += 1
        for op in self.operations:
            op.task.last_transaction = None  # ClearLastTxContext
            if op.kind == "allocate":
                self.session.dispatch(op.task)
            elif op.kind == "evict":
                self.session.evictions.append((op.task, op.reason))
        self.operations = []


@dataclass
class ValidateResult:
    passed: bool
    reason: str = ""
    message: str = ""


@dataclass
class Plugin:
    """A plugin of a tier: its option (flags, arguments) and the hooks it registered at session open."""

    option: PluginOption
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)


# Which enable* flag guards which hook (session_plugins.go); hooks without a flag always run.
HOOK_FLAGS = {
    "job_order": "enableJobOrder", "task_order": "enableTaskOrder", "queue_order": "enableQueueOrder",
    "job_ready": "enableJobReady", "job_pipelined": "enableJobPipelined", "job_starving": "enableJobStarving",
    "job_enqueueable": "enableJobEnqueued", "job_enqueued": "enableJobEnqueued",
    "allocatable": "enabledAllocatable", "overused": "enabledOverused", "preemptive": "enablePreemptive",
    "reclaimable": "enableReclaimable", "predicate": "enablePredicate", "node_order": "enableNodeOrder",
    "preemptable": "enablePreemptable",
    "batch_node_order": "enableNodeOrder", "normalized_node_order": "enableNodeOrder",
}


class Session:
    """The session: its state, its plugins' hooks, and how their votes combine."""

    def __init__(self, conf: SchedulerConf, queues: dict[str, QueueInfo], jobs: dict[str, JobInfo],
                 nodes: dict[str, NodeInfo], trace: Trace | None = None,
                 node_list: list[NodeInfo] | None = None, total: Resource | None = None,
                 used: Resource | None = None) -> None:
        self.conf = conf
        self.queues = queues
        self.jobs = jobs
        self.nodes = nodes
        # The nodes by name and their allocatable sum: the cache keeps both between sessions (nodes do not come and
        # go between sessions, and allocatable never changes), or they are worked out here.
        self.node_list = node_list if node_list is not None else [nodes[name] for name in sorted(nodes)]
        if total is None:
            total = Resource()
            for node in self.node_list:
                total.add(node.allocatable)
        self.total = total
        self.used = used  # what the nodes' pods use, summed, when the cache keeps it (None: overcommit sums it)
        # The nodes that changed since the session opened, when the cache keeps count (session.NodeLedger); None:
        # nobody does, and a kept node choice is brought up to date from every node.
        self.changed_nodes: set[str] | None = None
        # What the plugins sum over the jobs at open, kept by the cache (ledger.JobLedger); None: they sum it.
        self.job_sums: Any = None
        # Nobody reads why jobs wait (a replay reads only binds, evictions, nominations and phases): the texts of
        # the reasons, fit errors and gang conditions are not written. What the session decides is the same.
        self.quiet = False
        # A quiet session on a cache that keeps its ledgers (ledger.JobLedger) visits only the jobs an action can act
        # on and the jobs that changed since the last session (see ``session.run_cached``); what it decides is the
        # same.
        self.incremental = False
        self.tiers: list[list[Plugin]] = []
        self._hooks: dict[str, list[list[Callable[..., Any]]]] = {}
        self._flat: dict[str, list[Callable[..., Any]]] = {}
        self.binds: list[TaskInfo] = []
        self.evictions: list[tuple[TaskInfo, str]] = []
        self.undone: list[TaskInfo] = []  # tasks a discarded statement took back (their last transaction kept)
        self.trace = trace
        self.epoch = 0  # bumped by every statement operation: what a failed search saw is still true while unchanged
        self.event_handlers: list[tuple[Callable[[TaskInfo], None] | None, Callable[[TaskInfo], None] | None]] = []
        self.node_chooser: Any = None  # allocate's and backfill's nodes.NodeChooser, kept in the cache between sessions

    def release(self) -> None:
        """The session is over: its plugins' hooks and event handlers go. They and the plugins that registered them
        refer back to the session, a cycle only the cyclic garbage collector frees, and kqctl runs without it
        (``cli/app.py``): a replay's thousands of sessions would each keep their plugins' state (proportion's
        queues, drf's job accounts) to the end of the process."""
        self.tiers = []
        self._hooks, self._flat = {}, {}
        self.event_handlers = []

    # --- registration ----------------------------------------------------------------------------------------

    def hooks(self, name: str) -> list[list[Callable[..., Any]]]:
        """The enabled hooks of one kind, per tier, in configuration order."""
        found = self._hooks.get(name)
        if found is None:
            flag = HOOK_FLAGS.get(name)
            found = [[p.hooks[name] for p in tier if name in p.hooks and (flag is None or p.option.enabled(flag))]
                     for tier in self.tiers]
            self._hooks[name] = found
        return found

    def all_hooks(self, name: str) -> list[Callable[..., Any]]:
        """The enabled hooks of one kind, every tier after the other."""
        found = self._flat.get(name)
        if found is None:
            found = self._flat[name] = [fn for tier in self.hooks(name) for fn in tier]
        return found

    def note(self, job: JobInfo, gate: str, message: str, detail: dict[str, Any] | None = None) -> None:
        """A gate stopped the job: kept as its reason, and in the trace when explain asks for one."""
        job.reason = (gate, message)
        if self.trace is not None:
            self.trace.note(job.key, gate, message, detail)

    def fire_allocate(self, task: TaskInfo) -> None:
        for on_allocate, _ in self.event_handlers:
            if on_allocate is not None:
                on_allocate(task)

    def fire_deallocate(self, task: TaskInfo) -> None:
        for _, on_deallocate in self.event_handlers:
            if on_deallocate is not None:
                on_deallocate(task)

    # --- direct changes (no statement) --------------------------------------------------------------------------

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """``Session.Allocate`` (backfill): the task is allocated at once, with nothing to undo it; once its job
        is ready, every allocated task of the job is bound."""
        self.epoch += 1
        task.job.update_task_status(task, ALLOCATED)
        task.node = node.name
        node.add(task.key, ALLOCATED, task.request, task)
        self.fire_allocate(task)
        if self.job_ready(task.job):
            for allocated in sorted(task.job.with_status(ALLOCATED), key=lambda t: t.key):
                self.dispatch(allocated)

    def dispatch(self, task: TaskInfo) -> None:
        """``dispatch``: the task is bound (Binding until the next session sees it run)."""
        task.job.update_task_status(task, BINDING)
        self.binds.append(task)

    # --- orders ----------------------------------------------------------------------------------------------

    def job_compare(self, left: JobInfo, right: JobInfo) -> int:
        for fn in self.all_hooks("job_order"):
            result = fn(left, right)
            if result != 0:
                return int(result)
        return 0

    def job_less(self, left: JobInfo, right: JobInfo) -> bool:
        result = self.job_compare(left, right)
        if result != 0:
            return result < 0
        if left.creation == right.creation:
            return left.key < right.key
        return left.creation < right.creation

    def task_compare(self, left: TaskInfo, right: TaskInfo) -> int:
        for fn in self.all_hooks("task_order"):
            result = fn(left, right)
            if result != 0:
                return int(result)
        return 0

    def task_less(self, left: TaskInfo, right: TaskInfo) -> bool:
        result = self.task_compare(left, right)
        if result != 0:
            return result < 0
        return _compare_task(left, right)

    def queue_less(self, left: QueueInfo, right: QueueInfo) -> bool:
        for fn in self.all_hooks("queue_order"):
            result = fn(left, right)
            if result != 0:
                return bool(result < 0)
        return left.order_key() < right.order_key()

    def victim_queue_less(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> bool:
        for fn in self.all_hooks("victim_queue_order"):
            result = fn(left, right, preemptor)
            if result != 0:
                return bool(result < 0)
        return not self.queue_less(left, right)

    def victims_queue(self, victims: list[TaskInfo], preemptor: TaskInfo) -> PriorityQueue[TaskInfo]:
        """``BuildVictimsPriorityQueue``: between queues the victim queue order; within a queue the reverse job
        order, then the reverse task order. Popped one by one: the orders read the session as it changes."""

        def less(left: TaskInfo, right: TaskInfo) -> bool:
            if left.job is right.job:
                return not self.task_less(left, right)
            if left.job.queue != right.job.queue:
                return self.victim_queue_less(self.queues[left.job.queue], self.queues[right.job.queue],
                                              self.queues[preemptor.job.queue])
            compared = self.job_compare(left.job, right.job)
            if compared != 0:
                return compared > 0
            return not self.task_less(left, right)

        heap: PriorityQueue[TaskInfo] = PriorityQueue(less)
        for victim in victims:
            heap.push(victim)
        return heap

    # --- votes -----------------------------------------------------------------------------------------------

    def job_valid(self, job: JobInfo) -> ValidateResult | None:
        for fn in self.all_hooks("job_valid"):
            result = fn(job)
            if result is not None and not result.passed:
                return result  # type: ignore[no-any-return]
        return None

    def job_ready(self, job: JobInfo) -> bool:
        return all(fn(job) for fn in self.all_hooks("job_ready"))

    def job_pipelined(self, job: JobInfo) -> bool:
        return _tier_vote(self.hooks("job_pipelined"), job)

    def job_starving(self, job: JobInfo) -> bool:
        for tier in self.hooks("job_starving"):
            if tier:
                return all(fn(job) for fn in tier)
        return False

    def job_enqueueable(self, job: JobInfo) -> bool:
        return _tier_vote(self.hooks("job_enqueueable"), job)

    def job_enqueued(self, job: JobInfo) -> None:
        for fn in self.all_hooks("job_enqueued"):
            fn(job)

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        return all(fn(queue, task) for fn in self.all_hooks("allocatable"))

    def overused(self, queue: QueueInfo) -> bool:
        return any(fn(queue) for fn in self.all_hooks("overused"))

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        return all(fn(queue, tasks) for fn in self.all_hooks("preemptive"))

    def predicate(self, task: TaskInfo, node: NodeInfo) -> str | None:
        for fn in self.all_hooks("predicate"):
            problem = fn(task, node)
            if problem:
                return str(problem)
        return None

    def node_score(self, task: TaskInfo, node: NodeInfo) -> float:
        """VC-SCORE-5 ``util.PrioritizeNodes``: the plugins' per-node scores (``NodeOrderFn``) added in float64
        in configuration order, then their batch scores (``BatchNodeOrderFn``), as Go adds them."""
        order = 0.0
        for fn in self.all_hooks("node_order"):
            order += fn(task, node)
        batch = 0.0
        for fn in self.all_hooks("batch_node_order"):
            batch += fn(task, node)
        return 0.0 + order + batch

    def node_raw(self, task: TaskInfo, node: NodeInfo) -> tuple[int, ...]:
        """The raw values of the batch scores normalised over the nodes scored together (VC-SCORE-6/7), one
        tuple for every such hook; fixed for a task shape and a node within a session."""
        raw: tuple[int, ...] = ()
        for scorer in self.all_hooks("normalized_node_order"):
            raw += scorer(task, node)
        return raw

    def normalized_score(self, raw: tuple[int, ...], highest: tuple[int, ...]) -> int:
        """The normalised scores of one node, given the highest raw values among the nodes scored with it."""
        total = offset = 0
        for hook in self.all_hooks("normalized_node_order"):
            scorer = cast(NormalizedScore, hook)
            end = offset + scorer.width
            total += scorer.score(raw[offset:end], highest[offset:end])
            offset = end
        return total

    def scored_nodes(self, task: TaskInfo, nodes: list[NodeInfo]) -> list[tuple[float, NodeInfo]]:
        """VC-SCORE-5 ``util.PrioritizeNodes`` over one candidate list: each node's own scores plus the scores
        normalised over the list."""
        raws = [self.node_raw(task, node) for node in nodes]
        highest = highest_raw(raws)
        return [(self.node_score(task, node) + self.normalized_score(raw, highest), node)
                for node, raw in zip(nodes, raws, strict=True)]

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        """``Reclaimable``: the reclaim action's victims (see :func:`_victims`)."""
        return _victims(self.hooks("reclaimable"), reclaimer, reclaimees)

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
        """``Preemptable``: the preempt action's victims (see :func:`_victims`)."""
        return _victims(self.hooks("preemptable"), preemptor, preemptees)


class NormalizedScore(Protocol):
    """A ``normalized_node_order`` hook: called with (task, node) it gives the node's raw values (``width`` of
    them); ``score`` turns them into the node's weighted score given the highest over the nodes scored together."""

    width: int

    def __call__(self, task: TaskInfo, node: NodeInfo) -> tuple[int, ...]: ...

    def score(self, raw: Sequence[int], highest: Sequence[int]) -> int: ...


def highest_raw(raws: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    """The highest of each raw value over the nodes scored together (DefaultNormalizeScore's maxCount)."""
    highest: tuple[int, ...] = ()
    for raw in raws:
        highest = raw if not highest else tuple(max(a, b) for a, b in zip(highest, raw, strict=True))
    return highest


def _victims(tiers: list[list[Callable[..., Any]]], evictor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
    """VC-VICTIMS-1: tier by tier, the voters' victims intersect; a voter with none ends the tier undecided; the
    first tier that decided wins. As in Go, an empty intersection is no decision either (a nil slice), so the
    next voter of the tier starts afresh."""
    victims: list[TaskInfo] | None = None
    for tier in tiers:
        for fn in tier:
            chosen, vote = fn(evictor, candidates)
            if vote == ABSTAIN:
                continue
            if not chosen:
                victims = None
                break
            if victims is None:
                victims = list(chosen)
            else:
                keep = {id(c) for c in chosen}
                victims = [v for v in victims if id(v) in keep] or None
        if victims is not None:
            return victims
    return []


def _tier_vote(tiers: list[list[Callable[..., Any]]], job: JobInfo) -> bool:
    """``JobEnqueueable``/``JobPipelined``: a Reject ends with false; a tier with a Permit ends with true."""
    for tier in tiers:
        permitted = False
        for fn in tier:
            vote = fn(job)
            if vote < 0:
                return False
            if vote > 0:
                permitted = True
        if permitted:
            return True
    return True


def _compare_task(left: TaskInfo, right: TaskInfo) -> bool:
    """``helpers.CompareTask``: by pod index, then creation time, then UID."""
    if left.index is not None and right.index is not None and left.index != right.index:
        return left.index < right.index
    l_created, r_created = creation_key(left.pod.creation), creation_key(right.pod.creation)
    if l_created == r_created:
        return (left.pod.uid or left.key) < (right.pod.uid or right.key)
    return l_created < r_created


def fits_node(task: TaskInfo, node: NodeInfo) -> list[str]:
    """The allocate action's resource predicate: the task's request within the node's future idle (pods too)."""
    return less_equal_with_names(task.request, node.future_idle(), "zero")


def fits_idle(task: TaskInfo, node: NodeInfo) -> bool:
    return less_equal(task.request, node.idle, "zero")


def validate_victims(task: TaskInfo, node: NodeInfo, victims: list[TaskInfo]) -> bool:
    """``util.ValidateVictims``: the node's future idle plus every victim must hold the task; no victim at all
    is fine when the task fits as it is."""
    room = node.future_idle()
    for victim in victims:
        room.add(victim.request)
    return less_equal(task.request, room, "zero")
