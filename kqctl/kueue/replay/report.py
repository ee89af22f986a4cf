"""One replay of a Kueue snapshot, summed up: per workload, per queue and priority, usage over time.

``replay_snapshot`` is the entry point the commands call: pure (the snapshot in, a frozen
:class:`ReplayReport` out), deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.replay.throughput import Throughput
from kqctl.kueue.replay.timeline import Eviction, KueueTimeline, TimelineOptions
from kqctl.replay.arrival_draws import note as arrival_note
from kqctl.replay.durations import MAX_DURATION_TEXT, format_duration
from kqctl.replay.run import Replay, ReplayOptions, WorkloadTimes
from kqctl.replay.summary import (
    GroupStats,
    PerformanceSummary,
    UsageSummary,
    group_stats,
    performance_summary,
    stats,
    usage_summaries,
)


@dataclass(frozen=True)
class KueueReplayOptions:
    timeline: TimelineOptions = field(default_factory=TimelineOptions)
    until: int | None = None  # ms
    finish_latency: int = 0  # ms
    until_finished: frozenset[str] = frozenset()  # stop once these workloads have finished (ReplayOptions)


@dataclass(frozen=True)
class ReplayReport:
    start: datetime
    end: int  # ms of virtual time: the last event, or the --until horizon
    cycles: int
    api_writes: int
    stopped_at_horizon: bool
    throughput: Throughput
    runtime: str  # how runtimes not declared by workloads were chosen
    finish_latency: int
    seed: int
    workloads: tuple[WorkloadTimes, ...]
    overall: GroupStats
    by_cluster_queue: tuple[GroupStats, ...]
    by_local_queue: tuple[GroupStats, ...]
    by_priority: tuple[GroupStats, ...]
    by_class: tuple[GroupStats, ...]
    usage: tuple[UsageSummary, ...]  # quota held per ClusterQueue and cohort
    performance: PerformanceSummary
    evictions: tuple[Eviction, ...]
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...]

    def workload(self, key: str) -> WorkloadTimes | None:
        return next((w for w in self.workloads if w.key == key), None)


def replay_snapshot(snapshot: Snapshot, options: KueueReplayOptions | None = None,
                    on_progress: Callable[[int, int, int], None] | None = None) -> ReplayReport:
    """Replay ``snapshot`` (its future-dated workloads arriving on time) until nothing is left to happen."""
    options = options or KueueReplayOptions()
    timeline, replayer = replay_of(snapshot, options, on_progress)
    run = replayer.run()
    workloads = run.workloads
    arrived = [w for w in workloads if w.arrival is not None]
    return ReplayReport(
        start=timeline.start,
        end=run.end,
        cycles=run.cycles,
        api_writes=timeline.writes,
        stopped_at_horizon=run.stopped_at_horizon,
        throughput=options.timeline.throughput,
        runtime=_runtime_text(options.timeline),
        finish_latency=options.finish_latency,
        seed=options.timeline.seed,
        workloads=workloads,
        overall=stats("all", arrived),
        by_cluster_queue=group_stats(workloads, lambda w: w.labels.target or "-"),
        by_local_queue=group_stats(workloads, lambda w: w.labels.queue),
        by_priority=group_stats(workloads, lambda w: str(w.labels.priority)),
        by_class=group_stats(workloads, lambda w: w.labels.workload_class),
        usage=usage_summaries(run.usage, run.end),
        performance=performance_summary(workloads, run.usage, run.end, "ClusterQueue"),
        evictions=tuple(timeline.evictions),
        assumptions=assumptions(timeline, options),
        warnings=tuple(snapshot.warnings),
    )


def replay_of(snapshot: Snapshot, options: KueueReplayOptions,
              on_progress: Callable[[int, int, int], None] | None = None) -> tuple[KueueTimeline, Replay]:
    """The replay of ``snapshot`` as :func:`replay_snapshot` runs it, set up and not yet run, with its timeline."""
    timeline = KueueTimeline(snapshot, options.timeline)
    # Virtual time cannot go past the calendar (year 9999): a replay that would is stopped there, as --until does.
    until = min(options.until if options.until is not None else timeline.horizon, timeline.horizon)
    return timeline, Replay(timeline, ReplayOptions(until, options.finish_latency, on_progress, options.until_finished))


def _runtime_text(options: TimelineOptions) -> str:
    return options.runtime.describe() if options.runtime is not None else "none (workloads without one never finish)"


def assumptions(timeline: KueueTimeline, options: KueueReplayOptions) -> tuple[str, ...]:
    """What the replay assumed (the report's and the wait estimate's notes)."""
    notes = [f"controller throughput: {options.timeline.throughput.describe()}"]
    source = timeline.runtimes
    runtime = options.timeline.runtime
    if source.drawn and runtime is not None and runtime.kind == "fixed":
        notes.append(f"{source.drawn:,} workload(s) without a declared runtime (annotation kqctl.dev/runtime) "
                     f"were assumed to run {runtime.describe()} (from their admission; those running at the start: "
                     "from the start)")
    elif source.drawn:
        notes.append(f"{source.drawn:,} workload(s) without a declared runtime ran for a draw from "
                     f"{_runtime_text(options.timeline)} (seed {options.timeline.seed}; those running at the start: "
                     "from the start)")
    if source.at_bound:
        notes.append(f"{source.at_bound:,} of those draws were longer than {MAX_DURATION_TEXT} and were cut to it")
    if source.unknown:
        notes.append(f"{source.unknown:,} workload(s) declare no runtime (annotation kqctl.dev/runtime) and no "
                     "--runtime was given: once admitted they hold their quota until the replay ends")
    if options.timeline.arrivals is not None:
        notes.append(arrival_note(timeline.arrivals_drawn, options.timeline.arrivals, options.timeline.seed,
                                  "workload(s)"))
    if timeline.dated_after_start:
        notes.append(f"{timeline.dated_after_start:,} running workload(s) are dated after the replay's start "
                     f"({timeline.start.isoformat().replace('+00:00', 'Z')}, --now): read as running since the start, "
                     "with a time to admission of 0 (as explain reads such a snapshot)")
    if options.finish_latency:
        notes.append(f"quota is released {format_duration(options.finish_latency)} after a workload's runtime ends")
    return tuple(notes)
