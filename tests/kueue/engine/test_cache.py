"""The quota cache (kqctl/kueue/engine/cache.py): ClusterQueues and Cohorts in a tree, who holds quota (XO, Q)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.workloads import WorkloadInfo, build_workload_info
from tests.kueue.engine.manifests import cluster_queue, cohort, flavor, local_queue, snapshot, workload

CPU = ("default", "cpu")


def cache_of(*documents: dict[str, Any]) -> QuotaCache:
    return QuotaCache(snapshot(flavor("default"), *documents))


@pytest.mark.parametrize(("extra", "reason", "message"), [
    ({"stop_policy": "Hold"}, "Stopped", "Can't admit new workloads: is stopped."),
    ({"flavors": {"missing": {"cpu": "1"}}}, "FlavorNotFound",
     "Can't admit new workloads: references missing ResourceFlavor(s): missing."),
    ({"stop_policy": "HoldAndDrain", "flavors": {"gone": {"cpu": "1"}, "lost": {"cpu": "1"}}}, "Stopped",
     "Can't admit new workloads: is stopped, references missing ResourceFlavor(s): gone,lost."),
])
def test_xo_1_the_first_reason_wins_and_every_fragment_is_in_the_message(extra: dict[str, Any], reason: str,
                                                                         message: str) -> None:
    flavors = extra.pop("flavors", {"default": {"cpu": "1"}})
    state = cache_of(cluster_queue("cq", flavors, **extra)).cluster_queues["cq"]
    assert (state.active, state.inactive_reason, state.inactive_message) == (False, reason, message)


def test_xo_1_an_active_cluster_queue_has_no_inactive_reason() -> None:
    state = cache_of(cluster_queue("cq", {"default": {"cpu": "1"}})).cluster_queues["cq"]
    assert (state.active, state.inactive_reason, state.node.active) == (True, "", True)


def test_xo_3_a_cohort_cycle_makes_every_cluster_queue_under_it_inactive() -> None:
    cache = cache_of(cohort("a", parent="b"), cohort("b", parent="a"), cohort("free"),
                     cluster_queue("in-cycle", {"default": {"cpu": "1"}}, cohort="a"),
                     cluster_queue("outside", {"default": {"cpu": "1"}}, cohort="free"))
    assert (cache.cohorts["a"].in_cycle, cache.cohorts["b"].in_cycle, cache.cohorts["free"].in_cycle) == (
        True, True, False)
    assert cache.cluster_queues["in-cycle"].inactive_reason == "CohortCycle"
    assert cache.cluster_queues["outside"].active


def test_xo_2_a_cohort_named_but_not_defined_is_an_implicit_root() -> None:
    cache = cache_of(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="implicit"),
                     cluster_queue("b", {"default": {"cpu": "3"}}, cohort="implicit"))
    implicit = cache.cohorts["implicit"]
    assert implicit.model is None and implicit.node.parent is None
    assert implicit.node.subtree[CPU] == 5000  # Q-2: the children's quota, none of its own


@pytest.mark.parametrize(("name", "path"), [("alone", "/alone"), ("leaf", "/root/team/leaf")])
def test_cyc_18_the_path_of_a_cluster_queue_names_every_cohort_from_the_root(name: str, path: str) -> None:
    cache = cache_of(cohort("root"), cohort("team", parent="root"),
                     cluster_queue("leaf", {"default": {"cpu": "1"}}, cohort="team"),
                     cluster_queue("alone", {"default": {"cpu": "1"}}))
    assert cache.path(cache.cluster_queues[name]) == path


def test_q_8_height_counts_levels_of_child_cohorts() -> None:
    cache = cache_of(cohort("root"), cohort("org", parent="root"), cohort("empty", parent="root"),
                     cluster_queue("cq", {"default": {"cpu": "1"}}, cohort="org"))
    assert [cache.height(cache.cohorts[c].node) for c in ("org", "empty", "root")] == [1, 0, 2]


# Q-8 in root <- org <- {cq, sibling}: cq has 2 cpu, sibling 2, root 4 of its own (8 in all).
@pytest.mark.parametrize(("request_cpu", "level", "may_reclaim"), [
    (1000, 0, True),    # within its own nominal quota: level 0, a parent to reclaim from
    (3000, 1, True),    # borrows from org (the sibling's quota): org's height, org has a parent
    (6000, 2, False),   # needs root's own quota: root's height, nothing above to reclaim from
    (9000, 2, False),   # does not fit anywhere: the root's height
])
def test_q_8_borrowing_level_is_the_height_of_the_lowest_cohort_with_room(request_cpu: int, level: int,
                                                                         may_reclaim: bool) -> None:
    cache = cache_of(cohort("root", flavors={"default": {"cpu": "4"}}), cohort("org", parent="root"),
                     cluster_queue("cq", {"default": {"cpu": "2"}}, cohort="org"),
                     cluster_queue("sibling", {"default": {"cpu": "2"}}, cohort="org"))
    assert cache.borrowing_level(cache.cluster_queues["cq"], CPU, request_cpu) == (level, may_reclaim)


def test_q_8_a_cluster_queue_without_a_cohort_is_always_at_level_0() -> None:
    cache = cache_of(cluster_queue("cq", {"default": {"cpu": "2"}}))
    assert cache.borrowing_level(cache.cluster_queues["cq"], CPU, 5000) == (0, False)


def test_q_3_q_4_admitted_workloads_hold_quota_in_their_cluster_queue_and_the_cohort() -> None:
    cache = cache_of(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                     cluster_queue("b", {"default": {"cpu": "2"}}, cohort="co"), local_queue("lq", "a"))
    info = _admitted_info(cache, "3")
    cache.add_workload(info)
    a, co = cache.cluster_queues["a"], cache.cohorts["co"]
    assert (a.usage(CPU), co.node.usage[CPU], cache.available(cache.cluster_queues["b"], CPU)) == (3000, 3000, 1000)
    assert a.borrowing(CPU) and "ns/w" in a.workloads
    cache.remove_workload(info)
    assert (a.usage(CPU), co.node.usage[CPU], a.workloads) == (0, 0, {})


def test_update_nominal_quota_recomputes_the_tree_and_bumps_the_generation_only_on_a_change() -> None:
    cache = cache_of(cluster_queue("a", {"default": {"cpu": "2"}}, cohort="co"),
                     cluster_queue("b", {"default": {"cpu": "2"}}, cohort="co"))
    a = cache.cluster_queues["a"]
    assert not cache.update_nominal_quota("a", CPU, 2000) and a.generation == 0
    assert cache.update_nominal_quota("a", CPU, 5000) and a.generation == 1
    assert (cache.cohorts["co"].node.subtree[CPU], cache.potential(cache.cluster_queues["b"], CPU)) == (7000, 7000)


def _admitted_info(cache: QuotaCache, cpu: str) -> WorkloadInfo:
    model = snapshot(flavor("default"), workload("w", cpu=cpu, admitted_in="a")).workloads[0]
    return build_workload_info(model, None, cache.snapshot.config)
