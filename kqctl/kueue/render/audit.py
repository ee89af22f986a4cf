"""Quota audits as a terminal table, JSON/YAML data, GitHub markdown, and a bar chart (SVG or PNG).

Every format is deterministic: nodes in tree order, findings in rule order, so two runs on the same
input are byte-identical and CI can diff them. Data formats print quantities as Kueue does (QTY-6);
the terminal table uses human units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TextIO

from kqctl.k8s.quantity import UNLIMITED, format_resource_value
from kqctl.kueue.engine.audit import AuditFinding, AuditNode, AuditReport, ResourceRow
from kqctl.render import tree as render_tree
from kqctl.render.charts import (
    ChartError,
    Kind,
    QuotaChart,
    QuotaPanel,
    QuotaRow,
    Series,
    check_path,
    describe,
    write_chart,
)
from kqctl.render.columns import (
    Column,
    Table,
    TableOptions,
    check_audit_sort_key,
    more_findings,
    printable,
    sort_key_name,
    sorted_findings,
    write_limited,
)
from kqctl.render.markdown import cell as markdown_cell
from kqctl.render.units import human, human_figure, is_bytes

AUDIT_FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")


class PlotError(ValueError):
    """The chart cannot be written as asked (an unknown suffix)."""


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
    return ", ".join(f"{d.resource} {human_figure(d.resource, d.amount)}" for d in node.pending) or "-"


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
                 "Subtree quota", "Used", "Borrowed", "Utilisation")
# What the first column of the quota table holds: cohorts (ending in "/") and the ClusterQueues under them.
NODE_HEADER = "Cohort/ClusterQueue"
# Said under the quota table when it shows a cohort: a cohort's USED is not the sum of its members' (Q-3).
COHORT_NOTE = ("UTIL = USED / SUBTREE QUOTA. A cohort's SUBTREE QUOTA is its own NOMINAL plus what its members LEND; "
               "its USED is what they use beyond what they keep (their SUBTREE QUOTA minus LENDS).")
COHORT_NOTE_WIDE = "-o wide shows SUBTREE QUOTA and LENDS."  # the default view leaves them out (80 columns)
COHORT_NOTE_MARKDOWN = ("Utilisation = Used / Subtree quota. A cohort's subtree quota is its own nominal quota plus "
                        "what its members lend; its Used is what they use beyond what they keep (their subtree quota "
                        "minus what they lend).")
# Terminal headers break in two lines so that the numbers, not the headers, decide the column widths.
_TABLE_HEADERS = {"Borrowing limit": "Borrow limit", "Lending limit": "Lend limit", "Utilisation": "Util"}


def tree_prefixes(nodes: tuple[AuditNode, ...]) -> list[str]:
    """Tree glyphs (``├─ ``, ``│  └─ ``…) for nodes listed depth-first, from their depths alone."""
    return render_tree.tree_prefixes([node.depth for node in nodes])


def _row_cells(row: ResourceRow) -> list[str]:
    r = row.resource
    # Quotas as set; what is derived from them (the pool, what can be borrowed or is lent, used) as figures.
    return [row.flavor, r, human(r, row.nominal), human(r, row.borrowing_limit), human(r, row.lending_limit),
            human_figure(r, row.max_borrowable), human_figure(r, row.lendable), human_figure(r, row.subtree_quota),
            human_figure(r, row.usage), human_figure(r, row.borrowed), percent(row.utilisation)]


def render_table(report: AuditReport, out: TextIO, color: str, view: TableOptions | None = None) -> None:
    """kubectl-style tables (nothing cut or wrapped), then the findings, one line each.

    --sort-by orders the quota table by one of its columns (a tree: each node's children by the column, each
    node's rows too, so every row stays under its parent), the ClusterQueue table, or the findings by severity, rule
    or object; --limit keeps that many rows of each table and findings, and says how many more there are.
    """
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color

    view = view or TableOptions(color=color)
    paint = rich_painter(use_color(out, color))
    # a column of the quota table (by its header, or the figure's full name: util or utilisation) or the
    # ClusterQueue table, or a field of the findings
    check_audit_sort_key(view.sort_by, [c.header for c in (*_QUOTA_TABLE_COLUMNS, *_QUEUE_TABLE_COLUMNS)],
                         _QUOTA_SORT_KEYS)
    from kqctl.render.console import write_wrapped

    if not report.nodes and report.left_out:  # the input has quota, -n kept none of it
        write_wrapped(out, f"No ClusterQueue or Cohort left by -n {report.namespace}: no LocalQueue in namespace "
                      f"{report.namespace!r} feeds one of the input's {report.left_out:,} ClusterQueue(s) and "
                      "cohort(s).")
    elif not report.nodes:  # as kubectl's "No resources found": no header over nothing
        out.write("No ClusterQueue or Cohort in the input: there is no quota to audit.\n")
    else:
        write_limited(out, _quota_table(report.nodes, _QUOTA_SORT_KEYS.get(sort_key_name(view.sort_by or ""))),
                       view, paint, "quota rows")

    if report.cohorts:  # prose: wrapped at a terminal's width, one line into a pipe (as every note)
        write_wrapped(out, COHORT_NOTE + ("" if view.wide else f" {COHORT_NOTE_WIDE}"))
    if report.cluster_queues:
        out.write("\n")
        queues = _queue_table(report)
        if view.sort_by and sort_key_name(view.sort_by) in {sort_key_name(c.header) for c in _QUEUE_TABLE_COLUMNS}:
            sort_rows(queues, view.sort_by)
        write_limited(out, queues, view, paint, "ClusterQueue rows")
    findings = tuple(sorted_findings(report.findings, view.sort_by, lambda f: (str(f.severity), f.rule_id,
                                                                              f.object)))
    _write_findings(out, findings, paint, view.limit)
    out.write("\n")
    write_wrapped(out, summary_line(report))


def _node_label(node: AuditNode, prefix: str) -> str:
    # Cohorts end in "/", like directories; a status (implicit, inactive) follows in brackets.
    label = prefix + node.name + ("/" if node.kind == "Cohort" else "")
    return label + (f" ({_short_status(node)})" if node.status else "")


# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest. SUBTREE QUOTA (what
# UTIL divides by) does not fit beside the others (spot-gpu's rows would be 93 columns): the note under the table
# names it, and -o wide shows it with what the members lend.
_WIDE_QUOTA_COLUMNS = frozenset({"Borrowing limit", "Lending limit", "Can borrow", "Lends", "Subtree quota",
                                 "Borrowed"})
_QUOTA_TABLE_COLUMNS = (Column(NODE_HEADER), *(
    Column(_TABLE_HEADERS.get(column, column), right=column not in ("Flavor", "Resource"),
           wide=column in _WIDE_QUOTA_COLUMNS)
    for column in QUOTA_COLUMNS))


def _ascending(value: Any) -> tuple[int, Any]:
    return (1, 0) if value is None else (0, value)  # no value (no limit, no utilisation) last


# --sort-by over the quota table, by the header shown (``util``) or the column's full name (``utilisation``): how a
# node is ordered among its siblings, and how a row is ordered among its node's rows (None: rows as listed). A row
# sorts by its exact figure, never by the human cell ("64Gi" after "8").
_QuotaSort = tuple[Callable[[AuditNode], Any], Callable[[ResourceRow], Any] | None]
_ROW_FIGURES: tuple[Callable[[ResourceRow], Any], ...] = (
    lambda r: r.flavor, lambda r: r.resource, lambda r: r.nominal, lambda r: r.borrowing_limit,
    lambda r: r.lending_limit, lambda r: r.max_borrowable, lambda r: r.lendable, lambda r: r.subtree_quota,
    lambda r: r.usage, lambda r: r.borrowed, lambda r: r.utilisation)


def _by_rows(figure: Callable[[ResourceRow], Any]) -> _QuotaSort:
    def row_key(row: ResourceRow) -> tuple[int, Any]:
        return _ascending(figure(row))

    def node_key(node: AuditNode) -> tuple[int, Any]:  # its first row once sorted; a node without rows last
        return min((row_key(row) for row in node.resources), default=(2, 0))

    return node_key, row_key


_QUOTA_SORT_KEYS: dict[str, _QuotaSort] = {
    sort_key_name(NODE_HEADER): ((lambda node: node.name), None),
    **{sort_key_name(name): _by_rows(figure) for column, figure in zip(QUOTA_COLUMNS, _ROW_FIGURES, strict=True)
       for name in {column, _TABLE_HEADERS.get(column, column)}},
}


def _quota_table(nodes: tuple[AuditNode, ...], sort: _QuotaSort | None = None) -> Table:
    """One row per node (ClusterQueue or cohort, as a tree), flavor and resource; ``sort`` orders siblings and
    each node's rows (--sort-by)."""
    table = Table(_QUOTA_TABLE_COLUMNS)
    if sort is not None:
        node_key, row_key = sort
        nodes = tuple(nodes[i] for i in render_tree.sorted_siblings([n.depth for n in nodes],
                                                                    [node_key(n) for n in nodes]))
        if row_key is not None:
            nodes = tuple(replace(n, resources=tuple(sorted(n.resources, key=row_key))) for n in nodes)
    for node, prefix in zip(nodes, tree_prefixes(nodes), strict=True):
        label = _node_label(node, prefix)
        style = "red" if node.status and node.status != "implicit" else ("bold" if node.kind == "Cohort" else None)
        if not node.resources:
            table.add([label, *(["-"] * len(QUOTA_COLUMNS))], [style] + [None] * len(QUOTA_COLUMNS))
        # The name once per node; its other rows carry only the tree's lines, so the tree stays connected.
        below = render_tree.continuation(prefix)
        for i, row in enumerate(node.resources):
            table.add([label if i == 0 else below, *_row_cells(row)], [style] + [None] * len(QUOTA_COLUMNS))
    return table


def _count(cell: str) -> int:
    return int(cell) if cell.isdigit() else -1


def _counts(cell: str) -> tuple[int, ...]:
    return tuple(int(word) for word in cell.replace(",", " ").split() if word.isdigit())


# The default view says both workload counts in one cell ("2 admitted, 1 pending": the counts named for what they
# count, issue 18) so that a row keeps its PENDING DEMAND within 80 columns; -o wide gives each count its column.
_QUEUE_TABLE_COLUMNS = (Column("ClusterQueue"), Column("Cohort", wide=True), Column("Status", wide=True),
                        Column("LocalQueues", right=True, sort_key=_count),
                        Column("Workloads", narrow=True, sort_key=_counts),
                        Column("Admitted workloads", right=True, sort_key=_count, wide=True),
                        Column("Pending workloads", right=True, sort_key=_count, wide=True),
                        Column("Pending demand", wrap=True), Column("LocalQueue names", wide=True))


def _queue_table(report: AuditReport) -> Table:
    table = Table(_QUEUE_TABLE_COLUMNS)
    for node in report.cluster_queues:
        table.add([node.name, node.parent or "-", node.status or "-", str(len(node.local_queues)),
                   f"{node.admitted_workloads} admitted, {node.pending_workloads} pending",
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
    more = more_findings([f.rule_id for f in findings], limit)
    if more is not None:
        out.write(f"  {more}\n")


def summary_line(report: AuditReport) -> str:
    data = _summary(report)
    return (f"{data['clusterQueues']} ClusterQueue(s), {data['cohorts']} cohort(s), "
            f"{data['resourceFlavors']} ResourceFlavor(s): {data['warnings']} warning(s), {data['infos']} info(s)")


# --- markdown ------------------------------------------------------------------------------------------


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(markdown_cell(c) for c in cells) + " |"


def markdown(report: AuditReport) -> str:
    lines = ["# Quota audit", "", summary_line(report) + ".", ""]
    lines += _md_quota(report)
    if report.cluster_queues:
        lines += _md_queues(report)
    lines += _md_findings(report.findings)
    return "\n".join(lines) + "\n"


def _md_quota(report: AuditReport) -> list[str]:
    header = ["Path", "Kind", *QUOTA_COLUMNS]
    note = [COHORT_NOTE_MARKDOWN, ""] if report.cohorts else []
    lines = ["## Quota", "", *note, _md_row(header),
             "|" + "|".join(":---" if i < 4 else "---:" for i in range(len(header))) + "|"]
    for node in report.nodes:
        kind = node.kind + (f" ({_short_status(node)})" if node.status else "")
        rows = [_row_cells(row) for row in node.resources] or [["-"] * len(QUOTA_COLUMNS)]
        for cells in rows:
            lines.append(_md_row([f"`{node.path}`", kind, *cells]))
    return [*lines, ""]


def _md_queues(report: AuditReport) -> list[str]:
    lines = ["## Workloads per ClusterQueue", "",
             _md_row(["ClusterQueue", "LocalQueues", "Admitted workloads", "Pending workloads", "Pending demand"]),
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


# --- the chart ------------------------------------------------------------------------------------------

SERIES = (
    Series("possible", "most it can use (nominal + can borrow)", "#e3e3e3", "ceiling"),
    Series("used", "used within nominal", "#4c78a8", "stack"),
    Series("borrowed", "borrowed", "#f58518", "stack"),
    Series("nominal", "nominal quota", "#222222", "marker"),
)


def quota_chart(report: AuditReport) -> QuotaChart:
    """Per resource, one bar per ClusterQueue and flavor: used (within nominal, then borrowed, Q-7) against its
    nominal quota and the most it can ever use (Q-6: nominal plus what it can borrow)."""
    panels: dict[str, list[QuotaRow]] = {}
    for node in report.cluster_queues:
        flavors = {row.flavor for row in node.resources}
        for row in node.resources:
            label = node.name if len(flavors) == 1 else f"{node.name} · {row.flavor}"
            panels.setdefault(row.resource, []).append(_bar(label, row))
    ordered = sorted(panels.items(), key=lambda item: (item[0] not in ("cpu", "memory"), item[0]))
    return QuotaChart(
        "Quota per ClusterQueue: used and borrowed against nominal quota", "ClusterQueue" if all(
            len({r.flavor for r in n.resources}) <= 1 for n in report.cluster_queues) else "ClusterQueue · flavor",
        SERIES, tuple(QuotaPanel(resource, _kind(resource), tuple(rows)) for resource, rows in ordered),
        "no ClusterQueue has quota", "Nothing is scheduled: used is what admitted workloads hold now"
        + ("." if any(n.admitted_workloads for n in report.cluster_queues) else " (no workload is admitted)."))


def _bar(label: str, row: ResourceRow) -> QuotaRow:
    within = min(row.usage, row.nominal) if row.nominal < UNLIMITED else row.usage
    possible = None if row.nominal >= UNLIMITED or row.max_borrowable >= UNLIMITED else \
        row.nominal + row.max_borrowable
    markers = (("nominal", row.nominal),) if row.nominal < UNLIMITED else ()
    return QuotaRow(label, (("used", within), ("borrowed", row.usage - within)), markers, ("possible", possible))


def _kind(resource: str) -> Kind:
    return "cpu" if resource == "cpu" else ("bytes" if is_bytes(resource) else "count")


def check_plot_path(path: str) -> None:
    """Fail before any work is done when the chart could not be written."""
    try:
        check_path(path)
    except ChartError as exc:
        raise PlotError(str(exc)) from None


def write_plot(report: AuditReport, path: str) -> str:
    """Write the chart (SVG or PNG, by the suffix); returns what it shows, for the command's message."""
    check_plot_path(path)
    chart = quota_chart(report)
    write_chart(chart, path)
    return describe(chart)
