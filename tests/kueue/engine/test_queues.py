"""A ClusterQueue's pending workloads (kqctl/kueue/engine/queues.py): heap order and requeueing (CYC-2, 11..14, 17)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kqctl.kueue.engine.queues import (
    BEST_EFFORT_FIFO,
    FAILED_AFTER_NOMINATION,
    NAMESPACE_MISMATCH,
    NO_FIT,
    PENDING_PREEMPTION,
    PREEMPTION_NO_CANDIDATES,
    STRICT_FIFO,
    PendingQueue,
    pop_heads,
)
from kqctl.kueue.engine.workloads import WorkloadInfo, build_workload_info
from tests.kueue.engine.manifests import snapshot, workload


def infos(*documents: dict[str, Any]) -> dict[str, WorkloadInfo]:
    built = snapshot(*documents)
    return {w.name: build_workload_info(w, None, built.config) for w in built.workloads}


def pop_all(queue: PendingQueue) -> list[str]:
    popped = []
    while (head := queue.pop()) is not None:
        popped.append(head.model.name)
    return popped


def test_cyc_2_higher_priority_then_earlier_then_uid_first() -> None:
    w = infos(workload("late", priority=5, created="2025-12-31T10:00:00Z"),
              workload("early", priority=5, created="2025-12-31T09:00:00Z"),
              workload("high", priority=9, created="2025-12-31T11:00:00Z"),
              workload("b-uid", priority=0, uid="b"), workload("a-uid", priority=0, uid="a"))
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    for info in w.values():
        queue.push(info)
    assert [i.model.name for i in queue.ordered()] == ["high", "early", "late", "a-uid", "b-uid"]
    assert pop_all(queue) == ["high", "early", "late", "a-uid", "b-uid"]


def test_cyc_3_every_pop_counts_even_on_an_empty_heap() -> None:
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    assert queue.pop() is None and queue.pop() is None
    assert queue.pop_cycle == 2


@pytest.mark.parametrize(("strategy", "reason", "back_in_heap"), [
    (BEST_EFFORT_FIFO, NO_FIT, False),
    (BEST_EFFORT_FIFO, PREEMPTION_NO_CANDIDATES, False),
    (BEST_EFFORT_FIFO, NAMESPACE_MISMATCH, False),
    (BEST_EFFORT_FIFO, FAILED_AFTER_NOMINATION, True),
    (BEST_EFFORT_FIFO, PENDING_PREEMPTION, True),
    (STRICT_FIFO, NO_FIT, True),
    (STRICT_FIFO, PREEMPTION_NO_CANDIDATES, True),
    (STRICT_FIFO, NAMESPACE_MISMATCH, False),
])
def test_cyc_11_a_head_goes_back_to_the_heap_or_to_the_inadmissible_set(strategy: str, reason: str,
                                                                      back_in_heap: bool) -> None:
    w = infos(workload("head"))["head"]
    queue = PendingQueue("cq", strategy)
    queue.push(w)
    assert queue.pop() is w
    queue.queue_inadmissible_cycle = -1  # no requeue event since it was popped
    queue.requeue(w, reason)
    assert ("ns/head" in queue.active, "ns/head" in queue.inadmissible) == (back_in_heap, not back_in_heap)


def test_cyc_11_a_requeue_event_after_the_pop_sends_the_head_back_to_the_heap() -> None:
    w = infos(workload("head"))["head"]
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    queue.push(w)
    queue.pop()
    queue.queue_inadmissible(lambda _: True)  # the event: at the current pop cycle
    queue.requeue(w, NO_FIT)
    assert "ns/head" in queue.active


def test_cyc_14_a_requeue_event_on_a_queue_with_nothing_inadmissible_is_remembered_as_queue_inadmissible_does() -> None:
    w = infos(workload("head", cpu="2"), workload("twin", cpu="2", created="2025-12-31T02:00:00Z"))
    event, moved = PendingQueue("cq", BEST_EFFORT_FIFO), PendingQueue("cq", BEST_EFFORT_FIFO)
    for queue in (event, moved):
        queue.push(w["head"])
        queue.pop()
        queue.queue_inadmissible_cycle = -1
    assert event.requeue_event() is False  # nothing to move
    assert moved.queue_inadmissible(lambda _: True) == 0
    assert event.queue_inadmissible_cycle == moved.queue_inadmissible_cycle == event.pop_cycle
    event.requeue(w["head"], NO_FIT)  # the event came after the pop: back to the heap at once (CYC-11)
    assert "ns/head" in event.active
    event.pop()
    event.queue_inadmissible_cycle = -1
    event.requeue(w["head"], NO_FIT)  # now inadmissible, its shape bulk-moved (CYC-12)
    assert event.bulk_moved_shapes and event.requeue_event() is True and not event.bulk_moved_shapes


def test_cyc_12_equivalent_workloads_follow_a_no_fit_head_into_the_inadmissible_set() -> None:
    w = infos(workload("head", cpu="2", created="2025-12-31T01:00:00Z"),
              workload("twin", cpu="2", namespace="other", created="2025-12-31T02:00:00Z"),
              workload("smaller", cpu="1", created="2025-12-31T03:00:00Z"),
              workload("late-twin", cpu="2", created="2025-12-31T04:00:00Z"))
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    for name in ("head", "twin", "smaller"):
        queue.push(w[name])
    queue.pop()
    queue.requeue(w["head"], NO_FIT)
    assert sorted(queue.inadmissible) == ["ns/head", "other/twin"]
    queue.push(w["late-twin"])  # a later arrival of the same shape goes straight to the inadmissible set
    assert sorted(queue.active) == ["ns/smaller"] and "ns/late-twin" in queue.inadmissible


def test_cyc_12_strict_fifo_moves_no_equivalent_workload() -> None:
    w = infos(workload("head", cpu="2", created="2025-12-31T01:00:00Z"),
              workload("twin", cpu="2", created="2025-12-31T02:00:00Z"))
    queue = PendingQueue("cq", STRICT_FIFO)
    for info in w.values():
        queue.push(info)
    queue.pop()
    queue.requeue(w["head"], NAMESPACE_MISMATCH)
    assert list(queue.active) == ["ns/twin"]


def test_cyc_13_a_waiting_preemptor_is_the_head_of_a_best_effort_fifo_queue_until_admitted() -> None:
    w = infos(workload("low", priority=0), workload("high", priority=9))
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    queue.push(w["low"])
    assert queue.pop() is w["low"]
    queue.requeue(w["low"], PENDING_PREEMPTION)  # "low" now waits for its victims
    queue.push(w["high"])
    assert queue.pop() is w["low"], "the sticky preemptor comes before a higher priority"
    queue.requeue(w["low"], PENDING_PREEMPTION)
    queue.forget_preemptor("ns/low")  # admitted (or gone): no longer sticky
    assert queue.pop() is w["high"]


def test_cyc_13_in_a_strict_fifo_queue_the_preemptor_keeps_its_place() -> None:
    w = infos(workload("low", priority=0), workload("high", priority=9))
    queue = PendingQueue("cq", STRICT_FIFO)
    queue.push(w["low"])
    queue.pop()
    queue.requeue(w["low"], PENDING_PREEMPTION)
    queue.push(w["high"])
    assert queue.pop() is w["high"]


def test_cyc_14_a_requeue_event_moves_back_only_workloads_whose_namespace_still_matches() -> None:
    w = infos(workload("kept"), workload("moved", namespace="other"))
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    queue.inadmissible.update({i.key: i for i in w.values()})
    assert queue.queue_inadmissible(lambda info: info.namespace == "other") == 1
    assert (list(queue.active), list(queue.inadmissible)) == (["other/moved"], ["ns/kept"])
    assert len(queue) == 2


def test_cyc_17_a_workload_in_backoff_waits_in_the_inadmissible_set() -> None:
    w = infos(workload("backoff"))["backoff"]
    queue = PendingQueue("cq", BEST_EFFORT_FIFO)
    queue.push(w, backoff_expired=False)
    assert queue.pop() is None and "ns/backoff" in queue.inadmissible


def test_fs_11_admission_fair_sharing_puts_the_lower_local_queue_score_first() -> None:
    w = infos(workload("busy-queue", priority=9), workload("idle-queue", priority=0))
    queue = PendingQueue("cq", BEST_EFFORT_FIFO, afs_score=lambda info: 5.0 if info.model.name == "busy-queue" else 1.0)
    for info in w.values():
        queue.push(info)
    assert pop_all(queue) == ["idle-queue", "busy-queue"]


def test_cyc_3_pop_heads_pops_each_queue_in_turn_and_counts_the_empty_ones() -> None:
    w = infos(workload("only", cpu="1"))
    empty, busy = PendingQueue("a", BEST_EFFORT_FIFO), PendingQueue("b", BEST_EFFORT_FIFO)
    busy.push(w["only"])
    assert pop_heads([("a", empty), ("b", busy)]) == [(w["only"], "b")]
    assert pop_heads([("a", empty), ("b", busy)]) == []
    assert empty.pop_cycle == busy.pop_cycle == 2


@pytest.mark.parametrize("seed", range(12))
def test_cyc_12_grouped_equivalents_behave_as_plain_sets_under_random_operations(seed: int) -> None:
    """The groups a bulk move parks (with the marker a popped group is owed until the heap is read again) give the
    heads and sets that plain sets give, whatever pushes, pops, requeues and requeue events come in any order."""
    rng = random.Random(seed)
    documents = [workload(f"w{i}", cpu=str(rng.choice((1, 2, 3))), namespace=rng.choice(("ns", "other")),
                          priority=rng.choice((0, 5)), created=f"2025-12-31T0{rng.randrange(10)}:{i:02d}:00Z")
                 for i in range(16)]
    grouped_infos, plain_infos = infos(*documents), infos(*documents)
    grouped, plain = PendingQueue("cq", BEST_EFFORT_FIFO), PendingQueue("cq", BEST_EFFORT_FIFO)
    plain.track_fingerprint(keep_groups=False)  # plain sets from the start, no groups
    popped: list[str] = []
    for _ in range(120):
        action = rng.random()
        if action < 0.35:
            name = rng.choice(sorted(grouped_infos))
            if grouped_infos[name].key not in grouped.active:
                grouped.push(grouped_infos[name])
                plain.push(plain_infos[name])
        elif action < 0.75:
            [grouped_head], [plain_head] = ([h.model.name for h, _ in pop_heads([("cq", q)])] or [None]
                                            for q in (grouped, plain))
            assert grouped_head == plain_head
            if grouped_head is not None:
                popped.append(grouped_head)
                reason = rng.choice((NO_FIT, PREEMPTION_NO_CANDIDATES, PREEMPTION_NO_CANDIDATES, PENDING_PREEMPTION,
                                     "admitted"))
                if reason == "admitted":  # it leaves the queue: its equivalents stay where they are
                    continue
                grouped.requeue(grouped_infos[grouped_head], reason)
                plain.requeue(plain_infos[grouped_head], reason)
        else:
            assert grouped.queue_inadmissible(lambda w: True) == plain.queue_inadmissible(lambda w: True)
        assert sorted(grouped.active) == sorted(plain.active)
        assert sorted(grouped.inadmissible) == sorted(plain.inadmissible)
        assert grouped.has_inadmissible() == plain.has_inadmissible() == bool(plain.inadmissible)
        assert grouped.pop_cycle == plain.pop_cycle
    assert len(set(popped)) > 3, popped


@pytest.mark.parametrize("seed", range(12))
def test_sim_7_grouped_sets_keep_the_fingerprint_of_plain_sets(seed: int) -> None:
    """A queue that keeps fingerprints keeps its groups of equivalents (a group moves between the sets in one step):
    under random pushes, pops (some heads with a scan memory), requeues and requeue events its heads, sets and
    fingerprint are those of plain fingerprinted sets, also when the fingerprints are taken again midway."""
    from kqctl.kueue.engine.workloads import ScanMemory

    rng = random.Random(seed)
    documents = [workload(f"w{i}", cpu=str(rng.choice((1, 2))), namespace=rng.choice(("ns", "other")),
                          priority=rng.choice((0, 5)), created=f"2025-12-31T0{rng.randrange(10)}:{i:02d}:00Z")
                 for i in range(16)]
    tracked_infos, plain_infos = infos(*documents), infos(*documents)
    tracked, plain = PendingQueue("cq", BEST_EFFORT_FIFO), PendingQueue("cq", BEST_EFFORT_FIFO)
    plain.track_fingerprint(keep_groups=False)
    tracked.track_fingerprint()
    grouped_once = False
    for step in range(160):
        action = rng.random()
        if action < 0.3:
            name = rng.choice(sorted(tracked_infos))
            if tracked_infos[name].key not in tracked.active:
                tracked.push(tracked_infos[name])
                plain.push(plain_infos[name])
        elif action < 0.75:
            [tracked_head], [plain_head] = ([h.model.name for h, _ in pop_heads([("cq", q)])] or [None]
                                            for q in (tracked, plain))
            assert tracked_head == plain_head
            if tracked_head is not None:
                reason = rng.choice((NO_FIT, PREEMPTION_NO_CANDIDATES, PENDING_PREEMPTION, "admitted"))
                if reason == "admitted":
                    continue
                if rng.random() < 0.3:  # tried: a scan memory without pending flavors, in the active token
                    for info in (tracked_infos[tracked_head], plain_infos[tracked_head]):
                        info.scan_memory = ScanMemory([{"cpu": -1}], step, 0, "")
                tracked.requeue(tracked_infos[tracked_head], reason)
                plain.requeue(plain_infos[tracked_head], reason)
        elif action < 0.97:
            assert tracked.queue_inadmissible(lambda w: True) == plain.queue_inadmissible(lambda w: True)
        else:
            tracked.track_fingerprint()
            plain.track_fingerprint(keep_groups=False)
        grouped_once = grouped_once or bool(tracked._groups)
        assert sorted(tracked.active) == sorted(plain.active)
        assert sorted(tracked.inadmissible) == sorted(plain.inadmissible)
        assert tracked.has_inadmissible() == plain.has_inadmissible() == bool(plain.inadmissible)
        assert tracked.fingerprint == plain.fingerprint
    assert grouped_once
