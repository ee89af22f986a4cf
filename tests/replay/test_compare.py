"""Two replays compared (every scheduler's diff): a workload that never gets in counts as never and is named; a
replay regression is one that got in before and never after."""

from __future__ import annotations

from kqctl.replay.compare import Waits, replay_regressions, shifts
from kqctl.replay.protocol import WorkloadLabels
from kqctl.replay.run import WorkloadTimes

LABELS = WorkloadLabels("q", "q", 0, "c")


def times(key: str, arrival: int | None, admitted: int | None, queue: str = "q") -> WorkloadTimes:
    labels = WorkloadLabels(queue, queue, 0, "c")
    return WorkloadTimes(key, labels, arrival, None, admitted, admitted, None, 0,
                         "Running" if admitted is not None else "Pending")


def test_a_percentile_that_falls_on_a_workload_that_never_got_in_is_never() -> None:
    waits = Waits.of([times("a", 0, 10), times("b", 0, 20), times("c", 0, None), times("d", 0, 40)])
    assert waits.known == (10, 20, 40) and waits.never == ("c",)
    assert (waits.at(50), waits.at(95), waits.at(100)) == (20, None, None)


def test_a_group_that_gets_worse_by_never_is_not_shown_as_better() -> None:
    """Before: every wait 1h. After: three quick and one never: P95 goes from 1h to never, not down to 1m."""
    before = [times(k, 0, 3_600_000) for k in "abcd"]
    after = [times("a", 0, 60_000), times("b", 0, 60_000), times("c", 0, 60_000), times("d", 0, None)]
    shift = shifts(before, after, "queue", lambda w: w.labels.target)[0]
    assert shift.after is not None and shift.after.at(95) is None and shift.after.never == ("d",)
    assert shift.moved and shift.worse


def test_workloads_running_at_the_start_are_no_waits() -> None:
    shift = shifts([times("a", None, 0)], [times("a", None, 0)], "queue", lambda w: w.labels.target)
    assert shift == ()


def test_a_replay_regression_got_in_before_and_never_after() -> None:
    before = [times("a", 0, 10), times("b", 0, None), times("c", 0, 5)]
    after = [times("a", 0, None), times("b", 0, None), times("c", 0, 50)]
    assert [(r.key, r.before_wait, r.after_state) for r in replay_regressions(before, after)] == [("a", 10, "Pending")]
