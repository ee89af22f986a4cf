"""``kqctl explain`` output: the recorded contract keys (the nomination now) plus the reasoning.

The table leads with the steady-state answer and shows the arithmetic of that same state, so
nothing below the headline contradicts it; json/yaml carry both states (``steadyStateAnalysis``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.engine.explain import (
    Analysis,
    AssignmentReport,
    CohortLevel,
    Decision,
    Default,
    Explanation,
    FlavorAttempt,
    FlavorReport,
    ResourceCheck,
)
from kqctl.kueue.engine.flavors.assignment import NO_FIT, PREEMPT
from kqctl.kueue.replay.estimate import WaitEstimate
from kqctl.render.units import human, human_figure, human_request, settable

NO_WRAP_WIDTH = 100_000
LISTED = 10  # rows of "Ahead of it" and "Preemption" shown; json and yaml list every one


def explanation_data(explanation: Explanation) -> dict[str, Any]:
    assignment = explanation.now.assignment
    data: dict[str, Any] = {
        "workload": explanation.key,
        "localQueue": explanation.local_queue,
        "clusterQueue": explanation.cluster_queue,
        "priority": explanation.priority,
        "admitted": explanation.admitted,
        "queueProblem": None if explanation.now.queue_problem is None else {
            "reason": explanation.now.queue_problem[0], "message": explanation.now.queue_problem[1]},
    }
    data.update(_assignment_data(assignment, explanation))
    data["nextCycle"] = _decision_data(explanation.next_cycle)
    data["steadyState"] = _decision_data(explanation.steady_state)
    data.update(_reasoning_data(explanation.now))
    data["steadyStateAnalysis"] = _analysis_data(explanation.steady, explanation)
    data["suggestions"] = [{"kind": s.kind, "summary": s.summary, "verified": s.verified, **s.details}
                           for s in explanation.suggestions]
    data["defaults"] = [{"object": d.object, "field": d.field, "value": d.value, "text": default_sentence(d)}
                        for d in explanation.defaults]
    return data


def default_sentence(default: Default) -> str:
    """DEF-1 in words: "queueingStrategy is not set in the file; the API server stores BestEffortFIFO"."""
    return f"{default.name} is not set in the file; the API server stores {_stored_value(default.value)}"


def _stored_value(value: Any, prefix: str = "") -> str:
    if isinstance(value, dict):
        parts = [_stored_value(item, f"{prefix}{key}.") if isinstance(item, dict) else
                 f"{prefix}{key}: {_stored_value(item)}" for key, item in value.items()]
        return ", ".join(parts) if parts else "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _analysis_data(analysis: Analysis | None, explanation: Explanation) -> dict[str, Any] | None:
    """The steady state's arithmetic, in the shape of the top-level (nomination now) keys."""
    if analysis is None:
        return None
    data: dict[str, Any] = {
        "queueProblem": None if analysis.queue_problem is None else {
            "reason": analysis.queue_problem[0], "message": analysis.queue_problem[1]},
        "preemptionAllowed": analysis.preemption_allowed,
        "noPreemption": analysis.no_preemption,
        "notRetried": analysis.not_retried,
    }
    if analysis.assignment is not None:
        data.update(_assignment_data(analysis.assignment, explanation))
    data.update(_reasoning_data(analysis))
    return data


def _reasoning_data(state: Analysis) -> dict[str, Any]:
    """Position in the queue, preemption and flavor checks, for the nomination now or the steady state."""
    return {
        "position": {"ahead": [{"workload": a.key, "priority": a.priority, "queuedAt": a.queued_at.isoformat(),
                                "why": a.why} for a in state.ahead], "blockedBy": state.blocked_by},
        "preemption": {
            "targets": [{"workload": t.workload, "clusterQueue": t.cluster_queue, "reason": t.reason}
                        for t in state.targets],
            "candidates": [{"workload": c.key, "clusterQueue": c.cluster_queue, "priority": c.priority,
                            "verdict": c.verdict} for c in state.candidates],
        },
        "flavorChecks": [_flavor_report_data(r) for r in state.flavors],
    }


