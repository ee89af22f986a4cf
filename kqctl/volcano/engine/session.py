"""Open, run and close one session: the snapshot's state, the configured plugins, the configured actions.

``OpenSession`` builds the jobs (PodGroups whose queue exists), their tasks, the Ready nodes and the usage of
every pod on them; each configured plugin kqctl models registers its hooks in tier order; the actions run in
the configured order; ``CloseSession`` marks jobs gang left unready and computes each PodGroup's phase
(``getPodGroupPhase``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kqctl.volcano.api.config import SchedulerConf
from kqctl.volcano.api.models import VOLCANO_SCHEDULER, Pod
from kqctl.volcano.engine import (
    allocate,
    backfill,
    conformance,
    enqueue,
    gang,
    predicates,
    preempt,
    priority,
    reclaim,
)
from kqctl.volcano.engine.capacity import Capacity
from kqctl.volcano.engine.drf import Drf, HdrfLevel
from kqctl.volcano.engine.framework import (
    ALLOCATED,
    BINDING,
    PENDING,
    PIPELINED,
    RELEASING,
    RUNNING,
    SCHEDULED_STATUSES,
    JobInfo,
    NodeInfo,
    Plugin,
    QueueInfo,
    Session,
    TaskInfo,
    request_of,
)
from kqctl.volcano.engine.ledger import JobLedger, NodeLedger
from kqctl.volcano.engine.nodeorder import follow_scored_pods, open_binpack, open_nodeorder
from kqctl.volcano.engine.overcommit import Overcommit
from kqctl.volcano.engine.proportion import Proportion
from kqctl.volcano.engine.queue_attr import QueueAttr
from kqctl.volcano.engine.trace import Trace

if TYPE_CHECKING:
    from kqctl.volcano.api.snapshot import Snapshot


@dataclass
class World:
    """What changes from session to session: where each pod is, and each PodGroup's phase."""

    pods: dict[str, Pod]
    phases: dict[str, str]
    nominated: dict[str, str] = field(default_factory=dict)  # pod -> its status.nominatedNodeName
    # PodGroups whose pods are gone for good after evictions (changes.after_eviction): what their controller did
    ended: dict[str, str] = field(default_factory=dict)


@dataclass
class SessionResult:
    binds: list[tuple[str, str]]  # (pod, node)
    evictions: list[tuple[str, str]]  # (pod, the task it made room for)
    pipelined: list[tuple[str, str]]  # (pod, node): tasks pipelined when the session closed, not bound
    nominated: list[tuple[str, str]]  # (pod, node): nominatedNodeName written as the session closed
    nominated_tasks: dict[str, TaskInfo]  # those tasks, for the cache
    phases: dict[str, str]
    reasons: dict[str, tuple[str, str]]  # PodGroup -> (gate, message) of the last "no"
    gang: dict[str, str]  # PodGroup -> the unschedulable condition gang writes
    quota: dict[str, QueueAttr]  # the queue plugin's attributes at the end of the session
    quota_plugin: str
    rounds: list[Any]  # proportion's water-filling rounds
    broken: str  # hierarchical capacity refused the session, and why
    trace: Trace | None
    hdrf: dict[str, HdrfLevel] = field(default_factory=dict)  # drf enableHierarchy: the tree's levels by path


@dataclass
class Cache:
    """The scheduler's cache between sessions: queues, jobs with their tasks, and nodes with their usage.

    A session changes it in place; :func:`settle` then moves it to where the cluster is when the next session
    opens (bound tasks run, evicted ones are re-created pending, what was only tried is undone), so later
    sessions need not rebuild 50,000 tasks.
    """

    queues: dict[str, QueueInfo]
    jobs: dict[str, JobInfo]
    nodes: dict[str, NodeInfo]
    node_chooser: Any = None  # the last session's nodes.NodeChooser: the next one judges only the nodes that changed
    # What opening a session sums over every node and every job, kept up to date (ledger.py)
    node_sums: NodeLedger | None = None
    job_sums: JobLedger | None = None
    # job key -> a number that grows with the order jobs joined ``jobs`` in (a dict keeps that order): settle takes the
    # few jobs a session changed in this order without going through all of them (``in_order``)
    joined: dict[str, int] = field(default_factory=dict)

    def join(self, job: JobInfo) -> None:
        """A job joins the cache (at the end of ``jobs``, as a new key does)."""
        if job.key not in self.jobs:
            self.joined[job.key] = len(self.joined)
        self.jobs[job.key] = job

    def in_order(self, keys: set[str]) -> list[JobInfo]:
        """The jobs of these keys, in the cache's order."""
        jobs, joined = self.jobs, self.joined
        found = [key for key in keys if key in jobs]
        if 4 * len(found) > len(jobs) or any(key not in joined for key in found):
            return [job for job in jobs.values() if job.key in keys]
        found.sort(key=joined.__getitem__)
        return [jobs[key] for key in found]

    def node_ledger(self) -> NodeLedger:
        if self.node_sums is None or self.node_sums.nodes is not self.nodes:
            self.node_sums = NodeLedger(self.nodes)
        return self.node_sums

    def job_ledger(self) -> JobLedger:
        if self.job_sums is None or self.job_sums.jobs is not self.jobs:
            self.job_sums = JobLedger(self.jobs)
        return self.job_sums


