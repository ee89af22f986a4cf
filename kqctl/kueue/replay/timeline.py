"""Kueue's engine in virtual time: the :class:`kqctl.replay.protocol.Scheduler` for Kueue.

The cycles are Kueue's own (``cycle.Scheduler.run_cycle``: heads, nomination, ordering, admission,
preemption, requeueing, rules CYC-3..CYC-13) on the engine's quota cache and queues; this module
adds what happens between cycles in a real cluster, as Kueue's controllers do it:

* SIM-R1 arrivals: a workload joins its LocalQueue's ClusterQueue at its creation time (Kueue's
  ``PushOrUpdate``; a shape remembered by an equivalence bulk move goes straight to the
  inadmissible set, CYC-12);
* SIM-R2 admissions hold quota from their cycle on (CYC-9); the workload runs once the admission
  is written (:mod:`kqctl.kueue.replay.throughput`);
* SIM-R3 completions release the quota at once (Kueue's cache drops a finished workload) and ask
  for a requeue of the ClusterQueue's cohort tree (CYC-14);
* SIM-R4 preemptions: a victim is marked evicted in its cycle and keeps its quota until its eviction
  is written; then it releases the quota, goes back to its queue with its creation time and no
  back-off (CYC-16, CYC-17: preempted workloads have none) and asks for a requeue (CYC-14);
* SIM-R5 requeues are batched per root cohort (or cohort-less ClusterQueue) for one second, as
  Kueue's inadmissible-workload requeuer does (``requeueBatchPeriod``);
* SIM-R6 back-off: a pending workload whose ``status.requeueState.requeueAt`` is in the future waits
  in the inadmissible set until then, and is then pushed to its heap (CYC-17);
* SIM-R7 the scheduler's own loop: a cycle runs when something changed and the scheduler is free;
  a cycle without an admission is followed by Kueue's back-off (1 ms doubling to 10 ms).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial

from kqctl.k8s.selectors import namespace_labels, selector_matches
from kqctl.kueue.api.models import LocalQueue, Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState
from kqctl.kueue.engine.cycle import NOT_NOMINATED, PREEMPTION_GATED_STATUS, SKIPPED, CycleResult
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.queues import PendingQueue
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.simulation import DEFAULT_NOW, Simulation, SimulationOptions, set_up_alike
from kqctl.kueue.engine.workloads import (
    FlavorResource,
    WorkloadInfo,
    WorkloadMemo,
    build_workload_info,
)
from kqctl.kueue.replay.runtimes import RuntimeSource, declared_runtime
from kqctl.kueue.replay.throughput import MICROS_PER_MS, Throughput, TokenBucket
from kqctl.replay.arrival_draws import ArrivalDraw, shifts
from kqctl.replay.durations import Distribution
from kqctl.replay.protocol import Arrival, CycleReport, Reporter, Running, UsageTrack, WorkloadLabels
from kqctl.replay.statistics import StepSeries

CLASS_LABEL = "kueue.x-k8s.io/performance-scheduler-class"
REQUEUE_BATCH_MS = 1000  # SIM-R5: Kueue's requeueBatchPeriod
BACKOFF_MS = (1, 2, 4, 8, 10)  # SIM-R7: Kueue's scheduler back-off after a cycle without admission
_STATUS_PATCHED = (NOT_NOMINATED, SKIPPED, PREEMPTION_GATED_STATUS)  # requeueAndUpdate patches these

# Timer tokens: (kind, key, epoch).
LANDED, RELEASED, REQUEUE, BACKOFF_OVER = "landed", "released", "requeue", "backoff"

PENDING, INADMISSIBLE, NOT_QUEUED, RESERVED = "Pending", "Inadmissible", "NotQueued", "QuotaReserved"


@dataclass(frozen=True)
class TimelineOptions:
    gates: FeatureGates = field(default_factory=FeatureGates)
    fair_sharing: bool | None = None
    throughput: Throughput = field(default_factory=Throughput)
    runtime: Distribution | None = None
    seed: int = 0
    # Every workload of the snapshot is queued at the start, whatever its creation time (explain's estimate:
    # the snapshot is "now", as simulate reads it).
    all_present: bool = False
    # --arrivals: the arrivals' times drawn from ``seed`` (None: as the snapshot and the trace date them).
    arrivals: ArrivalDraw | None = None
    # Pod sets and shapes already worked out by simulations of the same workload models (explain's, before its wait
    # estimate); None: worked out here.
    memo: WorkloadMemo | None = field(default=None, compare=False, repr=False)
    # Quota held over time, per ClusterQueue and cohort (the report's usage and charts); explain's wait estimate reads
    # none of it and turns it off (on 50,000 workloads every admission and release writes to its steps).
    track_usage: bool = True
    # The engine's set-up of the same snapshot under the same options, never run (explain's steady-state run, as the
    # copy replaying for its wait estimate inherits it): taken instead of setting up 50,000 workloads again, when it
    # is that (simulation.set_up_alike).
    prebuilt: Simulation | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Eviction:
    """One preemption as the replay saw it (for reports): when, by whom, why."""

    at: int
    victim: str
    preemptor: str
    reason: str


@dataclass
class _Usage:
    """Quota held (reserved) and quota of running workloads (admitted) of one node, per flavor/resource."""

    reserved: dict[FlavorResource, StepSeries] = field(default_factory=dict)
    admitted: dict[FlavorResource, StepSeries] = field(default_factory=dict)

    def change(self, kind: str, at: int, usage: dict[FlavorResource, int], sign: int) -> None:
        series = self.reserved if kind == "reserved" else self.admitted
        for fr, value in usage.items():
            track = series.get(fr)
            if track is None:
                track = series[fr] = StepSeries(0)
            track.set(at, track.values[-1] + sign * value)


class KueueTimeline:
    """Kueue's cache, queues and scheduler, driven through virtual time by :mod:`kqctl.replay.run`."""

    def __init__(self, snapshot: Snapshot, options: TimelineOptions | None = None) -> None:
        self.options = options or TimelineOptions()
        self.start: datetime = snapshot.now or DEFAULT_NOW
        # The last ms a cycle can be dated at (a day short of datetime's end, year 9999).
        self.horizon = max(0, self._ms(datetime.max.replace(tzinfo=self.start.tzinfo) - timedelta(days=1)))
        self.arrivals_drawn = 0
        if self.options.arrivals is not None:
            snapshot = self._drawn_arrivals(snapshot, self.options.arrivals)
        self.snapshot = snapshot
        self.models = {w.key: w for w in snapshot.workloads}
        present = [w for w in snapshot.workloads if not self._future(w)]
        self.sim = self._simulation(replace(snapshot, workloads=present, now=self.start),
                                    SimulationOptions(fair_sharing=self.options.fair_sharing, gates=self.options.gates,
                                                      now=self.start, memo=self.options.memo))
        self.cache = self.sim.cache
        self.queues = self.sim.queues
        self.infos: dict[str, WorkloadInfo] = {k: o.workload for k, o in self.sim.outcomes.items()}
        self.not_queued: dict[str, str] = {k: o.queue_message or "" for k, o in self.sim.outcomes.items()
                                           if o.queue_reason}
        self.bucket = TokenBucket(self.options.throughput.qps, self.options.throughput.burst)
        self.runtimes = RuntimeSource(self.options.runtime, self.options.seed)
        self.held: dict[str, _Usage] = {}
        self.landed: set[str] = set()
        self.evicting: set[str] = set()
        self.epochs: dict[str, int] = {}
        self.conditions: dict[str, tuple[str, str]] = {}
        self.requeue_due: set[str] = set()
        self.evictions: list[Eviction] = []
        self.writes = 0
        # Running workloads whose creation or admission is after the start (a --now before the snapshot's own
        # dates): read as running since the start, as explain reads such a snapshot.
        self.dated_after_start = 0
        self._trees = self._tree_members()
        self._tree_queues: dict[str, list[tuple[str, PendingQueue]]] = {}
        self._namespace_memo: dict[tuple[str, str], bool] = {}
        self._holder_lists: dict[str, list[_Usage]] = {}
        self._usage_memo: dict[str, tuple[object, dict[FlavorResource, int]]] = {}
        self._schedulable = {name for name in self.queues if self._gives_heads(self.cache.cluster_queues[name])}
        # ClusterQueues that may have workloads in their active heap: has_work() looks only at these (1,000
        # ClusterQueues scanned on every event would cost more than the cycles).
        self._maybe_active: set[str] = {name for name in self._schedulable if self.queues[name].active}

    # --- set-up --------------------------------------------------------------------------------------

    def _simulation(self, snapshot: Snapshot, options: SimulationOptions) -> Simulation:
        """The engine set up for ``snapshot``: the pre-built one when it is that set-up (then it is made this one's
        own: its snapshot and options become these), else a new one."""
        prebuilt = self.options.prebuilt
        if prebuilt is None or not set_up_alike(prebuilt, snapshot, options):
            return Simulation(snapshot, options)
        prebuilt.snapshot, prebuilt.options = snapshot, options
        return prebuilt

    def _future(self, workload: Workload) -> bool:
        """Created after the start: it arrives then (a workload holding quota exists already, whatever its date)."""
        if self.options.all_present or workload.is_condition_true("QuotaReserved") \
                or workload.is_condition_true("Finished"):
            return False
        return workload.creation_timestamp is not None and workload.creation_timestamp > self.start

    def _ms(self, moment: datetime | None) -> int:
        if moment is None:
            return 0
        delta = moment - self.start
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

    def _drawn_arrivals(self, snapshot: Snapshot, draw: ArrivalDraw) -> Snapshot:
        """--arrivals: each arriving Workload created at a drawn time instead (its creation time is also its place
        in its queue, CYC-6, as a Workload created then would have)."""
        arriving = [(w.key, self._ms(w.creation_timestamp)) for w in snapshot.workloads if self._future(w)]
        moves = shifts(arriving, draw, self.options.seed)
        self.arrivals_drawn = len(moves)
        workloads = [w if w.key not in moves or w.creation_timestamp is None
                     else replace(w, creation_timestamp=w.creation_timestamp + timedelta(milliseconds=moves[w.key]))
                     for w in snapshot.workloads]
        return replace(snapshot, workloads=workloads)

    def _gives_heads(self, state: ClusterQueueState) -> bool:
        return state.active or state.inactive_reason == "CohortCycle"  # as the engine's CYC-3

    def _tree_members(self) -> dict[str, list[str]]:
        """SIM-R5: the ClusterQueues each requeue root (root cohort, or cohort-less ClusterQueue) moves."""
        trees: dict[str, list[str]] = {}
        for name, state in sorted(self.cache.cluster_queues.items()):
            trees.setdefault(self._root(state), []).append(name)
        return trees

    def _root(self, state: ClusterQueueState) -> str:
        root = self.cache.root_of(state)
        return ("cohort/" if root.is_cohort else "clusterqueue/") + root.name

    def begin(self, reporter: Reporter) -> tuple[list[Arrival], list[Running]]:
        arrivals: list[Arrival] = []
        running: list[Running] = []
        for created_ms, key, model in self._by_creation():
            info = self.infos.get(key)
            if info is not None and info.admission is not None:
                created = self._ms(model.creation_timestamp) if model.creation_timestamp is not None else None
                since = self._admitted_since(model)
                if created is not None and created > since:
                    # Admitted workloads exist now, whatever their dates say: never created after their admission
                    # (a wait below zero would mean nothing).
                    self.dated_after_start += 1
                    created = since
                runtime = self.runtimes.runtime_of(model)
                remaining = None
                if runtime is not None and declared_runtime(model) is None and since < 0:
                    remaining = runtime  # an assumed runtime of a running workload counts from the start
                running.append(Running(key, since, runtime, created, remaining))
                self.landed.add(key)
                self._change_usage(info, 0, +1, "reserved")
                self._change_usage(info, 0, +1, "admitted")
                continue
            if model.is_condition_true("Finished"):
                continue
            arrivals.append(Arrival(key, created_ms, self.runtimes.runtime_of(model)))
            if info is not None:
                self._schedule_backoff(info, reporter)
        for model in self.snapshot.workloads:
            condition = model.condition("QuotaReserved")
            if condition is not None and condition.status == "False":
                self.conditions[model.key] = (condition.reason, condition.message)
        return arrivals, running

    def _by_creation(self) -> list[tuple[int, str, Workload]]:
        """The snapshot's workloads by creation time (ms), then key, in their order where both are equal (a stable
        sort), each with both: its time and key are worked out once (50,000 workloads in explain's estimate)."""
        workloads = self.snapshot.workloads
        dated = sorted((self._ms(w.creation_timestamp), w.key, index) for index, w in enumerate(workloads))
        return [(created_ms, key, workloads[index]) for created_ms, key, index in dated]

    def _admitted_since(self, model: Workload) -> int:
        """When it was admitted (ms, <= 0: a snapshot whose clock is before its admission still holds it now)."""
        condition = model.condition("Admitted") or model.condition("QuotaReserved")
        since = self._ms(condition.last_transition_time) if condition and condition.last_transition_time else 0
        return min(since, 0)

    def _schedule_backoff(self, info: WorkloadInfo, reporter: Reporter) -> None:
        """SIM-R6 (CYC-17): a requeueAt in the future keeps the workload inadmissible until then."""
        state = info.model.requeue_state
        if state is not None and state.requeue_at is not None and state.requeue_at > self.start:
            reporter.timer(self._ms(state.requeue_at), (BACKOFF_OVER, info.key, 0))

    # --- events between cycles -----------------------------------------------------------------------

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        """SIM-R1: a workload created now joins its queue (present ones are queued already)."""
        if key not in self.infos:
            info = self._workload_info(self.models[key])
            self.infos[key] = info
            self._enqueue(info)
        info = self.infos[key]
        return info.cluster_queue is not None and key in self.queues[info.cluster_queue].active

    def _workload_info(self, model: Workload) -> WorkloadInfo:
        """As the engine builds it (REQ-5..10, CYC-16), with the pod-set arithmetic and shape shared by workloads
        written alike (the simulation's WorkloadMemo: Kueue's generator gives each class of a ClusterQueue one
        shape)."""
        return build_workload_info(model, self.sim.limits.get(model.namespace), self.snapshot.config,
                                   self.sim.derived_parts(model), self.sim.reclaimable_pods)

    def _enqueue(self, info: WorkloadInfo) -> None:
        """Kueue's queue manager: the LocalQueue's ClusterQueue, unless the LocalQueue is missing or stopped."""
        model = info.model
        local_queue = self.snapshot.local_queues.get(f"{model.namespace}/{model.queue_name}")
        if not isinstance(local_queue, LocalQueue):
            self.not_queued[info.key] = f"LocalQueue {model.queue_name} doesn't exist"
        elif local_queue.stop_policy != "None":
            self.not_queued[info.key] = f"LocalQueue {model.queue_name} is stopped"
        elif local_queue.cluster_queue not in self.queues:
            self.not_queued[info.key] = f"ClusterQueue {local_queue.cluster_queue} doesn't exist"
        elif not model.active:
            self.not_queued[info.key] = "The workload is deactivated"
        else:
            info.cluster_queue = local_queue.cluster_queue
            self.queues[local_queue.cluster_queue].push(info)
            self._pushed(info.cluster_queue)

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        """SIM-R3: a finished workload leaves the cache; its cohort tree is requeued after the batch period."""
        info = self.infos[key]
        if info.admission is None:
            return False
        self._release(info, now, reporter)
        return True

    def _release(self, info: WorkloadInfo, now: int, reporter: Reporter) -> None:
        state = self.cache.cluster_queues.get(info.admission.cluster_queue) if info.admission else None
        self._change_usage(info, now, -1, "reserved")
        if info.key in self.landed:
            self._change_usage(info, now, -1, "admitted")
        self._usage_memo.pop(info.key, None)
        self.landed.discard(info.key)
        self.cache.remove_workload(info)
        info.admission = None
        info.reservation_time = None
        info.scan_memory = None
        self.epochs[info.key] = self.epochs.get(info.key, 0) + 1
        if state is not None:
            state.generation += 1  # Kueue's deleteWorkload bumps AllocatableResourceGeneration (FA-4)
            self._ask_requeue(state, now, reporter)

    def _ask_requeue(self, state: ClusterQueueState, now: int, reporter: Reporter) -> None:
        root = self._root(state)
        if root not in self.requeue_due:
            self.requeue_due.add(root)
            reporter.timer(now + REQUEUE_BATCH_MS, (REQUEUE, root, 0))

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        assert isinstance(token, tuple)
        kind, key, epoch = token
        if kind == LANDED:
            return self._landed(key, epoch, now, reporter)
        if kind == RELEASED:
            return self._evicted(key, now, reporter)
        if kind == REQUEUE:
            return self._requeue(key)
        return self._backoff_over(key)

    def _landed(self, key: str, epoch: int, now: int, reporter: Reporter) -> bool:
        """SIM-R2: the admission is written: the workload runs from now."""
        info = self.infos[key]
        if self.epochs.get(key, 0) != epoch or info.admission is None:
            return False
        self.landed.add(key)
        self._change_usage(info, now, +1, "admitted")
        reporter.admitted(key, now)
        return False

    def _evicted(self, key: str, now: int, reporter: Reporter) -> bool:
        """SIM-R4: the eviction is written; the victim releases its quota and is pending again."""
        info = self.infos[key]
        self.evicting.discard(key)
        if info.admission is None:
            return False
        was_running = key in self.landed
        self._release(info, now, reporter)
        if was_running:
            reporter.evicted(key, now)
        self._enqueue(info)  # its LocalQueue's ClusterQueue; CYC-16: creation time kept; CYC-17: no back-off
        return True

    def _requeue(self, root: str) -> bool:
        """SIM-R5 (CYC-14): inadmissible workloads of the whole tree go back to their heaps."""
        self.requeue_due.discard(root)
        moved = 0
        tree = self._tree_queues.get(root)
        if tree is None:  # (the queues of a tree, looked up once: a busy replay requeues each tree thousands of times)
            tree = self._tree_queues[root] = [(name, self.queues[name]) for name in self._trees.get(root, [])]
        for name, queue in tree:
            if not queue.requeue_event():  # (remembered; nothing to move)
                continue
            count = queue.queue_inadmissible(partial(self._namespace_matches, cq=self.cache.cluster_queues[name]))
            if count:
                moved += count
                self._pushed(name)
        return moved > 0

    def _backoff_over(self, key: str) -> bool:
        """SIM-R6: the back-off ended; the workload controller pushes it to its heap."""
        info = self.infos[key]
        if info.admission is not None or info.cluster_queue is None:
            return False
        queue = self.queues[info.cluster_queue]
        queue.push(info)
        self._pushed(info.cluster_queue)
        return key in queue.active

    def _namespace_matches(self, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        """CYC-14: only workloads whose namespace the ClusterQueue still selects move (static here: memoized)."""
        key = (workload.namespace, cq.name)
        found = self._namespace_memo.get(key)
        if found is None:
            found = self._namespace_memo[key] = self._selects(workload, cq)
        return found

    def _selects(self, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        namespaces = self.snapshot.namespaces
        if namespaces is not None and workload.namespace not in namespaces:
            return False
        labels = dict(namespaces[workload.namespace].labels) if namespaces is not None else {}
        return selector_matches(cq.model.namespace_selector, namespace_labels(workload.namespace, labels))

    # --- the cycle -----------------------------------------------------------------------------------

    def has_work(self) -> bool:
        for name in list(self._maybe_active):
            if self.queues[name].active:
                return True
            self._maybe_active.discard(name)
        return False

    def _pushed(self, name: str | None) -> None:
        if name is not None and name in self._schedulable:
            self._maybe_active.add(name)

    def backoff(self, attempt: int) -> int:
        return BACKOFF_MS[min(attempt, len(BACKOFF_MS)) - 1]

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        result = self.sim.scheduler.run_cycle(self.start + timedelta(milliseconds=now))
        model = self.options.throughput
        if model.fixed_ms is not None:
            cpu_end = (now + model.fixed_ms) * MICROS_PER_MS
        else:
            cpu_end = now * MICROS_PER_MS + model.per_cycle_us + model.per_head_us * len(result.entries)
        busy_until = cpu_end
        for entry in result.admitted:
            self._admitted(entry.workload, now, self._write(cpu_end), reporter)
        new_victims = self._preemptions(result, now, cpu_end, reporter)
        if new_victims:
            busy_until = max(busy_until, new_victims)
        busy_until = max(busy_until, self._status_patches(result, cpu_end))
        busy = -(-busy_until // MICROS_PER_MS) - now
        return CycleReport(busy, self._progress(result, bool(new_victims)), len(result.admitted))

    def _write(self, at_us: int) -> int:
        """One API write requested at ``at_us``: when it goes out (free and at once under a fixed latency)."""
        self.writes += 1
        if self.options.throughput.fixed_ms is not None:
            return at_us
        return self.bucket.reserve(at_us)

    def _admitted(self, info: WorkloadInfo, now: int, written_us: int, reporter: Reporter) -> None:
        epoch = self.epochs.get(info.key, 0) + 1
        self.epochs[info.key] = epoch
        self.conditions.pop(info.key, None)
        self._change_usage(info, now, +1, "reserved")
        reporter.timer(-(-written_us // MICROS_PER_MS), (LANDED, info.key, epoch))

    def _preemptions(self, result: CycleResult, now: int, cpu_end: int, reporter: Reporter) -> int:
        """SIM-R4: each new victim's eviction is written during the cycle; returns when the last one went."""
        last = 0
        for eviction in result.evictions:
            victim = eviction.victim
            if victim.key in self.evicting or victim.admission is None:
                continue  # already being evicted: Kueue sends nothing new (CYC-18.3)
            self.evicting.add(victim.key)
            victim.evicted = True
            written = self._write(cpu_end)
            last = max(last, written)
            self.evictions.append(Eviction(now, victim.key, eviction.preemptor.key, eviction.reason))
            reporter.timer(-(-written // MICROS_PER_MS), (RELEASED, victim.key, 0))
        return last

    def _status_patches(self, result: CycleResult, cpu_end: int) -> int:
        """Heads not admitted get their QuotaReserved=False condition patched when it changed."""
        last = cpu_end
        for entry in result.entries:
            if entry.status not in _STATUS_PATCHED:
                continue
            condition = (entry.reason or "Pending", entry.message)
            if self.conditions.get(entry.workload.key) != condition:
                self.conditions[entry.workload.key] = condition
                last = max(last, self._write(cpu_end))
        return last

    def _progress(self, result: CycleResult, preempted: bool) -> bool:
        """Whether another cycle now could decide differently (else the loop waits for an event)."""
        if result.admitted or preempted:
            return True
        for entry in result.entries:
            queue = self.queues.get(entry.cq_name)
            if queue is not None and entry.workload.key in queue.inadmissible:
                return True  # the next head of that queue gets its turn
            memory = entry.workload.scan_memory
            if memory is not None and memory.has_pending_flavors():
                return True  # FA-4: the next cycle tries the next flavor
        return False

    # --- usage over time ------------------------------------------------------------------------------

    def _change_usage(self, info: WorkloadInfo, at: int, sign: int, kind: str) -> None:
        if info.admission is None or not self.options.track_usage:
            return
        # An admission's usage does not change while it holds quota: worked out once per admission.
        cached = self._usage_memo.get(info.key)
        if cached is None or cached[0] is not info.admission:
            cached = self._usage_memo[info.key] = (info.admission, info.usage())
        for held in self._holders(info.admission.cluster_queue):
            held.change(kind, at, cached[1], sign)

    def _holders(self, name: str) -> list[_Usage]:
        """The usage records a ClusterQueue's change goes into: its own and every cohort above it."""
        found = self._holder_lists.get(name)
        if found is None:
            found = [self.held.setdefault(name, _Usage())]
            state = self.cache.cluster_queues.get(name)
            if state is not None:
                found += [self.held.setdefault("cohort/" + a.name, _Usage()) for a in state.node.ancestors()]
            self._holder_lists[name] = found
        return found

    def usage(self) -> Sequence[UsageTrack]:
        tracks: list[UsageTrack] = []
        for name, state in sorted(self.cache.cluster_queues.items()):
            parent = state.node.parent.name if state.node.parent is not None else None
            queue_class = state.model.labels.get(CLASS_LABEL, "")
            tracks.extend(self._tracks("ClusterQueue", name, state.node, self.held.get(name), parent, queue_class))
        for name, cohort in sorted(self.cache.cohorts.items()):
            parent = cohort.node.parent.name if cohort.node.parent is not None else None
            tracks.extend(self._tracks("Cohort", name, cohort.node, self.held.get("cohort/" + name), parent, ""))
        return tracks

    def _tracks(self, kind: str, name: str, node: QuotaNode, usage: _Usage | None, parent: str | None,
                queue_class: str) -> list[UsageTrack]:
        tracks = []
        resources = sorted(set(node.subtree) | set(usage.reserved if usage else ()))
        for fr in resources:
            nominal = node.subtree.get(fr, 0)
            for which, series in (("reserved", usage.reserved if usage else {}),
                                  ("admitted", usage.admitted if usage else {})):
                points = series[fr].points() if fr in series else ((0, 0),)
                tracks.append(UsageTrack(kind, name, f"{fr[0]}/{fr[1]}", nominal, points, parent, queue_class,
                                         which))
        return tracks

    # --- what reports need ----------------------------------------------------------------------------

    def labels(self, key: str) -> WorkloadLabels:
        model = self.models[key]
        info = self.infos.get(key)
        target = ""
        if info is not None:
            target = info.admission.cluster_queue if info.admission is not None else (info.cluster_queue or "")
        if not target:
            local_queue = self.snapshot.local_queues.get(f"{model.namespace}/{model.queue_name}")
            target = local_queue.cluster_queue if local_queue is not None else ""
        priority = info.priority if info is not None else (model.priority or 0)
        return WorkloadLabels(f"{model.namespace}/{model.queue_name}", target, priority, workload_class(model))

    def state(self, key: str) -> str:
        info = self.infos.get(key)
        if info is None or key in self.not_queued:
            return NOT_QUEUED
        if info.admission is not None:
            return RESERVED
        queue = self.queues.get(info.cluster_queue or "")
        if queue is not None and key in queue.inadmissible:
            return INADMISSIBLE
        return PENDING


def workload_class(model: Workload) -> str:
    """Kueue's performance class label; else the priority class; else the priority value."""
    label = model.labels.get(CLASS_LABEL)
    if label:
        return label
    if model.priority_class_ref is not None and model.priority_class_ref.name:
        return model.priority_class_ref.name
    return f"priority-{model.priority or 0}"