def _assignment_data(assignment: AssignmentReport | None, explanation: Explanation) -> dict[str, Any]:
    if assignment is None:
        message = explanation.now.queue_problem[1] if explanation.now.queue_problem else ""
        return {"representativeMode": None if explanation.admitted else NO_FIT, "borrowing": 0,
                "message": message, "noFitReason": None, "podSets": []}
    return {
        "representativeMode": assignment.mode,
        "borrowing": assignment.borrowing,
        "message": assignment.message,
        "noFitReason": assignment.no_fit_reason or None,
        "podSets": [{
            "name": ps.name,
            "count": ps.count,
            "requests": {r: format_resource_value(r, v) for r, v in sorted(ps.requests.items())},
            "flavors": {r: {"name": c.flavor, "mode": c.mode, "borrow": c.borrow, "triedFlavorIdx": c.tried_index}
                        for r, c in sorted(ps.flavors.items())},
            "representativeMode": ps.mode,
            "message": ps.message,
            "status": {"reasons": list(ps.reasons), "message": ps.message},
            "flavorAssignmentAttempts": [_attempt_data(a) for a in ps.attempts],
        } for ps in assignment.pod_sets],
    }


def _attempt_data(attempt: FlavorAttempt) -> dict[str, Any]:
    data: dict[str, Any] = {"flavor": attempt.flavor, "mode": attempt.mode, "borrow": attempt.borrow}
    if attempt.possibility is not None:
        data["preemptionPossibility"] = attempt.possibility
    if attempt.reasons:
        data["reasons"] = list(attempt.reasons)
    if attempt.no_fit_reason:
        data["noFitReason"] = attempt.no_fit_reason
    return data


def _decision_data(decision: Decision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {"state": decision.state, "decision": decision.decision, "decisionText": decision.text,
            "reason": decision.reason, "message": decision.message,
            "missing": {f"{flavor}/{resource}": format_resource_value(resource, amount, quota_side=True)
                        for (flavor, resource), amount in decision.missing.items()},
            "neverAdmitted": decision.never,
            "cycle": decision.cycle, "victims": list(decision.victims), "preemptedBy": decision.preempted_by,
            "cycleLimitReached": decision.cut_short}


def _flavor_report_data(report: FlavorReport) -> dict[str, Any]:
    return {"podSet": report.pod_set, "flavor": report.flavor, "tried": report.tried, "mode": report.mode,
            "borrow": report.borrow, "preemptionPossibility": report.possibility, "reasons": list(report.reasons),
            "note": report.note, "resources": [_check_data(c) for c in report.checks]}


def _check_data(check: ResourceCheck) -> dict[str, Any]:
    r = check.resource

    def q(value: int | None) -> str | None:
        return None if value is None else format_resource_value(r, value, quota_side=True)

    return {"resource": r, "requested": format_resource_value(r, check.requested),
            "previouslyAssigned": q(check.previously_assigned), "needed": q(check.needed),
            "nominalQuota": q(check.nominal), "usage": q(check.usage), "borrowingLimit": q(check.borrowing_limit),
            "lendingLimit": q(check.lending_limit), "available": q(check.available),
            "maximumCapacity": q(check.potential),
            "cohorts": [_level_data(r, level) for level in check.levels]}


def _level_data(resource: str, level: CohortLevel) -> dict[str, Any]:
    def q(value: int | None) -> str | None:
        return None if value is None else format_resource_value(resource, value, quota_side=True)

    return {"cohort": level.name, "subtreeQuota": q(level.subtree_quota), "usage": q(level.usage),
            "available": q(max(0, level.available)), "borrowingLimitTowardsIt": q(level.borrowing_limit),
            "lendingLimitTowardsIt": q(level.lending_limit)}


def render_no_workload(kind: str, key: str, reason: str, fmt: str, out: TextIO) -> None:
    """A Job or Pod Kueue turns into no Workload: there is no admission to explain, only why."""
    from kqctl.render.output import is_data_format, write_data

    data = {"workload": None, "submitted": {"kind": kind, "name": key}, "admitted": False,
            "noWorkloadReason": reason}
    if is_data_format(fmt):
        write_data(out, data, fmt)
    else:
        out.write(f"{kind} {key}: Kueue creates no Workload for it, so it is never queued or admitted.\n"
                  f"  why: {reason}\n")


def render_explanations(explanations: list[Explanation], fmt: str, out: TextIO, color: str = "auto",
                        estimates: Mapping[str, WaitEstimate] | None = None) -> None:
    """Several explanations (-l): one after another in a table, a list in json/yaml (none: nothing in a table,
    the cli says why on stderr)."""
    from kqctl.render.output import is_data_format, write_data

    estimates = estimates or {}
    if is_data_format(fmt):
        write_data(out, [with_estimate(explanation_data(e), estimates.get(e.key)) for e in explanations], fmt)
        return
    for index, explanation in enumerate(explanations):
        if index:
            out.write("\n")
        render_explanation(explanation, fmt, out, color, estimates.get(explanation.key))


def render_explanation(explanation: Explanation, fmt: str, out: TextIO, color: str = "auto",
                       estimate: WaitEstimate | None = None) -> None:
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, with_estimate(explanation_data(explanation), estimate), fmt)
    elif fmt in ("table", "wide"):  # the tree has no columns -o wide would add
        _render_tree(explanation, out, color, estimate)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, wide, json, yaml")


