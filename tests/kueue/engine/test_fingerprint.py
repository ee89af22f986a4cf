"""SIM-7, SIM-8: steady-state detection on fingerprints kept up to date as the queues change
(kqctl/kueue/engine/fingerprint.py, PendingQueue.fingerprint, Simulation._state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kqctl.kueue.engine.fingerprint import FingerprintedDict, fingerprint_of
from kqctl.kueue.engine.queues import PendingQueue, memory_key
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import cluster_queue, cohort, flavor, local_queue, simulation, workload


def token(key: str, value: int) -> object:
    return "t", key, value


Op = Callable[[dict[str, int]], object]

# Each operation is applied to a FingerprintedDict and to a plain dict alike.
OPERATIONS: list[tuple[str, list[Op]]] = [
    ("set new keys", [lambda d: d.__setitem__("a", 1), lambda d: d.__setitem__("b", 2)]),
    ("overwrite a key with another value", [lambda d: d.__setitem__("a", 1), lambda d: d.__setitem__("a", 5)]),
    ("delete", [lambda d: d.__setitem__("a", 1), lambda d: d.__setitem__("b", 2), lambda d: d.__delitem__("a")]),
    ("pop present and absent keys", [lambda d: d.__setitem__("a", 1), lambda d: d.pop("a"),
                                     lambda d: d.pop("missing", None)]),
    ("popitem", [lambda d: d.__setitem__("a", 1), lambda d: d.__setitem__("b", 2), lambda d: d.popitem()]),
    ("setdefault keeps an existing value", [lambda d: d.setdefault("a", 1), lambda d: d.setdefault("a", 7)]),
    ("update", [lambda d: d.update({"a": 1, "b": 2}), lambda d: d.update(b=3, c=4)]),
    ("clear, then set again", [lambda d: d.update({"a": 1}), lambda d: d.clear(), lambda d: d.__setitem__("z", 9)]),
    ("in-place or", [lambda d: d.__ior__({"a": 1, "b": 2})]),
]


@pytest.mark.parametrize(("name", "operations"), OPERATIONS, ids=[name for name, _ in OPERATIONS])
def test_sim_7_a_fingerprinted_dict_equals_a_recomputed_fingerprint_after_every_operation(
        name: str, operations: list[Op]) -> None:
    kept: FingerprintedDict[int] = FingerprintedDict(token)
    plain: dict[str, int] = {}
    for operation in operations:
        operation(kept)
        operation(plain)
        assert dict(kept) == plain
        assert kept.fingerprint == fingerprint_of(token(k, v) for k, v in plain.items()), name


def test_sim_7_different_contents_give_different_fingerprints_and_equal_contents_equal_ones() -> None:
    one: FingerprintedDict[int] = FingerprintedDict(token, [("a", 1), ("b", 2)])
    other: FingerprintedDict[int] = FingerprintedDict(token, [("b", 2), ("a", 1)])
    assert one.fingerprint == other.fingerprint, "the order of insertion does not matter"
    other["b"] = 3
    assert one.fingerprint != other.fingerprint
    del other["b"]
    assert one.fingerprint != other.fingerprint


def recomputed(queue: PendingQueue) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A queue's fingerprint from scratch: what PendingQueue keeps up to date."""
    active = fingerprint_of((queue.name, "active", k, memory_key(w)) for k, w in queue.active.items())
    inadmissible = fingerprint_of((queue.name, "inadmissible", k) for k in queue.inadmissible)
    return active, inadmissible


def exact_state(sim: Simulation) -> tuple[object, ...]:
    """SIM-7's state as sets (what the fingerprints stand for)."""
    return tuple((name, frozenset(q.active), frozenset(q.inadmissible),
                  frozenset((k, memory_key(w)) for k, w in q.active.items() if w.scan_memory is not None))
                 for name, q in sorted(sim.queues.items()))


