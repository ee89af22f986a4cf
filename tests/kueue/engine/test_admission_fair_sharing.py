"""Admission fair sharing (kqctl/kueue/engine/admission_fair_sharing.py, FS-11): LocalQueue scores."""

from __future__ import annotations

import math

import pytest

from kqctl.kueue.api.config import AdmissionFairSharingConfig
from kqctl.kueue.engine.admission_fair_sharing import UsageLedger, lq_key, natural
from kqctl.kueue.engine.workloads import build_workload_info
from tests.kueue.engine.manifests import snapshot, workload


def ledger(half_life: float = 600.0, sampling: float = 300.0, weights: dict[str, float] | None = None,
           lq_weight: float = 1.0) -> UsageLedger:
    config = AdmissionFairSharingConfig(half_life, sampling, weights or {})
    return UsageLedger(config, {"ns/lq": lq_weight}, {"ns/lq": {"cpu": 2.0, "memory": 1024.0}})


def test_fs_11_the_score_is_weighted_usage_over_the_local_queues_weight() -> None:
    assert ledger().score("ns/lq") == 1026.0  # natural units: memory in bytes dominates
    assert ledger(weights={"cpu": 10.0, "memory": 0.0}).score("ns/lq") == 20.0
    assert ledger(lq_weight=2.0).score("ns/lq") == 513.0
    assert ledger(lq_weight=0.0).score("ns/lq") == math.inf
    assert ledger().score("ns/unknown") == 0.0


@pytest.mark.parametrize(("half_life", "alpha"), [(300.0, 0.5), (600.0, 1 - 0.5 ** 0.5), (0.0, 0.0)])
def test_fs_11_an_admission_adds_its_requests_times_alpha_until_the_next_sample(half_life: float,
                                                                                alpha: float) -> None:
    usage = ledger(half_life=half_life, weights={"cpu": 1.0, "memory": 0.0})
    built = snapshot(workload("w", queue="lq", cpu="4"))
    info = build_workload_info(built.workloads[0], None, built.config)
    usage.add_penalty(info)
    assert lq_key(info) == "ns/lq"
    assert usage.workload_score(info) == pytest.approx(2.0 + 4.0 * alpha)


def test_fs_11_cpu_counts_in_cores_everything_else_in_its_unit() -> None:
    assert (natural("cpu", 1500), natural("memory", 1024)) == (1.5, 1024.0)
