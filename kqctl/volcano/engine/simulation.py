"""Sessions until nothing changes: what Volcano binds, evicts and leaves pending, and why.

Between sessions the world moves on at once: a bound pod runs on its node, an evicted pod is gone and comes
back pending (as its job controller re-creates it), a PodGroup takes the phase the session gave it. The run
stops at a steady state (a session that binds, evicts and changes nothing), after ``--cycles`` sessions, or
at a livelock (a state seen before: the same pods evicted and bound over and over).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from kqctl.volcano.api.models import Pod
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import changes, trace
from kqctl.volcano.engine.drf import HdrfLevel
from kqctl.volcano.engine.inadmissible import (
    NodeKinds,
    best_effort_left_pending,
    missing_group_message,
    never_runs,
    unplaced_best_effort,
)
from kqctl.volcano.engine.report import QueueReport, queue_reports
from kqctl.volcano.engine.session import Cache, SessionResult, World, build_cache, run_cached, run_session, settle
from kqctl.volcano.engine.trace import PODGROUP_MISSING

MAX_SESSIONS = 50
STEADY = "steady state"
LIMIT = "session limit"
LIVELOCK = "livelock"
CYCLES = "cycles"


@dataclass(frozen=True)
class SimulationOptions:
    sessions: int | None = None  # exactly this many sessions; None: until a steady state
    max_sessions: int = MAX_SESSIONS


@dataclass(frozen=True)
class Eviction:
    session: int
    pod: str
    by: str  # the task it made room for
    group: str = ""  # the PodGroup of the evicted pod (namespace/name)


@dataclass(frozen=True)
class Livelock:
    sessions: tuple[int, int]  # the state after the second equals the state after the first
    pods: tuple[str, ...]  # the pods evicted in between


@dataclass(frozen=True)
class Configuration:
    """The scheduler configuration the sessions ran with, as shown: where it came from, actions, plugin tiers."""

    source: str
    actions: tuple[str, ...]
    tiers: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class GroupOutcome:
    """One PodGroup at the end: its phase, where its pods are, what was bound and evicted, and why it waits."""

    key: str
    queue: str
    phase: str
    start_phase: str
    min_member: int
    pods: Mapping[str, str]  # pod -> node ("" while pending)
    bound: Mapping[str, str]  # pods bound by the simulation -> node
    evicted: tuple[Eviction, ...]
    reason: tuple[str, str] | None  # (gate, message) when it is not running
    ignored: bool  # its queue does not exist: the scheduler ignores it
    namespace: str = ""
    labels: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    pipelined: Mapping[str, str] = field(default_factory=lambda: _frozen({}))  # pod -> node, left pipelined
    never: str = ""  # why it can never run as configured (VC-NEVER-1, engine/inadmissible.py); "" when it could
    absent: bool = False  # its pods name it but it does not exist (VC-POD-PG): the scheduler skips their job


@dataclass(frozen=True)
class SimulationResult:
    """What the sessions decided, as frozen values the engine computed: renderers, --fail-on and explain only
    read it (the engine's live state, the World and the last session's cache, stays in the engine)."""

    sessions: int
    stop_reason: str
    binds: tuple[tuple[int, str, str], ...]  # (session, pod, node)
    evictions: tuple[Eviction, ...]
    pipelined: Mapping[str, str]  # pod -> node: reserved on a node as the last session closed, not bound
    groups: Mapping[str, GroupOutcome]  # by PodGroup key, sorted
    queues: tuple[QueueReport, ...]  # every queue, by name, as the last session left it
    quota_plugin: str  # "" when no queue plugin runs
    hierarchy_broken: str  # hierarchical capacity refused the last session, and why ("" when not)
    configuration: Configuration
    phases: Mapping[str, str]  # PodGroup -> phase at the end
    reasons: Mapping[str, tuple[str, str]]  # PodGroup -> (gate, message) of the last session's last "no"
    gang: Mapping[str, str]  # PodGroup -> the unschedulable condition gang wrote in the last session
    livelock: Livelock | None = None
    hdrf: tuple[HdrfLevel, ...] = ()  # drf enableHierarchy: every level of the tree, by path, after the last session
    notes: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class FinalState:
    """The frozen result, and the engine's own state at the end (for explain's traced re-run of the last
    session): not for renderers."""

    result: SimulationResult
    world: World


def initial_world(snapshot: Snapshot) -> World:
    return World({pod.key: pod for pod in snapshot.pods},
                 {key: group.phase for key, group in snapshot.pod_groups.items()})


def simulate(snapshot: Snapshot, options: SimulationOptions | None = None) -> SimulationResult:
    return run_to_end(snapshot, options).result


def run_to_end(snapshot: Snapshot, options: SimulationOptions | None = None) -> FinalState:
    """Sessions until a steady state, --cycles, the session limit or a livelock; the frozen result."""
    options = options or SimulationOptions()
    world = initial_world(snapshot)
    start_phases = dict(world.phases)
    binds: list[tuple[int, str, str]] = []
    evictions: list[Eviction] = []
    seen: dict[Any, int] = {_fingerprint(world): 0}
    limit = options.sessions if options.sessions is not None else options.max_sessions
    result: SessionResult | None = None
    stop = LIMIT
    livelock: Livelock | None = None
    session = 0
    retries: dict[str, int] = {}
    cache = build_cache(snapshot, world)
    while session < limit:
        session += 1
        result = run_cached(snapshot, cache)
        settle(cache, result)
        changed = _advance(world, result, session, binds, evictions)
        if options.sessions is None or session < limit:
            # The controllers act between sessions (VC-R4): after the last of --cycles N, what that session left is
            # the answer, as Volcano's own session ends (an evicted pod's PodGroup keeps its phase until then).
            _controllers(snapshot, cache, world, result, retries)
        if options.sessions is None and not changed:
            stop = STEADY
            break
        fingerprint = _fingerprint(world)
        if options.sessions is None and fingerprint in seen:
            first = seen[fingerprint]
            pods = tuple(sorted({e.pod for e in evictions if e.session > first}))
            livelock = Livelock((first, session), pods)
            stop = LIVELOCK
            break
        seen[fingerprint] = session
    else:
        stop = CYCLES if options.sessions is not None else LIMIT
    if result is None:  # --cycles 0 is refused by the CLI; an empty run still reports the snapshot
        result = run_session(snapshot, world)
    return FinalState(_freeze(snapshot, world, session, stop, start_phases, binds, evictions, result, livelock),
                      world)


def _freeze(snapshot: Snapshot, world: World, sessions: int, stop: str, start_phases: Mapping[str, str],
            binds: list[tuple[int, str, str]], evictions: list[Eviction], last: SessionResult,
            livelock: Livelock | None) -> SimulationResult:
    """Everything a user is shown, read once from the engine's state at the end."""
    evicted = tuple(evictions)
    conf = snapshot.conf
    queues = tuple(queue_reports(snapshot, world, last.quota, last.quota_plugin == "capacity (hierarchical)",
                                 last.hdrf))
    capabilities = {queue.name: queue.real_capability for queue in queues}
    return SimulationResult(
        sessions=sessions, stop_reason=stop, binds=tuple(binds), evictions=evicted,
        pipelined=_frozen(dict(last.pipelined)),
        groups=_frozen(_group_outcomes(snapshot, world, start_phases, binds, evicted, last, capabilities)),
        queues=queues,
        hdrf=tuple(last.hdrf[path] for path in sorted(last.hdrf)),
        quota_plugin=last.quota_plugin, hierarchy_broken=last.broken,
        configuration=Configuration(conf.source, tuple(conf.actions),
                                    tuple(tuple(p.name for p in tier) for tier in conf.tiers)),
        phases=_frozen(dict(world.phases)), reasons=_frozen(dict(last.reasons)), gang=_frozen(dict(last.gang)),
        livelock=livelock, notes=tuple(snapshot.notes), limitations=tuple(snapshot.limitations),
        warnings=tuple(snapshot.warnings))


