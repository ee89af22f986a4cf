"""Quota audits as a terminal table, JSON/YAML data, GitHub markdown, and an SVG (or PNG) bar chart.

Every format is deterministic: nodes in tree order, findings in rule order, so two runs on the same
input are byte-identical and CI can diff them. Data formats print quantities as Kueue does (QTY-6);
the terminal table uses human units.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO
from xml.sax.saxutils import escape as xml_escape

from kqctl.errors import UsageError
from kqctl.k8s.quantity import UNLIMITED, format_resource_value
from kqctl.kueue.engine.audit import AuditFinding, AuditNode, AuditReport, ResourceRow
from kqctl.render.columns import Column, Table, TableOptions, printable
from kqctl.render.units import human, human_request

AUDIT_FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")
PLOT_SUFFIXES = (".svg", ".png")
PNG_NEEDS_MATPLOTLIB = "PNG needs matplotlib: pip install 'kqctl[plot]' (or matplotlib), or use .svg"


class PlotError(ValueError):
    """The chart cannot be written as asked (unknown suffix, PNG without matplotlib)."""


def render_audit(report: AuditReport, fmt: str, out: TextIO, color: str = "auto", headers: bool = True,
                 view: TableOptions | None = None) -> None:
    """Render in ``table`` or ``wide`` (plain columns, human units), ``json``, ``yaml``, ``markdown`` or ``name``.

    ``view`` (--sort-by, --limit/--show-all) applies to the tables only; machine formats hold everything.
    """
    from kqctl.render.output import is_data_format, write_data

    view = replace(view or TableOptions(color=color), headers=headers, wide=fmt == "wide")
    if fmt == "name":
        out.writelines(f"clusterqueue.kueue.x-k8s.io/{node.name}\n" for node in report.cluster_queues)
    elif is_data_format(fmt):
        write_data(out, report_data(report), fmt, rows="nodes", sort_by=view.sort_by, headers=headers)
    elif fmt == "markdown":
        out.write(markdown(report))
    elif fmt in ("table", "wide"):
        render_table(report, out, color, view)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(AUDIT_FORMATS)}")


# --- shared formatting ---------------------------------------------------------------------------------


def quantity(resource: str, value: int | None) -> str | None:
    """QTY-6, quota side: the UNLIMITED sentinel prints as ``<unlimited>`` (Q-10)."""
    return None if value is None else format_resource_value(resource, value, quota_side=True)


def percent(value: Fraction | None) -> str:
    return "-" if value is None else f"{float(value) * 100:.1f}%"


def _ratio(value: Fraction | None) -> float | None:
    return None if value is None else round(float(value), 4)


def pending_text(node: AuditNode) -> str:
    return ", ".join(f"{d.resource} {human_request(d.resource, d.amount)}" for d in node.pending) or "-"


def _short_status(node: AuditNode) -> str:
    return {"implicit": "implicit", "CohortCycle": "cycle"}.get(node.status, f"inactive: {node.status}")


# --- json / yaml ---------------------------------------------------------------------------------------


def report_data(report: AuditReport) -> dict[str, Any]:
    """The machine-readable report: every key always present, in a fixed order."""
    return {
        "summary": _summary(report),
        "nodes": [_node_data(node) for node in report.nodes],
        "findings": [_finding_data(f) for f in report.findings],
    }


def _summary(report: AuditReport) -> dict[str, Any]:
    return {
        "clusterQueues": len(report.cluster_queues),
        "cohorts": len(report.cohorts),
        "resourceFlavors": len(report.resource_flavors),
        "warnings": sum(1 for f in report.findings if f.severity == "warning"),
        "infos": sum(1 for f in report.findings if f.severity == "info"),
    }


def _node_data(node: AuditNode) -> dict[str, Any]:
    queue = node.kind == "ClusterQueue"
    return {
        "kind": node.kind,
        "name": node.name,
        "parent": node.parent,
        "path": node.path,
        "status": node.status or None,
        "children": list(node.children),
        "localQueues": list(node.local_queues) if queue else None,
        "admittedWorkloads": node.admitted_workloads if queue else None,
        "pendingWorkloads": node.pending_workloads if queue else None,
        "pendingDemand": {d.resource: format_resource_value(d.resource, d.amount) for d in node.pending}
        if queue else None,
        "resources": [_row_data(row) for row in node.resources],
    }


def _row_data(row: ResourceRow) -> dict[str, Any]:
    r = row.resource
    return {
        "flavor": row.flavor,
        "resource": r,
        "nominalQuota": quantity(r, row.nominal),
        "borrowingLimit": quantity(r, row.borrowing_limit),
        "lendingLimit": quantity(r, row.lending_limit),
        "subtreeQuota": quantity(r, row.subtree_quota),
        "guaranteed": quantity(r, row.guaranteed),
        "maxBorrowable": quantity(r, row.max_borrowable),
        "lendable": quantity(r, row.lendable),
        "usage": quantity(r, row.usage),
        "borrowed": quantity(r, row.borrowed),
        "available": quantity(r, row.available),
        "utilisation": _ratio(row.utilisation),
    }


def _finding_data(finding: AuditFinding) -> dict[str, Any]:
    return {"ruleId": finding.rule_id, "severity": finding.severity, "object": finding.object,
            "message": finding.message, "hint": finding.hint}


# --- table (rich) --------------------------------------------------------------------------------------

QUOTA_COLUMNS = ("Flavor", "Resource", "Nominal", "Borrowing limit", "Lending limit", "Can borrow", "Lends",
                 "Used", "Borrowed", "Utilisation")
# Terminal headers break in two lines so that the numbers, not the headers, decide the column widths.
_TABLE_HEADERS = {"Borrowing limit": "Borrow limit", "Lending limit": "Lend limit", "Utilisation": "Util"}


def tree_prefixes(nodes: tuple[AuditNode, ...]) -> list[str]:
    """Tree glyphs (``├─ ``, ``│  └─ ``…) for nodes listed depth-first, from their depths alone."""
    prefixes: list[str] = []
    open_levels: list[bool] = []  # per ancestor depth: does that ancestor have later siblings?
    for i, node in enumerate(nodes):
        last = _last_sibling(nodes, i)
        del open_levels[max(0, node.depth - 1):]
        if node.depth == 0:
            prefixes.append("")
            continue
        lead = "".join("│  " if more else "   " for more in open_levels)
        prefixes.append(lead + ("└─ " if last else "├─ "))
        open_levels.append(not last)
    return prefixes


def _last_sibling(nodes: tuple[AuditNode, ...], index: int) -> bool:
    depth = nodes[index].depth
    for later in nodes[index + 1:]:
        if later.depth <= depth:
            return later.depth < depth
    return True


def _row_cells(row: ResourceRow) -> list[str]:
    r = row.resource
    return [row.flavor, r, human(r, row.nominal), human(r, row.borrowing_limit), human(r, row.lending_limit),
            human(r, row.max_borrowable), human(r, row.lendable), human(r, row.usage), human(r, row.borrowed),
            percent(row.utilisation)]


def render_table(report: AuditReport, out: TextIO, color: str, view: TableOptions | None = None) -> None:
    """kubectl-style tables (nothing cut or wrapped), then the findings, one line each.

    --sort-by orders the ClusterQueue table, or the findings by severity, rule or object (the quota table is
    a tree); --limit keeps that many rows of each table and findings, and says how many more there are.
    """
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color

    view = view or TableOptions(color=color)
    paint = rich_painter(use_color(out, color))
    _check_sort_key(view.sort_by)
    _write_limited(out, _quota_table(report), view, paint, "quota rows")
    if report.cluster_queues:
        out.write("\n")
        queues = _queue_table(report)
        if view.sort_by and _normal_key(view.sort_by) not in _FINDING_KEYS:
            sort_rows(queues, view.sort_by)
        _write_limited(out, queues, view, paint, "ClusterQueue rows")
    findings = report.findings
    if view.sort_by and _normal_key(view.sort_by) in _FINDING_KEYS:
        findings = tuple(sorted(findings, key=_FINDING_KEYS[_normal_key(view.sort_by)]))
    _write_findings(out, findings, paint, view.limit)
    from kqctl.render.console import write_wrapped

    out.write("\n")
    write_wrapped(out, summary_line(report))


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_FINDING_KEYS: dict[str, Callable[[AuditFinding], str | int]] = {
    "severity": lambda f: _SEVERITY_ORDER.get(str(f.severity), 3),
    "rule": lambda f: f.rule_id,
    "object": lambda f: f.object,
}


def _normal_key(key: str) -> str:
    return key.lstrip(".").lower().replace("-", "").replace("_", "").replace(" ", "")


def _check_sort_key(key: str | None) -> None:
    """--sort-by names a column of the ClusterQueue table or a field of the findings."""
    if not key:
        return
    columns = [c.header for c in _QUEUE_TABLE_COLUMNS]
    if _normal_key(key) in _FINDING_KEYS or _normal_key(key) in {_normal_key(c) for c in columns}:
        return
    valid = [c.lower().replace(" ", "-") for c in columns] + list(_FINDING_KEYS)
    raise UsageError(f"--sort-by {key!r}: no such column; choose one of: {', '.join(valid)}")


def _limited(table: Table, limit: int | None) -> Table:
    return table if limit is None else Table(table.columns, table.rows[:limit], table.styles[:limit])


def _write_limited(out: TextIO, table: Table, view: TableOptions, paint: Callable[[str, str], str] | None,
                   what: str) -> None:
    from kqctl.render.columns import format_lines
    from kqctl.render.console import terminal_width

    for line in format_lines(_limited(table, view.limit), wide=view.wide, headers=view.headers, paint=paint,
                             width=terminal_width(out)):
        out.write(line + "\n")
    _more(out, len(table.rows), view.limit, what)


def _more(out: TextIO, total: int, limit: int | None, what: str) -> None:
    if limit is not None and total > limit:
        out.write(f"... {total - limit:,} more {what} not shown (first {limit:,} of {total:,}; --limit N or "
                  "--show-all for more, -o json for everything)\n")


def _node_label(node: AuditNode, prefix: str) -> str:
    # Cohorts end in "/", like directories; a status (implicit, inactive) follows in brackets.
    label = prefix + node.name + ("/" if node.kind == "Cohort" else "")
    return label + (f" ({_short_status(node)})" if node.status else "")


# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_WIDE_QUOTA_COLUMNS = frozenset({"Borrowing limit", "Lending limit", "Can borrow", "Lends", "Borrowed"})
_QUOTA_TABLE_COLUMNS = (Column("Node"), *(
    Column(_TABLE_HEADERS.get(column, column), right=column not in ("Flavor", "Resource"),
           wide=column in _WIDE_QUOTA_COLUMNS)
    for column in QUOTA_COLUMNS))


def _quota_table(report: AuditReport) -> Table:
    """One row per node (ClusterQueue or cohort, as a tree), flavor and resource."""
    table = Table(_QUOTA_TABLE_COLUMNS)
    for node, prefix in zip(report.nodes, tree_prefixes(report.nodes), strict=True):
        label = _node_label(node, prefix)
        style = "red" if node.status and node.status != "implicit" else ("bold" if node.kind == "Cohort" else None)
        if not node.resources:
            table.add([label, *(["-"] * len(QUOTA_COLUMNS))], [style] + [None] * len(QUOTA_COLUMNS))
        # The name once per node; its other rows carry only the tree's lines, so the tree stays connected.
        continuation = prefix.replace("├─ ", "│  ").replace("└─ ", "   ")
        for i, row in enumerate(node.resources):
            table.add([label if i == 0 else continuation, *_row_cells(row)], [style] + [None] * len(QUOTA_COLUMNS))
    return table


def _count(cell: str) -> int:
    return int(cell) if cell.isdigit() else -1


_QUEUE_TABLE_COLUMNS = (Column("ClusterQueue"), Column("Cohort", wide=True), Column("Status", wide=True),
                        Column("LocalQueues", right=True, sort_key=_count),
                        Column("Admitted", right=True, sort_key=_count),
                        Column("Pending", right=True, sort_key=_count), Column("Pending demand", wrap=True),
                        Column("LocalQueue names", wide=True))


def _queue_table(report: AuditReport) -> Table:
    table = Table(_QUEUE_TABLE_COLUMNS)
    for node in report.cluster_queues:
        table.add([node.name, node.parent or "-", node.status or "-", str(len(node.local_queues)),
                   str(node.admitted_workloads), str(node.pending_workloads), pending_text(node),
                   ",".join(node.local_queues) or "-"])
    return table


def _write_findings(out: TextIO, findings: tuple[AuditFinding, ...],
                    paint: Callable[[str, str], str] | None, limit: int | None = None) -> None:
    if not findings:
        return
    from kqctl.render.console import terminal_width, wrap_text

    width = terminal_width(out)
    out.write("\nFindings:\n")
    shown = findings if limit is None else findings[:limit]
    for f in shown:
        severity = paint(f.severity, "yellow" if f.severity == "warning" else "cyan") if paint else f.severity
        hint = f" (hint: {f.hint})" if f.hint else ""
        for index, line in enumerate(wrap_text(f"{f.severity} {f.rule_id} {printable(f.object)}: "
                                               f"{printable(f.message + hint)}", width, "  ", "    ")):
            out.write((line.replace(f.severity, severity, 1) if index == 0 else line) + "\n")
    if len(shown) < len(findings):
        left: dict[str, int] = {}
        for f in findings[len(shown):]:
            left[f.rule_id] = left.get(f.rule_id, 0) + 1
        by_rule = ", ".join(f"{rule} {count:,}" for rule, count in sorted(left.items(), key=lambda x: (-x[1], x[0])))
        out.write(f"  ... {len(findings) - len(shown):,} more findings not shown ({by_rule}; first {len(shown):,} of "
                  f"{len(findings):,}; --limit N or --show-all for more, -o json for everything)\n")


def summary_line(report: AuditReport) -> str:
    data = _summary(report)
    return (f"{data['clusterQueues']} ClusterQueue(s), {data['cohorts']} cohort(s), "
            f"{data['resourceFlavors']} ResourceFlavor(s): {data['warnings']} warning(s), {data['infos']} info(s)")


# --- markdown ------------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """A table cell: pipes escaped, newlines flattened (GitHub-flavoured markdown)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def markdown(report: AuditReport) -> str:
    lines = ["# Quota audit", "", summary_line(report) + ".", ""]
    lines += _md_quota(report)
    if report.cluster_queues:
        lines += _md_queues(report)
    lines += _md_findings(report.findings)
    return "\n".join(lines) + "\n"


