"""A head's flavor assignment reused while every figure it read reads the same (kqctl/kueue/engine/flavors/
assignment_memo.py): CYC-5 answers are Kueue's whether worked out again or reused (FA-4..FA-10, PRE-11)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.cycle import Scheduler
from kqctl.kueue.engine.flavors.assignment_memo import AVAILABLE, FITS_AVAILABLE, ORACLE, POTENTIAL
from kqctl.kueue.engine.simulation import Simulation
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.replay.report import KueueReplayOptions, replay_snapshot
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from tests.kueue.engine.manifests import cluster_queue, flavor, local_queue, simulation, workload
from tests.kueue.engine.random_scenarios import scenario

CPU = ("default", "cpu")
RECLAIM = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}


def busy_cohort(*pending: dict[str, Any]) -> Simulation:
    """Two ClusterQueues of 4 cpu sharing a cohort; ``a`` borrows b's whole quota with high-priority work, so a
    low-priority head of ``b`` needs preemption and finds no victim (PRE-3: it may only reclaim lower priority)."""
    return simulation(
        flavor("default"),
        cluster_queue("a", {"default": {"cpu": "4"}}, cohort="co", preemption=RECLAIM),
        cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co",
                      preemption={"reclaimWithinCohort": "LowerPriority", "withinClusterQueue": "LowerPriority"}),
        local_queue("lq-a", "a"), local_queue("lq-b", "b"),
        workload("held-1", "lq-a", cpu="4", priority=1000, admitted_in="a"),
        workload("held-2", "lq-a", cpu="4", priority=1000, admitted_in="a"),
        *pending,
    )


def assign(sim: Simulation, key: str) -> Any:
    info = sim.outcomes[key].workload
    return sim.scheduler.get_assignments(info, sim.cache.cluster_queues["b"])


def test_cyc_5_an_equal_head_gets_the_answer_kept_for_the_first_while_its_figures_hold() -> None:
    sim = busy_cohort(workload("first", "lq-b", cpu="2"), workload("second", "lq-b", cpu="2"))
    first, first_targets = assign(sim, "ns/first")
    second, second_targets = assign(sim, "ns/second")
    memo = sim.scheduler.assignment_memo
    assert memo.hits == 1 and second is first and first_targets == second_targets == []
    assert first.representative_mode() == "Preempt"
    assert first.message() == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor"
                               " default, 2 more needed")


def test_cyc_5_pre_11_the_kept_figures_are_those_read_in_order_with_the_oracle_answer() -> None:
    sim = busy_cohort(workload("first", "lq-b", cpu="2"))
    assign(sim, "ns/first")
    memo = sim.scheduler.assignment_memo
    [key] = memo._asks
    [reads] = memo.kept_reads(key)
    kinds = [kind for kind, _, _ in reads]
    assert kinds[0] == POTENTIAL and ORACLE in kinds
    # It does not fit, so the figure itself is read (the shortfall's message says it): nothing available.
    assert (FITS_AVAILABLE, (CPU, 2000), False) in reads and (AVAILABLE, (CPU,), 0) in reads


def test_cyc_5_fa_6_a_head_that_fits_reads_whether_it_fits_and_is_reused_while_usage_moves() -> None:
    """A fitting head's answer does not depend on how much is available beyond its request: the next head of the
    same shape gets it after usage moved, and it is the answer worked out again."""
    sim = busy_cohort(workload("first", "lq-b", cpu="1"), workload("second", "lq-b", cpu="1"))
    sim.cache.remove_workload(sim.outcomes["ns/held-1"].workload)  # 4 cpu free in the cohort
    first, _ = assign(sim, "ns/first")
    [reads] = sim.scheduler.assignment_memo.kept_reads(next(iter(sim.scheduler.assignment_memo._asks)))
    assert first.representative_mode() == "Fit" and not any(kind == AVAILABLE for kind, _, _ in reads)
    sim.cache.remove_workload(sim.outcomes["ns/held-2"].workload)  # 8 cpu free now: a different figure
    second, _ = assign(sim, "ns/second")
    assert sim.scheduler.assignment_memo.hits == 1 and second is first
    sim.scheduler.assignment_memo._asks.clear()
    again, _ = assign(sim, "ns/second")
    assert again is not first and again.message() == first.message()
    assert [ps.flavors for ps in again.pod_sets] == [ps.flavors for ps in first.pod_sets]


def test_cyc_5_a_changed_figure_makes_the_next_head_work_its_answer_out_again() -> None:
    sim = busy_cohort(workload("first", "lq-b", cpu="2"), workload("second", "lq-b", cpu="2"))
    first, _ = assign(sim, "ns/first")
    held = sim.outcomes["ns/held-1"].workload
    sim.cache.remove_workload(held)  # 4 cpu free in the cohort: the next head fits
    second, _ = assign(sim, "ns/second")
    assert sim.scheduler.assignment_memo.hits == 0 and second is not first
    assert second.representative_mode() == "Fit"


def test_cyc_5_different_shapes_are_kept_apart() -> None:
    sim = busy_cohort(workload("small", "lq-b", cpu="2"), workload("large", "lq-b", cpu="3"))
    small, _ = assign(sim, "ns/small")
    large, _ = assign(sim, "ns/large")
    assert sim.scheduler.assignment_memo.hits == 0
    assert "3 more needed" in large.message() and "2 more needed" in small.message()


def test_cyc_5_a_head_that_finds_victims_is_never_kept() -> None:
    sim = busy_cohort(workload("high", "lq-b", cpu="2", priority=2000), workload("high-2", "lq-b", cpu="2",
                                                                               priority=2000))
    # b reclaims lower priority (PRE-3) in the cohort: a's 1000-priority workloads are victims for 2000.
    _, targets = assign(sim, "ns/high")
    _, again = assign(sim, "ns/high-2")
    assert targets and again and sim.scheduler.assignment_memo.hits == 0


def _snapshot(text: str) -> Any:
    return build_snapshot(load_text(ALL_KINDS, text, "random.yaml"), datetime(2026, 1, 1, 1, tzinfo=timezone.utc))


def _with_memo_and_without(monkeypatch: pytest.MonkeyPatch, text: str, options: KueueReplayOptions, owner: type,
                           name: str, watching: Any) -> tuple[Any, Any]:
    """The replay of ``text`` with the assignment memo (``owner.name`` replaced by ``watching``, which counts what it
    does), and without the memo."""
    with monkeypatch.context() as patched:
        patched.setattr(owner, name, watching)
        reused = replay_snapshot(_snapshot(text), options)
    with monkeypatch.context() as patched:
        patched.setattr(Scheduler, "_memo_applies", lambda self, workload, cq: False)
        fresh = replay_snapshot(_snapshot(text), options)
    return reused, fresh


def test_cyc_5_random_replays_are_the_same_with_answers_reused_or_worked_out_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Random scenarios (two flavors, fungibility, nested cohorts, every preemption policy) replayed with
    completions, so that heads are asked again after every requeue: the reports are equal either way, and answers
    were reused in some of them (else the comparison would prove nothing)."""
    options = KueueReplayOptions(TimelineOptions(runtime=parse_distribution("7m")))
    hits = [0]
    run_cycle = Scheduler.run_cycle

    def counted(self: Scheduler, now: datetime) -> Any:
        before = self.assignment_memo.hits
        result = run_cycle(self, now)
        hits[0] += self.assignment_memo.hits - before
        return result

    for seed in range(0, 60, 3):
        reused, fresh = _with_memo_and_without(monkeypatch, scenario(seed).text(), options, Scheduler, "run_cycle",
                                               counted)
        assert reused == fresh, f"seed {seed}"
    assert hits[0] > 0, hits


