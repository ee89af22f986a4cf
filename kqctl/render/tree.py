"""Tree glyphs for tables that list a tree depth-first (audit's cohorts and queues, for every scheduler).

``├─`` for a node with a later sibling, ``└─`` for the last one, ``│`` continuing an ancestor's line while
that ancestor has later siblings: the way ``tree`` and ``kubectl tree`` draw it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kqctl.render.columns import Column, Table, sort_key_name

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


@dataclass(frozen=True)
class TreeNode:
    """One node of a table that lists a tree, one row per resource: ``label`` (the first column, after the tree's
    glyphs), ``rows`` (per row, the cells of the other columns), ``figures`` (the same shape: the exact value
    --sort-by orders each cell by, never its human text: "64Gi" after "8"; None sorts last) and ``once`` (the
    indexes, among the other columns, of the node's own cells: shown on its first row only)."""

    depth: int
    label: str
    rows: Sequence[Sequence[str]]
    figures: Sequence[Sequence[Any]]
    once: frozenset[int] = frozenset()


def tree_table(columns: Sequence[Column], nodes: Sequence[TreeNode], sort_by: str | None = None) -> Table:
    """The table of a tree listed depth-first; ``sort_by`` (a column's header as :func:`sort_key_name` compares it,
    already checked by the audit: :func:`kqctl.render.columns.check_audit_sort_key`) orders siblings level by level,
    each subtree moving with its parent, and each node's rows by that column (a node among its siblings by its first
    row once sorted), as Kueue's audit orders its quota table."""
    index = _sort_column(columns, sort_by)
    ordered = list(nodes)
    if index is not None:
        def cell_key(value: Any) -> tuple[int, Any]:
            return (1, 0) if value is None else (0, value)

        if index == 0:
            node_keys: list[Any] = [node.label for node in ordered]
        else:
            column = index - 1
            ordered = [_rows_sorted(node, column, cell_key) for node in ordered]
            node_keys = [cell_key(node.figures[0][column]) if node.figures else (2, 0) for node in ordered]
        ordered = [ordered[i] for i in sorted_siblings([node.depth for node in ordered], node_keys)]
    table = Table(columns)
    for node, prefix in zip(ordered, tree_prefixes([node.depth for node in ordered]), strict=True):
        for i, cells in enumerate(node.rows):
            label = prefix + node.label if i == 0 else continuation(prefix)
            table.add([label, *("" if i and n in node.once else cell for n, cell in enumerate(cells))])
    return table


def _rows_sorted(node: TreeNode, column: int, cell_key: Callable[[Any], tuple[int, Any]]) -> TreeNode:
    if column in node.once or len(node.rows) < 2:
        return node
    order = sorted(range(len(node.rows)), key=lambda r: cell_key(node.figures[r][column]))
    return TreeNode(node.depth, node.label, [node.rows[r] for r in order], [node.figures[r] for r in order],
                    node.once)


def _sort_column(columns: Sequence[Column], key: str | None) -> int | None:
    if not key:
        return None
    names = [sort_key_name(c.header) for c in columns]
    if sort_key_name(key) not in names:
        raise ValueError(f"--sort-by {key!r} names no column: the audit checks it first")
    return names.index(sort_key_name(key))
