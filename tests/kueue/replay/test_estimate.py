"""explain's wait-time estimate: a replay of the snapshot in which what runs finishes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from replay_support import CQ, START, WL, snapshot
from support import REPO, Run

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.replay.estimate import estimate_from, replay_for_estimates, roughly
from kqctl.kueue.replay.report import KueueReplayOptions, replay_snapshot
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.load.objects import load_paths
from kqctl.replay.durations import parse_distribution


def test_a_waiting_workload_gets_in_when_the_running_one_finishes() -> None:
    report = replay_for_estimates(snapshot([CQ("q", "4")], [
        WL("running", "q", "4", created_ms=-700_000, admitted_ms=-600_000, runtime="30m"),
        WL("waiting", "q", "2", created_ms=-60_000),
    ]))
    estimate = estimate_from(report, "ns/waiting")
    assert estimate is not None
    # "running" has 20 minutes left; the requeue after its completion comes one second later (CYC-14),
    # then the admission is written.
    assert 20 * 60_000 + 1000 <= (estimate.admitted_after or 0) <= 20 * 60_000 + 1100
    assert estimate.sentence().startswith("at the current rate this workload is admitted in about 20 minutes")


def test_runtimes_nobody_declared_are_assumed_and_said_so() -> None:
    report = replay_for_estimates(snapshot([CQ("q", "4")], [
        WL("running", "q", "4", admitted_ms=-5_000_000), WL("waiting", "q", "2")]),
        assumed_runtime=parse_distribution("10m"))
    estimate = estimate_from(report, "ns/waiting")
    assert estimate is not None and 600_000 < (estimate.admitted_after or 0) < 602_000  # 10m from the start
    assert any("assumed to run 10m" in note for note in estimate.assumptions)


def test_a_workload_that_never_fits_is_not_given_a_time() -> None:
    report = replay_for_estimates(snapshot([CQ("q", "4")], [WL("huge", "q", "8")]))
    estimate = estimate_from(report, "ns/huge")
    assert estimate is not None and estimate.admitted_after is None
    assert estimate.sentence().startswith("not admitted in a replay")


QUEUE_OF_TEN = [WL("running", "q", "4", created_ms=-700_000, admitted_ms=-600_000, runtime="30m"),
                *[WL(f"w{i}", "q", "2", created_ms=-60_000 + i * 1000, runtime="10m") for i in range(10)]]


def test_a_replay_for_some_workloads_stops_once_they_have_finished_with_the_same_estimates() -> None:
    whole = replay_for_estimates(snapshot([CQ("q", "4")], QUEUE_OF_TEN))
    for keys in (["ns/w0"], ["ns/w3", "ns/w1"], ["ns/w9"]):
        early = replay_for_estimates(snapshot([CQ("q", "4")], QUEUE_OF_TEN), keys=keys)
        for key in keys:
            # Everything but how much was replayed (shown only for a workload that never gets in).
            assert replace(estimate_from(early, key), replayed=0) == replace(estimate_from(whole, key), replayed=0)
        last_finish = max((w.finished or 0) for w in early.workloads if w.key in keys)
        assert early.end == last_finish <= whole.end  # it stops with the last of them, not later
    assert whole.end - 600_000 > max(w.finished or 0 for w in whole.workloads if w.key in ("ns/w0", "ns/w1", "ns/w3"))


def test_a_replay_for_a_workload_that_never_gets_in_runs_to_the_end() -> None:
    documents = [*QUEUE_OF_TEN, WL("huge", "q", "8")]
    whole = replay_for_estimates(snapshot([CQ("q", "4")], documents))
    early = replay_for_estimates(snapshot([CQ("q", "4")], documents), keys=["ns/huge", "ns/w0"])
    assert early.end == whole.end
    assert estimate_from(early, "ns/huge") == estimate_from(whole, "ns/huge")


def test_waits_in_words() -> None:
    assert [roughly(ms) for ms in (1000, 45_000, 25 * 60_000, 210 * 60_000, 50 * 3_600_000)] == [
        "1 second", "45 seconds", "25 minutes", "3.5 hours", "2.1 days"]


def test_explain_prints_the_estimate_and_its_assumptions(kqctl: Callable[..., Run]) -> None:
    args = ("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", "--runtime", "30m")
    result = kqctl(*args)
    assert result.code == 0, result.err
    assert "Wait estimate: at the current rate this workload is admitted in about 30 minutes" in result.out
    assert "assumed: 6 workload(s) without a declared runtime" in result.out
    assert result.out.index("Wait estimate") < result.out.index("What would make it fit")
    data = json.loads(kqctl(*args, "-o", "json").out)
    assert data["waitEstimate"]["admittedAfterMs"] > 30 * 60_000 and "30 minutes" in data["waitEstimate"]["text"]
    assert json.loads(kqctl(*args, "-o", "json", "--no-estimate").out)["waitEstimate"] is None


def test_a_snapshot_whose_clock_is_before_its_dates_is_read_as_now(kqctl: Callable[..., Run]) -> None:
    # The README's example pins --now long before the sample's timestamps: what runs runs from now on.
    result = kqctl("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", "--now",
                   "2026-01-01T00:00:00Z")
    assert "Wait estimate: at the current rate this workload is admitted in about 60 minutes" in result.out


ESTIMATED_SAMPLES = ("cohort-borrowing", "preemption", "replay", "hierarchical-cohorts", "spot-gpu")


def test_the_estimates_replay_is_kqctl_replays_replay_read_for_the_workloads_asked_about() -> None:
    # The estimate runs the replay without building the report it does not read: the times it reads, the end and the
    # assumptions are those of the full report of the same replay (replay_snapshot).
    for name in ESTIMATED_SAMPLES:
        snap = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / name)]), START)
        keys = sorted(w.key for w in snap.workloads)
        for asked in ([], keys[:1], keys[-2:], keys[1::3]):
            runtime = parse_distribution("25m")
            light = replay_for_estimates(snap, None, runtime, asked)
            options = KueueReplayOptions(TimelineOptions(runtime=runtime, all_present=True),
                                         until_finished=frozenset(asked))
            full = replay_snapshot(snap, options)
            assert (light.end, light.assumptions) == (full.end, full.assumptions), name
            assert light.workloads == tuple(w for w in full.workloads if not asked or w.key in asked), name
