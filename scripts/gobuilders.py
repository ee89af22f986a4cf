"""Kueue's test builders (pkg/util/testing/v1beta2 wrappers) evaluated in Python, for port_kueue_unit_cases.py.

``Evaluator.eval`` turns a gosubset syntax tree into Python values: a builder chain becomes the object
it builds, as a Kubernetes-style dict (``.obj``), written the way the manifests of
tests/conformance/data/kueue are; composite literals become dicts (``{"__type__": ..., field: value}``),
slices lists and maps dicts. Each builder does what its Go namesake does, defaults included: a
ClusterQueue selects every namespace, queues BestEffortFIFO and has flavorFungibility
MayStopSearch/TryNextFlavor; a Workload has one pod set ``main`` of one pod with one container ``c``.
An unknown builder method or name raises, so a case using one is noticed, never half translated.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from gosubset import Attr, Binary, Call, Composite, Index, Lit, Name, TypeExpr, Unary

from kqctl.k8s.quantity import Quantity, canonical_quantity, parse_quantity


class GoError(Exception):
    """A construct the port does not know."""


def quantity(q: Any) -> str:
    """A quantity as Kubernetes prints it (resource.MustParse then String: "4000m" is "4")."""
    return canonical_quantity(q if isinstance(q, str) else str(q))


def k8s_time(t: datetime) -> str:
    text = t.strftime("%Y-%m-%dT%H:%M:%S")
    if t.microsecond:
        text += f".{t.microsecond:06d}".rstrip("0")
    return text + "Z"


# --- builders ----------------------------------------------------------------------------------------


class Builder:
    """A wrapper of Kueue's test package; its methods keep their Go names."""

    obj: dict[str, Any]

    def Obj(self) -> Any:
        return self

    def Clone(self) -> Any:
        return copy.deepcopy(self)

    def DeepCopy(self) -> Any:
        return copy.deepcopy(self)

    def call(self, method: str, args: list[Any]) -> Any:
        fn = getattr(self, method, None)
        if fn is None:
            raise GoError(f"{type(self).__name__}.{method} is not translated")
        return fn(*args)


def container() -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": {}}}


def pod_set(name: str, count: int) -> dict[str, Any]:
    return {"count": count, "name": name,
            "template": {"metadata": {}, "spec": {"containers": [container()], "restartPolicy": "Never"}}}


class PodSetW(Builder):
    def __init__(self, name: str, count: int) -> None:
        self.obj = pod_set(name, count)

    def _spec(self) -> dict[str, Any]:
        return self.obj["template"]["spec"]

    def Request(self, r: str, q: Any) -> PodSetW:
        self._spec()["containers"][0]["resources"]["requests"][r] = quantity(q)
        return self

    def Limit(self, r: str, q: Any) -> PodSetW:
        self._spec()["containers"][0]["resources"].setdefault("limits", {})[r] = quantity(q)
        return self

    def Image(self, image: str) -> PodSetW:
        self._spec()["containers"][0]["image"] = image
        return self

    def NodeSelector(self, kv: dict[str, str]) -> PodSetW:
        self._spec()["nodeSelector"] = dict(kv)
        return self

    def Toleration(self, t: dict[str, Any]) -> PodSetW:
        self._spec().setdefault("tolerations", []).append(strip_type(t))
        return self

    def RequiredDuringSchedulingIgnoredDuringExecution(self, terms: list[Any]) -> PodSetW:
        affinity = self._spec().setdefault("affinity", {}).setdefault("nodeAffinity", {})
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": strip_type(terms)}
        return self

    def Containers(self, *containers: Any) -> PodSetW:
        flat = [c for arg in containers for c in (arg if isinstance(arg, list) else [arg])]  # f(xs...) spreads
        self._spec()["containers"] = [strip_type(c) for c in flat]
        return self

    def SetMinimumCount(self, n: int) -> PodSetW:
        self.obj["minCount"] = n
        return self

    def PodSetGroup(self, name: str) -> PodSetW:
        self.obj.setdefault("topologyRequest", {})["podSetGroupName"] = name
        return self

    def _topology(self, key: str, value: Any) -> PodSetW:
        self.obj.setdefault("topologyRequest", {})[key] = value
        return self

    def RequiredTopologyRequest(self, level: str) -> PodSetW:
        return self._topology("required", level)

    def PreferredTopologyRequest(self, level: str) -> PodSetW:
        return self._topology("preferred", level)

    def UnconstrainedTopologyRequest(self) -> PodSetW:
        return self._topology("unconstrained", True)

    def SliceRequiredTopologyRequest(self, level: str) -> PodSetW:
        return self._topology("podSetSliceRequiredTopology", level)

    def SliceSizeTopologyRequest(self, size: int) -> PodSetW:
        return self._topology("podSetSliceSize", size)

    def SliceRequiredTopologyConstraints(self, *constraints: Any) -> PodSetW:
        return self._topology("podsetSliceRequiredTopologyConstraints", [strip_type(c) for c in constraints])