def run_session(snapshot: Snapshot, world: World, trace: Trace | None = None) -> SessionResult:
    """One session from the world as it is (builds the cache; see :func:`run_cached` to keep it)."""
    return run_cached(snapshot, build_cache(snapshot, world), trace)


def run_cached(snapshot: Snapshot, cache: Cache, trace: Trace | None = None, quiet: bool = False,
               incremental: bool = True) -> SessionResult:
    """One session on the cache. ``quiet``: the result's reasons and gang conditions are left empty (the
    decisions are the same; see ``Session.quiet``). ``incremental`` (with ``quiet``): the session visits only the
    jobs an action can act on and those changed since the last session (:func:`incremental_conf`); its result's
    ``phases`` then hold only the PodGroups whose phase may have moved. What it decides is the same."""
    fast = quiet and trace is None and incremental and incremental_conf(snapshot.conf)
    if not fast:
        for job in cache.jobs.values():
            job.reason, job.unschedulable = None, False
            job.fit_errors.clear()
    # (fast: a job's reason is never read in a quiet session, its unschedulable mark is set again for every job
    # the close visits, and its fit errors are cleared when an action takes it up.)
    ledger = cache.node_ledger()
    changed = ledger.open()
    if cache.node_chooser is not None:
        cache.node_chooser.stale |= changed  # ... and is judged again if its version moved
    ssn = Session(snapshot.conf, cache.queues, cache.jobs, cache.nodes, trace, ledger.node_list, ledger.total,
                  ledger.used.clone())
    ssn.node_chooser = cache.node_chooser
    ssn.changed_nodes = ledger.changed
    ssn.quiet = quiet and trace is None
    ssn.incremental = fast
    ssn.job_sums = cache.job_ledger()
    ssn.job_sums.open()
    plugins = _open_plugins(ssn, snapshot.conf)
    for action in snapshot.conf.actions:
        if action == "enqueue":
            enqueue.execute(ssn)
        elif action == "allocate":
            allocate.execute(ssn, "enqueue" in snapshot.conf.actions)
        elif action == "reclaim":
            reclaim.execute(ssn)
        elif action == "preempt":
            preempt.execute(ssn)
        elif action == "backfill":
            backfill.execute(ssn)
    cache.node_chooser = ssn.node_chooser
    result = _close(ssn, plugins)
    if fast:
        ssn.release()  # (the result keeps what a replay reads; simulate's and explain's sessions stay as they were)
    return result


def incremental_conf(conf: SchedulerConf) -> bool:
    """Whether sessions of this configuration may run incrementally: the queue orders read nothing the actions
    change while a queue waits in their heap, so the order queues come out in does not depend on which other
    queues are in it (proportion's share moves only for the queue being served; the capacity plugin and drf's
    hierarchy are left to the full session, which this shortcut has not been checked against)."""
    if conf.has_plugin("capacity"):
        return False
    return not any(plugin.name == "drf" and plugin.hierarchy for plugin in conf.plugins())


