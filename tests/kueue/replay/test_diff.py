"""diff: which workloads change decision, flavor, borrowing or victims; regressions; configuration fields."""

from __future__ import annotations

from replay_support import CQ, WL, snapshot

from kqctl.kueue.replay.diff import (
    BORROWING,
    DECISION,
    FLAVOR,
    VICTIMS,
    WorkloadView,
    compare,
    diff_snapshots,
)
from kqctl.kueue.replay.report import KueueReplayOptions
from kqctl.kueue.replay.throughput import Throughput
from kqctl.kueue.replay.timeline import TimelineOptions


def view(decision: str = "Admitted", flavors: tuple[tuple[str, str, str], ...] = (("main", "cpu", "a"),),
         borrowed: tuple[tuple[str, str, int], ...] = (), victims: tuple[str, ...] = ()) -> WorkloadView:
    return WorkloadView(decision, "q", flavors, borrowed, victims, None, "")


def test_a_changed_decision_from_admitted_is_a_regression() -> None:
    change = compare("ns/w", view(), view("Inadmissible", ()))
    assert change is not None and change.kinds == (DECISION,) and change.regression


def test_getting_in_is_a_change_but_not_a_regression() -> None:
    change = compare("ns/w", view("Pending", ()), view())
    assert change is not None and change.kinds == (DECISION,) and not change.regression


def test_flavor_borrowing_and_victims_changes_of_admitted_workloads() -> None:
    change = compare("ns/w", view(), view(flavors=(("main", "cpu", "b"),), borrowed=(("b", "cpu", 2000),),
                                            victims=("ns/v",)))
    assert change is not None and change.kinds == (FLAVOR, BORROWING, VICTIMS) and not change.regression


def test_borrowing_more_of_the_same_flavor_is_a_borrowing_change_q7() -> None:
    change = compare("ns/w", view(borrowed=(("a", "cpu", 1000),)), view(borrowed=(("a", "cpu", 3000),)))
    assert change is not None and change.kinds == (BORROWING,)


def test_the_same_outcome_is_no_change() -> None:
    assert compare("ns/w", view(), view()) is None


def test_less_quota_turns_an_admission_into_a_regression_and_the_field_is_listed() -> None:
    workloads = [WL("a", "q", "3", runtime="10m"), WL("b", "q", "3", created_ms=1, runtime="10m")]
    report = diff_snapshots(snapshot([CQ("q", "6")], workloads), snapshot([CQ("q", "4")], workloads))
    assert [c.key for c in report.regressions] == ["ns/b"]
    assert [(c.name, c.field, c.before, c.after) for c in report.configuration] == [
        ("q", "default/cpu nominalQuota", "6", "4")]


def test_with_replays_the_time_to_admission_percentiles_move() -> None:
    workloads = [WL(f"w{i}", "q", "2", created_ms=i, runtime="10m") for i in range(6)]
    replay = KueueReplayOptions(TimelineOptions(throughput=Throughput(fixed_ms=0)))
    report = diff_snapshots(snapshot([CQ("q", "4")], workloads), snapshot([CQ("q", "12")], workloads), replay=replay)
    assert report.percentiles is not None
    (queue,) = [s for s in report.percentiles if s.by == "clusterQueue"]
    assert queue.before is not None and queue.after is not None
    assert queue.before.p95 > 20 * 60_000 and queue.after.p95 < 1000 and queue.moved
