"""The replay loop: arrivals, scheduling cycles, runtimes and completions in virtual time.

The loop is scheduler-agnostic: it delivers arrivals at their times, starts a workload's runtime
when the scheduler says it runs, delivers its completion after that runtime (unless it was evicted
in between), fires the scheduler's own timers, and runs a scheduling cycle whenever something
changed and the scheduler is free. A cycle keeps the scheduler busy for the time it reports; a
cycle that admitted nothing is followed by the scheduler's back-off; a cycle that changed nothing
is not repeated until the next event (it would decide the same again).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass

from kqctl.replay.events import EventLoop
from kqctl.replay.protocol import Running, Scheduler, UsageTrack, WorkloadLabels

# Event kinds, in the heap as (kind, payload, epoch) tuples.
ARRIVE, START, STOP, COMPLETE, TIMER, CYCLE = range(6)
PROGRESS_EVERY = 4096  # events between two progress callbacks


@dataclass(frozen=True)
class ReplayOptions:
    until: int | None = None  # stop at this virtual time (ms); None: when nothing is left to happen
    # ms between the end of a workload's runtime and the release of its quota (controllers noticing it)
    finish_latency: int = 0
    on_progress: Callable[[int, int, int], None] | None = None  # (now, finished, total)
    # Stop once every one of these workloads has finished: a caller that reads only their times (explain's wait
    # estimate) does not need the rest of the replay, whose later events cannot change them. Empty: run to the end.
    until_finished: frozenset[str] = frozenset()


@dataclass(frozen=True)
class WorkloadTimes:
    """One workload over the replay, times in ms since the start (as Kueue's performance recorder keeps them).

    ``admitted`` is the last time it started running (after an eviction it starts again),
    ``first_admitted`` the first. Workloads running when the replay started have no ``arrival`` unless their
    scheduler knows when they were submitted.
    """

    key: str
    labels: WorkloadLabels
    arrival: int | None
    runtime: int | None
    first_admitted: int | None
    admitted: int | None
    finished: int | None
    evictions: int
    state: str  # Finished, Running, or the scheduler's word for why it is not running
    # Not running, not finished and not admitted at the end: never admitted, or evicted and not back (its wait for
    # admission never ended).
    waiting: bool = False

    @property
    def joined(self) -> int | None:
        """When its wait in the replay starts: its arrival, or the start of the replay for one created before."""
        return None if self.arrival is None else max(self.arrival, 0)

    @property
    def time_to_admission(self) -> int | None:
        """From :attr:`joined` to its last admission (0 for one running since before the start)."""
        joined = self.joined
        return None if joined is None or self.admitted is None else max(0, self.admitted - joined)

    @property
    def time_to_first_admission(self) -> int | None:
        joined = self.joined
        return None if joined is None or self.first_admitted is None else max(0, self.first_admitted - joined)

    @property
    def time_to_finish(self) -> int | None:
        joined = self.joined
        return None if joined is None or self.finished is None else max(0, self.finished - joined)


@dataclass(frozen=True)
class ReplayRun:
    """What a replay produced: every workload's times, usage over time, and how long it all took."""

    end: int  # ms: the last event (or the --until horizon)
    cycles: int
    workloads: tuple[WorkloadTimes, ...]
    usage: tuple[UsageTrack, ...]
    stopped_at_horizon: bool


@dataclass
class _Record:
    arrival: int | None
    runtime: int | None
    first_admitted: int | None = None
    admitted: int | None = None
    finished: int | None = None
    evictions: int = 0
    epoch: int = 0
    running: bool = False
    reserved: bool = False  # the scheduler admitted it (it runs once the admission is written)


class Replay:
    """Drives one :class:`Scheduler` through virtual time (and is the :class:`Reporter` it talks to)."""

    def __init__(self, scheduler: Scheduler, options: ReplayOptions | None = None) -> None:
        self.scheduler = scheduler
        self.options = options or ReplayOptions()
        self.loop: EventLoop[tuple[int, Hashable, int]] = EventLoop(0)
        self.records: dict[str, _Record] = {}
        self.cycles = 0
        self.finished = 0
        self._cycle_at: int | None = None
        self._free_at = 0
        self._idle_cycles = 0  # cycles in a row without an admission (the scheduler's back-off)
        self._watched = set(self.options.until_finished)  # not finished yet, of options.until_finished

    # --- what the scheduler reports (Reporter) -------------------------------------------------------

    def admitted(self, key: str, at: int) -> None:
        record = self.records[key]
        record.epoch += 1
        record.reserved = True
        self.loop.schedule(max(at, self.loop.now), (START, key, record.epoch))

    def evicted(self, key: str, at: int) -> None:
        record = self.records[key]
        record.epoch += 1
        record.reserved = False
        self.loop.schedule(max(at, self.loop.now), (STOP, key, record.epoch))

    def timer(self, at: int, token: Hashable) -> None:
        self.loop.schedule(max(at, self.loop.now), (TIMER, token, 0))

    # --- the loop --------------------------------------------------------------------------------------

    def run(self) -> ReplayRun:
        end, horizon = self.advance()
        return ReplayRun(end, self.cycles, self.times(), tuple(self.scheduler.usage()), horizon)

    def advance(self) -> tuple[int, bool]:
        """The replay itself, without its report: the virtual time it ended at, and whether that is ``until``."""
        arrivals, running = self.scheduler.begin(self)
        # Arrivals at the start (every workload of a snapshot read as "now", explain's wait estimate: 50,000) are
        # delivered at once instead of through the event heap, in the order the heap would give them: first of all
        # events at 0 (they are scheduled before any other), after the start's cycle request as in _drain. Only when
        # nothing the scheduler's begin() scheduled is due at 0 (it would come first) and the run goes past 0.
        first_time = self.loop.next_time()
        direct = (first_time is None or first_time > 0) and (self.options.until is None or self.options.until >= 0)
        at_start: list[str] = []
        for arrival in arrivals:
            self.records[arrival.key] = _Record(arrival.at, arrival.runtime)
            if direct and arrival.at <= 0:
                at_start.append(arrival.key)
            else:
                self.loop.schedule(max(arrival.at, 0), (ARRIVE, arrival.key, 0))
        self._start_running(running)
        self._want_cycle(0)
        handled = 0
        for key in at_start:
            self._arrive(0, key, 0)
            handled += 1
            if self.options.on_progress is not None and handled % PROGRESS_EVERY == 0:
                self.options.on_progress(0, self.finished, len(self.records))
        return self._drain(handled)

    def _start_running(self, running: Iterable[Running]) -> None:
        """The workloads running as the replay starts: recorded as admitted, their completions scheduled."""
        for item in running:
            self.records[item.key] = _Record(item.arrival, item.runtime, item.since, item.since, running=True,
                                             reserved=True)
            if item.runtime is not None:
                left = item.remaining if item.remaining is not None else item.since + item.runtime
                self.loop.schedule(max(0, left + self.options.finish_latency), (COMPLETE, item.key, 0))

    def _drain(self, count: int = 0) -> tuple[int, bool]:
        """Events in order until none is left (or ``until``); ``count``: events already handled (progress)."""
        until = self.options.until
        handlers = (self._arrive, self._start, self._stop, self._complete, self._timer, self._cycle)
        watching = bool(self._watched)
        while len(self.loop):
            if watching and not self._watched:
                return self.loop.now, False  # every watched workload has finished
            next_time = self.loop.next_time()
            if until is not None and next_time is not None and next_time > until:
                self.loop.now = until
                return until, True
            at, (kind, payload, epoch) = self.loop.pop()
            handlers[kind](at, payload, epoch)
            count += 1
            if self.options.on_progress is not None and count % PROGRESS_EVERY == 0:
                self.options.on_progress(at, self.finished, len(self.records))
        return self.loop.now, False

    def _arrive(self, at: int, key: Hashable, _: int) -> None:
        if self.scheduler.arrive(str(key), at, self):
            self._want_cycle(at)

    def _start(self, at: int, key: Hashable, epoch: int) -> None:
        record = self.records[str(key)]
        if epoch != record.epoch:
            return  # evicted before its admission took effect
        record.running = True
        record.admitted = at
        if record.first_admitted is None:
            record.first_admitted = at
        if record.runtime is not None:
            self.loop.schedule(at + record.runtime + self.options.finish_latency, (COMPLETE, key, epoch))

    def _stop(self, at: int, key: Hashable, epoch: int) -> None:
        record = self.records[str(key)]
        if epoch == record.epoch:
            record.evictions += 1
            record.running = False

    def _complete(self, at: int, key: Hashable, epoch: int) -> None:
        record = self.records[str(key)]
        if epoch != record.epoch or not record.running:
            return  # evicted while running: this completion belongs to an earlier run
        record.running = False
        record.finished = at
        self.finished += 1
        self._watched.discard(str(key))
        if self.scheduler.complete(str(key), at, self):
            self._want_cycle(at)

    def _timer(self, at: int, token: Hashable, _: int) -> None:
        if self.scheduler.wake(token, at, self):
            self._want_cycle(at)

    def _cycle(self, at: int, _: Hashable, __: int) -> None:
        self._cycle_at = None
        report = self.scheduler.cycle(at, self)
        self.cycles += 1
        self._idle_cycles = 0 if report.admitted else self._idle_cycles + 1
        pause = self.scheduler.backoff(self._idle_cycles) if self._idle_cycles else 0
        self._free_at = at + report.busy + pause
        if report.progress:
            self._want_cycle(self._free_at)

    def _want_cycle(self, at: int) -> None:
        """A cycle as soon as the scheduler is free, unless one is already due or nothing waits."""
        if self._cycle_at is not None or not self.scheduler.has_work():
            return
        self._cycle_at = max(at, self._free_at)
        self.loop.schedule(self._cycle_at, (CYCLE, None, 0))

    def times(self, keys: Collection[str] | None = None) -> tuple[WorkloadTimes, ...]:
        """Every workload's times after :meth:`advance`, by key; only those of ``keys`` when given (a caller that
        reads a few of 50,000, as explain's wait estimate, need not have the others worked out)."""
        records = self.records if keys is None else {k: self.records[k] for k in keys if k in self.records}
        result = []
        for key, record in sorted(records.items()):
            if record.finished is not None and not record.running:
                state = "Finished"
            elif record.running:
                state = "Running"
            else:
                state = self.scheduler.state(key)
            waiting = not record.running and record.finished is None and not record.reserved
            result.append(WorkloadTimes(key, self.scheduler.labels(key), record.arrival, record.runtime,
                                        record.first_admitted, record.admitted, record.finished,
                                        record.evictions, state, waiting))
        return tuple(result)


def replay(scheduler: Scheduler, options: ReplayOptions | None = None) -> ReplayRun:
    """Run ``scheduler`` through virtual time until nothing is left to happen (or ``options.until``)."""
    return Replay(scheduler, options).run()
