"""From a snapshot to Kueue's decisions (kqctl/kueue/engine/simulation.py, rule set SIM)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from kqctl.kueue.engine.simulation import Simulation, simulate
from tests.kueue.engine.manifests import NOW, cluster_queue, flavor, local_queue, simulation, snapshot, workload

CPU = ("default", "cpu")
PREEMPT = {"withinClusterQueue": "LowerPriority"}


def setup(*documents: dict[str, Any], **options: Any) -> Simulation:
    return simulation(flavor("default"), local_queue("lq", "cq"), *documents, **options)


def test_sim_1_admitted_workloads_hold_quota_and_pending_ones_are_queued_in_the_heap() -> None:
    sim = setup(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("held", cpu="3", admitted_in="cq"),
                workload("pending"), workload("finished", status={"conditions": [
                    {"type": "Finished", "status": "True", "reason": "Succeeded", "message": "m",
                     "lastTransitionTime": "2025-12-31T00:00:00Z"}]}))
    assert sim.cache.cluster_queues["cq"].usage(CPU) == 3000
    assert list(sim.queues["cq"].active) == ["ns/pending"] and not sim.queues["cq"].inadmissible
    assert "ns/finished" not in sim.outcomes, "a finished workload holds nothing and waits for nothing"


def test_sim_1_cycles_run_one_second_apart_from_the_snapshots_clock() -> None:
    sim = setup(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("a", created="2025-12-31T00:00:00Z"),
                workload("b", created="2025-12-31T00:00:01Z"), cycles=2)
    sim.run_cycles()
    times = [sim.outcomes[f"ns/{n}"].workload.reservation_time for n in "ab"]
    assert times == [NOW, NOW + timedelta(seconds=1)]


@pytest.mark.parametrize(("cycles", "stop", "run"), [(None, "steady", 2), (1, "cycles", 1), (5, "cycles", 5)])
def test_sim_2_sim_7_the_run_stops_at_a_steady_state_or_after_the_cycles_given(cycles: int | None, stop: str,
                                                                                run: int) -> None:
    # Two workloads of one StrictFIFO queue: one admission per cycle, then nothing left to pop.
    result = setup(cluster_queue("cq", {"default": {"cpu": "4"}}, strategy="StrictFIFO"),
                   workload("a", created="2025-12-31T00:00:00Z"), workload("b", created="2025-12-31T00:00:01Z"),
                   cycles=cycles).run()
    assert (result.stop_reason, result.cycles) == (stop, run)
    admitted = [("ns/a",), ("ns/b",), *[()] * 3]
    assert [record.admitted for record in result.history] == admitted[:run]


def test_sim_8_the_cycle_limit_stops_a_run_that_would_go_on() -> None:
    result = setup(cluster_queue("cq", {"default": {"cpu": "4"}}, strategy="StrictFIFO"),
                   workload("a", created="2025-12-31T00:00:00Z"), workload("b", created="2025-12-31T00:00:01Z"),
                   max_cycles=1).run()
    assert (result.stop_reason, result.cycles, result.workloads["ns/b"].decision) == ("limit", 1, "Pending")
    assert any("stopped at its limit of 1 cycles before reaching a steady state" in w and "not the steady state" in w
               for w in result.warnings), "a capped run must never pass for the steady state"


def test_sim_8_the_cycle_limit_scales_with_the_workloads_so_large_queues_reach_their_steady_state() -> None:
    # 300 workloads of different shapes (no equivalence bulk move) in one BestEffortFIFO queue: one head per
    # cycle, so 300 cycles before every one was tried, more than SIM-8's fixed 200.
    workloads = [workload(f"w{i:03d}", cpu=f"{1000 + i}m", created=f"2025-12-31T00:{i // 60:02d}:{i % 60:02d}Z")
                 for i in range(300)]
    sim = setup(cluster_queue("cq", {"default": {"cpu": "4"}}, strategy="BestEffortFIFO"), *workloads)
    assert sim.max_cycles >= 2 * 300
    result = sim.run()
    assert (result.stop_reason, result.cycles) == ("steady", 300)
    decisions = [w.decision for w in result.workloads.values()]
    assert (decisions.count("Admitted"), decisions.count("Inadmissible")) == (3, 297)
    assert not any("limit" in w for w in result.warnings)


def test_sim_5_a_victim_releases_its_quota_at_once_and_goes_back_to_its_queue() -> None:
    sim = setup(cluster_queue("cq", {"default": {"cpu": "4"}}, preemption=PREEMPT),
                workload("victim", cpu="4", admitted_in="cq"), workload("preemptor", cpu="4", priority=5), cycles=2)
    result = sim.run()
    victim, preemptor = result.workloads["ns/victim"], result.workloads["ns/preemptor"]
    assert (victim.preempted_in, victim.preempted_by, victim.preemption_reason) == (1, "ns/preemptor",
                                                                                    "InClusterQueue")
    assert (preemptor.admitted_in, preemptor.victims) == (2, ("ns/victim",))
    assert victim.admission is None and sim.cache.cluster_queues["cq"].usage(CPU) == 4000
    assert "ns/victim" in sim.queues["cq"].active or "ns/victim" in sim.queues["cq"].inadmissible


def test_sim_4_a_stopped_local_queue_keeps_its_workloads_out_of_every_queue() -> None:
    stopped = local_queue("stopped", "cq")
    stopped["spec"]["stopPolicy"] = "Hold"
    sim = setup(cluster_queue("cq", {"default": {"cpu": "4"}}), stopped, workload("w", queue="stopped"))
    outcome = sim.outcomes["ns/w"]
    assert (outcome.queue_reason, outcome.queue_message) == ("Suspended", "LocalQueue stopped is stopped")
    assert len(sim.queues["cq"]) == 0


def test_between_cycles_runs_after_every_cycle_with_the_live_simulation() -> None:
    seen: list[tuple[int, int]] = []

    def record(sim: Simulation, cycle: int) -> None:
        seen.append((cycle, sim.cache.cluster_queues["cq"].usage(CPU)))

    setup(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("w"), cycles=2, between_cycles=record).run()
    assert seen == [(0, 1000), (1, 1000)]


def test_simulate_never_changes_the_snapshot() -> None:
    documents = (flavor("default"), local_queue("lq", "cq"), cluster_queue("cq", {"default": {"cpu": "4"}}),
                 workload("w"))
    before = snapshot(*documents)
    model = before.workloads[0]
    simulate(before)
    assert before.workloads[0] is model and model.admission is None