class WorkloadW(Builder):
    def __init__(self, name: str, namespace: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                    "metadata": {"name": name, "namespace": namespace},
                    "spec": {"podSets": [pod_set("main", 1)]}, "status": {}}

    def _ps0(self) -> dict[str, Any]:
        return self.obj["spec"]["podSets"][0]

    def Name(self, name: str) -> WorkloadW:
        self.obj["metadata"]["name"] = name
        return self

    def UID(self, uid: str) -> WorkloadW:
        self.obj["metadata"]["uid"] = uid
        return self

    def Label(self, k: str, v: str) -> WorkloadW:
        self.obj["metadata"].setdefault("labels", {})[k] = v
        return self

    def JobUID(self, uid: str) -> WorkloadW:
        return self.Label("kueue.x-k8s.io/job-uid", uid)

    def Request(self, r: str, q: Any) -> WorkloadW:
        self._ps0()["template"]["spec"]["containers"][0]["resources"]["requests"][r] = quantity(q)
        return self

    def Priority(self, p: int) -> WorkloadW:
        self.obj["spec"]["priority"] = p
        return self

    def Queue(self, q: str) -> WorkloadW:
        self.obj["spec"]["queueName"] = q
        return self

    def Creation(self, t: datetime) -> WorkloadW:
        self.obj["metadata"]["creationTimestamp"] = k8s_time(t)
        return self

    def PodSets(self, *podsets: Any) -> WorkloadW:
        self.obj["spec"]["podSets"] = [copy.deepcopy(p.obj if isinstance(p, PodSetW) else p) for p in podsets]
        return self

    def Toleration(self, t: dict[str, Any]) -> WorkloadW:
        self._ps0()["template"]["spec"].setdefault("tolerations", []).append(strip_type(t))
        return self

    def NodeSelector(self, kv: dict[str, str]) -> WorkloadW:
        self._ps0()["template"]["spec"]["nodeSelector"] = dict(kv)
        return self

    def ReserveQuotaAt(self, admission: AdmissionW, t: datetime) -> WorkloadW:
        self.obj["status"]["admission"] = copy.deepcopy(admission.obj)
        self.obj["status"]["conditions"] = [{
            "lastTransitionTime": k8s_time(t), "message": f"Admitted by ClusterQueue {admission.obj['clusterQueue']}",
            "reason": "AdmittedByTest", "status": "True", "type": "QuotaReserved"}]
        return self

    def SimpleReserveQuota(self, cq: str, flavor: str, t: datetime) -> WorkloadW:
        ps = self._ps0()
        requests = ps["template"]["spec"]["containers"][0]["resources"]["requests"]
        count = ps["count"]
        usage = {r: multiply(q, count) for r, q in requests.items()}
        admission = AdmissionW(cq, ps["name"])
        admission.obj["podSetAssignments"][0].update(
            {"count": count, "flavors": {r: flavor for r in requests}, "resourceUsage": usage})
        return self.ReserveQuotaAt(admission, t)

    def _set_condition(self, cond: dict[str, Any]) -> None:
        conds = self.obj["status"].setdefault("conditions", [])
        for i, c in enumerate(conds):
            if c["type"] == cond["type"]:
                conds[i] = cond
                return
        conds.append(cond)

    def Condition(self, cond: dict[str, Any]) -> WorkloadW:
        c = strip_type(cond)
        if isinstance(c.get("lastTransitionTime"), datetime):
            c["lastTransitionTime"] = k8s_time(c["lastTransitionTime"])
        self._set_condition(c)
        return self

    def AdmittedAt(self, admitted: bool, t: datetime) -> WorkloadW:
        self._set_condition({"lastTransitionTime": k8s_time(t), "reason": "ByTest", "type": "Admitted",
                             "message": f"Admitted by ClusterQueue {self.obj['status']['admission']['clusterQueue']}",
                             "status": "True" if admitted else "False"})
        return self

    def EvictedAt(self, t: datetime) -> WorkloadW:
        self._set_condition({"lastTransitionTime": k8s_time(t), "message": "Evicted by test", "reason": "ByTest",
                             "status": "True", "type": "Evicted"})
        return self

    def SchedulingStatsEviction(self, _eviction: Any) -> WorkloadW:
        return self  # only in wantWorkloads: not an input

    def UnhealthyNodes(self, *names: str) -> WorkloadW:
        self.obj["status"].setdefault("unhealthyNodes", []).extend({"name": n} for n in names)
        return self

    def AdmissionCheck(self, state: dict[str, Any]) -> WorkloadW:
        self.obj["status"].setdefault("admissionChecks", []).append(strip_type(state))
        return self

    def ReclaimablePods(self, *pods: Any) -> WorkloadW:
        self.obj["status"]["reclaimablePods"] = [strip_type(p) for p in pods]
        return self


