"""A scheduler's replay (:class:`kqctl.replay.report.TimelineReport`) as tables, as data, and as charts, in the
scheduler's words (Volcano's PodGroups and Queues, YuniKorn's applications and queue paths). Kueue's replay has
its own renderer (its report adds the performance summary and the API-write model).

Amounts are the scheduler's own (Volcano's milli-units, YuniKorn's vcore): ``Units`` says how to write them,
exactly for data and for a person in tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, TableOptions, state_phrase, write_limited
from kqctl.replay.durations import DurationError, format_duration, parse_duration
from kqctl.replay.report import TimelineReport, Words
from kqctl.replay.run import WorkloadTimes
from kqctl.replay.statistics import Sample
from kqctl.replay.summary import GroupStats, UsageSummary

FORMATS = ("table", "wide", "json", "yaml")


@dataclass(frozen=True)
class Units:
    """How a scheduler writes its amounts: ``data`` an exact quantity (json), ``display`` for a person."""

    data: Callable[[str, int], str]
    display: Callable[[str, int | Fraction], str]


def duration(value: int | None) -> str:
    return "-" if value is None else format_duration(value)


def wait(value: int | None) -> str:
    """A percentile of waits: None is a wait that never ended (a workload still waiting at the end)."""
    return "never" if value is None else format_duration(value)


def duration_key(cell: str) -> object:
    try:
        return parse_duration(cell)
    except DurationError:
        return cell


# --- data ----------------------------------------------------------------------------------------------


def sample_data(sample: Sample | None) -> dict[str, Any] | None:
    """null percentiles: never (the rank falls on a workload still waiting at the end); ``never`` counts them."""
    if sample is None:
        return None
    return {"count": sample.count, "meanMs": int(sample.mean), "p50Ms": sample.p50, "p95Ms": sample.p95,
            "p99Ms": sample.p99, "maxMs": sample.maximum, "never": sample.never}


def group_data(group: GroupStats) -> dict[str, Any]:
    return {"workloads": group.workloads, "started": group.admitted, "finished": group.finished,
            "evictions": group.evictions, "timeToStart": sample_data(group.time_to_admission),
            "timeToFinish": sample_data(group.time_to_finish), "neverStarted": list(group.never_admitted)}


def usage_data(usage: UsageSummary, units: Units, points: bool) -> dict[str, Any]:
    share = usage.share
    data: dict[str, Any] = {
        "nominal": units.data(usage.resource, usage.nominal),
        "mean": units.data(usage.resource, int(usage.mean)),
        "peak": units.data(usage.resource, usage.peak),
        "meanPercentOfNominal": None if share is None else round(float(share * 100), 2),
    }
    if not usage.nominal and usage.ceiling:  # no nominal amount: the share of what the cluster could give
        data["ceiling"] = units.data(usage.resource, usage.ceiling)
        data["meanPercentOfCeiling"] = round(float(usage.mean * 100 / usage.ceiling), 2)
    if points:
        data["points"] = [[at, units.data(usage.resource, value)] for at, value in usage.points]
    return data


def workload_data(workload: WorkloadTimes) -> dict[str, Any]:
    return {
        "queue": workload.labels.target or workload.labels.queue or None,
        "priority": workload.labels.priority,
        "class": workload.labels.workload_class,
        "state": workload.state,
        "arrivalMs": workload.arrival,
        "runtimeMs": workload.runtime,
        "firstStartedMs": workload.first_admitted,
        "startedMs": workload.admitted,
        "finishedMs": workload.finished,
        "timeToStartMs": workload.time_to_admission,
        "timeToFinishMs": workload.time_to_finish,
        "evictions": workload.evictions,
        "waiting": workload.waiting,
    }


def report_data(report: TimelineReport, units: Units, keep: Callable[[WorkloadTimes], bool] | None = None) \
        -> dict[str, Any]:
    """Everything the replay found; every key is always present (null where it does not apply)."""
    words = report.words
    shown = [w for w in report.workloads if keep is None or keep(w)]
    return {
        "scheduler": words.scheduler,
        "start": report.start.isoformat().replace("+00:00", "Z"),
        "endMs": report.end,
        "stoppedAtHorizon": report.stopped_at_horizon,
        "cycles": report.cycles,
        "model": {"periodMs": report.period, "runtime": report.runtime, "seed": report.seed,
                  "rules": list(report.rules), "workload": words.workload, "startsWhen": words.started},
        "overall": group_data(report.overall),
        "runningAtStart": report.running_at_start,
        "percentiles": {"queues": {g.name: group_data(g) for g in report.by_queue},
                        "priorities": {g.name: group_data(g) for g in report.by_priority}},
        "usage": {"queues": _usage_by(report, units)},
        "evictions": [{"atMs": e.at, "workload": e.workload, "pod": e.pod, "by": e.by, "outcome": e.outcome}
                      for e in report.evictions],
        "workloads": {w.key: workload_data(w) for w in shown},
        "pods": {p.key: workload_data(p) for p in report.pods if keep is None or keep(p)} if report.pods else None,
        "assumptions": list(report.assumptions),
        "warnings": list(report.warnings),
    }


def _usage_by(report: TimelineReport, units: Units) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for usage in report.usage:
        result.setdefault(usage.name, {})[usage.resource] = usage_data(usage, units, points=True)
    return result


# --- tables --------------------------------------------------------------------------------------------


def render_timeline(report: TimelineReport, fmt: str, out: TextIO, view: TableOptions, units: Units,
                    shown: Callable[[str], bool] | None = None) -> None:
    """``shown`` (by workload key; -n and -l) chooses the workloads listed; percentiles and usage always cover
    every workload replayed."""
    from kqctl.render.output import is_data_format, write_data

    def keep(workload: WorkloadTimes) -> bool:
        return shown is None or shown(workload.key)

    if is_data_format(fmt):
        write_data(out, report_data(report, units, keep), fmt, rows="workloads", sort_by=view.sort_by,
                   headers=view.headers)
    elif fmt in ("table", "wide"):
        render_tables(report, out, replace(view, wide=view.wide or fmt == "wide"), units, keep)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


_TIME_COLUMNS = (Column("P50", right=True, sort_key=duration_key), Column("P95", right=True, sort_key=duration_key),
                 Column("P99", right=True, sort_key=duration_key),
                 Column("Max", right=True, wide=True, sort_key=duration_key))


def group_table(title: str, groups: Iterable[GroupStats], words: Words) -> Table:
    table = Table((Column(title), Column(f"{words.workload}s", right=True),
                   Column(words.started.capitalize(), right=True), *_TIME_COLUMNS,
                   Column("Finish P50", right=True, wide=True), Column("Evictions", right=True)))
    for group in groups:
        sample, finish = group.time_to_admission, group.time_to_finish
        times = [wait(sample.at(p)) if sample else "-" for p in (50, 95, 99, 100)]
        table.add([group.name, f"{group.workloads:,}", f"{group.admitted:,}", *times,
                   duration(finish.p50) if finish else "-", f"{group.evictions:,}"])
    return table


def usage_table(usages: Iterable[UsageSummary], units: Units, words: Words) -> Table:
    table = Table((Column(words.queue), Column("Resource"), Column(words.nominal.capitalize(), right=True),
                   Column("Mean used", right=True), Column("Peak", right=True), Column("Mean %", right=True)))
    for usage in usages:
        table.add([usage.name, usage.resource, units.display(usage.resource, usage.nominal) if usage.nominal else "-",
                   units.display(usage.resource, usage.mean), units.display(usage.resource, usage.peak),
                   _mean_percent(usage)])
    return table


def _mean_percent(usage: UsageSummary) -> str:
    """Of the nominal amount; without one, of the ceiling (Volcano's capability, else the cluster), marked ``*``."""
    if usage.share is not None:
        return f"{float(usage.share * 100):.1f}%"
    if usage.ceiling:
        return f"{float(usage.mean * 100 / usage.ceiling):.1f}%*"
    return "-"


def usage_footnote(usages: Iterable[UsageSummary], words: Words) -> str | None:
    """What a ``*`` in the usage table's Mean % means, when a row has one."""
    if not any(not u.nominal and u.ceiling for u in usages):
        return None
    return f"* the {words.queue} sets no {words.nominal}: % of its {words.ceiling}"


def workload_table(workloads: Iterable[WorkloadTimes], words: Words) -> Table:
    table = Table((Column(words.workload.capitalize() if words.workload.islower() else words.workload),
                   Column(words.queue),
                   Column("Priority", right=True, wide=True,
                          sort_key=lambda c: int(c) if c.lstrip("-").isdigit() else c),
                   Column("Arrived", right=True, wide=True, sort_key=duration_key),
                   Column("Wait", right=True, sort_key=duration_key),
                   Column("Finished after", right=True, sort_key=duration_key),
                   Column("Evictions", right=True, wide=True), Column("State")))
    for w in workloads:
        table.add([w.key, w.labels.target or w.labels.queue or "-", str(w.labels.priority), duration(w.arrival),
                   duration(w.time_to_admission), duration(w.time_to_finish), str(w.evictions), w.state],
                  item={"name": w.key, **workload_data(w)})
    return table


def render_tables(report: TimelineReport, out: TextIO, view: TableOptions, units: Units,
                  keep: Callable[[WorkloadTimes], bool]) -> None:
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color, write_wrapped

    words = report.words
    paint = rich_painter(use_color(out, view.color))
    workloads = workload_table((w for w in report.workloads if keep(w)), words)
    sort_rows(workloads, view.sort_by)
    write_wrapped(out, headline(report))
    out.write("\n")
    plural = f"{words.workload}s"
    for title, table, what, footnote in (
        (f"Time until {words.started} per {words.queue}", group_table(words.queue, report.by_queue, words),
         f"{words.queue}s", None),
        (f"Time until {words.started} per priority", group_table("Priority", report.by_priority, words),
         "priorities", None),
        (f"Usage over time ({words.measure}, mean and peak over the replay)",
         usage_table(report.usage, units, words), "usage rows", usage_footnote(report.usage, words)),
        (f"{plural[0].upper()}{plural[1:]} (Wait: until {words.started}; Finished after: from arrival)", workloads,
         plural, None),
    ):
        out.write(title + ":\n")
        write_limited(out, table, view, paint, what)
        if footnote is not None:
            write_wrapped(out, footnote)
        out.write("\n")
    for note in report.assumptions:
        write_wrapped(out, f"Assumed: {note}")
    for warning in report.warnings:
        write_wrapped(out, f"warning: {warning}")


# The states in which a replay ends a workload that never got in (YuniKorn's: the shim failed its gang, the core
# rejected its application, its pods were deleted): it counts as never in the waits, but it is not waiting any more.
ENDED_WITHOUT_STARTING = ("Failed", "Rejected", "Deleted")


def never_started(report: TimelineReport) -> str:
    """The waits line's end: the workloads that never started, those still waiting apart from those that ended."""
    never = set(report.overall.never_admitted)
    if not never:
        return ""
    ended: dict[str, int] = {}
    for workload in report.workloads:
        if workload.key in never and workload.state in ENDED_WITHOUT_STARTING:
            ended[workload.state] = ended.get(workload.state, 0) + 1
    started = report.words.started
    still = len(never) - sum(ended.values())
    text = f"; {still:,} still waiting at the end (never {started})" if still else ""
    if ended:
        states = ", ".join(f"{n:,} {state_phrase(state)}" for state, n in sorted(ended.items()))
        text += f"; {sum(ended.values()):,} never {started} ({states})"
    return text


def headline(report: TimelineReport) -> str:
    words = report.words
    counts: dict[str, int] = {}
    for workload in report.workloads:
        counts[workload.state] = counts.get(workload.state, 0) + 1
    states = ", ".join(f"{n:,} {state_phrase(state)}"
                       for state, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    horizon = " (stopped at --until)" if report.stopped_at_horizon else ""
    overall = report.overall.time_to_admission
    waits = (f"\nTime until {words.started}: P50 {wait(overall.p50)}, P95 {wait(overall.p95)}, "
             f"P99 {wait(overall.p99)}, mean {duration(round(overall.mean))}{never_started(report)}.") \
        if overall else (f"\nNo {words.workload} arrived during the replay." if report.overall.workloads else "")
    at_start = f"; {report.running_at_start:,} running at the start (not counted in waits)" \
        if report.running_at_start else ""
    return (f"Replayed {len(report.workloads):,} {words.scheduler} {words.workload}s over {duration(report.end)} of "
            f"virtual time{horizon} ({report.cycles:,} {words.cycle}s): {states or 'nothing to replay'}"
            f"{at_start}.{waits}")
