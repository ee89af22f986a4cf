"""Flavor assignment (kqctl/kueue/engine/flavors/assigner.py, rule set FA), one workload against the cache.

The preemption oracle is a stub here, so these tests see the assigner alone: which flavor each
resource gets, in which mode, and why the others were passed over.
"""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.flavors.assigner import FlavorAssigner
from kqctl.kueue.engine.flavors.assignment import Assignment
from kqctl.kueue.engine.workloads import ScanMemory
from tests.kueue.engine.manifests import cluster_queue, flavor, local_queue, simulation, workload

TWO_FLAVORS = {"on-demand": {"cpu": "4"}, "spot": {"cpu": "4"}}


def no_candidates(fr: FlavorResource, amount: int) -> tuple[str, int]:
    return "NoCandidates", 0


def victims_in_the_queue(fr: FlavorResource, amount: int) -> tuple[str, int]:
    return "Preempt", 0


def assign(queue: dict[str, Any], *documents: dict[str, Any], oracle: Any = no_candidates,
           name: str = "w") -> Assignment:
    sim = simulation(flavor("on-demand"), flavor("spot", taints=[{"key": "spot", "value": "true",
                                                                  "effect": "NoSchedule"}]),
                     flavor("default"), queue, local_queue("lq", "cq"), *documents)
    info = sim.outcomes[f"ns/{name}"].workload
    return FlavorAssigner(info, sim.cache.cluster_queues["cq"], sim.cache, oracle).assign()


def chosen(assignment: Assignment) -> list[dict[str, str]]:
    return [{r: f"{c.flavor}:{c.mode}" for r, c in ps.flavors.items()} for ps in assignment.pod_sets]


def test_fa_6_a_flavor_with_unused_quota_fits() -> None:
    assignment = assign(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("w", cpu="3"))
    assert (chosen(assignment), assignment.representative_mode(), assignment.message()) == (
        [{"cpu": "default:Fit"}], "Fit", "")
    assert assignment.usage == {("default", "cpu"): 3000}


def test_fa_5_an_untolerated_taint_passes_the_flavor_over() -> None:
    queue = cluster_queue("cq", {"spot": {"cpu": "4"}, "on-demand": {"cpu": "4"}})
    assert chosen(assign(queue, workload("w"))) == [{"cpu": "on-demand:Fit"}]
    tolerated = workload("w", tolerations=[{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}])
    assert chosen(assign(queue, tolerated)) == [{"cpu": "spot:Fit"}]


def test_fa_5_fa_13_the_reasons_of_every_flavor_passed_over_make_the_message() -> None:
    queue = cluster_queue("cq", {"spot": {"cpu": "4"}, "on-demand": {"cpu": "4"}})
    assignment = assign(queue, workload("running", cpu="4", admitted_in="cq", admitted_flavor="on-demand"),
                        workload("w", cpu="1"))
    assert assignment.representative_mode() == "Preempt"
    assert assignment.message() == (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed,"
        " untolerated taint {spot true NoSchedule <nil>} in flavor spot")


def test_fa_6_fa_14_more_than_the_maximum_capacity_is_no_fit_exceeds_max_quota() -> None:
    assignment = assign(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("w", cpu="5"))
    assert (assignment.representative_mode(), assignment.no_fit_reason) == ("NoFit", "ExceedsMaxQuota")
    assert assignment.message() == (
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously considered"
        " podsets requests (0) + current podset request (5) > maximum capacity (4)")


@pytest.mark.parametrize(("oracle", "mode", "no_fit_reason"), [
    (no_candidates, "Preempt", ""),   # Preempt, but the cycle finds no targets (then WaitingForQuota)
    (victims_in_the_queue, "Preempt", ""),
])
def test_fa_6_within_nominal_but_in_use_asks_the_preemption_oracle(oracle: Any, mode: str, no_fit_reason: str) -> None:
    assignment = assign(cluster_queue("cq", {"default": {"cpu": "4"}}),
                        workload("running", cpu="4", admitted_in="cq"), workload("w", cpu="2"), oracle=oracle)
    [attempt] = assignment.pod_sets[0].attempts
    assert (assignment.representative_mode(), assignment.no_fit_reason) == (mode, no_fit_reason)
    assert attempt.possibility == oracle(("default", "cpu"), 2000)[0]