def multiply(q: str, n: int) -> str:
    """``q`` times ``n`` as Kubernetes prints it (Quantity.Mul then String)."""
    if n == 1:
        return q
    value = parse_quantity(q)
    return Quantity(value.value * n, value.format, "").canonical()


class AdmissionW(Builder):
    def __init__(self, cq: str, *podsets: str) -> None:
        names = podsets or ("main",)
        self.obj = {"clusterQueue": cq, "podSetAssignments": [PodSetAssignmentW(n).obj for n in names]}

    def PodSets(self, *assignments: Any) -> AdmissionW:
        self.obj["podSetAssignments"] = [copy.deepcopy(a.obj if isinstance(a, PodSetAssignmentW) else a)
                                         for a in assignments]
        return self


class PodSetAssignmentW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"count": 1, "flavors": {}, "name": name, "resourceUsage": {}}

    def Flavor(self, r: str, f: str) -> PodSetAssignmentW:
        self.obj["flavors"][r] = f
        return self

    def ResourceUsage(self, r: str, q: Any) -> PodSetAssignmentW:
        self.obj["resourceUsage"][r] = quantity(q)
        return self

    def Assignment(self, r: str, f: str, q: Any) -> PodSetAssignmentW:
        return self.Flavor(r, f).ResourceUsage(r, q)

    def Count(self, n: int) -> PodSetAssignmentW:
        self.obj["count"] = n
        return self

    def TopologyAssignment(self, assignment: TopologyAssignmentW) -> PodSetAssignmentW:
        # Kept in Kueue's internal shape (levels, domains), as the test lists them; a manifest writes it with
        # v1beta2_topology_assignment.
        self.obj["topologyAssignment"] = copy.deepcopy(assignment.obj)
        return self

    def DelayedTopologyRequest(self, state: str) -> PodSetAssignmentW:
        self.obj["delayedTopologyRequest"] = state
        return self


