"""kubectl-style plain tables: aligned, one row per item, never cut, sortable."""

from __future__ import annotations

import re

import pytest

from kqctl.errors import UsageError
from kqctl.render.columns import Column, Table, format_lines, sort_rows, state_phrase, value_column

COLUMNS = (Column("Name"), Column("Priority", right=True, sort_key=int), Column("Node", wide=True),
           Column("Reason"))


def _table() -> Table:
    table = Table(COLUMNS)
    table.add(["a-very-long-workload-name-that-must-never-be-cut-0123456789", "10", "n1", "x"])
    table.add(["b", "2", "n2", "WaitingForQuota"])
    return table


def test_cells_are_never_cut_or_wrapped_and_columns_align() -> None:
    lines = format_lines(_table())
    assert lines[0].split() == ["NAME", "PRIORITY", "REASON"]
    assert lines[1].startswith("a-very-long-workload-name-that-must-never-be-cut-0123456789   ")
    assert len(lines) == 3  # one line per row, whatever the width
    assert lines[1].index("10") + 2 == lines[2].index("2") + 1  # right-aligned numbers end together


def test_wide_adds_its_columns_and_no_headers_drops_the_header() -> None:
    assert "NODE" in format_lines(_table(), wide=True)[0]
    assert format_lines(_table(), headers=False)[0].startswith("a-very-long")


def test_sort_by_a_numeric_column_sorts_numerically() -> None:
    table = _table()
    sort_rows(table, "priority")
    assert [row[0] for row in table.rows] == ["b", "a-very-long-workload-name-that-must-never-be-cut-0123456789"]


def test_sort_by_an_unknown_column_is_a_usage_error_listing_the_valid_ones() -> None:
    with pytest.raises(UsageError, match="choose one of: name, priority, node, reason"):
        sort_rows(_table(), "prio")


def test_paint_colours_after_padding_so_columns_stay_aligned() -> None:
    table = Table(COLUMNS)
    table.add(["x", "1", "n", "r"], [None, None, None, "red"])
    table.add(["yy", "22", "n", "r"])
    lines = format_lines(table, paint=lambda text, style: f"<{text}>")
    assert lines[1].endswith("<r>") and lines[2].endswith("r")


def _wrapping(first_wraps: bool = False) -> Table:
    table = Table((Column("Name", wrap=first_wraps), Column("Before", wrap=True), Column("After", wrap=True)))
    table.add(["workload-0", "Admitted on default-flavor, borrowing cpu 6", "Inadmissible, 4 more cpu needed"])
    return table


@pytest.mark.parametrize("width, first_wraps, expected", [
    # Room enough: the rows as piped.
    (None, False, ["NAME         BEFORE                                        AFTER",
                   "workload-0   Admitted on default-flavor, borrowing cpu 6   Inadmissible, 4 more cpu needed"]),
    (100, False, ["NAME         BEFORE                                        AFTER",
                  "workload-0   Admitted on default-flavor, borrowing cpu 6   Inadmissible, 4 more cpu needed"]),
    # Narrower: free text wraps in its column, later lines two columns in.
    (60, False, ["NAME         BEFORE                    AFTER",
                 "workload-0   Admitted on               Inadmissible, 4 more",
                 "               default-flavor,           cpu needed",
                 "               borrowing cpu 6"]),
    # Only cells without a hanging indent fit: their later lines start under their first.
    (44, False, ["NAME         BEFORE            AFTER",
                 "workload-0   Admitted on       Inadmissible,",
                 "             default-flavor,   4 more cpu",
                 "             borrowing cpu 6   needed"]),
    # ... unless the first column wraps too (its blank cell would no longer tell the rows apart): nothing wraps.
    (44, True, ["NAME         BEFORE                                        AFTER",
                "workload-0   Admitted on default-flavor, borrowing cpu 6   Inadmissible, 4 more cpu needed"]),
    # Not even that fits: the row runs past the edge, whole, as kubectl's do.
    (30, False, ["NAME         BEFORE                                        AFTER",
                 "workload-0   Admitted on default-flavor, borrowing cpu 6   Inadmissible, 4 more cpu needed"]),
])
def test_free_text_columns_wrap_to_fit_the_width_when_their_words_allow(width: int | None, first_wraps: bool,
                                                                        expected: list[str]) -> None:
    assert format_lines(_wrapping(first_wraps), width=width) == expected


@pytest.mark.parametrize("cells, right, wrap", [
    (["16", "64Gi", "-"], True, False),
    (["LowerPriority", "Never"], True, False),
    (["enqueue, allocate", "-"], False, True),
])
def test_a_value_column_right_aligns_figures_and_wraps_free_text(cells: list[str], right: bool, wrap: bool) -> None:
    column = value_column("Before", cells)
    assert (column.right, column.wrap) == (right, wrap)


def _items_table() -> Table:
    table = Table((Column("Name"), Column("Reason")))
    table.add(["b", "x"], item={"name": "b", "priority": 2, "admission": {"clusterQueue": "q"}})
    table.add(["a", "y"], item={"name": "a", "priority": 1, "admission": None})
    return table


@pytest.mark.parametrize("key, names", [
    (".priority", ["a", "b"]),
    ("{.priority}", ["a", "b"]),
    (".admission.clusterQueue", ["b", "a"]),  # an object without the field last
    (".reason", ["b", "a"]),  # no object has it, but a column has that name
])
def test_sort_by_a_jsonpath_orders_rows_by_their_objects(key: str, names: list[str]) -> None:
    table = _items_table()
    sort_rows(table, key)
    assert [row[0] for row in table.rows] == names


@pytest.mark.parametrize("key, message", [
    (".prio", "couldn't find any field with path \"{.prio}\" in the list of objects; did you mean .priority?"),
    (".admission.clusterQ", "did you mean .admission.clusterQueue?"),
    (".zzz", "the objects have: .admission, .name, .priority"),
])
def test_sort_by_a_jsonpath_no_object_has_is_a_usage_error(key: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        sort_rows(_items_table(), key)


@pytest.mark.parametrize(("state", "phrase"), [("QueueClosed", "queue closed"), ("QueueMissing", "queue missing"),
                                               ("PodGroupMissing", "PodGroup missing"), ("NotQueued", "not queued"),
                                               ("Running", "running"), ("Finished", "finished")])
def test_a_state_counted_in_prose_reads_as_words(state: str, phrase: str) -> None:
    # replay's and diff's headlines ("6 finished, 6 queue closed"): "6 queueclosed" was the state lower-cased
    assert state_phrase(state) == phrase
