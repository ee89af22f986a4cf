"""GitHub-flavoured markdown for the reports written as PR comments (diff, audit): table cells, tables with a row
limit, and a collapsed section."""

from __future__ import annotations

from collections.abc import Sequence

from kqctl.render.columns import Table


def cell(text: str) -> str:
    """A table cell: backslashes and pipes escaped (a pipe would end the cell), newlines flattened."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table_lines(table: Table, limit: int | None = None, command: str = "kqctl diff") -> list[str]:
    """The table (right-aligned columns stay right-aligned); past ``limit`` rows, a line saying how many more and
    where they all are."""
    header = "| " + " | ".join(c.header for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if c.right else "---" for c in table.columns) + "|"
    rows = table.rows if limit is None else table.rows[:limit]
    lines = [header, rule, *("| " + " | ".join(cell(text) for text in row) + " |" for row in rows)]
    if limit is not None and len(table.rows) > limit:
        lines.append(f"\n… and {len(table.rows) - limit:,} more ({command} -o json lists them all)")
    return lines


def details_lines(summary: str, items: Sequence[str]) -> list[str]:
    """A collapsed list (``<details>``): read on demand, out of a reviewer's way; nothing when there is none."""
    if not items:
        return []
    return ["<details><summary>" + summary + "</summary>", "", *(f"- {cell(item)}" for item in items), "",
            "</details>", ""]