class TopologyDomainW(Builder):
    def __init__(self, values: list[str], count: int) -> None:
        self.obj = {"values": list(values), "count": count}


def v1beta2_topology_assignment(internal: dict[str, Any]) -> dict[str, Any]:
    """A topology assignment (levels, domains) in the API's slice encoding: one slice of one domain per domain (a
    valid encoding, if not the most compact one Kueue's tas.V1Beta2From picks)."""
    return {"levels": list(internal["levels"]), "slices": [
        {"domainCount": 1, "podCounts": {"universal": d["count"]},
         "valuesPerLevel": [{"universal": v} for v in d["values"]]} for d in internal["domains"]]}


class TopologyAssignmentW(Builder):
    """utiltestingapi.MakeTopologyAssignment: levels and domains as Kueue's internal tas.TopologyAssignment holds
    them."""

    def __init__(self, levels: list[str]) -> None:
        self.obj = {"levels": list(levels), "domains": []}

    def Levels(self, *levels: str) -> TopologyAssignmentW:
        self.obj["levels"] = list(levels)
        return self

    def Domain(self, domain: Any) -> TopologyAssignmentW:
        self.obj["domains"].append(copy.deepcopy(domain.obj if isinstance(domain, Builder) else domain))
        return self

    def Domains(self, *domains: Any) -> TopologyAssignmentW:
        self.obj["domains"] = []
        for domain in domains:
            self.Domain(domain)
        return self



class FlavorQuotasW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"name": name, "resources": []}

    def Resource(self, name: str, *qs: Any) -> FlavorQuotasW:
        rq: dict[str, Any] = {"name": name}
        if len(qs) > 0:
            rq["nominalQuota"] = quantity(qs[0])
        if len(qs) > 1 and qs[1] != "":
            rq["borrowingLimit"] = quantity(qs[1])
        if len(qs) > 2 and qs[2] != "":
            rq["lendingLimit"] = quantity(qs[2])
        if "nominalQuota" not in rq:
            rq["nominalQuota"] = "0"
        self.obj["resources"].append(rq)
        return self

    def ResourceQuotaWrapper(self, name: str) -> ResourceQuotaW:
        return ResourceQuotaW(self, name)


class ResourceQuotaW(Builder):
    """FlavorQuotasWrapper.ResourceQuotaWrapper(name)...Append(): one resource's quotas, then back to the flavor."""

    def __init__(self, parent: FlavorQuotasW, name: str) -> None:
        self.parent = parent
        self.obj = {"name": name, "nominalQuota": "0"}

    def NominalQuota(self, q: Any) -> ResourceQuotaW:
        self.obj["nominalQuota"] = quantity(q)
        return self

    def BorrowingLimit(self, q: Any) -> ResourceQuotaW:
        self.obj["borrowingLimit"] = quantity(q)
        return self

    def LendingLimit(self, q: Any) -> ResourceQuotaW:
        self.obj["lendingLimit"] = quantity(q)
        return self

    def Append(self) -> FlavorQuotasW:
        self.parent.obj["resources"].append(self.obj)
        return self.parent


def resource_group(*flavors: Any) -> dict[str, Any]:
    """A ResourceGroup; a flavor without resources (a nil slice in Go) is written without ``resources``, and a group
    covering none without ``coveredResources``, as Kueue's objects serialize them."""
    objs = [copy.deepcopy(f.obj if isinstance(f, FlavorQuotasW) else f) for f in flavors]
    for flavor in objs:
        if not flavor.get("resources"):
            flavor.pop("resources", None)
    covered = [r["name"] for r in objs[0].get("resources", [])] if objs else []
    return {**({"coveredResources": covered} if covered else {}), "flavors": objs}


