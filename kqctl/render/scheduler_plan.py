"""A Volcano or YuniKorn plan's answer, with the replays that prove it: table, json or yaml. Amounts are the
scheduler's (``Units``); a weight is a plain number."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol, TextIO

from kqctl.render.columns import Column, Table, format_lines
from kqctl.render.plan_draws import (
    drawn_line,
    draws_data,
    draws_text,
    measured_text,
    not_met_text,
    replays_heading,
    verdict_text,
)
from kqctl.render.replay import Units
from kqctl.replay.durations import format_duration
from kqctl.replay.planning import Condition, Evaluation, Measure, PlanResult, Values

UNLIMITED = -1  # a limit that is not set today (a capability or max): no limit


class Problem(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def field(self) -> str: ...

    @property
    def resources(self) -> tuple[str, ...]: ...

    @property
    def current(self) -> Values: ...

    @property
    def steps(self) -> Values: ...

    @property
    def target(self) -> tuple[Condition, ...]: ...


def measure_text(measure: Measure) -> str:
    condition = measure.condition
    if condition.statistic == "all":
        return "all started" if measure.met else f"{measure.not_admitted:,} of {measure.workloads:,} never started"
    if measure.value is None:
        return f"{measure.not_admitted:,} of {measure.workloads:,} never started" if measure.workloads else \
            "not replayed"
    value = measure.value
    ms = round(value) if isinstance(value, Fraction) else value
    return f"{condition.statistic}({condition.metric}) = {format_duration(ms)}"


def amounts(problem: Problem, values: Sequence[int], units: Units, exact: bool) -> dict[str, str]:
    found = {}
    for resource, value in zip(problem.resources, values, strict=True):
        if value == UNLIMITED:
            found[resource] = "unlimited" if not exact else "-1"
        elif resource == "weight":
            found[resource] = str(value)
        else:
            found[resource] = units.data(resource, value) if exact else units.display(resource, value)
    return found


def _text(problem: Problem, values: Sequence[int], units: Units) -> str:
    shown = amounts(problem, values, units, exact=False)
    if tuple(shown) == ("weight",):
        return shown["weight"]
    return ", ".join(f"{k} {v}" for k, v in shown.items())


def evaluation_data(problem: Problem, evaluation: Evaluation, units: Units) -> dict[str, Any]:
    return {problem.field: amounts(problem, evaluation.values, units, exact=True), "met": evaluation.met,
            "measures": [{"condition": m.condition.text(), "met": m.met,
                          "valueMs": None if m.value is None else round(m.value),
                          "workloads": m.workloads, "notStarted": m.not_admitted} for m in evaluation.measures],
            "replayedMs": evaluation.end, "notes": list(evaluation.assumptions), "refused": evaluation.refused or None,
            **({"draws": draws_data(evaluation, lambda replay: evaluation_data(problem, replay, units))}
               if evaluation.draws else {})}


def known_within(result: PlanResult[Any], units: Units, exact: bool) -> dict[str, tuple[str, str]]:
    """When --budget ran out: per resource, the smallest value not yet known to miss, up to the answer."""
    assert result.answer is not None
    lowest = amounts(result.problem, result.lowest, units, exact)
    answer = amounts(result.problem, result.answer, units, exact)
    return {resource: (low, answer[resource]) for resource, low in lowest.items()}


def plan_data(result: PlanResult[Any], units: Units) -> dict[str, Any]:
    problem = result.problem
    at, below = result.proof()
    return {
        "for": {"kind": problem.kind, "name": problem.name, "field": problem.field},
        "target": " and ".join(c.text() for c in problem.target),
        "current": amounts(problem, problem.current, units, exact=True),
        "answer": None if result.answer is None else amounts(problem, result.answer, units, exact=True),
        "provenSmallest": result.answer is not None and result.proven,
        "knownWithin": None if result.answer is None or result.proven else
        {k: {"from": low, "to": high} for k, (low, high) in known_within(result, units, exact=True).items()},
        "cap": amounts(problem, result.cap, units, exact=True),
        "proof": {"atAnswer": None if at is None else evaluation_data(problem, at, units),
                  "belowAnswer": None if below is None else evaluation_data(problem, below, units)},
        "replays": [evaluation_data(problem, e, units) for e in sorted(result.evaluations, key=lambda e: e.values)],
        "assumptions": list(result.assumptions),
    }


def render_plan(result: PlanResult[Any], fmt: str, out: TextIO, workers: int, units: Units) -> None:
    from kqctl.render.console import write_prose
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, plan_data(result, units), fmt, rows="replays")
    else:
        from kqctl.render.console import terminal_width

        write_prose(out, text(result, workers, units, width=terminal_width(out)))


def text(result: PlanResult[Any], workers: int, units: Units, width: int | None = None) -> str:
    """The plan as text; ``width``: the terminal's, for the replays' measures to wrap in (None: piped)."""
    problem = result.problem
    target = " and ".join(c.text() for c in problem.target)
    lines = [f"Plan for {problem.kind} {problem.name} ({problem.field}): {target}", ""]
    if result.answer is None:
        lines.append(not_met_text(result, problem.field, _text(problem, result.cap, units)))
    else:
        lines.append(f"Answer: {problem.field} {_text(problem, result.answer, units)} "
                     f"(today: {_text(problem, problem.current, units)}).")
        at, below = result.proof()
        if at is not None:
            lines.append(f"  meets the target at the answer: {measured_text(at, measure_text)}")
            if at.draws:
                lines.append(f"    {draws_text(at)}")
        if below is not None:
            lines.append(f"  misses it at {_text(problem, below.values, units)}: {measured_text(below, measure_text)}")
            if below.draws and not below.refused:
                lines.append(f"    {draws_text(below)}")
        elif all(v == 0 for v in result.answer):
            lines.append(f"  (no {problem.field} at all is needed: the target is met with nothing)")
        if not result.proven:
            within = ", ".join(f"{k} {low} to {high}" for k, (low, high) in
                               known_within(result, units, exact=False).items())
            lines.append(f"  not proven smallest: --budget ran out after {len(result.evaluations)} replays; the "
                         f"smallest {problem.field} is known to lie within {within} (raise --budget to close in)")
    lines += ["", replays_heading(result, workers)]
    table = Table((Column(problem.field.capitalize()), Column("Target"), Column("Measured", wrap=True),
                   Column("Workloads", right=True)))
    for evaluation in sorted(result.evaluations, key=lambda e: e.values):
        table.add([_text(problem, evaluation.values, units), verdict_text(evaluation),
                   measured_text(evaluation, measure_text) or "-", f"{evaluation.workloads:,}"])
    lines += format_lines(table, width=width)
    if result.assumptions:
        lines.append("")
        lines += [f"Assumed: {note}" for note in result.assumptions]
    drawn = drawn_line(result)
    if drawn is not None:
        lines.append(drawn)
    return "\n".join(lines) + "\n"
