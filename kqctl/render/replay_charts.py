"""Charts of a scheduler's replay (:class:`kqctl.replay.report.TimelineReport`): usage over time per queue, as a
share of what the queue is entitled to (Volcano's deserved, YuniKorn's guaranteed), and the distribution of the
time until a workload runs, per priority."""

from __future__ import annotations

from fractions import Fraction

from kqctl.render.charts import Chart, Line
from kqctl.render.replay import Units
from kqctl.replay.durations import format_duration
from kqctl.replay.report import TimelineReport
from kqctl.replay.statistics import integral
from kqctl.replay.summary import UsageSummary

CHART_LINES = 12  # the busiest queues: a chart of 300 lines shows nothing
CHART_BUCKETS = 200  # points per line: usage is averaged per bucket of virtual time


def charts(report: TimelineReport, units: Units) -> list[tuple[str, Chart]]:
    result = []
    usage = usage_chart(report)
    if usage is not None:
        result.append(("usage-queues", usage))
    result.append(("time-to-start", start_chart(report)))
    return result


def usage_chart(report: TimelineReport) -> Chart | None:
    words = report.words
    usages = [u for u in report.usage if u.nominal > 0]
    if not usages:
        return None
    busiest = sorted(usages, key=lambda u: (-(u.share or 0), u.name, u.resource))[:CHART_LINES]
    lines = [Line(f"{u.name} {u.resource}", _bucketed(u, report.end)) for u in busiest]
    top = max((y for line in lines for _, y in line.points), default=100.0)
    shown = f"the {len(busiest)} busiest of {len(usages)}" if len(usages) > len(busiest) else f"{len(usages)}"
    return Chart(f"{words.measure.capitalize()} per {words.queue} ({shown}), % of {words.nominal}", "virtual time",
                 f"% of {words.nominal}", lines, max(report.end, 1) / 1000, max(100.0, 25.0 * -(-top // 25.0)),
                 _seconds, lambda v: f"{v:.0f}%",
                 note=f"mean over buckets of {format_duration(max(1, report.end // CHART_BUCKETS))}")


def _bucketed(usage: UsageSummary, end: int) -> list[tuple[float, float]]:
    if end <= 0:
        return [(0.0, 0.0)]
    width = max(1, -(-end // CHART_BUCKETS))
    points = []
    for start in range(0, end, width):
        stop = min(end, start + width)
        mean = Fraction(integral(usage.points, start, stop), (stop - start) * usage.nominal)
        points.append((start / 1000, float(mean * 100)))
    points.append((end / 1000, points[-1][1]))
    return points


def start_chart(report: TimelineReport) -> Chart:
    """Cumulative distribution of the time until a workload runs, one line per priority."""
    words = report.words
    lines = []
    longest = 0
    by_priority: dict[int, list[int]] = {}
    for workload in report.workloads:
        if workload.time_to_admission is not None:
            by_priority.setdefault(workload.labels.priority, []).append(workload.time_to_admission)
    for priority in sorted(by_priority, reverse=True)[:CHART_LINES]:
        values = sorted(by_priority[priority])
        longest = max(longest, values[-1])
        step = max(1, len(values) // CHART_BUCKETS)
        points = [(values[i] / 1000, (i + 1) * 100 / len(values)) for i in range(0, len(values), step)]
        points.append((values[-1] / 1000, 100.0))
        lines.append(Line(f"priority {priority} ({len(values):,})", [(0.0, 0.0), *points], step=False))
    never = sum(1 for w in report.workloads if w.arrival is not None and w.time_to_admission is None)
    return Chart(f"Time until {words.started} by priority (share of {words.workload}s {words.started} within)",
                 f"time until {words.started}", f"% of {words.workload}s", lines, max(longest, 1000) / 1000, 100.0,
                 _seconds, lambda v: f"{v:.0f}%",
                 note=f"{never:,} {words.workload}(s) never {words.started}: on no line" if never else "")


def _seconds(value: float) -> str:
    return format_duration(round(value * 1000))
