"""Arrivals at the start are delivered without the event heap, in the order the heap gave them (run.py).

Explain's wait estimate reads a 50,000-workload snapshot as "now": every workload arrives at 0, and pushing and
popping 50,000 heap entries was a visible part of its replay. The reference below is the loop as it was (every
arrival through the heap); the toy scheduler logs every call the loop makes, so any change of order shows.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import pytest
from replay_support import CQ, WL, snapshot

from kqctl.kueue.replay import report as kueue_report
from kqctl.kueue.replay.report import KueueReplayOptions, replay_snapshot
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.replay.durations import parse_distribution
from kqctl.replay.protocol import Arrival, CycleReport, Reporter, Running
from kqctl.replay.run import ARRIVE, Replay, ReplayOptions, _Record
from tests.replay.test_run import Toy


class HeapOnlyReplay(Replay):
    """The loop before the shortcut: every arrival goes through the heap."""

    def advance(self) -> tuple[int, bool]:
        arrivals, running = self.scheduler.begin(self)
        for arrival in arrivals:
            self.records[arrival.key] = _Record(arrival.at, arrival.runtime)
            self.loop.schedule(max(arrival.at, 0), (ARRIVE, arrival.key, 0))
        self._start_running(running)
        self._want_cycle(0)
        return self._drain()


@dataclass
class Logged(Toy):
    """The toy scheduler, logging every call of the loop (and scheduling timers from its arrivals)."""

    log: list[tuple[object, ...]] = field(default_factory=list)
    timer_on_arrival: bool = False
    work_before_arrivals: bool = False  # as Kueue's timeline, whose snapshot's workloads are queued before they arrive

    def has_work(self) -> bool:
        return self.work_before_arrivals or super().has_work()

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        self.log.append(("arrive", key, now))
        if self.timer_on_arrival:
            reporter.timer(now, ("noop", key))
        return super().arrive(key, now, reporter)

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        self.log.append(("complete", key, now))
        return super().complete(key, now, reporter)

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        self.log.append(("wake", token, now))
        assert isinstance(token, tuple)
        if token[0] == "noop":
            return False
        return super().wake(token, now, reporter)

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        self.log.append(("cycle", now, tuple(self.queue)))
        return super().cycle(now, reporter)


def _both(make: object, options: ReplayOptions | None = None) -> None:
    runs = []
    for loop in (Replay, HeapOnlyReplay):
        toy = make()  # type: ignore[operator]
        progress: list[tuple[int, int, int]] = []
        given = options or ReplayOptions()
        given = ReplayOptions(given.until, given.finish_latency, lambda *a, kept=progress: kept.append(a),
                              given.until_finished)
        run = loop(toy, given).run()
        runs.append((run, toy.log, progress))
    assert runs[0] == runs[1]


def _arrivals(count: int, at: int = 0) -> list[Arrival]:
    return [Arrival(f"w{i:05d}", at - (i % 3), 50 + i % 7) for i in range(count)]


def test_arrivals_at_the_start_come_in_the_heap_order_before_completions_and_the_first_cycle() -> None:
    _both(lambda: Logged(_arrivals(6) + [Arrival("later", 30, 10)], slots=2,
                         running=[Running("r1", -100, 100, -150), Running("r2", -100, 300, -150)]))


def test_timers_an_arrival_schedules_keep_their_place() -> None:
    _both(lambda: Logged(_arrivals(5), slots=1, timer_on_arrival=True, running=[Running("r", -10, 10, -10)]))


def test_the_first_cycle_is_asked_for_before_the_arrivals_are_delivered() -> None:
    _both(lambda: Logged(_arrivals(5), slots=2, timer_on_arrival=True, work_before_arrivals=True))


def test_a_timer_due_at_the_start_still_comes_first() -> None:
    # begin() schedules a timer at 0: it was delivered before the arrivals (scheduled first), and still is.
    _both(lambda: Logged(_arrivals(4), slots=1, running=[Running("r", -5, 1000, -5)], preempt_at={"r": 0}))


@pytest.mark.parametrize("until", [0, 5, None])
def test_the_horizon_and_the_watched_workloads_end_the_run_as_before(until: int | None) -> None:
    _both(lambda: Logged(_arrivals(8), slots=3), ReplayOptions(until=until, until_finished=frozenset({"w00002"})))


def test_progress_is_reported_at_the_same_counts() -> None:
    _both(lambda: Logged(_arrivals(4200), slots=4200))


def test_kueue_replays_are_the_same_with_and_without_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    queues = [CQ("a", "4", cohort="c", within="LowerPriority", reclaim="Any"), CQ("b", "2", cohort="c")]
    workloads = [WL(f"w{i}", "ab"[i % 2], str(1 + i % 3), created_ms=-1000 * i + 200 * (i % 4), priority=i % 3,
                    runtime=f"{1 + i % 4}m", admitted_ms=-500 if i < 2 else None,
                    requeue_at_ms=1500 if i == 7 else None) for i in range(14)]
    given = snapshot(queues, workloads)
    for options in (KueueReplayOptions(),
                    KueueReplayOptions(TimelineOptions(all_present=True, runtime=parse_distribution("5m")))):
        ours = replay_snapshot(given, options)
        monkeypatch.setattr(kueue_report, "Replay", HeapOnlyReplay)
        theirs = replay_snapshot(given, options)
        monkeypatch.undo()
        assert ours == theirs
