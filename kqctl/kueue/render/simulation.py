"""Simulation results as data (the json/yaml contract, see README "simulate -o json") and as tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.engine.results import SimulationResult, WorkloadResult
from kqctl.kueue.engine.workloads import Admission, PodSetAdmission
from kqctl.render.columns import Column, Table, TableOptions, printable, write_limited
from kqctl.render.units import human, human_figure


def admission_data(admission: Admission) -> dict[str, Any]:
    return {
        "clusterQueue": admission.cluster_queue,
        "podSetAssignments": [pod_set_data(ps) for ps in admission.pod_sets],
    }


def pod_set_data(ps: PodSetAdmission) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": ps.name,
        "flavors": dict(sorted(ps.flavors.items())),
        "resourceUsage": {r: format_resource_value(r, v) for r, v in sorted(ps.usage.items())},
        "count": ps.count,
    }
    if ps.topology is not None:
        # TAS-6: where its pods go, in the shape of Kueue's tas.TopologyAssignment (levels, then one entry per
        # domain with its values from the first level down and its pod count)
        data["topologyAssignment"] = {
            "levels": list(ps.topology.levels),
            "domains": [{"values": list(d.values), "count": d.count} for d in ps.topology.domains],
        }
    return data


def contract(result: SimulationResult, keep: Callable[[WorkloadResult], bool] | None = None) -> dict[str, Any]:
    """The keys the conformance cases compare, plus per-workload details (only workloads ``keep`` accepts)."""
    admitted: dict[str, Any] = {}
    held_inactive: list[str] = []
    newly: list[str] = []
    preempted: list[str] = []
    shown = {key for key, w in result.workloads.items() if keep is None or keep(w)}
    for key, workload in sorted(result.workloads.items()):
        if key not in shown:
            continue
        if workload.admission is not None and workload.in_inactive_cluster_queue:
            held_inactive.append(key)  # XO-1: outside Kueue's scheduling snapshot, so not in `admitted`
        elif workload.admission is not None:
            admitted[key] = admission_data(workload.admission)
            if workload.admitted_in is not None:
                newly.append(key)
        if workload.preempted_in is not None:
            preempted.append(key)
    return {
        "cycles": result.cycles,
        "stopReason": result.stop_reason,
        "fairSharing": result.fair_sharing,
        "admitted": admitted,
        "admittedInInactiveClusterQueues": held_inactive,
        "newlyAdmitted": newly,
        "preempted": preempted,
        "pending": _queued(result, shown, inadmissible=False),
        "inadmissible": _queued(result, shown, inadmissible=True),
        "clusterQueues": cluster_queue_usage(result),
        "workloads": {key: workload_details(w) for key, w in sorted(result.workloads.items()) if key in shown},
        "livelock": None if result.livelock is None else {
            "cycles": list(result.livelock.cycles), "workloads": list(result.livelock.workloads)},
        "warnings": list(result.warnings),
    }


def cluster_queue_usage(result: SimulationResult) -> dict[str, dict[str, dict[str, str]]]:
    """Per ClusterQueue and flavor/resource: nominal, used, borrowed and lent (see engine.lending)."""
    usage: dict[str, dict[str, dict[str, str]]] = {}
    for name, queue in result.cluster_queues.items():
        usage[name] = {}
        for quota in queue.quotas:
            amounts = {"nominal": quota.nominal, "used": quota.used, "borrowed": quota.borrowed, "lent": quota.lent}
            usage[name][f"{quota.flavor}/{quota.resource}"] = {
                key: format_resource_value(quota.resource, value, quota_side=True) for key, value in amounts.items()}
    return usage


def _queued(result: SimulationResult, shown: set[str], inadmissible: bool) -> dict[str, list[str]]:
    queued: dict[str, list[str]] = {}
    for name, queue in result.cluster_queues.items():
        keys = [k for k in (queue.inadmissible if inadmissible else queue.pending) if k in shown]
        if keys:
            queued[name] = keys
    return queued


def workload_details(workload: WorkloadResult) -> dict[str, Any]:
    """One workload's entry; every entry has the same keys (null or empty where they do not apply)."""
    return {
        "decision": workload.decision,
        "decisionText": workload.decision_text,
        "localQueue": workload.local_queue,
        "clusterQueue": workload.cluster_queue,
        "priority": workload.priority,
        "admittedInCycle": workload.admitted_in,
        "preemptedInCycle": workload.preempted_in,
        "preemptedBy": workload.preempted_by,
        "preemptionReason": workload.preemption_reason,
        "victims": list(workload.victims),
        "reason": workload.reason,
        "message": workload.message,
        "preemptionMessage": workload.preemption_message,
        "admission": admission_data(workload.admission) if workload.admission is not None else None,
        "borrowed": {f"{flavor}/{resource}": format_resource_value(resource, amount)
                     for (flavor, resource), amount in workload.borrowed.items()},
        "missing": missing_data(workload),
        "neverAdmitted": workload.never,
        "blockedBy": workload.blocked_by,
    }


