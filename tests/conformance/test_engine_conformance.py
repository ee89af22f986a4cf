"""Conformance cases whose config holds state no manifest carries, run through the engine's API.

* an injected failure of the admission status patch (Kueue forgets and requeues the workload);
* admission fair sharing with LocalQueue usage given up front (TestScheduleForAFS).
"""

from __future__ import annotations

import dataclasses

import pytest
from conformance_cases import Case, cases, scheduler_differences

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.k8s.core import parse_time
from kqctl.k8s.quantity import parse_quantity
from kqctl.kueue.api.config import AdmissionFairSharingConfig, duration_seconds
from kqctl.kueue.engine.features import DEFAULTS, FeatureGates
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.render.simulation import contract
from kqctl.load.objects import load_paths

INJECTED_ERROR_CASES = [c for c in cases("schedule") if "injectedWorkloadStatusPatchError" in c.config]
AFS_CASES = cases("admission-fair-sharing")


def run_engine(case: Case) -> dict:
    config = case.config
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(case.snapshot)]))
    afs = config.get("admissionFairSharing")
    usage = None
    if afs:
        snapshot.config = dataclasses.replace(snapshot.config, admission_fair_sharing=AdmissionFairSharingConfig(
            duration_seconds(afs.get("usageHalfLifeTime", "")),
            duration_seconds(afs.get("usageSamplingInterval", ""), 300.0),
            dict(afs.get("resourceWeights") or {})))
        usage = {lq: {r: parse_quantity(str(q)).value for r, q in resources.items()}
                 for lq, resources in (afs.get("initialLocalQueueUsage") or {}).items()}
    gates = FeatureGates({k: bool(v) for k, v in (config.get("featureGates") or {}).items() if k in DEFAULTS})
    options = SimulationOptions(
        cycles=case.expected.get("cycles", 1), fair_sharing=bool(config.get("fairSharing")), gates=gates,
        now=parse_time(config["now"], ()) if config.get("now") else None,
        fail_admissions=config.get("injectedWorkloadStatusPatchError") == "admission",
        local_queue_usage=usage)
    return contract(simulate(snapshot, options))


def test_there_are_engine_only_cases() -> None:
    assert INJECTED_ERROR_CASES and AFS_CASES


@pytest.mark.parametrize("case", INJECTED_ERROR_CASES, ids=str)
def test_failed_admission_patch_requeues_the_workload_like_kueue(case: Case) -> None:
    assert scheduler_differences(run_engine(case), case.expected) == []


@pytest.mark.parametrize("case", AFS_CASES, ids=str)
def test_admission_fair_sharing_case_matches_kueue(case: Case) -> None:
    assert scheduler_differences(run_engine(case), case.expected) == []
