"""Kueue API versions, and conversion of any of them to and from the v1beta2 hub.

Rules: API-1..API-5 (v1beta1 <-> v1beta2, mirroring Kueue's conversion webhook in
``apis/kueue/v1beta1/*_conversion.go``) and LEG-1..LEG-6 (the alpha APIs of Kueue 0.1, 0.2 and the
0.9-0.12 Cohort, which have no converter in Kueue: kqctl reads them to help migrations).

Everything works on plain dicts as loaded from YAML; the input is never mutated. A field that
cannot be carried over is reported as a ``CONV-DROPPED`` warning, never dropped silently. Issue
paths point into the *input* document, so the loader can attach its line numbers.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from kqctl.k8s.kinds import split_api_version
from kqctl.k8s.quantity import Quantity, QuantityError, parse_quantity
from kqctl.kueue.kinds import GROUP, KUEUE_KINDS
from kqctl.origin import FieldPath, format_path

V1BETA2 = "v1beta2"
V1BETA1 = "v1beta1"
V1ALPHA2 = "v1alpha2"
V1ALPHA1 = "v1alpha1"

#: Versions kqctl reads (§1.1).
SUPPORTED_VERSIONS = (V1BETA2, V1BETA1, V1ALPHA2, V1ALPHA1)
#: Versions kqctl can write (``kqctl convert --to``).
CONVERSION_TARGETS = (V1BETA2, V1BETA1)

RULE_DROPPED = "CONV-DROPPED"

WORKLOAD_PRIORITY_CLASS_SOURCE = "kueue.x-k8s.io/workloadpriorityclass"
POD_PRIORITY_CLASS_SOURCE = "scheduling.k8s.io/priorityclass"
_WPC_REF = (GROUP, "WorkloadPriorityClass")
_POD_PC_REF = ("scheduling.k8s.io", "PriorityClass")

IssueSeverity = Literal["error", "warning", "info"]
LegacyLabels = Literal["node", "ignore"]


@dataclass(frozen=True)
class ConversionIssue:
    """Something a conversion could not carry over exactly; ``path`` is in the input document."""

    severity: IssueSeverity
    path: FieldPath
    message: str
    rule_id: str

    @property
    def field(self) -> str:
        return format_path(self.path)


@dataclass(frozen=True)
class Conversion:
    """The converted object (a new dict) and what the conversion had to say about it."""

    body: dict[str, Any]
    issues: list[ConversionIssue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(issue.severity == "error" for issue in self.issues)


class _Context:
    """Collects issues while one object is converted."""

    def __init__(self, legacy_rf_labels: LegacyLabels = "node") -> None:
        self.issues: list[ConversionIssue] = []
        self.legacy_rf_labels = legacy_rf_labels

    def add(self, severity: IssueSeverity, path: FieldPath, message: str, rule_id: str) -> None:
        # Every reader puts the rule ID in front ("LEG-3: ..."): a message naming its own rule again would
        # print it twice ("LEG-3: ... (LEG-3)"). A reference to another rule stays.
        message = message.removeprefix(f"{rule_id}: ").removesuffix(f" ({rule_id})")
        self.issues.append(ConversionIssue(severity, path, message, rule_id))

    def dropped(self, path: FieldPath, why: str) -> None:
        self.add("warning", path, f"{format_path(path)} is dropped: {why}", RULE_DROPPED)


Converter = Callable[[dict[str, Any], _Context], None]

# --- public entry points -----------------------------------------------------------------------


def to_v1beta2(body: dict[str, Any], *, legacy_rf_labels: LegacyLabels = "node", copy_hub: bool = True,
               ) -> Conversion:
    """Convert a Kueue object of any supported version to v1beta2 (API-1..5, LEG-1..6).

    ``legacy_rf_labels`` is LEG-4's choice for v1alpha2 ResourceFlavors: copy the object's
    ``metadata.labels`` to ``spec.nodeLabels`` (``node``, what Kueue 0.2 did) or not (``ignore``).
    A v1beta2 object comes back as a copy unless ``copy_hub`` is False (read-only callers on a
    hot path: the same dict is returned).
    """
    version, kind = _version_and_kind(body)
    if version == V1BETA2:
        _require_kind(kind in KUEUE_KINDS, version, kind)
        return Conversion(copy.deepcopy(body) if copy_hub else body, [])
    converter = _TO_HUB.get((version, kind))
    if converter is None:
        raise _unknown_kind(version, kind)
    return _run(converter, body, V1BETA2, _Context(legacy_rf_labels))


def from_v1beta2(body: dict[str, Any], version: str) -> Conversion:
    """Convert a v1beta2 Kueue object to ``version`` (only v1beta2 and v1beta1 can be written)."""
    source, kind = _version_and_kind(body)
    if source != V1BETA2:
        raise ValueError(f"from_v1beta2 needs a {GROUP}/{V1BETA2} object, got {body.get('apiVersion')!r}")
    _require_target(version)
    _require_kind(kind in KUEUE_KINDS, source, kind)
    if version == V1BETA2:
        return Conversion(copy.deepcopy(body), [])
    return _run(_FROM_HUB.get((version, kind), _identity), body, version, _Context())


def convert(body: dict[str, Any], to_version: str, *, legacy_rf_labels: LegacyLabels = "node") -> Conversion:
    """Convert a Kueue object of any supported version to ``to_version``, through v1beta2."""
    _require_target(to_version)
    source, _ = _version_and_kind(body)
    if source == to_version:
        return Conversion(copy.deepcopy(body), [])
    hub = to_v1beta2(body, legacy_rf_labels=legacy_rf_labels)
    if to_version == V1BETA2:
        return hub
    back = from_v1beta2(hub.body, to_version)
    return Conversion(back.body, hub.issues + back.issues)


def _run(converter: Converter, body: dict[str, Any], version: str, ctx: _Context) -> Conversion:
    obj = copy.deepcopy(body)
    obj["apiVersion"] = f"{GROUP}/{version}"
    converter(obj, ctx)
    return Conversion(obj, ctx.issues)


def _version_and_kind(body: Any) -> tuple[str, str]:
    if not isinstance(body, dict):
        raise ValueError("a Kueue object must be a mapping")
    api_version = body.get("apiVersion")
    kind = body.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise ValueError("a Kueue object needs string apiVersion and kind")
    group, version = split_api_version(api_version)
    if group != GROUP:
        raise ValueError(f"{api_version} {kind} is not a Kueue object (group {GROUP})")
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"unsupported Kueue API version {version!r}; supported: {', '.join(SUPPORTED_VERSIONS)}"
        )
    return version, kind


def _require_target(version: str) -> None:
    if version not in CONVERSION_TARGETS:
        raise ValueError(
            f"cannot convert to {version!r}: supported targets are {', '.join(CONVERSION_TARGETS)}"
            " (alpha versions are read for migration only)"
        )


def _require_kind(known: bool, version: str, kind: str) -> None:
    if not known:
        raise _unknown_kind(version, kind)


def _unknown_kind(version: str, kind: str) -> ValueError:
    return ValueError(f"kind {kind!r} does not exist in {GROUP}/{version}")


# --- small dict helpers ------------------------------------------------------------------------


def _child(parent: Any, key: str) -> dict[str, Any] | None:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else None


def _items(parent: Any, key: str) -> list[tuple[int, dict[str, Any]]]:
    """The mapping elements of ``parent[key]`` with their indexes (other elements are skipped)."""
    value = parent.get(key) if isinstance(parent, dict) else None
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]


def _rename(parent: dict[str, Any] | None, old: str, new: str) -> None:
    if parent is not None and old in parent:
        parent[new] = parent.pop(old)


def _drop(parent: dict[str, Any] | None, key: str, path: FieldPath, why: str, ctx: _Context) -> None:
    if parent is not None and key in parent:
        del parent[key]
        ctx.dropped((*path, key), why)


def _identity(obj: dict[str, Any], ctx: _Context) -> None:
    """API-5: ResourceFlavor, WorkloadPriorityClass, Topology, ... are field-for-field identical."""


# --- API-1 ClusterQueue ------------------------------------------------------------------------


def _cq_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is not None:
        _cohort_to_cohort_name(spec, ctx)
        _admission_checks_to_strategy(spec, ctx)
        _fungibility_aliases(spec, ctx)
    status = _child(obj, "status")
    _drop(status, "pendingWorkloadsStatus", ("status",), "v1beta2 has no pendingWorkloadsStatus (API-1)", ctx)
    _drop_admission_fair_sharing_status(status, ctx)


def _cohort_to_cohort_name(spec: dict[str, Any], ctx: _Context) -> None:
    if "cohort" in spec and "cohortName" in spec:
        # cohortName is unknown to v1beta1: Kueue's decoder ignores it and converts spec.cohort.
        ctx.dropped(("spec", "cohortName"), "not a v1beta1 field; spec.cohort is converted instead (API-1)")
    _rename(spec, "cohort", "cohortName")


def _admission_checks_to_strategy(spec: dict[str, Any], ctx: _Context) -> None:
    """API-1: a non-empty v1beta1 ``admissionChecks`` list replaces ``admissionChecksStrategy``."""
    checks = spec.pop("admissionChecks", None)
    if not isinstance(checks, list) or not checks:
        return
    if "admissionChecksStrategy" in spec:
        ctx.add(
            "warning",
            ("spec", "admissionChecksStrategy"),
            "spec.admissionChecksStrategy is replaced by spec.admissionChecks: v1beta1 forbade setting "
            "both, and Kueue's conversion lets the plain list win (API-1)",
            "API-1",
        )
    spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": name} for name in checks]}


# API-1: deprecated v1beta1 aliases and their v1beta2 value.
_FUNGIBILITY_ALIASES = (("whenCanBorrow", "Borrow"), ("whenCanPreempt", "Preempt"))


def _fungibility_aliases(spec: dict[str, Any], ctx: _Context) -> None:
    fungibility = _child(spec, "flavorFungibility")
    if fungibility is None:
        return
    for key, alias in _FUNGIBILITY_ALIASES:
        if fungibility.get(key) == alias:
            fungibility[key] = "MayStopSearch"
            ctx.add(
                "info",
                ("spec", "flavorFungibility", key),
                f"deprecated value {alias} is written as MayStopSearch in v1beta2 (API-1)",
                "API-1",
            )


def _drop_admission_fair_sharing_status(status: dict[str, Any] | None, ctx: _Context) -> None:
    _drop(
        _child(status, "fairSharing"),
        "admissionFairSharingStatus",
        ("status", "fairSharing"),
        "v1beta2 has no admissionFairSharingStatus (API-1)",
        ctx,
    )


def _cq_hub_to_v1beta1(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is None:
        return
    _rename(spec, "cohortName", "cohort")
    # v1beta1 keeps admissionChecksStrategy (with onFlavors) as is; only the alpha feature is lost.
    _drop(
        spec, "concurrentAdmissionPolicy", ("spec",), "v1beta1 has no concurrentAdmissionPolicy (API-1)", ctx
    )


# --- API-2 Workload ----------------------------------------------------------------------------


def _wl_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is not None:
        _priority_class_source_to_ref(spec, ctx)
    status = _child(obj, "status")
    _rename(status, "accumulatedPastExexcutionTimeSeconds", "accumulatedPastExecutionTimeSeconds")
    _drop_topology_assignments(status, ctx)


def _drop_topology_assignments(status: dict[str, Any] | None, ctx: _Context) -> None:
    """API-2, both directions: the node encoding differs and is not translated, so it is reported dropped."""
    for i, assignment in _items(_child(status, "admission"), "podSetAssignments"):
        _drop(
            assignment,
            "topologyAssignment",
            ("status", "admission", "podSetAssignments", i),
            "its node encoding differs between v1beta1 and v1beta2 and kqctl does not translate it (API-2); "
            "the nodes this workload holds are not counted in topology-aware placement",
            ctx,
        )


def _priority_class_source_to_ref(spec: dict[str, Any], ctx: _Context) -> None:
    """API-2: priorityClassSource + priorityClassName -> priorityClassRef."""
    source = spec.pop("priorityClassSource", "")
    name = spec.pop("priorityClassName", None)
    refs = {WORKLOAD_PRIORITY_CLASS_SOURCE: _WPC_REF, POD_PRIORITY_CLASS_SOURCE: _POD_PC_REF}
    target = refs.get(source) if isinstance(source, str) else None
    if target is not None:
        group, kind = target
        spec["priorityClassRef"] = _priority_class_ref(group, kind, name)
    elif name:
        ctx.dropped(
            ("spec", "priorityClassName"),
            f"priorityClassSource is {source!r}, and Kueue's conversion only keeps the name for "
            f"{WORKLOAD_PRIORITY_CLASS_SOURCE!r} or {POD_PRIORITY_CLASS_SOURCE!r} (API-2); "
            "spec.priority is kept and is what the scheduler uses",
        )


def _priority_class_ref(group: str, kind: str, name: Any) -> dict[str, Any]:
    ref: dict[str, Any] = {"group": group, "kind": kind}
    if name:  # PriorityClassRef.Name is omitempty in Go
        ref["name"] = name
    return ref


def _wl_hub_to_v1beta1(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is not None:
        _priority_class_ref_to_source(spec, ctx)
        _drop(spec, "preemptionGates", ("spec",), "v1beta1 has no preemption gates (API-2)", ctx)
        for i, pod_set in _items(spec, "podSets"):
            _drop(
                _child(pod_set, "topologyRequest"),
                "podsetSliceRequiredTopologyConstraints",
                ("spec", "podSets", i, "topologyRequest"),
                "v1beta1 has no equivalent field (API-2)",
                ctx,
            )
    status = _child(obj, "status")
    _rename(status, "accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds")
    _drop(status, "preemptionGates", ("status",), "v1beta1 has no preemption gates (API-2)", ctx)
    _drop_topology_assignments(status, ctx)


def _priority_class_ref_to_source(spec: dict[str, Any], ctx: _Context) -> None:
    ref = spec.pop("priorityClassRef", None)
    if ref is None:
        return
    sources: dict[tuple[Any, Any], str] = {
        _WPC_REF: WORKLOAD_PRIORITY_CLASS_SOURCE,
        _POD_PC_REF: POD_PRIORITY_CLASS_SOURCE,
    }
    # Compared, not hashed: a group or kind of the wrong type (a map, a list) is simply no known reference.
    key = (ref.get("group"), ref.get("kind")) if isinstance(ref, dict) else None
    source = next((value for known, value in sources.items() if known == key), None)
    if source is None:
        ctx.dropped(
            ("spec", "priorityClassRef"),
            "v1beta1 can only name a WorkloadPriorityClass or a scheduling.k8s.io PriorityClass (API-2)",
        )
        return
    spec["priorityClassSource"] = source
    if ref.get("name"):
        spec["priorityClassName"] = ref["name"]


# --- API-3 LocalQueue, API-4 AdmissionCheck, API-5 Cohort -------------------------------------


def _lq_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    status = _child(obj, "status")
    _rename(status, "flavorUsage", "flavorsUsage")
    _drop(status, "flavors", ("status",), "v1beta2 LocalQueues do not list their flavors (API-3)", ctx)


def _lq_hub_to_v1beta1(obj: dict[str, Any], ctx: _Context) -> None:
    _rename(_child(obj, "status"), "flavorsUsage", "flavorUsage")


def _ac_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    _drop(
        _child(obj, "spec"),
        "retryDelayMinutes",
        ("spec",),
        "v1beta2 has no retryDelayMinutes; it had no effect in v1beta1 either (API-4)",
        ctx,
    )


def _cohort_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    _drop_admission_fair_sharing_status(_child(obj, "status"), ctx)


# --- MultiKueue (out of scope for simulation, but converted like Kueue does) ------------------


def _mk_cluster_v1beta1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is None:
        return
    source: dict[str, Any] = {}
    kube_config = spec.pop("kubeConfig", None)
    # Kueue converts kubeConfig only when its location is set.
    if isinstance(kube_config, dict) and kube_config.get("location"):
        source["kubeConfig"] = kube_config
    elif kube_config is not None:
        ctx.dropped(("spec", "kubeConfig"), "it has no location, and Kueue's conversion needs one")
    if "clusterProfileRef" in spec:
        source["clusterProfileRef"] = spec.pop("clusterProfileRef")
    if source:
        spec["clusterSource"] = source


def _mk_cluster_hub_to_v1beta1(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    source = spec.pop("clusterSource", None) if spec is not None else None
    if spec is not None and isinstance(source, dict):
        spec.update({key: source[key] for key in ("kubeConfig", "clusterProfileRef") if key in source})


def _mk_config_hub_to_v1beta1(obj: dict[str, Any], ctx: _Context) -> None:
    _drop(_child(obj, "spec"), "quotaManagement", ("spec",), "v1beta1 has no quotaManagement", ctx)


# --- LEG-1/LEG-2 legacy LocalQueue and ResourceFlavor ------------------------------------------


def _queue_v1alpha1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    obj["kind"] = "LocalQueue"
    ctx.add("info", ("kind",), "the v1alpha1 Queue is the LocalQueue of later versions (LEG-1)", "LEG-1")


def _rf_v1alpha1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    """LEG-4: v1alpha1 keeps labels and taints at the top level of the object."""
    spec = _legacy_rf_spec(obj)
    if "labels" in obj:
        spec["nodeLabels"] = obj.pop("labels")


def _rf_v1alpha2_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    """LEG-4: in v1alpha2 the object's own metadata.labels were the flavor's node labels."""
    spec = _legacy_rf_spec(obj)
    labels = _child(obj, "metadata")
    labels = _child(labels, "labels")
    if not labels:
        return
    shown = ", ".join(f"{key}={value}" for key, value in labels.items())
    if ctx.legacy_rf_labels == "node":
        spec["nodeLabels"] = dict(labels)
        message = (
            f"metadata.labels are copied to spec.nodeLabels ({shown}); check that all of them are node labels"
        )
    else:
        message = (
            f"metadata.labels are not copied to spec.nodeLabels ({shown}); in v1alpha2 they were node labels"
        )
    ctx.add("warning", ("metadata", "labels"), message + " (LEG-4, --legacy-rf-labels=node|ignore)", "LEG-4")


def _legacy_rf_spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    if "taints" in obj:
        spec["nodeTaints"] = obj.pop("taints")
    return spec


# --- LEG-5 Cohort --------------------------------------------------------------------------------


def _cohort_v1alpha1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    _rename(_child(obj, "spec"), "parent", "parentName")


# --- LEG-3 legacy ClusterQueue --------------------------------------------------------------------


def _cq_v1alpha1_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    _cq_alpha_to_hub(obj, ctx, independent_flavors=True)


def _cq_v1alpha2_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    _cq_alpha_to_hub(obj, ctx, independent_flavors=False)


def _cq_alpha_to_hub(obj: dict[str, Any], ctx: _Context, independent_flavors: bool) -> None:
    spec = _child(obj, "spec")
    if spec is not None:
        has_cohort = bool(spec.get("cohort"))
        _rename(spec, "cohort", "cohortName")
        if "resources" in spec:
            resources = spec.pop("resources")
            spec["resourceGroups"] = _resources_to_groups(resources, has_cohort, independent_flavors, ctx)
    _drop(
        _child(obj, "status"),
        "usedResources",
        ("status",),
        "its shape changed; Kueue recomputes usage (status.flavorsUsage) from admitted workloads (LEG-3)",
        ctx,
    )


@dataclass
class _LegacyResource:
    index: int
    name: Any
    flavors: list[tuple[int, dict[str, Any]]]

    @property
    def flavor_names(self) -> tuple[Any, ...]:
        return tuple(flavor.get("name") for _, flavor in self.flavors)

    @property
    def flavor_keys(self) -> tuple[str, ...]:
        """The flavor names as hashable keys: a name can be any JSON value in a broken manifest."""
        return tuple(json.dumps(name, sort_keys=True, default=str) for name in self.flavor_names)


def _resources_to_groups(
    resources: Any, has_cohort: bool, independent_flavors: bool, ctx: _Context
) -> list[dict[str, Any]]:
    """LEG-3.1: resources listing the same flavors in the same order form one resource group."""
    if not isinstance(resources, list):
        ctx.add(
            "error", ("spec", "resources"), "spec.resources must be a list; it cannot be converted", "LEG-3"
        )
        return []
    legacy = _legacy_resources(resources, ctx)
    _check_shared_flavors(legacy, ctx)
    groups: dict[tuple[str, ...], list[_LegacyResource]] = {}
    for resource in legacy:
        groups.setdefault(resource.flavor_keys, []).append(resource)
    if independent_flavors:
        _warn_forced_same_flavor(groups.values(), ctx)
    return [_resource_group(members, has_cohort, ctx) for members in groups.values()]


def _legacy_resources(resources: list[Any], ctx: _Context) -> list[_LegacyResource]:
    legacy: list[_LegacyResource] = []
    for i, resource in enumerate(resources):
        if not isinstance(resource, dict):
            ctx.add("error", ("spec", "resources", i), "a resource must be a mapping; it is skipped", "LEG-3")
            continue
        flavors = _items(resource, "flavors")
        if not flavors:
            # A resource without flavors had no quota; v1beta2 cannot list a group without flavors.
            ctx.dropped(
                ("spec", "resources", i), f"resource {resource.get('name')} has no flavors, so no quota"
            )
            continue
        for j, flavor in flavors:
            name = flavor.get("name")
            if not isinstance(name, str):
                # Carried over as it is (the schema rejects it, and validate says so), but named for what it is.
                ctx.add("warning", ("spec", "resources", i, "flavors", j, "name"),
                        f"flavor name {json.dumps(name, default=str)} of resource {resource.get('name')} is "
                        f"{_json_type(name)}, not a string: it names no ResourceFlavor (carried over as it is)",
                        "LEG-3")
        legacy.append(_LegacyResource(i, resource.get("name"), flavors))
    return legacy


def _all_strings(names: tuple[Any, ...]) -> bool:
    return all(isinstance(name, str) for name in names)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (list, "a list"),
                       (dict, "a mapping")):
        if isinstance(value, kind):
            return name
    return "not a string"


def _check_shared_flavors(legacy: list[_LegacyResource], ctx: _Context) -> None:
    """LEG-3.2: a flavor can belong to one resource group only (v1alpha2 rejected this too)."""
    for i, later in enumerate(legacy):
        for earlier in legacy[:i]:
            if not (_all_strings(later.flavor_names) and _all_strings(earlier.flavor_names)):
                continue  # a name that is no string is reported as such, not as a difference of order
            shares = set(later.flavor_keys) & set(earlier.flavor_keys)
            if shares and later.flavor_keys != earlier.flavor_keys:
                ctx.add(
                    "error",
                    ("spec", "resources", later.index, "flavors"),
                    f"resources {earlier.name} and {later.name} share flavors in a different order; "
                    "a flavor belongs to one resource group only, so this ClusterQueue cannot be "
                    "represented in v1beta2",
                    "LEG-3",
                )


def _warn_forced_same_flavor(groups: Any, ctx: _Context) -> None:
    """LEG-3.5: Kueue 0.1 chose a flavor per resource; resource groups choose one for all."""
    for members in groups:
        if len(members) > 1:
            names = ", ".join(str(member.name) for member in members)
            ctx.add(
                "warning",
                ("spec", "resources", members[0].index),
                f"resources {names} now form one resource group and always get the same flavor; "
                "in Kueue 0.1 each resource picked its flavor independently (LEG-3)",
                "LEG-3",
            )


def _resource_group(members: list[_LegacyResource], has_cohort: bool, ctx: _Context) -> dict[str, Any]:
    flavors = []
    for position, name in enumerate(members[0].flavor_names):
        quotas = [_resource_quota(member, position, has_cohort, ctx) for member in members]
        flavors.append({"name": name, "resources": quotas})
    return {"coveredResources": [member.name for member in members], "flavors": flavors}


def _resource_quota(
    resource: _LegacyResource, position: int, has_cohort: bool, ctx: _Context
) -> dict[str, Any]:
    """LEG-3.3: nominalQuota = min (absent: 0); borrowingLimit = max - min when max is set."""
    index, flavor = resource.flavors[position]
    path: FieldPath = ("spec", "resources", resource.index, "flavors", index, "quota")
    quota = _child(flavor, "quota") or {}
    low = quota.get("min")
    out: dict[str, Any] = {"name": resource.name, "nominalQuota": "0" if low is None else low}
    high = quota.get("max")
    if high is None:
        return out
    limit = _borrowing_limit(low, high, str(flavor.get("name")), path, ctx)
    if limit is None:
        return out
    if not has_cohort:
        # LEG-3.4: without a cohort nothing could be borrowed anyway, and v1beta2 forbids the limit.
        ctx.dropped(
            (*path, "max"),
            "the ClusterQueue has no cohort, so it could never borrow, and v1beta2 forbids a "
            "borrowingLimit without cohortName (LEG-3)",
        )
        return out
    out["borrowingLimit"] = limit
    return out


def _borrowing_limit(low: Any, high: Any, flavor: str, path: FieldPath, ctx: _Context) -> str | None:
    """max - min, exactly, printed canonically (max was an absolute cap; borrowingLimit is extra)."""
    try:
        minimum = Quantity.from_int(0) if low is None else parse_quantity(low)
        maximum = parse_quantity(high)
    except QuantityError as exc:
        ctx.add("error", path, f"cannot compute borrowingLimit = max - min: {exc} (LEG-3)", "LEG-3")
        return None
    if minimum > maximum:
        ctx.add(
            "error",
            (*path, "min"),
            f"Invalid value: {minimum.canonical()!r}: must be less than or equal to {flavor} max; "
            "the old cap below the guaranteed quota cannot be expressed, borrowingLimit is set to 0 (LEG-2)",
            "LEG-2",
        )
        return "0"
    # Kubernetes' Quantity.Sub keeps the receiver's format: the difference prints like max.
    return Quantity(maximum.value - minimum.value, maximum.format, "").canonical()


# --- LEG-6 legacy Workload -------------------------------------------------------------------------


def _wl_alpha_to_hub(obj: dict[str, Any], ctx: _Context) -> None:
    spec = _child(obj, "spec")
    if spec is None:
        return
    for i, pod_set in _items(spec, "podSets"):
        _pod_spec_to_template(pod_set, i, ctx)
    _legacy_priority_class(spec, ctx)
    _drop_condition_probe_times(obj, ctx)
    admission = spec.pop("admission", None)
    if isinstance(admission, dict):
        _legacy_admission_to_status(obj, admission, ctx)
    elif admission is not None:
        ctx.add(
            "error", ("spec", "admission"), "spec.admission must be a mapping; it is not converted", "LEG-6"
        )


def _pod_spec_to_template(pod_set: dict[str, Any], index: int, ctx: _Context) -> None:
    if "spec" not in pod_set:
        return
    pod_spec = pod_set.pop("spec")
    if "template" in pod_set:
        ctx.dropped(
            ("spec", "podSets", index, "spec"), "the pod set also has a template, which is kept (LEG-6)"
        )
        return
    pod_set["template"] = {"spec": pod_spec}


def _legacy_priority_class(spec: dict[str, Any], ctx: _Context) -> None:
    """LEG-6: before priorityClassSource existed, priorityClassName named a Pod PriorityClass."""
    name = spec.pop("priorityClassName", None)
    if name:
        group, kind = _POD_PC_REF
        spec["priorityClassRef"] = _priority_class_ref(group, kind, name)
        ctx.add(
            "info",
            ("spec", "priorityClassName"),
            f"priorityClassName {name} is read as a scheduling.k8s.io PriorityClass (LEG-6)",
            "LEG-6",
        )


def _drop_condition_probe_times(obj: dict[str, Any], ctx: _Context) -> None:
    for i, condition in _items(_child(obj, "status"), "conditions"):
        _drop(
            condition,
            "lastProbeTime",
            ("status", "conditions", i),
            "v1beta2 conditions are metav1.Conditions without a probe time (LEG-6)",
            ctx,
        )


def _legacy_admission_to_status(obj: dict[str, Any], admission: dict[str, Any], ctx: _Context) -> None:
    """LEG-6: spec.admission -> status.admission plus the QuotaReserved condition Kueue would set."""
    status = obj.setdefault("status", {})
    if not isinstance(status, dict):
        status = obj["status"] = {}
    cluster_queue = admission.get("clusterQueue")
    pod_sets = {ps["name"]: ps for _, ps in _items(_child(obj, "spec"), "podSets") if isinstance(ps.get("name"), str)}
    status["admission"] = {
        "clusterQueue": cluster_queue,
        "podSetAssignments": [
            _legacy_assignment(flavors, pod_sets.get(flavors["name"]) if isinstance(flavors.get("name"), str) else None)
            for _, flavors in _items(admission, "podSetFlavors")
        ],
    }
    conditions = status.setdefault("conditions", [])
    if isinstance(conditions, list) and not _has_condition(conditions, "QuotaReserved"):
        conditions.append(_quota_reserved(cluster_queue, _admission_time(obj, conditions)))
    ctx.add(
        "info",
        ("spec", "admission"),
        "moved to status.admission with a QuotaReserved=True condition; resourceUsage is not in the "
        "legacy object and is recomputed from the pod sets (LEG-6)",
        "LEG-6",
    )


def _legacy_assignment(pod_set_flavors: dict[str, Any], pod_set: dict[str, Any] | None) -> dict[str, Any]:
    # PodSetAssignment.count stays unset: Kueue then uses spec.podSets[*].count.
    assignment: dict[str, Any] = {"name": pod_set_flavors.get("name")}
    if pod_set_flavors.get("flavors"):
        assignment["flavors"] = pod_set_flavors["flavors"]
    usage = _legacy_resource_usage(pod_set) if pod_set is not None else {}
    if usage:
        assignment["resourceUsage"] = usage
    return assignment


def _legacy_resource_usage(pod_set: dict[str, Any]) -> dict[str, str]:
    """LEG-6: what the admitted pod set holds, which the legacy object does not record: the requests of
    one pod (REQ rules) times the pod set's count, as Kueue writes resourceUsage."""
    from kqctl.k8s.pods import spec_requests
    from kqctl.k8s.quantity import format_resource_value, sat_mul

    template = pod_set.get("template")
    pod_spec = template.get("spec") if isinstance(template, dict) else None
    count = pod_set.get("count", 1)
    if not isinstance(pod_spec, dict) or not isinstance(count, int) or isinstance(count, bool) or count < 0:
        return {}
    return {resource: format_resource_value(resource, sat_mul(value, count))
            for resource, value in sorted(spec_requests(pod_spec).items())}


