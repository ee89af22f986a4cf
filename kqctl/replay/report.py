"""One replay summed up, in the shape every scheduler but Kueue reports (Kueue's has its performance summary and
API-write model on top, :mod:`kqctl.kueue.replay.report`): per workload its times, per queue and priority the
percentiles, per queue the usage over time, what was evicted, and what the replay assumed.

``Words`` carries the scheduler's vocabulary, so one renderer speaks each scheduler's language: a Volcano
PodGroup is allocated in a Queue; a YuniKorn application is allocated in a queue path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from kqctl.replay.protocol import UsageTrack
from kqctl.replay.run import ReplayRun, WorkloadTimes
from kqctl.replay.summary import GroupStats, UsageSummary, group_stats, stats, usage_summaries


@dataclass(frozen=True)
class Words:
    """How the scheduler names what the report counts."""

    scheduler: str  # Volcano, YuniKorn
    workload: str  # PodGroup, application
    queue: str  # Queue, queue
    started: str  # what the wait ends with: "allocated" (the first allocation, the gang's minMember bound)
    cycle: str  # session, scheduling cycle
    measure: str  # what the usage tracks count: "allocated"
    nominal: str  # what usage is a share of: "deserved", "guaranteed"
    ceiling: str = ""  # what usage is a share of without a nominal amount (UsageTrack.ceiling): "capability or cluster"


@dataclass(frozen=True)
class Eviction:
    """A pod the scheduler evicted during the replay, and what its controller did about it."""

    at: int  # ms
    workload: str  # the workload the pod belongs to
    pod: str
    by: str  # what it made room for (a task or an ask), as the scheduler reports it
    outcome: str  # what happened next, in words: "re-created pending (SyncJob)", "job restarted", "deleted"


@dataclass(frozen=True)
class TimelineReport:
    words: Words
    start: datetime
    end: int  # ms of virtual time: the last event, or the --until horizon
    cycles: int
    stopped_at_horizon: bool
    runtime: str  # how runtimes not declared were chosen
    seed: int
    period: int  # ms between two of the scheduler's cycles when it has work (Volcano: the schedule period)
    workloads: tuple[WorkloadTimes, ...]
    overall: GroupStats
    by_queue: tuple[GroupStats, ...]
    by_priority: tuple[GroupStats, ...]
    usage: tuple[UsageSummary, ...]
    evictions: tuple[Eviction, ...]
    rules: tuple[str, ...]  # the replay rules (catalogue IDs) the scheduler's timeline follows
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...]
    running_at_start: int  # workloads running when the replay started (not counted in waits)
    pods: tuple[WorkloadTimes, ...] = ()  # per pod, where a workload has several that run on their own (YuniKorn)

    def workload(self, key: str) -> WorkloadTimes | None:
        return next((w for w in self.workloads if w.key == key), None)


def summarize(run: ReplayRun, workloads: Sequence[WorkloadTimes], words: Words, start: datetime, runtime: str,
              seed: int, period: int, evictions: Iterable[Eviction], rules: tuple[str, ...],
              assumptions: Iterable[str], warnings: Iterable[str], tracks: Iterable[UsageTrack],
              pods: Sequence[WorkloadTimes] = ()) -> TimelineReport:
    arrived = [w for w in workloads if w.arrival is not None]
    running = sum(1 for w in workloads if w.arrival is None)

    def by(key: Callable[[WorkloadTimes], str]) -> tuple[GroupStats, ...]:
        return group_stats(workloads, key)

    return TimelineReport(
        words=words, start=start, end=run.end, cycles=run.cycles, stopped_at_horizon=run.stopped_at_horizon,
        runtime=runtime, seed=seed, period=period, workloads=tuple(workloads),
        overall=replace(stats("all", arrived), evictions=sum(w.evictions for w in workloads)),
        by_queue=by(lambda w: w.labels.target or w.labels.queue or "-"),
        by_priority=by(lambda w: str(w.labels.priority)),
        usage=usage_summaries(tracks, run.end, words.measure), evictions=tuple(evictions), rules=rules,
        assumptions=tuple(assumptions), warnings=tuple(warnings), running_at_start=running, pods=tuple(pods))
