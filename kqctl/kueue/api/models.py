"""The one internal model of Kueue objects the engine works on (§1.5), built from v1beta2 dicts.

Builders read objects *as given*: no CRD default is applied (DEF-4), because Kueue's scheduler
sees undefaulted objects in the conformance inputs and ``""`` is not always the CRD default. The
only fills are the ones Kueue's own code makes when it reads a nil field (each is cited where it
happens): ``ptr.Deref(stopPolicy, None)``, the scheduler cache's ``defaultPreemption`` and
``defaultFlavorFungibility``, ``parseFairWeight`` (1) and ``workload.IsActive`` (nil = active).

Quantities are converted once, here, with the QTY-5 integer rules: ``quota_value`` for quotas
(may be the UNLIMITED sentinel) and ``resource_value`` for requests and usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from kqctl.k8s.core import Fields, ModelError, as_integer, metadata
from kqctl.k8s.quantity import Quantity, QuantityError, parse_quantity, quota_value, resource_value
from kqctl.origin import FieldPath, Origin

#: (flavor, resource)
FlavorResource = tuple[str, str]

# Kueue's values for the nil fields it fills itself (see the module docstring).
STOP_POLICY_NONE = "None"
PREEMPTION_NEVER = "Never"
DEFAULT_WHEN_CAN_BORROW = "MayStopSearch"
DEFAULT_WHEN_CAN_PREEMPT = "TryNextFlavor"
DEFAULT_FAIR_WEIGHT = 1.0


def _quantity(raw: Any, path: FieldPath) -> Quantity:
    try:
        return parse_quantity(raw)
    except QuantityError as exc:
        raise ModelError(path, str(exc)) from exc


def _opt_quota(fields: Fields, key: str, resource: str) -> int | None:
    raw = fields.raw(key)
    return None if raw is None else quota_value(resource, _quantity(raw, fields.at(key)))


def _resource_map(fields: Fields, key: str) -> dict[str, int]:
    """A ResourceList as request-side integers (QTY-5: cpu in milli, others rounded up)."""
    values = fields.child(key)
    # A null quantity decodes to zero, as resource.Quantity's JSON decoder does.
    return {name: resource_value(name, _quantity(0 if raw is None else raw, values.at(name)))
            for name, raw in values.obj.items()}


# --- quotas ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceQuota:
    """One (flavor, resource) quota in canonical units; ``None`` limit = no limit (Q-10 for UNLIMITED)."""

    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None

    @classmethod
    def from_v1beta2(cls, fields: Fields, resource: str) -> ResourceQuota:
        # NominalQuota is a non-pointer Quantity in Go: absent reads as 0.
        return cls(
            _opt_quota(fields, "nominalQuota", resource) or 0,
            _opt_quota(fields, "borrowingLimit", resource),
            _opt_quota(fields, "lendingLimit", resource),
        )


@dataclass(frozen=True)
class FlavorQuotas:
    """A flavor of a resource group with its quotas, in spec order."""

    name: str
    resources: tuple[tuple[str, ResourceQuota], ...]

    @classmethod
    def from_v1beta2(cls, fields: Fields) -> FlavorQuotas:
        quotas = []
        for item in fields.items("resources"):
            resource = item.string("name")
            quotas.append((resource, ResourceQuota.from_v1beta2(item, resource)))
        return cls(fields.string("name"), tuple(quotas))


@dataclass(frozen=True)
class ResourceGroup:
    covered: tuple[str, ...]  # resource names, in spec order
    flavors: tuple[str, ...]  # flavor names, in spec order (= preference order)


def _resource_groups(spec: Fields) -> tuple[tuple[ResourceGroup, ...], tuple[FlavorQuotas, ...]]:
    groups: list[ResourceGroup] = []
    flavors: list[FlavorQuotas] = []
    for group in spec.items("resourceGroups"):
        members = [FlavorQuotas.from_v1beta2(item) for item in group.items("flavors")]
        groups.append(ResourceGroup(group.strings("coveredResources"), tuple(f.name for f in members)))
        flavors.extend(members)
    return tuple(groups), tuple(flavors)


def _quotas(flavors: tuple[FlavorQuotas, ...]) -> dict[FlavorResource, ResourceQuota]:
    # Kueue's createResourceQuotas: keyed by the resources each flavor lists (not coveredResources);
    # a repeated (flavor, resource) keeps the last one, like the Go map assignment.
    return {(flavor.name, resource): quota for flavor in flavors for resource, quota in flavor.resources}


def _fair_weight(spec: Fields) -> float:
    """parseFairWeight: 1 unless fairSharing.weight is set; then the quantity as a float."""
    fair_sharing = spec.child("fairSharing")
    raw = fair_sharing.raw("weight")
    return DEFAULT_FAIR_WEIGHT if raw is None else float(_quantity(raw, fair_sharing.at("weight")).value)


# --- ClusterQueue, Cohort ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FlavorFungibility:
    when_can_borrow: str
    when_can_preempt: str
    preference: str | None = None

    @classmethod
    def from_v1beta2(cls, spec: Fields) -> FlavorFungibility:
        # Scheduler cache: a missing flavorFungibility, or an empty policy, gets Kueue's default.
        fungibility = spec.child("flavorFungibility")
        return cls(
            fungibility.string("whenCanBorrow") or DEFAULT_WHEN_CAN_BORROW,
            fungibility.string("whenCanPreempt") or DEFAULT_WHEN_CAN_PREEMPT,
            fungibility.opt_string("preference"),
        )


@dataclass(frozen=True)
class BorrowWithinCohort:
    policy: str  # "" when unset: counts as allowed (DEF-4), unlike the CRD default Never
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class Preemption:
    reclaim_within_cohort: str
    within_cluster_queue: str
    borrow_within_cohort: BorrowWithinCohort | None = None

    @classmethod
    def from_v1beta2(cls, spec: Fields) -> Preemption:
        preemption = spec.opt_child("preemption")
        if preemption is None:
            # Scheduler cache defaultPreemption: Never/Never and no borrowWithinCohort.
            return cls(PREEMPTION_NEVER, PREEMPTION_NEVER)
        # Present: fields stay "" when unset (DEF-4; "" is not Never for FA-6.4).
        borrow = preemption.opt_child("borrowWithinCohort")
        return cls(
            preemption.string("reclaimWithinCohort"),
            preemption.string("withinClusterQueue"),
            None
            if borrow is None
            else BorrowWithinCohort(borrow.string("policy"), borrow.opt_integer("maxPriorityThreshold")),
        )


@dataclass(frozen=True)
class ClusterQueue:
    name: str
    cohort: str | None  # spec.cohortName; "" and absent both mean "no cohort"
    resource_groups: tuple[ResourceGroup, ...]
    flavor_quotas: tuple[FlavorQuotas, ...]
    queueing_strategy: str  # "" when unset (DEF-4: not the same as BestEffortFIFO)
    namespace_selector: Mapping[str, Any] | None = field(hash=False)  # None matches nothing (DEF-2)
    flavor_fungibility: FlavorFungibility
    preemption: Preemption
    admission_checks: Mapping[str, frozenset[str]] = field(hash=False)  # check -> flavors it applies to
    stop_policy: str
    fair_weight: float
    admission_mode: str | None
    deleting: bool
    origin: Origin | None = None
    last_acceptable_flavor: str | None = None  # concurrentAdmissionPolicy.migration.constraints (alpha)
    labels: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)  # replay groups by them
    quotas: Mapping[FlavorResource, ResourceQuota] = field(init=False, hash=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "quotas", _quotas(self.flavor_quotas))

    @property
    def flavors(self) -> tuple[str, ...]:
        return tuple(name for group in self.resource_groups for name in group.flavors)

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> ClusterQueue:
        meta = metadata(body)
        spec = Fields(body).child("spec")
        groups, flavor_quotas = _resource_groups(spec)
        selector = spec.raw("namespaceSelector")
        return cls(
            name=meta.string("name"),
            cohort=spec.string("cohortName") or None,
            resource_groups=groups,
            flavor_quotas=flavor_quotas,
            queueing_strategy=spec.string("queueingStrategy"),
            namespace_selector=Fields(selector, spec.at("namespaceSelector")).obj
            if selector is not None
            else None,
            flavor_fungibility=FlavorFungibility.from_v1beta2(spec),
            preemption=Preemption.from_v1beta2(spec),
            admission_checks=_admission_checks(spec, groups),
            stop_policy=spec.string("stopPolicy", STOP_POLICY_NONE),  # ptr.Deref(stopPolicy, None)
            fair_weight=_fair_weight(spec),
            admission_mode=spec.child("admissionScope").opt_string("admissionMode"),
            deleting=meta.has("deletionTimestamp"),
            origin=origin,
            last_acceptable_flavor=spec.child("concurrentAdmissionPolicy").child("migration")
            .child("constraints").opt_string("lastAcceptableFlavorName"),
            labels=meta.string_map("labels"),
        )


def _admission_checks(spec: Fields, groups: tuple[ResourceGroup, ...]) -> dict[str, frozenset[str]]:
    """admissioncheck.NewAdmissionChecks: no onFlavors means every flavor of the ClusterQueue."""
    all_flavors = frozenset(name for group in groups for name in group.flavors)
    checks: dict[str, frozenset[str]] = {}
    for rule in spec.child("admissionChecksStrategy").items("admissionChecks"):
        on_flavors = rule.strings("onFlavors")
        checks[rule.string("name")] = frozenset(on_flavors) if on_flavors else all_flavors
    return checks


@dataclass(frozen=True)
class Cohort:
    name: str
    parent: str | None  # spec.parentName; "" and absent both mean "root"
    resource_groups: tuple[ResourceGroup, ...]
    flavor_quotas: tuple[FlavorQuotas, ...]
    fair_weight: float
    explicit: bool = True  # False: implied by a cohortName/parentName, no object (XO-2)
    origin: Origin | None = None
    quotas: Mapping[FlavorResource, ResourceQuota] = field(init=False, hash=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "quotas", _quotas(self.flavor_quotas))

    @classmethod
    def implicit(cls, name: str) -> Cohort:
        """XO-2: a cohort only named by others: no quota, no parent, weight irrelevant."""
        return cls(name, None, (), (), DEFAULT_FAIR_WEIGHT, explicit=False)

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Cohort:
        spec = Fields(body).child("spec")
        groups, flavor_quotas = _resource_groups(spec)
        return cls(
            name=metadata(body).string("name"),
            parent=spec.string("parentName") or None,
            resource_groups=groups,
            flavor_quotas=flavor_quotas,
            fair_weight=_fair_weight(spec),
            origin=origin,
        )


# --- ResourceFlavor ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    @classmethod
    def from_v1(cls, fields: Fields) -> Taint:
        return cls(fields.string("key"), fields.string("value"), fields.string("effect"))


@dataclass(frozen=True)
class Toleration:
    key: str
    operator: str  # "" when unset; Kubernetes treats "" as Equal
    value: str
    effect: str  # "" matches every effect
    toleration_seconds: int | None = None

    @classmethod
    def from_v1(cls, fields: Fields) -> Toleration:
        return cls(
            fields.string("key"),
            fields.string("operator"),
            fields.string("value"),
            fields.string("effect"),
            fields.opt_integer("tolerationSeconds"),
        )


@dataclass(frozen=True)
class ResourceFlavor:
    name: str
    node_labels: Mapping[str, str] = field(hash=False)
    node_taints: tuple[Taint, ...]
    tolerations: tuple[Toleration, ...]
    topology_name: str | None  # TAS (kqctl.kueue.engine.tas_cache): a TAS flavor when its Topology exists
    origin: Origin | None = None

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> ResourceFlavor:
        spec = Fields(body).child("spec")
        return cls(
            name=metadata(body).string("name"),
            node_labels=spec.string_map("nodeLabels"),
            node_taints=tuple(Taint.from_v1(item) for item in spec.items("nodeTaints")),
            tolerations=tuple(Toleration.from_v1(item) for item in spec.items("tolerations")),
            topology_name=spec.opt_string("topologyName"),
            origin=origin,
        )


# --- Topology and Node (Topology-Aware Scheduling, kqctl.kueue.engine.tas_cache) ----------------------------


@dataclass(frozen=True)
class Topology:
    """kueue.x-k8s.io Topology: the node labels of its levels, from the highest level to the lowest."""

    name: str
    levels: tuple[str, ...]
    origin: Origin | None = None

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Topology:
        levels = Fields(body).child("spec").items("levels")
        return cls(metadata(body).string("name"), tuple(level.string("nodeLabel") for level in levels), origin)


@dataclass(frozen=True)
class Node:
    """core/v1 Node, reduced to what Kueue's TAS cache keeps (``copyAndStripNode``) plus readiness."""

    name: str
    labels: Mapping[str, str] = field(hash=False)
    allocatable: Mapping[str, int] = field(hash=False)  # QTY-5 request-side integers
    taints: tuple[Taint, ...]
    unschedulable: bool
    ready: bool  # a Ready condition with status True
    origin: Origin | None = None

    @classmethod
    def from_v1(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Node:
        fields = Fields(body)
        spec = fields.child("spec")
        status = fields.child("status")
        # tas.IsNodeStatusConditionTrue: the first Ready condition decides.
        ready = next((c.string("status") == "True" for c in status.items("conditions") if c.string("type") == "Ready"),
                     False)
        return cls(
            name=metadata(body).string("name"),
            labels=metadata(body).string_map("labels"),
            allocatable=_resource_map(status, "allocatable"),
            taints=tuple(Taint.from_v1(item) for item in spec.items("taints")),
            unschedulable=spec.boolean("unschedulable", False),
            ready=ready,
            origin=origin,
        )


# --- LocalQueue, WorkloadPriorityClass, AdmissionCheck -------------------------------------------------


@dataclass(frozen=True)
class LocalQueue:
    namespace: str
    name: str
    cluster_queue: str
    stop_policy: str  # ptr.Deref(stopPolicy, None), as the LocalQueue controller reads it
    fair_weight: float  # admission fair sharing only
    origin: Origin | None = None
    # FS-11: the decayed usage Kueue keeps in status (resource -> amount in natural units).
    consumed_resources: Mapping[str, Fraction] = field(default_factory=dict, hash=False)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> LocalQueue:
        meta = metadata(body)
        fields = Fields(body)
        spec = fields.child("spec")
        consumed = fields.child("status").child("fairSharing").child("admissionFairSharingStatus").child(
            "consumedResources")
        return cls(
            namespace=meta.string("namespace"),
            name=meta.string("name"),
            cluster_queue=spec.string("clusterQueue"),
            stop_policy=spec.string("stopPolicy", STOP_POLICY_NONE),
            fair_weight=_fair_weight(spec),
            origin=origin,
            consumed_resources={
                name: _quantity(raw, consumed.at(name)).value for name, raw in consumed.obj.items()
            } if isinstance(consumed.obj, Mapping) else {},
        )


@dataclass(frozen=True)
class WorkloadPriorityClass:
    name: str
    value: int
    description: str = ""
    origin: Origin | None = None

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> WorkloadPriorityClass:
        fields = Fields(body)
        return cls(
            metadata(body).string("name"), fields.integer("value"), fields.string("description"), origin
        )


@dataclass(frozen=True)
class Condition:
    """A metav1.Condition, times parsed."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None
    observed_generation: int | None = None

    @classmethod
    def from_v1(cls, fields: Fields) -> Condition:
        return cls(
            fields.string("type"),
            fields.string("status"),
            fields.string("reason"),
            fields.string("message"),
            fields.opt_time("lastTransitionTime"),
            fields.opt_integer("observedGeneration"),
        )


def _conditions(status: Fields) -> tuple[Condition, ...]:
    return tuple(Condition.from_v1(item) for item in status.items("conditions"))


def _find(conditions: tuple[Condition, ...], kind: str) -> Condition | None:
    # (a loop, not next() over a generator: asked three times for each of 50,000 workloads as a simulation sets up,
    # most of them without any condition)
    for condition in conditions:
        if condition.type == kind:
            return condition
    return None


# The controllerName of Kueue's own admission-check controllers (XO-1, TAS-6).
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"


@dataclass(frozen=True)
class AdmissionCheck:
    name: str
    controller_name: str
    parameters: Mapping[str, Any] | None = field(hash=False)
    conditions: tuple[Condition, ...]
    origin: Origin | None = None

    @property
    def active(self) -> bool:
        """XO-1: a check counts as active only with an ``Active=True`` condition."""
        condition = _find(self.conditions, "Active")
        return condition is not None and condition.status == "True"

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> AdmissionCheck:
        fields = Fields(body)
        spec = fields.child("spec")
        parameters = spec.opt_child("parameters")
        return cls(
            name=metadata(body).string("name"),
            controller_name=spec.string("controllerName"),
            parameters=None if parameters is None else parameters.obj,
            conditions=_conditions(fields.child("status")),
            origin=origin,
        )


# --- Workload ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PriorityClassRef:
    group: str
    kind: str
    name: str


@dataclass(frozen=True)
class PodSet:
    name: str  # "" when unset (the CRD default "main" is not applied, DEF-4)
    count: int  # 0 when unset, as Go decodes it (the CRD default 1 is not applied)
    min_count: int | None
    template: Mapping[str, Any] = field(hash=False)  # the PodTemplateSpec, for requests and affinity
    topology_request: Mapping[str, Any] | None = field(hash=False)  # FA-15 reads podSetGroupName

    @classmethod
    def from_v1beta2(cls, fields: Fields) -> PodSet:
        topology = fields.opt_child("topologyRequest")
        return cls(
            fields.string("name"),
            fields.integer("count"),
            fields.opt_integer("minCount"),
            fields.child("template").obj,
            None if topology is None else topology.obj,
        )


@dataclass(frozen=True)
class TopologyDomain:
    """TAS: one domain of a topology assignment (its values from the assignment's first level down)."""

    values: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class TopologyAssignment:
    """TAS: ``podSetAssignments[].topologyAssignment``, decoded from the compact v1beta2 encoding.

    Mirrors Kueue's ``tas.InternalFrom``: every slice holds ``domainCount`` domains; a level's
    values are either one ``universal`` value or ``individual`` roots with an optional common
    ``prefix``/``suffix``; pod counts are ``universal`` or ``individual``.
    """

    levels: tuple[str, ...]
    domains: tuple[TopologyDomain, ...]

    @classmethod
    def from_v1beta2(cls, fields: Fields) -> TopologyAssignment:
        levels = fields.strings("levels")
        domains: list[TopologyDomain] = []
        for item in fields.items("slices"):
            count = item.integer("domainCount")
            per_level = list(item.items("valuesPerLevel"))
            if len(per_level) != len(levels):
                raise ModelError(item.at("valuesPerLevel"), f"expected {len(levels)} levels, got {len(per_level)}")
            counts = item.child("podCounts")
            for i in range(count):
                values = tuple(_slice_value(level, i) for level in per_level)
                domains.append(TopologyDomain(values, _slice_count(counts, i)))
        return cls(levels, tuple(domains))


def _slice_value(values: Fields, index: int) -> str:
    universal = values.opt_string("universal")
    if universal is not None:
        return universal
    individual = values.child("individual")
    roots = individual.strings("roots")
    if index >= len(roots):
        raise ModelError(individual.at("roots"), f"expected at least {index + 1} roots, got {len(roots)}")
    return individual.string("prefix") + roots[index] + individual.string("suffix")


def _slice_count(counts: Fields, index: int) -> int:
    universal = counts.opt_integer("universal")
    if universal is not None:
        return universal
    individual = counts.list("individual")
    if index >= len(individual):
        raise ModelError(counts.at("individual"), f"expected at least {index + 1} pod counts, got {len(individual)}")
    return as_integer(individual[index], (*counts.at("individual"), index))


@dataclass(frozen=True)
class PodSetAssignment:
    name: str
    flavors: Mapping[str, str] = field(hash=False)  # resource -> flavor
    resource_usage: Mapping[str, int] = field(hash=False)  # total for the pod set, QTY-5 integers
    count: int | None  # None: Kueue falls back to spec.podSets[*].count
    topology_assignment: TopologyAssignment | None = None  # TAS: the nodes its pods hold (kqctl.kueue.engine.tas_cache)

    @classmethod
    def from_v1beta2(cls, fields: Fields) -> PodSetAssignment:
        topology = fields.opt_child("topologyAssignment")
        return cls(
            fields.string("name"),
            fields.string_map("flavors"),
            _resource_map(fields, "resourceUsage"),
            fields.opt_integer("count"),
            None if topology is None else TopologyAssignment.from_v1beta2(topology),
        )


@dataclass(frozen=True)
class Admission:
    cluster_queue: str
    pod_set_assignments: tuple[PodSetAssignment, ...]

    @classmethod
    def from_v1beta2(cls, fields: Fields) -> Admission:
        return cls(
            fields.string("clusterQueue"),
            tuple(PodSetAssignment.from_v1beta2(item) for item in fields.items("podSetAssignments")),
        )


@dataclass(frozen=True)
class AdmissionCheckState:
    name: str
    state: str  # Pending | Ready | Retry | Rejected
    message: str = ""


@dataclass(frozen=True)
class RequeueState:
    count: int | None
    requeue_at: datetime | None


@dataclass(frozen=True)
class Workload:
    namespace: str
    name: str
    uid: str  # "" when missing; compared as a plain string in tie-breaks (§0.4)
    queue_name: str
    priority: int | None  # spec.priority as given; nil means 0 to the scheduler (§4.2)
    priority_class_ref: PriorityClassRef | None
    active: bool  # workload.IsActive: ptr.Deref(spec.active, true)
    creation_timestamp: datetime | None  # None: Kueue sees the zero time
    pod_sets: tuple[PodSet, ...]
    admission: Admission | None
    conditions: tuple[Condition, ...]
    reclaimable_pods: Mapping[str, int] = field(hash=False)  # pod set -> count
    admission_check_states: tuple[AdmissionCheckState, ...]
    requeue_state: RequeueState | None = None
    origin: Origin | None = None
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    preemption_gates: tuple[str, ...] = ()
    preemption_gate_positions: Mapping[str, str] = field(default_factory=dict, hash=False)
    annotations: Mapping[str, str] = field(default_factory=dict, hash=False)
    parent_workload_uid: str | None = None  # ConcurrentAdmission: the owning parent Workload

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def has_closed_preemption_gate(self) -> bool:
        """CYC-19: a gate with no status entry, or one whose position is Closed."""
        return any(self.preemption_gate_positions.get(gate, "Closed") == "Closed" for gate in self.preemption_gates)

    def condition(self, kind: str) -> Condition | None:
        return _find(self.conditions, kind)

    def is_condition_true(self, kind: str) -> bool:
        condition = self.condition(kind)
        return condition is not None and condition.status == "True"

    @classmethod
    def from_v1beta2(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Workload:
        meta = metadata(body)
        fields = Fields(body)
        spec = fields.child("spec")
        status = fields.child("status")
        admission = status.opt_child("admission")
        return cls(
            namespace=meta.string("namespace"),
            name=meta.string("name"),
            uid=meta.string("uid"),
            queue_name=spec.string("queueName"),
            priority=spec.opt_integer("priority"),
            priority_class_ref=_priority_class_ref(spec),
            active=spec.boolean("active", True),
            creation_timestamp=meta.opt_time("creationTimestamp"),
            pod_sets=tuple(PodSet.from_v1beta2(item) for item in spec.items("podSets")),
            admission=None if admission is None else Admission.from_v1beta2(admission),
            conditions=_conditions(status),
            reclaimable_pods={
                item.string("name"): item.integer("count") for item in status.items("reclaimablePods")
            },
            admission_check_states=tuple(
                AdmissionCheckState(item.string("name"), item.string("state"), item.string("message"))
                for item in status.items("admissionChecks")
            ),
            requeue_state=_requeue_state(status),
            origin=origin,
            labels=meta.string_map("labels"),
            preemption_gates=tuple(item.string("name") for item in spec.items("preemptionGates")),
            preemption_gate_positions={
                item.string("name"): item.string("position") for item in status.items("preemptionGates")
            },
            annotations=meta.string_map("annotations"),
            parent_workload_uid=_parent_workload_uid(meta),
        )


def _parent_workload_uid(meta: Fields) -> str | None:
    """ConcurrentAdmission variants are owned by their parent Workload (GetParentWorkloadUID)."""
    for owner in meta.items("ownerReferences"):
        if owner.string("kind") == "Workload" and owner.string("apiVersion") == "kueue.x-k8s.io/v1beta2":
            return owner.string("uid")
    return None


def _priority_class_ref(spec: Fields) -> PriorityClassRef | None:
    ref = spec.opt_child("priorityClassRef")
    if ref is None:
        return None
    return PriorityClassRef(ref.string("group"), ref.string("kind"), ref.string("name"))


def _requeue_state(status: Fields) -> RequeueState | None:
    state = status.opt_child("requeueState")
    if state is None:
        return None
    return RequeueState(state.opt_integer("count"), state.opt_time("requeueAt"))
