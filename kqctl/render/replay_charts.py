"""Charts of a scheduler's replay (:class:`kqctl.replay.report.TimelineReport`), on the shared chart library: usage
over time per queue as a share of what the queue is entitled to (Volcano's deserved, YuniKorn's guaranteed), one
small panel per queue and resource, and the distribution of the time until a workload runs, one curve per
priority. A chart with nothing to draw says why."""

from __future__ import annotations

from fractions import Fraction

from kqctl.render.charts import Chart, Curve, TimeChart
from kqctl.replay.durations import format_duration
from kqctl.replay.report import TimelineReport
from kqctl.replay.statistics import integral
from kqctl.replay.summary import UsageSummary

CHART_LINES = 12  # panels or curves per chart: the busiest queues (a chart of 300 panels shows nothing)
CHART_BUCKETS = 200  # points per curve: usage is averaged per bucket of virtual time


def charts(report: TimelineReport) -> list[tuple[str, Chart]]:
    return [("usage-queues", usage_chart(report)), ("time-to-start", start_chart(report))]


def usage_chart(report: TimelineReport) -> TimeChart:
    words = report.words
    usages = [u for u in report.usage if _base(u) > 0]
    busiest = sorted(usages, key=lambda u: (-_share(u), u.name, u.resource))[:CHART_LINES]
    against_ceiling = sum(1 for u in busiest if not u.nominal)
    mixed = 0 < against_ceiling < len(busiest)
    # What 100% is: the nominal amount (deserved, guaranteed), or for queues without one the ceiling (Volcano's
    # capability, else the cluster); a chart holding both kinds says which each panel is.
    basis = words.ceiling if busiest and against_ceiling == len(busiest) else words.nominal
    if mixed:
        basis = f"{words.nominal} or {words.ceiling}"
    curves = tuple(Curve(_panel(u, words.ceiling, mixed), bucketed(u, report.end)) for u in busiest)
    top = max((y for curve in curves for _, y in curve.points), default=100.0)
    names = len({u.name for u in usages})
    shown = f"{names} {words.queue}{'' if names == 1 else 's'}"
    if len(usages) > len(busiest):
        shown += f", the {len(busiest)} busiest of {len(usages)} resource curves"
    ceiling_note = (f" A {words.queue} without {words.nominal} is drawn against its {words.ceiling}."
                    if against_ceiling else "")
    return TimeChart(f"{words.measure.capitalize()} per {words.queue} over the replay ({shown})", "virtual time",
                     f"% of {basis}", curves, max(report.end, 1) / 1000, max(100.0, 25.0 * -(-top // 25.0)),
                     _seconds, lambda v: f"{v:.0f}%", x_durations=True, small_multiples=True,
                     reference=(100.0, f"{basis} (100%)"), curve_label=f"{words.measure}, % of {basis}",
                     note=f"Mean over buckets of {format_duration(max(1, report.end // CHART_BUCKETS))} of virtual "
                          f"time.{ceiling_note}",
                     empty=f"no {words.queue} has a {words.nominal} share to draw usage against")


def _base(usage: UsageSummary) -> int:
    """What the usage is a share of: the nominal amount, else the ceiling (UsageTrack.ceiling)."""
    return usage.nominal or usage.ceiling


def _share(usage: UsageSummary) -> Fraction:
    base = _base(usage)
    return usage.mean / base if base else Fraction(0)


def _panel(usage: UsageSummary, ceiling_word: str, mixed: bool) -> str:
    title = f"{usage.name} · {usage.resource}"
    return f"{title} (% of {ceiling_word})" if mixed and not usage.nominal else title


def bucketed(usage: UsageSummary, end: int) -> list[tuple[float, float]]:
    """Time-weighted mean per bucket, as a share of the nominal amount (thousands of changes still draw as one line)."""
    if end <= 0:
        return [(0.0, 0.0)]
    width = max(1, -(-end // CHART_BUCKETS))
    points = []
    for start in range(0, end, width):
        stop = min(end, start + width)
        mean = Fraction(integral(usage.points, start, stop), (stop - start) * _base(usage))
        points.append((start / 1000, float(mean * 100)))
    points.append((end / 1000, points[-1][1]))
    return points


def start_chart(report: TimelineReport) -> TimeChart:
    """Cumulative distribution of the time until a workload runs, one curve per priority; those still waiting at
    the end are on no curve and the note counts them."""
    words = report.words
    curves = []
    longest = 0
    by_priority: dict[int, list[int]] = {}
    for workload in report.workloads:
        if workload.time_to_admission is not None and not workload.waiting:
            by_priority.setdefault(workload.labels.priority, []).append(workload.time_to_admission)
    for priority in sorted(by_priority, reverse=True)[:CHART_LINES]:
        values = sorted(by_priority[priority])
        longest = max(longest, values[-1])
        step = max(1, len(values) // CHART_BUCKETS)
        points = [(values[i] / 1000, (i + 1) * 100 / len(values)) for i in range(0, len(values), step)]
        points.append((values[-1] / 1000, 100.0))
        count = f"{len(values):,} {words.workload}{'' if len(values) == 1 else 's'}"
        curves.append(Curve(f"priority {priority} ({count})", [(0.0, 0.0), *points]))
    never = sum(1 for w in report.workloads if w.arrival is not None and w.waiting)
    note = f"{never:,} {words.workload}(s) still waiting at the end of the replay are on no curve." if never else ""
    right = max(longest, 1000) * 1.03 / 1000  # a little room after the last step, in seconds
    return TimeChart(f"Time until {words.started} by priority: share of {words.workload}s {words.started} within a "
                     "time", f"time until {words.started}", f"% of {words.workload}s {words.started}", tuple(curves),
                     right, 100.0, _seconds, lambda v: f"{v:.0f}%", x_durations=True, note=note,
                     empty=f"no {words.workload} that arrived during the replay was {words.started}")


def _seconds(value: float) -> str:
    return "0" if value == 0 else format_duration(round(value * 1000))
