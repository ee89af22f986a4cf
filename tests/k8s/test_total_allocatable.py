"""``total_allocatable``: the one sum of the nodes' allocatable that Volcano's and YuniKorn's ``convert --to kueue``
give the root Cohort (VC-CONV-CAPACITY), exact integers, and no nodes told apart from nodes with nothing."""

from __future__ import annotations

from kqctl.k8s.core import total_allocatable


def test_total_allocatable_adds_each_resource_over_the_nodes_exactly() -> None:
    nodes = [{"cpu": 4000, "memory": 8 * 2**30}, {"cpu": 500, "nvidia.com/gpu": 2}, {"memory": 2**62}]
    assert total_allocatable(iter(nodes)) == {"cpu": 4500, "memory": 8 * 2**30 + 2**62, "nvidia.com/gpu": 2}


def test_total_allocatable_of_no_node_is_none_and_of_an_empty_node_is_empty() -> None:
    assert total_allocatable([]) is None
    assert total_allocatable([{}]) == {}
