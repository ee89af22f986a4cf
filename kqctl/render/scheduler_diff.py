"""A Volcano or YuniKorn configuration diff (:class:`kqctl.replay.diffs.SchedulerDiff`) as a table, as data, and as
Markdown (a ready pull-request comment), in the scheduler's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, TableOptions, state_phrase, value_column, write_limited
from kqctl.render.markdown import cell, details_lines, table_lines
from kqctl.render.replay import duration
from kqctl.replay.compare import NAMED, PercentileShift, diff_assumptions, diff_assumptions_data
from kqctl.replay.diffs import Outcome, OutcomeChange, SchedulerDiff
from kqctl.replay.statistics import PERCENTILES
from kqctl.replay.summary import GroupStats

FORMATS = ("table", "json", "yaml", "markdown")
MARKDOWN_ROWS = 50
NEVER = "never"


def outcome_data(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {"state": outcome.state, "queue": outcome.queue or None, "running": outcome.running,
            "placement": outcome.placement or None, "victims": list(outcome.victims), "evicted": outcome.evicted,
            "message": outcome.message or None}


def waits_data(group: GroupStats | None) -> dict[str, Any] | None:
    """A group's waits: percentiles (null: never, the rank falls on a workload still waiting at the end), and the
    workloads still waiting, by name."""
    if group is None:
        return None
    sample = group.time_to_admission
    return {"count": group.workloads, **{f"p{p}Ms": sample.at(p) if sample else None for p in PERCENTILES},
            "maxMs": sample.at(100) if sample else None, "never": list(group.never_admitted)}


def listed(report: SchedulerDiff, shown: Callable[[str], bool] | None) -> tuple[OutcomeChange, ...]:
    return report.changes if shown is None else tuple(c for c in report.changes if shown(c.key))


def diff_data(report: SchedulerDiff, shown: Callable[[str], bool] | None = None) -> dict[str, Any]:
    changes = listed(report, shown)
    return {
        "scheduler": report.words.scheduler,
        "compared": report.compared,
        "changed": len(report.changes),
        "regressions": [c.key for c in changes if c.regression],
        "replayRegressions": None if report.percentiles is None else [
            {"workload": r.key, "waitBeforeMs": r.before_wait, "stateAfter": r.after_state}
            for r in report.replay_regressions],
        "before": dict(report.before_counts),
        "after": dict(report.after_counts),
        "configuration": [{"kind": c.kind, "name": c.name, "field": c.field, "before": c.before, "after": c.after}
                          for c in report.configuration],
        "workloads": {c.key: {"changes": list(c.kinds), "regression": c.regression,
                              "before": outcome_data(c.before), "after": outcome_data(c.after)} for c in changes},
        "timeToStart": None if report.percentiles is None else [
            {"by": s.by, "group": s.group, "before": waits_data(s.before), "after": waits_data(s.after)}
            for s in report.percentiles],
        "replayAssumptions": diff_assumptions_data(report.before_replay, report.after_replay),
    }


def render_diff(report: SchedulerDiff, fmt: str, out: TextIO, view: TableOptions,
                shown: Callable[[str], bool] | None = None) -> None:
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, diff_data(report, shown), fmt, rows="workloads", sort_by=view.sort_by, headers=view.headers)
    elif fmt == "markdown":
        out.write(markdown(report, shown))
    elif fmt == "table":
        render_table(report, out, view, shown)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def headline(report: SchedulerDiff) -> str:
    words = report.words
    steady = len(report.regressions)
    parts = [f"{len(report.changes):,} of {report.compared:,} {_things(report)} change"]
    if steady:
        parts.append(f"{steady:,} running before {'is' if steady == 1 else 'are'} not running after")
    replayed = len(report.replay_regressions)
    if replayed:
        parts.append(f"in the replay {replayed:,} {words.workload}(s) {words.started} before never "
                     f"{'is' if replayed == 1 else 'are'} after")
    return "; ".join(parts) + "."


def _things(report: SchedulerDiff) -> str:
    """What the steady state compares: Volcano's PodGroups, YuniKorn's pods (the replay compares applications)."""
    return "pods" if report.words.scheduler == "YuniKorn" else f"{report.words.workload}s"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def state_text(outcome: Outcome | None) -> str:
    if outcome is None:
        return "(absent)"
    text = outcome.state
    if outcome.running and outcome.placement:
        text += f" ({outcome.placement})"
    if outcome.victims:
        text += f", evicts {len(outcome.victims)}"
    return text


def change_table(changes: tuple[OutcomeChange, ...], report: SchedulerDiff) -> Table:
    word = "Pod" if report.words.scheduler == "YuniKorn" else report.words.workload
    table = Table((Column(word), Column("Before", wrap=True), Column("After", wrap=True),
                   Column("Change", wrap=True)))
    for change in changes:
        kinds = ", ".join(change.kinds) + (" (regression)" if change.regression else "")
        table.add([change.key, state_text(change.before), state_text(change.after), kinds])
    return table


def configuration_table(report: SchedulerDiff) -> Table:
    table = Table((Column("Kind"), Column("Name"), Column("Field"),
                   value_column("Before", (c.before for c in report.configuration)),
                   value_column("After", (c.after for c in report.configuration))))
    for change in report.configuration:
        table.add([change.kind, change.name, change.field, change.before, change.after])
    return table


def percentile_table(shifts: tuple[PercentileShift, ...], percentiles: tuple[int, ...] = PERCENTILES) -> Table:
    """The groups whose percentiles move (an unchanged group says nothing a reviewer needs). A terminal shows P50
    and P95 (a row of three before → after pairs does not fit 80 columns); Markdown and json have P99 too."""
    table = Table((Column("By"), Column("Group"), *(Column(f"P{p} before → after", right=True) for p in percentiles),
                   Column("Never", right=True)))  # still waiting at the end of the replay after
    for shift in shifts:
        if shift.moved:
            never = len(shift.after.never_admitted) if shift.after is not None else 0
            table.add([shift.by, shift.group, *(shift_text(shift.before, shift.after, p) for p in percentiles),
                       f"{never:,}"])
    return table


def _value(group: GroupStats, p: int) -> int | None:
    sample = group.time_to_admission
    return sample.at(p) if sample is not None else None


def _at(group: GroupStats | None, p: int) -> str:
    if group is None:
        return "-"
    value = _value(group, p)
    return NEVER if value is None else duration(value)


def shift_text(before: GroupStats | None, after: GroupStats | None, p: int) -> str:
    old, new = _at(before, p), _at(after, p)
    if before is None or after is None:
        return f"{old} → {new}"
    first, second = _value(before, p), _value(after, p)
    if first is None or second is None:
        return f"{old} → {new}" + (" (worse)" if second is None and first is not None else
                                   " (better)" if first is None and second is not None else "")
    delta = second - first
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    return f"{old} → {new} ({sign}{duration(abs(delta))})"


def unmoved_note(shifts: tuple[PercentileShift, ...]) -> str:
    still = sum(1 for s in shifts if not s.moved)
    return f"{still:,} other group(s): P50, P95 and P99 unchanged." if still else ""


def never_lines(report: SchedulerDiff) -> list[str]:
    """The workloads that never get in after, named (up to NAMED per group; -o json names every one)."""
    lines = []
    for shift in report.percentiles or ():
        if shift.by != "queue" or shift.after is None or not shift.after.never_admitted:
            continue
        names = shift.after.never_admitted
        more = f" and {len(names) - NAMED:,} more" if len(names) > NAMED else ""
        lines.append(f"never {report.words.started} after, in {shift.group}: {', '.join(names[:NAMED])}{more}")
    return lines


def regression_lines(report: SchedulerDiff, changes: tuple[OutcomeChange, ...]) -> list[str]:
    lines = []
    for change in [c for c in changes if c.regression][:20]:
        message = change.after.message if change.after is not None else ""
        lines.append(f"regression: {change.key}: {state_text(change.before)} → {state_text(change.after)}"
                     f"{': ' + message if message else ''}")
    words = report.words
    for regression in report.replay_regressions[:20]:
        lines.append(f"regression (replay): {regression.key}: {words.started} after {duration(regression.before_wait)} "
                     f"before, never after ({regression.after_state})")
    return lines


def render_table(report: SchedulerDiff, out: TextIO, view: TableOptions,
                 shown: Callable[[str], bool] | None = None) -> None:
    from kqctl.render.console import write_wrapped

    words = report.words
    changes = listed(report, shown)
    write_wrapped(out, headline(report))
    if report.configuration:
        out.write("\nConfiguration changes:\n")
        write_limited(out, configuration_table(report), view, None, "configuration changes")
    if changes:
        out.write(f"\n{_upper_first(_things(report))} whose outcome changes (steady state of {words.scheduler}'s "
                  "scheduler):\n")
        write_limited(out, change_table(changes, report), view, None, _things(report))
    hidden = len(report.changes) - len(changes)
    if hidden:
        write_wrapped(out, f"{hidden:,} other change(s) not listed (-n/-l).")
    if report.percentiles is not None:
        out.write(f"\nTime until {words.started} per {words.workload} (replay; P99: -o markdown, json):\n")
        table = percentile_table(report.percentiles, (50, 95))
        if table.rows:
            write_limited(out, table, view, None, "groups")
        note = unmoved_note(report.percentiles)
        if note:
            write_wrapped(out, note)
        for line in never_lines(report):
            write_wrapped(out, line)
    for line in regression_lines(report, changes):
        write_wrapped(out, line)
    assumed = diff_assumptions(report.before_replay, report.after_replay)
    if assumed:
        out.write("\n")
        for note in assumed:
            write_wrapped(out, f"Assumed: {note}")



def markdown(report: SchedulerDiff, shown: Callable[[str], bool] | None = None) -> str:
    """A PR comment: the verdict first, then what changed, then the evidence."""
    words = report.words
    changes = listed(report, shown)
    verdict = "⚠️ regression" if report.regressed_keys() else ("changes" if report.changes else "no change")
    lines = [f"### kqctl diff ({words.scheduler}): {verdict}", "", headline(report), ""]
    before = ", ".join(f"{n:,} {state_phrase(s)}" for s, n in report.before_counts)
    after = ", ".join(f"{n:,} {state_phrase(s)}" for s, n in report.after_counts)
    lines += [f"- before: {before or 'nothing'}", f"- after: {after or 'nothing'}", ""]
    if report.configuration:
        lines += ["#### Configuration changes", "", *table_lines(configuration_table(report), MARKDOWN_ROWS), ""]
    if changes:
        lines += [f"#### {_upper_first(_things(report))} whose outcome changes", "",
                  *table_lines(change_table(changes, report), MARKDOWN_ROWS), ""]
    hidden = len(report.changes) - len(changes)
    if hidden:
        lines += [f"{hidden:,} other change(s) not listed (-n/-l).", ""]
    if report.percentiles is not None:
        table = percentile_table(report.percentiles)
        lines += [f"#### Time until {words.started} per {words.workload} (replay)", ""]
        lines += [*table_lines(table, MARKDOWN_ROWS), ""] if table.rows else []
        note = unmoved_note(report.percentiles)
        lines += [note, ""] if note else []
        lines += [f"- {cell(line)}" for line in never_lines(report)]
        lines += [""] if never_lines(report) else []
    regressions = regression_lines(report, changes)
    if regressions:
        lines += ["#### Regressions", "", *(f"- {cell(line)}" for line in regressions), ""]
    lines += details_lines("Replay assumptions", diff_assumptions(report.before_replay, report.after_replay))
    lines.append(f"<sub>Generated by kqctl diff: {words.scheduler}'s scheduler simulated offline on both "
                 "configurations.</sub>")
    return "\n".join(lines) + "\n"
