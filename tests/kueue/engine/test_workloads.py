"""Workloads as the scheduler sees them (kqctl/kueue/engine/workloads.py): priority, order, requests, usage (REQ)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

import pytest

from kqctl.kueue.api.config import KueueConfig
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.engine.workloads import (
    ZERO_TIME,
    WorkloadInfo,
    apply_resource_filters,
    build_workload_info,
    resource_order,
)
from tests.kueue.engine.manifests import snapshot, workload

EVICTED_AT = "2025-12-31T12:00:00Z"


def info(config: KueueConfig | None = None, **fields: Any) -> WorkloadInfo:
    built = snapshot(workload("w", **fields))
    return build_workload_info(built.workloads[0], None, config or built.config)


def evicted(reason: str) -> dict[str, Any]:
    return {"conditions": [{"type": "Evicted", "status": "True", "reason": reason, "message": "m",
                            "lastTransitionTime": EVICTED_AT}]}


def test_req_4_priority_is_the_spec_priority() -> None:
    assert info(priority=7).priority == 7


@pytest.mark.parametrize(("status", "queued_at"), [
    (None, datetime(2025, 12, 31, tzinfo=timezone.utc)),                      # creationTimestamp
    (evicted("PodsReadyTimeout"), datetime(2025, 12, 31, 12, tzinfo=timezone.utc)),
    (evicted("AdmissionCheck"), datetime(2025, 12, 31, 12, tzinfo=timezone.utc)),
    (evicted("Preempted"), datetime(2025, 12, 31, tzinfo=timezone.utc)),      # a preempted workload keeps its place
])
def test_cyc_16_the_queue_order_time_restarts_only_after_a_pods_ready_or_admission_check_eviction(
        status: dict[str, Any] | None, queued_at: datetime) -> None:
    assert info(status=status).queue_order_time == queued_at


def test_cyc_16_a_workload_without_creation_timestamp_is_queued_at_go_zero_time() -> None:
    built = snapshot(workload("w"))
    model = built.workloads[0]
    assert build_workload_info(dataclasses.replace(model, creation_timestamp=None), None,
                               built.config).queue_order_time == ZERO_TIME


def test_req_9_reclaimable_pods_are_not_counted() -> None:
    pending = info(cpu="2", count=5, status={"reclaimablePods": [{"name": "main", "count": 2}]})
    [pod_set] = pending.pod_sets
    assert (pod_set.spec_count, pod_set.count, pod_set.total) == (5, 3, {"cpu": 6000})


def test_req_9_with_the_reclaimable_pods_gate_off_every_pod_counts() -> None:
    """Kueue subtracts reclaimable pods only while ReclaimablePods is on (TestAssignFlavors "with reclaimable pods;
    reclaimablePods off"): off, a pending workload asks for every pod and an admitted one holds its whole admission."""
    reclaimable = {"reclaimablePods": [{"name": "main", "count": 2}]}
    built = snapshot(workload("w", cpu="2", count=5, status=reclaimable))
    [pod_set] = build_workload_info(built.workloads[0], None, built.config, reclaimable_pods=False).pod_sets
    assert (pod_set.spec_count, pod_set.count, pod_set.total) == (5, 5, {"cpu": 10000})
    admitted = snapshot(workload("w", cpu="1", count=3, admitted_in="cq", status={
        "reclaimablePods": [{"name": "main", "count": 1}]}))
    info_off = build_workload_info(admitted.workloads[0], None, admitted.config, reclaimable_pods=False)
    assert info_off.admission is not None and info_off.usage() == {("default", "cpu"): 3000}


def test_req_9_the_simulation_reads_the_reclaimable_pods_gate() -> None:
    built = snapshot(workload("w", cpu="2", count=5, status={"reclaimablePods": [{"name": "main", "count": 2}]}))
    counts = {}
    for enabled in (True, False):
        sim = Simulation(built, SimulationOptions(gates=FeatureGates({"ReclaimablePods": enabled})))
        [pod_set] = sim.outcomes["ns/w"].workload.pod_sets
        counts[enabled] = pod_set.count
    assert counts == {True: 3, False: 5}


def test_req_10_an_admitted_workload_holds_what_its_admission_says() -> None:
    admitted = info(cpu="2", count=3, admitted_in="cq", admitted_flavor="spot")
    assert admitted.admission is not None and admitted.admission.cluster_queue == "cq"
    assert admitted.usage() == {("spot", "cpu"): 6000}


def test_req_10_reclaimable_pods_scale_an_admission_down_by_integer_division() -> None:
    admitted = info(cpu="1", count=3, admitted_in="cq",
                    status={"reclaimablePods": [{"name": "main", "count": 1}]})
    assert admitted.admission is not None
    [pod_set] = admitted.admission.pod_sets
    assert (pod_set.count, dict(pod_set.usage)) == (2, {"cpu": 2000})


def test_req_10_a_workload_without_quota_reservation_holds_nothing() -> None:
    assert info().admission is None and info().usage() == {}


@pytest.mark.parametrize(("count", "scaled"), [(4, 4000), (2, 2000), (3, 3000)])
def test_req_14_totals_for_another_count_divide_then_multiply(count: int, scaled: int) -> None:
    [pod_set] = info(cpu="1", count=4).pod_sets
    assert pod_set.total_for(count) == {"cpu": scaled}


@pytest.mark.parametrize(("min_count", "partial"), [(None, False), (4, False), (2, True)])
def test_req_13_partial_admission_needs_a_min_count_below_the_count(min_count: int | None, partial: bool) -> None:
    assert info(count=4, min_count=min_count).can_be_partially_admitted() is partial


def test_fa_2_resources_are_visited_in_fnv_1a_order() -> None:
    names = ["cpu", "pods", "memory", "nvidia.com/gpu", "ephemeral-storage", "amd.com/gpu", "hugepages-2Mi"]
    assert resource_order(names) == ["ephemeral-storage", "amd.com/gpu", "memory", "nvidia.com/gpu", "pods",
                                     "hugepages-2Mi", "cpu"]


def test_req_7_excluded_resource_prefixes_are_dropped() -> None:
    config = KueueConfig(exclude_resource_prefixes=("example.com/",))
    assert apply_resource_filters({"cpu": 1000, "example.com/licence": 1}, config) == {"cpu": 1000}


@pytest.mark.parametrize(("other", "equivalent"), [
    ({"namespace": "elsewhere", "created": "2025-12-30T00:00:00Z", "uid": "x"}, True),
    ({"cpu": "2"}, False),
    ({"priority": 1}, False),
    ({"count": 2}, False),
])
def test_cyc_12_the_scheduling_shape_ignores_name_namespace_and_time(other: dict[str, Any], equivalent: bool) -> None:
    assert (info().shape == info(**other).shape) is equivalent


@pytest.mark.parametrize("ask", [
    lambda w: w.usage(),
    lambda w: w.pod_sets[0].total,
    lambda w: w.pod_sets[0].total_for(3),
    lambda w: w.pod_sets[0].total_for(2),
])
def test_req_10_req_14_usage_and_totals_worked_out_once_are_handed_out_as_new_dicts(ask: Any) -> None:
    """Admission usage and pod-set totals are remembered; a caller that adds to what it got (the flavor assigner
    adds ``pods``) must not change what the next caller gets."""
    admitted = info(cpu="1", count=3, admitted_in="cq", admitted_flavor="spot")
    first = ask(admitted)
    expected = dict(first)
    first["pods"] = 99
    first.pop("cpu", None)
    assert ask(admitted) == expected


@pytest.mark.parametrize(("needed", "uses"), [
    ({("spot", "cpu")}, True), ({("spot", "memory")}, False), ({("on-demand", "cpu")}, False),
    ({("on-demand", "cpu"), ("spot", "cpu")}, True), (set(), False),
])
def test_pre_4_a_candidate_uses_a_flavor_resource_its_admission_assigned(needed: set[Any], uses: bool) -> None:
    from kqctl.kueue.engine.preemption.targets import uses_resources

    admitted = info(cpu="1", count=3, admitted_in="cq", admitted_flavor="spot")
    assert uses_resources(admitted, needed) is uses
    assert uses_resources(info(cpu="1"), needed) is False, "a workload without admission uses nothing"
