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

from pathlib import Path
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, format_lines
from kqctl.yunikorn.engine.audit import AuditReport, QueueRow
from kqctl.yunikorn.render.common import amount, exact

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


def quota_table(report: AuditReport) -> Table:
    # The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
    table = Table((Column("Queue"), Column("Resource"), Column("Guaranteed", right=True), Column("Max", right=True),
                   Column("Effective max", right=True, wide=True), Column("Allocated", right=True),
                   Column("Pending", right=True), Column("Share", right=True, wide=True)))
    names = types_of(report)
    for q in report.queues:
        label = _tree_label(q)
        for i, name in enumerate(names):
            table.add([label if i == 0 else "", name, _cell(name, q.guaranteed), _cell(name, q.max),
                       _cell(name, q.effective_max), _cell(name, q.allocated, zero=True),
                       _cell(name, q.pending, zero=True), f"{q.share:.2f}" if i == 0 else ""])
    return table


def _tree_label(q: QueueRow) -> str:
    name = q.path.rsplit(".", 1)[-1]
    fence = " [fence]" if q.priority_policy == "fence" else ""
    dynamic = " (dynamic)" if not q.managed else ""
    return ("  " * q.depth) + name + fence + dynamic


def _cell(name: str, resource: dict[str, int] | None, zero: bool = False) -> str:
    if resource is None or name not in resource:
        return "0" if zero else "-"
    return amount(name, resource[name])


def render_audit(report: AuditReport, fmt: str, out: TextIO, headers: bool = True, sort_by: str | None = None) -> None:
    from kqctl.render.output import is_data_format, write_data

    if fmt == "name":
        out.writelines(f"queue/{q.path}\n" for q in report.queues)
    elif is_data_format(fmt):
        write_data(out, report_data(report), fmt, rows="queues", sort_by=sort_by, headers=headers)
    elif fmt == "markdown":
        _markdown(report, out)
    elif fmt in ("table", "wide"):
        from kqctl.render.console import terminal_width

        for line in format_lines(quota_table(report), wide=fmt == "wide", headers=headers, width=terminal_width(out)):
            out.write(line + "\n")
        _findings(report, out)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(AUDIT_FORMATS)}")


def _findings(report: AuditReport, out: TextIO) -> None:
    from kqctl.render.console import write_wrapped

    out.write("\n")
    for f in report.findings:
        where = f" {f.queue}:" if f.queue else ""
        write_wrapped(out, f"{f.severity.upper():7} {f.rule}{where} {f.message}", "", "    ")
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    cluster = ", ".join(f"{n} {amount(n, v)}" for n, v in sorted(report.cluster.items()))
    counted = f"{errors} error(s), " if errors else ""
    write_wrapped(out, f"{len(report.queues)} queue(s), cluster {cluster}: {counted}{warnings} warning(s), "
                  f"{len(report.findings) - warnings - errors} info(s)")


def _markdown(report: AuditReport, out: TextIO) -> None:
    names = types_of(report)
    out.write(f"# YuniKorn quota report\n\nConfiguration: {report.config}\n\n")
    out.write("| queue | resource | guaranteed | max | effective max | allocated | pending | share |\n")
    out.write("|---|---|---:|---:|---:|---:|---:|---:|\n")
    for q in report.queues:
        for name in names:
            out.write(f"| `{q.path}` | {name} | {_cell(name, q.guaranteed)} | {_cell(name, q.max)} | "
                      f"{_cell(name, q.effective_max)} | {_cell(name, q.allocated, True)} | "
                      f"{_cell(name, q.pending, True)} | {q.share:.2f} |\n")
    if report.findings:
        out.write("\n## Findings\n\n")
        for f in report.findings:
            out.write(f"- **{f.severity}** `{f.rule}` {f.queue + ': ' if f.queue else ''}{f.message}\n")


# --- chart ---------------------------------------------------------------------------------------------------

SERIES = (("guaranteed", "#4c78a8"), ("max", "#9ecae9"), ("allocated", "#f58518"), ("pending", "#e45756"))
BAR, GAP, LEFT, TOP, HEIGHT = 10, 16, 60, 30, 160


def svg_chart(report: AuditReport) -> str:
    """One panel per resource type (vcore, memory): per leaf queue guaranteed, max, allocated and pending."""
    leaves = [q for q in report.queues if q.leaf]
    names = [n for n in ("vcore", "memory") if n in types_of(report)]
    group = len(SERIES) * BAR + GAP
    width = LEFT + max(1, len(leaves)) * group + 20
    panel = HEIGHT + 90
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{TOP + panel * len(names)}" '
             'font-family="sans-serif" font-size="10">',
             f'<text x="{LEFT}" y="16" font-size="12">YuniKorn queues: guaranteed, max, allocated, pending</text>']
    for p, name in enumerate(names):
        base = TOP + p * panel + HEIGHT
        values = [_value(q, series, name) for q in leaves for series, _ in SERIES]
        top = max([v for v in values if v is not None] + [1])
        parts.append(f'<text x="4" y="{base - HEIGHT + 10}">{name}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#333"/>')
        parts.append(f'<text x="4" y="{base - HEIGHT + 24}">{amount(name, top)}</text>')
        for i, q in enumerate(leaves):
            x = LEFT + i * group
            for s, (series, colour) in enumerate(SERIES):
                value = _value(q, series, name)
                if value is None:
                    continue
                h = int(HEIGHT * value / top)
                parts.append(f'<rect x="{x + s * BAR}" y="{base - h}" width="{BAR - 1}" height="{h}" fill="{colour}">'
                             f'<title>{q.path} {series} {amount(name, value)}</title></rect>')
            parts.append(f'<text x="{x}" y="{base + 12}" transform="rotate(45 {x} {base + 12})">'
                         f'{_escape(q.path)}</text>')
    for s, (series, colour) in enumerate(SERIES):
        parts.append(f'<rect x="{LEFT + s * 90}" y="20" width="8" height="8" fill="{colour}"/>'
                     f'<text x="{LEFT + s * 90 + 12}" y="28">{series}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _value(q: QueueRow, series: str, name: str) -> int | None:
    resource = {"guaranteed": q.guaranteed, "max": q.effective_max, "allocated": q.allocated,
                "pending": q.pending}[series]
    return None if resource is None else resource.get(name)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_plot(report: AuditReport, path: str) -> None:
    if Path(path).suffix.lower() != ".svg":
        raise ValueError(f"--plot {path!r}: for YuniKorn the chart is an SVG file (name it .svg)")
    Path(path).write_text(svg_chart(report), encoding="utf-8")
