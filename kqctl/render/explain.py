"""``kqctl explain`` output: the contract keys of ../shared/conformance/README.md plus the reasoning."""

from __future__ import annotations

from typing import Any, TextIO

from kqctl.api.quantity import format_resource_value
from kqctl.engine.explain import CohortLevel, Decision, Explanation, FlavorReport, ResourceCheck
from kqctl.engine.flavors import NO_FIT, Assignment


def explanation_data(explanation: Explanation) -> dict[str, Any]:
    assignment = explanation.assignment
    data: dict[str, Any] = {
        "workload": explanation.key,
        "localQueue": explanation.local_queue,
        "clusterQueue": explanation.cluster_queue,
        "priority": explanation.priority,
        "admitted": explanation.admitted,
        "queueProblem": None if explanation.queue_problem is None else {
            "reason": explanation.queue_problem[0], "message": explanation.queue_problem[1]},
    }
    data.update(_assignment_data(assignment, explanation))
    data["nextCycle"] = _decision_data(explanation.next_cycle)
    data["steadyState"] = _decision_data(explanation.steady_state)
    data["position"] = {"ahead": [{"workload": a.key, "priority": a.priority, "queuedAt": a.queued_at.isoformat(),
                                   "why": a.why} for a in explanation.ahead],
                        "blockedBy": explanation.blocked_by}
    data["preemption"] = {
        "targets": [{"workload": t.workload.key, "clusterQueue": t.cluster_queue.name, "reason": t.reason}
                    for t in sorted(explanation.targets, key=lambda t: t.workload.key)],
        "candidates": [{"workload": c.key, "clusterQueue": c.cluster_queue, "priority": c.priority,
                        "verdict": c.verdict} for c in explanation.candidates],
    }
    data["flavorChecks"] = [_flavor_report_data(r) for r in explanation.flavors]
    data["suggestions"] = [{"kind": s.kind, "summary": s.summary, "verified": s.verified, **s.details}
                           for s in explanation.suggestions]
    return data


def _assignment_data(assignment: Assignment | None, explanation: Explanation) -> dict[str, Any]:
    if assignment is None:
        message = explanation.queue_problem[1] if explanation.queue_problem else ""
        return {"representativeMode": None if explanation.admitted else NO_FIT, "borrowing": 0,
                "message": message, "noFitReason": None, "podSets": []}
    return {
        "representativeMode": assignment.representative_mode(),
        "borrowing": assignment.borrowing,
        "message": assignment.message(),
        "noFitReason": assignment.no_fit_reason or None,
        "podSets": [{
            "name": ps.name,
            "count": ps.count,
            "requests": {r: format_resource_value(r, v) for r, v in sorted(ps.requests.items())},
            "flavors": {r: {"name": c.flavor, "mode": c.mode, "borrow": c.borrow, "triedFlavorIdx": c.tried_index}
                        for r, c in sorted(ps.flavors.items())},
            "representativeMode": ps.mode(),
            "message": ps.status.message(),
            "status": {"reasons": sorted(ps.status.reasons), "message": ps.status.message()},
            "flavorAssignmentAttempts": [_attempt_data(a) for a in ps.attempts],
        } for ps in assignment.pod_sets],
    }


def _attempt_data(attempt: Any) -> dict[str, Any]:
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
    return {"state": decision.state, "reason": decision.reason, "message": decision.message,
            "cycle": decision.cycle, "victims": list(decision.victims), "preemptedBy": decision.preempted_by}


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


def render_explanation(explanation: Explanation, fmt: str, out: TextIO, color: str = "auto") -> None:
    from kqctl.render.structured import dump_json, dump_yaml

    if fmt == "json":
        out.write(dump_json(explanation_data(explanation)))
    elif fmt == "yaml":
        out.write(dump_yaml(explanation_data(explanation)))
    elif fmt == "table":
        _render_tree(explanation, out, color)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, json, yaml")