class ClusterQueueW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
                    "spec": {"flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
                             "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO"}}

    def Cohort(self, name: str) -> ClusterQueueW:
        self.obj["spec"]["cohortName"] = name
        return self

    def ResourceGroup(self, *flavors: Any) -> ClusterQueueW:
        self.obj["spec"].setdefault("resourceGroups", []).append(resource_group(*flavors))
        return self

    def Preemption(self, p: dict[str, Any]) -> ClusterQueueW:
        self.obj["spec"]["preemption"] = strip_type(p)
        return self

    def FlavorFungibility(self, f: dict[str, Any]) -> ClusterQueueW:
        self.obj["spec"]["flavorFungibility"] = strip_type(f)
        return self

    def FairWeight(self, w: Any) -> ClusterQueueW:
        self.obj["spec"]["fairSharing"] = {"weight": quantity(w)}
        return self

    def QueueingStrategy(self, s: str) -> ClusterQueueW:
        self.obj["spec"]["queueingStrategy"] = s
        return self

    def AdmissionChecks(self, *names: str) -> ClusterQueueW:
        self.obj["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": n} for n in names]}
        return self


class CohortW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": name}, "spec": {}}

    def Parent(self, name: str) -> CohortW:
        self.obj["spec"]["parentName"] = name
        return self

    def ResourceGroup(self, *flavors: Any) -> CohortW:
        self.obj["spec"].setdefault("resourceGroups", []).append(resource_group(*flavors))
        return self

    def FairWeight(self, w: Any) -> CohortW:
        self.obj["spec"]["fairSharing"] = {"weight": quantity(w)}
        return self


class ResourceFlavorW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
                    "spec": {}}

    def NodeLabel(self, k: str, v: str) -> ResourceFlavorW:
        self.obj["spec"].setdefault("nodeLabels", {})[k] = v
        return self

    def Taint(self, t: dict[str, Any]) -> ResourceFlavorW:
        self.obj["spec"].setdefault("nodeTaints", []).append(strip_type(t))
        return self

    def Toleration(self, t: dict[str, Any]) -> ResourceFlavorW:
        self.obj["spec"].setdefault("tolerations", []).append(strip_type(t))
        return self

    def TopologyName(self, name: str) -> ResourceFlavorW:
        self.obj["spec"]["topologyName"] = name
        return self


class TopologyW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": name},
                    "spec": {"levels": []}}

    def Levels(self, *labels: str) -> TopologyW:
        self.obj["spec"]["levels"] = [{"nodeLabel": label} for label in labels]
        return self


def one_level_topology(name: str) -> dict[str, Any]:
    """utiltestingapi.MakeDefaultOneLevelTopology: the hostname level only."""
    return TopologyW(name).Levels("kubernetes.io/hostname").obj


def topology_levels(topology: Any) -> list[str]:
    """utiltas.Levels: the node labels of a Topology's levels, top down."""
    obj = topology.obj if isinstance(topology, Builder) else topology
    return [level["nodeLabel"] for level in obj["spec"]["levels"]]


class NodeW(Builder):
    """testingnode.MakeNode: a Node with only its name; the methods set what their Go namesakes do."""

    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {}, "status": {}}

    def Label(self, k: str, v: str) -> NodeW:
        self.obj["metadata"].setdefault("labels", {})[k] = v
        return self

    def StatusAllocatable(self, resources: dict[str, Any]) -> NodeW:
        self.obj["status"].setdefault("allocatable", {}).update({r: quantity(q) for r, q in resources.items()})
        return self

    def _condition(self, status: str) -> NodeW:
        conditions = [c for c in self.obj["status"].get("conditions", []) if c["type"] != "Ready"]
        self.obj["status"]["conditions"] = [*conditions, {"type": "Ready", "status": status}]
        return self

    def Ready(self) -> NodeW:
        return self._condition("True")

    def NotReady(self) -> NodeW:
        return self._condition("False")

    def Taints(self, *taints: Any) -> NodeW:
        self.obj["spec"].setdefault("taints", []).extend(strip_type(t) for t in taints)
        return self

    def Unschedulable(self) -> NodeW:
        self.obj["spec"]["unschedulable"] = True
        return self


