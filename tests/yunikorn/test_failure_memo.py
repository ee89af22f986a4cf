"""The scheduler remembers failed asks instead of retrying them every cycle, skips blocks of nodes with no room
and checks a queue's guarantees once for all victims (large speed-ups): on random clusters it must take exactly
the decisions of a scheduler that retries every ask on every cycle, tries every node and removes victims one by
one, as YuniKorn does, allocation by allocation, reservation by reservation, preemption by preemption."""

from __future__ import annotations

import copy

import pytest
import yaml
from yunikorn_random import NOW, cluster
from yunikorn_reference import ReferenceScheduler, check_guarantees_stepwise, stepwise_guarantees

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.engine import nodes, preemption
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.partition import Partition, build_partition
from kqctl.yunikorn.engine.queue import MIN_PRIORITY, Queue, reported_priority
from kqctl.yunikorn.load import build_snapshot


def _decisions(seed: int, remember: bool) -> list[tuple[str, str, str, tuple[str, ...]]]:
    text = yaml.safe_dump_all(cluster(seed))
    snapshot = build_snapshot(load_text(ALL_KINDS, text), NOW)
    partition = build_partition(copy.deepcopy(snapshot))
    if remember:
        results = Scheduler(partition).run(2000)
    else:
        with stepwise_guarantees():
            results = ReferenceScheduler(partition).run(2000)
    return [(r.kind, r.ask.key, r.node, tuple(v.key for v in r.victims)) for r in results]


