"""Simulation results as data (the json/yaml contract of ../shared/conformance/README.md) and as tables."""

from __future__ import annotations

from typing import Any, TextIO

from kqctl.api.quantity import format_resource_value
from kqctl.engine.simulation import SimulationResult, WorkloadOutcome
from kqctl.engine.workloads import Admission

ADMITTED = "Admitted"
PENDING = "Pending"
INADMISSIBLE = "Inadmissible"
PREEMPTED = "Preempted"
WAITING = "Waiting for preemption"
RESERVED = "QuotaReserved"


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
    """The state a workload ends in, as the workloads table shows it."""
    workload = outcome.workload
    if outcome.preempted_in is not None and workload.admission is None:
        queued = _queue_state(outcome, result)
        return PREEMPTED if queued is None else f"{PREEMPTED} ({queued.lower()})"
    if workload.admission is not None:
        return PREEMPTED if outcome.preempted_in is not None else ADMITTED
    if outcome.victims and outcome.last_entry is not None and outcome.last_entry.reason == "WaitingForPreemptedWorkloads":
        return WAITING
    return _queue_state(outcome, result) or PENDING


def _queue_state(outcome: WorkloadOutcome, result: SimulationResult) -> str | None:
    key = outcome.workload.key
    for queue in result.queues.values():
        if key in queue.active:
            return PENDING
        if key in queue.inadmissible:
            return INADMISSIBLE
    return None


def contract(result: SimulationResult) -> dict[str, Any]:
    """The keys the conformance cases compare, plus per-workload details."""
    admitted: dict[str, Any] = {}
    newly: list[str] = []
    preempted: list[str] = []
    for key, outcome in sorted(result.outcomes.items()):
        workload = outcome.workload
        if workload.admission is not None:
            admitted[key] = admission_data(workload.admission)
            if outcome.admitted_in is not None:
                newly.append(key)
        if outcome.preempted_in is not None:
            preempted.append(key)
    pending = {name: sorted(q.active) for name, q in sorted(result.queues.items()) if q.active}
    inadmissible = {name: sorted(q.inadmissible) for name, q in sorted(result.queues.items()) if q.inadmissible}
    return {
        "cycles": result.cycles,
        "stopReason": result.stop_reason,
        "fairSharing": result.fair_sharing,
        "admitted": admitted,
        "newlyAdmitted": newly,
        "preempted": preempted,
        "pending": pending,
        "inadmissible": inadmissible,
        "workloads": {key: workload_details(o, result) for key, o in sorted(result.outcomes.items())},
        "livelock": None if result.livelock is None else {
            "cycles": list(result.livelock.cycles), "workloads": result.livelock.workloads},
        "warnings": result.warnings,
    }


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
    if outcome.preemption_message:
        details["preemptionMessage"] = outcome.preemption_message
    if workload.admission is not None:
        details["admission"] = admission_data(workload.admission)
        details["borrowed"] = borrowed(outcome, result)
    return details


def borrowed(outcome: WorkloadOutcome, result: SimulationResult) -> dict[str, str]:
    """How much of this workload's usage is above its ClusterQueue's nominal quota, per flavor/resource.

    Borrowing is a property of the ClusterQueue (Q-7); a workload is charged the part of its
    own usage that lies above nominal once the workloads admitted before it are counted.
    """
    workload = outcome.workload
    assert workload.admission is not None
    state = result.cache.cluster_queues.get(workload.admission.cluster_queue)
    if state is None:
        return {}
    amounts: dict[str, str] = {}
    for (flavor, resource), value in sorted(workload.usage().items()):
        over = state.usage((flavor, resource)) - state.nominal((flavor, resource))
        if over > 0 and value > 0:
            amounts[f"{flavor}/{resource}"] = format_resource_value(resource, min(value, over))
    return amounts


def render_simulation(result: SimulationResult, fmt: str, out: TextIO) -> None:
    from kqctl.render.structured import dump_json, dump_yaml

    data = contract(result)
    if fmt == "json":
        out.write(dump_json(data))
    elif fmt == "yaml":
        out.write(dump_yaml(data))
    else:
        raise ValueError(f"unknown format {fmt!r}")
