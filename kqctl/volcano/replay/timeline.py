"""Volcano's scheduler in virtual time: the :class:`kqctl.replay.protocol.Scheduler` for Volcano.

The sessions are Volcano's own, exactly as simulate runs them (``session.run_cached`` then ``settle`` on one
cache kept from session to session: the configured actions and plugin tiers); this module adds what happens
between sessions in a real cluster:

* VC-R1 sessions: the scheduler opens a session every schedule period (vc-scheduler's ``--schedule-period``,
  1 s by default: ``wait.Until(runOnce, schedulePeriod)``) from the replay's start. A session that would decide
  the same as the last one (nothing arrived, finished or changed since) is not run: it would change nothing;
* VC-R2 arrivals: a PodGroup (a vcjob's, a pod's, or one written in the input) created after the start joins the
  cluster at its creation time with its pods, and is seen by the next session;
* VC-R3 a PodGroup runs from the session whose binds give it minMember scheduled pods (its phase Running), and
  its runtime counts from there; pods bound later join the running job. When its runtime ends, every pod of it
  finishes and leaves its node (the PodGroup is Completed): the resources are free for the next session;
* VC-R4 evictions (reclaim, preempt): the evicted pod is deleted. A vcjob's controller acts on PodEvicted as its
  policies say (``applyPolicies``: the task's policy, else the job's, else SyncJob): SyncJob and RestartPod make
  the pod again, pending; RestartTask (RestartJob, RestartPartition) kills and makes again the task's (the job's)
  pods, counting a retry: at ``maxRetry`` (3) the job fails; AbortJob, TerminateJob and CompleteJob kill the
  job's pods for good. A pod with another controller (an ownerReference with ``controller: true``) is made again
  by it; a bare pod is not (nothing in Kubernetes re-creates a deleted bare pod). A running PodGroup left with
  fewer than minMember scheduled pods has stopped: when it runs again its runtime starts over;
* VC-R5 a livelock (the sessions since the last arrival or completion come back to a state seen before: the
  same pods evicted and bound over and over, as simulate's livelock) stops the sessions until something arrives
  or finishes: the cluster would go on flapping without deciding anything new.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from kqctl.replay.arrival_draws import ArrivalDraw, shifts
from kqctl.replay.durations import Distribution
from kqctl.replay.protocol import Arrival, CycleReport, Reporter, Running, UsageTrack, WorkloadLabels
from kqctl.replay.report import Eviction
from kqctl.replay.runtimes import RuntimeAnnotationError, RuntimeDraws, annotated_runtime
from kqctl.replay.statistics import StepSeries
from kqctl.volcano.api.models import ROOT_QUEUE, VOLCANO_SCHEDULER, Pod, PodGroup
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import changes, queue_state
from kqctl.volcano.engine.changes import COMPLETED, DELETED  # noqa: F401 (DELETED: replay.report's)
from kqctl.volcano.engine.framework import SCHEDULED_STATUSES, JobInfo
from kqctl.volcano.engine.session import SessionResult, World, build_cache, run_cached, settle

DEFAULT_PERIOD_MS = 1000  # vc-scheduler's --schedule-period default (cmd/scheduler/app/options)
TICK = ("tick",)
RULES = ("VC-R1", "VC-R2", "VC-R3", "VC-R4", "VC-R5")
IGNORED, ABSENT, QUEUE_CLOSED = "QueueMissing", "PodGroupMissing", "QueueClosed"


class RuntimeDeclarationError(ValueError):
    """A runtime annotation that does not parse, on ``where`` (a PodGroup, vcjob or pod)."""

    def __init__(self, where: PodGroup | Pod, message: str) -> None:
        self.where = where
        kind = "PodGroup" if isinstance(where, PodGroup) else "Pod"
        super().__init__(f"{kind} {where.key}: {message}")


@dataclass(frozen=True)
class TimelineOptions:
    start: datetime
    period: int = DEFAULT_PERIOD_MS  # ms
    runtime: Distribution | None = None
    seed: int = 0
    # --arrivals: the arrivals' times drawn from ``seed`` (None: as the snapshot and the trace date them).
    arrivals: ArrivalDraw | None = None
    # Sessions visit only the jobs an action can act on (``session.run_cached``'s ``incremental``); False runs every
    # session in full (tests compare the two: the replays are the same)
    incremental: bool = True


@dataclass
class _Usage:
    """What a queue's running pods hold, per resource (Volcano's units), over time."""

    series: dict[str, StepSeries] = field(default_factory=dict)

    def change(self, at: int, request: dict[str, int], sign: int) -> None:
        for name, value in request.items():
            track = self.series.get(name)
            if track is None:
                track = self.series[name] = StepSeries(0)
            track.set(at, track.values[-1] + sign * value)


def declared_runtime(group: PodGroup, pods: Sequence[Pod]) -> int | None:
    """The PodGroup's own annotation (a vcjob's is its PodGroup's), else the longest its pods declare: the job
    ends when its last pod does."""
    try:
        own = annotated_runtime({"kqctl.dev/runtime": group.runtime} if group.runtime else {})
    except RuntimeAnnotationError as exc:
        raise RuntimeDeclarationError(group, str(exc)) from None
    if own is not None:
        return own
    found = None
    for pod in pods:
        try:
            value = annotated_runtime({"kqctl.dev/runtime": pod.runtime} if pod.runtime else {})
        except RuntimeAnnotationError as exc:
            raise RuntimeDeclarationError(pod, str(exc)) from None
        if value is not None and (found is None or value > found):
            found = value
    return found


def check_runtimes(snapshot: Snapshot) -> None:
    """Every runtime annotation parses (raises :class:`RuntimeDeclarationError` at the first that does not)."""
    for key, members in _pods_by_group(snapshot).items():
        group = snapshot.pod_groups.get(key)
        if group is not None:
            declared_runtime(group, members)


def _pods_by_group(snapshot: Snapshot) -> dict[str, list[Pod]]:
    found: dict[str, list[Pod]] = {key: [] for key in snapshot.pod_groups}
    for pod in snapshot.pods:
        if pod.group:
            found.setdefault(f"{pod.namespace}/{pod.group}", []).append(pod)
    return found


class VolcanoTimeline:
    """Volcano's sessions on one cache, driven through virtual time by :mod:`kqctl.replay.run`."""

    def __init__(self, snapshot: Snapshot, options: TimelineOptions) -> None:
        self.snapshot = snapshot
        self.options = options
        self.start = options.start
        self.period = max(1, options.period)
        self.horizon = max(0, self._ms(datetime.max.replace(tzinfo=self.start.tzinfo) - timedelta(days=1)))
        self.members = _pods_by_group(snapshot)
        self.future = {key for key, group in snapshot.pod_groups.items() if self._future(group, self.members[key])}
        self.arrivals_drawn = 0
        if options.arrivals is not None:
            snapshot = self.snapshot = self._drawn_arrivals(snapshot, options.arrivals)
            self.members = _pods_by_group(snapshot)
        present = replace(snapshot, pod_groups={k: g for k, g in snapshot.pod_groups.items() if k not in self.future},
                          pods=[p for p in snapshot.pods if self._group_key(p) not in self.future])
        world = World({pod.key: pod for pod in present.pods}, {k: g.phase for k, g in present.pod_groups.items()})
        self.cache = build_cache(present, world)
        self.runtimes = RuntimeDraws(options.runtime, options.seed)
        self.group_of = {pod.key: key for key, pods in self.members.items() for pod in pods}
        self.pod_node: dict[str, str] = {}  # bound pods of the cluster's jobs, and where
        self.phases: dict[str, str] = {}
        self.running: set[str] = set()
        self.ended: dict[str, str] = {}  # PodGroups whose pods are gone for good: why
        self.retries: dict[str, int] = {}
        self.nominated: dict[str, str] = {}
        self.held: dict[str, _Usage] = {}
        self.ancestors: dict[str, tuple[str, ...]] = {}  # queue -> the ancestors its usage adds to (root left out)
        self.evictions: list[Eviction] = []
        self.sessions = 0
        self.livelocks = 0
        self.deleted_pods = 0  # evicted bare pods: nothing makes them again
        self.dirty = True  # something changed since the last session: the next one may decide differently
        self.tick_due = False
        self.last_session: int | None = None
        self.state_hash = 0  # bound pods and phases (simulate's livelock fingerprint), kept as they change
        self.seen: set[int] = set()  # states since the last arrival or completion

    # --- set-up --------------------------------------------------------------------------------------

    def _ms(self, moment: datetime | None) -> int:
        if moment is None:
            return 0
        delta = moment - self.start
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

    def _drawn_arrivals(self, snapshot: Snapshot, draw: ArrivalDraw) -> Snapshot:
        """--arrivals: each arriving PodGroup, and its pods with it, created at a drawn time instead (its creation
        time is also its place in job order, as a PodGroup created then would have)."""
        groups = snapshot.pod_groups
        moves = shifts([(key, self._ms(groups[key].creation)) for key in self.future], draw, self.options.seed)
        self.arrivals_drawn = len(moves)

        def moved(when: datetime | None, key: str) -> datetime | None:
            return when + timedelta(milliseconds=moves[key]) if when is not None and key in moves else when

        return replace(snapshot,
                       pod_groups={key: replace(group, creation=moved(group.creation, key)) if key in moves else group
                                   for key, group in groups.items()},
                       pods=[replace(pod, creation=moved(pod.creation, self._group_key(pod)))
                             if self._group_key(pod) in moves else pod for pod in snapshot.pods])

    def _group_key(self, pod: Pod) -> str:
        return f"{pod.namespace}/{pod.group}" if pod.group else ""

    def _future(self, group: PodGroup, pods: Sequence[Pod]) -> bool:
        """Created after the start and not running: it arrives then (a PodGroup with bound pods exists already)."""
        if group.creation is None or group.creation <= self.start:
            return False
        return not any(pod.node_name for pod in pods)

    def begin(self, reporter: Reporter) -> tuple[list[Arrival], list[Running]]:
        arrivals: list[Arrival] = []
        running: list[Running] = []
        for key, present in self.cache.jobs.items():
            for task in present.tasks.values():
                if task.node and task.status in SCHEDULED_STATUSES:
                    self._bind(key, task.key, task.node, 0, present, +1)
            self._set_phase(key, present.phase)
        for key in sorted(self.snapshot.pod_groups, key=lambda k: (self._ms(self.snapshot.pod_groups[k].creation), k)):
            group = self.snapshot.pod_groups[key]
            job = self.cache.jobs.get(key)
            if group.phase == COMPLETED and not any(p.node_name for p in self.members[key]):
                continue  # finished before the replay: nothing to replay
            runtime = self.runtimes.runtime(declared_runtime(group, self.members[key]))
            if job is not None and self._gang_runs(job):
                self.running.add(key)
                running.append(Running(key, 0, runtime))  # its runtime counts from the start
                continue
            # Waiting counts from the start or the arrival, whichever is later (a snapshot's age is no wait).
            arrivals.append(Arrival(key, max(0, self._ms(group.creation)), runtime))
            if job is None and key not in self.future:
                self.ended[key] = ABSENT if group.absent else IGNORED
        self.seen.add(self.state_hash)
        return arrivals, running

    # --- events between sessions ----------------------------------------------------------------------

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        """VC-R2: a PodGroup created now joins the cluster with its pods (present ones are there already)."""
        if key in self.future:
            self.future.discard(key)
            group = self.snapshot.pod_groups[key]
            job = changes.add_group(self.cache, self.snapshot, group, self.members[key])
            if job is None:
                self.ended[key] = ABSENT if group.absent else IGNORED
                return False
            self._set_phase(key, job.phase)
            self._changed(now, reporter, external=True)
        return False

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        """VC-R3: the job's runtime ended: every pod finishes and leaves its node."""
        self.running.discard(key)
        job = changes.finish_group(self.cache, key)
        if job is not None:
            for task in job.tasks.values():
                self._unbind(key, task.key, now, job)
        self._set_phase(key, COMPLETED)
        self._changed(now, reporter, external=True)
        return False

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        """VC-R1: a schedule period has passed; a session runs if something changed."""
        self.tick_due = False
        return self.dirty

    def _changed(self, now: int, reporter: Reporter, external: bool) -> None:
        if external:
            self.seen = {self.state_hash}  # the cluster moved on: states seen before may lead elsewhere now
        self.dirty = True
        if not self.tick_due:
            self.tick_due = True
            reporter.timer(self._next_tick(now), TICK)

    def _next_tick(self, now: int) -> int:
        tick = -(-now // self.period) * self.period
        if self.last_session is not None and tick <= self.last_session:
            tick = self.last_session + self.period
        return tick

    # --- the session -----------------------------------------------------------------------------------

    def has_work(self) -> bool:
        return self.dirty

    def backoff(self, attempt: int) -> int:
        return 0  # sessions follow the schedule period, not a back-off

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        self.dirty = False
        self.last_session = now
        self.sessions += 1
        result = run_cached(self.snapshot, self.cache, quiet=True,  # a replay reads no reasons
                            incremental=self.options.incremental)
        settle(self.cache, result)
        changed = bool(result.binds or result.evictions)
        for pod_key, node in result.binds:
            key = self.group_of[pod_key]
            self._bind(key, pod_key, node, now, self.cache.jobs[key], +1)
        stopped = self._evictions(result, now)
        changed |= self._nominations(result)
        for key, phase in result.phases.items():
            if key not in self.ended:
                changed |= self._set_phase(key, phase)
        started = 0
        for key in {self.group_of[pod] for pod, _ in result.binds}:
            job = self.cache.jobs.get(key)
            if key not in self.running and job is not None and self._gang_runs(job):
                self.running.add(key)
                reporter.admitted(key, now)
                started += 1
        for key in stopped:
            if key in self.running and (key in self.ended or not self._gang_runs(self.cache.jobs[key])):
                self.running.discard(key)
                reporter.evicted(key, now)
        if changed:
            if self.state_hash in self.seen:
                self.livelocks += 1  # VC-R5: back to a state seen since the last arrival or completion
            else:
                self.seen.add(self.state_hash)
                self._changed(now, reporter, external=False)
        return CycleReport(0, False, started)

    def _gang_runs(self, job: JobInfo) -> bool:
        """VC-R3: minMember pods scheduled (getPodGroupPhase's Running); at least one for a minMember of 0."""
        return job.count(*SCHEDULED_STATUSES) >= max(1, job.min_available)

    def _nominations(self, result: SessionResult) -> bool:
        """The nominatedNodeName the session wrote (VC-NOMINATE-1): a change simulate's steady state counts too."""
        changed = False
        for pod_key, node in result.nominated:
            if self.nominated.get(pod_key) != node:
                self.nominated[pod_key] = node
                changed = True
        return changed

    # --- evictions and the controllers ------------------------------------------------------------------

    def _evictions(self, result: SessionResult, now: int) -> set[str]:
        """VC-R4: each evicted pod leaves its node; its controller decides what comes back. Returns the PodGroups
        that lost pods."""
        by_group: dict[str, list[tuple[str, str]]] = {}
        for pod_key, by in result.evictions:
            key = self.group_of[pod_key]
            job = self.cache.jobs[key]
            self._unbind(key, pod_key, now, job)
            self.nominated.pop(pod_key, None)  # the re-created pod has no status yet
            by_group.setdefault(key, []).append((pod_key, by))
        for key, evicted in by_group.items():
            outcome = self._controller(key, [pod for pod, _ in evicted], now)
            self.evictions.extend(Eviction(now, key, pod, by, outcome) for pod, by in evicted)
        return set(by_group)

    def _controller(self, key: str, pods: list[str], now: int) -> str:
        job = self.cache.jobs[key]
        decided = changes.after_eviction(self.snapshot, job, pods, self.retries.get(key, 0))
        if decided.retry:
            self.retries[key] = self.retries.get(key, 0) + 1
        self.deleted_pods += len(decided.deleted)
        for target in decided.restarted:
            self._unbind(key, target, now, job)
        if decided.ended:
            for task in job.tasks.values():
                self._unbind(key, task.key, now, job)
        changes.apply_after_eviction(self.cache, job, decided)
        if decided.ended:
            self.ended[key] = decided.ended
            self._set_phase(key, decided.ended)
        return decided.outcome

    # --- state: where pods are, phases, usage ----------------------------------------------------------

    def _bind(self, key: str, pod_key: str, node: str, at: int, job: JobInfo, sign: int) -> None:
        self.pod_node[pod_key] = node
        self.state_hash ^= hash((pod_key, node))
        self._held_by(job.queue, at, dict(job.tasks[pod_key].pod.request), sign)

    def _unbind(self, key: str, pod_key: str, at: int, job: JobInfo) -> None:
        node = self.pod_node.pop(pod_key, None)
        if node is None:
            return
        self.state_hash ^= hash((pod_key, node))
        self._held_by(job.queue, at, dict(job.tasks[pod_key].pod.request), -1)

    def _held_by(self, queue: str, at: int, request: dict[str, int], sign: int) -> None:
        """The queue holds the pod's request; under hierarchical capacity so does every ancestor below root (a
        leaf's usage is added to each, as simulate's queue report has it: ``buildHierarchicalQueueAttrs``)."""
        for name in (queue, *self._ancestors(queue)):
            self._usage(name).change(at, request, sign)

    def _ancestors(self, queue: str) -> tuple[str, ...]:
        found = self.ancestors.get(queue)
        if found is None:
            chain: list[str] = []
            if self.snapshot.conf.capacity_hierarchy:
                current = self.snapshot.queues.get(queue)
                while current is not None and current.parent_name and current.parent_name != ROOT_QUEUE \
                        and current.parent_name not in chain and current.parent_name != queue:
                    chain.append(current.parent_name)
                    current = self.snapshot.queues.get(current.parent_name)
            found = self.ancestors[queue] = tuple(chain)
        return found

    def _set_phase(self, key: str, phase: str) -> bool:
        old = self.phases.get(key)
        if old == phase:
            return False
        if old is not None:
            self.state_hash ^= hash(("phase", key, old))
        self.state_hash ^= hash(("phase", key, phase))
        self.phases[key] = phase
        return True

    def _usage(self, queue: str) -> _Usage:
        found = self.held.get(queue)
        if found is None:
            found = self.held[queue] = _Usage()
        return found

    def usage(self) -> Sequence[UsageTrack]:
        tracks = []
        # A queue without deserved (proportion's usual queue: its deserved share is worked out each session) can at
        # most get its capability, or else the cluster: tables and charts measure its usage against that.
        cluster = self._cluster_total()
        for name, queue in sorted(self.snapshot.queues.items()):
            held = self.held.get(name)
            deserved = dict(queue.deserved or {})
            capability = dict(queue.capability or {})
            resources = sorted((set(held.series) if held else set()) | set(deserved))
            for resource in resources:
                if resource == "pods":
                    continue
                points = held.series[resource].points() if held and resource in held.series else ((0, 0),)
                real = min(capability.get(resource, cluster.get(resource, 0)), cluster.get(resource, 0))
                ceiling = 0 if resource in deserved else real
                tracks.append(UsageTrack("Queue", name, resource, deserved.get(resource, 0), points,
                                         queue.parent_name or None, "", "allocated", ceiling))
        return tracks

    def _cluster_total(self) -> dict[str, int]:
        """The Ready nodes' allocatable summed: the cluster the sessions see (the scheduler's cache leaves NotReady
        nodes out, as the engine's build_cache does), the ceiling of a queue without deserved."""
        total: dict[str, int] = {}
        for node in self.snapshot.nodes.values():
            if not node.ready:
                continue
            for resource, amount in node.allocatable.items():
                total[resource] = total.get(resource, 0) + amount
        return total

    # --- what reports need -----------------------------------------------------------------------------

    def labels(self, key: str) -> WorkloadLabels:
        group = self.snapshot.pod_groups[key]
        priority = self.snapshot.job_priority(group)
        return WorkloadLabels(group.queue, group.queue, priority, group.priority_class_name or f"priority-{priority}")

    def state(self, key: str) -> str:
        """A PodGroup still waiting at the end: its phase, or QueueClosed when its queue keeps it from ever running
        (VC-QUEUE-STATE-1, the engine's ``queue_state.refusal``: simulate's reason and neverFits)."""
        if key in self.ended:
            return self.ended[key]
        phase = self.phases.get(key, "Pending")
        job = self.cache.jobs.get(key)
        if job is None or phase in ("Running", COMPLETED):
            return phase
        pods = (replace(task.pod, node_name=task.node if task.status in SCHEDULED_STATUSES else "")
                for task in job.tasks.values())
        return QUEUE_CLOSED if queue_state.refusal(self.snapshot, self.snapshot.pod_groups[key], phase, pods) else phase

    # --- the end state, as simulate reports it (tests compare the two) ------------------------------------

    def placements(self) -> dict[str, str]:
        """Every pod of the cluster's PodGroups and its node ("" while pending)."""
        found = {}
        for job in self.cache.jobs.values():
            for task in job.tasks.values():
                found[task.key] = task.node if task.pod.scheduler_name == VOLCANO_SCHEDULER else ""
        return found