def with_estimate(data: dict[str, Any], estimate: WaitEstimate | None) -> dict[str, Any]:
    """``waitEstimate``: null for a workload that holds quota (or with --no-estimate)."""
    data["waitEstimate"] = None if estimate is None else {
        "admittedAfterMs": estimate.admitted_after, "finishedAfterMs": estimate.finished_after,
        "stateAtEnd": estimate.state, "replayedMs": estimate.replayed, "text": estimate.sentence(),
        "assumptions": list(estimate.assumptions)}
    return data


def _estimate_branch(tree: Any, estimate: WaitEstimate, escape: Any) -> None:
    branch = tree.add(f"[bold]Wait estimate[/]: {escape(estimate.sentence())}")
    branch.add("from a replay of the snapshot: running workloads finish after their runtimes, nothing new "
               "arrives, Kueue's cycles admit what then fits")
    for note in estimate.assumptions:
        branch.add(f"assumed: {escape(note)}")


def _render_tree(explanation: Explanation, out: TextIO, color: str, estimate: WaitEstimate | None = None) -> None:
    from rich.markup import escape as markup_escape
    from rich.tree import Tree

    from kqctl.render.columns import printable

    def escape(text: str) -> str:
        # Names are user input: neither rich markup nor a newline or terminal escape in them takes effect.
        return markup_escape(printable(text))

    from kqctl.render.console import make_console, terminal_width

    console = make_console(out, color)
    # Into a pipe lines are never wrapped (like kubectl describe); on a terminal rich wraps a branch's text at
    # spaces inside the branch, so the tree's gutter goes on beside it (a word longer than the line is not cut).
    console.width = terminal_width(out) or NO_WRAP_WIDTH
    title = f"[bold]{escape(explanation.key)}[/] (priority {explanation.priority})"
    route = f"LocalQueue {explanation.local_queue or '-'} → ClusterQueue {explanation.cluster_queue or '-'}"
    tree = Tree(f"{title}  {escape(route)}")
    steady, following = explanation.steady_state, explanation.next_cycle
    _decision_branch(tree, "Steady state", steady, escape)
    if following is not None and (steady is None or following.state != steady.state):
        _decision_branch(tree, "Next cycle (before the steady state)", following, escape, details=False)
    if estimate is not None:
        _estimate_branch(tree, estimate, escape)
    elif explanation.steady is not None and explanation.steady.queue_problem is not None:
        reason, message = explanation.steady.queue_problem
        tree.add(f"[bold]Wait estimate[/]: never while it is not queued ({escape(reason)}: {escape(message)})")
    analysis = explanation.steady
    if analysis is not None:
        _analysis_branches(tree, analysis, explanation, escape)
        _defaults_branch(tree, explanation, escape)
        _suggestion_branch(tree, explanation, escape)
    with console.capture() as captured:
        console.print(tree)
    # rich leaves the space it broke a line at: no line ends in blanks.
    out.write("\n".join(line.rstrip(" ") for line in captured.get().split("\n")))