def missing_data(workload: WorkloadResult) -> dict[str, str]:
    """The unused quota it lacks at the end, per flavor/resource (the "N more needed" of its message), exact."""
    return {f"{flavor}/{resource}": format_resource_value(resource, amount, quota_side=True)
            for (flavor, resource), amount in workload.missing.items()}


def render_simulation(result: SimulationResult, fmt: str, out: TextIO, namespace: str | None = None,
                      selector: str | None = None, color: str = "auto",
                      table: TableOptions | None = None) -> None:
    """Render in ``table``, ``wide``, ``name``, ``json`` or ``yaml``; filters apply to every format.

    Machine formats (json, yaml, name) always hold every workload; only tables are limited.
    """
    from kqctl.render.output import is_data_format, write_data

    keep = workload_filter(namespace, selector)
    view = table or TableOptions(color=color)
    if is_data_format(fmt):
        write_data(out, contract(result, keep), fmt, rows="workloads", sort_by=view.sort_by, headers=view.headers)
    elif fmt == "name":
        for workload in result.workloads.values():
            if keep(workload):
                out.write(f"workload.kueue.x-k8s.io/{workload.name}\n")
    elif fmt in ("table", "wide"):
        render_tables(result, out, keep, replace(view, wide=view.wide or fmt == "wide"))
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, wide, name, json, yaml")


def workload_filter(namespace: str | None, selector: str | None) -> Callable[[WorkloadResult], bool]:
    """-n and -l as kubectl applies them, to the workloads shown."""
    from kqctl.k8s.selectors import parse_label_selector, selector_matches

    parsed = parse_label_selector(selector) if selector else None

    def keep(workload: WorkloadResult) -> bool:
        if namespace is not None and workload.namespace != namespace:
            return False
        return parsed is None or selector_matches(parsed, dict(workload.labels))

    return keep


def render_tables(result: SimulationResult, out: TextIO, keep: Callable[[WorkloadResult], bool],
                  view: TableOptions) -> None:
    """Two kubectl-style tables (ClusterQueues, then workloads), Kueue's reasons, and a summary line."""
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color, write_wrapped

    paint = rich_painter(use_color(out, view.color))
    workloads = workload_table(result, keep)
    sort_rows(workloads, view.sort_by)
    queues = queue_table(result, keep)
    write_limited(out, queues, view, paint, "ClusterQueue rows")
    out.write("\n")
    kept = write_limited(out, workloads, view, paint, "workloads")
    _write_reasons(out, result, [row[0] for row in workloads.rows[:kept]], paint)  # column 0: the key
    out.write("\n")
    write_wrapped(out, _summary_line(result))
    if any(queue.cohort for queue in result.cluster_queues.values()) and view.wide:
        write_wrapped(out, LENT_NOTE)
    if result.livelock is not None:
        write_wrapped(out, f"Livelock in cycles {result.livelock.cycles[0]}-{result.livelock.cycles[1]}: "
                      f"{', '.join(result.livelock.workloads)} keep trading places (Kueue never settles here).")
    for warning in result.warnings:
        write_wrapped(out, f"warning: {printable(warning)}")


