"""SIM-7: explain's checks stop as soon as their one answer is known (kqctl/kueue/engine/settled.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kqctl.kueue.engine.explain import _finish, _raise_quota
from kqctl.kueue.engine.settled import Settled
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import cluster_queue, cohort, flavor, local_queue, simulation, workload

Change = Callable[[Simulation], None]


def queue_of(count: int, cpu: str = "1", **extra: Any) -> list[dict[str, Any]]:
    return [workload(f"w{i:02d}", cpu=cpu, created=f"2025-12-31T00:{i // 60:02d}:{i % 60:02d}Z", **extra)
            for i in range(count)]


def nothing(sim: Simulation) -> None:
    return None


def one_queue(preemption: dict[str, str] | None = None) -> list[dict[str, Any]]:
    return [flavor("default"), local_queue("lq", "cq"),
            cluster_queue("cq", {"default": {"cpu": "3"}}, preemption=preemption)]


# (name, documents, key, change, answer, stops early)
CASES: list[tuple[str, list[dict[str, Any]], str, Change, bool, bool]] = [
    ("last of a long queue, one more cpu: someone ahead takes it", [*one_queue(), *queue_of(12)], "ns/w11",
     _raise_quota("cq", "default", {"cpu": 1000}), False, True),
    ("last of a long queue, enough cpu for all", [*one_queue(), *queue_of(12)], "ns/w11",
     _raise_quota("cq", "default", {"cpu": 9000}), True, False),
    ("the next in line, one more cpu: it gets in and nothing can take it away", [*one_queue(), *queue_of(12)],
     "ns/w03", _raise_quota("cq", "default", {"cpu": 1000}), True, True),
    ("a holder finishes: the first in line gets its place", [*one_queue(), *queue_of(12)], "ns/w11",
     _finish("ns/w00"), False, True),
    ("LowerPriority with equal priorities evicts nothing", [*one_queue({"withinClusterQueue": "LowerPriority"}),
                                                            *queue_of(12)], "ns/w11", nothing, False, True),
    ("LowerPriority with a higher priority still queued may evict: run to the end",
     [*one_queue({"withinClusterQueue": "LowerPriority"}), *queue_of(12),
      workload("urgent", cpu="5", priority=10, created="2025-12-31T01:00:00Z")], "ns/w11", nothing, False, False),
    ("reclaim in a cohort may evict: run to the end", [
        flavor("default"), local_queue("lq", "cq"), local_queue("lq-b", "b"), cohort("co"),
        cluster_queue("cq", {"default": {"cpu": "3"}}, cohort="co", preemption={"reclaimWithinCohort": "Any"}),
        cluster_queue("b", {"default": {"cpu": "1"}}, cohort="co"), *queue_of(12)], "ns/w11", nothing, False, False),
    ("a partial admission may still fit at its smallest count", [
        *one_queue(), *queue_of(2), workload("wide", cpu="1", count=4, min_count=1,
                                             created="2025-12-31T02:00:00Z")], "ns/wide",
     _raise_quota("cq", "default", {"cpu": 1000}), True, False),
]


def continuation(documents: list[dict[str, Any]], key: str, change: Change, settled: bool) -> tuple[bool, int]:
    """explain's check (from_steady_state): the steady state, the change, a requeue event, the cycles on."""
    sim = simulation(*documents)
    sim.run_cycles()
    steady_cycles = len(sim.history)
    change(sim)
    sim.requeue_inadmissible()
    sim.run_cycles(until=Settled(sim, key) if settled else None)
    return sim.outcomes[key].workload.admission is not None, len(sim.history) - steady_cycles


@pytest.mark.parametrize(("name", "documents", "key", "change", "answer", "early"), CASES,
                         ids=[case[0] for case in CASES])
def test_sim_7_a_check_stopped_once_its_answer_is_settled_answers_as_the_whole_run(
        name: str, documents: list[dict[str, Any]], key: str, change: Change, answer: bool, early: bool) -> None:
    full, full_cycles = continuation(documents, key, change, settled=False)
    quick, quick_cycles = continuation(documents, key, change, settled=True)
    assert (full, quick) == (answer, answer), name
    assert (quick_cycles < full_cycles) == early, (name, quick_cycles, full_cycles)


@pytest.mark.parametrize(("options", "enabled"), [
    ({}, True),
    ({"between_cycles": lambda sim, cycle: None}, False),  # a hook may change anything
    ({"feature_gates_concurrent": True}, False),  # flavor migrations evict
])
def test_sim_7_no_early_answer_when_something_outside_the_cycles_may_change_the_state(
        options: dict[str, Any], enabled: bool) -> None:
    from kqctl.kueue.engine.features import FeatureGates

    if options.pop("feature_gates_concurrent", False):
        options["gates"] = FeatureGates.parse("ConcurrentAdmission=true")
    sim = simulation(*one_queue(), *queue_of(3), **options)
    assert Settled(sim, "ns/w02").enabled == enabled


COMPLETION_CASES: list[tuple[str, list[dict[str, Any]], str, int, int]] = [
    # (name, documents, key, checks run for the five smallest holders, completions suggested)
    ("holders alike in one ClusterQueue: one check answers for all", [
        *one_queue(), *[workload(f"h{i}", admitted_in="cq") for i in range(3)], *queue_of(4)], "ns/w00", 1, 3),
    ("holders of different sizes: one check each size", [
        flavor("default"), local_queue("lq", "cq"), cluster_queue("cq", {"default": {"cpu": "4"}}),
        workload("h-small", admitted_in="cq"), workload("h-big", cpu="3", admitted_in="cq"),
        workload("wide", cpu="2")], "ns/wide", 2, 1),
    ("a ClusterQueue that can preempt: who finishes may matter, every holder is checked", [
        *one_queue({"withinClusterQueue": "LowerPriority"}),
        *[workload(f"h{i}", admitted_in="cq", priority=i) for i in range(3)], *queue_of(4, priority=5)],
     "ns/w03", 3, 3),
]


@pytest.mark.parametrize(("name", "documents", "key", "checks", "suggested"), COMPLETION_CASES,
                         ids=[case[0] for case in COMPLETION_CASES])
def test_sim_7_interchangeable_holders_share_one_completion_check_with_the_same_suggestions(
        name: str, documents: list[dict[str, Any]], key: str, checks: int, suggested: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kqctl.kueue.engine import explain as explain_module
    from kqctl.kueue.engine.simulation import SimulationOptions
    from tests.kueue.engine.manifests import NOW, snapshot

    built = snapshot(*documents)
    options = SimulationOptions(now=NOW)
    calls: list[object] = []
    real = explain_module.from_steady_state

    def counted(*args: Any) -> Simulation:
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(explain_module, "from_steady_state", counted)
    monkeypatch.setattr(explain_module, "_quota_suggestions", lambda *args: [])
    monkeypatch.setattr(explain_module, "_policy_suggestions", lambda *args: [])
    shared = explain_module.explain(built, key, options).suggestions
    assert len(calls) == checks, name
    monkeypatch.setattr(explain_module, "_interchangeable", lambda *args: None)
    each = explain_module.explain(built, key, options).suggestions
    assert shared == each and [s.kind for s in shared] == ["completion"] * suggested, name