def build_cache(snapshot: Snapshot, world: World) -> Cache:
    queues = {name: QueueInfo(queue) for name, queue in snapshot.queues.items()}
    jobs: dict[str, JobInfo] = {}
    for key, group in snapshot.pod_groups.items():
        # the scheduler ignores a PodGroup whose queue does not exist; a job whose pods are gone has left
        if group.queue in queues and key not in world.ended:
            jobs[key] = JobInfo(group, snapshot.job_priority(group))
            jobs[key].phase = world.phases.get(key, group.phase)
    nodes = {name: NodeInfo(node) for name, node in snapshot.nodes.items() if node.ready}
    for pod in world.pods.values():
        job = jobs.get(f"{pod.namespace}/{pod.group}") if pod.group else None
        if job is not None and pod.scheduler_name == VOLCANO_SCHEDULER:
            task = TaskInfo(pod, job)
            task.nominated = world.nominated.get(pod.key, "")
            job.add_task(task)
            if task.node and task.node in nodes and task.status not in ("Succeeded", "Failed"):
                nodes[task.node].add(task.key, task.status, task.request, task)
        elif pod.node_name in nodes and pod.status not in ("Succeeded", "Failed"):
            # Pods of other schedulers (or without a PodGroup) still use the node.
            nodes[pod.node_name].add(pod.key, pod.status, request_of(pod), None, pod)
    return Cache(queues, jobs, nodes, joined={key: i for i, key in enumerate(jobs)})


def settle(cache: Cache, result: SessionResult) -> None:
    """The cache as the next session finds it: bound tasks run, evicted tasks are re-created pending (their
    controller makes them again, without a nominated node), pipelined tasks wait pending, and allocations no
    statement committed are undone; pods keep the nominated node the session wrote (VC-NOMINATE-1); each
    PodGroup has the phase the session gave it."""
    # Only a session puts tasks in these states (a pod's own status is never one, and a Releasing pod the session did
    # not evict stays): the jobs the session changed are those its cache's ledger names since it opened.
    ledger = cache.job_sums
    # (in the cache's order: it is the order tasks come back onto their nodes, which victims are looked at in)
    changed = ledger.changed if ledger is not None else None
    touched = list(cache.jobs.values()) if changed is None else cache.in_order(changed)
    for job in touched:
        for status in (BINDING, ALLOCATED, PIPELINED, RELEASING):
            for task in list(job.with_status(status)):
                _settle_task(cache, job, task)
    for key, phase in result.phases.items():
        found = cache.jobs.get(key)
        if found is not None:
            found.phase = phase
    for pod_key, node in result.nominated:
        result.nominated_tasks[pod_key].nominated = node


def _settle_task(cache: Cache, job: JobInfo, task: TaskInfo) -> None:
    node = cache.nodes.get(task.node)
    if task.status == BINDING:
        if node is not None:
            node.remove(task.key, task.status, task.request)
            node.add(task.key, RUNNING, task.request, task)
        job.update_task_status(task, RUNNING)
        return
    if task.status == RELEASING and task.evicted_by is None:
        return  # released before the simulation started: it still holds the node
    if node is not None:
        node.remove(task.key, task.status, task.request)
    if task.status == RELEASING:
        task.nominated = ""  # the re-created pod has no status yet
    job.update_task_status(task, PENDING)
    task.node, task.evicted_by = "", None


@dataclass
class _Opened:
    proportion: Proportion | None = None
    capacity: Capacity | None = None
    drf: Drf | None = None


def _open_plugins(ssn: Session, conf: SchedulerConf) -> _Opened:
    opened = _Opened()
    for tier in conf.tiers:
        plugins = []
        for option in tier:
            plugin = Plugin(option)
            plugins.append(plugin)
            if option.name == "priority":
                priority.open_session(ssn, plugin)
            elif option.name == "gang":
                gang.open_session(ssn, plugin)
            elif option.name == "conformance":
                conformance.open_session(ssn, plugin)
            elif option.name == "drf":
                drf = Drf(ssn, plugin)
                opened.drf = opened.drf or drf
            elif option.name == "overcommit":
                Overcommit(ssn, plugin)
            elif option.name == "predicates":
                predicates.open_session(ssn, plugin)
                follow_scored_pods(ssn)
            elif option.name == "proportion":
                opened.proportion = Proportion(ssn, plugin)
            elif option.name == "capacity":
                opened.capacity = Capacity(ssn, plugin)
            elif option.name == "nodeorder":
                open_nodeorder(ssn, plugin)
            elif option.name == "binpack":
                open_binpack(ssn, plugin)
        ssn.tiers.append(plugins)
    return opened