_SUMMARY_WORDS = {"Admitted": "admitted", "AdmittedInInactiveClusterQueue": "admitted in an inactive ClusterQueue",
                  "QuotaReserved": "quota reserved", "Preempted": "preempted",
                  "WaitingForPreemption": "waiting for preemption", "Pending": "pending",
                  "Inadmissible": "inadmissible", "NotQueued": "not queued"}


def _summary_line(result: SimulationResult) -> str:
    tokens = [workload.decision for workload in result.workloads.values()]
    parts = [f"{tokens.count(token):,} {words}" for token, words in _SUMMARY_WORDS.items() if token in tokens]
    never = sum(1 for workload in result.workloads.values() if workload.never is not None)
    if never:
        parts.append(f"{never:,} of them can never get in as configured")
    stop = {"steady": "steady state", "cycles": "cycle limit given", "limit": "cycle limit reached, NOT a steady state",
            "livelock": "livelock"}[result.stop_reason]
    mode = "fair sharing" if result.fair_sharing else "classical"
    return f"{result.cycles} cycle(s), {stop}, {mode} ordering: " + (", ".join(parts) or "no workloads")



LENT_NOTE = ("LENT: kqctl's attribution of the cohort's borrowing to the lenders' unused quota; "
             "Kueue does not report it.")

# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_QUEUE_COLUMNS = (
    Column("ClusterQueue"), Column("Cohort", wide=True), Column("Flavor"), Column("Resource"),
    Column("Nominal", right=True, sort_key=None), Column("Borrow limit", right=True, wide=True),
    Column("Lend limit", right=True, wide=True), Column("Used", right=True), Column("Borrowed", right=True),
    Column("Lent", right=True, wide=True), Column("Pending workloads", right=True, wide=True),
    Column("Status", wide=True),
)


def queue_table(result: SimulationResult, keep: Callable[[WorkloadResult], bool] | None = None) -> Table:
    """One row per ClusterQueue, flavor and resource; every row names its ClusterQueue (grep-able). With a
    filter (-n, -l), only the ClusterQueues of the workloads it keeps."""
    table = Table(_QUEUE_COLUMNS)
    shown = None if keep is None or _keeps_all(result, keep) else {
        w.cluster_queue for w in result.workloads.values() if keep(w)}
    for name, queue in result.cluster_queues.items():
        if shown is not None and name not in shown:
            continue
        pending = str(queue.queued)
        cohort = queue.cohort or "-"
        status = "Active" if queue.active else f"Inactive: {queue.inactive_reason}"
        status_style = None if queue.active else "red"
        if not queue.quotas:
            table.add([name, cohort, "-", "-", "-", "-", "-", "-", "-", "-", pending, status],
                      [None] * 11 + [status_style])
        for quota in queue.quotas:
            resource = quota.resource
            table.add([name, cohort, quota.flavor, resource, human(resource, quota.nominal),
                       human(resource, quota.borrowing_limit), human(resource, quota.lending_limit),
                       human_figure(resource, quota.used), human_figure(resource, quota.borrowed),
                       human_figure(resource, quota.lent),
                       pending, status],
                      [None] * 11 + [status_style])
    return table


def _keeps_all(result: SimulationResult, keep: Callable[[WorkloadResult], bool]) -> bool:
    return all(keep(w) for w in result.workloads.values())


def _number_key(cell: str) -> object:
    return int(cell) if cell.lstrip("-").isdigit() else cell


_WORKLOAD_COLUMNS = (
    Column("Workload"), Column("LocalQueue", wide=True), Column("ClusterQueue", wide=True),
    Column("Priority", right=True, wide=True, sort_key=_number_key),
    Column("Cycle", right=True, wide=True, sort_key=_number_key),
    Column("Decision", wrap=True), Column("Flavors", wide=True), Column("Borrowed", wide=True),
    Column("Preemption", wide=True), Column("Victims", wide=True), Column("Preemption reason", wide=True),
    Column("Reason", wide=True), Column("Detail", narrow=True, wrap=True),
)


