"""YuniKorn in virtual time: the :class:`kqctl.replay.protocol.Scheduler` for YuniKorn (core and Kubernetes shim).

The cycles are the core's own (``allocation.Scheduler.cycle``: reservations first, then the queue walk, at most
one allocation, reservation or preemption each), on the partition simulate builds; this module adds what
happens between cycles in a real cluster:

* YK-R1 the core schedules whenever something changed (``internalSchedule``: a cycle right after each event or
  each cycle that did something, else every 100 ms): back to back, in no virtual time, until a cycle does
  nothing. A cycle that did nothing is not repeated until an event, or until time makes a difference to an ask:
  old enough to reserve a node (2 s, ``reservationDelay``) or to preempt (its queue's ``preemption.delay``, 30 s by
  default), or 15 s after its last preemption check (``preemptAttemptFrequency``); the core notices at its next
  100 ms poll;
* YK-R2 arrivals: the shim's scheduling loop runs every ``service.schedulingInterval`` (1 s by default, from the
  ConfigMaps). A pod created after the start is sent to the core by the loop's next run; a pod of an application
  the core does not know yet waits two more runs (New: submitted; Accepted: run; Running: tasks scheduled), as
  k8shim's ``Application.Schedule`` moves one state per run. A gang's placeholders are made at the second run
  (Accepted -> Reserving: the shim checks the placeholder timeout and creates the placeholder pods then) and sent
  at the third: their asks' age counts from the second;
* YK-R3 a pod runs from its allocation for its runtime (annotation ``kqctl.dev/runtime``, or ``--runtime``);
  then the shim releases its allocation: its node and queues get the resources back at once, and an
  application with nothing allocated or pending is Completing (no longer a running application);
* YK-R4 preemption: the victims' allocations are released in the cycle that chose them (the shim deletes the
  pods). A pod with a controller (an ownerReference with ``controller: true``: a Job's, a ReplicaSet's, ...) is
  made again by it: a new pending pod of the same application, sent by the shim's next run (the report keeps the
  first pod's name); a bare pod is not made again (nothing in Kubernetes re-creates a deleted bare pod).

Each pod is a workload of the replay loop (pods of an application run and finish on their own); reports sum them
up per application (its first pod's arrival, its first allocation, its last pod's end).
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
from kqctl.yunikorn.api.snapshot import PodInfo, Snapshot
from kqctl.yunikorn.engine import changes
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import REJECTED, Ask, Node
from kqctl.yunikorn.engine.partition import RESERVATION_DELAY, build_partition, to_ns
from kqctl.yunikorn.engine.state import (
    ALLOCATED,
    ALLOCATED_RESERVED,
    PLACEHOLDER_RELEASED,
    PREEMPTED,
    REPLACED,
    RESERVED,
    CycleResult,
)

NS_PER_MS = 1_000_000
POLL_MS = 100  # the core's idle loop: schedule() at least every 100 ms
PREEMPT_ATTEMPT_MS = 15_000  # objects.preemptAttemptFrequency
APP_STATES_BEFORE_TASKS = 2  # shim runs before a new application's tasks are sent: New -> Accepted -> Running
RULES = ("YK-R1", "YK-R2", "YK-R3", "YK-R4")
SUBMIT, AGED, RECHECK, GANG_TIMEOUT = "submit", "aged", "recheck", "gang-timeout"
PENDING, RESERVED_STATE, REJECTED_STATE, DELETED, PREEMPTED_STATE, FAILED_STATE = (
    "Pending", "Reserved", "Rejected", "Deleted", "Preempted", "Failed")


class RuntimeDeclarationError(ValueError):
    def __init__(self, pod: PodInfo, message: str) -> None:
        self.pod = pod
        super().__init__(f"Pod {pod.key}: {message}")


def declared_runtime(pod: PodInfo) -> int | None:
    try:
        return annotated_runtime({"kqctl.dev/runtime": pod.runtime} if pod.runtime else {})
    except RuntimeAnnotationError as exc:
        raise RuntimeDeclarationError(pod, str(exc)) from None


def check_runtimes(snapshot: Snapshot) -> None:
    for pod in snapshot.pods:
        declared_runtime(pod)


@dataclass(frozen=True)
class TimelineOptions:
    runtime: Distribution | None = None
    seed: int = 0
    # --arrivals: the arrivals' times drawn from ``seed`` (None: as the snapshot and the trace date them).
    arrivals: ArrivalDraw | None = None


@dataclass
class _Usage:
    series: dict[str, StepSeries] = field(default_factory=dict)

    def change(self, at: int, amount: dict[str, int], sign: int) -> None:
        for name, value in amount.items():
            track = self.series.get(name)
            if track is None:
                track = self.series[name] = StepSeries(0)
            track.set(at, track.values[-1] + sign * value)


class YuniKornTimeline:
    """The core's partition and scheduler, and the shim's loop, driven through virtual time."""

    def __init__(self, snapshot: Snapshot, options: TimelineOptions | None = None) -> None:
        assert snapshot.now is not None
        self.options = options or TimelineOptions()
        self.start: datetime = snapshot.now
        self.arrivals_drawn = 0
        if self.options.arrivals is not None:
            snapshot = self._drawn_arrivals(snapshot, self.options.arrivals)
        self.snapshot = snapshot
        self.start_ns = to_ns(self.start)
        self.interval = max(1, snapshot.scheduling_interval)
        self.horizon = max(0, self._ms(datetime.max.replace(tzinfo=self.start.tzinfo) - timedelta(days=1)))
        self.pods = {pod.key: pod for pod in snapshot.pods}
        self.future = {pod.key for pod in snapshot.pods if not pod.node and pod.created > self.start}
        present = replace(snapshot, pods=[pod for pod in snapshot.pods if pod.key not in self.future])
        self.partition = build_partition(present)  # PartitionError: the CLI says why, as simulate does
        self.scheduler = Scheduler(self.partition)
        self.scheduler.keep_reasons = False  # a replay reports times and states, never an ask's reason
        # asks whose preemption was checked in this moment's cycles, with the state (counters) their attempt saw
        self._checked: list[tuple[Ask, tuple[int, int, int]]] = []
        # asks whose check the core repeats every 15 s for nothing while the state stays as their last attempt saw it:
        # ask -> (the moment of that attempt, its counters); see ``_recheck``
        self._idle_checks: dict[Ask, tuple[int, tuple[int, int, int]]] = {}
        self._idle_seen: tuple[int, int, int] = (-1, -1, -1)
        original = self.scheduler.try_preemption

        def tracked(state, ask, headroom, attempts, nodes_tried):  # type: ignore[no-untyped-def]
            before = ask.preempt_checked
            outcome = original(state, ask, headroom, attempts, nodes_tried)
            if ask.preempt_checked and not before:
                self._checked.append((ask, self._counters()))
            return outcome

        self.scheduler.try_preemption = tracked
        self.runtimes = RuntimeDraws(self.options.runtime, self.options.seed)
        self.asks: dict[str, Ask] = dict(self.partition.asks)  # every pod's ask as the core last held it
        self.queue_of: dict[str, str] = {}  # pod -> the leaf it was placed in
        self.app_ready: dict[str, int] = {}  # application -> the shim run from which its tasks are sent
        self.running: set[str] = set()
        self.ended: dict[str, str] = {}
        self.held: dict[str, _Usage] = {}
        self.evictions: list[Eviction] = []
        self.grown: dict[str, Node] = {}  # nodes releases opened since the last cycle
        self._gang_timers: set[tuple[str, int]] = set()  # placeholder timers set (application, start)
        self._placed_placeholders: set[str] = set()  # placeholders allocated in the replay (their usage is held)
        self.cycles = 0
        self.recreated = 0
        self.deleted = 0
        self.dirty = True

    def _ms(self, moment: datetime) -> int:
        delta = moment - self.start
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

    def _drawn_arrivals(self, snapshot: Snapshot, draw: ArrivalDraw) -> Snapshot:
        """--arrivals: each application whose every pod arrives during the replay, its pods created at a drawn time
        instead, all moved by the same amount (it arrives with its first pod); an application with a pod there at the
        start stays as it is."""
        by_app: dict[str, list[PodInfo]] = {}
        for pod in snapshot.pods:
            by_app.setdefault(pod.app_id, []).append(pod)
        arriving = [(app_id, self._ms(min(p.created for p in pods))) for app_id, pods in by_app.items()
                    if all(not p.node and p.created > self.start for p in pods)]
        moves = shifts(arriving, draw, self.options.seed)
        self.arrivals_drawn = len(moves)
        return replace(snapshot, pods=[replace(pod, created=pod.created + timedelta(milliseconds=moves[pod.app_id]))
                                       if pod.app_id in moves else pod for pod in snapshot.pods])

    # --- set-up --------------------------------------------------------------------------------------

    def begin(self, reporter: Reporter) -> tuple[list[Arrival], list[Running]]:
        arrivals: list[Arrival] = []
        running: list[Running] = []
        for app in self.partition.apps.values():
            if app.state != REJECTED:
                self.app_ready[app.app_id] = 0  # the core knows it: its tasks go with the shim's next run
        for pod in sorted(self.snapshot.pods, key=lambda p: (p.created, p.key)):
            ask = self.asks.get(pod.key)
            if pod.is_placeholder:
                # not a workload: a placeholder runs until it is replaced or released (YK-GANG-4, YK-GANG-5)
                if ask is not None and ask.allocated:
                    self._placed_placeholders.add(ask.key)
                    self._hold(ask, 0, +1)
                continue
            held = self.partition.held.get(pod.key)
            if _held_by_failed_gang(held):
                self.ended[pod.key] = FAILED_STATE  # YK-GANG-1: the shim failed its application
            runtime = self.runtimes.runtime(declared_runtime(pod))
            if ask is not None and ask.allocated:
                self.running.add(pod.key)
                self._hold(ask, 0, +1)
                running.append(Running(pod.key, 0, runtime))
                continue
            arrivals.append(Arrival(pod.key, max(0, self._ms(pod.created)), runtime))
            if ask is not None:
                self._timers(ask, 0, reporter)
            elif pod.key not in self.future and held is None:
                self.ended[pod.key] = REJECTED_STATE  # its application was rejected
        for ask in self.partition.asks.values():
            if ask.pod.is_placeholder and not ask.allocated:
                self._timers(ask, 0, reporter)  # placeholders the shim made at the start age as any ask
        return arrivals, running

    # --- events ---------------------------------------------------------------------------------------

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        """YK-R2: a pod created now is sent to the core by the shim's next run (present ones are there already)."""
        if key in self.future:
            self.future.discard(key)
            self._send(self.pods[key], now, reporter)
            return False
        return key in self.asks  # a present pending ask: the core schedules from the start

    def _send(self, pod: PodInfo, now: int, reporter: Reporter) -> None:
        run = -(-now // self.interval) * self.interval  # the shim's next run
        ready = self.app_ready.get(pod.app_id)
        if ready is None:
            ready = self.app_ready[pod.app_id] = run + APP_STATES_BEFORE_TASKS * self.interval
        reporter.timer(max(run, ready), (SUBMIT, pod.key))

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        """YK-R3: the pod finished: its allocation is released."""
        self.running.discard(key)
        ask = self.asks.get(key)
        if ask is None or not ask.allocated:
            return False
        self._hold(ask, now, -1)
        changes.set_clock(self.scheduler, self._ns(now))
        node = changes.release(self.scheduler, ask)
        self.grown[node.name] = node  # told to the scheduler before its next cycle, with the moment's other releases
        self.ended[key] = "Succeeded"
        return True

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        assert isinstance(token, tuple)
        kind, key = token[0], token[1]
        changes.set_clock(self.scheduler, self._ns(now))
        if kind == GANG_TIMEOUT:
            return self._gang_timeout(key, token[2], now)
        if kind == SUBMIT:
            pod = self.pods[key]
            # YK-R2: a new application's tasks are sent at the third run; a gang's placeholders were made at the
            # second, Accepted -> Reserving (the core ages their asks from then)
            submitted = changes.submit(self.scheduler, self.snapshot, [pod], self._ns(now - self.interval))
            for made in submitted:
                if made.key != key:
                    self._timers(made, now, reporter)  # placeholders made with a new gang application's first pod
            asks = [made for made in submitted if made.key == key]
            if not asks:
                held = self.partition.held.get(key)
                if held is None:
                    self.ended[key] = REJECTED_STATE
                elif _held_by_failed_gang(held):
                    self.ended[key] = FAILED_STATE  # YK-GANG-1: the shim failed its application, as at the start
                return bool(submitted)
            self.asks[key] = asks[0]
            self.ended.pop(key, None)
            self._timers(asks[0], now, reporter)
            return True
        ask = self.asks.get(key)
        if ask is None or ask.allocated or ask.app.state == REJECTED or key not in self.partition.asks:
            return False
        if kind == RECHECK:
            return self._recheck(ask, token[2], now)
        changes.unblock(self.scheduler, ask)
        return True

    def _gang_timeout(self, app_id: str, start: int, now: int) -> bool:
        """YK-GANG-5: the placeholder timer of this start ends now (a timer cleared or restarted since is stale)."""
        app = self.partition.apps[app_id]
        gang = app.gang
        if gang is None or gang.timer_start != start:
            return False
        released, failed = changes.placeholder_timeout(self.scheduler, app)
        self._placeholders_gone(released, now)
        for ask in failed:
            if ask.key in self.pods and not ask.pod.is_placeholder:
                self.ended[ask.key] = FAILED_STATE
        return True

    def _sent(self, now: int, reporter: Reporter) -> None:
        """YK-GANG-2: real pods the shim sent once their gang's placeholders were allocated are the core's asks now."""
        sent, self.partition.sent = self.partition.sent, []
        for ask in sent:
            self.asks[ask.key] = ask
            self._timers(ask, now, reporter)

    def _recheck(self, ask: Ask, seen: tuple[int, int, int], now: int) -> bool:
        """YK-E4: 15 s after its last preemption check the core checks the ask again (``preemptAttemptFrequency``;
        the check time is set by every check whose preconditions pass, ``Preemptor.CheckPreconditions``). When nothing
        was allocated, released or reserved since, that attempt fails the same way and only moves the check time: the
        ask stays checked (every retry of it meanwhile fails E4, as in the core), and its next check is 15 s later,
        the first one after the state changes (``_changed_checks``). Otherwise the attempt is made now."""
        if seen == self._counters():
            self._idle_checks[ask] = (now, seen)
            return False
        changes.unblock(self.scheduler, ask, preemption_check_expired=True)
        return True

    def _changed_checks(self, now: int, reporter: Reporter) -> None:
        """The state changed: each idle check (``_recheck``) is made at its next 15 s mark from now on."""
        counters = self._counters()
        if not self._idle_checks or counters == self._idle_seen:
            return
        self._idle_seen = counters
        for ask, (at, seen) in self._idle_checks.items():
            if ask.allocated or ask.preempt_triggered:
                continue
            mark = at + max(1, -(-(now - at) // PREEMPT_ATTEMPT_MS)) * PREEMPT_ATTEMPT_MS
            reporter.timer(mark, (RECHECK, ask.key, seen))
        self._idle_checks.clear()

    def _counters(self) -> tuple[int, int, int]:
        p = self.partition
        return (p.allocations, p.releases, p.reservation_changes)

    def _timers(self, ask: Ask, now: int, reporter: Reporter) -> None:
        """YK-R1: when time alone lets a pending ask do more (reserve a node, preempt), noticed at the next poll."""
        created = self._ms_of_ns(ask.created)
        leaf = ask.app.queue
        moments = [created + RESERVATION_DELAY // NS_PER_MS + 1]
        if leaf is not None:
            moments.append(created + leaf.settings.preemption_delay // NS_PER_MS)
        for moment in moments:
            if moment > now:
                reporter.timer(self._poll(moment), (AGED, ask.key))

    def _poll(self, at: int) -> int:
        return -(-at // POLL_MS) * POLL_MS

    def _ns(self, ms: int) -> int:
        return self.start_ns + ms * NS_PER_MS

    def _ms_of_ns(self, ns: int) -> int:
        return (ns - self.start_ns) // NS_PER_MS

    # --- the core's cycles --------------------------------------------------------------------------------

    def has_work(self) -> bool:
        return True  # asked only after an event that may let something through; a cycle that finds nothing is cheap

    def backoff(self, attempt: int) -> int:
        return 0

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        """YK-R1: the core's cycles back to back until one does nothing."""
        changes.set_clock(self.scheduler, self._ns(now))
        if self.grown:
            changes.grown(self.scheduler, sorted(self.grown.values(), key=lambda n: n.name))
            self.grown.clear()
        allocated = 0
        while True:
            result = self.scheduler.cycle()
            if self.partition.sent:
                self._sent(now, reporter)
            if result is None:
                break
            self.cycles += 1
            if result.kind in (ALLOCATED, ALLOCATED_RESERVED):
                allocated += 1
                if result.ask.pod.is_placeholder:
                    self._placed_placeholders.add(result.ask.key)
                    self._hold(result.ask, now, +1)
                else:
                    self._allocated(result.ask, now, reporter)
            elif result.kind == REPLACED:
                allocated += 1
                self._allocated(result.ask, now, reporter)
                self._placeholders_gone(result.victims, now)
            elif result.kind == PLACEHOLDER_RELEASED:
                self._placeholders_gone(result.victims, now)
            elif result.kind == PREEMPTED:
                self._preempted(result, now, reporter)
            elif result.kind == RESERVED:
                continue
        self._gang_timers_from(reporter)
        for ask, seen in self._checked:
            if not ask.allocated:
                reporter.timer(self._poll(now + PREEMPT_ATTEMPT_MS), (RECHECK, ask.key, seen))
        self._checked.clear()
        self._changed_checks(now, reporter)
        return CycleReport(0, False, allocated)

    def _placeholders_gone(self, placeholders: Sequence[Ask], now: int) -> None:
        """Placeholders released: the usage of those that held a node ends now (one never allocated held none)."""
        for ph in placeholders:
            if ph.key in self._placed_placeholders:
                self._placed_placeholders.discard(ph.key)
                self._hold(ph, now, -1)

    def _gang_timers_from(self, reporter: Reporter) -> None:
        """YK-GANG-5: a placeholder timer started by this moment's cycles ends its timeout later."""
        for app in self.partition.gang_apps:
            gang = app.gang
            if gang is None or gang.timer_start is None or (app.app_id, gang.timer_start) in self._gang_timers:
                continue
            self._gang_timers.add((app.app_id, gang.timer_start))
            end = self._ms_of_ns(gang.timer_start + gang.timeout_ns)
            reporter.timer(self._poll(end), (GANG_TIMEOUT, app.app_id, gang.timer_start))

    def _allocated(self, ask: Ask, now: int, reporter: Reporter) -> None:
        self.running.add(ask.key)
        self._hold(ask, now, +1)
        reporter.admitted(ask.key, now)

    def _preempted(self, result: CycleResult, now: int, reporter: Reporter) -> None:
        """YK-R4: the victims are gone; their controllers (if any) make them again."""
        for victim in result.victims:
            key = victim.key
            if victim.pod.is_placeholder:
                self._placeholders_gone((victim,), now)
                continue  # the shim does not make a preempted placeholder again
            self._hold(victim, now, -1)
            self.running.discard(key)
            reporter.evicted(key, now)
            pod = self.pods[key]
            if pod.controller:
                self.recreated += 1
                again = replace(pod, node="", created=self.start + timedelta(milliseconds=now))
                self.pods[key] = again
                self._send(again, now, reporter)
                outcome = f"made again by its {pod.controller}, pending"
            else:
                self.deleted += 1
                self.ended[key] = DELETED
                outcome = "deleted: a bare pod is not made again"
            self.evictions.append(Eviction(now, victim.app.app_id, key, result.ask.key, outcome))

    # --- usage ------------------------------------------------------------------------------------------

    def _hold(self, ask: Ask, at: int, sign: int) -> None:
        queue = ask.app.queue
        while queue is not None:
            held = self.held.get(queue.path)
            if held is None:
                held = self.held[queue.path] = _Usage()
            held.change(at, {k: v for k, v in ask.resource.items() if k != "pods"}, sign)
            queue = queue.parent

    def usage(self) -> Sequence[UsageTrack]:
        tracks = []
        for queue in self.partition.tree.queues():
            held = self.held.get(queue.path)
            guaranteed = dict(queue.guaranteed or {})
            for resource in sorted((set(held.series) if held else set()) | (set(guaranteed) - {"pods"})):
                points = held.series[resource].points() if held and resource in held.series else ((0, 0),)
                parent = queue.parent.path if queue.parent is not None else None
                tracks.append(UsageTrack("queue", queue.path, resource, guaranteed.get(resource, 0), points, parent,
                                         "", "allocated"))
        return tracks

    # --- what reports need --------------------------------------------------------------------------------

    def labels(self, key: str) -> WorkloadLabels:
        pod = self.pods[key]
        ask = self.asks.get(key)
        app = ask.app if ask is not None else self.partition.apps.get(pod.app_id)  # held back or failed: its app's
        leaf = app.queue.path if app is not None and app.queue is not None else (pod.queue or "-")
        return WorkloadLabels(leaf, leaf, pod.priority, pod.app_id)

    def state(self, key: str) -> str:
        if key in self.ended:
            return self.ended[key]
        ask = self.asks.get(key)
        if ask is None:
            return PENDING
        if ask.app.state == REJECTED:
            return REJECTED_STATE
        return RESERVED_STATE if ask.reserved_node else PENDING

    # --- the end state, as simulate reports it (tests compare the two) ------------------------------------

    def placements(self) -> dict[str, str]:
        """Every pod the core holds and its node ("" while pending), and those the shim holds back (YK-GANG-2);
        victims and replaced or released placeholders are not held."""
        held = dict.fromkeys(self.partition.held, "")
        return {**held, **{key: ask.node for key, ask in self.partition.asks.items()}}


def _held_by_failed_gang(held: Ask | None) -> bool:
    """A pod the shim holds back (not sent to the core) because it failed the pod's gang application (YK-GANG-1)."""
    return held is not None and held.app.gang is not None and bool(held.app.gang.failed)