TWO_FLAVORS = {"spot": {"cpu": "2"}, "on-demand": {"cpu": "2"}}
SCENARIOS: list[tuple[str, list[dict[str, Any]]]] = [
    ("admissions then a queue that no longer fits", [
        flavor("default"), local_queue("lq", "cq"), cluster_queue("cq", {"default": {"cpu": "3"}}),
        *[workload(f"w{i}", created=f"2025-12-31T00:00:0{i}Z") for i in range(6)]]),
    ("preemption within the ClusterQueue", [
        flavor("default"), local_queue("lq", "cq"),
        cluster_queue("cq", {"default": {"cpu": "2"}}, preemption={"withinClusterQueue": "LowerPriority"}),
        workload("low-1", admitted_in="cq"), workload("low-2", admitted_in="cq"),
        workload("high", cpu="2", priority=10), workload("mid", priority=5)]),
    ("reclaim within a cohort", [
        flavor("default"), local_queue("lq-a", "a"), local_queue("lq-b", "b"),
        cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co", preemption={"reclaimWithinCohort": "Any"}),
        cluster_queue("b", {"default": {"cpu": "2"}}, cohort="co"), cohort("co"),
        workload("borrower-1", queue="lq-b", admitted_in="b"), workload("borrower-2", queue="lq-b", admitted_in="b"),
        workload("borrower-3", queue="lq-b", admitted_in="b"), workload("owner", queue="lq-a", cpu="2"),
        workload("waiting", queue="lq-b")]),
    ("flavor-scan memory over two flavors, StrictFIFO", [
        flavor("spot"), flavor("on-demand"), local_queue("lq", "cq"),
        cluster_queue("cq", TWO_FLAVORS, strategy="StrictFIFO",
                      fungibility={"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}),
        *[workload(f"w{i}", cpu="2", created=f"2025-12-31T00:00:0{i}Z") for i in range(4)]]),
]


@pytest.mark.parametrize(("name", "documents"), SCENARIOS, ids=[name for name, _ in SCENARIOS])
def test_sim_7_sim_8_the_queue_fingerprints_equal_recomputed_ones_after_every_cycle(
        name: str, documents: list[dict[str, Any]]) -> None:
    checked: list[int] = []

    def check(sim: Simulation, cycle: int) -> None:
        for queue in sim.queues.values():
            assert queue.fingerprint == recomputed(queue), (name, cycle, queue.name)
        checked.append(cycle)

    sim = simulation(*documents, between_cycles=check)
    sim.run_cycles()
    assert checked, "the scenario runs cycles"


@pytest.mark.parametrize(("name", "documents"), SCENARIOS, ids=[name for name, _ in SCENARIOS])
def test_sim_7_sim_8_equal_fingerprints_stand_for_equal_states_along_a_run(
        name: str, documents: list[dict[str, Any]]) -> None:
    seen: list[tuple[object, object]] = []
    sim = simulation(*documents, between_cycles=lambda s, _: seen.append((s._state(), exact_state(s))))
    sim.run_cycles()
    for fingerprint, state in seen:
        for other_fingerprint, other_state in seen:
            assert (fingerprint == other_fingerprint) == (state == other_state), name


@pytest.mark.parametrize(("name", "documents"), SCENARIOS, ids=[name for name, _ in SCENARIOS])
def test_sim_7_sim_8_a_run_stops_where_it_did_with_the_states_rebuilt_every_cycle(
        name: str, documents: list[dict[str, Any]]) -> None:
    """The fingerprinted run stops at the same cycle, for the same reason, as SIM-7 and SIM-8 on whole states."""
    run = simulation(*documents).run()
    seen_quiet: list[object] = []
    seen_full: dict[object, int] = {}
    expected: tuple[str, int] | None = None

    def reference(sim: Simulation, cycle: int) -> None:
        nonlocal expected
        if expected is not None:
            return
        result = sim.history[-1]
        state = exact_state(sim)
        holdings = frozenset(k for q in sim.cache.cluster_queues.values() for k in q.workloads)
        if result.admitted or result.evictions:
            seen_quiet.clear()
            if (state, holdings) in seen_full:
                expected = ("livelock", cycle + 1)
            seen_full[(state, holdings)] = cycle + 1
        elif state in seen_quiet:
            expected = ("steady", cycle + 1)
        else:
            seen_quiet.append(state)

    sim = simulation(*documents, between_cycles=reference)
    sim.run_cycles()
    if expected is None:  # the run ended because nothing was left to pop
        expected = ("steady", len(sim.history))
    assert (run.stop_reason, run.cycles) == expected, name


def test_sim_7_a_queue_and_its_fingerprinted_sets_are_freed_without_the_garbage_collector() -> None:
    """The CLI turns the cyclic garbage collector off and explain builds a simulation per check: a queue whose
    sets referred back to it would keep every queued workload of every check alive."""
    import gc
    import weakref

    from kqctl.kueue.engine.queues import BEST_EFFORT_FIFO

    enabled = gc.isenabled()
    gc.disable()
    try:
        queue = PendingQueue("cq", BEST_EFFORT_FIFO)
        queue.track_fingerprint()
        sets = weakref.ref(queue.active)
        gone = weakref.ref(queue)
        del queue
        assert gone() is None and sets() is None
    finally:
        if enabled:
            gc.enable()


def test_sim_7_only_runs_that_compare_states_keep_fingerprints() -> None:
    """A run of a given number of cycles (and the replay, which drives cycles itself) never compares states: its
    queues stay plain dicts, so no queue change pays for a fingerprint. A run to a steady state keeps them."""
    documents = SCENARIOS[0][1]
    counted = simulation(*documents, cycles=2)
    counted.run_cycles()
    assert all(type(q.active) is dict and type(q.inadmissible) is dict for q in counted.queues.values())
    with pytest.raises(RuntimeError, match="track_fingerprint"):
        _ = next(iter(counted.queues.values())).fingerprint
    steady = simulation(*documents)
    steady.run_cycles()
    assert all(isinstance(q.active, FingerprintedDict) and isinstance(q.inadmissible, FingerprintedDict)
               for q in steady.queues.values())
    assert all(q.fingerprint == recomputed(q) for q in steady.queues.values())


def test_sim_7_a_run_to_a_steady_state_keeps_its_groups_with_the_fingerprint_of_plain_sets() -> None:
    """Equivalent workloads a bulk move parks stay grouped in a run that compares states (a requeue event moves a
    group in one step); after every cycle each queue's fingerprint is the one plain sets of its workloads give, and
    the run decides as one whose queues keep plain sets."""
    documents = [flavor("default"), local_queue("lq", "cq"), local_queue("lq2", "cq2"),
                 cluster_queue("cq", {"default": {"cpu": "3"}}, cohort="team", strategy="BestEffortFIFO"),
                 cluster_queue("cq2", {"default": {"cpu": "2"}}, cohort="team", strategy="BestEffortFIFO"),
                 *[workload(f"w{i}", cpu=str(1 + i % 2), created=f"2025-12-31T00:00:{i:02d}Z") for i in range(12)],
                 *[workload(f"v{i}", queue="lq2", cpu="1", created=f"2025-12-31T00:01:{i:02d}Z") for i in range(6)]]
    grouped: list[bool] = []

    def check(sim: Simulation, cycle: int) -> None:
        grouped.append(any(q._groups for q in sim.queues.values()))
        for queue in sim.queues.values():
            assert queue.fingerprint == recomputed(queue)

    tracked = simulation(*documents, between_cycles=check)
    tracked.run_cycles()
    plain = simulation(*documents)
    for queue in plain.queues.values():
        queue.track_fingerprint(keep_groups=False)
    plain.run_cycles()
    assert any(grouped)
    assert tracked.result() == plain.result()
