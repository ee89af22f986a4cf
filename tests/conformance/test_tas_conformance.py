"""Kueue's recorded decisions that depend on Topology-Aware Scheduling, run through the engine's API.

* preserve-flavor-scan-progress (TestScheduleForPreserveFlavorScanProgress): 4 cycles; between
  cycles the cache copy of a ClusterQueue's quota may churn and inadmissible workloads are
  requeued, state no manifest carries (``SimulationOptions.between_cycles``);
* the flavor-assign case where one pod set gets two TAS flavors (TAS-6 ``onlyTASFlavor``).
"""

from __future__ import annotations

from typing import Any

import pytest
from conformance_cases import Case, cases, scheduler_differences

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.k8s.core import parse_time
from kqctl.k8s.quantity import parse_quantity, quota_value
from kqctl.kueue.api.models import ResourceFlavor
from kqctl.kueue.engine.entry import CycleResult
from kqctl.kueue.engine.features import DEFAULTS, FeatureGates
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.render.simulation import contract
from kqctl.load.objects import load_paths

SCAN_PROGRESS_CASES = cases("preserve-flavor-scan-progress")
TAS_FLAVOR_CASES = [c for c in cases("flavor-assign") if "tas-flavor" in (c.expected.get("tags") or [])]

# The churn the recorded test applies (its config notes): flavor 2 of the ClusterQueue's first
# resource group alternates between two nominal quotas, in the cache only.
CHURN_CQ, CHURN_FLAVOR, CHURN_RESOURCE = "tas-cq", "tas-flavor-2", "cpu"


def gates_of(config: dict[str, Any]) -> FeatureGates:
    return FeatureGates({k: bool(v) for k, v in (config.get("featureGates") or {}).items() if k in DEFAULTS})


def between_cycles(config: dict[str, Any]) -> Any:
    def hook(sim: Simulation, cycle: int) -> None:
        if config.get("quotaChurnBetweenCycles"):
            quota = quota_value(CHURN_RESOURCE, parse_quantity("5" if cycle % 2 == 0 else "4"))
            sim.cache.update_nominal_quota(CHURN_CQ, (CHURN_FLAVOR, CHURN_RESOURCE), quota)
        if config.get("requeueInadmissibleBetweenCycles"):
            sim.requeue_inadmissible()
    return hook


def run_scan_progress(case: Case) -> dict[str, Any]:
    config = case.config
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(case.snapshot)]))
    options = SimulationOptions(
        cycles=case.expected.get("cycles", 1), fair_sharing=bool(config.get("fairSharing")), gates=gates_of(config),
        now=parse_time(config["now"], ()) if config.get("now") else None, between_cycles=between_cycles(config))
    return contract(simulate(snapshot, options))


def test_there_are_tas_cases() -> None:
    assert len(SCAN_PROGRESS_CASES) == 3 and len(TAS_FLAVOR_CASES) == 1


def test_the_cases_need_nodes_and_a_topology() -> None:
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(SCAN_PROGRESS_CASES[0].snapshot)]))
    assert sorted(snapshot.nodes) == ["node-f1", "node-f2"]
    assert snapshot.topologies["tas-single-level"].levels == ("kubernetes.io/hostname",)
    assert isinstance(snapshot.resource_flavors["tas-flavor-1"], ResourceFlavor)


@pytest.mark.parametrize("case", SCAN_PROGRESS_CASES, ids=str)
def test_scan_progress_case_matches_kueue(case: Case) -> None:
    assert scheduler_differences(run_scan_progress(case), case.expected) == []


@pytest.mark.parametrize("case", SCAN_PROGRESS_CASES, ids=str)
def test_the_topology_failure_is_what_kueue_reported(case: Case) -> None:
    """The pending workload's QuotaReserved=False event of cycle 2 (the Warning Kueue recorded)."""
    expected = next(e["message"] for e in case.expected["events"] if e["eventType"] == "Warning")
    config = case.config
    seen: list[CycleResult] = []  # the cycles' entries, as they end (the simulation keeps only their records)
    sim = Simulation(build_snapshot(load_paths(ALL_KINDS, [str(case.snapshot)])), SimulationOptions(
        cycles=2, fair_sharing=True, gates=gates_of(config), between_cycles=between_cycles(config),
        on_cycle=lambda result, _: seen.append(result)))
    sim.run_cycles()
    entry = next(e for e in seen[1].entries if e.workload.key == "default/pending")
    assert (entry.message, entry.reason, entry.mode) == (expected, "WaitingForQuota", "Preempt")


@pytest.mark.parametrize("case", TAS_FLAVOR_CASES, ids=str)
def test_tas_flavor_assignment_matches_kueue(case: Case) -> None:
    expected = case.expected
    config = expected.get("config") or {}
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(case.snapshot)]))
    sim = Simulation(snapshot, SimulationOptions(fair_sharing=bool(config.get("enableFairSharing")),
                                                 gates=gates_of(config)))
    workload = sim.outcomes[expected["workload"]].workload
    sim.scheduler.cycle = 1
    assignment, targets = sim.scheduler.get_assignments(workload, sim.cache.cluster_queues[expected["clusterQueue"]])
    want = expected["replay"]["assignment"]
    assert (assignment.representative_mode(), assignment.borrowing, assignment.message()) == (
        want["representativeMode"], want["borrowing"], want["message"])
    got_pod_sets = [{"name": ps.name, "count": ps.count,
                     "flavors": {r: {"name": c.flavor, "mode": c.mode, "borrow": c.borrow}
                                 for r, c in ps.flavors.items()}} for ps in assignment.pod_sets]
    want_pod_sets = [{"name": ps["name"], "count": ps["count"],
                      "flavors": {r: {k: f[k] for k in ("name", "mode", "borrow")} for r, f in ps["flavors"].items()}}
                     for ps in want["podSets"]]
    assert got_pod_sets == want_pod_sets
    assert targets == []
