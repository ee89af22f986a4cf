"""The last loading step: loaded objects become one typed :class:`Snapshot` for the engine.

Objects are converted to v1beta2 and built without CRD defaults (DEF-4). An object that Kueue
could not even decode, a duplicate, or an unreadable input stops here with a located error;
objects kqctl does not read are left out with a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kqctl.api.core import LimitRange, ModelError, Namespace, PriorityClass
from kqctl.api.kinds import KUEUE_CONFIG_GROUP, KUEUE_GROUP
from kqctl.api.kueue.config import KueueConfig
from kqctl.api.kueue.models import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    Node,
    ResourceFlavor,
    Topology,
    Workload,
    WorkloadPriorityClass,
)
from kqctl.api.kueue.versions import to_v1beta2
from kqctl.api.snapshot import Snapshot
from kqctl.errors import InputError
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.load.submitted import Submitted, add_submitted_workloads
from kqctl.validate.findings import Severity


def build_snapshot(result: LoadResult, now: datetime | None = None) -> Snapshot:
    """Every object of the inputs in one snapshot; the first unusable input raises :class:`InputError`.

    ``now`` is the snapshot's clock; submitted Jobs without a creationTimestamp are created then.
    """
    if result.unreadable:
        raise result.unreadable[0]
    snapshot = Snapshot(now=now)
    submitted = Submitted()
    for obj in result.objects:
        _check_loadable(obj, snapshot)
        if obj.info is None:
            continue
        if (obj.info.group, obj.info.kind) in _SUBMITTED_KINDS:
            submitted.objects.append((obj.origin, _with_namespace(obj.body, obj)))
            continue
        if obj.info.kind == "Workload":
            submitted.workloads.append(obj.body)
        _add(snapshot, obj)
    add_submitted_workloads(snapshot, submitted)  # REQ-1..3: after the queues and classes they look up
    return snapshot


def _check_loadable(obj: LoadedObject, snapshot: Snapshot) -> None:
    for finding in obj.findings:
        if finding.severity is Severity.ERROR:
            hint = f" ({finding.hint})" if finding.hint else ""
            raise InputError(obj.origin.file, f"{finding.rule_id}: {finding.message}{hint}",
                             line=obj.line_of(finding.path), index=obj.origin.index)
        snapshot.warnings.append(f"{obj.origin}: {finding.message}")


def _add(snapshot: Snapshot, obj: LoadedObject) -> None:
    body = obj.body
    if obj.info is not None and obj.info.group == KUEUE_GROUP:
        conversion = to_v1beta2(body, copy_hub=False)
        for issue in conversion.issues:
            if issue.severity == "error":
                raise InputError(obj.origin.file, f"{issue.rule_id}: {issue.message}",
                                 line=obj.line_of(issue.path), index=obj.origin.index)
        body = conversion.body
    adder = _ADDERS.get(_kind_key(obj))
    if adder is None:
        snapshot.warnings.append(f"{obj.origin}: {obj.kind} {obj.name} is not simulated: kqctl does not yet turn"
                                 f" {obj.kind} objects into workloads")
        return
    try:
        adder(snapshot, body, obj)
    except ModelError as exc:
        raise InputError(obj.origin.file, f"{obj.kind} {obj.name}: {exc}", line=obj.line_of(exc.path),
                         index=obj.origin.index) from None


def _kind_key(obj: LoadedObject) -> tuple[str, str]:
    assert obj.info is not None
    kind = "LocalQueue" if obj.info.kind == "Queue" else obj.info.kind
    return obj.info.group, kind


def _add_flavor(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    flavor = ResourceFlavor.from_v1beta2(body, obj.origin)
    s.resource_flavors[flavor.name] = flavor


def _add_cluster_queue(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    queue = ClusterQueue.from_v1beta2(body, obj.origin)
    s.cluster_queues[queue.name] = queue


def _add_cohort(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    cohort = Cohort.from_v1beta2(body, obj.origin)
    s.cohorts[cohort.name] = cohort


def _add_local_queue(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    body = _with_namespace(body, obj)
    queue = LocalQueue.from_v1beta2(body, obj.origin)
    s.local_queues[queue.key] = queue


def _add_workload(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.workloads.append(Workload.from_v1beta2(_with_namespace(body, obj), obj.origin))


def _add_wpc(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    wpc = WorkloadPriorityClass.from_v1beta2(body, obj.origin)
    s.workload_priority_classes[wpc.name] = wpc


def _add_check(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    check = AdmissionCheck.from_v1beta2(body, obj.origin)
    s.admission_checks[check.name] = check


def _add_namespace(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    namespace = Namespace.from_v1(body, obj.origin)
    if s.namespaces is None:
        s.namespaces = {}
    s.namespaces[namespace.name] = namespace


def _add_priority_class(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    priority_class = PriorityClass.from_v1(body, obj.origin)
    s.priority_classes[priority_class.name] = priority_class


def _add_limit_range(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.limit_ranges.append(LimitRange.from_v1(_with_namespace(body, obj), obj.origin))


def _add_topology(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    topology = Topology.from_v1beta2(body, obj.origin)
    s.topologies[topology.name] = topology
    # §0.3: TAS is simulated only in the part that decides flavors and admissions (kqctl.engine.tas).
    s.warnings.append(f"{obj.origin}: Topology {topology.name}: Topology-Aware Scheduling is simulated in part only"
                      " (pod placement on Nodes; not: leader/worker groups, balanced placement, Pods Kueue does not"
                      " manage, node replacement, TAS-aware preemption)")


def _add_node(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    node = Node.from_v1(body, obj.origin)
    s.nodes[node.name] = node


def _add_config(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.config = KueueConfig.from_body(body)


def _with_namespace(body: dict[str, Any], obj: LoadedObject) -> dict[str, Any]:
    """Namespaced objects without a namespace land in ``default``, as kubectl would put them."""
    meta = body.get("metadata")
    if isinstance(meta, dict) and meta.get("namespace"):
        return body
    return {**body, "metadata": {**(meta if isinstance(meta, dict) else {}), "namespace": obj.namespace}}


_SUBMITTED_KINDS = {("batch", "Job"), ("", "Pod")}

_ADDERS: dict[tuple[str, str], Callable[[Snapshot, dict[str, Any], LoadedObject], None]] = {
    (KUEUE_GROUP, "ResourceFlavor"): _add_flavor,
    (KUEUE_GROUP, "ClusterQueue"): _add_cluster_queue,
    (KUEUE_GROUP, "Cohort"): _add_cohort,
    (KUEUE_GROUP, "LocalQueue"): _add_local_queue,
    (KUEUE_GROUP, "Workload"): _add_workload,
    (KUEUE_GROUP, "WorkloadPriorityClass"): _add_wpc,
    (KUEUE_GROUP, "AdmissionCheck"): _add_check,
    (KUEUE_GROUP, "Topology"): _add_topology,
    (KUEUE_CONFIG_GROUP, "Configuration"): _add_config,
    ("", "Node"): _add_node,
    ("", "Namespace"): _add_namespace,
    ("scheduling.k8s.io", "PriorityClass"): _add_priority_class,
    ("", "LimitRange"): _add_limit_range,
}