class LocalQueueW(Builder):
    def __init__(self, name: str, namespace: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                    "metadata": {"name": name, "namespace": namespace}, "spec": {}}

    def ClusterQueue(self, cq: str) -> LocalQueueW:
        self.obj["spec"]["clusterQueue"] = cq
        return self


class AdmissionCheckW(Builder):
    def __init__(self, name: str) -> None:
        self.obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": name},
                    "spec": {}, "status": {}}

    def ControllerName(self, name: str) -> AdmissionCheckW:
        self.obj["spec"]["controllerName"] = name
        return self

    def Condition(self, cond: dict[str, Any]) -> AdmissionCheckW:
        self.obj["status"].setdefault("conditions", []).append(strip_type(cond))
        return self


def lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def strip_type(value: Any) -> Any:
    """A composite literal as the manifest writes it: Go field names in lowerCamelCase, no ``__type__``."""
    if isinstance(value, Builder):
        return strip_type(value.obj)
    if isinstance(value, dict):
        return {(lower_first(k) if isinstance(k, str) and k[:1].isupper() and "/" not in k else k): strip_type(v)
                for k, v in value.items() if k != "__type__"}
    if isinstance(value, list):
        return [strip_type(v) for v in value]
    return value


# --- names -------------------------------------------------------------------------------------------

CONSTANTS: dict[str, Any] = {
    "corev1.ResourceCPU": "cpu", "corev1.ResourceMemory": "memory", "corev1.ResourcePods": "pods",
    "corev1.TaintEffectNoSchedule": "NoSchedule", "corev1.TolerationOpEqual": "Equal",
    "corev1.TolerationOpExists": "Exists", "corev1.NodeSelectorOpIn": "In", "corev1.NodeSelectorOpNotIn": "NotIn",
    "metav1.ConditionTrue": "True", "metav1.ConditionFalse": "False",
    "kueue.DefaultPodSetName": "main",
    "kueue.WorkloadEvicted": "Evicted", "kueue.WorkloadPreempted": "Preempted",
    "kueue.WorkloadQuotaReserved": "QuotaReserved", "kueue.WorkloadAdmitted": "Admitted",
    "kueue.InClusterQueueReason": "InClusterQueue", "kueue.InCohortReclamationReason": "InCohortReclamation",
    "kueue.InCohortFairSharingReason": "InCohortFairSharing",
    "kueue.InCohortReclaimWhileBorrowingReason": "InCohortReclaimWhileBorrowing",
    "kueue.MayStopSearch": "MayStopSearch", "kueue.TryNextFlavor": "TryNextFlavor",
    "kueue.Borrow": "Borrow", "kueue.Preempt": "Preempt",
    "kueue.BestEffortFIFO": "BestEffortFIFO", "kueue.StrictFIFO": "StrictFIFO",
    "config.LessThanOrEqualToFinalShare": "LessThanOrEqualToFinalShare",
    "config.LessThanInitialShare": "LessThanInitialShare",
    "flavorassigner.Fit": "Fit", "flavorassigner.Preempt": "Preempt", "flavorassigner.NoFit": "NoFit",
    "Fit": "Fit", "Preempt": "Preempt", "NoFit": "NoFit",
    "time.Second": timedelta(seconds=1), "time.Minute": timedelta(minutes=1), "time.Hour": timedelta(hours=1),
    "time.Millisecond": timedelta(milliseconds=1),
    "nil": None, "true": True, "false": False,
    "corev1.LabelHostname": "kubernetes.io/hostname", "corev1.EventTypeNormal": "Normal",
    "corev1.EventTypeWarning": "Warning", "corev1.TaintEffectNoExecute": "NoExecute",
    "kueue.ProvisioningRequestControllerName": "kueue.x-k8s.io/provisioning-request",
    "kueue.AdmissionCheckActive": "Active", "config.Retain": "Retain", "config.Replace": "Replace",
    "controllerconstants.JobUIDLabel": "kueue.x-k8s.io/job-uid",
    "utiltesting.Ki": 1 << 10, "utiltesting.Mi": 1 << 20, "utiltesting.Gi": 1 << 30,
    "preemptioncommon.Preempt": "Preempt", "preemptioncommon.Reclaim": "Reclaim",
    "preemptioncommon.NoCandidates": "NoCandidates",
}
PREFIXES = ("kueue.PreemptionPolicy", "kueue.BorrowWithinCohortPolicy", "kueue.", "features.")