def _md_quota(report: AuditReport) -> list[str]:
    header = ["Path", "Kind", *QUOTA_COLUMNS]
    lines = ["## Quota", "", _md_row(header),
             "|" + "|".join(":---" if i < 4 else "---:" for i in range(len(header))) + "|"]
    for node in report.nodes:
        kind = node.kind + (f" ({_short_status(node)})" if node.status else "")
        rows = [_row_cells(row) for row in node.resources] or [["-"] * len(QUOTA_COLUMNS)]
        for cells in rows:
            lines.append(_md_row([f"`{node.path}`", kind, *cells]))
    return [*lines, ""]


def _md_queues(report: AuditReport) -> list[str]:
    lines = ["## Workloads per ClusterQueue", "",
             _md_row(["ClusterQueue", "LocalQueues", "Admitted", "Pending", "Pending demand"]),
             "|:---|---:|---:|---:|:---|"]
    for node in report.cluster_queues:
        lines.append(_md_row([f"`{node.name}`", str(len(node.local_queues)), str(node.admitted_workloads),
                              str(node.pending_workloads), pending_text(node)]))
    return [*lines, ""]


def _md_findings(findings: tuple[AuditFinding, ...]) -> list[str]:
    lines = ["## Findings", ""]
    if not findings:
        return [*lines, "None.", ""]
    for f in findings:
        hint = f" *Hint:* {f.hint}." if f.hint else ""
        lines.append(f"- **{f.severity}** `{f.rule_id}` `{f.object}`: {f.message}.{hint}")
    return [*lines, ""]