@pytest.mark.parametrize(("fungibility", "flavor_name", "borrowing"), [
    ({}, "on-demand", 1),                                      # MayStopSearch: borrowing stops the search
    ({"whenCanBorrow": "TryNextFlavor"}, "default", 0),        # a later flavor within nominal wins
])
def test_fa_10_when_can_borrow_decides_whether_borrowing_stops_the_search(fungibility: dict[str, str],
                                                                         flavor_name: str, borrowing: int) -> None:
    queue = cluster_queue("cq", {"on-demand": {"cpu": "2"}, "default": {"cpu": "6"}}, cohort="co",
                          fungibility=fungibility)
    lender = cluster_queue("lender", {"on-demand": {"cpu": "4"}}, cohort="co")
    assignment = assign(queue, lender, workload("w", cpu="4"))
    assert (chosen(assignment), assignment.borrowing) == ([{"cpu": f"{flavor_name}:Fit"}], borrowing)


def test_fa_10_a_flavor_that_needs_preemption_is_passed_over_for_one_that_fits() -> None:
    queue = cluster_queue("cq", {"on-demand": {"cpu": "2"}, "default": {"cpu": "4"}})
    assignment = assign(queue, workload("running", cpu="2", admitted_in="cq", admitted_flavor="on-demand"),
                        workload("w", cpu="2"), oracle=victims_in_the_queue)
    assert chosen(assignment) == [{"cpu": "default:Fit"}]


def test_fa_10_when_can_preempt_preempt_stops_at_the_first_flavor_with_victims() -> None:
    queue = cluster_queue("cq", {"on-demand": {"cpu": "2"}, "default": {"cpu": "4"}},
                          fungibility={"whenCanPreempt": "Preempt"})
    assignment = assign(queue, workload("running", cpu="2", admitted_in="cq", admitted_flavor="on-demand"),
                        workload("w", cpu="2"), oracle=victims_in_the_queue)
    assert chosen(assignment) == [{"cpu": "on-demand:Preempt"}]


def test_req_11_a_cluster_queue_covering_pods_counts_one_per_pod() -> None:
    queue = cluster_queue("cq", {"default": {"cpu": "8", "pods": "3"}})
    fits = assign(queue, workload("w", count=3))
    assert fits.usage == {("default", "cpu"): 3000, ("default", "pods"): 3}
    assert assign(queue, workload("w", count=4)).representative_mode() == "NoFit"


def test_req_12_a_resource_no_group_covers_is_no_matching_flavor() -> None:
    queue = cluster_queue("cq", {"default": {"memory": "1Gi"}})
    assignment = assign(queue, workload("w"))
    assert (assignment.representative_mode(), assignment.no_fit_reason) == ("NoFit", "NoMatchingFlavor")
    assert assignment.message() == "couldn't assign flavors to pod set main: resource cpu unavailable in ClusterQueue"


def test_fa_4_the_scan_resumes_after_the_flavor_it_ended_on() -> None:
    queue = cluster_queue("cq", TWO_FLAVORS)
    sim = simulation(flavor("on-demand"), flavor("spot"), queue, local_queue("lq", "cq"), workload("w"))
    info = sim.outcomes["ns/w"].workload
    first = FlavorAssigner(info, sim.cache.cluster_queues["cq"], sim.cache, no_candidates).assign()
    assert first.last_tried == [{"cpu": 0}]  # stopped at on-demand
    memory = ScanMemory(first.last_tried, 1, 0, info.shape)
    resumed = FlavorAssigner(info, sim.cache.cluster_queues["cq"], sim.cache, no_candidates, memory=memory).assign()
    assert chosen(resumed) == [{"cpu": "spot:Fit"}] and resumed.last_tried == [{"cpu": -1}]  # the last flavor
