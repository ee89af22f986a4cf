"""Trace rows as the Workloads Kueue would see (one pod set ``main``), created at their arrival time."""

from __future__ import annotations

import difflib
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from kqctl.k8s.pods import limits_for
from kqctl.k8s.quantity import format_resource_value
from kqctl.kueue.api.models import PodSet, PriorityClassRef, Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.replay.generator import make_uid
from kqctl.kueue.replay.runtimes import RUNTIME_ANNOTATION
from kqctl.origin import Origin
from kqctl.replay.durations import format_duration
from kqctl.replay.traces import TraceError, TraceRow

WPC_GROUP = "kueue.x-k8s.io"


def add_trace(snapshot: Snapshot, rows: Iterable[TraceRow], file: str, start: datetime,
              seed: int) -> list[tuple[TraceRow, Workload]]:
    """Append a Workload per row to ``snapshot`` (REQ-3 priority classes resolved); returns each row's."""
    rng = random.Random(f"{seed}:{file}")
    existing = {w.key for w in snapshot.workloads}
    added = []
    for row in rows:
        _check_queue(snapshot, row)
        workload = _workload(snapshot, row, file, start, rng)
        if workload.key in existing:
            raise TraceError(row.line, "name", f"Workload {workload.key} is already in the inputs", row.column("name"))
        existing.add(workload.key)
        snapshot.workloads.append(workload)
        added.append((row, workload))
    return added


def workload_manifest(workload: Workload) -> dict[str, Any]:
    """The Workload a trace row submits, as a manifest (kueue.x-k8s.io/v1beta2), for the API server's checks."""
    pod_set = workload.pod_sets[0]
    spec: dict[str, Any] = {"queueName": workload.queue_name,
                            "podSets": [{"name": pod_set.name, "count": pod_set.count, "template": pod_set.template}]}
    if workload.priority is not None:
        spec["priority"] = workload.priority
    if workload.priority_class_ref is not None:
        ref = workload.priority_class_ref
        spec["priorityClassRef"] = {"group": ref.group, "kind": ref.kind, "name": ref.name}
    metadata: dict[str, Any] = {"name": workload.name, "namespace": workload.namespace, "uid": workload.uid}
    if workload.annotations:
        metadata["annotations"] = dict(workload.annotations)
    return {"apiVersion": f"{WPC_GROUP}/v1beta2", "kind": "Workload", "metadata": metadata, "spec": spec}


def _check_queue(snapshot: Snapshot, row: TraceRow) -> None:
    """A trace row names a LocalQueue of the inputs (a typo would otherwise leave the workload silently unqueued)."""
    if f"{row.namespace}/{row.queue}" in snapshot.local_queues:
        return
    here = sorted(q.name for q in snapshot.local_queues.values() if q.namespace == row.namespace)
    close = difflib.get_close_matches(row.queue, here, n=1)
    if close:
        hint = f"; did you mean {close[0]}?"
    elif here:
        hint = f"; namespace {row.namespace} has {', '.join(here)}"
    else:
        hint = f"; namespace {row.namespace} has no LocalQueue in the inputs"
    raise TraceError(row.line, "queue", f"LocalQueue {row.namespace}/{row.queue} is not in the inputs{hint}",
                     row.column("queue"))


def _offset(row: TraceRow, start: datetime, ms: int) -> datetime:
    try:
        return start + timedelta(milliseconds=ms)
    except OverflowError:
        moment = f"{format_duration(ms)} after the start ({start.isoformat().replace('+00:00', 'Z')})"
        raise TraceError(row.line, "time", f"{moment} is past the year 9999", row.column("time")) from None


def _workload(snapshot: Snapshot, row: TraceRow, file: str, start: datetime, rng: random.Random) -> Workload:
    created = row.at if isinstance(row.at, datetime) else _offset(row, start, row.at)
    priority, ref = row.priority, None
    if row.priority_class is not None:
        wpc = snapshot.workload_priority_classes.get(row.priority_class)
        if wpc is None:
            raise TraceError(row.line, "priorityClass", f"WorkloadPriorityClass {row.priority_class!r} is not in "
                                                        "the inputs", row.column("priorityClass"))
        ref = PriorityClassRef(WPC_GROUP, "WorkloadPriorityClass", wpc.name)
        priority = wpc.value if row.priority is None else row.priority
    requests = {name: format_resource_value(name, value) for name, value in row.requests}
    # An extended resource carries the limit the API server requires beside its request (VAL-POD-3), as the Job
    # the row stands for would.
    limits = limits_for(requests)
    resources = {"requests": requests, "limits": limits} if limits else {"requests": requests}
    spec = {"containers": [{"name": "main", "resources": resources}]}
    # The runtime travels as kqctl's annotation, exact to the millisecond.
    annotations = {RUNTIME_ANNOTATION: f"{row.runtime}ms"} if row.runtime is not None else {}
    return Workload(
        namespace=row.namespace, name=row.name, uid=make_uid(rng), queue_name=row.queue, priority=priority,
        priority_class_ref=ref, active=True, creation_timestamp=created,
        pod_sets=(PodSet("main", row.pods, None, {"spec": spec}, None),), admission=None, conditions=(),
        reclaimable_pods={}, admission_check_states=(), origin=Origin(file, 0, row.line), annotations=annotations,
    )