# --- plots ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One group of the chart: a ClusterQueue's flavor for one resource."""

    label: str
    nominal: int
    used: int
    borrowed: int


SERIES = (("nominal", "#4c78a8"), ("used", "#54a24b"), ("borrowed", "#f58518"))


def plot_panels(report: AuditReport) -> list[tuple[str, list[Bar]]]:
    """Per resource, one group per (ClusterQueue, flavor): nominal vs used vs borrowed (Q-7)."""
    panels: dict[str, list[Bar]] = {}
    for node in report.cluster_queues:
        for row in node.resources:
            panels.setdefault(row.resource, []).append(
                Bar(f"{node.name} · {row.flavor}", row.nominal, row.usage, row.borrowed))
    return sorted(panels.items())


def check_plot_path(path: str) -> None:
    """Fail before any work is done when the chart could not be written."""
    suffix = Path(path).suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise PlotError(f"--plot {path!r}: the file name must end in .svg or .png")
    if suffix == ".png" and not _has_matplotlib():
        raise PlotError(PNG_NEEDS_MATPLOTLIB)


def _has_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def write_plot(report: AuditReport, path: str) -> None:
    """An SVG written by hand (no dependency), or a PNG through matplotlib when it is installed."""
    check_plot_path(path)
    if Path(path).suffix.lower() == ".svg":
        Path(path).write_text(svg_chart(report), encoding="utf-8")
    else:
        _write_png(report, path)