def _frozen(values: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(values))


def _advance(world: World, result: SessionResult, session: int, binds: list[tuple[int, str, str]],
             evictions: list[Eviction]) -> bool:
    """Apply one session's decisions; whether anything changed."""
    changed = False
    for pod_key, node in result.binds:
        world.pods[pod_key] = replace(world.pods[pod_key], node_name=node, phase="Running")
        world.nominated.pop(pod_key, None)
        binds.append((session, pod_key, node))
        changed = True
    for pod_key, by in result.evictions:
        pod = world.pods[pod_key] = replace(world.pods[pod_key], node_name="", phase="Pending", deleting=False)
        world.nominated.pop(pod_key, None)  # the re-created pod has no status yet
        evictions.append(Eviction(session, pod_key, by, f"{pod.namespace}/{pod.group}"))
        changed = True
    for pod_key, node in result.nominated:
        if world.nominated.get(pod_key) != node:
            world.nominated[pod_key] = node
            changed = True
    for key, phase in result.phases.items():
        if world.phases.get(key) != phase:
            world.phases[key] = phase
            changed = True
    return changed


def _controllers(snapshot: Snapshot, cache: Cache, world: World, result: SessionResult,
                 retries: dict[str, int]) -> None:
    """VC-R4, as replay has it: the evicted pods' controller decides what comes back (``changes.after_eviction``):
    a bare pod is deleted for good, a controller makes its pod again, a vcjob's policies may restart or end the
    job. The world and the cache follow."""
    by_group: dict[str, list[str]] = {}
    for pod_key, _ in result.evictions:
        pod = world.pods[pod_key]
        by_group.setdefault(f"{pod.namespace}/{pod.group}", []).append(pod_key)
    for key, pods in by_group.items():
        job = cache.jobs.get(key)
        if job is None:
            continue
        decided = changes.after_eviction(snapshot, job, pods, retries.get(key, 0))
        if decided.retry:
            retries[key] = retries.get(key, 0) + 1
        gone = set(decided.deleted) | (set(job.tasks) if decided.ended else set())
        for pod_key in decided.restarted:
            world.pods[pod_key] = replace(world.pods[pod_key], node_name="", phase="Pending", deleting=False)
            world.nominated.pop(pod_key, None)
        for pod_key in gone:
            world.pods.pop(pod_key, None)
            world.nominated.pop(pod_key, None)
        changes.apply_after_eviction(cache, job, decided)
        if decided.ended:
            world.ended[key] = decided.outcome
            world.phases[key] = decided.ended