def _defaults_branch(tree: Any, explanation: Explanation, escape: Any) -> None:
    """DEF-1: the ClusterQueue's policies the files leave out, as the API server stores (and kqctl simulated) them:
    a default can decide (queueingStrategy BestEffortFIFO keeps a preempting workload at the head of its queue)."""
    own = [d for d in explanation.defaults if d.object.startswith("ClusterQueue/")]
    if not own:
        return
    branch = tree.add(f"Defaults of ClusterQueue {escape(explanation.cluster_queue or '')} (simulated as the API server"
                      " stores them; --as-given reads the files as written)")
    for default in own:
        branch.add(escape(default_sentence(default)))


def _analysis_branches(tree: Any, analysis: Analysis, explanation: Explanation, escape: Any) -> None:
    if analysis.queue_problem is not None:
        reason, message = analysis.queue_problem
        tree.add(f"[red]Not considered for admission[/]: {escape(reason)}: {escape(message)}")
    if analysis.ahead:
        branch = tree.add(f"Ahead of it in ClusterQueue {escape(explanation.cluster_queue or '')}"
                          f" ({len(analysis.ahead)})")
        for entry in analysis.ahead[:LISTED]:
            branch.add(f"{escape(entry.key)}: {escape(entry.why)}")
        if len(analysis.ahead) > LISTED:
            branch.add(f"[dim]and {len(analysis.ahead) - LISTED:,} more (-o json lists them all)[/]")
        if analysis.blocked_by:
            branch.add(f"[yellow]StrictFIFO: it waits behind {escape(analysis.blocked_by)} even if it would fit[/]")
    if analysis.assignment is not None:
        _assignment_branch(tree, analysis, escape)
    if analysis.targets or analysis.candidates:
        branch = tree.add("Preemption")
        lines = [f"[red]victim[/] {escape(target.workload)} ({escape(target.reason)})" for target in analysis.targets]
        lines += [f"{escape(candidate.key)} in {escape(candidate.cluster_queue)}, priority"
                  f" {candidate.priority}: {escape(candidate.verdict)}" for candidate in analysis.candidates]
        for line in lines[:LISTED]:
            branch.add(line)
        if len(lines) > LISTED:
            branch.add(f"[dim]and {len(lines) - LISTED:,} more (-o json lists them all)[/]")
        if analysis.no_preemption is not None:
            branch.add(f"[yellow]{escape(analysis.no_preemption)}[/]")
    if analysis.not_retried is not None:
        tree.add(f"[yellow]Not tried again[/]: {escape(analysis.not_retried)}")


def _suggestion_branch(tree: Any, explanation: Explanation, escape: Any) -> None:
    if explanation.suggestions:
        checked = " (each checked by running the engine again)" if all(
            s.verified for s in explanation.suggestions) else ""
        branch = tree.add(f"[green]What would make it fit[/]{checked}")
        for suggestion in explanation.suggestions:
            branch.add(escape(suggestion_text(suggestion)))
    elif explanation.steady is not None and explanation.steady.queue_problem is not None:
        reason = explanation.steady.queue_problem[0]
        tree.add(f"[green]What would make it fit[/]: fix what keeps it out of the queue ({escape(reason)}, above)")
    else:
        branch = tree.add("[yellow]What would make it fit[/]: kqctl found no single change that gets it in; it tried")
        for tried in explanation.suggestions_tried:
            branch.add(escape(tried))


def suggestion_text(suggestion: Any) -> str:
    """The change and its amounts as exact quantities a person can set (never rounded: kqctl.k8s.units.settable);
    json keeps Kueue's own quantities."""
    if not suggestion.amounts or not suggestion.action:
        return str(suggestion.summary)
    if suggestion.kind == "nominal-quota":
        totals = suggestion.totals
        amounts = ", ".join(f"{r} by {settable(r, v)}" + (f" (to {settable(r, totals[r])})" if r in totals else "")
                            for r, v in suggestion.amounts.items())
        return f"{suggestion.action}: {amounts}" + (f" ({suggestion.note})" if suggestion.note else "")
    amounts = ", ".join(f"{r} {settable(r, v)}" for r, v in suggestion.amounts.items())
    return f"{suggestion.action}, freeing {amounts}"