def _close(ssn: Session, opened: _Opened) -> SessionResult:
    gang_messages: dict[str, str] = {}
    gang_on = ssn.conf.has_plugin("gang")
    closing = _closing_jobs(ssn)
    for key, job in closing.items():
        job.unschedulable = gang_on and bool(job.tasks) and not job.is_ready() and not gang.releasing_fills_gang(job)
        if job.unschedulable and not ssn.quiet:
            gang_messages[key] = gang.unready_message(job)
    phases = {key: group_phase(job) for key, job in closing.items()}
    nominations = _nominations(ssn, closing)
    quota_plugin, quota, rounds, broken = "", {}, [], ""
    if opened.proportion is not None:
        quota_plugin = "proportion"
        if opened.proportion.filled:  # (an incremental session may never have needed the queues' deserved)
            quota, rounds = opened.proportion.attrs, opened.proportion.rounds
    elif opened.capacity is not None:
        quota_plugin = "capacity (hierarchical)" if opened.capacity.hierarchy else "capacity"
        quota, broken = opened.capacity.attrs, opened.capacity.broken
    return SessionResult(
        binds=[(t.key, t.node) for t in ssn.binds],
        evictions=[(t.key, t.evicted_by or "") for t, _ in ssn.evictions],
        pipelined=sorted((t.key, t.node) for job in closing.values() for t in job.with_status(PIPELINED)),
        nominated=sorted((key, node) for key, (_, node) in nominations.items()),
        nominated_tasks={key: task for key, (task, _) in nominations.items()},
        phases=phases,
        reasons={} if ssn.quiet else {key: job.reason for key, job in ssn.jobs.items() if job.reason is not None},
        gang=gang_messages, quota=quota, quota_plugin=quota_plugin, rounds=rounds, broken=broken,
        trace=ssn.trace, hdrf=opened.drf.levels() if opened.drf is not None else {})


def _closing_jobs(ssn: Session) -> dict[str, JobInfo]:
    """The jobs whose PodGroup phase the close works out: every job, or in an incremental session the jobs that
    changed since the last session closed (by key). Exact: ``getPodGroupPhase`` is a function of the
    job's tasks, its phase and gang's mark (itself a function of the tasks), and working it out again from the
    phase it gave changes nothing, so a job unchanged since its phase was last worked out keeps it; pipelined tasks
    and nominations only come from tasks a session changed (their jobs are among the changed ones). (Their order
    matters to nothing: the phases are set, the lists sorted.)"""
    changed = ssn.job_sums.closing() if ssn.job_sums is not None else None
    if not ssn.incremental or changed is None:
        return ssn.jobs
    jobs = ssn.jobs
    return {key: jobs[key] for key in sorted(changed) if key in jobs}


def _nominations(ssn: Session, closing: dict[str, JobInfo]) -> dict[str, tuple[TaskInfo, str]]:
    """VC-NOMINATE-1 (``RecordJobStatusEvent``, ``TaskSchedulingReason``): as the session closes, a task left
    allocated, pending or pipelined whose last transaction pipelined it where victims were evicted for it gets
    that node as its pod's nominatedNodeName; the last transaction is the one a discarded statement undid, if
    any. An empty nomination never overwrites an earlier one. Only a task pipelined now or undone in the
    session can have such a transaction; theirs are cleared for the next session."""
    found: dict[str, tuple[TaskInfo, str]] = {}
    candidates = [t for job in closing.values() for t in job.with_status(PIPELINED)] + ssn.undone
    for task in candidates:
        state, node, evicted = task.last_transaction or (task.status, task.node, task.eviction_occurred)
        if task.status in (ALLOCATED, PENDING, PIPELINED) and not task.pod.gated and state == PIPELINED \
                and evicted and node:
            found[task.key] = (task, node)
    for task in candidates:
        task.eviction_occurred, task.last_transaction = False, None
    return found


def group_phase(job: JobInfo) -> str:
    """``getPodGroupPhase``: Running once minMember tasks are scheduled (Completed when all scheduled ones
    finished); Unknown with running tasks while gang finds it unschedulable; else Inqueue stays Inqueue and
    everything else is Pending."""
    if job.count(RUNNING) and job.unschedulable:
        return "Unknown"
    scheduled = job.count(*SCHEDULED_STATUSES)
    completed = job.count("Succeeded", "Failed")
    scheduled += sum(1 for t in job.with_status(RELEASING) if t.node)
    if scheduled >= job.min_available:
        return "Completed" if scheduled == completed else "Running"
    if job.phase != "Inqueue":
        return "Pending"
    return job.phase

