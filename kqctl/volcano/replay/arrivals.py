"""Trace rows as the objects a Volcano user submits: one vcjob per row (batch.volcano.sh/v1alpha1 Job), one task of
``pods`` replicas with the row's requests, gang minAvailable = pods, in the row's Queue, created at the row's time.

The vcjobs then go through the same loader (and gate) as a file's: Volcano's job controller makes their
PodGroups and pods, and their eviction policy is the default one (SyncJob: an evicted pod is made again).
A job's priority is its PriorityClass's (Volcano reads nothing else): a row gives ``priorityClass``, a PriorityClass
of the inputs; a bare ``priority`` cannot be carried and is refused.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from kqctl.k8s.pods import limits_for
from kqctl.k8s.quantity import format_resource_value
from kqctl.replay.durations import format_duration
from kqctl.replay.traces import TraceError, TraceRow, check_priority_class
from kqctl.volcano.api.models import RUNTIME_ANNOTATION

TASK = "main"


def trace_jobs(rows: Iterable[TraceRow], start: datetime, queues: Iterable[str],
               priority_classes: Mapping[str, int], taken: Iterable[str] = ()) -> list[tuple[TraceRow, dict[str, Any]]]:
    """Each row as a vcjob body; a row naming a Queue or PriorityClass the inputs do not have, or a job that
    exists already, is a located :class:`TraceError`."""
    known = sorted(set(queues))
    seen = set(taken)
    bodies = []
    for row in rows:
        if row.queue not in known:
            close = difflib.get_close_matches(row.queue, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else f"; the Queues are: {', '.join(known[:10])}"
            raise TraceError(row.line, "queue", f"Queue {row.queue} is not in the inputs{hint}", row.column("queue"))
        _check_priority(row, priority_classes)
        key = f"{row.namespace}/{row.name}"
        if key in seen:
            raise TraceError(row.line, "name", f"vcjob {key} is already in the inputs", row.column("name"))
        seen.add(key)
        bodies.append((row, job_body(row, start)))
    return bodies


def _check_priority(row: TraceRow, classes: Mapping[str, int]) -> None:
    check_priority_class(row, classes, "Volcano reads a job's priority from its PriorityClass",
                         ": Volcano reads the class's")


def created_at(row: TraceRow, start: datetime) -> datetime:
    if isinstance(row.at, datetime):
        return row.at
    try:
        return start + timedelta(milliseconds=row.at)
    except OverflowError:
        moment = f"{format_duration(row.at)} after the start ({start.isoformat().replace('+00:00', 'Z')})"
        raise TraceError(row.line, "time", f"{moment} is past the year 9999", row.column("time")) from None


def timestamp(moment: datetime) -> str:
    text = moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def job_body(row: TraceRow, start: datetime) -> dict[str, Any]:
    requests = {name: format_resource_value(name, value) for name, value in row.requests}
    annotations = {RUNTIME_ANNOTATION: f"{row.runtime}ms"} if row.runtime is not None else {}
    spec: dict[str, Any] = {"schedulerName": "volcano", "queue": row.queue, "minAvailable": row.pods,
                            "tasks": [{"name": TASK, "replicas": row.pods, "template": {"spec": {
                                "restartPolicy": "Never",
                                "containers": [{"name": TASK, "image": "kqctl.dev/trace",
                                                "resources": _resources(requests)}]}}}]}
    if row.priority_class is not None:
        spec["priorityClassName"] = row.priority_class
    metadata: dict[str, Any] = {"name": row.name, "namespace": row.namespace,
                                "creationTimestamp": timestamp(created_at(row, start))}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": metadata, "spec": spec}


def _resources(requests: dict[str, str]) -> dict[str, dict[str, str]]:
    """The requests, and the limits the API server requires beside them (an extended resource such as
    nvidia.com/gpu is requested by setting its limit: VAL-POD-3), as a user submitting the pod writes them."""
    limits = limits_for(requests)
    return {"requests": requests, "limits": limits} if limits else {"requests": requests}
