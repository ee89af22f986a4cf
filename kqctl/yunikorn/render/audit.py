"""``kqctl audit`` output for YuniKorn: the queue tree per resource type, findings, a chart.

json/yaml contract (resources as YuniKorn's internal integers)::

    scheduler: yunikorn
    config, cluster
    queues: [{path, depth, leaf, managed, guaranteed, max, effectiveMax, allocated, pending, fairShare,
              priorityPolicy, priorityOffset}]
    findings: [{ruleId, severity, queue, message}]
    rejected: [pods placement refuses]
"""

from __future__ import annotations

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
from kqctl.yunikorn.engine.audit import AuditReport, QueueRow
from kqctl.yunikorn.render.common import amount, amount_figure, exact

AUDIT_FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")


def report_data(report: AuditReport) -> dict[str, Any]:
    return {
        "scheduler": "yunikorn",
        "config": report.config,
        "cluster": exact(report.cluster),
        "queues": [{"path": q.path, "depth": q.depth, "leaf": q.leaf, "managed": q.managed,
                    "guaranteed": exact(q.guaranteed), "max": exact(q.max), "effectiveMax": exact(q.effective_max),
                    "allocated": exact(q.allocated), "pending": exact(q.pending), "fairShare": round(q.share, 6),
                    "priorityPolicy": q.priority_policy, "priorityOffset": q.offset} for q in report.queues],
        "findings": [{"ruleId": f.rule, "severity": f.severity, "queue": f.queue or None, "message": f.message}
                     for f in report.findings],
        "rejected": list(report.rejected),
    }


def types_of(report: AuditReport) -> list[str]:
    """vcore and memory first, then every other type some queue limits or uses (pods last)."""
    seen = {name for q in report.queues for r in (q.guaranteed, q.max, q.allocated, q.pending) for name in (r or {})}
    rest = sorted(name for name in seen if name not in ("vcore", "memory", "pods"))
    return [n for n in ("vcore", "memory") if n in seen or n in report.cluster] + rest


_QUOTA_COLUMNS = (Column("Queue"), Column("Resource"), Column("Guaranteed", right=True), Column("Max", right=True),
                  Column("Effective max", right=True, wide=True), Column("Allocated", right=True),
                  # YuniKorn's word (a queue's pendingResource; simulate's PENDING): "PENDING DEMAND" would make
                  # the sample's tree 86 columns wide; the markdown table, with room, says "pending demand"
                  Column("Pending", right=True), Column("Share", right=True, wide=True))


def quota_table(report: AuditReport, sort_by: str | None = None) -> Table:
    """The queue tree, one row per resource type; the default view is what people decide on, so that a row fits
    80 columns (-o wide adds the rest); ``sort_by`` orders siblings and each queue's rows by a column, or, naming
    a field of the findings (severity, rule, object), leaves the tree as it is, as Kueue's audit does."""
    if finding_sort_field(sort_by):
        sort_by = None
    names = types_of(report)

    def figure(resource: dict[str, int] | None, name: str, zero: bool = False) -> int | None:
        return (resource or {}).get(name, 0 if zero else None)

    nodes = [tree.TreeNode(q.depth, _tree_label(q),
                           [[name, _cell(name, q.guaranteed), _cell(name, q.max), _cell(name, q.effective_max),
                             _cell(name, q.allocated, zero=True, figure=True),
                             _cell(name, q.pending, zero=True, figure=True), f"{q.share:.2f}"] for name in names],
                           [[name, figure(q.guaranteed, name), figure(q.max, name), figure(q.effective_max, name),
                             figure(q.allocated, name, True), figure(q.pending, name, True), q.share]
                            for name in names], once=frozenset({6}))
             for q in report.queues]
    return tree.tree_table(_QUOTA_COLUMNS, nodes, sort_by)


def _tree_label(q: QueueRow) -> str:
    name = q.path.rsplit(".", 1)[-1]
    fence = " [fence]" if q.priority_policy == "fence" else ""
    dynamic = " (dynamic)" if not q.managed else ""
    return name + fence + dynamic


def _cell(name: str, resource: dict[str, int] | None, zero: bool = False, figure: bool = False) -> str:
    if resource is None or name not in resource:
        return "0" if zero else "-"
    return amount_figure(name, resource[name]) if figure else amount(name, resource[name])


