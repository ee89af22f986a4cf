"""Simulation results as data (the json/yaml contract of ../shared/conformance/README.md) and as tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from kqctl.api.quantity import format_resource_value
from kqctl.engine import outcomes
from kqctl.engine.lending import lent_by_cluster_queue
from kqctl.engine.outcomes import ADMITTED, INADMISSIBLE, PENDING, PREEMPTED, RESERVED, WAITING
from kqctl.engine.simulation import SimulationResult, WorkloadOutcome
from kqctl.engine.workloads import Admission, WorkloadInfo


def admission_data(admission: Admission) -> dict[str, Any]:
    return {
        "clusterQueue": admission.cluster_queue,
        "podSetAssignments": [
            {
                "name": ps.name,
                "flavors": dict(sorted(ps.flavors.items())),
                "resourceUsage": {r: format_resource_value(r, v) for r, v in sorted(ps.usage.items())},
                "count": ps.count,
            }
            for ps in admission.pod_sets
        ],
    }


def decision(outcome: WorkloadOutcome, result: SimulationResult) -> str:
    return outcomes.decision(outcome, result.queues, result.cache)


def contract(result: SimulationResult, keep: Callable[[WorkloadOutcome], bool] | None = None) -> dict[str, Any]:
    """The keys the conformance cases compare, plus per-workload details (only workloads ``keep`` accepts)."""
    admitted: dict[str, Any] = {}
    held_inactive: list[str] = []
    newly: list[str] = []
    preempted: list[str] = []
    shown = {key for key, o in result.outcomes.items() if keep is None or keep(o)}
    for key, outcome in sorted(result.outcomes.items()):
        if key not in shown:
            continue
        workload = outcome.workload
        if workload.admission is not None and outcomes.in_inactive_cluster_queue(workload, result.cache):
            held_inactive.append(key)  # XO-1: outside Kueue's scheduling snapshot, so not in `admitted`
        elif workload.admission is not None:
            admitted[key] = admission_data(workload.admission)
            if outcome.admitted_in is not None:
                newly.append(key)
        if outcome.preempted_in is not None:
            preempted.append(key)
    pending = _queued(result, shown, inadmissible=False)
    inadmissible = _queued(result, shown, inadmissible=True)
    return {
        "cycles": result.cycles,
        "stopReason": result.stop_reason,
        "fairSharing": result.fair_sharing,
        "admitted": admitted,
        "admittedInInactiveClusterQueues": held_inactive,
        "newlyAdmitted": newly,
        "preempted": preempted,
        "pending": pending,
        "inadmissible": inadmissible,
        "clusterQueues": cluster_queue_usage(result),
        "workloads": {key: workload_details(o, result) for key, o in sorted(result.outcomes.items()) if key in shown},
        "livelock": None if result.livelock is None else {
            "cycles": list(result.livelock.cycles), "workloads": result.livelock.workloads},
        "warnings": result.warnings,
    }


def cluster_queue_usage(result: SimulationResult) -> dict[str, dict[str, dict[str, str]]]:
    """Per ClusterQueue and flavor/resource: nominal, used, borrowed and lent (see engine.lending)."""
    lent = lent_by_cluster_queue(result.cache)
    usage: dict[str, dict[str, dict[str, str]]] = {}
    for name, state in sorted(result.cache.cluster_queues.items()):
        usage[name] = {}
        for (flavor, resource), limits in sorted(state.node.quotas.items()):
            used = state.usage((flavor, resource))
            amounts = {"nominal": limits.nominal, "used": used, "borrowed": max(0, used - limits.nominal),
                       "lent": lent.get(name, {}).get((flavor, resource), 0)}
            usage[name][f"{flavor}/{resource}"] = {key: format_resource_value(resource, value, quota_side=True)
                                                   for key, value in amounts.items()}
    return usage


def _queued(result: SimulationResult, shown: set[str], inadmissible: bool) -> dict[str, list[str]]:
    queued: dict[str, list[str]] = {}
    for name, queue in sorted(result.queues.items()):
        keys = sorted(k for k in (queue.inadmissible if inadmissible else queue.active) if k in shown)
        if keys:
            queued[name] = keys
    return queued


def workload_details(outcome: WorkloadOutcome, result: SimulationResult) -> dict[str, Any]:
    entry = outcome.last_entry
    workload = outcome.workload
    details: dict[str, Any] = {
        "decision": decision(outcome, result),
        "localQueue": outcome.local_queue,
        "clusterQueue": outcome.cluster_queue,
        "priority": workload.priority,
        "admittedInCycle": outcome.admitted_in,
        "preemptedInCycle": outcome.preempted_in,
        "preemptedBy": outcome.preempted_by,
        "preemptionReason": outcome.preemption_reason,
        "victims": sorted(set(outcome.victims)),
        "reason": entry.reason if entry is not None else outcome.queue_reason,
        "message": entry.message if entry is not None else outcome.queue_message,
    }
    if workload.admission is None and outcome.preempted_in is not None and entry is not None \
            and entry.reason == "QuotaReserved":
        # Admitted in its last cycle as a head, then preempted: the preemption is the news.
        details["reason"], details["message"] = "Preempted", outcome.preemption_message
    if outcome.preemption_message:
        details["preemptionMessage"] = outcome.preemption_message
    if workload.admission is not None:
        details["admission"] = admission_data(workload.admission)
        details["borrowed"] = borrowed(outcome, result)
    return details


def borrowed(outcome: WorkloadOutcome, result: SimulationResult) -> dict[str, str]:
    """The part of a ClusterQueue's borrowing (Q-7) charged to this workload, per flavor/resource.

    Kueue tracks borrowing per ClusterQueue only. kqctl charges it to the workloads whose admission
    went above nominal: the most recently admitted first, as they are the ones that borrowed.
    """
    workload = outcome.workload
    assert workload.admission is not None
    state = result.cache.cluster_queues.get(workload.admission.cluster_queue)
    if state is None:
        return {}
    holders = sorted(state.workloads.values(), key=lambda w: _admission_order(w, result), reverse=True)
    amounts: dict[str, str] = {}
    for fr in sorted(workload.usage()):
        over = state.usage(fr) - state.nominal(fr)
        for holder in holders:
            if over <= 0:
                break
            share = min(holder.usage().get(fr, 0), over)
            if holder is workload and share > 0:
                amounts[f"{fr[0]}/{fr[1]}"] = format_resource_value(fr[1], share)
            over -= share
    return amounts


def _admission_order(workload: WorkloadInfo, result: SimulationResult) -> tuple[int, float, str]:
    """Admitted by the simulation (later cycles later) after anything admitted in the snapshot."""
    outcome = result.outcomes.get(workload.key)
    cycle = outcome.admitted_in if outcome is not None and outcome.admitted_in is not None else 0
    reserved = workload.reservation_time
    return (cycle, reserved.timestamp() if reserved is not None else float("-inf"), workload.key)


def render_simulation(result: SimulationResult, fmt: str, out: TextIO, namespace: str | None = None,
                      selector: str | None = None, color: str = "auto") -> None:
    """Render in ``table`` (rich), ``wide``, ``json`` or ``yaml``; filters apply to every format."""
    from kqctl.render.structured import dump_json, dump_yaml

    keep = workload_filter(namespace, selector)
    if fmt in ("json", "yaml"):
        data = contract(result, keep)
        out.write(dump_json(data) if fmt == "json" else dump_yaml(data))
    elif fmt in ("table", "wide"):
        render_tables(result, out, keep, wide=fmt == "wide", color=color)
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, wide, json, yaml")


def workload_filter(namespace: str | None, selector: str | None) -> Callable[[WorkloadOutcome], bool]:
    """-n and -l as kubectl applies them, to the workloads shown."""
    from kqctl.api.selectors import parse_label_selector, selector_matches

    parsed = parse_label_selector(selector) if selector else None

    def keep(outcome: WorkloadOutcome) -> bool:
        model = outcome.workload.model
        if namespace is not None and model.namespace != namespace:
            return False
        return parsed is None or selector_matches(parsed, dict(model.labels))

    return keep


def render_tables(result: SimulationResult, out: TextIO, keep: Callable[[WorkloadOutcome], bool], wide: bool,
                  color: str) -> None:
    from rich.table import Table

    from kqctl.render.console import make_console

    console = make_console(out, color)
    console.print(_queue_table(result, Table))
    console.print(_workload_table(result, Table, keep, wide))
    _print_reasons(console, result, keep)
    console.print(_summary_line(result), soft_wrap=True)
    if result.livelock is not None:
        console.print(f"[bold red]Livelock[/] in cycles {result.livelock.cycles[0]}-{result.livelock.cycles[1]}: "
                      f"{', '.join(result.livelock.workloads)} keep trading places (Kueue never settles here).",
                      soft_wrap=True)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}", soft_wrap=True, markup=True, highlight=False)


def _summary_line(result: SimulationResult) -> str:
    decisions = [decision(o, result) for o in result.outcomes.values()]
    counts = {name: sum(1 for d in decisions if d.startswith(name))
              for name in (ADMITTED, RESERVED, PREEMPTED, WAITING, PENDING, INADMISSIBLE)}
    parts = [f"{n} {name.lower()}" for name, n in counts.items() if n]
    stop = {"steady": "steady state", "cycles": "cycle limit given", "limit": "200-cycle limit",
            "livelock": "livelock"}[result.stop_reason]
    mode = "fair sharing" if result.fair_sharing else "classical"
    return f"{result.cycles} cycle(s), {stop}, {mode} ordering: " + (", ".join(parts) or "no workloads")


def _queue_table(result: SimulationResult, table_type: Any) -> Any:
    table = table_type(title="ClusterQueues", title_justify="left", show_lines=False)
    for column in ("ClusterQueue", "Cohort", "Flavor/Resource", "Nominal", "Borrowing limit", "Lending limit",
                   "Used", "Borrowed", "Lent", "Pending"):
        table.add_column(column, justify="right" if column in ("Nominal", "Used", "Borrowed", "Lent", "Pending")
                         else "left")
    lent = lent_by_cluster_queue(result.cache)
    for name, state in sorted(result.cache.cluster_queues.items()):
        queue = result.queues.get(name)
        pending = len(queue) if queue is not None else 0
        first = True
        for (flavor, resource), limits in sorted(state.node.quotas.items()):
            fr = (flavor, resource)
            used = state.usage(fr)
            table.add_row(
                name if first else "", (state.model.cohort or "-") if first else "", f"{flavor}/{resource}",
                _q(resource, limits.nominal), _q(resource, limits.borrowing_limit), _q(resource, limits.lending_limit),
                _q(resource, used), _q(resource, max(0, used - limits.nominal)) if used > limits.nominal else "0",
                _q(resource, lent.get(name, {}).get(fr, 0)), str(pending) if first else "")
            first = False
        if first:
            table.add_row(name, state.model.cohort or "-", "-", "-", "-", "-", "-", "-", "-", str(pending))
        if not state.active:
            table.add_row("", "", f"[red]inactive: {state.inactive_reason}[/]", "", "", "", "", "", "", "")
    return table


def _q(resource: str, value: int | None) -> str:
    if value is None:
        return "-"
    return format_resource_value(resource, value, quota_side=True)


def _workload_table(result: SimulationResult, table_type: Any, keep: Callable[[WorkloadOutcome], bool],
                    wide: bool) -> Any:
    table = table_type(title="Workloads", title_justify="left")
    columns = ["Workload", "Queue", "Decision", "Flavors", "Borrowed", "Preemption", "Reason"]
    if wide:
        columns[2:2] = ["Priority", "Cycle"]
    for column in columns:
        table.add_column(column, overflow="fold")
    for key, outcome in sorted(result.outcomes.items(), key=lambda kv: _row_order(kv[1], result)):
        if not keep(outcome):
            continue
        details = workload_details(outcome, result)
        row = [key, _queue_text(outcome), _decision_text(details["decision"]), _flavors_text(outcome),
               ", ".join(f"{k.split('/', 1)[1]} {v}" for k, v in details.get("borrowed", {}).items()) or "-",
               _preemption_text(details), _reason_token(details)]
        if wide:
            cycle = outcome.admitted_in or outcome.preempted_in
            row[2:2] = [str(outcome.workload.priority), str(cycle) if cycle is not None else "-"]
        table.add_row(*row)
    return table


_DECISION_ORDER = {ADMITTED: 0, RESERVED: 1, WAITING: 2, PREEMPTED: 3, PENDING: 4, INADMISSIBLE: 5}


def _row_order(outcome: WorkloadOutcome, result: SimulationResult) -> tuple[int, str, str]:
    state = decision(outcome, result).split(" (")[0]
    return _DECISION_ORDER.get(state, 5), outcome.cluster_queue or "", outcome.workload.key


def _queue_text(outcome: WorkloadOutcome) -> str:
    lq = outcome.local_queue.split("/", 1)[1] if outcome.local_queue else "-"
    return f"{lq} -> {outcome.cluster_queue}" if outcome.cluster_queue else lq


def _decision_text(state: str) -> str:
    style = {ADMITTED: "green", RESERVED: "cyan", PREEMPTED: "red", WAITING: "yellow",
             INADMISSIBLE: "magenta"}.get(state.split(" (")[0])
    return f"[{style}]{state}[/]" if style else state


def _flavors_text(outcome: WorkloadOutcome) -> str:
    """``spot (cpu, memory)``: resources grouped by the flavor they got, per pod set."""
    admission = outcome.workload.admission
    if admission is None:
        return "-"
    parts = []
    for ps in admission.pod_sets:
        by_flavor: dict[str, list[str]] = {}
        for resource, flavor in sorted(ps.flavors.items()):
            by_flavor.setdefault(flavor, []).append(resource)
        text = ", ".join(f"{f} ({', '.join(rs)})" for f, rs in sorted(by_flavor.items()))
        parts.append(text if len(admission.pod_sets) == 1 else f"{ps.name}: {text}")
    return "; ".join(parts) or "-"


def _preemption_text(details: dict[str, Any]) -> str:
    if details["victims"]:
        return "preempts " + ", ".join(details["victims"])
    if details["preemptedBy"]:
        return f"preempted by {details['preemptedBy']} ({details['preemptionReason']})"
    return "-"


def _reason_token(details: dict[str, Any]) -> str:
    if details["decision"] == ADMITTED:
        return "-"
    return details.get("reason") or "-"


def _print_reasons(console: Any, result: SimulationResult, keep: Callable[[WorkloadOutcome], bool]) -> None:
    """Kueue's full message for every workload that did not get in, below the table."""
    lines = []
    for key, outcome in sorted(result.outcomes.items(), key=lambda kv: _row_order(kv[1], result)):
        if not keep(outcome) or outcome.workload.admission is not None:
            continue
        details = workload_details(outcome, result)
        if details.get("message"):
            lines.append(f"  [bold]{key}[/]: {_escape(details['message'])}")
    if lines:
        console.print("Why not admitted:", soft_wrap=True)
        for line in lines:
            console.print(line, soft_wrap=True, highlight=False)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
