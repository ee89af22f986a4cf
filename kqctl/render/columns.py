"""kubectl-style tables: plain aligned columns, one row per item, nothing cut.

A column says whether it is shown by default, only under ``-o wide`` (``wide``), or only by default
(``narrow``: a short summary whose details ``-o wide`` spreads over columns of their own), and whether
it holds free text (``wrap``: a reason, a message). The default view holds the columns people need to
decide, so that a row fits 80 columns.

A name cut to ``default-flav…`` or split over two lines cannot be pasted into the next command, so
cells are never shortened. On a terminal narrower than a row, only a ``wrap`` column's text wraps, at
spaces, inside its own column with a hanging indent (or, when only that lets the row fit, under the
cell's first line: the row's first cell, never blank, still tells the rows apart); every other cell
stays whole (a row that still does not fit runs past the edge, as ``kubectl get`` does). Into a pipe
or a file nothing is wrapped (see ``console.terminal_width``). Colour, when on, is added after
alignment so escape codes never shift a column.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

from kqctl.errors import UsageError
from kqctl.render.console import MIN_WRAP_WIDTH, terminal_width, wrap_text

GAP = "   "  # kubectl separates columns by three spaces
CELL_HANGING = "  "  # a wrapped cell's later lines start two columns in
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
    """One column: its header (printed upper-case unless ``literal_header``), alignment, and where it shows.

    ``wide``: only ``-o wide`` shows it. ``narrow``: only the default view shows it (a summary of columns
    ``-o wide`` shows one by one). ``wrap``: free text that may wrap inside the column on a terminal.
    """

    header: str
    right: bool = False
    wide: bool = False
    sort_key: Callable[[str], object] | None = None  # how --sort-by orders this column's cells
    wrap: bool = False
    narrow: bool = False
    literal_header: bool = False  # custom-columns: the header as the user wrote it


@dataclass
class Table:
    columns: Sequence[Column]
    rows: list[list[str]] = field(default_factory=list)
    styles: list[list[str | None]] = field(default_factory=list)  # a rich style per cell, or None
    # Per row, the object -o json shows for it (None when the table has none): --sort-by with a JSONPath
    # orders rows by a field of it, as kubectl orders a list's items.
    items: list[Any] = field(default_factory=list)

    def add(self, cells: Sequence[str], styles: Sequence[str | None] | None = None, item: Any = None) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))
        self.styles.append(list(styles) if styles is not None else [None] * len(cells))
        self.items.append(item)


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
    return [i for i, column in enumerate(columns) if (column.narrow and not wide) or
            (not column.narrow and (wide or not column.wide))]


def value_column(header: str, cells: Iterable[str]) -> Column:
    """A column of values (a field before and after a change): right-aligned when every value is one token (a
    quantity, a number, a name), as figures are; left-aligned free text that wraps on a terminal when one holds
    words (a list of actions)."""
    free = any(" " in cell.strip() for cell in cells)
    return Column(header, right=not free, wrap=free)


def header_text(column: Column) -> str:
    return column.header if column.literal_header else column.header.upper()


def format_lines(table: Table, wide: bool = False, headers: bool = True,
                 paint: Callable[[str, str], str] | None = None, width: int | None = None) -> list[str]:
    """The table as text lines; ``paint(text, style)`` colours a padded cell (None: no colour). ``width``: the
    terminal's columns, to wrap a ``wrap`` column's text in when a row is wider (None: nothing wraps)."""
    keep = shown_columns(table.columns, wide)
    columns = [table.columns[i] for i in keep]
    header_row = [header_text(column) for column in columns]
    body = [[printable(row[i]) for i in keep] for row in table.rows]  # rows keep the raw text (keys, sorting)
    styles = [[style[i] for i in keep] for style in table.styles]
    widths = [max([len(header_row[j]) if headers else 0, *(len(r[j]) for r in body)]) for j in range(len(keep))]
    rooms, hanging = _wrap_rooms(columns, widths, width, header_row if headers else None, body)
    wrapped = [{index: wrap_text(row[index], room, "", hanging, least=1) for index, room in rooms.items()}
               for row in body]
    for index in rooms:  # a word longer than its room stays whole: the column widens to it
        widths[index] = max([widths[index], *(len(piece) for pieces in wrapped for piece in pieces[index])])
    lines = []
    if headers:
        lines.append(_line(header_row, widths, columns, None, None))
    for row, style, pieces in zip(body, styles, wrapped, strict=True):
        if not rooms:
            lines.append(_line(row, widths, columns, style, paint))
            continue
        for number in range(max(len(p) for p in pieces.values())):
            cells = [(pieces[j][number] if number < len(pieces[j]) else "") if j in pieces else
                     (cell if number == 0 else "") for j, cell in enumerate(row)]
            lines.append(_line(cells, widths, columns, style, paint))
    return lines


def _wrap_rooms(columns: Sequence[Column], widths: list[int], width: int | None, header_row: list[str] | None,
                body: list[list[str]]) -> tuple[dict[int, int], str]:
    """The width each wrap column gets when rows are wider than ``width``, and the hanging indent of a cell's
    wrapped lines: each first gets its longest word (and its hanging indent) or its header, never less than a few
    columns, then what is left goes, share by share, to those that want more. When a hanging indent leaves too
    little, wrapped lines start under the cell's first (when the row's first column does not wrap: its cell tells
    the rows apart). ``widths`` is updated. Empty: nothing wraps (rows fit, or the other columns alone leave too
    little: the row runs past the edge, as kubectl's do)."""
    if width is None:
        return {}, CELL_HANGING
    total = sum(widths) + len(GAP) * (len(widths) - 1)
    wrapping = [j for j, column in enumerate(columns) if column.wrap]
    if total <= width or not wrapping:
        return {}, CELL_HANGING
    left = width - (total - sum(widths[j] for j in wrapping))
    least = MIN_WRAP_WIDTH if len(wrapping) == 1 else MIN_WRAP_WIDTH // 2
    longest = {j: max((len(word) for row in body for word in row[j].split()), default=0) for j in wrapping}
    for hanging in (CELL_HANGING, "") if wrapping[0] != 0 else (CELL_HANGING,):
        rooms = {j: min(widths[j], max(least, len(header_row[j]) if header_row is not None else 0,
                                       longest[j] + len(hanging))) for j in wrapping}
        if sum(rooms.values()) <= left:
            break
    else:
        return {}, CELL_HANGING
    spare = left - sum(rooms.values())
    wanting = [j for j in wrapping if rooms[j] < widths[j]]
    while spare > 0 and wanting:
        share = max(1, spare // len(wanting))
        for j in list(wanting):
            extra = min(share, widths[j] - rooms[j], spare)
            rooms[j] += extra
            spare -= extra
            if rooms[j] >= widths[j]:
                wanting.remove(j)
    rooms = {j: room for j, room in rooms.items() if room < widths[j]}
    for j, room in rooms.items():
        widths[j] = room
    return rooms, hanging


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
    spaces), or, as kubectl does, by a JSONPath (``.priority``, ``{.admission.clusterQueue}``) into the object
    each row shows in -o json; an unknown key is a usage error that lists the valid ones."""
    if not key:
        return
    wanted = _normal(key.strip("{}").lstrip("."))
    names = [_normal(c.header) for c in table.columns]
    if is_jsonpath(key) and table.rows and all(item is not None for item in table.items):
        from kqctl.render.jsonpath import sort_key_for, unmatched_sort_path

        unmatched = unmatched_sort_path(key, table.items)
        # A path no object has (.reason where the objects say .state) still names a column if one has that name;
        # else it is a mistake, as kubectl says, never rows left unsorted without a word.
        if unmatched is None or wanted not in names:
            if unmatched is not None:
                raise UsageError(f"--sort-by {key!r}: {unmatched}")
            value_of = sort_key_for(key)
            order = sorted(range(len(table.rows)), key=lambda r: (value_of(table.items[r]), r))
            _reorder(table, order)
            return
    if wanted not in names:
        valid = ", ".join(c.header.lower().replace(" ", "-") for c in table.columns)
        paths = " or a JSONPath into the -o json objects (e.g. .name)" if table.items and all(
            item is not None for item in table.items) else ""
        shown = [c.header.lower().replace(" ", "-") for c in table.columns]
        raise UsageError(f"--sort-by {key!r}: no such column{close_columns(key, shown)}; choose one of: "
                         f"{valid}{paths}")
    index = names.index(wanted)
    column = table.columns[index]
    convert = column.sort_key or (lambda cell: cell)
    order = sorted(range(len(table.rows)), key=lambda r: (_sortable(convert(table.rows[r][index])), r))
    _reorder(table, order)


# --sort-by over an audit's findings, the same keys for every scheduler: by severity (errors, then warnings, then
# infos), by rule ID, or by the object a finding is about (a finding about no object last).
FINDING_SORT_KEYS = ("severity", "rule", "object")
_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_Finding = TypeVar("_Finding")


def sort_key_name(key: str) -> str:
    """A --sort-by key or a column's header as they are compared: case, '-', '_', spaces, a leading '.' and a
    JSONPath's braces do not matter (``pending-demand``, ``PENDING DEMAND`` and ``{.pendingDemand}`` name one
    column)."""
    return key.strip("{}").lstrip(".").lower().replace("-", "").replace("_", "").replace(" ", "")


def finding_sort_field(key: str | None) -> str | None:
    """The findings field a --sort-by ``key`` names (compared as :func:`sort_key_name` does), or None when it names
    none (it may name a table's column)."""
    normal = sort_key_name(key or "")
    return normal if normal in FINDING_SORT_KEYS else None


def sorted_findings(findings: Sequence[_Finding], key: str | None,
                    fields: Callable[[_Finding], tuple[str, str, str]]) -> Sequence[_Finding]:
    """``findings`` ordered by the field ``key`` names (``fields`` gives a finding's severity, rule ID and object);
    as given when it names none. Ties keep the audit's own order (the sort is stable)."""
    field_name = finding_sort_field(key)
    if field_name is None:
        return findings

    def order(finding: _Finding) -> tuple[Any, ...]:
        severity, rule, subject = fields(finding)
        if field_name == "severity":
            return (_SEVERITY_RANK.get(severity, 3),)
        return (rule,) if field_name == "rule" else (subject == "", subject)

    return sorted(findings, key=order)


def is_jsonpath(key: str) -> bool:
    """kubectl's --sort-by takes a JSONPath: ``.a.b``, ``{.a.b}`` or ``$.a``. A plain word names a column."""
    return key.startswith((".", "{", "$")) and len(key.strip("{}$.")) > 0


def _reorder(table: Table, order: list[int]) -> None:
    table.rows = [table.rows[r] for r in order]
    table.styles = [table.styles[r] for r in order]
    if len(table.items) == len(order):
        table.items = [table.items[r] for r in order]


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
    for line in format_lines(table, wide=view.wide, headers=view.headers, paint=paint, width=terminal_width(out)):
        out.write(line + "\n")
    table.rows, table.styles = rows, styles
    if limit < total:
        # With --no-headers stdout holds rows only (for scripts); the note goes to stderr.
        (out if view.headers else sys.stderr).write(
            f"... {total - limit:,} more {what} not shown (first {limit:,} of {total:,}; --limit N or --show-all "
            "for more, -o json for everything)\n")
    return limit


def close_columns(key: str, shown: Sequence[str]) -> str:
    """" (did you mean X?)" for a --sort-by naming no column but close to one (the names as ``shown``), else ""."""
    wanted = key.strip("{}").lstrip(".").lower().replace("_", "-")
    close = difflib.get_close_matches(wanted, shown, n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_audit_sort_key(key: str | None, headers: Sequence[str], aliases: Iterable[str] = ()) -> None:
    """--sort-by of an audit's table view, the same check for every scheduler: ``key`` names a column of the audit's
    tables (``headers``; ``aliases``: other names a column answers to, not listed) or a field of its findings
    (severity, rule, object), compared as :func:`sort_key_name` does; anything else is :func:`unknown_sort_key`'s
    usage error, before any output."""
    if not key or finding_sort_field(key) or \
            sort_key_name(key) in {sort_key_name(name) for name in (*headers, *aliases)}:
        return
    raise unknown_sort_key(key, [header.lower().replace(" ", "-") for header in headers] + list(FINDING_SORT_KEYS))


def unknown_sort_key(key: str, valid: Sequence[str]) -> UsageError:
    """The usage error of a --sort-by that names no column of an audit's tables nor a field of its findings
    (``valid``: the names it could have used), with the closest ones, and what -o json and yaml take instead."""
    return UsageError(f"--sort-by {key!r}: no such column of the audit table{close_columns(key, valid)}; choose one "
                      f"of: {', '.join(valid)} (-o json or yaml sort by a JSONPath)")


def more_findings(rules: Sequence[str], limit: int | None) -> str | None:
    """The line under an audit's findings that a --limit cut (``rules``: every finding's rule ID, in the order
    shown): how many are left out, by rule, most first; None when none are."""
    if limit is None or len(rules) <= limit:
        return None
    left: dict[str, int] = {}
    for rule in rules[limit:]:
        left[rule] = left.get(rule, 0) + 1
    by_rule = ", ".join(f"{rule} {count:,}" for rule, count in sorted(left.items(), key=lambda x: (-x[1], x[0])))
    return (f"... {len(rules) - limit:,} more findings not shown ({by_rule}; first {limit:,} of {len(rules):,}; "
            "--limit N or --show-all for more, -o json for everything)")


def state_phrase(state: str) -> str:
    """A state as prose counts it ("6 queue closed", "2 not queued", "1 PodGroup missing"): a CamelCase state split
    into lower-case words (Volcano's PodGroup kept as it is written), a one-word state in lower case."""
    words: list[str] = []
    for char in state:
        if char.isupper() or not words:
            words.append(char)  # a capital starts a word
        else:
            words[-1] += char
        if words[-2:] == ["Pod", "Group"]:
            words[-2:] = ["PodGroup"]  # one word in Volcano's own spelling
    return " ".join(word if word == "PodGroup" else word.lower() for word in words)
