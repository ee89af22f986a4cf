"""Evictions are counted for every workload of a replay, those running at the start included: overall, per queue and
per priority (QA: a Volcano replay listed two evictions of PodGroups running at the start, yet counted 0 and left
their queue out of the per-queue table). Waits stay those of the workloads that arrived."""

from __future__ import annotations

import pytest

from kqctl.replay.protocol import WorkloadLabels
from kqctl.replay.run import WorkloadTimes
from kqctl.replay.summary import group_stats


def workload(key: str, queue: str, arrival: int | None, evictions: int) -> WorkloadTimes:
    return WorkloadTimes(key, WorkloadLabels(queue, queue, 0, "p"), arrival, None, 0 if arrival is None else 5,
                         0 if arrival is None else 5, None, evictions, "Running")


@pytest.mark.parametrize(("workloads", "expected"), [
    # (queue, workloads counted in waits, evictions)
    ([workload("a/x", "a", None, 2), workload("b/y", "b", 0, 0)], [("a", 0, 2), ("b", 1, 0)]),
    ([workload("a/x", "a", None, 1), workload("a/y", "a", 0, 1)], [("a", 1, 2)]),
    ([workload("a/x", "a", None, 0), workload("b/y", "b", 0, 0)], [("b", 1, 0)]),  # nothing to say about a
])
def test_evictions_of_workloads_running_at_the_start_are_counted(workloads: list[WorkloadTimes],
                                                                 expected: list[tuple[str, int, int]]) -> None:
    rows = group_stats(workloads, lambda w: w.labels.queue)
    assert [(r.name, r.workloads, r.evictions) for r in rows] == expected
