"""Sessions until nothing changes: what Volcano binds, evicts and leaves pending, and why.

Between sessions the world moves on at once: a bound pod runs on its node, an evicted pod is gone and comes
back pending (as its job controller re-creates it), a PodGroup takes the phase the session gave it. The run
stops at a steady state (a session that binds, evicts and changes nothing), after ``--cycles`` sessions, or
at a livelock (a state seen before: the same pods evicted and bound over and over).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.queue_attr import QueueAttr
from kqctl.volcano.engine.session import SessionResult, World, build_cache, run_cached, run_session, settle

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


@dataclass(frozen=True)
class Livelock:
    sessions: tuple[int, int]  # the state after the second equals the state after the first
    pods: tuple[str, ...]  # the pods evicted in between


@dataclass(frozen=True)
class SimulationResult:
    snapshot: Snapshot
    sessions: int
    stop_reason: str
    world: World
    start_phases: dict[str, str]
    binds: list[tuple[int, str, str]]  # (session, pod, node)
    evictions: list[Eviction]
    last: SessionResult  # the last session's decisions (quota attributes, reasons, gang conditions)
    livelock: Livelock | None = None
    notes: list[str] = field(default_factory=list)

    def quota(self) -> dict[str, QueueAttr]:
        return self.last.quota


def initial_world(snapshot: Snapshot) -> World:
    return World({pod.key: pod for pod in snapshot.pods},
                 {key: group.phase for key, group in snapshot.pod_groups.items()})


def simulate(snapshot: Snapshot, options: SimulationOptions | None = None) -> SimulationResult:
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
    cache = build_cache(snapshot, world)
    while session < limit:
        session += 1
        result = run_cached(snapshot, cache)
        settle(cache, result)
        changed = _advance(world, result, session, binds, evictions)
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
    return SimulationResult(snapshot, session, stop, world, start_phases, binds, evictions, result, livelock)


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
        world.pods[pod_key] = replace(world.pods[pod_key], node_name="", phase="Pending", deleting=False)
        evictions.append(Eviction(session, pod_key, by))
        changed = True
    for pod_key, node in result.pipelined:
        if world.nominated.get(pod_key) != node:
            world.nominated[pod_key] = node
            changed = True
    for key, phase in result.phases.items():
        if world.phases.get(key) != phase:
            world.phases[key] = phase
            changed = True
    return changed


def _fingerprint(world: World) -> Any:
    return (frozenset((k, p.node_name) for k, p in world.pods.items() if p.node_name),
            frozenset(world.phases.items()))


@dataclass(frozen=True)
class GroupOutcome:
    """One PodGroup at the end: its phase, where its pods are, what was bound and evicted, and why it waits."""

    key: str
    queue: str
    phase: str
    start_phase: str
    min_member: int
    pods: dict[str, str]  # pod -> node ("" while pending)
    bound: dict[str, str]  # pods bound by the simulation -> node
    evicted: tuple[Eviction, ...]
    reason: tuple[str, str] | None  # (gate, message) when it is not running
    ignored: bool  # its queue does not exist: the scheduler ignores it


def group_outcomes(result: SimulationResult) -> dict[str, GroupOutcome]:
    snapshot, world = result.snapshot, result.world
    pods_of: dict[str, dict[str, str]] = {}
    for pod in world.pods.values():
        if pod.group:
            pods_of.setdefault(f"{pod.namespace}/{pod.group}", {})[pod.key] = pod.node_name
    bound: dict[str, dict[str, str]] = {}
    for _, pod_key, node in result.binds:
        pod = world.pods[pod_key]
        if world.pods[pod_key].node_name:
            bound.setdefault(f"{pod.namespace}/{pod.group}", {})[pod_key] = node
    evicted: dict[str, list[Eviction]] = {}
    for eviction in result.evictions:
        pod = world.pods[eviction.pod]
        evicted.setdefault(f"{pod.namespace}/{pod.group}", []).append(eviction)
    outcomes = {}
    for key, group in sorted(snapshot.pod_groups.items()):
        ignored = group.queue not in snapshot.queues
        phase = world.phases.get(key, group.phase)
        reason = None
        if ignored:
            reason = ("queue-missing", f"The Queue <{group.queue}> of Job <{key}> does not exist, ignore it.")
        elif phase not in ("Running", "Completed") or any(not node for node in pods_of.get(key, {}).values()):
            reason = result.last.reasons.get(key)
            gang = result.last.gang.get(key)
            if gang is not None and (reason is None or reason[0] in ("no-node", "gang")):
                reason = ("gang", gang)
        outcomes[key] = GroupOutcome(key, group.queue, phase, result.start_phases.get(key, group.phase),
                                     group.min_member, dict(sorted(pods_of.get(key, {}).items())),
                                     dict(sorted(bound.get(key, {}).items())), tuple(evicted.get(key, ())),
                                     reason, ignored)
    return outcomes
