"""The wait estimate's shortcuts give the estimate as before: its replay records no usage over time (nothing reads
it), and on a large input ``kqctl explain`` replays in a forked worker while it explains (cli/forked.py)."""

from __future__ import annotations

import dataclasses
import os

import pytest
from replay_support import CQ, WL, snapshot
from support import REPO, run_kqctl

from kqctl.cli import forked
from kqctl.cli.forked import EstimateAhead
from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.simulation import SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.replay.estimate import replay_for_estimates
from kqctl.kueue.replay.report import KueueReplayOptions, replay_of
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.load.objects import load_paths
from kqctl.replay.durations import parse_distribution

NOW = "2026-01-01T01:00:00Z"


def _cluster() -> object:
    queues = [CQ("a", "4", cohort="c", within="LowerPriority", reclaim="Any"), CQ("b", "3", cohort="c"), CQ("d", "2")]
    return snapshot(queues, [WL(f"w{i}", "abd"[i % 3], str(1 + i % 3), created_ms=-900 * i, priority=i % 4,
                                runtime=f"{1 + i % 5}m" if i % 4 else None,
                                admitted_ms=-300 if i in (0, 4) else None) for i in range(18)])


@pytest.mark.parametrize("runtime", [None, "7m"])
def test_a_replay_without_usage_over_time_gives_every_workload_the_same_times(runtime: str | None) -> None:
    given = _cluster()
    timeline = TimelineOptions(all_present=True, runtime=parse_distribution(runtime) if runtime else None)
    runs = []
    for track_usage in (True, False):
        options = KueueReplayOptions(dataclasses.replace(timeline, track_usage=track_usage))
        kueue, replay = replay_of(given, options)  # type: ignore[arg-type]
        end = replay.advance()
        runs.append((end, replay.times(), replay.cycles, kueue.writes, kueue.evictions))
        if not track_usage:
            assert all(point[1] == 0 for track in kueue.usage() for point in track.points)
    assert runs[0] == runs[1]


def test_the_estimate_of_every_sample_workload_is_the_same_as_with_usage_recorded() -> None:
    for sample in ("preemption", "cohort-borrowing", "replay"):
        given = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / sample)]), None)
        keys = sorted(f"{w.namespace}/{w.name}" for w in given.workloads)
        ours = replay_for_estimates(given, None, None, keys)
        with_usage = KueueReplayOptions(TimelineOptions(track_usage=True))
        # replay_for_estimates turns usage off whatever it is given: compare with the replay as kqctl replay runs it
        options = dataclasses.replace(with_usage, timeline=dataclasses.replace(
            with_usage.timeline, runtime=parse_distribution("1h"), all_present=True), until_finished=frozenset(keys))
        _, replay = replay_of(given, options)
        end, _ = replay.advance()
        assert ours.end == end and ours.workloads == replay.times(keys), sample


def _big(workers: int = 3) -> object:
    return snapshot([CQ("a", "4", cohort="c"), CQ("b", "2", cohort="c")],
                    [WL(f"w{i}", "ab"[i % 2], "1", created_ms=-100 * i, runtime="2m") for i in range(workers)])


def test_the_worker_sends_the_replay_this_process_would_make(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "LARGE_INPUT", 0)
    given = _big(12)
    ahead = EstimateAhead.start(given, SimulationOptions(), None, "ns/w9")  # type: ignore[arg-type]
    assert ahead is not None
    try:
        assert ahead.report(["ns/w9"]) == replay_for_estimates(given, None, None, ["ns/w9"])  # type: ignore[arg-type]
    finally:
        ahead.close()


def test_a_worker_whose_replay_is_not_wanted_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "LARGE_INPUT", 0)
    ahead = EstimateAhead.start(_big(), SimulationOptions(), None, "ns/w1")  # type: ignore[arg-type]
    assert ahead is not None
    pid = ahead.pid
    assert ahead.report(["ns/w1", "ns/w2"]) is None  # asked for more than its key: replayed here instead
    ahead.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left


def test_no_worker_for_a_small_input_or_a_workload_holding_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    assert EstimateAhead.start(_big(), SimulationOptions(), None, "ns/w1") is None  # type: ignore[arg-type]
    monkeypatch.setattr(forked, "LARGE_INPUT", 0)
    holding = snapshot([CQ("a", "4")], [WL("w", "a", "1", admitted_ms=-10), WL("v", "a", "1")])
    assert EstimateAhead.start(holding, SimulationOptions(), None, "ns/w") is None  # type: ignore[arg-type]


