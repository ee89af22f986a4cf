"""Trees listed depth-first: their glyphs, and --sort-by ordering siblings with their subtrees."""

from __future__ import annotations

import pytest

from kqctl.render.tree import sorted_siblings, tree_prefixes


@pytest.mark.parametrize("depths, keys, order", [
    ([], [], []),
    ([0, 0, 0], [3, 1, 2], [1, 2, 0]),  # roots sort among themselves
    ([0, 1, 1, 1], [0, 9, 1, 5], [0, 2, 3, 1]),  # children under their parent
    ([0, 1, 2, 2, 1, 2, 2], [0, 5, 3, 1, 2, 9, 8], [0, 4, 6, 5, 1, 3, 2]),  # a subtree moves with its root
    ([0, 1, 1, 0, 1], [1, 1, 1, 0, 0], [3, 4, 0, 1, 2]),  # ties keep the order given
    ([0, 1, 2, 3, 0], [1, 0, 0, 0, 0], [4, 0, 1, 2, 3]),  # a chain stays a chain
])
def test_sorted_siblings_orders_each_level_and_keeps_subtrees_whole(depths: list[int], keys: list[int],
                                                                    order: list[int]) -> None:
    assert sorted_siblings(depths, keys) == order
    assert sorted(order) == list(range(len(depths)))
    tree_prefixes([depths[i] for i in order])  # still a tree listed depth-first


def test_sorted_siblings_takes_a_deep_tree() -> None:
    depths = list(range(5000))
    assert sorted_siblings(depths, [0] * 5000) == depths
