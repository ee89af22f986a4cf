"""The Volcano quota report as a table (queues as a tree), json/yaml, markdown, names, and a bar chart."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TextIO

from kqctl.render import tree
from kqctl.render.charts import Kind, QuotaChart, QuotaPanel, QuotaRow, Series
from kqctl.render.columns import (
    Column,
    Table,
    TableOptions,
    check_audit_sort_key,
    finding_sort_field,
    more_findings,
    sorted_findings,
    write_limited,
)
from kqctl.render.units import is_bytes
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Amount, Resource
from kqctl.volcano.engine.audit import AuditFinding, AuditReport, QueueRow
from kqctl.volcano.engine.report import QueueReport
from kqctl.volcano.render.simulation import queue_data, resources, share_cell
from kqctl.volcano.render.units import display, display_figure

FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")

# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_COLUMNS = (Column("Queue"), Column("State", wide=True), Column("Weight", right=True), Column("Resource"),
            Column("Capability", right=True, wide=True), Column("Guarantee", right=True, wide=True),
            Column("Deserved", right=True), Column("Real cap", right=True, wide=True),
            Column("Allocated", right=True), Column("Pending demand", right=True), Column("Share", right=True))


def report_data(report: AuditReport) -> dict[str, Any]:
    return {
        "scheduler": "volcano",
        "quotaPlugin": report.quota_plugin or None,
        "configuration": report.conf_source,
        "cluster": resources(report.cluster),
        "queues": {row.report.name: {**queue_data(row.report), "depth": row.depth,
                                     "pendingDemand": resources(_pending_demand(row.report))}
                   for row in report.rows},
        "findings": [{"ruleId": f.rule_id, "severity": f.severity, "subject": f.subject, "message": f.message,
                      "hint": f.hint} for f in report.findings],
        "notes": list(report.notes),
    }


def render_audit(report: AuditReport, fmt: str, out: TextIO, headers: bool = True, sort_by: str | None = None,
                 limit: int | None = None) -> None:
    """``limit``: --limit, rows of the quota table and findings shown (None: all)."""
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, report_data(report), fmt, rows="queues", sort_by=sort_by, headers=headers)
    elif fmt == "markdown":
        out.write(markdown(report))
    elif fmt == "name":
        for name in sorted({f.subject for f in report.findings}):
            kind = "podgroup" if "/" in name else "queue"
            out.write(f"{kind}.scheduling.volcano.sh/{name.split('/')[-1]}\n")
    elif fmt in ("table", "wide"):
        check_audit_sort_key(sort_by, [c.header for c in _COLUMNS])
        # A key of the findings sorts them and leaves the quota table in tree order, as Kueue's audit does.
        quota_key = None if finding_sort_field(sort_by) else sort_by
        write_limited(out, table(report, quota_key), TableOptions(wide=fmt == "wide", headers=headers, limit=limit),
                      None, "quota rows")
        _findings_text(report, out, sorted_findings(report.findings, sort_by,
                                                    lambda f: (f.severity, f.rule_id, f.subject)), limit)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def _pending(report: QueueReport, name: str) -> Amount:
    """What the queue's PodGroups ask and do not hold yet (request minus allocated)."""
    return report.request.get(name) - report.allocated.get(name)


def _pending_demand(report: QueueReport) -> Resource:
    return Resource.of({name: _pending(report, name) for name in report.dimensions() if _pending(report, name)})


def _cells(report: QueueReport, name: str) -> list[str]:
    """The cells of one resource's row after the queue's name (its state, weight and share on every row)."""
    return [report.state, str(report.weight), name,
            display(name, report.capability.get(name)) if report.capability is not None
            and name in report.capability.as_dict() else "unlimited",
            display(name, report.guarantee.get(name)) if name in report.guarantee.as_dict() else "-",
            display_figure(name, report.deserved.get(name)) if report.deserved is not None else "-",
            display_figure(name, report.real_capability.get(name)),
            display_figure(name, report.allocated.get(name)), display_figure(name, _pending(report, name)),
            share_cell(report)]


def _figures(report: QueueReport, name: str) -> list[Any]:
    """What --sort-by orders each of :func:`_cells` by: the exact amounts (unlimited, no guarantee, no deserved
    share: last)."""
    share = report.share if report.share is not None else report.hdrf.share if report.hdrf is not None else None
    return [report.state, report.weight, name,
            report.capability.get(name) if report.capability is not None and name in report.capability.as_dict()
            else None,
            report.guarantee.get(name) if name in report.guarantee.as_dict() else None,
            report.deserved.get(name) if report.deserved is not None else None,
            report.real_capability.get(name), report.allocated.get(name), _pending(report, name), share]


_ONCE = frozenset({0, 1, 9})  # state, weight and share: the queue's own, on its first row only


def _rows(row: QueueRow) -> list[list[str]]:
    """Markdown's rows: the queue's path and its own cells on every row (a blank cell would name nothing)."""
    return [[_path(row), *_cells(row.report, name)] for name in row.report.dimensions()]