def _fingerprint(world: World) -> Any:
    return (frozenset((k, p.node_name) for k, p in world.pods.items() if p.node_name),
            frozenset(world.phases.items()))


def _group_outcomes(snapshot: Snapshot, world: World, start_phases: Mapping[str, str],
                    binds: list[tuple[int, str, str]], evictions: tuple[Eviction, ...],
                    last: SessionResult, capabilities: Mapping[str, Resource]) -> dict[str, GroupOutcome]:
    pods_of: dict[str, dict[str, str]] = {}
    members: dict[str, list[Pod]] = {}
    for pod in world.pods.values():
        if pod.group:
            pods_of.setdefault(f"{pod.namespace}/{pod.group}", {})[pod.key] = pod.node_name
            members.setdefault(f"{pod.namespace}/{pod.group}", []).append(pod)
    bound: dict[str, dict[str, str]] = {}
    for _, pod_key, node in binds:
        # a pod bound in an earlier session may be gone since: evicted, and deleted by its job's policy (VC-R4)
        still = world.pods.get(pod_key)
        if still is not None and still.node_name:
            bound.setdefault(f"{still.namespace}/{still.group}", {})[pod_key] = node
    pipelined: dict[str, dict[str, str]] = {}
    for pod_key, node in last.pipelined:
        still = world.pods.get(pod_key)
        if still is not None:
            pipelined.setdefault(f"{still.namespace}/{still.group}", {})[pod_key] = node
    evicted: dict[str, list[Eviction]] = {}
    for eviction in evictions:
        evicted.setdefault(eviction.group, []).append(eviction)
    outcomes = {}
    kinds = NodeKinds(snapshot)
    for key, group in sorted(snapshot.pod_groups.items()):
        ignored = group.queue not in snapshot.queues
        phase = world.phases.get(key, group.phase)
        reason = None
        if group.absent:
            reason = (PODGROUP_MISSING, missing_group_message(key))
        elif key in world.ended:
            reason = ("evicted", f"its pods were evicted and are gone ({world.ended[key]})")
        elif ignored:
            reason = ("queue-missing", f"The Queue <{group.queue}> of Job <{key}> does not exist, ignore it.")
        elif phase not in ("Running", "Completed") or any(not node for node in pods_of.get(key, {}).values()):
            reason = last.reasons.get(key)
            gang = last.gang.get(key)
            if gang is not None and (reason is None or reason[0] in ("no-node", "gang")):
                reason = ("gang", gang)
        running = not ignored and phase in ("Running", "Completed")
        pods = sorted(members.get(key, ()), key=lambda p: p.key)
        if running and reason is None:
            left = unplaced_best_effort(snapshot, pods)
            if left:  # VC-BACKFILL-1: the gang runs without them, and nothing will place them
                reason = (trace.BACKFILL, best_effort_left_pending(snapshot, left))
        never = "" if running or key in world.ended else never_runs(
            snapshot, group, ignored, reason, capabilities.get(group.queue), pods, kinds, phase)
        outcomes[key] = GroupOutcome(key, group.queue, phase, start_phases.get(key, group.phase),
                                     group.min_member, _frozen(dict(sorted(pods_of.get(key, {}).items()))),
                                     _frozen(dict(sorted(bound.get(key, {}).items()))), tuple(evicted.get(key, ())),
                                     reason, ignored, group.namespace, _frozen(dict(group.labels)),
                                     _frozen(dict(pipelined.get(key, {}))), never, group.absent)
    return outcomes
