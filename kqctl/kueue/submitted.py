"""Jobs and Pods users submit, turned into the Workloads Kueue would create for them (REQ-1..3).

They join the snapshot after every other object (the conversion looks up LocalQueues and
priority classes); a Job whose Workload is already in the inputs is that Workload, not a second one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kqctl.errors import InputError
from kqctl.k8s.core import ModelError
from kqctl.kueue.api.models import Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.jobs import ConversionContext, created_workloads, dedupe, workloads_from_jobs
from kqctl.origin import Origin


@dataclass
class Submitted:
    """Jobs and Pods of the inputs, and the raw Workloads they may already have."""

    objects: list[tuple[Origin, dict[str, Any]]] = field(default_factory=list)
    workloads: list[dict[str, Any]] = field(default_factory=list)


def add_submitted_workloads(snapshot: Snapshot, submitted: Submitted) -> None:
    if not submitted.objects:
        return
    origins = {_key(body): origin for origin, body in submitted.objects}
    context = ConversionContext.from_snapshot(snapshot)
    results = dedupe(workloads_from_jobs([body for _, body in submitted.objects], context), submitted.workloads)
    for result in results:
        origin = origins.get((result.kind, result.namespace, result.name)) or _member_origin(result, origins)
        where = f"{origin}: " if origin is not None else ""
        if result.reason:
            snapshot.warnings.append(f"{where}{result.kind} {result.key}: {result.reason}")
        if result.status in ("not-created", "not-governed") and result.reason:
            snapshot.without_workload[result.key] = (result.kind, result.reason)
        snapshot.warnings.extend(f"{where}{result.kind} {result.key}: {note}" for note in result.notes)
    for body in created_workloads(results):
        origin = origins.get(_owner_key(body))
        try:
            snapshot.workloads.append(Workload.from_v1beta2(body, origin))
        except ModelError as exc:
            file = origin.file if origin is not None else "<submitted>"
            raise InputError(file, f"the Workload made from it is invalid: {exc}",
                             line=origin.line if origin else None) from None


def _key(body: dict[str, Any]) -> tuple[str, str, str]:
    raw = body.get("metadata")
    meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return str(body.get("kind")), str(meta.get("namespace", "")), str(meta.get("name", ""))


def _owner_key(workload: dict[str, Any]) -> tuple[str, str, str]:
    meta = workload.get("metadata") or {}
    for owner in meta.get("ownerReferences") or []:
        return str(owner.get("kind")), str(meta.get("namespace", "")), str(owner.get("name"))
    return "", "", ""


def _member_origin(result: Any, origins: dict[tuple[str, str, str], Origin]) -> Origin | None:
    for member in getattr(result, "members", ()):
        origin = origins.get(("Pod", result.namespace, member))
        if origin is not None:
            return origin
    return None
