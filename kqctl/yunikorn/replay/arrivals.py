"""Trace rows as the pods a YuniKorn user submits: per row, ``pods`` pods of one application (label
``yunikorn.apache.org/app-id``: the row's name) asking for the row's queue path (label
``yunikorn.apache.org/queue``), with the row's requests, created at the row's time.

The pods then go through the same loader (and gate) as a file's. A pod's priority is its PriorityClass's (the
API server's Priority admission sets it from the class and refuses another value): a row gives ``priorityClass``,
a PriorityClass of the inputs; a bare ``priority`` cannot be carried and is refused. Pods a trace makes are bare
pods (no controller): a preempted one is not made again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from kqctl.k8s.pods import limits_for
from kqctl.k8s.quantity import format_resource_value
from kqctl.replay.durations import format_duration
from kqctl.replay.traces import TraceError, TraceRow, check_priority_class

APP_ID_LABEL = "yunikorn.apache.org/app-id"
QUEUE_LABEL = "yunikorn.apache.org/queue"
RUNTIME_ANNOTATION = "kqctl.dev/runtime"


def trace_pods(rows: Iterable[TraceRow], start: datetime, queue_problem: Callable[[str], str],
               priority_classes: Mapping[str, int], taken: Iterable[str] = ()) -> list[tuple[TraceRow, dict[str, Any]]]:
    """Each row's pods; ``queue_problem(path)`` says why no application could be placed there ("" when one can);
    a pod that exists already is a located :class:`TraceError`."""
    seen = set(taken)
    bodies = []
    for row in rows:
        problem = queue_problem(row.queue)
        if problem:
            raise TraceError(row.line, "queue", problem, row.column("queue"))
        _check_priority(row, priority_classes)
        for body in pod_bodies(row, start):
            key = f"{row.namespace}/{body['metadata']['name']}"
            if key in seen:
                raise TraceError(row.line, "name", f"pod {key} is already in the inputs", row.column("name"))
            seen.add(key)
            bodies.append((row, body))
    return bodies


def _check_priority(row: TraceRow, classes: Mapping[str, int]) -> None:
    check_priority_class(row, classes, "a pod's priority comes from its PriorityClass (the API server's Priority "
                         "admission)")


def _created(row: TraceRow, start: datetime) -> datetime:
    if isinstance(row.at, datetime):
        return row.at
    try:
        return start + timedelta(milliseconds=row.at)
    except OverflowError:
        moment = f"{format_duration(row.at)} after the start ({start.isoformat().replace('+00:00', 'Z')})"
        raise TraceError(row.line, "time", f"{moment} is past the year 9999", row.column("time")) from None


def pod_bodies(row: TraceRow, start: datetime) -> list[dict[str, Any]]:
    created = _created(row, start)
    stamp = created.isoformat(timespec="milliseconds" if created.microsecond else "seconds").replace("+00:00", "Z")
    requests = {name: format_resource_value(name, value) for name, value in row.requests}
    spec: dict[str, Any] = {"schedulerName": "yunikorn", "restartPolicy": "Never",
                            "containers": [{"name": "main", "image": "kqctl.dev/trace",
                                            "resources": _resources(requests)}]}
    if row.priority_class is not None:
        spec["priorityClassName"] = row.priority_class
    metadata: dict[str, Any] = {"namespace": row.namespace, "creationTimestamp": stamp,
                                "labels": {APP_ID_LABEL: row.name, QUEUE_LABEL: row.queue}}
    if row.runtime is not None:
        metadata["annotations"] = {RUNTIME_ANNOTATION: f"{row.runtime}ms"}
    names = [row.name] if row.pods == 1 else [f"{row.name}-{i}" for i in range(row.pods)]
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {**metadata, "name": name}, "spec": spec,
             "status": {"phase": "Pending"}} for name in names]


def _resources(requests: dict[str, str]) -> dict[str, dict[str, str]]:
    """The requests, and the limits the API server requires beside them (an extended resource such as
    nvidia.com/gpu is requested by setting its limit: VAL-POD-3), as a user submitting the pod writes them."""
    limits = limits_for(requests)
    return {"requests": requests, "limits": limits} if limits else {"requests": requests}