def _has_condition(conditions: list[Any], kind: str) -> bool:
    return any(isinstance(c, dict) and c.get("type") == kind for c in conditions)


def _admission_time(obj: dict[str, Any], conditions: list[Any]) -> Any:
    """When the reservation happened: the legacy Admitted condition, else the creation time."""
    for condition in conditions:
        if (
            isinstance(condition, dict)
            and condition.get("type") == "Admitted"
            and condition.get("lastTransitionTime")
        ):
            return condition["lastTransitionTime"]
    return (_child(obj, "metadata") or {}).get("creationTimestamp")


def _quota_reserved(cluster_queue: Any, when: Any) -> dict[str, Any]:
    # Type, reason and message as Kueue's workload.SetQuotaReservation writes them.
    condition: dict[str, Any] = {
        "type": "QuotaReserved",
        "status": "True",
        "reason": "QuotaReserved",
        "message": f"Quota reserved in ClusterQueue {cluster_queue}",
    }
    if when is not None:
        condition["lastTransitionTime"] = when
    return condition


# --- dispatch tables --------------------------------------------------------------------------------

_TO_HUB: dict[tuple[str, str], Converter] = {
    (V1BETA1, "ClusterQueue"): _cq_v1beta1_to_hub,
    (V1BETA1, "Workload"): _wl_v1beta1_to_hub,
    (V1BETA1, "LocalQueue"): _lq_v1beta1_to_hub,
    (V1BETA1, "AdmissionCheck"): _ac_v1beta1_to_hub,
    (V1BETA1, "Cohort"): _cohort_v1beta1_to_hub,
    (V1BETA1, "MultiKueueCluster"): _mk_cluster_v1beta1_to_hub,
    **{
        (V1BETA1, kind): _identity
        for kind in (
            "ResourceFlavor",
            "WorkloadPriorityClass",
            "Topology",
            "ProvisioningRequestConfig",
            "MultiKueueConfig",
        )
    },
    (V1ALPHA1, "ClusterQueue"): _cq_v1alpha1_to_hub,
    (V1ALPHA2, "ClusterQueue"): _cq_v1alpha2_to_hub,
    (V1ALPHA1, "Queue"): _queue_v1alpha1_to_hub,
    (V1ALPHA2, "LocalQueue"): _identity,
    (V1ALPHA1, "ResourceFlavor"): _rf_v1alpha1_to_hub,
    (V1ALPHA2, "ResourceFlavor"): _rf_v1alpha2_to_hub,
    (V1ALPHA1, "Workload"): _wl_alpha_to_hub,
    (V1ALPHA2, "Workload"): _wl_alpha_to_hub,
    (V1ALPHA1, "Cohort"): _cohort_v1alpha1_to_hub,
}

_FROM_HUB: dict[tuple[str, str], Converter] = {
    (V1BETA1, "ClusterQueue"): _cq_hub_to_v1beta1,
    (V1BETA1, "Workload"): _wl_hub_to_v1beta1,
    (V1BETA1, "LocalQueue"): _lq_hub_to_v1beta1,
    (V1BETA1, "MultiKueueCluster"): _mk_cluster_hub_to_v1beta1,
    (V1BETA1, "MultiKueueConfig"): _mk_config_hub_to_v1beta1,
}