# SVG: one panel per resource, stacked vertically; everything positioned in integer pixels so the
# output is stable across platforms.
BAR_WIDTH = 14
GROUP_GAP = 18
GROUP_WIDTH = len(SERIES) * BAR_WIDTH + GROUP_GAP
RIGHT = 20
PANEL_HEIGHT = 180
TITLE_HEIGHT = 30
LEGEND_HEIGHT = 40
CHAR_WIDTH = 6  # approximate width of one 11px character
SLANT = 0.71  # group labels are rotated by 45 degrees
TICKS = 4


def svg_chart(report: AuditReport) -> str:
    panels = plot_panels(report)
    groups = max((len(bars) for _, bars in panels), default=0)
    left = _left_margin(panels)
    width = max(480, left + RIGHT + groups * GROUP_WIDTH)
    label_height = 20 + int(max((len(b.label) for _, bars in panels for b in bars), default=0) * CHAR_WIDTH * SLANT)
    panel_total = TITLE_HEIGHT + PANEL_HEIGHT + label_height
    height = LEGEND_HEIGHT + max(1, len(panels)) * panel_total
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>', *_legend(left)]
    if not panels:
        parts.append(f'<text x="{left}" y="{LEGEND_HEIGHT + 30}">no ClusterQueue quota to plot</text>')
    for i, (resource, bars) in enumerate(panels):
        parts += list(_panel(resource, bars, left, LEGEND_HEIGHT + i * panel_total))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _left_margin(panels: list[tuple[str, list[Bar]]]) -> int:
    """Room for the widest tick label, and for the first group's label, which slants to the left."""
    ticks = max((len(t) for resource, bars in panels for t in _tick_labels(resource, bars)), default=0)
    first = max((len(bars[0].label) for _, bars in panels if bars), default=0)
    slant = int(first * CHAR_WIDTH * SLANT) - GROUP_WIDTH // 2
    return max(60, ticks * CHAR_WIDTH + 14, slant + 10)


