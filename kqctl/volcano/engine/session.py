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
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine import allocate, backfill, conformance, enqueue, gang, predicates, priority, reclaim
from kqctl.volcano.engine.capacity import Capacity
from kqctl.volcano.engine.drf import Drf
from kqctl.volcano.engine.framework import (
    RELEASING,
    RUNNING,
    SCHEDULED_STATUSES,
    JobInfo,
    NodeInfo,
    Plugin,
    QueueInfo,
    Session,
    TaskInfo,
)
from kqctl.volcano.engine.nodeorder import open_binpack, open_nodeorder
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
    nominated: dict[str, str] = field(default_factory=dict)  # pod -> node it was pipelined to after evictions


@dataclass
class SessionResult:
    binds: list[tuple[str, str]]  # (pod, node)
    evictions: list[tuple[str, str]]  # (pod, the task it made room for)
    pipelined: list[tuple[str, str]]  # (pod, node)
    phases: dict[str, str]
    reasons: dict[str, tuple[str, str]]  # PodGroup -> (gate, message) of the last "no"
    gang: dict[str, str]  # PodGroup -> the unschedulable condition gang writes
    quota: dict[str, QueueAttr]  # the queue plugin's attributes at the end of the session
    quota_plugin: str
    rounds: list[Any]  # proportion's water-filling rounds
    broken: str  # hierarchical capacity refused the session, and why
    trace: Trace | None


def run_session(snapshot: Snapshot, world: World, trace: Trace | None = None) -> SessionResult:
    ssn = open_session(snapshot, world, trace)
    plugins = _open_plugins(ssn, snapshot.conf)
    for action in snapshot.conf.actions:
        if action == "enqueue":
            enqueue.execute(ssn)
        elif action == "allocate":
            allocate.execute(ssn, "enqueue" in snapshot.conf.actions)
        elif action == "reclaim":
            reclaim.execute(ssn)
        elif action == "backfill":
            backfill.execute(ssn)
    return _close(ssn, plugins)


def open_session(snapshot: Snapshot, world: World, trace: Trace | None) -> Session:
    queues = {name: QueueInfo(queue) for name, queue in snapshot.queues.items()}
    jobs: dict[str, JobInfo] = {}
    for key, group in snapshot.pod_groups.items():
        if group.queue in queues:  # the scheduler ignores a PodGroup whose queue does not exist
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
                nodes[task.node].add(task.key, task.status, task.request, pod.score_request, task)
        elif pod.node_name in nodes and pod.status not in ("Succeeded", "Failed"):
            # Pods of other schedulers (or without a PodGroup) still use the node.
            nodes[pod.node_name].add(pod.key, pod.status, Resource.of(pod.request), pod.score_request, None)
    return Session(snapshot.conf, queues, jobs, nodes, trace)


@dataclass
class _Opened:
    proportion: Proportion | None = None
    capacity: Capacity | None = None


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
                Drf(ssn, plugin)
            elif option.name == "overcommit":
                Overcommit(ssn, plugin)
            elif option.name == "predicates":
                predicates.open_session(ssn, plugin)
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
    for key, job in ssn.jobs.items():
        if gang_on and job.tasks and not job.is_ready():
            job.unschedulable = True
            gang_messages[key] = gang.unready_message(job)
    phases = {key: group_phase(job) for key, job in ssn.jobs.items()}
    quota_plugin, quota, rounds, broken = "", {}, [], ""
    if opened.proportion is not None:
        quota_plugin, quota, rounds = "proportion", opened.proportion.attrs, opened.proportion.rounds
    elif opened.capacity is not None:
        quota_plugin = "capacity (hierarchical)" if opened.capacity.hierarchy else "capacity"
        quota, broken = opened.capacity.attrs, opened.capacity.broken
    return SessionResult(
        binds=[(t.key, t.node) for t in ssn.binds],
        evictions=[(t.key, t.evicted_by or "") for t, _ in ssn.evictions],
        pipelined=[(t.key, t.node) for t in ssn.pipelined if t.nominated],
        phases=phases,
        reasons={key: job.reason for key, job in ssn.jobs.items() if job.reason is not None},
        gang=gang_messages, quota=quota, quota_plugin=quota_plugin, rounds=rounds, broken=broken,
        trace=ssn.trace)


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

