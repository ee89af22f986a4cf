"""A plan's answer, with the replays that prove it: table, json or yaml."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.replay.plan import Evaluation, Measure, PlanResult, Values
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
from kqctl.replay.durations import format_duration


def measure_text(measure: Measure) -> str:
    condition = measure.condition
    if condition.statistic == "all":
        return "all admitted" if measure.met else f"{measure.not_admitted:,} of {measure.workloads:,} never admitted"
    if measure.value is None:
        return f"{measure.not_admitted:,} of {measure.workloads:,} never admitted"
    value = measure.value
    ms = round(value) if isinstance(value, Fraction) else value
    return f"{condition.statistic}({condition.metric}) = {format_duration(ms)}"


def quotas(result: PlanResult, values: Values) -> dict[str, str]:
    return {f"{flavor}/{resource}": format_resource_value(resource, value, quota_side=True)
            for (flavor, resource), value in zip(result.problem.resources, values, strict=True)}


def evaluation_data(result: PlanResult, evaluation: Evaluation) -> dict[str, Any]:
    data = {"nominalQuota": quotas(result, evaluation.values), "met": evaluation.met,
            "measures": [{"condition": m.condition.text(), "met": m.met,
                          "valueMs": None if m.value is None else round(m.value),
                          "workloads": m.workloads, "notAdmitted": m.not_admitted} for m in evaluation.measures],
            "replayedMs": evaluation.end, "refused": evaluation.refused or None}
    if evaluation.draws:
        data["draws"] = draws_data(evaluation, lambda replay: evaluation_data(result, replay))
    return data


def _measured(evaluation: Evaluation) -> str:
    return measured_text(evaluation, measure_text)


def plan_data(result: PlanResult) -> dict[str, Any]:
    problem = result.problem
    at, below = result.proof()
    return {
        "for": {"kind": problem.kind, "name": problem.name, "clusterQueues": list(problem.members)},
        "target": " and ".join(c.text() for c in problem.target),
        "current": quotas(result, problem.current),
        "answer": None if result.answer is None else quotas(result, result.answer),
        "provenSmallest": result.answer is not None and result.proven,
        "knownWithin": None if result.answer is None or result.proven else
        {k: {"from": low, "to": high} for (k, low), high in zip(quotas(result, result.lowest).items(),
                                                                  quotas(result, result.answer).values(), strict=True)},
        "cap": quotas(result, result.cap),
        "proof": {"atAnswer": None if at is None else evaluation_data(result, at),
                  "belowAnswer": None if below is None else evaluation_data(result, below)},
        "replays": [evaluation_data(result, e) for e in sorted(result.evaluations, key=lambda e: e.values)],
        "assumptions": list(result.assumptions),
    }


def render_plan(result: PlanResult, fmt: str, out: TextIO, workers: int) -> None:
    from kqctl.render.console import write_prose
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, plan_data(result), fmt, rows="replays")
    else:
        from kqctl.render.console import terminal_width

        write_prose(out, text(result, workers, wide=fmt == "wide", width=terminal_width(out)))


def _quota_text(result: PlanResult, values: Values) -> str:
    return ", ".join(f"{k} {v}" for k, v in quotas(result, values).items())


def text(result: PlanResult, workers: int, wide: bool = False, width: int | None = None) -> str:
    """The plan as text; ``wide`` (-o wide) adds the replays' workload counts; ``width``: the terminal's, for the
    replays' measures to wrap in (None: piped, nothing wraps)."""
    problem = result.problem
    members = f" ({', '.join(problem.members)})" if problem.kind == "Cohort" else ""
    target = " and ".join(c.text() for c in problem.target)
    lines = [f"Plan for {problem.kind} {problem.name}{members}: {target}", ""]
    if result.answer is None:
        lines.append(not_met_text(result, "quota", _quota_text(result, result.cap)))
    else:
        lines.append(f"Answer: nominalQuota {_quota_text(result, result.answer)} "
                     f"(today: {_quota_text(result, problem.current)}).")
        at, below = result.proof()
        if at is not None:
            lines.append(f"  meets the target at the answer: {_measured(at)}")
            if at.draws:
                lines.append(f"    {draws_text(at)}")
        if below is not None:
            lines.append(f"  misses it at {_quota_text(result, below.values)}: {_measured(below)}")
            if below.draws and not below.refused:
                lines.append(f"    {draws_text(below)}")
        elif result.answer and all(v == 0 for v in result.answer):
            lines.append("  (no quota at all is needed: the target is met with nothing)")
        if not result.proven:
            within = ", ".join(f"{k} {low} to {high}" for (k, low), high in
                               zip(quotas(result, result.lowest).items(), quotas(result, result.answer).values(),
                                   strict=True))
            lines.append(f"  not proven smallest: --budget ran out after {len(result.evaluations)} replays; the "
                         f"smallest quota is known to lie within {within} (raise --budget to close in)")
    lines += ["", replays_heading(result, workers)]
    table = Table((Column("Nominal quota"), Column("Target"), Column("Measured", wrap=True),
                   Column("Workloads", right=True, wide=True)))
    for evaluation in sorted(result.evaluations, key=lambda e: e.values):
        table.add([_quota_text(result, evaluation.values), verdict_text(evaluation), _measured(evaluation),
                   f"{evaluation.workloads:,}"])
    lines += format_lines(table, wide=wide, width=width)
    if result.assumptions:
        lines.append("")
        lines += [f"Assumed: {note}" for note in result.assumptions]
    drawn = drawn_line(result)
    if drawn is not None:
        lines.append(drawn)
    return "\n".join(lines) + "\n"