@pytest.mark.parametrize("seed", range(60))
def test_remembered_failures_change_no_decision(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # blocks of 2 nodes: the random clusters have a few nodes each, and blocks must split, empty and skip
    monkeypatch.setattr(nodes, "BLOCK", 2 if seed % 2 else 64)
    assert _decisions(seed, True) == _decisions(seed, False)


def test_the_random_clusters_exercise_reservations_and_preemption() -> None:
    kinds = {kind for seed in range(60) for kind, *_ in _decisions(seed, True)}
    assert {"allocated", "reserved", "preempted"} <= kinds


def test_guarantees_checked_once_equal_victims_one_by_one() -> None:
    """Every preemption check on 40 random clusters, for every pending ask: the same answer both ways."""
    answers = set()
    for seed in range(40):
        snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
        scheduler = Scheduler(build_partition(copy.deepcopy(snapshot)))
        scheduler.run(10)
        for ask in list(scheduler.p.asks.values()):
            if ask.allocated or ask.app.queue is None:
                continue
            results, _ = preemption.eligible_victims(scheduler, ask)
            fast = preemption.check_guarantees(results, ask, ask.app.queue.path)
            assert fast == check_guarantees_stepwise(results, ask, ask.app.queue.path), (seed, ask.key)
            answers.add(fast)
    assert answers == {True, False}


def _victim_search(results: dict[str, preemption.QueueSnapshot]) -> dict[str, tuple[object, ...]]:
    return {path: (snap.leaf, snap.parent.path if snap.parent else "", snap.ask_queue.path if snap.ask_queue else "",
                   dict(snap.allocated), dict(snap.preempting), tuple(v.key for v in snap.victims),
                   dict(snap.victim_total)) for path, snap in results.items()}


@pytest.mark.parametrize("seed", range(40))
def test_yk_preempt_shared_victim_searches_equal_a_fresh_search(seed: int) -> None:
    """The eligible victims one ask's attempt found are reused by asks of the same leaf, priority, resource types and
    fence until something is allocated or released: at every cycle, for every pending ask, they must be what a
    search of its own finds (F1-F4)."""
    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    scheduler = Scheduler(build_partition(snapshot))
    compared = 0
    for _ in range(200):
        for ask in list(scheduler.p.asks.values()):
            if ask.allocated or ask.app.queue is None:
                continue
            shared = preemption._cached_victims(scheduler, ask)
            fresh, _ = preemption.eligible_victims(scheduler, ask)
            assert _victim_search(shared) == _victim_search(fresh), (seed, ask.key)
            compared += 1
        if scheduler.cycle() is None:
            break
    assert compared


def _raw_priority_from_scratch(partition: Partition, queue: Queue) -> int:
    if queue.leaf:
        values = [app.ask_max_priority() for app in partition.leaf_apps.get(queue.path, [])]
    else:
        values = [reported_priority(_raw_priority_from_scratch(partition, child), child.settings.priority_policy,
                                    child.settings.priority_offset) for child in queue.children.values()]
    return max(values, default=MIN_PRIORITY)


@pytest.mark.parametrize("seed", range(40))
def test_yk_p3_priorities_refreshed_up_the_path_equal_a_full_recompute(seed: int) -> None:
    """refresh_priority stops at the first level whose priority does not change: after every cycle each queue's
    raw priority (P3) must still be what working the whole tree out again gives."""
    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    scheduler = Scheduler(build_partition(snapshot))
    partition = scheduler.p
    for _ in range(300):
        for queue in partition.tree.queues():
            assert queue.raw_priority == _raw_priority_from_scratch(partition, queue), (seed, queue.path)
        if scheduler.cycle() is None:
            break


@pytest.mark.parametrize("seed", range(40))
def test_yk_preempt_victims_kept_per_unchanged_subtree_equal_a_fresh_search(seed: int) -> None:
    """F2-F4: the leaves with eligible victims below a queue that does not hold the ask's queue are kept by the
    queue's version; allocations, preemptions and releases (a replay's finished pods, YK-R3) change versions. At
    every cycle, for every pending ask, the victims found with the kept answers must be what a search with nothing
    kept finds."""
    from kqctl.yunikorn.engine import changes

    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    scheduler = Scheduler(build_partition(snapshot))
    compared = reused = 0
    for step in range(200):
        for ask in list(scheduler.p.asks.values()):
            if ask.allocated or ask.app.queue is None:
                continue
            before = len(scheduler.subtree_victims)
            kept, _ = preemption.eligible_victims(scheduler, ask)
            reused += before > 0 and len(scheduler.subtree_victims) == before
            memos = scheduler.subtree_victims, scheduler.leaf_victims, scheduler.within_guaranteed
            scheduler.subtree_victims, scheduler.leaf_victims, scheduler.within_guaranteed = {}, {}, {}
            fresh, _ = preemption.eligible_victims(scheduler, ask)
            scheduler.subtree_victims, scheduler.leaf_victims, scheduler.within_guaranteed = memos
            assert list(kept) == list(fresh), (seed, ask.key)  # the same snapshots, made in the same order
            assert _victim_search(kept) == _victim_search(fresh), (seed, ask.key)
            compared += 1
        if step % 3 == 2:  # a pod finishes: its allocation is released
            running = [ask for ask in scheduler.p.asks.values() if ask.allocated]
            if running:
                changes.grown(scheduler, [changes.release(scheduler, running[step % len(running)])])
        if scheduler.cycle() is None and step % 3 != 2:
            break
    assert compared and reused


@pytest.mark.parametrize(("guaranteed", "allocated", "added", "before", "after"), [
    ({"vcore": 4000}, {"vcore": 1000}, {"vcore": 2000}, {"vcore": 3000}, {"vcore": 1000}),
    ({"vcore": 4000, "memory": 8}, {"vcore": 5000}, {"memory": 3}, {"vcore": -1000, "memory": 8},
     {"vcore": -1000, "memory": 5}),
    (None, {"vcore": 1000}, {"vcore": 1000}, None, None),
])
def test_yk_preempt_the_ask_queue_s_own_remaining_guaranteed_follows_its_usage(
        guaranteed: dict[str, int] | None, allocated: dict[str, int], added: dict[str, int],
        before: dict[str, int] | None, after: dict[str, int] | None) -> None:
    """GetRemainingGuaranteedResource reads the AskQueue's guaranteed minus its usage for every other queue: kept
    per snapshot until ``add`` changes its usage (its stamp)."""
    snap = preemption.QueueSnapshot("root.a", None, True, dict(allocated), {}, None, guaranteed)
    assert snap.own_remaining() == before
    assert snap.own_remaining() == before  # kept
    snap.add(added)
    assert snap.own_remaining() == after
    snap.remove(added)
    assert snap.own_remaining() == before