def workload_table(result: SimulationResult, keep: Callable[[WorkloadResult], bool]) -> Table:
    """One row per workload (its key first), admitted first. The default view sums up in DETAIL what -o wide
    spreads over FLAVORS, BORROWED, PREEMPTION and REASON."""
    table = Table(_WORKLOAD_COLUMNS)
    for key, workload in sorted(result.workloads.items(), key=lambda kv: _row_order(kv[1])):
        if not keep(workload):
            continue
        cycle = workload.admitted_in or workload.preempted_in
        row = [key, workload.local_queue.split("/", 1)[1] if workload.local_queue else "-",
               workload.cluster_queue or "-", str(workload.priority),
               str(cycle) if cycle is not None else "-", workload.decision_text, _flavors_text(workload),
               _borrowed_text(workload), _preemption_text(workload), ", ".join(workload.victims) or "-",
               workload.preemption_reason or "-", _reason_token(workload), _detail_text(workload)]
        table.add(row, [None] * 5 + [_DECISION_STYLES.get(workload.decision)] + [None] * 7,
                  item={"name": key, **workload_details(workload)})
    return table


def _detail_text(workload: WorkloadResult) -> str:
    """DETAIL: for a workload that got in, what it borrows and whom it preempts; else Kueue's reason (a name
    of a preemptor would not fit 80 columns beside the workload's own)."""
    if workload.admission is None or workload.preempted_by:
        return _reason_token(workload)  # who preempted it: -o wide (PREEMPTION), -o json and explain
    parts = []
    borrowed = _borrowed_text(workload)
    if borrowed != "-":
        parts.append(f"borrows {borrowed}")
    if workload.victims:
        parts.append(f"preempts {len(workload.victims)}")  # whom: -o wide (VICTIMS), -o json and explain
    return "; ".join(parts) or "-"


def _borrowed_text(workload: WorkloadResult) -> str:
    amounts = workload.borrowed.items()
    return ", ".join(f"{resource} {human_figure(resource, value)}" for (_, resource), value in amounts) or "-"


# Table order and colour by decision token; a decision not listed sorts last, uncoloured.
_DECISION_ORDER = {"Admitted": 0, "AdmittedInInactiveClusterQueue": 0, "QuotaReserved": 1, "WaitingForPreemption": 2,
                   "Preempted": 3, "Pending": 4}
_DECISION_STYLES = {"Admitted": "green", "AdmittedInInactiveClusterQueue": "green", "QuotaReserved": "cyan",
                    "Preempted": "red", "WaitingForPreemption": "yellow", "Inadmissible": "magenta"}


def _row_order(workload: WorkloadResult) -> tuple[int, str, str]:
    return _DECISION_ORDER.get(workload.decision, 5), workload.cluster_queue or "", workload.key


def _flavors_text(workload: WorkloadResult) -> str:
    """``spot (cpu, memory)``: resources grouped by the flavor they got, per pod set."""
    admission = workload.admission
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


def _preemption_text(workload: WorkloadResult) -> str:
    """Short enough for 80 columns: who the victims are is in -o wide (VICTIMS) and -o json."""
    victims = workload.victims
    if victims:
        return f"preempts {victims[0]}" if len(victims) == 1 else f"preempts {len(victims)}"
    if workload.preempted_by:
        return f"by {workload.preempted_by}"
    return "-"


def _reason_token(workload: WorkloadResult) -> str:
    if workload.decision == "Admitted":
        return "-"
    return workload.reason or "-"


def _write_reasons(out: TextIO, result: SimulationResult, keys: list[str],
                   paint: Callable[[str, str], str] | None) -> None:
    """Kueue's full message for every shown workload that did not get in, below the table (on a terminal,
    wrapped under its workload's name)."""
    from kqctl.render.console import terminal_width, wrap_text

    width = terminal_width(out)
    lines = []
    for key in keys:
        workload = result.workloads[key]
        if workload.admission is not None or not workload.message:
            continue
        name = printable(key)
        never = " (it can never get in as configured)" if workload.never is not None else ""
        pieces = wrap_text(f"{name}: {printable(workload.message)}{never}", width, "  ", "    ")
        if paint is not None:
            pieces[0] = "  " + paint(name, "bold") + pieces[0][2 + len(name):]
        lines.extend(pieces)
    if lines:
        out.write("\nWhy not admitted:\n" + "\n".join(lines) + "\n")
