"""explain's wait-time estimate: "at the current rate this workload is admitted in about N minutes".

The estimate is a replay of the snapshot as it is: what runs now finishes after its runtime, Kueue's
cycles admit what then fits, and nothing new arrives (every pending workload of the snapshot is queued
at the start, as simulate reads it). Workloads that declare no runtime are assumed to run for ``assumed_runtime`` in all
(counted from their admission), and the estimate says so.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.replay.report import KueueReplayOptions, assumptions, replay_of
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.replay.durations import Distribution, format_duration
from kqctl.replay.run import WorkloadTimes

DEFAULT_ASSUMED_RUNTIME = Distribution("fixed", 3_600_000)  # 1h, stated whenever it is used


@dataclass(frozen=True)
class WaitEstimate:
    key: str
    admitted_after: int | None  # ms from the snapshot's time until it runs; None: not within the replay
    finished_after: int | None
    state: str  # its state at the end of the replay (Finished, Running, Pending, Inadmissible, ...)
    replayed: int  # ms of virtual time replayed
    assumptions: tuple[str, ...]
    fits_now: bool = True  # the snapshot's steady state admits it (nothing has to finish first)

    def sentence(self) -> str:
        """The estimate in words, as explain prints it."""
        if self.admitted_after is None:
            return (f"not admitted in a replay of {format_duration(self.replayed)} in which every running workload "
                    f"finishes; it ends {self.state.lower()}: only a change of quota or of the workloads ahead "
                    "gets it in")
        if self.admitted_after <= 1000 and self.fits_now:
            return "admitted in the next scheduling cycles (it fits now)"
        if self.admitted_after <= 1000:
            # It does not fit now: what frees its quota at once is a running workload already past its runtime.
            return ("admitted as the replay starts: workloads in its way have already run longer than their runtime "
                    "(declared, or the one assumed) and are taken to finish at once; until they do, it stays out")
        text = f"at the current rate this workload is admitted in about {roughly(self.admitted_after)}"
        if self.finished_after is not None:
            text += f" and finishes about {roughly(self.finished_after)} from now"
        return text


def roughly(ms: int) -> str:
    """A wait as people say it: about 40 seconds, 25 minutes, 3.5 hours, 2.1 days."""
    seconds = (ms + 500) // 1000
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = (seconds + 30) // 60
    if minutes < 120:
        return f"{minutes} minutes"
    tenths = (minutes * 10 + 30) // 60
    if tenths < 480:
        return f"{tenths // 10}.{tenths % 10} hours".replace(".0 hours", " hours")
    days = (tenths + 12) // 24  # tenths of a day
    return f"{days // 10}.{days % 10} days".replace(".0 days", " days")


@dataclass(frozen=True)
class EstimateReplay:
    """What the estimates read of their replay: the times of the workloads asked about (of every workload when none
    was named), the virtual time it ended at, and what it assumed."""

    end: int  # ms
    workloads: tuple[WorkloadTimes, ...]
    assumptions: tuple[str, ...]

    def workload(self, key: str) -> WorkloadTimes | None:
        return next((w for w in self.workloads if w.key == key), None)


def replay_for_explained(snapshot: Snapshot, simulation: SimulationOptions, assumed_runtime: Distribution | None,
                         keys: Collection[str], prebuilt: Simulation | None = None) -> EstimateReplay:
    """:func:`replay_for_estimates` for explain: under explain's own feature gates and fair sharing, with its memo of
    pod sets and shapes (in this process, or in the copy that replays meanwhile: kqctl/cli/forked.py). ``prebuilt``:
    explain's steady-state run as set up and never run (the copy's), taken when it is the replay's set-up
    (TimelineOptions.prebuilt)."""
    timeline = TimelineOptions(gates=simulation.gates, fair_sharing=simulation.fair_sharing, memo=simulation.memo,
                               prebuilt=prebuilt)
    return replay_for_estimates(snapshot, KueueReplayOptions(timeline), assumed_runtime, keys)


def replay_for_estimates(snapshot: Snapshot, options: KueueReplayOptions | None = None,
                         assumed_runtime: Distribution | None = None, keys: Collection[str] = ()) -> EstimateReplay:
    """One replay serves the estimates of every workload of ``keys`` (of the snapshot when empty). It stops once
    all of them have finished: what happens later cannot change when they were admitted and finished, and the
    rest of a 10,000-workload replay is most of its time. One that is never admitted still runs it to the end.

    The replay is ``kqctl replay``'s (replay_snapshot), without the report the estimates never read: the times of
    the other workloads, statistics per queue and usage over time (on 50,000 workloads a second of work), and without
    recording the usage over time that report would chart."""
    options = options or KueueReplayOptions()
    runtime = options.timeline.runtime or assumed_runtime or DEFAULT_ASSUMED_RUNTIME
    timeline_options = replace(options.timeline, runtime=runtime, all_present=True, track_usage=False)
    options = replace(options, timeline=timeline_options, until_finished=frozenset(keys))
    timeline, run = replay_of(snapshot, options)
    end, _ = run.advance()
    return EstimateReplay(end, run.times(options.until_finished or None), assumptions(timeline, options))


def estimate_from(report: EstimateReplay, key: str, fits_now: bool = True) -> WaitEstimate | None:
    """The estimate for ``key`` (None when the workload was not replayed, e.g. it is finished); ``fits_now``: the
    snapshot's steady state admits it."""
    times = report.workload(key)
    if times is None:
        return None
    admitted = None
    if times.admitted is not None and times.admitted >= 0:
        admitted = times.admitted
    finished = times.finished if times.finished is not None and admitted is not None else None
    notes = tuple(n for n in report.assumptions if "controller throughput" not in n)
    return WaitEstimate(key, admitted, finished, times.state, report.end, notes, fits_now)
