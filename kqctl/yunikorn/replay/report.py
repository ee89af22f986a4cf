"""One replay of a YuniKorn snapshot, summed up per application (:class:`kqctl.replay.report.TimelineReport`,
its pods kept alongside): the entry point the commands call, pure and deterministic for a seed.

An application's times are its pods' put together: it arrives with its first pod, waits until its first
allocation (the core's Accepted -> Running), and finishes when its last pod does (never, while one has not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kqctl.replay.arrival_draws import note as arrival_note
from kqctl.replay.durations import format_duration
from kqctl.replay.protocol import WorkloadLabels
from kqctl.replay.report import TimelineReport, Words, summarize
from kqctl.replay.run import ReplayOptions, WorkloadTimes, replay
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine.gang import RULES as GANG_RULES
from kqctl.yunikorn.replay.timeline import RULES, TimelineOptions, YuniKornTimeline

WORDS = Words("YuniKorn", "application", "queue", "allocated", "cycle", "allocated", "guaranteed")
STATE_ORDER = ("Running", "Reserved", "Pending", "Preempted", "Deleted", "Rejected", "Failed", "Finished")


@dataclass(frozen=True)
class YuniKornReplayOptions:
    timeline: TimelineOptions = TimelineOptions()
    until: int | None = None  # ms
    finish_latency: int = 0  # ms


def replay_snapshot(snapshot: Snapshot, options: YuniKornReplayOptions | None = None,
                    on_progress: Callable[[int, int, int], None] | None = None) -> TimelineReport:
    return replay_timeline(snapshot, options, on_progress)[0]


def replay_timeline(snapshot: Snapshot, options: YuniKornReplayOptions | None = None,
                    on_progress: Callable[[int, int, int], None] | None = None) \
        -> tuple[TimelineReport, YuniKornTimeline]:
    options = options or YuniKornReplayOptions()
    timeline = YuniKornTimeline(snapshot, options.timeline)
    until = min(options.until if options.until is not None else timeline.horizon, timeline.horizon)
    run = replay(timeline, ReplayOptions(until, options.finish_latency, on_progress))
    apps = applications(run.workloads)
    rules = RULES + (GANG_RULES if timeline.partition.gang_apps else ())  # the gang rules where gangs took part
    report = summarize(run, apps, WORDS, timeline.start, timeline.runtimes.describe(), options.timeline.seed,
                       timeline.interval, timeline.evictions, rules, _assumptions(timeline, options), (),
                       run.usage, pods=run.workloads)
    return report, timeline


def applications(pods: Sequence[WorkloadTimes]) -> tuple[WorkloadTimes, ...]:
    """Per application (the pods' ``workload_class`` carries its ID): the times of its pods put together."""
    by_app: dict[str, list[WorkloadTimes]] = {}
    for pod in pods:
        by_app.setdefault(pod.labels.workload_class, []).append(pod)
    return tuple(_application(app_id, members) for app_id, members in sorted(by_app.items()))


def _application(app_id: str, pods: list[WorkloadTimes]) -> WorkloadTimes:
    arrivals = [p.arrival for p in pods if p.arrival is not None]
    # Running at the start: an application with a pod running then did not arrive during the replay.
    arrival = min(arrivals) if arrivals and all(p.arrival is not None for p in pods) else None
    firsts = [p.first_admitted for p in pods if p.first_admitted is not None]
    lasts = [p.admitted for p in pods if p.admitted is not None]
    done = [p.finished for p in pods]
    finished = max(d for d in done if d is not None) if all(d is not None for d in done) else None
    runtimes = [p.runtime for p in pods if p.runtime is not None]
    first = pods[0].labels
    labels = WorkloadLabels(first.queue, first.target, max(p.labels.priority for p in pods), app_id)
    # Waiting for its first allocation (or, evicted, for its next): no pod runs or has finished, one still waits.
    waiting = any(p.waiting for p in pods) and not any(p.state == "Running" or p.finished is not None for p in pods)
    return WorkloadTimes(app_id, labels, arrival, max(runtimes) if len(runtimes) == len(pods) else None,
                         min(firsts) if firsts else None, min(lasts) if lasts else None, finished,
                         sum(p.evictions for p in pods), _state(pods), waiting)


def _state(pods: list[WorkloadTimes]) -> str:
    """The application's state: Running while a pod runs, else the most telling of its pods'."""
    states = {p.state for p in pods}
    return next((s for s in STATE_ORDER if s in states), sorted(states)[0])


def _assumptions(timeline: YuniKornTimeline, options: YuniKornReplayOptions) -> list[str]:
    notes = [f"the shim sends new pods to the core every {format_duration(timeline.interval)} "
             "(service.schedulingInterval); a new application's first pods wait two more runs of its loop; the "
             "core schedules at once after every change"]
    notes += timeline.runtimes.notes("pod(s)")
    if options.timeline.arrivals is not None:
        notes.append(arrival_note(timeline.arrivals_drawn, options.timeline.arrivals, options.timeline.seed,
                                  "application(s)"))
    if timeline.recreated:
        notes.append(f"{timeline.recreated:,} preempted pod(s) with a controller were made again by it (shown under "
                     "the first pod's name)")
    if timeline.deleted:
        notes.append(f"{timeline.deleted:,} preempted bare pod(s) were deleted: nothing makes a bare pod again")
    if options.finish_latency:
        notes.append(f"allocations are released {format_duration(options.finish_latency)} after a pod's runtime "
                     "ends")
    return notes