@pytest.mark.parametrize("sample", ["preemption", "cohort-borrowing", "replay"])
def test_explain_prints_the_same_with_the_worker(monkeypatch: pytest.MonkeyPatch, sample: str) -> None:
    given = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / sample)]), None)
    for workload in sorted(f"{w.namespace}/{w.name}" for w in given.workloads):
        for fmt in ("json", "table"):
            arguments = ("explain", workload, f"samples/{sample}", "--now", NOW, "-o", fmt, "--runtime", "20m")
            monkeypatch.setattr(forked, "LARGE_INPUT", 10**9)
            alone = run_kqctl(*arguments)
            monkeypatch.setattr(forked, "LARGE_INPUT", 0)
            with_worker = run_kqctl(*arguments)
            assert (with_worker.code, with_worker.out, with_worker.err) == (alone.code, alone.out, alone.err), \
                (sample, workload, fmt)


# --- the replay's copy takes explain's steady-state run as set up (simulation.set_up_alike) ---------------------------


def _explained(sample: str) -> tuple[object, SimulationOptions]:
    from kqctl.cli.simulate import parse_now
    from kqctl.kueue.engine.workloads import WorkloadMemo

    now = parse_now(NOW)
    given = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / sample)]), now)
    return given, SimulationOptions(now=now, memo=WorkloadMemo())


def _explains_set_up(given: object, options: SimulationOptions) -> object:
    """The run explain sets up for its steady state: its options with the hook of the first cycle."""
    from kqctl.kueue.engine.simulation import Simulation

    return Simulation(given, dataclasses.replace(options, on_cycle=lambda result, limit: None))  # type: ignore[arg-type]


@pytest.mark.parametrize("sample", ["preemption", "cohort-borrowing", "replay", "spot-gpu", "fair-sharing"])
def test_a_replay_from_explains_set_up_gives_every_estimate_as_its_own_set_up(sample: str) -> None:
    from kqctl.kueue.replay.estimate import replay_for_explained
    from kqctl.kueue.replay.timeline import KueueTimeline

    given, options = _explained(sample)
    keys = sorted(f"{w.namespace}/{w.name}" for w in given.workloads)  # type: ignore[attr-defined]
    own = replay_for_explained(given, options, None, keys)  # type: ignore[arg-type]
    prebuilt = _explains_set_up(given, options)
    timeline = TimelineOptions(gates=options.gates, memo=options.memo, all_present=True,
                               prebuilt=prebuilt)  # type: ignore[arg-type]
    assert KueueTimeline(given, timeline).sim is prebuilt  # type: ignore[arg-type]
    taken = replay_for_explained(given, options, None, keys, _explains_set_up(given, options))  # type: ignore[arg-type]
    assert taken == own


def test_a_set_up_is_taken_only_when_it_is_the_replays_own() -> None:
    from kqctl.kueue.engine.features import FeatureGates
    from kqctl.kueue.engine.simulation import set_up_alike

    given, options = _explained("preemption")
    assert set_up_alike(_explains_set_up(given, options), given, options)  # type: ignore[arg-type]
    ran = _explains_set_up(given, options)
    ran.run_cycles()  # type: ignore[attr-defined]
    assert not set_up_alike(ran, given, options)  # type: ignore[arg-type]
    gated = dataclasses.replace(options, gates=FeatureGates.parse("SchedulingEquivalenceHashing=false"))
    assert not set_up_alike(_explains_set_up(given, options), given, gated)  # type: ignore[arg-type]
    later = dataclasses.replace(options, now=options.now.replace(year=2027))  # type: ignore[union-attr]
    assert not set_up_alike(_explains_set_up(given, options), given, later)  # type: ignore[arg-type]
    fewer = dataclasses.replace(given, workloads=given.workloads[1:])  # type: ignore[attr-defined,type-var]
    assert not set_up_alike(_explains_set_up(given, options), fewer, options)  # type: ignore[arg-type]
    queues = dataclasses.replace(given, local_queues=dict(given.local_queues))  # type: ignore[attr-defined,type-var]
    assert not set_up_alike(_explains_set_up(given, options), queues, options)  # type: ignore[arg-type]