def _render_tree(explanation: Explanation, out: TextIO, color: str) -> None:
    from rich.markup import escape
    from rich.tree import Tree

    from kqctl.render.console import make_console

    console = make_console(out, color)
    data = explanation_data(explanation)
    title = f"[bold]{escape(explanation.key)}[/] (priority {explanation.priority})"
    route = f"LocalQueue {explanation.local_queue or '-'} → ClusterQueue {explanation.cluster_queue or '-'}"
    tree = Tree(f"{title}  {escape(route)}")
    _decision_branch(tree, "Next cycle", explanation.next_cycle, escape)
    _decision_branch(tree, "Steady state", explanation.steady_state, escape)
    if explanation.queue_problem is not None:
        reason, message = explanation.queue_problem
        tree.add(f"[red]Not considered for admission[/]: {escape(reason)}: {escape(message)}")
    if explanation.ahead:
        branch = tree.add(f"Ahead of it in ClusterQueue {escape(explanation.cluster_queue or '')}"
                          f" ({len(explanation.ahead)})")
        for entry in explanation.ahead[:10]:
            branch.add(f"{escape(entry.key)}: {escape(entry.why)}")
        if explanation.blocked_by:
            branch.add(f"[yellow]StrictFIFO: it waits behind {escape(explanation.blocked_by)} even if it would fit[/]")
    if explanation.assignment is not None:
        _assignment_branch(tree, data, explanation, escape)
    if data["preemption"]["targets"] or data["preemption"]["candidates"]:
        branch = tree.add("Preemption")
        for target in data["preemption"]["targets"]:
            branch.add(f"[red]victim[/] {escape(target['workload'])} ({escape(target['reason'])})")
        for candidate in data["preemption"]["candidates"]:
            branch.add(f"{escape(candidate['workload'])} in {escape(candidate['clusterQueue'])}, priority"
                       f" {candidate['priority']}: {escape(candidate['verdict'])}")
    if explanation.suggestions:
        branch = tree.add("[green]What would make it fit[/] (each checked by running the engine again)")
        for suggestion in explanation.suggestions:
            branch.add(escape(suggestion.summary))
    console.print(tree)


def _decision_branch(tree: Any, label: str, decision: Decision | None, escape: Any) -> None:
    if decision is None:
        return
    text = f"{label}: [bold]{escape(decision.state)}[/]"
    if decision.cycle is not None:
        text += f" (cycle {decision.cycle})"
    if decision.victims:
        text += f", preempting {escape(', '.join(decision.victims))}"
    if decision.preempted_by:
        text += f", preempted by {escape(decision.preempted_by)}"
    if decision.reason and decision.state != "Admitted":
        text += f" — {escape(decision.reason)}"
    node = tree.add(text)
    if decision.message and decision.state != "Admitted":
        node.add(escape(decision.message))


def _assignment_branch(tree: Any, data: dict[str, Any], explanation: Explanation, escape: Any) -> None:
    mode = data["representativeMode"]
    branch = tree.add(f"Flavor assignment if nominated now: [bold]{mode}[/], borrowing level {data['borrowing']}"
                      + (f", {data['noFitReason']}" if data.get("noFitReason") else ""))
    for report in data["flavorChecks"]:
        label = f"pod set {report['podSet']} · flavor {report['flavor']}: "
        label += (f"{report['mode']}" + (f" (borrow {report['borrow']})" if report["borrow"] else "")
                  if report["tried"] else "not tried")
        node = branch.add(escape(label) + f" [dim]{escape(report['note'])}[/]")
        for reason in report["reasons"]:
            node.add(f"[yellow]{escape(reason)}[/]")
        for check in report["resources"]:
            node.add(escape(_check_line(check)))


def _check_line(check: dict[str, Any]) -> str:
    line = (f"{check['resource']}: needs {check['needed']} (this pod set {check['requested']}); nominal"
            f" {check['nominalQuota']}, used {check['usage']}, available {check['available']}, at most"
            f" {check['maximumCapacity']}")
    if check["borrowingLimit"] is not None:
        line += f", borrowingLimit {check['borrowingLimit']}"
    if check["lendingLimit"] is not None:
        line += f", lendingLimit {check['lendingLimit']}"
    for level in check["cohorts"]:
        line += f"; cohort {level['cohort']}: quota {level['subtreeQuota']}, used {level['usage']}," \
                f" can still give {level['available']}"
    return line