def dotted(expr: Any) -> str | None:
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Attr):
        base = dotted(expr.obj)
        return None if base is None else f"{base}.{expr.name}"
    return None


class Evaluator:
    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env
        self.functions: dict[str, Any] = {
            "utiltestingapi.MakeWorkload": WorkloadW, "utiltestingapi.MakePodSet": PodSetW,
            "utiltestingapi.MakeAdmission": AdmissionW, "utiltestingapi.MakePodSetAssignment": PodSetAssignmentW,
            "utiltestingapi.MakeFlavorQuotas": FlavorQuotasW, "utiltestingapi.MakeClusterQueue": ClusterQueueW,
            "utiltestingapi.MakeCohort": CohortW, "utiltestingapi.MakeResourceFlavor": ResourceFlavorW,
            "utiltestingapi.ResourceGroup": resource_group,
            "testingnode.MakeNode": NodeW, "utiltestingapi.MakeTopology": TopologyW,
            "utiltestingapi.MakeDefaultOneLevelTopology": one_level_topology,
            "utiltestingapi.MakeTopologyAssignment": TopologyAssignmentW,
            "utiltestingapi.MakeTopologyDomainAssignment": TopologyDomainW, "utiltas.Levels": topology_levels,
            "utiltestingapi.MakeAdmissionCheck": AdmissionCheckW, "utiltestingapi.MakeLocalQueue": LocalQueueW,
            "utiltesting.MakeEventRecord": EventRecordW,
            "resource.MustParse": lambda q: q, "new": lambda v: v, "ptr.To": lambda v: v,
            "int32": int, "int64": int, "int": int, "string": str,
            "kueue.ClusterQueueReference": str, "kueue.ResourceFlavorReference": str, "kueue.CohortReference": str,
            "kueue.AdmissionCheckReference": str,
            "kueue.PodSetReference": str, "corev1.ResourceName": str, "kueue.LocalQueueName": str,
            "metav1.NewTime": lambda t: t, "sets.New": lambda *xs: set(xs),
            "targetKeyReason": lambda key, reason: (key, reason),
            "singlePodSetAssignment": lambda flavors: {"__type__": "flavorassigner.Assignment", "PodSets": [
                {"__type__": "flavorassigner.PodSetAssignment", "Name": "main", "Flavors": flavors, "Count": 1}]},
            "resources.NewAmount": lambda n: n,
            "utiltesting.SingleContainerForRequest": lambda requests: [
                {"name": "", "resources": {"requests": {r: quantity(q) for r, q in requests.items()}}}],
            "NewStatus": lambda *reasons: {"__type__": "Status", "reasons": list(reasons)},
        }

    def eval(self, expr: Any) -> Any:
        if isinstance(expr, Lit):
            return expr.value
        if isinstance(expr, Name | Attr):
            name = dotted(expr)
            if name is not None:
                if name in self.env:
                    return self.env[name]
                if name in CONSTANTS:
                    return CONSTANTS[name]
                for prefix in PREFIXES:
                    if name.startswith(prefix) and name[len(prefix):][:1].isupper():
                        return name[len(prefix):]
            if isinstance(expr, Attr):
                receiver = self.eval(expr.obj)
                if isinstance(receiver, Builder) and expr.name in EMBEDDED:
                    return receiver  # the wrapper's embedded object (WorkloadWrapper.Workload)
                if isinstance(receiver, Builder) and expr.name == "Name" and "metadata" in receiver.obj:
                    return receiver.obj["metadata"]["name"]  # ObjectMeta.Name, promoted
                raise GoError(f"field {expr.name} of {type(receiver).__name__}")
            raise GoError(f"unknown name {name}")
        if isinstance(expr, Unary):
            value = self.eval(expr.operand)
            if expr.op == "-":
                return -value
            if expr.op == "!":
                return not value
            return value  # & and *
        if isinstance(expr, Binary):
            left, right = self.eval(expr.left), self.eval(expr.right)
            ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}
            if expr.op not in ops:
                raise GoError(f"operator {expr.op}")
            return ops[expr.op](left, right)
        if isinstance(expr, Call):
            return self.call(expr)
        if isinstance(expr, Index):
            return self.eval(expr.obj)  # generic instantiation (sets.New[string])
        if isinstance(expr, Composite):
            return self.composite(expr)
        if isinstance(expr, TypeExpr):
            return expr
        raise GoError(f"cannot evaluate {expr!r}")

    def call(self, expr: Call) -> Any:
        func = expr.func
        if isinstance(func, Index):
            func = func.obj
        name = dotted(func)
        if name is not None and name in self.functions and name not in self.env:
            return self.functions[name](*[self.eval(a) for a in expr.args])
        if isinstance(func, Attr):
            receiver = self.eval(func.obj)
            args = [self.eval(a) for a in expr.args]
            if isinstance(receiver, Builder):
                return receiver.call(func.name, args)
            if isinstance(receiver, datetime):
                if func.name == "Add":
                    return receiver + args[0]
                if func.name == "Truncate":
                    return receiver
            if isinstance(receiver, timedelta) and func.name == "Seconds":
                return receiver.total_seconds()
            raise GoError(f"cannot call {func.name} on {type(receiver).__name__}")
        raise GoError(f"unknown function {name}")

    def composite(self, expr: Composite) -> Any:
        typ = expr.type
        text = typ.text if isinstance(typ, TypeExpr) else (dotted(typ) if typ is not None else None)
        if text is not None and text.startswith("["):
            return [self.eval(v) if not isinstance(v, Composite) or v.type is not None
                    else self.composite(Composite(TypeExpr(text[text.index("]") + 1:]), v.elems))
                    for _, v in expr.elems]
        if text is not None and (text.startswith("map[") or text in MAP_TYPES):
            return {self._key(k): self.eval(v) for k, v in expr.elems}
        if text is None and expr.elems and all(k is None for k, _ in expr.elems):
            return [self.eval(v) for _, v in expr.elems]  # positional fields of an elided struct, in order
        result: dict[str, Any] = {"__type__": text}
        for k, v in expr.elems:
            if k is None:
                raise GoError(f"positional fields in {text}")
            result[k.name if isinstance(k, Name) else self._key(k)] = self.eval(v)
        return result

    def _key(self, k: Any) -> Any:
        value = self.eval(k)
        if isinstance(value, dict):
            return tuple(sorted((kk, vv) for kk, vv in value.items() if kk != "__type__"))
        return value


class EventRecordW(Builder):
    """utiltesting.MakeEventRecord: the event's object key, reason and type (a test's wantEvents)."""

    def __init__(self, namespace: str, name: str, reason: str, type_: str) -> None:
        self.obj = {"key": f"{namespace}/{name}", "reason": reason, "type": type_}

    def Message(self, message: str) -> EventRecordW:
        self.obj["message"] = message
        return self


EMBEDDED = {"Workload", "ClusterQueue", "Cohort", "ResourceFlavor", "PodSet", "Admission", "PodSetAssignment",
            "FlavorQuotas"}

# Named map types of Kueue's packages (a composite of these is a map, its keys evaluated).
MAP_TYPES = {"flavorassigner.ResourceAssignment", "ResourceAssignment", "corev1.ResourceList",
             "resources.FlavorResourceQuantities", "map[resources.FlavorResource]simulationResultForFlavor"}
