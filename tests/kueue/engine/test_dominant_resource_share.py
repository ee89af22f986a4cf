"""Fair sharing's measure (kqctl/kueue/engine/dominant_resource_share.py, FS-1..FS-3)."""

from __future__ import annotations

import math

import pytest

from kqctl.kueue.engine.dominant_resource_share import DRS, compare_drs, dominant_resource_share
from tests.kueue.engine.manifests import cluster_queue, cohort, flavor, local_queue, simulation, workload


def shares(a_uses: str, weight: str | None = None) -> tuple[DRS, DRS, DRS]:
    """Cohort {a: 4, b: 4, c: 4} cpu; a runs ``a_uses``."""
    sim = simulation(flavor("default"), cohort("co"),
                     cluster_queue("a", {"default": {"cpu": "4"}}, cohort="co", fair_weight=weight),
                     cluster_queue("b", {"default": {"cpu": "4"}}, cohort="co"),
                     cluster_queue("c", {"default": {"cpu": "4"}}, cohort="co"), local_queue("lq", "a"),
                     workload("running", cpu=a_uses, admitted_in="a"))
    cache = sim.cache
    return (dominant_resource_share(cache, cache.cluster_queues["a"].node),
            dominant_resource_share(cache, cache.cluster_queues["b"].node),
            dominant_resource_share(cache, cache.cohorts["co"].node))


def test_fs_2_the_share_is_what_a_node_borrows_over_what_the_tree_could_lend_it() -> None:
    a, b, root = shares("6")  # a borrows 2 of the 12 the cohort could lend: 2000 * 1000 / 12000
    assert (a.borrowing, a.dominant, round(a.ratio, 3), round(a.weighted, 3)) == (True, "cpu", 166.667, 166.667)
    assert a.borrowed == (("default", "cpu"),)
    assert (b.borrowing, b.ratio) == (False, 0.0)
    assert (root.borrowing, root.ratio) == (False, 0.0), "a root's share is always 0"


def test_fs_2_within_nominal_quota_nothing_is_borrowed() -> None:
    assert shares("4")[0] == DRS(1.0)


@pytest.mark.parametrize(("weight", "weighted"), [("2", 83.333), ("0.5", 333.333), ("0", math.inf)])
def test_fs_1_fs_2_the_weight_divides_the_share_and_weight_0_makes_it_infinite(weight: str, weighted: float) -> None:
    a = shares("6", weight)[0]
    assert round(a.weighted, 3) == weighted


@pytest.mark.parametrize(("a", "b", "order"), [
    (DRS(1.0, 100.0, "cpu", True), DRS(1.0, 200.0, "cpu", True), -1),
    (DRS(2.0, 300.0, "cpu", True), DRS(1.0, 200.0, "cpu", True), -1),   # 150 < 200 once weighted
    (DRS(0.0, 10.0, "cpu", True), DRS(1.0, 900.0, "cpu", True), 1),     # a weight-0 borrower is above everyone
    (DRS(0.0, 10.0, "cpu", True), DRS(0.0, 20.0, "cpu", True), -1),     # two of them compare by ratio
    (DRS(0.0), DRS(1.0), 0),                                             # weight 0 but not borrowing: 0
])
def test_fs_3_comparing_shares(a: DRS, b: DRS, order: int) -> None:
    assert compare_drs(a, b) == order and compare_drs(b, a) == -order


def test_fs_4_borrowing_on_means_over_quota_on_a_requested_flavor_resource() -> None:
    a = shares("6")[0]
    assert a.borrowing_on({("default", "cpu"): 1000}) and not a.borrowing_on({("spot", "cpu"): 1000})
    assert not a.borrowing_on({("default", "cpu"): 0})