def _decision_branch(tree: Any, label: str, decision: Decision | None, escape: Any, details: bool = True) -> None:
    if decision is None:
        return
    if decision.cut_short is not None:
        label = label.replace("Steady state", "End of the run")
    text = f"{label}: [bold]{escape(decision.text or decision.state)}[/]"
    if decision.cycle is not None:
        text += f" (cycle {decision.cycle})"
    if decision.victims:
        text += f", preempting {escape(', '.join(decision.victims))}"
    if decision.preempted_by:
        text += f", preempted by {escape(decision.preempted_by)}"
    if decision.reason and not decision.admitted and decision.reason != decision.state:
        text += f" — {escape(decision.reason)}"
    node = tree.add(text)
    if details and decision.message and not decision.admitted:
        node.add(escape(decision.message))
    if details and decision.never is not None and not decision.admitted:
        node.add("[red]it can never get in as configured[/] (whatever finishes): "
                 f"{escape(decision.never) if decision.never != decision.message else 'see above'}")
    if decision.cut_short is not None:
        node.add(f"[yellow]warning: {escape(decision.cut_short)}[/]")


def _mode_text(mode: str | None, analysis: Analysis) -> str:
    """Kueue's mode, except that "Preempt" is not offered as a way in when the ClusterQueue never preempts."""
    if mode == PREEMPT and not analysis.preemption_allowed:
        return "NoFit (it would need preemption, and every preemption policy of its ClusterQueue is Never)"
    allowed = any(c.verdict.startswith("allowed") for c in analysis.candidates)
    if mode == PREEMPT and analysis.candidates and not allowed:
        return "Preempt (but its policies allow preempting none of the workloads below)"
    return mode or NO_FIT


def _assignment_branch(tree: Any, analysis: Analysis, escape: Any) -> None:
    assignment = analysis.assignment
    assert assignment is not None
    mode = _mode_text(assignment.mode, analysis)
    heading = f"Flavor assignment in the steady state: [bold]{escape(mode)}[/]"
    if assignment.borrowing:
        heading += f", borrowing level {assignment.borrowing}"
    if assignment.no_fit_reason:
        heading += f", {escape(assignment.no_fit_reason)}"
    branch = tree.add(heading)
    for report in analysis.flavors:
        label = f"pod set {report.pod_set} · flavor {report.flavor}: "
        if report.tried:
            label += _mode_text(report.mode, analysis) + (f" (borrow {report.borrow})" if report.borrow else "")
            node = branch.add(escape(label) + f" [dim]{escape(report.note)}[/]")
        else:
            node = branch.add(escape(label) + f"[dim]{escape(report.note)}[/]")  # the note says "not tried: why"
        for reason in report.reasons:
            node.add(f"[yellow]{escape(reason)}[/]")
        for check in report.checks:
            node.add(escape(check_line(check)))


def check_line(check: ResourceCheck) -> str:
    """One resource's quota arithmetic, in human units."""
    r = check.resource

    def q(value: int | None) -> str:
        return human(r, value)

    def figure(value: int | None) -> str:  # computed amounts read rounded (kqctl.k8s.units)
        return human_figure(r, value)

    needed, requested = human_request(r, check.needed), human_request(r, check.requested)
    line = (f"{r}: needs {needed} (this pod set {requested}); nominal {q(check.nominal)}, used"
            f" {figure(check.usage)}, available {figure(max(0, check.available))}, at most {figure(check.potential)}")
    if check.borrowing_limit is not None:
        line += f", borrowingLimit {q(check.borrowing_limit)}"
    if check.lending_limit is not None:
        line += f", lendingLimit {q(check.lending_limit)}"
    for level in check.levels:
        line += f"; cohort {level.name}: quota {figure(level.subtree_quota)}, used {figure(level.usage)}," \
                f" can still give {figure(max(0, level.available))}"
    return line
