"""SIM-8: a preemptor and its victim trading places forever is reported, not run for 200 cycles."""

from __future__ import annotations

from datetime import datetime, timezone

from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths

DATA = REPO / "tests" / "data" / "fair-sharing-livelock.yaml"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_fair_sharing_livelock_is_detected_and_names_both_workloads() -> None:
    result = simulate(build_snapshot(load_paths(ALL_KINDS, [str(DATA)])), SimulationOptions(fair_sharing=True, now=NOW))
    assert result.stop_reason == "livelock"
    assert result.livelock is not None and result.livelock.workloads == ("ns/w0", "ns/w1")
    assert result.cycles < 10


def test_the_same_queues_without_fair_sharing_settle() -> None:
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(DATA)]))
    result = simulate(snapshot, SimulationOptions(fair_sharing=False, now=NOW))
    assert result.stop_reason == "steady" and result.livelock is None


def test_sim_8_a_livelock_is_reported_only_once_the_whole_state_repeats_a_period_later() -> None:
    # The fingerprint (queues, holders) repeats after one period; the report waits for a second one, where the
    # holders' reservation order, admissions and sticky preemptors are compared too (Simulation._whole_state).
    result = simulate(build_snapshot(load_paths(ALL_KINDS, [str(DATA)])), SimulationOptions(fair_sharing=True, now=NOW))
    assert result.livelock is not None
    first, last = result.livelock.cycles
    assert last - first + 1 >= 1 and result.cycles == last


def test_sim_8_every_workload_of_a_livelock_has_a_decision_and_a_reason() -> None:
    result = simulate(build_snapshot(load_paths(ALL_KINDS, [str(DATA)])), SimulationOptions(fair_sharing=True, now=NOW))
    out = [w for w in result.workloads.values() if w.admission is None]
    assert out
    for workload in out:
        assert workload.decision and workload.reason and workload.message, workload.key
