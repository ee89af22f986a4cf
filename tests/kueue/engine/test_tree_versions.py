"""Figures kept per state of a quota tree (QuotaCache.figures, QuotaCache.trial) and the preemption search's room
answers reused within one state (ClassicalPreemption._room_known_possible): Kueue's answers are the same whether a
figure is reused or worked out again (Q-4, Q-5, Q-8, PRE-6, CYC-14)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.cycle import Scheduler
from kqctl.kueue.engine.preemption import classical
from kqctl.kueue.engine.preemption.classical import ClassicalPreemption, known_without_room
from kqctl.kueue.engine.preemption.preemptor import Preemptor
from kqctl.kueue.engine.preemption.targets import CandidateOrder, PreemptionContext
from kqctl.kueue.engine.quota import potential
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.replay.report import KueueReplayOptions, replay_snapshot
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from tests.kueue.engine.manifests import cluster_queue, flavor, local_queue, simulation, workload
from tests.kueue.engine.random_scenarios import scenario

CPU = ("default", "cpu")
RECLAIM = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
NOW = datetime(2026, 1, 1, 1, tzinfo=timezone.utc)


def _snapshot(text: str) -> Any:
    return build_snapshot(load_text(ALL_KINDS, text, "random.yaml"), NOW)


def cohort_of_two() -> Any:
    """Two ClusterQueues of 4 cpu in a cohort; ``a`` holds 6 cpu (it borrows 2 of b's)."""
    return simulation(
        flavor("default"),
        cluster_queue("a", {"default": {"cpu": "4"}}, cohort="co", preemption=RECLAIM),
        cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co", preemption=RECLAIM),
        local_queue("lq-a", "a"), local_queue("lq-b", "b"),
        workload("held-1", "lq-a", cpu="3", priority=100, admitted_in="a"),
        workload("held-2", "lq-a", cpu="3", priority=1000, admitted_in="a"),
        workload("pending", "lq-b", cpu="1", priority=500),
    )


def test_q_4_a_change_of_usage_gives_the_tree_a_version_never_seen_before() -> None:
    sim = cohort_of_two()
    cache, b = sim.cache, sim.cache.cluster_queues["b"]
    seen = {cache.tree_version(b)}
    for _ in range(3):
        cache.add_usage(b, {CPU: 1000})
        assert cache.tree_version(b) not in seen
        seen.add(cache.tree_version(b))
        cache.remove_usage(b, {CPU: 1000})
        assert cache.tree_version(b) not in seen  # the same usage again, but no trial said so: a new version
        seen.add(cache.tree_version(b))


def test_q_4_a_trial_that_undoes_its_changes_gives_the_tree_its_version_back() -> None:
    sim = cohort_of_two()
    cache, b = sim.cache, sim.cache.cluster_queues["b"]
    before, usage = cache.tree_version(b), dict(b.node.parent.usage)  # type: ignore[union-attr]
    with cache.trial((b,)):
        held = sim.outcomes["ns/held-1"].workload
        cache.remove_workload(held)
        assert cache.available(b, CPU) == 5000  # read under the trial's own version
        cache.add_workload(held)
    assert cache.tree_version(b) == before and b.node.parent.usage == usage  # type: ignore[union-attr]
    assert cache.available(b, CPU) == 2000  # not the figure read during the trial


def test_q_4_a_trial_ended_by_an_error_keeps_the_new_version() -> None:
    sim = cohort_of_two()
    cache, b = sim.cache, sim.cache.cluster_queues["b"]
    before = cache.tree_version(b)
    with pytest.raises(RuntimeError), cache.trial((b,)):
        cache.add_usage(b, {CPU: 1000})
        raise RuntimeError("stopped half-way")
    assert cache.tree_version(b) != before


def test_q_5_a_figure_kept_for_a_state_is_not_read_in_another() -> None:
    sim = cohort_of_two()
    cache, b = sim.cache, sim.cache.cluster_queues["b"]
    assert cache.available(b, CPU) == 2000
    cache.add_usage(b, {CPU: 1000})
    assert cache.available(b, CPU) == 1000
    cache.remove_usage(b, {CPU: 1000})
    assert cache.available(b, CPU) == 2000


def _room(sim: Any, cq: str, priority: int, amount: int) -> bool:
    preemptor = sim.outcomes["ns/pending"].workload
    preemptor.priority = priority
    context = PreemptionContext(preemptor, sim.cache.cluster_queues[cq], {CPU}, {CPU: amount})
    return ClassicalPreemption(sim.cache, CandidateOrder(NOW))._room_possible(context)


def test_pre_6_room_for_a_request_only_goes_from_room_to_none_as_the_amount_grows() -> None:
    """The premise of _room_known_possible, checked on every amount and priority of a small cohort."""
    sim = cohort_of_two()
    for cq in ("a", "b"):
        for priority in (0, 100, 500, 1000, 2000):
            answers = [_room(sim, cq, priority, amount * 500) for amount in range(1, 20)]
            assert answers == sorted(answers, reverse=True), (cq, priority, answers)
    assert _room(sim, "b", 500, 4000) and not _room(sim, "b", 500, 8000)


def test_pre_6_random_cohorts_room_only_goes_from_room_to_none_as_the_amount_grows() -> None:
    turned = 0  # series that had room for a small amount and none for a larger one
    for seed in range(0, 40, 4):
        sim = _simulation(seed)
        for state in sim.cache.cluster_queues.values():
            for fr in state.node.quotas:
                for priority in (0, 100, 1000):
                    answers = [_room_any(sim, state, fr, priority, step) for step in _amounts(fr)]
                    assert answers == sorted(answers, reverse=True), (seed, state.name, fr, priority, answers)
                    turned += answers[0] and not answers[-1]
    assert turned > 10, turned


def _simulation(seed: int) -> Any:
    from kqctl.kueue.engine.simulation import Simulation, SimulationOptions

    snapshot = _snapshot(scenario(seed).text())
    return Simulation(snapshot, SimulationOptions(now=NOW))


def _amounts(fr: tuple[str, str]) -> list[int]:
    unit = 1024**3 if fr[1] == "memory" else 1000
    return [unit * n // 2 for n in range(1, 40)]


def _room_any(sim: Any, state: Any, fr: tuple[str, str], priority: int, amount: int) -> bool:
    pending = next(iter(o.workload for o in sim.outcomes.values() if o.workload.admission is None), None)
    if pending is None:
        return False
    saved = pending.priority
    pending.priority = priority
    try:
        context = PreemptionContext(pending, state, {fr}, {fr: amount})
        return ClassicalPreemption(sim.cache, CandidateOrder(NOW))._room_possible(context)
    finally:
        pending.priority = saved


@contextmanager
def _nothing_kept(patched: pytest.MonkeyPatch) -> Iterator[None]:
    """Every figure worked out again: no figures kept per state, no room answers reused, no version given back."""
    patched.setattr(QuotaCache, "figures", lambda self, state: {})
    patched.setattr(QuotaCache, "potential", lambda self, state, fr: potential(state.node, fr))
    patched.setattr(ClassicalPreemption, "_room_known_possible", ClassicalPreemption._room_possible)
    patched.setattr(classical, "known_without_room", lambda cache, context: False)
    patched.setattr(QuotaCache, "trial", lambda self, states: _NoTrial())
    yield


class _NoTrial:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_cyc_14_random_replays_are_the_same_with_figures_kept_per_state_or_worked_out_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Random scenarios (two flavors, two resources, nested cohorts, every preemption policy) replayed with
    completions, so that every requeue asks each head again under one state: the reports are equal either way, and
    room answers were reused in some of them (else the comparison would prove nothing)."""
    options = KueueReplayOptions(TimelineOptions(runtime=parse_distribution("7m")))
    reused = [0]
    room = ClassicalPreemption._room_possible

    def counted(self: ClassicalPreemption, context: PreemptionContext) -> bool:
        reused[0] -= 1
        return room(self, context)

    known = ClassicalPreemption._room_known_possible

    def asked(self: ClassicalPreemption, context: PreemptionContext) -> bool:
        reused[0] += 1
        return known(self, context)

    for seed in range(1, 60, 3):
        text = scenario(seed).text()
        with monkeypatch.context() as patched:
            patched.setattr(ClassicalPreemption, "_room_possible", counted)
            patched.setattr(ClassicalPreemption, "_room_known_possible", asked)
            kept = replay_snapshot(_snapshot(text), options)
        with monkeypatch.context() as patched, _nothing_kept(patched):
            fresh = replay_snapshot(_snapshot(text), options)
        assert kept == fresh, f"seed {seed}"
    assert reused[0] > 0, reused


def test_pre_6_random_cohorts_room_only_goes_from_none_to_room_as_the_priority_grows() -> None:
    """The premise of the room answers shared across priorities (_room_known_possible, _known_room): every
    policy's candidates only grow with the preemptor's priority, so for every amount the answers over rising
    priorities never go from room back to none."""
    turned = 0  # series that had no room at a low priority and room at a higher one
    for seed in range(2, 40, 4):
        sim = _simulation(seed)
        for state in sim.cache.cluster_queues.values():
            for fr in state.node.quotas:
                for amount in _amounts(fr)[::3]:
                    answers = [_room_any(sim, state, fr, priority, amount) for priority in (-5, 0, 50, 100, 500, 1000)]
                    assert answers == sorted(answers), (seed, state.name, fr, amount, answers)
                    turned += not answers[0] and answers[-1]
    assert turned > 0, turned


@pytest.mark.parametrize(("bounds", "priority", "amount", "expected"), [
    ({}, 100, 1000, None),
    ({100: [2000, None]}, 100, 2000, True),  # room for 2000 at 100: room for as much at 100
    ({100: [2000, None]}, 500, 1000, True),  # ... and for less at a higher priority
    ({100: [2000, None]}, 50, 1000, None),  # a lower priority may have fewer candidates
    ({100: [2000, None]}, 100, 3000, None),
    ({100: [-1, 3000]}, 100, 3000, False),  # none for 3000 at 100: none for as much at 100
    ({100: [-1, 3000]}, 50, 4000, False),  # ... nor for more at a lower priority
    ({100: [-1, 3000]}, 500, 4000, None),  # a higher priority may have more candidates
    ({100: [-1, 3000]}, 100, 2000, None),
    ({100: [1000, 3000], 500: [5000, 8000]}, 200, 2000, None),
    ({100: [1000, 3000], 500: [5000, 8000]}, 500, 6000, None),
    ({100: [1000, 3000], 500: [5000, 8000]}, 700, 4000, True),
    ({100: [1000, 3000], 500: [5000, 8000]}, 300, 8000, False),
])
def test_pre_6_kept_room_answers_decide_only_where_amount_and_priority_say_so(
        bounds: dict[int, list[int | None]], priority: int, amount: int, expected: bool | None) -> None:
    assert classical._known_room(bounds, priority, amount) is expected


def test_pre_6_a_search_known_to_have_no_room_answers_what_the_whole_search_answers() -> None:
    """Random cohorts: once the room answers of a state are kept, every request ``known_without_room`` answers gets
    no targets from the full classical search too, and it answered some (else this would prove nothing)."""
    answered = 0
    for seed in range(1, 40, 3):
        sim = _simulation(seed)
        pending = next(iter(o.workload for o in sim.outcomes.values() if o.workload.admission is None), None)
        if pending is None:
            continue
        preemptor = Preemptor(sim.cache, NOW)
        for state in sim.cache.cluster_queues.values():
            for fr in state.node.quotas:
                for priority in (0, 100, 1000):
                    pending.priority = priority
                    for amount in _amounts(fr)[::4]:
                        context = PreemptionContext(pending, state, {fr}, {fr: amount})
                        known = known_without_room(sim.cache, context)
                        targets = preemptor.targets(context)  # the whole search (it keeps the room answer)
                        assert not (known and targets), (seed, state.name, fr, priority, amount)
                        answered += known
    assert answered > 0, answered


def test_cyc_8_random_replays_are_the_same_with_the_fit_check_made_for_preemptors_without_candidates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """CYC-8.2: a preemptor without candidates skips CYC-8.5's fit check (Scheduler._without_candidates); random
    scenarios (TAS off: the check could only matter through TAS-6) replay the same with the check made for every
    head, and some heads skipped it (else this would prove nothing)."""
    options = KueueReplayOptions(TimelineOptions(runtime=parse_distribution("7m")))
    skipped = [0]
    without = Scheduler._without_candidates

    def counted(entry: Any) -> bool:
        answer = without(entry)
        skipped[0] += answer
        return answer

    for seed in range(1, 60, 3):
        text = scenario(seed).text()
        with monkeypatch.context() as patched:
            patched.setattr(Scheduler, "_without_candidates", staticmethod(counted))
            kept = replay_snapshot(_snapshot(text), options)
        with monkeypatch.context() as patched:
            patched.setattr(Scheduler, "_without_candidates", staticmethod(lambda entry: False))
            checked = replay_snapshot(_snapshot(text), options)
        assert kept == checked, f"seed {seed}"
    assert skipped[0] > 0, skipped


def test_q_6_a_kept_potential_follows_a_change_of_quota() -> None:
    sim = cohort_of_two()
    cache, b = sim.cache, sim.cache.cluster_queues["b"]
    assert cache.potential(b, CPU) == 8000
    assert cache.update_nominal_quota("a", CPU, 6000)
    assert cache.potential(b, CPU) == potential(b.node, CPU) == 10000


def test_pre_6_the_room_threshold_of_an_amounts_regime_answers_as_the_room_search_does() -> None:
    """_room_threshold (one T per state, ClusterQueue, priority and set of sources removed) says "room" exactly for
    the amounts _room_possible finds room for, on every amount, priority and (flavor, resource) of random cohorts,
    with thresholds kept across the amounts as a replay keeps them (one figures dict per state)."""
    compared = turned = 0
    for seed in range(0, 40, 3):
        sim = _simulation(seed)
        pending = next(iter(o.workload for o in sim.outcomes.values() if o.workload.admission is None), None)
        if pending is None:
            continue
        saved = pending.priority
        try:
            for state in sim.cache.cluster_queues.values():
                for fr in state.node.quotas:
                    for priority in (-5, 0, 100, 1000):
                        pending.priority = priority
                        kept: dict[tuple[object, ...], object] = {}
                        search = ClassicalPreemption(sim.cache, CandidateOrder(NOW))
                        answers = []
                        for amount in reversed(_amounts(fr)):  # large to small, as a requeue's shapes come
                            context = PreemptionContext(pending, state, {fr}, {fr: amount})
                            by_threshold = amount <= search._room_threshold(context, fr, amount, kept)
                            assert by_threshold == search._room_possible(context), (seed, state.name, fr, priority,
                                                                                   amount)
                            answers.append(by_threshold)
                            compared += 1
                        turned += answers[-1] and not answers[0]
        finally:
            pending.priority = saved
    assert compared > 1000 and turned > 10, (compared, turned)


def _replays_checking_every_threshold(monkeypatch: pytest.MonkeyPatch, texts: list[str]) -> tuple[int, int]:
    """Replay each snapshot with every room threshold checked, where the replay asks it, against the room search
    itself on the same state: (thresholds checked, of which room)."""
    threshold = ClassicalPreemption._room_threshold
    checked = [0, 0]

    def compared(self: ClassicalPreemption, context: PreemptionContext, fr: Any, value: int, figures: Any) -> int:
        found = threshold(self, context, fr, value, figures)
        for amount in {value, found, found + 1, max(1, value // 2), value * 2}:  # the amounts around T, too
            other = PreemptionContext(context.preemptor, context.cq, context.needed, {fr: amount})
            if self._advantages(other) != self._advantages(context):
                continue  # another regime: another T
            own = classical._policy_usage(context.cq.model.preemption.within_cluster_queue, context.preemptor,
                                          context.cq)
            wb = not context.cq.borrowing_with(fr, amount - own.get(fr, 0))
            if wb != (not context.cq.borrowing_with(fr, value - own.get(fr, 0))):
                continue
            assert (amount <= found) == self._room_possible(other), (context.cq.name, fr, amount, found)
            checked[0] += 1
            checked[1] += amount <= found
        return found

    with monkeypatch.context() as patched:
        patched.setattr(ClassicalPreemption, "_room_threshold", compared)
        for text in texts:
            replay_snapshot(_snapshot(text), KueueReplayOptions(TimelineOptions(runtime=parse_distribution("7m"))))
    return checked[0], checked[1]


def test_pre_6_room_thresholds_answer_as_the_room_search_wherever_a_replay_asks(monkeypatch: pytest.MonkeyPatch,
                                                                               tmp_path: Any) -> None:
    """Random scenarios (every preemption policy, borrowWithinCohort, nested cohorts) and a generated
    preemption-heavy snapshot (own lower-priority workloads, reclaim from borrowers) replayed: at every threshold the
    replay asks for, the amount asked and the amounts around T get the room search's answer."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
    from generate_preemption import Shape, generate

    generate(Shape(workloads=300, cohorts=2, queues_per_cohort=3, nominal_cpu=8, spread_ms=1_800_000), tmp_path)
    generated = "\n---\n".join(path.read_text() for path in sorted(tmp_path.glob("*.yaml")))
    checked, room = _replays_checking_every_threshold(monkeypatch, [scenario(seed).text() for seed in range(1, 60, 4)]
                                                      + [generated])
    assert checked > 500 and 0 < room < checked, (checked, room)


def _reclaim_shapes() -> list[Any]:
    """Cohorts where each part of a threshold decides: ``a`` (8 cpu) holds 4 of its own at priority 100 while ``b``
    (8 cpu) borrows a's other 4 at priorities 100 and 900, and a preemptor of ``a`` at priority 500; without
    borrowWithinCohort only the search that may not borrow (RECLAIM_WITHOUT_BORROWING, own and b's workloads gone,
    within a's nominal quota) finds room for 8; with borrowWithinCohort up to priority 200 the search while borrowing
    may also take b's priority-100 workload (capped) and not its priority-900 one."""
    def cohort(borrow: dict[str, Any] | None) -> Any:
        policy = dict(RECLAIM, **({"borrowWithinCohort": borrow} if borrow else {}))
        return simulation(
            flavor("default"),
            cluster_queue("a", {"default": {"cpu": "8"}}, cohort="co", preemption=policy),
            cluster_queue("b", {"default": {"cpu": "8"}}, cohort="co", preemption=RECLAIM),
            local_queue("lq-a", "a"), local_queue("lq-b", "b"),
            workload("own", "lq-a", cpu="4", priority=100, admitted_in="a"),
            workload("b-low", "lq-b", cpu="6", priority=100, admitted_in="b"),
            workload("b-high", "lq-b", cpu="6", priority=900, admitted_in="b"),
            workload("pending", "lq-a", cpu="1", priority=500),
        )
    return [cohort(None), cohort({"policy": "LowerPriority", "maxPriorityThreshold": 200})]


@pytest.mark.parametrize("shape", [0, 1])
def test_pre_6_each_part_of_a_room_threshold_is_the_room_search_s(shape: int) -> None:
    """Every amount from 0.5 to 16 cpu at priorities around the cap: the threshold's answer is the room search's,
    where the search that may not borrow, its cap at the nominal quota and the borrowWithinCohort cap each decide."""
    sim = _reclaim_shapes()[shape]
    a, preemptor = sim.cache.cluster_queues["a"], sim.outcomes["ns/pending"].workload
    answers = []
    for priority in (150, 500, 1000):
        preemptor.priority = priority
        search, kept = ClassicalPreemption(sim.cache, CandidateOrder(NOW)), {}
        for amount in range(500, 16_500, 500):
            context = PreemptionContext(preemptor, a, {CPU}, {CPU: amount})
            room = search._room_possible(context)
            assert (amount <= search._room_threshold(context, CPU, amount, kept)) == room, (priority, amount)
            answers.append(room)
    assert any(answers) and not all(answers)
