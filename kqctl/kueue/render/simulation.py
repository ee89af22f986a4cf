"""Simulation results as data (the json/yaml contract, see README "simulate -o json") and as tables."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine import outcomes
from kqctl.kueue.engine.lending import lent_by_cluster_queue
from kqctl.kueue.engine.outcomes import ADMITTED, INADMISSIBLE, PENDING, PREEMPTED, RESERVED, WAITING
from kqctl.kueue.engine.simulation import SimulationResult, WorkloadOutcome
from kqctl.kueue.engine.workloads import Admission, WorkloadInfo
from kqctl.render.columns import Column, Table, TableOptions
from kqctl.render.units import human


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


# Stable decision tokens of the json/yaml contract; ``decisionText`` carries the words shown in tables.
DECISION_TOKENS = {
    outcomes.HELD_INACTIVE: "AdmittedInInactiveClusterQueue",
    ADMITTED: "Admitted",
    RESERVED: "QuotaReserved",
    PREEMPTED: "Preempted",
    WAITING: "WaitingForPreemption",
    PENDING: "Pending",
    INADMISSIBLE: "Inadmissible",
    outcomes.NOT_QUEUED: "NotQueued",
}


def decision_token(text: str) -> str:
    """The stable token of a decision's display text (``Preempted (pending)`` -> ``Preempted``)."""
    for prefix, token in DECISION_TOKENS.items():  # HELD_INACTIVE first: it starts with "Admitted"
        if text.startswith(prefix):
            return token
    raise ValueError(f"decision {text!r} has no token")


