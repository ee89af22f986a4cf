"""A replay skips work that cannot change a decision (issue 21: the 50,000-pod lognormal replay): asks a headroom
stopped are retried after a quota release only when the retry can do more than write their reason again; a
preemption attempt looks only at the nodes no other ask of its priority or above holds a reservation on, groups
victims by node only for the nodes it looks at, and a failed queue guarantees check answers every ask alike until
something is allocated or released (YK-PREEMPT); an attempt whose ask is over its own leaf's guaranteed fails the
guarantees check without collecting victims, one with no node to look at and room in its guaranteed does not help;
once every node is reserved, the asks a node's opening let out and whose retry could only fail again are blocked again
without a retry (YK-E4, YK-RESERVE). On random clusters and the benchmark's shape, replayed with runtimes,
every pod's times, evictions and every queue's usage must be those of the full path, which retries every such ask,
passes every node by and checks every guarantee with its victims."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from yunikorn_build import benchmark_shape
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from kqctl.replay.run import ReplayOptions, replay
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine import preemption, state
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import ACCEPTED, RUNNING, Ask
from kqctl.yunikorn.engine.partition import build_partition
from kqctl.yunikorn.load import build_snapshot
from kqctl.yunikorn.replay.timeline import TimelineOptions, YuniKornTimeline


class _Forgets(set):  # type: ignore[type-arg]
    """A memo that never remembers: every preemption attempt runs its queue guarantees check."""

    def add(self, _: object) -> None:
        return None


def _snapshot(seed: int) -> Snapshot:
    return build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed), sort_keys=False)), NOW)


def _full_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every node passed by (no open set), every guarantees check made with its victims."""
    monkeypatch.setattr(preemption, "_open_to", lambda scheduler, ask: None)
    monkeypatch.setattr(preemption, "over_own_guaranteed", lambda leaf, ask: False)


def _replayed(snapshot: Snapshot, fast: bool, runtime: str, seed: int) -> tuple[Any, ...]:
    """``fast``: as kqctl replays. Otherwise with reasons kept: every ask a headroom stopped is retried after a quota
    release, every ask a node's opening let out is retried (``Scheduler.every_node_reserved`` blocks none again)."""
    timeline = YuniKornTimeline(copy.deepcopy(snapshot), TimelineOptions(parse_distribution(runtime), seed))
    if not fast:
        timeline.scheduler.keep_reasons = True
        timeline.scheduler.guarantees_failed = _Forgets()
    run = replay(timeline, ReplayOptions(None))
    return (run.end, run.cycles, run.workloads, run.usage, tuple(timeline.evictions), timeline.cycles)


