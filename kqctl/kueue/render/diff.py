"""A diff of two configurations as a table, as data (json/yaml) and as Markdown (a ready PR comment)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.render.replay import sample_data, wait
from kqctl.kueue.replay.diff import DiffReport, PercentileShift, WorkloadChange, WorkloadView
from kqctl.kueue.replay.report import ReplayReport
from kqctl.render.columns import Column, Table, TableOptions, value_column, write_limited
from kqctl.render.console import write_wrapped
from kqctl.render.markdown import cell, details_lines, table_lines
from kqctl.render.units import human_figure
from kqctl.replay.compare import diff_assumptions, diff_assumptions_data
from kqctl.replay.statistics import Sample

FORMATS = ("table", "json", "yaml", "markdown")


def quantity(resource: str, amount: int) -> str:
    """An exact quantity as Kubernetes prints it (data, not display)."""
    return format_resource_value(resource, amount)


def view_data(view: WorkloadView | None) -> dict[str, Any] | None:
    if view is None:
        return None
    return {"decision": view.decision, "clusterQueue": view.cluster_queue,
            "flavors": [{"podSet": p, "resource": r, "flavor": f} for p, r, f in view.flavors],
            "borrowed": [{"flavor": f, "resource": r, "amount": quantity(r, amount)} for f, r, amount in view.borrowed],
            "victims": list(view.victims), "preemptedBy": view.preempted_by,
            "message": view.message or None}


def listed(report: DiffReport, shown: Callable[[str], bool] | None) -> tuple[WorkloadChange, ...]:
    """The changes -n and -l list (by workload key); the counts always cover every workload, as on simulate."""
    return report.changes if shown is None else tuple(c for c in report.changes if shown(c.key))


def hidden_note(report: DiffReport, changes: tuple[WorkloadChange, ...]) -> str:
    hidden = len(report.changes) - len(changes)
    return f"{hidden:,} other workload change(s) not listed (-n/-l)." if hidden else ""


def diff_data(report: DiffReport, shown: Callable[[str], bool] | None = None) -> dict[str, Any]:
    changes = listed(report, shown)
    return {
        "compared": report.compared,
        "changed": len(report.changes),
        "regressions": [key for key in report.regression_keys if shown is None or shown(key)],
        "neverAdmittedInReplay": None if report.percentiles is None else {
            "before": _never(report.before_replay, shown), "after": _never(report.after_replay, shown)},
        "before": dict(report.before_counts),
        "after": dict(report.after_counts),
        "configuration": [{"kind": c.kind, "name": c.name, "field": c.field, "before": c.before, "after": c.after}
                          for c in report.configuration],
        "workloads": {c.key: {"changes": list(c.kinds), "regression": c.regression, "before": view_data(c.before),
                              "after": view_data(c.after)} for c in changes},
        "timeToAdmission": None if report.percentiles is None else [
            {"by": s.by, "group": s.group, "before": sample_data(s.before), "after": sample_data(s.after)}
            for s in report.percentiles],
        "replayAssumptions": diff_assumptions_data(report.before_replay, report.after_replay),
    }


def _never(replay: ReplayReport | None, shown: Callable[[str], bool] | None) -> list[str]:
    """The workloads a replay leaves waiting for admission at its end (never admitted), by key."""
    if replay is None:
        return []
    return [w.key for w in replay.workloads if w.waiting and (shown is None or shown(w.key))]


def render_diff(report: DiffReport, fmt: str, out: TextIO, view: TableOptions,
                shown: Callable[[str], bool] | None = None) -> None:
    """``shown`` (by workload key; -n and -l) chooses the workload changes listed."""
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, diff_data(report, shown), fmt, rows="workloads", sort_by=view.sort_by, headers=view.headers)
    elif fmt == "markdown":
        out.write(markdown(report, shown))
    elif fmt == "table":
        render_table(report, out, view, shown)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def headline(report: DiffReport) -> str:
    steady = len(report.regressions)
    replayed = len(set(report.replay_regressions) - {c.key for c in report.regressions})
    parts = [f"{len(report.changes):,} of {report.compared:,} workloads change"]
    if steady:
        parts.append(f"{steady:,} admitted before {'is' if steady == 1 else 'are'} no longer admitted")
    if replayed:
        parts.append(f"{replayed:,} {'more ' if steady else ''}admitted in the replay before "
                     f"{'is' if replayed == 1 else 'are'} never admitted in the replay after")
    return "; ".join(parts) + "."


def decision_text(view: WorkloadView | None) -> str:
    if view is None:
        return "(absent)"
    text = view.decision
    if view.holds_quota and view.flavors:
        text += f" on {view.flavor_text}"
    if view.holds_quota and view.borrowed:
        text += ", borrowing " + ", ".join(f"{r} {human_figure(r, amount)}" for _, r, amount in view.borrowed)
    if view.victims:
        text += f", preempts {len(view.victims)}"
    if view.preempted_by:
        text += f" by {view.preempted_by}"  # a "preempted" change is a change of preemptor: show who
    return text


def change_table(changes: tuple[WorkloadChange, ...]) -> Table:
    table = Table((Column("Workload"), Column("Before", wrap=True), Column("After", wrap=True),
                   Column("Change", wrap=True)))
    for change in changes:
        kinds = ", ".join(change.kinds) + (" (regression)" if change.regression else "")
        table.add([change.key, decision_text(change.before), decision_text(change.after), kinds])
    return table


def configuration_table(report: DiffReport) -> Table:
    table = Table((Column("Kind"), Column("Name"), Column("Field"),
                   value_column("Before", (c.before for c in report.configuration)),
                   value_column("After", (c.after for c in report.configuration))))
    for change in report.configuration:
        table.add([change.kind, change.name, change.field, change.before, change.after])
    return table


def percentile_table(shifts: tuple[PercentileShift, ...]) -> Table:
    """The groups whose percentiles move (an unchanged group says nothing a reviewer needs)."""
    table = Table((Column("By"), Column("Group"), *(Column(f"P{p} before → after", right=True) for p in (50, 95, 99))))
    for shift in shifts:
        if shift.moved:
            table.add([shift.by, shift.group, *(shift_text(shift.before, shift.after, p) for p in (50, 95, 99))])
    return table


def unmoved_note(shifts: tuple[PercentileShift, ...]) -> str:
    still = sum(1 for s in shifts if not s.moved)
    return f"{still:,} other group(s): P50, P95 and P99 unchanged." if still else ""


def shift_text(before: Sample | None, after: Sample | None, p: int) -> str:
    """``P before → after (±delta)``; a percentile that falls on a workload never admitted reads "never"."""
    old = wait(before.at(p)) if before else "-"
    new = wait(after.at(p)) if after else "-"
    if before is None or after is None:
        return f"{old} → {new}"
    first, second = before.at(p), after.at(p)
    if first is None or second is None:
        return f"{old} → {new}" + (" (worse)" if second is None and first is not None else
                                   " (better)" if first is None and second is not None else "")
    delta = second - first
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    return f"{old} → {new} ({sign}{wait(abs(delta))})"


def render_table(report: DiffReport, out: TextIO, view: TableOptions,
                 shown: Callable[[str], bool] | None = None) -> None:
    changes = listed(report, shown)
    write_wrapped(out, headline(report))
    if report.configuration:
        out.write("\nConfiguration changes:\n")
        write_limited(out, configuration_table(report), view, None, "configuration changes")
    if changes:
        out.write("\nWorkloads whose outcome changes (steady state of Kueue's scheduler):\n")
        write_limited(out, change_table(changes), view, None, "workloads")
    if hidden_note(report, changes):
        out.write("\n" if not changes else "")
        write_wrapped(out, hidden_note(report, changes))
    if report.percentiles is not None:
        out.write("\nTime to admission (replay):\n")
        table = percentile_table(report.percentiles)
        if table.rows:
            write_limited(out, table, view, None, "groups")
        if unmoved_note(report.percentiles):
            write_wrapped(out, unmoved_note(report.percentiles))
    for change in [c for c in changes if c.regression][:20]:
        message = change.after.message if change.after is not None else ""
        write_wrapped(out, f"regression: {change.key}: {change.before.decision if change.before else '-'} → "
                      f"{change.after.decision if change.after else '-'}{': ' + message if message else ''}")
    steady = {c.key for c in report.regressions}
    replayed = [k for k in report.replay_regressions if k not in steady and (shown is None or shown(k))]
    for key in replayed[:20]:
        write_wrapped(out, f"regression: {key}: admitted in the replay before, never admitted in the replay after")
    if len(replayed) > 20:
        write_wrapped(out, f"... and {len(replayed) - 20:,} more (-o json lists them all)")
    assumed = diff_assumptions(report.before_replay, report.after_replay)
    if assumed:
        out.write("\n")
        for note in assumed:
            write_wrapped(out, f"Assumed: {note}")


MARKDOWN_ROWS = 50


def markdown(report: DiffReport, shown: Callable[[str], bool] | None = None) -> str:
    """A PR comment: the verdict first, then what changed, then the evidence."""
    changes = listed(report, shown)
    verdict = "⚠️ regression" if report.regression_keys else ("changes" if report.changes else "no change")
    lines = [f"### kqctl diff: {verdict}", "", headline(report), ""]
    before = ", ".join(f"{n:,} {s.lower()}" for s, n in report.before_counts)
    after = ", ".join(f"{n:,} {s.lower()}" for s, n in report.after_counts)
    lines += [f"- before: {before or 'no workloads'}", f"- after: {after or 'no workloads'}", ""]
    if report.configuration:
        lines += ["#### Configuration changes", "", *table_lines(configuration_table(report), MARKDOWN_ROWS), ""]
    if changes:
        lines += ["#### Workloads whose outcome changes", "", *table_lines(change_table(changes), MARKDOWN_ROWS), ""]
    lines += [hidden_note(report, changes), ""] if hidden_note(report, changes) else []
    steady = {c.key for c in report.regressions}
    replayed = [k for k in report.replay_regressions if k not in steady and (shown is None or shown(k))]
    if replayed:
        lines += ["#### Admitted in the replay before, never admitted in the replay after", ""]
        lines += [f"- {cell(key)}" for key in replayed[:MARKDOWN_ROWS]]
        if len(replayed) > MARKDOWN_ROWS:
            lines.append(f"- … and {len(replayed) - MARKDOWN_ROWS:,} more (kqctl diff -o json lists them all)")
        lines.append("")
    if report.percentiles is not None:
        table = percentile_table(report.percentiles)
        lines += ["#### Time to admission (replay)", ""]
        lines += [*table_lines(table, MARKDOWN_ROWS), ""] if table.rows else []
        note = unmoved_note(report.percentiles)
        lines += [note, ""] if note else []
    lines += details_lines("Replay assumptions", diff_assumptions(report.before_replay, report.after_replay))
    lines.append("<sub>Generated by kqctl diff: Kueue's scheduler simulated offline on both configurations.</sub>")
    return "\n".join(lines) + "\n"


def regression_lines(changes: tuple[WorkloadChange, ...]) -> list[str]:
    return [c.key for c in changes if c.regression]