def workload_details(outcome: WorkloadOutcome, result: SimulationResult) -> dict[str, Any]:
    """One workload's entry; every entry has the same keys (null or empty where they do not apply)."""
    entry = outcome.last_entry
    workload = outcome.workload
    decided = decision(outcome, result)
    details: dict[str, Any] = {
        "decision": decision_token(decided),
        "decisionText": decision_text(outcome, decided),
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
    details["preemptionMessage"] = outcome.preemption_message or None
    admitted = workload.admission is not None
    details["admission"] = admission_data(workload.admission) if workload.admission is not None else None
    details["borrowed"] = borrowed(outcome, result) if admitted else {}
    return details


def borrowed(outcome: WorkloadOutcome, result: SimulationResult) -> dict[str, str]:
    """The part of a ClusterQueue's borrowing (Q-7) charged to this workload, per flavor/resource.

    Kueue tracks borrowing per ClusterQueue only. kqctl charges it to the workloads whose admission
    went above nominal: the most recently admitted first, as they are the ones that borrowed.
    """
    return {f"{flavor}/{resource}": format_resource_value(resource, share)
            for (flavor, resource), share in sorted(borrowed_amounts(outcome, result).items())}


def borrowed_amounts(outcome: WorkloadOutcome, result: SimulationResult) -> dict[FlavorResource, int]:
    """:func:`borrowed` as exact integers per (flavor, resource)."""
    workload = outcome.workload
    assert workload.admission is not None
    state = result.cache.cluster_queues.get(workload.admission.cluster_queue)
    if state is None:
        return {}
    holders = sorted(state.workloads.values(), key=lambda w: _admission_order(w, result), reverse=True)
    amounts: dict[FlavorResource, int] = {}
    for fr in sorted(workload.usage()):
        over = state.usage(fr) - state.nominal(fr)
        for holder in holders:
            if over <= 0:
                break
            share = min(holder.usage().get(fr, 0), over)
            if holder is workload and share > 0:
                amounts[fr] = share
            over -= share
    return amounts


def _admission_order(workload: WorkloadInfo, result: SimulationResult) -> tuple[int, float, str]:
    """Admitted by the simulation (later cycles later) after anything admitted in the snapshot."""
    outcome = result.outcomes.get(workload.key)
    cycle = outcome.admitted_in if outcome is not None and outcome.admitted_in is not None else 0
    reserved = workload.reservation_time
    return (cycle, reserved.timestamp() if reserved is not None else float("-inf"), workload.key)


def render_simulation(result: SimulationResult, fmt: str, out: TextIO, namespace: str | None = None,
                      selector: str | None = None, color: str = "auto",
                      table: TableOptions | None = None) -> None:
    """Render in ``table``, ``wide``, ``name``, ``json`` or ``yaml``; filters apply to every format.

    Machine formats (json, yaml, name) always hold every workload; only tables are limited.
    """
    from kqctl.render.structured import dump_json, dump_yaml

    keep = workload_filter(namespace, selector)
    view = table or TableOptions(color=color)
    if fmt in ("json", "yaml"):
        data = contract(result, keep)
        out.write(dump_json(data) if fmt == "json" else dump_yaml(data))
    elif fmt == "name":
        for _, outcome in sorted(result.outcomes.items()):
            if keep(outcome):
                out.write(f"workload.kueue.x-k8s.io/{outcome.workload.model.name}\n")
    elif fmt in ("table", "wide"):
        render_tables(result, out, keep, replace(view, wide=view.wide or fmt == "wide"))
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, wide, name, json, yaml")


def workload_filter(namespace: str | None, selector: str | None) -> Callable[[WorkloadOutcome], bool]:
    """-n and -l as kubectl applies them, to the workloads shown."""
    from kqctl.k8s.selectors import parse_label_selector, selector_matches

    parsed = parse_label_selector(selector) if selector else None

    def keep(outcome: WorkloadOutcome) -> bool:
        model = outcome.workload.model
        if namespace is not None and model.namespace != namespace:
            return False
        return parsed is None or selector_matches(parsed, dict(model.labels))

    return keep


def render_tables(result: SimulationResult, out: TextIO, keep: Callable[[WorkloadOutcome], bool],
                  view: TableOptions) -> None:
    """Two kubectl-style tables (ClusterQueues, then workloads), Kueue's reasons, and a summary line."""
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color

    paint = rich_painter(use_color(out, view.color))
    workloads = workload_table(result, keep)
    sort_rows(workloads, view.sort_by)
    if not view.headers:
        # Rows only, for scripts: the workload table alone (two header-less tables could not be told
        # apart), and nothing else on stdout.
        _write_table(out, workloads, view, None, "workloads")
        return
    queues = queue_table(result)
    _write_table(out, queues, view, paint, "ClusterQueue rows")
    out.write("\n")
    kept = _write_table(out, workloads, view, paint, "workloads")
    _write_reasons(out, result, [row[0] for row in workloads.rows[:kept]], paint)  # column 0: the key
    out.write("\n" + _summary_line(result) + "\n")
    if any(state.model.cohort for state in result.cache.cluster_queues.values()):
        out.write(LENT_NOTE + "\n")
    if result.livelock is not None:
        out.write(f"Livelock in cycles {result.livelock.cycles[0]}-{result.livelock.cycles[1]}: "
                  f"{', '.join(result.livelock.workloads)} keep trading places (Kueue never settles here).\n")
    for warning in result.warnings:
        out.write(f"warning: {warning}\n")


_SUMMARY_WORDS = {"Admitted": "admitted", "AdmittedInInactiveClusterQueue": "admitted in an inactive ClusterQueue",
                  "QuotaReserved": "quota reserved", "Preempted": "preempted",
                  "WaitingForPreemption": "waiting for preemption", "Pending": "pending",
                  "Inadmissible": "inadmissible", "NotQueued": "not queued"}


def _summary_line(result: SimulationResult) -> str:
    tokens = [decision_token(decision(o, result)) for o in result.outcomes.values()]
    parts = [f"{tokens.count(token):,} {words}" for token, words in _SUMMARY_WORDS.items() if token in tokens]
    stop = {"steady": "steady state", "cycles": "cycle limit given", "limit": "200-cycle limit",
            "livelock": "livelock"}[result.stop_reason]
    mode = "fair sharing" if result.fair_sharing else "classical"
    return f"{result.cycles} cycle(s), {stop}, {mode} ordering: " + (", ".join(parts) or "no workloads")


def _write_table(out: TextIO, table: Table, view: TableOptions, paint: Callable[[str, str], str] | None,
                 what: str) -> int:
    """Write at most ``view.limit`` rows and say how many were left out; returns the rows written."""
    from kqctl.render.columns import format_lines

    total = len(table.rows)
    limit = total if view.limit is None else min(view.limit, total)
    rows, styles = table.rows, table.styles
    table.rows, table.styles = rows[:limit], styles[:limit]
    for line in format_lines(table, wide=view.wide, headers=view.headers, paint=paint):
        out.write(line + "\n")
    table.rows, table.styles = rows, styles
    if limit < total:
        # With --no-headers stdout holds rows only (for scripts); the note goes to stderr.
        (out if view.headers else sys.stderr).write(
            f"... {total - limit:,} more {what} not shown (first {limit:,} of {total:,}; --limit N or --show-all "
            "for more, -o json for everything)\n")
    return limit


LENT_NOTE = ("LENT: kqctl's attribution of the cohort's borrowing to the lenders' unused quota; "
             "Kueue does not report it.")

_QUEUE_COLUMNS = (
    Column("ClusterQueue"), Column("Cohort"), Column("Flavor"), Column("Resource"),
    Column("Nominal", right=True, sort_key=None), Column("Borrow limit", right=True),
    Column("Lend limit", right=True), Column("Used", right=True), Column("Borrowed", right=True),
    Column("Lent", right=True), Column("Pending", right=True), Column("Status", wide=True),
)


def queue_table(result: SimulationResult) -> Table:
    """One row per ClusterQueue, flavor and resource; every row names its ClusterQueue (grep-able)."""
    table = Table(_QUEUE_COLUMNS)
    lent = lent_by_cluster_queue(result.cache)
    for name, state in sorted(result.cache.cluster_queues.items()):
        queue = result.queues.get(name)
        pending = str(len(queue) if queue is not None else 0)
        cohort = state.model.cohort or "-"
        status = "Active" if state.active else f"Inactive: {state.inactive_reason}"
        status_style = None if state.active else "red"
        if not state.node.quotas:
            table.add([name, cohort, "-", "-", "-", "-", "-", "-", "-", "-", pending, status],
                      [None] * 11 + [status_style])
        for (flavor, resource), limits in sorted(state.node.quotas.items()):
            fr = (flavor, resource)
            used = state.usage(fr)
            table.add([name, cohort, flavor, resource, human(resource, limits.nominal),
                       human(resource, limits.borrowing_limit), human(resource, limits.lending_limit),
                       human(resource, used), human(resource, max(0, used - limits.nominal)),
                       human(resource, lent.get(name, {}).get(fr, 0)), pending, status],
                      [None] * 11 + [status_style])
    return table


_WORKLOAD_COLUMNS = (
    Column("Workload"), Column("LocalQueue", wide=True), Column("ClusterQueue"),
    Column("Priority", right=True, wide=True, sort_key=lambda cell: int(cell) if cell.lstrip("-").isdigit() else cell),
    Column("Cycle", right=True, wide=True, sort_key=lambda cell: int(cell) if cell.isdigit() else cell),
    Column("Decision"), Column("Flavors"), Column("Borrowed"), Column("Preemption"),
    Column("Victims", wide=True), Column("Preemption reason", wide=True), Column("Reason"),
)


def workload_table(result: SimulationResult, keep: Callable[[WorkloadOutcome], bool]) -> Table:
    """One row per workload (its key first), admitted first."""
    table = Table(_WORKLOAD_COLUMNS)
    for key, outcome in sorted(result.outcomes.items(), key=lambda kv: _row_order(kv[1], result)):
        if not keep(outcome):
            continue
        details = workload_details(outcome, result)
        cycle = outcome.admitted_in or outcome.preempted_in
        text = details["decisionText"]
        row = [key, outcome.local_queue.split("/", 1)[1] if outcome.local_queue else "-",
               outcome.cluster_queue or "-", str(outcome.workload.priority),
               str(cycle) if cycle is not None else "-", text, _flavors_text(outcome),
               _borrowed_text(outcome, result), _preemption_text(details), ", ".join(details["victims"]) or "-",
               details["preemptionReason"] or "-", _reason_token(details)]
        table.add(row, [None] * 5 + [_decision_style(text)] + [None] * 6)
    return table


def _borrowed_text(outcome: WorkloadOutcome, result: SimulationResult) -> str:
    if outcome.workload.admission is None:
        return "-"
    amounts = borrowed_amounts(outcome, result)
    return ", ".join(f"{resource} {human(resource, value)}" for (_, resource), value in sorted(amounts.items())) \
        or "-"


def decision_text(outcome: WorkloadOutcome, decided: str) -> str:
    """The decision as shown: partial admission says how many pods got in, e.g. ``Admitted (4/8 pods)``."""
    admission = outcome.workload.admission
    if decided != ADMITTED or admission is None:
        return decided
    wanted = sum(ps.spec_count for ps in outcome.workload.pod_sets)
    got = sum(ps.count for ps in admission.pod_sets)
    return f"{ADMITTED} ({got}/{wanted} pods)" if got < wanted else decided


_DECISION_ORDER = {ADMITTED: 0, RESERVED: 1, WAITING: 2, PREEMPTED: 3, PENDING: 4, INADMISSIBLE: 5}


def _row_order(outcome: WorkloadOutcome, result: SimulationResult) -> tuple[int, str, str]:
    state = decision(outcome, result).split(" (")[0]
    return _DECISION_ORDER.get(state, 5), outcome.cluster_queue or "", outcome.workload.key


def _decision_style(state: str) -> str | None:
    return {ADMITTED: "green", RESERVED: "cyan", PREEMPTED: "red", WAITING: "yellow",
            INADMISSIBLE: "magenta"}.get(state.split(" (")[0])


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
        # One flavor for every resource (the usual case) is just its name.
        text = next(iter(by_flavor)) if len(by_flavor) == 1 else ", ".join(
            f"{f} ({', '.join(rs)})" for f, rs in sorted(by_flavor.items()))
        parts.append(text if len(admission.pod_sets) == 1 else f"{ps.name}: {text}")
    return "; ".join(parts) or "-"


def _preemption_text(details: dict[str, Any]) -> str:
    """Short enough for 80 columns: who the victims are is in -o wide (VICTIMS) and -o json."""
    victims = details["victims"]
    if victims:
        return f"preempts {victims[0]}" if len(victims) == 1 else f"preempts {len(victims)}"
    if details["preemptedBy"]:
        return f"by {details['preemptedBy']}"
    return "-"


def _reason_token(details: dict[str, Any]) -> str:
    if details["decision"] == "Admitted":
        return "-"
    return details.get("reason") or "-"


def _write_reasons(out: TextIO, result: SimulationResult, keys: list[str],
                   paint: Callable[[str, str], str] | None) -> None:
    """Kueue's full message for every shown workload that did not get in, below the table."""
    lines = []
    for key in keys:
        outcome = result.outcomes[key]
        if outcome.workload.admission is not None:
            continue
        message = workload_details(outcome, result).get("message")
        if message:
            name = paint(key, "bold") if paint is not None else key
            lines.append(f"  {name}: {message}")
    if lines:
        out.write("\nWhy not admitted:\n" + "\n".join(lines) + "\n")
