"""One replay of a Volcano snapshot, summed up (:class:`kqctl.replay.report.TimelineReport`): the entry point the
commands call, pure and deterministic for a seed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kqctl.replay.arrival_draws import note as arrival_note
from kqctl.replay.durations import format_duration
from kqctl.replay.report import TimelineReport, Words, summarize
from kqctl.replay.run import ReplayOptions, replay
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.replay.timeline import DELETED, RULES, TimelineOptions, VolcanoTimeline

WORDS = Words("Volcano", "PodGroup", "Queue", "running", "session", "allocated", "deserved", "capability or cluster")


@dataclass(frozen=True)
class VolcanoReplayOptions:
    timeline: TimelineOptions
    until: int | None = None  # ms
    finish_latency: int = 0  # ms


def replay_snapshot(snapshot: Snapshot, options: VolcanoReplayOptions,
                    on_progress: Callable[[int, int, int], None] | None = None) -> TimelineReport:
    """Replay ``snapshot`` (its future-dated PodGroups arriving on time) until nothing is left to happen."""
    return replay_timeline(snapshot, options, on_progress)[0]


def replay_timeline(snapshot: Snapshot, options: VolcanoReplayOptions,
                    on_progress: Callable[[int, int, int], None] | None = None) \
        -> tuple[TimelineReport, VolcanoTimeline]:
    """The report, and the timeline as the replay left it (its end state: tests compare it with simulate's)."""
    timeline = VolcanoTimeline(snapshot, options.timeline)
    until = min(options.until if options.until is not None else timeline.horizon, timeline.horizon)
    run = replay(timeline, ReplayOptions(until, options.finish_latency, on_progress))
    return summarize(run, run.workloads, WORDS, timeline.start, timeline.runtimes.describe(), options.timeline.seed,
                     timeline.period, timeline.evictions, RULES, _assumptions(timeline, options),
                     [*snapshot.warnings, *snapshot.limitations], run.usage), timeline


def _assumptions(timeline: VolcanoTimeline, options: VolcanoReplayOptions) -> list[str]:
    notes = [f"a session every {format_duration(timeline.period)} (vc-scheduler --schedule-period) when something "
             "changed; binds take effect in their session, evicted pods leave their node at once"]
    notes += timeline.runtimes.notes("PodGroup(s)")
    if options.timeline.arrivals is not None:
        notes.append(arrival_note(timeline.arrivals_drawn, options.timeline.arrivals, options.timeline.seed,
                                  "PodGroup(s)"))
    if timeline.deleted_pods:
        ended = sum(1 for why in timeline.ended.values() if why == DELETED)
        gone = f"; {ended:,} PodGroup(s) lost every pod" if ended else ""
        notes.append(f"{timeline.deleted_pods:,} evicted bare pod(s) were deleted: nothing makes a deleted bare pod "
                     f"again (a pod with a controller is made again by it){gone}")
    if timeline.livelocks:
        notes.append(f"{timeline.livelocks:,} time(s) the sessions came back to a state seen since the last arrival "
                     "or completion (a livelock: pods evicted and bound over and over); sessions then waited for the "
                     "next arrival or completion")
    if options.finish_latency:
        notes.append(f"pods leave their nodes {format_duration(options.finish_latency)} after a job's runtime ends")
    return notes
