"""Two replays compared (Volcano's and YuniKorn's diff): a workload still waiting at the end counts as never and is
named; a replay regression is one that got in before and is still waiting after."""

from __future__ import annotations

import pytest

from kqctl.replay.compare import replay_assumptions, replay_regressions, shifts
from kqctl.replay.protocol import WorkloadLabels
from kqctl.replay.run import WorkloadTimes

LABELS = WorkloadLabels("q", "q", 0, "c")


def times(key: str, arrival: int | None, admitted: int | None) -> WorkloadTimes:
    waiting = admitted is None
    return WorkloadTimes(key, LABELS, arrival, None, admitted, admitted, None, 0,
                         "Pending" if waiting else "Running", waiting)


def test_a_group_that_gets_worse_by_never_is_not_shown_as_better() -> None:
    """Before: every wait 1h. After: three quick and one never: P95 goes from 1h to never, not down to 1m."""
    before = [times(k, 0, 3_600_000) for k in "abcd"]
    after = [times("a", 0, 60_000), times("b", 0, 60_000), times("c", 0, 60_000), times("d", 0, None)]
    shift = shifts(before, after, "queue", lambda w: w.labels.target)[0]
    assert shift.after is not None and shift.after.never_admitted == ("d",)
    assert shift.after.time_to_admission is not None and shift.after.time_to_admission.at(95) is None
    assert shift.moved and shift.worse


def test_workloads_running_at_the_start_are_no_waits() -> None:
    assert shifts([times("a", None, 0)], [times("a", None, 0)], "queue", lambda w: w.labels.target) == ()


def test_a_wait_before_the_start_is_no_wait() -> None:
    """Created an hour before the replay, admitted a minute into it: it waited a minute in the replay."""
    shift = shifts([times("a", -3_600_000, 60_000)], [times("a", -3_600_000, 60_000)], "queue",
                   lambda w: w.labels.target)[0]
    assert shift.before is not None and shift.before.time_to_admission is not None
    assert shift.before.time_to_admission.at(50) == 60_000 and not shift.moved


def test_a_replay_regression_got_in_before_and_is_still_waiting_after() -> None:
    before = [times("a", 0, 10), times("b", 0, None), times("c", 0, 5)]
    after = [times("a", 0, None), times("b", 0, None), times("c", 0, 50)]
    assert [(r.key, r.before_wait, r.after_state) for r in replay_regressions(before, after)] == [("a", 10, "Pending")]


@pytest.mark.parametrize(("before", "after", "said"), [
    (("runtime 30m", "a session every 1s"), ("runtime 30m", "a session every 1s"),
     ["runtime 30m", "a session every 1s"]),
    (("runtime 30m",), ("runtime 30m", "2 evicted bare pod(s) were deleted"),
     ["runtime 30m", "after: 2 evicted bare pod(s) were deleted"]),
    (("runtime 30m", "1 running workload(s) are dated after the start"), ("runtime 30m",),
     ["runtime 30m", "1 running workload(s) are dated after the start"]),
    ((), (), []),
])
def test_a_diffs_replay_assumptions_are_said_once_and_after_only_where_they_differ(
        before: tuple[str, ...], after: tuple[str, ...], said: list[str]) -> None:
    assert replay_assumptions(before, after) == said