@pytest.mark.parametrize("seed", range(30))
def test_a_replay_s_fast_paths_change_no_time_and_no_eviction(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = _snapshot(seed)
    runtime = ("lognormal(20m,0.8)", "lognormal(2m,1.5)", "30m")[seed % 3]
    # the random clusters have a few nodes: the open ones are looked at one by one however many they are
    monkeypatch.setattr(preemption, "FEW_NODES", 0 if seed % 2 else preemption.FEW_NODES)
    fast = _replayed(snapshot, True, runtime, seed)
    _full_path(monkeypatch)
    assert fast == _replayed(snapshot, False, runtime, seed)


@pytest.mark.parametrize(("seed", "maxapplications"), [*((seed, 0) for seed in range(6)), (0, 1), (1, 2), (2, 3)])
def test_the_benchmark_s_replay_takes_the_same_decisions_on_the_fast_paths(seed: int, maxapplications: int,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Full nodes, every one reserved, asks of two priorities preempting: where the fast paths matter; with
    maxapplications on the leaves, applications that wait to run (YK-G1)."""
    snapshot = benchmark_shape(seed, maxapplications)
    monkeypatch.setattr(preemption, "FEW_NODES", 0)
    fast = _replayed(snapshot, True, "lognormal(20m,0.8)", seed)
    _full_path(monkeypatch)
    assert fast == _replayed(snapshot, False, "lognormal(20m,0.8)", seed)
    assert fast[4] or maxapplications  # it preempted (with few applications running, fewer queues need to)


def test_the_random_replays_take_the_fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above means something only if the fast paths run: asks left waiting after a quota release,
    attempts that looked at a few nodes, guarantees checks answered from the memo."""
    seen = {"kept": 0, "few nodes": 0, "memo": 0}
    open_to = preemption._open_to
    released = Scheduler.quota_released

    def counting_open_to(scheduler: Any, ask: Any) -> list[str] | None:
        names = open_to(scheduler, ask)
        seen["few nodes"] += bool(names)
        return names

    def counting_release(self: Scheduler) -> None:
        released(self)
        seen["kept"] += len(self.blocked_headroom)

    monkeypatch.setattr(preemption, "_open_to", counting_open_to)
    monkeypatch.setattr(preemption, "FEW_NODES", 0)
    monkeypatch.setattr(Scheduler, "quota_released", counting_release)
    for seed in range(30):
        timeline = YuniKornTimeline(_snapshot(seed), TimelineOptions(parse_distribution("lognormal(20m,0.8)"), seed))
        replay(timeline, ReplayOptions(None))
        seen["memo"] += len(timeline.scheduler.guarantees_failed)
    assert all(seen.values()), seen


def test_the_benchmark_s_replay_takes_the_attempt_shortcuts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark comparison above means something only if its replays answer attempts without victims and block
    again, group by group, asks a node's opening let out and asks a reservation's end let through: count them."""
    seen = {"over own guaranteed": 0, "nothing to try": 0, "blocked again": 0, "let through, blocked again": 0}
    over, nothing, reserved = preemption.over_own_guaranteed, preemption.nothing_to_try, Scheduler.every_node_reserved

    def counting_over(leaf: Any, ask: Any) -> bool:
        answer = over(leaf, ask)
        seen["over own guaranteed"] += answer
        return answer

    def counting_nothing(leaf: Any, ask: Any) -> bool:
        answer = nothing(leaf, ask)
        seen["nothing to try"] += answer
        return answer

    def counting_reserved(self: Scheduler) -> None:
        opened = [ask for _, _, asks in self.opened for ask in asks if ask.let_out and not ask.blocked]
        through = [ask for ask in self.reserve_candidates if not ask.blocked]
        reserved(self)
        seen["blocked again"] += sum(ask.blocked for ask in opened)
        seen["let through, blocked again"] += sum(ask.blocked and ask.grouped for ask in through)

    monkeypatch.setattr(preemption, "over_own_guaranteed", counting_over)
    monkeypatch.setattr(preemption, "nothing_to_try", counting_nothing)
    monkeypatch.setattr(Scheduler, "every_node_reserved", counting_reserved)
    _replayed(benchmark_shape(0), True, "lognormal(20m,0.8)", 0)
    assert all(seen.values()), seen


def _every_results(seed: int) -> list[tuple[Scheduler, dict[str, preemption.QueueSnapshot]]]:
    scheduler = Scheduler(build_partition(_snapshot(seed)))
    found = []
    for _ in range(60):
        for ask in list(scheduler.p.asks.values()):
            if not ask.allocated and ask.app.queue is not None:
                results, _ = preemption.eligible_victims(scheduler, ask)
                if preemption.by_victim_list(results):
                    found.append((scheduler, results))
        if scheduler.cycle() is None:
            break
    return found


def _by_node(results: dict[str, preemption.QueueSnapshot], grouped: Callable[[preemption.VictimIndex], None]) \
        -> dict[str, tuple[list[str] | None, dict[str, list[int]], list[str]]]:
    index = preemption.VictimIndex(results)
    grouped(index)
    nodes = sorted({v.node for v in preemption.by_victim_list(results)} | {"no-such-node"})
    out = {}
    for node in nodes:
        ordered = index.on_node(node)
        owners = [index.owners[id(v)].path for v in ordered or ()]
        out[node] = ([v.key for v in ordered] if ordered is not None else None,
                     {kind: index.reach(node, kind) for kind in ("vcore", "memory", "pods")}, owners)
    return out


def test_yk_preempt_victims_grouped_per_node_on_demand_equal_every_victim_grouped_at_once() -> None:
    """A node's victims (``sortVictimsForPreemption`` order), their snapshots and their running totals are the same
    whether the attempt grouped every victim by node first or only looked at that node (random clusters, every
    pending ask's eligible victims at every cycle)."""
    compared = 0
    for seed in range(20):
        for _, results in _every_results(seed):
            whole = _by_node(results, lambda index: index.group_all() and None)
            assert _by_node(results, lambda index: None) == whole, seed
            index = preemption.VictimIndex(results)
            assert index.node_names == sorted({v.node for v in preemption.by_victim_list(results)})
            compared += 1
    assert compared > 100


def test_groups_let_out_or_through_compacted_early_block_the_same_asks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The groups a node's opening let out, and those a reservation's end let through, are compacted (asks retried
    since dropped) as they pile up while some node stays open: compacting from the first group on (and whenever their
    number doubles) blocks the same asks again each time every node is reserved (blocking them again is what saves
    their retries; the decisions would be the same without it), and takes the same decisions."""
    snapshot = benchmark_shape(1)
    reserved = Scheduler.every_node_reserved
    compact = state._Groups.compact

    def run() -> tuple[list[list[str]], tuple[Any, ...], int]:
        blocked: list[list[str]] = []
        compacted = [0]

        def recording(self: Scheduler) -> None:
            reserved(self)
            blocked.append(sorted(ask.key for ask in self.p.asks.values() if ask.blocked))

        def counting(self: state._Groups) -> None:
            compacted[0] += 1
            compact(self)

        monkeypatch.setattr(Scheduler, "every_node_reserved", recording)
        monkeypatch.setattr(state._Groups, "compact", counting)
        return blocked, _replayed(snapshot, True, "lognormal(20m,0.8)", 1), compacted[0]

    usual = run()
    monkeypatch.setattr(state, "COMPACTED_AT", 0)
    early = run()
    assert early[:2] == usual[:2]
    assert early[2] >= 3 and usual[0]


def _must_block_again(scheduler: Scheduler) -> tuple[set[Ask], set[Ask]]:
    """The asks a node's opening let out and not retried since, split by the rule ``every_node_reserved`` follows:
    those whose retry could only fail as before (no gang, its application runs or may start, the ask fits both
    headrooms, preemption off or E1-E4 failing), and the others, left open."""
    again: set[Ask] = set()
    left: set[Ask] = set()
    for _, _, asks in scheduler.opened:
        for ask in asks:
            if not ask.let_out or ask.blocked or ask.node or ask.reserved_node:
                continue
            app, queue = ask.app, ask.app.queue
            assert queue is not None
            may_run = app.state == RUNNING or (app.state == ACCEPTED and not scheduler._waits_to_run(queue, app))
            fails = app.gang is None and may_run and scheduler._fits_user(ask, queue, {}) \
                and scheduler._fits_queue(ask, queue, {})
            if fails and not (scheduler.p.preemption_enabled and preemption.preconditions_pass(scheduler.p.now, ask,
                                                                                               queue)):
                again.add(ask)
            else:
                left.add(ask)
    return again, left


@pytest.mark.parametrize(("seed", "maxapplications"), [(0, 0), (1, 0), (2, 3)])
def test_every_node_reserved_blocks_again_exactly_the_let_out_asks_whose_retry_fails(
        seed: int, maxapplications: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``every_node_reserved`` tests, clears and blocks again the asks of a group let out in one pass: each time,
    the asks it blocks again are those the rule names, each back in its leaf's group of its shape and counted out of
    the asks to retry; the others stay open; no ask stays marked let out."""
    base = state.SchedulerState.every_node_reserved
    reserved = Scheduler.every_node_reserved
    seen = {"again": 0, "left": 0}
    expected: list[Any] = []

    def after_base(self: Scheduler) -> None:
        base(self)  # the asks a reservation's end let through first, as ``Scheduler.every_node_reserved`` does
        again, left = _must_block_again(self)
        expected[:] = [again, left, list(self.opened), self.active["root"]]

    def checking(self: Scheduler) -> None:
        reserved(self)
        again, left, groups, active = expected
        for ask in again:
            assert ask.blocked and ask.grouped and ask.blocked_kind == "nodes" and not ask.let_out
            assert ask in self.blocked_nodes[ask.app.queue.path][state.shape_key(ask)]  # type: ignore[union-attr]
        assert not any(ask.blocked for ask in left)
        assert not any(ask.let_out for _, _, asks in groups for ask in asks)
        assert self.active["root"] == active - len(again)
        seen["again"] += len(again)
        seen["left"] += len(left)

    monkeypatch.setattr(state.SchedulerState, "every_node_reserved", after_base)
    monkeypatch.setattr(Scheduler, "every_node_reserved", checking)
    _replayed(benchmark_shape(seed, maxapplications), True, "lognormal(20m,0.8)", seed)
    assert seen["again"] and (seen["left"] or maxapplications), seen


def _decisions(snapshot: Snapshot, shapes_known: bool) -> tuple[list[tuple[str, ...]], list[tuple[object, ...]]]:
    """Every cycle's result, and every ask's node, last reason and blocked flag at the end. ``shapes_known``: every
    ask's shape is worked out before the first cycle, so that ``Scheduler._app`` answers the headroom checks of each
    shape once (otherwise an ask's shape is known only once it tried the nodes)."""
    scheduler = Scheduler(build_partition(copy.deepcopy(snapshot)))
    if shapes_known:
        for ask in scheduler.p.asks.values():
            state.shape_key(ask)
    results = [(r.kind, r.ask.key, r.node, *(v.key for v in r.victims)) for r in scheduler.run()]
    return results, sorted((a.key, a.node, a.failure, a.blocked) for a in scheduler.p.asks.values())


@pytest.mark.parametrize("seed", range(20))
def test_asks_of_one_shape_fit_an_application_s_headrooms_alike(seed: int) -> None:
    """``Scheduler._app`` checks an application's asks against the user's and the queue's headroom once per shape:
    the same decisions and reasons as checking each ask."""
    snapshot = _snapshot(seed)
    assert _decisions(snapshot, True) == _decisions(snapshot, False)
