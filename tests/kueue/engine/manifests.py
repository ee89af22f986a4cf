"""Small Kueue objects for the engine's unit tests, as the manifests a user would write.

Each helper returns one document (a dict); :func:`snapshot` and :func:`simulation` read them the way
``kqctl simulate`` does (load, decode, build the snapshot), so a unit test states its scenario in
Kueue's own terms and checks the engine module it is about.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

import yaml

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_text

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
CREATED = "2025-12-31T00:00:00Z"
KUEUE = "kueue.x-k8s.io/v1beta2"

# A flavor's quotas: resource -> nominal quota, or resource -> {nominalQuota, borrowingLimit, lendingLimit}.
Quotas = Mapping[str, "str | Mapping[str, str]"]


def flavor(name: str, node_labels: Mapping[str, str] | None = None,
           taints: list[Mapping[str, str]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if node_labels:
        spec["nodeLabels"] = dict(node_labels)
    if taints:
        spec["nodeTaints"] = [dict(t) for t in taints]
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def _resources(quotas: Quotas) -> list[dict[str, Any]]:
    result = []
    for resource, quota in quotas.items():
        entry: dict[str, Any] = {"name": resource}
        entry.update({"nominalQuota": quota} if isinstance(quota, str) else dict(quota))
        result.append(entry)
    return result


def cluster_queue(name: str, flavors: Mapping[str, Quotas], cohort: str | None = None,
                  preemption: Mapping[str, Any] | None = None, strategy: str | None = None,
                  fungibility: Mapping[str, str] | None = None, stop_policy: str | None = None,
                  namespace_selector: Mapping[str, Any] | None = None, fair_weight: str | None = None,
                  admission_checks: list[str] | None = None) -> dict[str, Any]:
    """One resource group covering every resource of the flavors, flavors in the order given."""
    covered = list(dict.fromkeys(r for quotas in flavors.values() for r in quotas))
    spec: dict[str, Any] = {
        "namespaceSelector": dict(namespace_selector) if namespace_selector is not None else {},
        "resourceGroups": [{"coveredResources": covered,
                            "flavors": [{"name": f, "resources": _resources(q)} for f, q in flavors.items()]}],
    }
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = dict(preemption)
    if strategy:
        spec["queueingStrategy"] = strategy
    if fungibility:
        spec["flavorFungibility"] = dict(fungibility)
    if stop_policy:
        spec["stopPolicy"] = stop_policy
    if fair_weight:
        spec["fairSharing"] = {"weight": fair_weight}
    if admission_checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in admission_checks]}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def admission_check(name: str, controller: str = "example.com/check") -> dict[str, Any]:
    """An active AdmissionCheck (XO-1: an inactive one makes its ClusterQueues inactive)."""
    active = {"type": "Active", "status": "True", "reason": "Active", "message": "m", "lastTransitionTime": CREATED}
    return {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": controller}, "status": {"conditions": [active]}}


def check_states(**states: str) -> dict[str, Any]:
    """A Workload status with these admission check states (``status`` of :func:`workload`)."""
    return {"admissionChecks": [{"name": name, "state": state, "message": "", "lastTransitionTime": CREATED}
                                for name, state in states.items()]}


def cohort(name: str, parent: str | None = None, flavors: Mapping[str, Quotas] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if flavors:
        covered = list(dict.fromkeys(r for quotas in flavors.values() for r in quotas))
        spec["resourceGroups"] = [{"coveredResources": covered,
                                   "flavors": [{"name": f, "resources": _resources(q)} for f, q in flavors.items()]}]
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def local_queue(name: str, cluster_queue_name: str, namespace: str = "ns") -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": cluster_queue_name}}


def namespace(name: str, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels or {})}}


def workload(name: str, queue: str = "lq", cpu: str = "1", priority: int = 0, count: int = 1,
             namespace: str = "ns", created: str = CREATED, admitted_in: str | None = None,
             admitted_flavor: str = "default", min_count: int | None = None, uid: str | None = None,
             labels: Mapping[str, str] | None = None, tolerations: list[Mapping[str, str]] | None = None,
             status: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A Workload with one pod set ``main`` of ``count`` pods asking ``cpu`` each.

    ``admitted_in`` gives it a quota reservation in that ClusterQueue, on ``admitted_flavor``; ``status``
    adds to it (its conditions to the reservation's).
    """
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if tolerations:
        pod_spec["tolerations"] = [dict(t) for t in tolerations]
    pod_set: dict[str, Any] = {"name": "main", "count": count, "template": {"spec": pod_spec}}
    if min_count is not None:
        pod_set["minCount"] = min_count
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "creationTimestamp": created,
                                "uid": uid or name}
    if labels:
        metadata["labels"] = dict(labels)
    body: dict[str, Any] = {"apiVersion": KUEUE, "kind": "Workload", "metadata": metadata,
                            "spec": {"queueName": queue, "priority": priority, "podSets": [pod_set]}}
    if admitted_in is not None:
        total = f"{int(cpu) * count}"
        since = {"lastTransitionTime": CREATED, "message": "m"}
        assigned = {"name": "main", "count": count, "flavors": {"cpu": admitted_flavor},
                    "resourceUsage": {"cpu": total}}
        body["status"] = {
            "admission": {"clusterQueue": admitted_in, "podSetAssignments": [assigned]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", **since},
                           {"type": "Admitted", "status": "True", "reason": "Admitted", **since}]}
    if status is not None:  # merged into the reservation's status, conditions added to its conditions
        merged = {**body.get("status", {}), **status}
        merged["conditions"] = [*body.get("status", {}).get("conditions", []), *status.get("conditions", [])]
        body["status"] = merged
    return body


def snapshot(*documents: Mapping[str, Any]) -> Snapshot:
    return build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all([dict(d) for d in documents]), "unit.yaml"), NOW)


def simulation(*documents: Mapping[str, Any], **options: Any) -> Simulation:
    """A Simulation of the documents (not run yet), on the tests' clock unless ``now`` is given."""
    return Simulation(snapshot(*documents), SimulationOptions(**{"now": NOW, **options}))
