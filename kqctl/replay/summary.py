"""What a replay sums up to, for any scheduler: percentiles per group, usage per queue, and Kueue's
performance summary shape (``summary.yaml`` of ``test/performance/scheduler``).

The performance summary mirrors Kueue's recorder: per queue class the quota used over time
(``cpuUsed``, milli-cpu x ms), its average over the monitored time and the nominal quota; per
workload class the count, evictions and the average time to admission and to finish (integer
division, as Go's). Only one resource is summed, as Kueue's recorder reads only the first
flavor's first resource; kqctl takes ``cpu``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fractions import Fraction

from kqctl.replay.protocol import UsageTrack
from kqctl.replay.run import WorkloadTimes
from kqctl.replay.statistics import Sample, integral, maximum, time_weighted_mean


@dataclass(frozen=True)
class GroupStats:
    """The workloads of one group (a queue, a priority, a class): how long they waited and ran."""

    name: str
    workloads: int
    admitted: int  # admitted at least once during the replay (arrived during it)
    finished: int
    evictions: int  # of every workload of the group, those running at the start included
    time_to_admission: Sample | None
    time_to_finish: Sample | None
    never_admitted: tuple[str, ...] = ()  # still waiting for admission at the end, by key


def group_stats(workloads: Iterable[WorkloadTimes], key: Callable[[WorkloadTimes], str]) -> tuple[GroupStats, ...]:
    """One :class:`GroupStats` per value of ``key``, in name order. Waits and counts are of the workloads known to
    have arrived; evictions are of every workload (one running at the start is evicted as much as one that
    arrived), so a group whose only workloads ran at the start and were evicted has a row too."""
    groups: dict[str, list[WorkloadTimes]] = {}
    evictions: dict[str, int] = {}
    for workload in workloads:
        name = key(workload)
        if workload.arrival is not None:
            groups.setdefault(name, []).append(workload)
        if workload.evictions:
            evictions[name] = evictions.get(name, 0) + workload.evictions
            groups.setdefault(name, [])
    return tuple(replace(stats(name, members), evictions=evictions.get(name, 0))
                 for name, members in sorted(groups.items(), key=lambda i: _natural(i[0])))


def stats(name: str, members: list[WorkloadTimes]) -> GroupStats:
    """Waits are from when each workload joined the replay (WorkloadTimes.joined); one still waiting at the end counts
    as never admitted: the longest wait, never left out (a group whose workloads stop getting in
    would otherwise look faster)."""
    waiting = [w for w in members if w.waiting]
    admissions = [w.time_to_admission for w in members if w.time_to_admission is not None and not w.waiting]
    finishes = [w.time_to_finish for w in members if w.time_to_finish is not None]
    return GroupStats(name, len(members), len(admissions), len(finishes), sum(w.evictions for w in members),
                      Sample.of(admissions, len(waiting)), Sample.of(finishes),
                      tuple(w.key for w in waiting))


def _natural(name: str) -> tuple[int, int | str]:
    # Priorities sort as numbers (-5 < 50 < 100), other names as text.
    try:
        return (0, int(name))
    except ValueError:
        return (1, name)


@dataclass(frozen=True)
class UsageSummary:
    """One queue's usage of one resource over [0, end): mean and peak against its nominal quota."""

    kind: str
    name: str
    resource: str
    nominal: int
    mean: Fraction
    peak: int
    points: tuple[tuple[int, int], ...]
    parent: str | None
    ceiling: int = 0  # UsageTrack.ceiling

    @property
    def share(self) -> Fraction | None:
        """Mean usage as a share of the nominal quota (None without nominal quota)."""
        return self.mean / self.nominal if self.nominal else None


def usage_summaries(tracks: Iterable[UsageTrack], end: int, measure: str = "reserved") -> tuple[UsageSummary, ...]:
    return tuple(UsageSummary(t.kind, t.name, t.resource, t.nominal, time_weighted_mean(t.points, 0, end),
                              maximum(t.points), t.points, t.parent, t.ceiling)
                 for t in tracks if t.measure == measure)


@dataclass(frozen=True)
class QueueClassSummary:
    """Kueue's ``clusterQueueClasses.<class>``: cpuUsed (mCPU x ms), cpuAverageUsage (mCPU), nominalQuota (mCPU)."""

    cpu_used: int
    cpu_average_usage: int
    nominal_quota: int
    first_event_ms: int
    last_event_ms: int

    @property
    def usage_percent(self) -> Fraction | None:
        """The figure Kueue's checker compares: cpuUsed x 100 / (nominalQuota x monitored ms)."""
        elapsed = self.last_event_ms - self.first_event_ms
        if not self.nominal_quota or elapsed <= 0:
            return None
        return Fraction(self.cpu_used * 100, self.nominal_quota * elapsed)


@dataclass(frozen=True)
class WorkloadClassSummary:
    """Kueue's ``workloadClasses.<class>``."""

    count: int
    total_evictions: int
    average_time_to_admission_ms: int
    average_time_to_finish_ms: int


@dataclass(frozen=True)
class PerformanceSummary:
    cluster_queue_classes: tuple[tuple[str, QueueClassSummary], ...]
    workload_classes: tuple[tuple[str, WorkloadClassSummary], ...]


def performance_summary(workloads: Iterable[WorkloadTimes], tracks: Iterable[UsageTrack], end: int,
                        kind: str, resource_suffix: str = "/cpu") -> PerformanceSummary:
    """Kueue's recorder summary: queues of ``kind`` grouped by class (their name without one), reserved cpu."""
    classes: dict[str, list[UsageTrack]] = {}
    for track in tracks:
        if track.kind == kind and track.measure == "reserved" and track.resource.endswith(resource_suffix):
            classes.setdefault(track.queue_class or track.name, []).append(track)
    queue_classes = tuple((name, _queue_class(members, end)) for name, members in sorted(classes.items()))
    by_class: dict[str, list[WorkloadTimes]] = {}
    for workload in workloads:
        if workload.arrival is not None:
            by_class.setdefault(workload.labels.workload_class, []).append(workload)
    workload_classes = tuple((name, _workload_class(members)) for name, members in sorted(by_class.items()))
    return PerformanceSummary(queue_classes, workload_classes)


def _queue_class(members: list[UsageTrack], end: int) -> QueueClassSummary:
    used = sum(integral(t.points, 0, end) for t in members)
    return QueueClassSummary(used, used // end if end > 0 else 0, sum(t.nominal for t in members), 0, end)


def _workload_class(members: list[WorkloadTimes]) -> WorkloadClassSummary:
    # Kueue's recorder counts 0 for a workload never admitted or never finished.
    admission = sum(w.time_to_admission or 0 for w in members)
    finish = sum(w.time_to_finish or 0 for w in members)
    return WorkloadClassSummary(len(members), sum(w.evictions for w in members), admission // len(members),
                                finish // len(members))
