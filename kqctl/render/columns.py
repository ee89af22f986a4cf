"""kubectl-style tables: plain aligned columns, one row per item, nothing cut or wrapped.

A name cut to ``default-flav…`` or split over two lines cannot be pasted into the next command, so
cells are never shortened: a row longer than the terminal runs past its edge, as ``kubectl get``
does. Colour, when on, is added after alignment so escape codes never shift a column.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from kqctl.errors import UsageError

GAP = "   "  # kubectl separates columns by three spaces
# Tables stop after this many rows unless --limit/--show-all say otherwise: 50,000 rows help nobody
# on a terminal, and machine formats (json, yaml, name) are never limited.
DEFAULT_ROW_LIMIT = 100


@dataclass(frozen=True)
class TableOptions:
    """How a table is shown: -o wide, --no-headers, --sort-by, --limit/--show-all, --color."""

    wide: bool = False
    headers: bool = True
    sort_by: str | None = None
    limit: int | None = DEFAULT_ROW_LIMIT  # rows per table; None shows every row
    color: str = "auto"


@dataclass(frozen=True)
class Column:
    """One column: its header (printed upper-case), alignment, and whether only ``-o wide`` shows it."""

    header: str
    right: bool = False
    wide: bool = False
    sort_key: Callable[[str], object] | None = None  # how --sort-by orders this column's cells


@dataclass
class Table:
    columns: Sequence[Column]
    rows: list[list[str]] = field(default_factory=list)
    styles: list[list[str | None]] = field(default_factory=list)  # a rich style per cell, or None

    def add(self, cells: Sequence[str], styles: Sequence[str | None] | None = None) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))
        self.styles.append(list(styles) if styles is not None else [None] * len(cells))


_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a", "\b": "\\b", "\f": "\\f",
                  "\v": "\\v"}


def printable(text: str) -> str:
    """A cell as one line of visible characters: a newline, tab or terminal escape in a name (objects can be
    named anything in a file) is written as Go's %q writes it (``\\n``, ``\\x1b``), as the messages show it,
    so it can neither split a row nor drive the terminal."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown_columns(columns: Sequence[Column], wide: bool) -> list[int]:
    return [i for i, column in enumerate(columns) if wide or not column.wide]


def format_lines(table: Table, wide: bool = False, headers: bool = True,
                 paint: Callable[[str, str], str] | None = None) -> list[str]:
    """The table as text lines; ``paint(text, style)`` colours a padded cell (None: no colour)."""
    keep = shown_columns(table.columns, wide)
    header_row = [table.columns[i].header.upper() for i in keep]
    body = [[printable(row[i]) for i in keep] for row in table.rows]  # rows keep the raw text (keys, sorting)
    styles = [[style[i] for i in keep] for style in table.styles]
    widths = [max([len(header_row[j]) if headers else 0, *(len(r[j]) for r in body)]) for j in range(len(keep))]
    lines = []
    if headers:
        lines.append(_line(header_row, widths, [table.columns[i] for i in keep], None, None))
    for row, style in zip(body, styles, strict=True):
        lines.append(_line(row, widths, [table.columns[i] for i in keep], style, paint))
    return lines


def _line(cells: Sequence[str], widths: Sequence[int], columns: Sequence[Column],
          styles: Sequence[str | None] | None, paint: Callable[[str, str], str] | None) -> str:
    parts = []
    last = len(cells) - 1
    for j, (cell, width, column) in enumerate(zip(cells, widths, columns, strict=True)):
        padded = cell.rjust(width) if column.right else (cell if j == last else cell.ljust(width))
        style = styles[j] if styles is not None else None
        parts.append(paint(padded, style) if paint is not None and style else padded)
    return GAP.join(parts).rstrip()


def sort_rows(table: Table, key: str | None) -> None:
    """--sort-by: order rows by the column whose header is ``key`` (case-insensitive, '-' or '_' for
    spaces); an unknown key is a usage error that lists the valid ones."""
    if not key:
        return
    wanted = _normal(key.lstrip("."))
    names = [_normal(c.header) for c in table.columns]
    if wanted not in names:
        valid = ", ".join(c.header.lower().replace(" ", "-") for c in table.columns)
        raise UsageError(f"--sort-by {key!r}: no such column; choose one of: {valid}")
    index = names.index(wanted)
    column = table.columns[index]
    convert = column.sort_key or (lambda cell: cell)
    order = sorted(range(len(table.rows)), key=lambda r: (_sortable(convert(table.rows[r][index])), r))
    table.rows = [table.rows[r] for r in order]
    table.styles = [table.styles[r] for r in order]


def _normal(name: str) -> str:
    return name.lower().replace("-", " ").replace("_", " ").strip()


def _sortable(value: object) -> tuple[int, object]:
    # Numbers before text, "-" (nothing) last, so a mixed column still sorts.
    if isinstance(value, (int, float)):
        return (0, value)
    if value in ("-", ""):
        return (2, "")
    return (1, str(value))


def rich_painter(color_on: bool) -> Callable[[str, str], str] | None:
    """Colour a cell with a rich style name into ANSI escapes, or None when colour is off."""
    if not color_on:
        return None
    from rich.console import Console
    from rich.text import Text

    console = Console(force_terminal=True, color_system="standard", width=10_000, highlight=False)

    def paint(text: str, style: str) -> str:
        with console.capture() as captured:
            console.print(Text(text, style=style), end="")
        return captured.get()

    return paint


def write_limited(out: TextIO, table: Table, view: TableOptions, paint: Callable[[str, str], str] | None,
                  what: str) -> int:
    """At most ``view.limit`` rows of ``table`` and a note of how many ``what`` were left out; returns the rows
    written."""
    total = len(table.rows)
    limit = total if view.limit is None else min(view.limit, total)
    rows, styles = table.rows, table.styles
    table.rows, table.styles = rows[:limit], styles[:limit]
    for line in format_lines(table, wide=view.wide, headers=view.headers, paint=paint):
        out.write(line + "\n")
    table.rows, table.styles = rows, styles
    if limit < total:
        # With --no-headers stdout holds rows only (for scripts); the note goes to stderr.
        (out if view.headers else sys.stderr).write(
            f"... {total - limit:,} more {what} not shown (first {limit:,} of {total:,}; --limit N or --show-all "
            "for more, -o json for everything)\n")
    return limit
