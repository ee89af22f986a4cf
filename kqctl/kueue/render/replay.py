"""A replay as tables, as data (the json/yaml contract, see README "replay -o json"), as Kueue's
performance ``summary.yaml``, and as charts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.replay.report import ReplayReport
from kqctl.render.charts import Chart, Curve, TimeChart
from kqctl.render.columns import Column, Table, TableOptions, state_phrase, write_limited
from kqctl.render.replay import duration, duration_key, sample_data, wait
from kqctl.render.replay_charts import CHART_BUCKETS, bucketed
from kqctl.render.units import human, human_figure
from kqctl.replay.durations import format_duration
from kqctl.replay.run import WorkloadTimes
from kqctl.replay.summary import GroupStats, UsageSummary

FORMATS = ("table", "wide", "json", "yaml", "summary")
# What happens between Kueue's cycles in a replay (kqctl rules SIM-R1 ... explains each).
RULES = ("SIM-R1", "SIM-R2", "SIM-R3", "SIM-R4", "SIM-R5", "SIM-R6", "SIM-R7")
CHART_LINES = 12  # lines per chart: the busiest queues (a chart of 1,000 lines shows nothing)


# --- data ----------------------------------------------------------------------------------------------


def group_data(group: GroupStats) -> dict[str, Any]:
    return {"workloads": group.workloads, "admitted": group.admitted, "finished": group.finished,
            "evictions": group.evictions, "neverAdmitted": list(group.never_admitted),
            "timeToAdmission": sample_data(group.time_to_admission),
            "timeToFinish": sample_data(group.time_to_finish)}


def _resource(track: str) -> str:
    return track.split("/", 1)[1] if "/" in track else track


def usage_data(usage: UsageSummary, points: bool) -> dict[str, Any]:
    resource = _resource(usage.resource)
    data: dict[str, Any] = {
        "nominal": format_resource_value(resource, usage.nominal),
        "mean": format_resource_value(resource, int(usage.mean)),
        "peak": format_resource_value(resource, usage.peak),
        "meanPercentOfNominal": _percent_number(usage.share),
    }
    if points:
        data["points"] = [[at, format_resource_value(resource, value)] for at, value in usage.points]
    return data


def _percent_number(share: Fraction | None) -> float | None:
    return None if share is None else round(float(share * 100), 2)


def workload_data(workload: WorkloadTimes) -> dict[str, Any]:
    return {
        "localQueue": workload.labels.queue,
        "clusterQueue": workload.labels.target or None,
        "priority": workload.labels.priority,
        "class": workload.labels.workload_class,
        "state": workload.state,
        "arrivalMs": workload.arrival,
        "runtimeMs": workload.runtime,
        "firstAdmittedMs": workload.first_admitted,
        "admittedMs": workload.admitted,
        "finishedMs": workload.finished,
        "timeToAdmissionMs": None if workload.waiting else workload.time_to_admission,
        "timeToFinishMs": workload.time_to_finish,
        "evictions": workload.evictions,
        "neverAdmitted": workload.waiting,
    }


def report_data(report: ReplayReport, keep: Callable[[WorkloadTimes], bool] | None = None) -> dict[str, Any]:
    """Everything the replay found; every key is always present (null where it does not apply)."""
    shown = [w for w in report.workloads if keep is None or keep(w)]
    return {
        "start": report.start.isoformat().replace("+00:00", "Z"),
        "endMs": report.end,
        "stoppedAtHorizon": report.stopped_at_horizon,
        "cycles": report.cycles,
        "apiWrites": report.api_writes,
        "model": {"cycleLatency": report.throughput.data(), "runtime": report.runtime,
                  "finishLatencyMs": report.finish_latency, "seed": report.seed, "rules": list(RULES)},
        "overall": group_data(report.overall),
        "percentiles": {
            "clusterQueues": {g.name: group_data(g) for g in report.by_cluster_queue},
            "localQueues": {g.name: group_data(g) for g in report.by_local_queue},
            "priorities": {g.name: group_data(g) for g in report.by_priority},
            "classes": {g.name: group_data(g) for g in report.by_class},
        },
        "usage": {
            "clusterQueues": _usage_by(report, "ClusterQueue"),
            "cohorts": _usage_by(report, "Cohort"),
        },
        "performanceSummary": summary_data(report),
        "evictions": [{"atMs": e.at, "workload": e.victim, "preemptor": e.preemptor, "reason": e.reason}
                      for e in report.evictions],
        "workloads": {w.key: workload_data(w) for w in shown},
        "assumptions": list(report.assumptions),
        "warnings": list(report.warnings),
    }


def _usage_by(report: ReplayReport, kind: str) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for usage in report.usage:
        if usage.kind == kind:
            result.setdefault(usage.name, {})[usage.resource] = usage_data(usage, points=True)
    return result


def summary_data(report: ReplayReport) -> dict[str, Any]:
    """Kueue's performance ``summary.yaml``: the same keys, units (mCPU, ms) and integer arithmetic."""
    start = report.start
    from datetime import timedelta

    def stamp(ms: int) -> str:
        return (start + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return {
        "clusterQueueClasses": {
            name: {"cpuAverageUsage": s.cpu_average_usage, "cpuUsed": s.cpu_used,
                   "firstEventTime": stamp(s.first_event_ms), "lastEventTime": stamp(s.last_event_ms),
                   "nominalQuota": s.nominal_quota}
            for name, s in report.performance.cluster_queue_classes},
        "workloadClasses": {
            name: {"averageTimeToAdmissionMs": s.average_time_to_admission_ms,
                   "averageTimeToFinishMs": s.average_time_to_finish_ms, "count": s.count,
                   "totalEvictions": s.total_evictions}
            for name, s in report.performance.workload_classes},
    }


# --- tables --------------------------------------------------------------------------------------------


def render_replay(report: ReplayReport, fmt: str, out: TextIO, view: TableOptions,
                  shown: Callable[[str], bool] | None = None) -> None:
    """``shown`` (by workload key; -n and -l) chooses the workloads listed; percentiles, usage and the summary
    always cover every workload replayed."""
    from kqctl.render.output import is_data_format, write_data
    from kqctl.render.structured import dump_yaml

    def keep(workload: WorkloadTimes) -> bool:
        return shown is None or shown(workload.key)

    if is_data_format(fmt):
        write_data(out, report_data(report, keep), fmt, rows="workloads", sort_by=view.sort_by, headers=view.headers)
    elif fmt == "summary":
        out.write(dump_yaml(summary_data(report)))
    elif fmt in ("table", "wide"):
        render_tables(report, out, replace(view, wide=view.wide or fmt == "wide"), keep)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


_TIME_COLUMNS = (Column("P50", right=True, sort_key=duration_key), Column("P95", right=True, sort_key=duration_key),
                 Column("P99", right=True, sort_key=duration_key), Column("Max", right=True, wide=True,
                                                                             sort_key=duration_key))


def group_table(title: str, groups: Iterable[GroupStats]) -> Table:
    table = Table((Column(title), Column("Workloads", right=True), Column("Admitted", right=True), *_TIME_COLUMNS,
                   Column("Finish P50", right=True, wide=True), Column("Evictions", right=True)))
    for group in groups:
        sample, finish = group.time_to_admission, group.time_to_finish
        times = [wait(sample.at(p)) if sample else "-" for p in (50, 95, 99, 100)]
        table.add([group.name, f"{group.workloads:,}", f"{group.admitted:,}", *times,
                   duration(finish.p50) if finish else "-", f"{group.evictions:,}"])
    return table


def usage_table(usages: Iterable[UsageSummary]) -> Table:
    table = Table((Column("Queue"), Column("Kind"), Column("Resource"), Column("Nominal", right=True),
                   Column("Mean used", right=True), Column("Peak", right=True), Column("Mean %", right=True)))
    for usage in usages:
        resource = _resource(usage.resource)
        share = usage.share
        table.add([usage.name, usage.kind, usage.resource, human(resource, usage.nominal),
                   human_figure(resource, usage.mean), human_figure(resource, usage.peak),
                   "-" if share is None else f"{float(share * 100):.1f}%"])
    return table


def workload_table(workloads: Iterable[WorkloadTimes]) -> Table:
    # The default view fits 80 columns; -o wide adds where each workload queued, when it arrived, its evictions.
    table = Table((Column("Workload"), Column("LocalQueue", wide=True), Column("ClusterQueue", wide=True),
                   Column("Priority", right=True, sort_key=lambda c: int(c) if c.lstrip("-").isdigit() else c),
                   Column("Arrived", right=True, wide=True, sort_key=duration_key),
                   Column("Wait", right=True, sort_key=duration_key),
                   Column("Finished after", right=True, sort_key=duration_key),
                   Column("Evictions", right=True, wide=True), Column("State")))
    for w in workloads:
        table.add([w.key, w.labels.queue.split("/", 1)[-1], w.labels.target or "-", str(w.labels.priority),
                   duration(w.arrival), "never" if w.waiting else duration(w.time_to_admission),
                   duration(w.time_to_finish), str(w.evictions), w.state], item={"name": w.key, **workload_data(w)})
    return table


def render_tables(report: ReplayReport, out: TextIO, view: TableOptions,
                  keep: Callable[[WorkloadTimes], bool]) -> None:
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color, write_wrapped

    paint = rich_painter(use_color(out, view.color))
    workloads = workload_table(w for w in report.workloads if keep(w))
    sort_rows(workloads, view.sort_by)
    write_wrapped(out, headline(report))
    out.write("\n")
    for title, table, what in (
        ("Time to admission per ClusterQueue", group_table("ClusterQueue", report.by_cluster_queue), "ClusterQueues"),
        ("Time to admission per priority", group_table("Priority", report.by_priority), "priorities"),
        ("Quota held over time (mean and peak over the replay)", usage_table(report.usage), "usage rows"),
        ("Workloads (Wait: time to admission; Finished after: from arrival)", workloads, "workloads"),
    ):
        out.write(title + ":\n")
        write_limited(out, table, view, paint, what)
        out.write("\n")
    for note in report.assumptions:
        write_wrapped(out, f"Assumed: {note}")
    for warning in report.warnings:
        write_wrapped(out, f"warning: {warning}")


def headline(report: ReplayReport) -> str:
    counts: dict[str, int] = {}
    for workload in report.workloads:
        counts[workload.state] = counts.get(workload.state, 0) + 1
    states = ", ".join(f"{n:,} {state_phrase(state)}"
                       for state, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    horizon = " (stopped at --until)" if report.stopped_at_horizon else ""
    overall = report.overall.time_to_admission
    waits = ""
    if overall is not None:
        never = f" ({overall.never:,} never admitted)" if overall.never else ""
        mean = f", mean {duration(round(overall.mean))} of those admitted" if overall.never else \
            f", mean {duration(round(overall.mean))}"
        waits = (f"\nTime to admission: P50 {wait(overall.p50)}, P95 {wait(overall.p95)}, P99 {wait(overall.p99)}"
                 f"{mean}{never}.")
    return (f"Replayed {len(report.workloads):,} workloads over {duration(report.end)} of virtual time{horizon} "
            f"({report.cycles:,} cycles, {report.api_writes:,} API writes): {states or 'nothing to replay'}.{waits}")



# --- charts --------------------------------------------------------------------------------------------


def charts(report: ReplayReport) -> list[tuple[str, Chart]]:
    """Usage over time per ClusterQueue and per cohort (share of nominal quota, one small panel each: curves of
    the same shape would hide each other on one axes), and time to admission per priority; a chart with nothing
    to draw says why."""
    return [("usage-clusterqueues", usage_chart(report, "ClusterQueue")),
            ("usage-cohorts", usage_chart(report, "Cohort")),
            ("time-to-admission", admission_chart(report))]


def usage_chart(report: ReplayReport, kind: str) -> TimeChart:
    usages = [u for u in report.usage if u.kind == kind and u.nominal > 0]
    busiest = sorted(usages, key=lambda u: (-(u.share or 0), u.name, u.resource))[:CHART_LINES]
    curves = tuple(Curve(f"{u.name} · {u.resource}", bucketed(u, report.end)) for u in busiest)
    top = max((y for curve in curves for _, y in curve.points), default=100.0)
    names = len({u.name for u in usages})
    shown = f"{names} {kind}{'' if names == 1 else 's'}"  # a panel is one queue's one resource
    if len(usages) > len(busiest):
        shown += f", the {len(busiest)} busiest of {len(usages)} resource curves"
    return TimeChart(f"Quota held per {kind} over the replay ({shown})", "virtual time", "% of nominal quota",
                     curves, report.end / 1000, max(100.0, _round_up(top)), _seconds, lambda v: f"{v:.0f}%",
                     x_durations=True, small_multiples=True, reference=(100.0, "nominal quota (100%)"),
                     curve_label="quota held, % of nominal",
                     note=f"Mean over buckets of {format_duration(max(1, report.end // CHART_BUCKETS))} of virtual "
                          "time.", empty=f"no {kind} has nominal quota")


def admission_chart(report: ReplayReport) -> TimeChart:
    """Cumulative distribution of time to admission, one curve per priority (colours, then dashes, tell them
    apart); workloads never admitted are not on any curve and the note counts them."""
    curves = []
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
        # An empirical distribution is a step function: flat until the next workload gets in.
        count = f"{len(values):,} workload{'' if len(values) == 1 else 's'}"
        curves.append(Curve(f"priority {priority} ({count})", [(0.0, 0.0), *points]))
    never = sum(1 for w in report.workloads if w.time_to_admission is None)
    note = f"{never:,} workload(s) never admitted in the replay are on no curve." if never else ""
    right = max(longest, 1000) * 1.03 / 1000  # a little room after the last step, in seconds
    return TimeChart("Time to admission by priority: share of admitted workloads admitted within a time",
                     "time to admission", "% of admitted workloads", tuple(curves), right, 100.0, _seconds,
                     lambda v: f"{v:.0f}%", x_durations=True, note=note, empty="no workload was admitted")


def _seconds(value: float) -> str:
    return "0" if value == 0 else format_duration(round(value * 1000))


def _round_up(value: float) -> float:
    step = 25.0
    return step * -(-value // step)