class _CountingCache:
    """The figures a lookup reads, counted: 2 cpu available, borrowing level 1 for any amount."""

    quota_changes = 0

    def __init__(self) -> None:
        self.asked: list[str] = []

    def available(self, state: object, fr: object) -> int:
        self.asked.append("available")
        return 2000

    def borrowing_level(self, state: object, fr: object, value: int) -> tuple[int, bool]:
        self.asked.append("borrowing_level")
        return 1, False


def test_cyc_5_answers_of_one_key_share_their_first_reads_and_a_lookup_reads_each_figure_once() -> None:
    from kqctl.kueue.engine.flavors.assignment import Assignment
    from kqctl.kueue.engine.flavors.assignment_memo import BORROWING_LEVEL, AssignmentMemo

    cache = _CountingCache()
    memo = AssignmentMemo(cache)  # type: ignore[arg-type]
    when_full, when_free, when_level_1 = Assignment(no_fit_reason="a"), Assignment(no_fit_reason="b"), Assignment()
    memo.keep("key", [(AVAILABLE, (CPU,), 0)], when_full)
    memo.keep("key", [(AVAILABLE, (CPU,), 2000), (BORROWING_LEVEL, (CPU, 3000), (0, False))], when_free)
    memo.keep("key", [(AVAILABLE, (CPU,), 2000), (BORROWING_LEVEL, (CPU, 3000), (1, False))], when_level_1)
    assert len(memo.kept_reads("key")) == 3
    found = memo.find("key", None, lambda fr, amount: ("NoCandidates", 0), lambda a: True)  # type: ignore[arg-type]
    assert found is when_level_1 and cache.asked == ["available", "borrowing_level"]
    assert memo.find("other", None, lambda fr, amount: ("", 0), lambda a: True) is None  # type: ignore[arg-type]


