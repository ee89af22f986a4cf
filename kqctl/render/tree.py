"""Tree glyphs for tables that list a tree depth-first (audit's cohorts and queues, for every scheduler).

``├─`` for a node with a later sibling, ``└─`` for the last one, ``│`` continuing an ancestor's line while
that ancestor has later siblings: the way ``tree`` and ``kubectl tree`` draw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

BRANCH, LAST, PIPE, SPACE = "├─ ", "└─ ", "│  ", "   "


def tree_prefixes(depths: Sequence[int]) -> list[str]:
    """The glyphs before each node's name, from the depths of nodes listed depth-first (roots at depth 0)."""
    prefixes: list[str] = []
    open_levels: list[bool] = []  # per ancestor depth: does that ancestor have later siblings?
    for i, depth in enumerate(depths):
        last = _last_sibling(depths, i)
        del open_levels[max(0, depth - 1):]
        if depth == 0:
            prefixes.append("")
            continue
        lead = "".join(PIPE if more else SPACE for more in open_levels)
        prefixes.append(lead + (LAST if last else BRANCH))
        open_levels.append(not last)
    return prefixes


def continuation(prefix: str) -> str:
    """The glyphs of a node's second and later rows: its own branch becomes a line down to its children."""
    return prefix.replace(BRANCH, PIPE).replace(LAST, SPACE)


def _last_sibling(depths: Sequence[int], index: int) -> bool:
    depth = depths[index]
    for later in depths[index + 1:]:
        if later <= depth:
            return later < depth
    return True


def sorted_siblings(depths: Sequence[int], keys: Sequence[Any]) -> list[int]:
    """--sort-by over a tree listed depth-first: the new order of its nodes (indexes), each node's children sorted
    by their ``keys`` (ties in the order given), every subtree moving with its root, so the tree stays a tree and
    reads as one: a sorted table's rows within their level."""
    children: list[list[int]] = [[] for _ in depths]
    roots: list[int] = []
    ancestors: list[int] = []  # the open path: ancestors[d] is the latest node at depth d
    for index, depth in enumerate(depths):
        del ancestors[depth:]
        (children[ancestors[-1]] if ancestors else roots).append(index)
        ancestors.append(index)
    order: list[int] = []
    pending = sorted(roots, key=lambda i: keys[i])[::-1]  # a stack, next node last (no recursion: trees may be deep)
    while pending:
        index = pending.pop()
        order.append(index)
        pending.extend(sorted(children[index], key=lambda i: keys[i])[::-1])
    return order