def table(report: AuditReport, sort_by: str | None = None) -> Table:
    """Queues as a tree, one row per resource; ``sort_by`` orders siblings and each queue's rows by a column."""
    nodes = [tree.TreeNode(row.depth, row.report.name, [_cells(row.report, name) for name in row.report.dimensions()],
                           [_figures(row.report, name) for name in row.report.dimensions()], _ONCE)
             for row in report.rows]
    return tree.tree_table(_COLUMNS, nodes, sort_by)


def _findings_text(report: AuditReport, out: TextIO, findings: Sequence[AuditFinding],
                   limit: int | None = None) -> None:
    """Findings (the report's, in --sort-by's order, the first ``limit``) one per line as every scheduler's audit
    prints them (``  warning RULE subject: message (hint: ...)``), then the summary; on a terminal a long line wraps
    under its finding."""
    from kqctl.render.console import write_wrapped

    if findings:
        out.write("\nFindings:\n")
        for f in findings[:limit]:
            write_wrapped(out, f"{f.severity} {f.rule_id} {f.subject}: {f.message} (hint: {f.hint})", "  ", "    ")
        more = more_findings([f.rule_id for f in findings], limit)
        if more is not None:
            out.write(f"  {more}\n")
    plugin = report.quota_plugin or "no queue plugin"
    counts = ", ".join(f"{sum(1 for f in report.findings if f.severity == s)} {s}(s)" for s in ("warning", "info"))
    out.write("\n")
    write_wrapped(out, f"{len(report.rows)} queue(s), {plugin}: {counts}; configuration: {report.conf_source}")
    write_wrapped(out, "Nothing is scheduled: allocated is what runs now; deserved is what the queue plugin computes "
                  "when a session opens (proportion: only for queues with jobs).")


def markdown(report: AuditReport) -> str:
    lines = ["# Volcano quota report", "",
             f"Queue plugin: {report.quota_plugin or 'none'}; configuration: {report.conf_source}.", "",
             "| " + " | ".join(c.header for c in _COLUMNS) + " |",
             "|" + "|".join("---:" if c.right else "---" for c in _COLUMNS) + "|"]
    for cells in (cells for row in report.rows for cells in _rows(row)):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if report.findings:
        lines += ["", "## Findings", ""]
        lines += [f"- **{f.severity}** `{f.rule_id}` {f.subject}: {f.message} ({f.hint})" for f in report.findings]
    return "\n".join(lines) + "\n"


# --- the chart -----------------------------------------------------------------------------------------------------

SERIES = (
    Series("real", "real capability (the most it can get)", "#e3e3e3", "ceiling"),
    Series("allocated", "allocated", "#4c78a8", "stack"),
    Series("pending", "pending demand", "#a6c8e6", "stack", hatch="///"),
    Series("deserved", "deserved", "#e45756", "marker"),
    Series("guarantee", "guarantee", "#222222", "marker"),
)


def quota_chart(report: AuditReport) -> QuotaChart:
    """Per resource, one bar per queue (tree order): allocated and pending demand against its deserved share,
    its guarantee and its real capability (what the queue plugin lets it reach)."""
    names: list[str] = []
    for row in report.rows:
        names += [name for name in row.report.dimensions() if name not in names]
    panels = tuple(QuotaPanel(name, _kind(name), tuple(_bar(row, name) for row in report.rows)) for name in names)
    return QuotaChart(
        "Volcano queues: allocated and pending against deserved, guarantee and real capability", "queue",
        SERIES, panels, "no queue", f"Nothing is scheduled: allocated is what runs now{_idle(report)}. Queue plugin: "
        f"{report.quota_plugin or 'none'}.")


def _idle(report: AuditReport) -> str:
    return "" if any(row.report.allocated.names() for row in report.rows) else " (nothing runs in any queue)"


def _path(row: QueueRow) -> str:
    return f"{row.report.parent}/{row.report.name}" if row.depth and row.report.parent else row.report.name


def _bar(row: QueueRow, name: str) -> QuotaRow:
    r = row.report
    markers = [("guarantee", _units(name, r.guarantee.get(name)))] if name in r.guarantee.as_dict() else []
    if r.deserved is not None and not _unlimited(r.deserved.get(name)):
        markers.insert(0, ("deserved", _units(name, r.deserved.get(name))))
    real = r.real_capability.get(name)
    stack = (("allocated", _units(name, r.allocated.get(name))), ("pending", _units(name, max(0, _pending(r, name)))))
    return QuotaRow(_path(row), stack, tuple(markers), ("real", None if _unlimited(real) else _units(name, real)))


def _unlimited(value: Amount) -> bool:
    return isinstance(value, float) and math.isinf(value)


def _units(name: str, value: Amount) -> Fraction:
    """Volcano's amount in the chart's base unit: cpu milli-cores, bytes, whole units (scalars are milli-units)."""
    if name in (CPU, MEMORY, PODS):
        return Fraction(value)
    return Fraction(value) / 1000


def _kind(name: str) -> Kind:
    if name == CPU:
        return "cpu"
    return "bytes" if is_bytes(name) else "count"
