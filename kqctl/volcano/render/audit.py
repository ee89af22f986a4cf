"""The Volcano quota report as a table (queues as a tree), json/yaml, markdown, names, and a bar chart."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, format_lines
from kqctl.volcano.api.resource import CPU
from kqctl.volcano.engine.audit import AuditReport, QueueRow
from kqctl.volcano.render.simulation import queue_data, resources
from kqctl.volcano.render.units import display, ratio

FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")
PLOT_SUFFIXES = (".svg", ".png")

# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_COLUMNS = (Column("Queue"), Column("State", wide=True), Column("Weight", right=True), Column("Resource"),
            Column("Capability", right=True, wide=True), Column("Guarantee", right=True, wide=True),
            Column("Deserved", right=True), Column("Real cap", right=True, wide=True),
            Column("Allocated", right=True), Column("Pending", right=True), Column("Share", right=True))


class PlotError(ValueError):
    """The chart cannot be written as asked."""


def report_data(report: AuditReport) -> dict[str, Any]:
    return {
        "scheduler": "volcano",
        "quotaPlugin": report.quota_plugin or None,
        "configuration": report.conf_source,
        "cluster": resources(report.cluster),
        "queues": {row.report.name: {**queue_data(row.report), "depth": row.depth} for row in report.rows},
        "findings": [{"ruleId": f.rule_id, "severity": f.severity, "subject": f.subject, "message": f.message,
                      "hint": f.hint} for f in report.findings],
        "notes": list(report.notes),
    }


def render_audit(report: AuditReport, fmt: str, out: TextIO, headers: bool = True, sort_by: str | None = None) -> None:
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
        from kqctl.render.console import terminal_width

        for line in format_lines(table(report), wide=fmt == "wide", headers=headers, width=terminal_width(out)):
            out.write(line + "\n")
        _findings_text(report, out)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def _rows(row: QueueRow) -> list[list[str]]:
    report = row.report
    label = ("  " * row.depth + ("└─ " if row.depth else "")) + report.name
    cells = []
    for name in report.dimensions():
        pending = report.request.get(name) - report.allocated.get(name)
        cells.append([label, report.state, str(report.weight), name,
                      display(name, report.capability.get(name)) if report.capability is not None
                      and name in report.capability.as_dict() else "unlimited",
                      display(name, report.guarantee.get(name)) if name in report.guarantee.as_dict() else "-",
                      display(name, report.deserved.get(name)) if report.deserved is not None else "-",
                      display(name, report.real_capability.get(name)), display(name, report.allocated.get(name)),
                      display(name, pending), ratio(report.share) if report.share is not None else "-"])
    return cells


def table(report: AuditReport) -> Table:
    result = Table(_COLUMNS)
    for row in report.rows:
        for cells in _rows(row):
            result.add(cells)
    return result


def _findings_text(report: AuditReport, out: TextIO) -> None:
    from kqctl.render.console import write_wrapped

    if report.findings:
        out.write("\nFindings:\n")
        for f in report.findings:
            write_wrapped(out, f"{f.severity:<7}  {f.rule_id:<28}  {f.subject}: {f.message} (hint: {f.hint})", "  ",
                          "    ")
    plugin = report.quota_plugin or "no queue plugin"
    out.write("\n")
    write_wrapped(out, f"{len(report.rows)} queue(s), {plugin}; configuration: {report.conf_source}")
    write_wrapped(out, "Nothing is scheduled: allocated is what runs now; deserved is what the queue plugin computes "
                  "when a session opens (proportion: only for queues with jobs).")


def markdown(report: AuditReport) -> str:
    lines = ["# Volcano quota report", "",
             f"Queue plugin: {report.quota_plugin or 'none'}; configuration: {report.conf_source}.", "",
             "| " + " | ".join(c.header for c in _COLUMNS) + " |",
             "|" + "|".join("---:" if c.right else "---" for c in _COLUMNS) + "|"]
    for row in report.rows:
        for cells in _rows(row):
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if report.findings:
        lines += ["", "## Findings", ""]
        lines += [f"- **{f.severity}** `{f.rule_id}` {f.subject}: {f.message} ({f.hint})" for f in report.findings]
    return "\n".join(lines) + "\n"


# --- the chart -----------------------------------------------------------------------------------------------------


def check_plot_path(path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise PlotError(f"--plot {path!r}: the file name must end in .svg or .png")
    if suffix == ".png":
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise PlotError("PNG needs matplotlib: pip install 'kqctl[plot]' (or matplotlib), or use .svg")


def _series(report: AuditReport, resource: str) -> list[tuple[str, float, float, float]]:
    """(queue, deserved, real capability, allocated) in cores or GiB, for the chart only."""
    scale = 1000 if resource == CPU else 1024**3
    rows = []
    for row in report.rows:
        r = row.report
        real = r.real_capability.get(resource)
        real_value = float(real) / scale if real != float("inf") else 0.0
        deserved = float(r.deserved.get(resource)) / scale if r.deserved is not None else 0.0
        rows.append((r.name, deserved, real_value, float(r.allocated.get(resource)) / scale))
    return rows


def write_plot(report: AuditReport, path: str) -> None:
    """Per queue: deserved, real capability and allocated cpu (SVG by hand, PNG through matplotlib)."""
    check_plot_path(path)
    series = _series(report, CPU)
    if Path(path).suffix.lower() == ".svg":
        Path(path).write_text(svg(series), encoding="utf-8")
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(max(6, len(series) * 0.9), 4))
    xs = range(len(series))
    width = 0.27
    for offset, index, label in ((-width, 1, "deserved"), (0, 2, "real capability"), (width, 3, "allocated")):
        axes.bar([x + offset for x in xs], [s[index] for s in series], width, label=label)
    axes.set_xticks(list(xs), [s[0] for s in series], rotation=30, ha="right")
    axes.set_ylabel("cpu (cores)")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def svg(series: list[tuple[str, float, float, float]]) -> str:
    width, height, left, bottom = max(400, 90 * len(series) + 80), 320, 60, 60
    top = max([max(s[1:]) for s in series] + [1.0])
    scale = (height - bottom - 20) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             'font-size="11">', f'<text x="{left}" y="14">cpu (cores) per queue: deserved, real capability, '
             'allocated</text>']
    colours = ("#4c78a8", "#f58518", "#54a24b")
    for i, (name, *values) in enumerate(series):
        x0 = left + i * 90
        for j, value in enumerate(values):
            h = value * scale
            parts.append(f'<rect x="{x0 + j * 22}" y="{height - bottom - h:.1f}" width="20" height="{h:.1f}" '
                         f'fill="{colours[j]}"/>')
        parts.append(f'<text x="{x0}" y="{height - bottom + 14}">{escape(name)}</text>')
    parts.append(f'<line x1="{left - 4}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" '
                 'stroke="black"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