def render_audit(report: AuditReport, fmt: str, out: TextIO, headers: bool = True, sort_by: str | None = None,
                 limit: int | None = None) -> None:
    """``limit``: --limit, rows of the quota table and findings shown (None: all)."""
    from kqctl.render.output import is_data_format, write_data

    if fmt == "name":
        out.writelines(f"queue/{q.path}\n" for q in report.queues)
    elif is_data_format(fmt):
        write_data(out, report_data(report), fmt, rows="queues", sort_by=sort_by, headers=headers)
    elif fmt == "markdown":
        _markdown(report, out)
    elif fmt in ("table", "wide"):
        check_audit_sort_key(sort_by, [c.header for c in _QUOTA_COLUMNS])
        write_limited(out, quota_table(report, sort_by), TableOptions(wide=fmt == "wide", headers=headers,
                                                                      limit=limit), None, "quota rows")
        _findings(report, out, sort_by, limit)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(AUDIT_FORMATS)}")


def _findings(report: AuditReport, out: TextIO, sort_by: str | None = None, limit: int | None = None) -> None:
    """Findings one per line as every scheduler's audit prints them (``  warning RULE queue: message``), in the
    audit's order or by --sort-by severity, rule or object (the queue), the first ``limit``, then the summary; on a
    terminal a long line wraps under its finding."""
    from kqctl.render.console import write_wrapped

    if report.findings:
        out.write("\nFindings:\n")
    ordered = sorted_findings(report.findings, sort_by, lambda f: (f.severity, f.rule, f.queue))
    for f in ordered[:limit]:
        where = f" {f.queue}:" if f.queue else ""
        write_wrapped(out, f"{f.severity} {f.rule}{where} {f.message}", "  ", "    ")
    more = more_findings([f.rule for f in ordered], limit)
    if more is not None:
        out.write(f"  {more}\n")
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    cluster = ", ".join(f"{n} {amount(n, v)}" for n, v in sorted(report.cluster.items()))
    counted = f"{errors} error(s), " if errors else ""
    out.write("\n")
    write_wrapped(out, f"{len(report.queues)} queue(s), cluster {cluster}: {counted}{warnings} warning(s), "
                  f"{len(report.findings) - warnings - errors} info(s)")


def _markdown(report: AuditReport, out: TextIO) -> None:
    names = types_of(report)
    out.write(f"# YuniKorn quota report\n\nConfiguration: {report.config}\n\n")
    out.write("| queue | resource | guaranteed | max | effective max | allocated | pending demand | share |\n")
    out.write("|---|---|---:|---:|---:|---:|---:|---:|\n")
    for q in report.queues:
        for name in names:
            out.write(f"| `{q.path}` | {name} | {_cell(name, q.guaranteed)} | {_cell(name, q.max)} | "
                      f"{_cell(name, q.effective_max)} | {_cell(name, q.allocated, True, True)} | "
                      f"{_cell(name, q.pending, True, True)} | {q.share:.2f} |\n")
    if report.findings:
        out.write("\n## Findings\n\n")
        for f in report.findings:
            out.write(f"- **{f.severity}** `{f.rule}` {f.queue + ': ' if f.queue else ''}{f.message}\n")


# --- chart ---------------------------------------------------------------------------------------------------

SERIES = (
    Series("max", "effective max (the most it can hold)", "#e3e3e3", "ceiling"),
    Series("allocated", "allocated", "#4c78a8", "stack"),
    Series("pending", "pending demand", "#a6c8e6", "stack", hatch="///"),
    Series("guaranteed", "guaranteed", "#222222", "marker"),
)


def quota_chart(report: AuditReport) -> QuotaChart:
    """Per resource type, one bar per queue (tree order): allocated and pending against its guaranteed resources
    and its effective max (the smallest max up its path; the cluster at the root)."""
    panels = tuple(QuotaPanel(name, _kind(name), tuple(_bar(q, name) for q in report.queues))
                   for name in types_of(report))
    return QuotaChart("YuniKorn queues: allocated and pending against guaranteed and max", "queue", SERIES, panels,
                      "no queue", "Nothing is scheduled: allocated is what bound pods hold now"
                      + ("." if any(q.allocated for q in report.queues) else " (no pod is bound in any queue)."))


def _bar(q: QueueRow, name: str) -> QuotaRow:
    def value(resource: dict[str, int] | None) -> int:
        return (resource or {}).get(name, 0)

    markers = (("guaranteed", value(q.guaranteed)),) if q.guaranteed and name in q.guaranteed else ()
    ceiling = value(q.effective_max) if q.effective_max and name in q.effective_max else None
    return QuotaRow(q.path, (("allocated", value(q.allocated)), ("pending", value(q.pending))), markers,
                    ("max", ceiling))


def _kind(name: str) -> Kind:
    if name == "vcore":
        return "cpu"
    return "bytes" if is_bytes(name) else "count"