def _legend(left: int) -> Iterator[str]:
    for i, (name, colour) in enumerate(SERIES):
        x = left + i * 90
        yield f'<rect x="{x}" y="12" width="12" height="12" fill="{colour}"/>'
        yield f'<text x="{x + 16}" y="22">{name}</text>'


def _scale_max(bars: list[Bar], resource: str) -> int:
    """The axis top: TICKS steps of a round size (canonical units) at or above the largest finite value."""
    values = [v for bar in bars for v in (bar.nominal, bar.used, bar.borrowed) if v < UNLIMITED]
    top = max(values, default=0)
    if top <= 0:
        return TICKS
    return _nice_step(-(-top // TICKS), _base_unit(resource)) * TICKS


def _base_unit(resource: str) -> int:
    # Byte-valued resources print with binary suffixes (QTY-6): round steps are 1-2-5 x Ki/Mi/Gi...
    return 1024 if format_resource_value(resource, 1024) == "1Ki" else 1


def _nice_step(raw: int, base: int) -> int:
    """The smallest 1-2-5 multiple of a power of ``base`` (or of 10) that is at least ``raw``."""
    unit = 1
    while base > 1 and unit * base <= raw:
        unit *= base
    magnitude = 1
    while unit * magnitude * 10 <= raw:
        magnitude *= 10
    for factor in (1, 2, 5, 10):
        if unit * magnitude * factor >= raw:
            return unit * magnitude * factor
    return unit * magnitude * 10


def _tick_labels(resource: str, bars: list[Bar]) -> list[str]:
    scale = _scale_max(bars, resource)
    return [format_resource_value(resource, scale * k // TICKS) for k in range(TICKS + 1)]


def _panel(resource: str, bars: list[Bar], left: int, top: int) -> Iterator[str]:
    axis_top = top + TITLE_HEIGHT
    base = axis_top + PANEL_HEIGHT
    scale = _scale_max(bars, resource)
    yield f'<text x="{left}" y="{top + 18}" font-size="13" font-weight="bold">{xml_escape(resource)}</text>'
    yield from _axis(resource, bars, left, axis_top, base)
    for i, bar in enumerate(bars):
        x0 = left + GROUP_GAP // 2 + i * GROUP_WIDTH
        for j, (name, colour) in enumerate(SERIES):
            value = getattr(bar, name)
            h = PANEL_HEIGHT if value >= UNLIMITED else value * PANEL_HEIGHT // scale
            title = f"{bar.label} {name}: {quantity(resource, value)}"
            yield (f'<rect x="{x0 + j * BAR_WIDTH}" y="{base - h}" width="{BAR_WIDTH - 2}" height="{h}" '
                   f'fill="{colour}"><title>{xml_escape(title)}</title></rect>')
        cx = x0 + len(SERIES) * BAR_WIDTH // 2
        yield (f'<text x="{cx}" y="{base + 14}" text-anchor="end" transform="rotate(-45 {cx} {base + 14})">'
               f'{xml_escape(bar.label)}</text>')


def _axis(resource: str, bars: list[Bar], left: int, axis_top: int, base: int) -> Iterator[str]:
    right = left + len(bars) * GROUP_WIDTH
    for k, label in enumerate(_tick_labels(resource, bars)):
        y = base - k * PANEL_HEIGHT // TICKS
        yield f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="#dddddd"/>'
        yield f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{xml_escape(label)}</text>'
    yield f'<line x1="{left}" y1="{axis_top}" x2="{left}" y2="{base}" stroke="#333333"/>'
    yield f'<line x1="{left}" y1="{base}" x2="{right}" y2="{base}" stroke="#333333"/>'


def _write_png(report: AuditReport, path: str) -> None:
    """The same chart through matplotlib (optional dependency; check_plot_path made sure it is there)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = plot_panels(report) or [("(no quota)", [])]
    figure, axes = plt.subplots(len(panels), 1, figsize=(max(6, len(panels[0][1]) * 0.9), 3.2 * len(panels)),
                                squeeze=False)
    for ax, (resource, bars) in zip(axes[:, 0], panels, strict=True):
        scale = _scale_max(bars, resource)
        for j, (name, colour) in enumerate(SERIES):
            heights = [min(getattr(b, name), scale) for b in bars]
            ax.bar([i + (j - 1) * 0.27 for i in range(len(bars))], heights, width=0.25, color=colour, label=name)
        ax.set_title(resource)
        ax.set_xticks(range(len(bars)), [b.label for b in bars], rotation=45, ha="right")
        ticks = [scale * k // TICKS for k in range(TICKS + 1)]
        ax.set_yticks(ticks, [format_resource_value(resource, t) for t in ticks])
        ax.legend()
    figure.tight_layout()
    figure.savefig(path, format="png")
    plt.close(figure)