# --- ClusterQueues alike share their kept answers (AssignmentMemo._assigner_view) ---------------------------------

LOWER = {"reclaimWithinCohort": "LowerPriority", "withinClusterQueue": "LowerPriority"}
BORROW_LOWER = {**LOWER, "borrowWithinCohort": {"policy": "LowerPriority"}}


def two_alike(c_quotas: dict[str, Any] | None = None, **c_options: Any) -> Simulation:
    """b and c in one cohort, alike unless ``c_quotas`` / ``c_options`` say otherwise; a holds the whole cohort with
    high-priority work, so heads of b and c need preemption and find no victim."""
    flavors = {"default": {"cpu": "4"}, "spare": {"cpu": "2"}}
    options: dict[str, Any] = {"cohort": "co", "preemption": LOWER, **c_options}
    return simulation(
        flavor("default"), flavor("spare"),
        cluster_queue("a", {"default": {"cpu": "4"}, "spare": {"cpu": "2"}}, cohort="co", preemption=RECLAIM),
        cluster_queue("b", flavors, cohort="co", preemption=LOWER),
        cluster_queue("c", c_quotas if c_quotas is not None else flavors, **options),
        local_queue("lq-a", "a"), local_queue("lq-b", "b"), local_queue("lq-c", "c"),
        workload("held-1", "lq-a", cpu="4", priority=1000, admitted_in="a"),
        workload("held-2", "lq-a", cpu="4", priority=1000, admitted_in="a"),
        workload("held-3", "lq-a", cpu="4", priority=1000, admitted_in="a"),
        workload("held-4", "lq-a", cpu="4", priority=1000, admitted_in="a", admitted_flavor="spare"),
        workload("held-5", "lq-a", cpu="2", priority=1000, admitted_in="a", admitted_flavor="spare"),
        workload("in-b", "lq-b", cpu="2"), workload("in-c", "lq-c", cpu="2"),
    )


def _key(sim: Simulation, cq: str) -> Any:
    info = sim.outcomes[f"ns/{'in-b' if cq == 'b' else 'in-c'}"].workload
    return sim.scheduler.assignment_memo.key(sim.cache.cluster_queues[cq], info.shape, None)


def test_cyc_5_a_clusterqueue_alike_gets_the_answer_kept_for_another_and_it_is_the_answer_worked_out_again() -> None:
    sim = two_alike()
    in_b, in_c = sim.outcomes["ns/in-b"].workload, sim.outcomes["ns/in-c"].workload
    first, _ = sim.scheduler.get_assignments(in_b, sim.cache.cluster_queues["b"])
    second, _ = sim.scheduler.get_assignments(in_c, sim.cache.cluster_queues["c"])
    memo = sim.scheduler.assignment_memo
    assert memo.hits == 1 and second is first and first.representative_mode() == "Preempt"
    memo._asks.clear()
    again, _ = sim.scheduler.get_assignments(in_c, sim.cache.cluster_queues["c"])
    assert again is not first and again.message() == first.message()
    assert [ps.flavors for ps in again.pod_sets] == [ps.flavors for ps in first.pod_sets]


@pytest.mark.parametrize(("difference", "c_quotas", "c_options"), [
    ("nominal quota (FA-6.4 reads it)", {"default": {"cpu": "3"}, "spare": {"cpu": "2"}}, {}),
    ("borrowing limit", {"default": {"cpu": {"nominalQuota": "4", "borrowingLimit": "1"}}, "spare": {"cpu": "2"}},
     {}),
    ("flavor order (FA-3)", {"spare": {"cpu": "2"}, "default": {"cpu": "4"}}, {}),
    ("flavor fungibility (FA-7)", None, {"fungibility": {"whenCanBorrow": "TryNextFlavor"}}),
    ("preemption (FA-6.4: borrowWithinCohort)", None, {"preemption": BORROW_LOWER}),
])
def test_cyc_5_clusterqueues_that_differ_in_what_the_assigner_reads_of_them_keep_answers_apart(
        difference: str, c_quotas: dict[str, Any] | None, c_options: dict[str, Any]) -> None:
    sim = two_alike(c_quotas, **c_options)
    assert _key(sim, "b") != _key(sim, "c"), difference
    in_b, in_c = sim.outcomes["ns/in-b"].workload, sim.outcomes["ns/in-c"].workload
    sim.scheduler.get_assignments(in_b, sim.cache.cluster_queues["b"])
    after_b, _ = sim.scheduler.get_assignments(in_c, sim.cache.cluster_queues["c"])
    sim.scheduler.assignment_memo._asks.clear()
    fresh, _ = sim.scheduler.get_assignments(in_c, sim.cache.cluster_queues["c"])
    assert (after_b.message(), after_b.representative_mode()) == (fresh.message(), fresh.representative_mode())


@pytest.mark.parametrize(("difference", "c_options"), [
    ("another cohort (its figures are read again)", {"cohort": "other"}),
    ("another namespaceSelector (REQ-15, not the assigner's)",
     {"namespace_selector": {"matchLabels": {"team": "blue"}}}),
])
def test_cyc_5_clusterqueues_alike_but_for_what_the_figures_or_nomination_say_share_answers(
        difference: str, c_options: dict[str, Any]) -> None:
    sim = two_alike(None, **c_options)
    assert _key(sim, "b") == _key(sim, "c"), difference


def test_cyc_5_a_nominal_quota_changed_in_the_cache_sets_a_clusterqueue_apart_from_those_it_was_alike() -> None:
    sim = two_alike()
    assert _key(sim, "b") == _key(sim, "c")
    assert sim.cache.update_nominal_quota("c", CPU, 3000)
    assert _key(sim, "b") != _key(sim, "c")


def stamped_cluster(seed: int) -> str:
    """Kueue's benchmark shape in small: ClusterQueues stamped from one template in three cohorts, random workloads
    of three shapes at two priorities, some running."""
    import random

    import yaml

    rng = random.Random(seed)
    documents: list[dict[str, Any]] = [flavor("default")]
    for cohort in range(3):
        for index in range(4):
            name = f"cq-{cohort}-{index}"
            documents.append(cluster_queue(name, {"default": {"cpu": "4"}}, cohort=f"co-{cohort}",
                                           preemption=RECLAIM))
            documents.append(local_queue(f"lq-{name}", name))
    for number in range(70):
        name = f"cq-{rng.randrange(3)}-{rng.randrange(4)}"
        running = number < 12
        documents.append(workload(f"w{number}", f"lq-{name}", cpu=str(rng.choice((1, 2, 3))),
                                  priority=rng.choice((0, 1000)), admitted_in=name if running else None,
                                  created=f"2026-01-01T00:{number // 2:02d}:00Z"))
    return yaml.safe_dump_all(documents)


def test_cyc_5_replays_of_stamped_clusterqueues_are_the_same_with_answers_shared_or_worked_out_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reports are equal either way, and answers kept for one ClusterQueue were read for another (fewer keys
    than (ClusterQueue, shape) pairs asked; else the comparison would prove nothing)."""
    from kqctl.kueue.engine.flavors.assignment_memo import AssignmentMemo

    options = KueueReplayOptions(TimelineOptions(runtime=parse_distribution("7m")))
    asked: set[tuple[str, str]] = set()
    keys: set[Any] = set()
    key = AssignmentMemo.key

    def noted(self: AssignmentMemo, cq: Any, shape: str, scan: Any) -> Any:
        found = key(self, cq, shape, scan)
        asked.add((cq.name, shape))
        keys.add(found)
        return found

    for seed in range(4):
        shared, fresh = _with_memo_and_without(monkeypatch, stamped_cluster(seed), options, AssignmentMemo, "key",
                                               noted)
        assert shared == fresh, f"seed {seed}"
    assert len(keys) < len(asked), (len(keys), len(asked))
