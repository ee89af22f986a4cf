"""DEF-3: what Kueue's mutating webhooks do to a v1beta2 object, beyond the CRD ``default:`` values.

On create, a ClusterQueue, ResourceFlavor or Workload goes through a Kueue mutating webhook after
schema defaulting. At the reference commit their ``Default()`` methods
(``pkg/webhooks/*_webhook.go``) only add the ``kueue.x-k8s.io/resource-in-use`` finalizer
(ClusterQueue, ResourceFlavor) and drop ``minCount`` when the PartialAdmission gate is off
(Workload; the gate is on by default). The decisive effect is elsewhere: controller-runtime
*decodes* the object into Kueue's Go types, and when ``Default()`` changed it, answers with a JSON
patch from the object it received to the re-encoded one. So this module decodes and re-encodes
like Go's ``encoding/json`` does:

* a wrong JSON type (``queueingStrategy: 1``, ``count: "3"``) or an unparseable quantity fails
  decoding: the webhook denies the request (error ``DEF-3-DECODE``, before any schema check),
  whether or not ``Default()`` changes anything;
* when the patch is sent (a new ClusterQueue or ResourceFlavor: the finalizer is missing),
  quantities come back canonical (``nominalQuota: 1.5`` -> ``"1500m"``) and fields without
  ``omitempty`` come back even when absent, with their zero value (``nominalQuota: "0"``, a taint's
  ``effect: ""`` and ``key: ""``);
* removals are never sent (controller-runtime drops what only the decoding removed): an
  ``omitempty`` field holding its zero value (a toleration's ``value: ""``) stays as written;
* when ``Default()`` changes nothing (a Workload, with PartialAdmission on), no patch is sent and the
  object goes on as written (a container without ``name`` then fails the schema's ``required``).

Fields the Go types below do not list are passed through untouched (strict field validation has
already reported unknown fields, and pod-template fields other than resources, names and
tolerations make no difference to Kueue). Status is decoded too (it can fail decoding) but is
never created. CRD ``default:`` values are applied elsewhere, before this step.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from kqctl.findings import Finding, error
from kqctl.k8s.core import json_kind
from kqctl.k8s.quantity import QuantityError, parse_quantity
from kqctl.origin import FieldPath

RULE_DECODE = "DEF-3-DECODE"
RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"

#: The mutating webhooks, as named in Kueue's kubebuilder markers (the API server quotes them).
WEBHOOK_NAMES = {
    "ClusterQueue": "mclusterqueue.kb.io",
    "ResourceFlavor": "mresourceflavor.kb.io",
    "Workload": "mworkload.kb.io",
}

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

# --- a small model of the Go types ---------------------------------------------------------------


@dataclass(frozen=True)
class _Scalar:
    go: str
    kind: Literal["string", "int32", "int64", "bool"]


@dataclass(frozen=True)
class _Quantity:
    go: str = "resource.Quantity"


@dataclass(frozen=True)
class _Opaque:
    """A type whose content is not checked here (times, ObjectMeta, TAS assignments ...)."""

    go: str


@dataclass(frozen=True)
class _Slice:
    elem: GoType

    @property
    def go(self) -> str:
        return "[]" + self.elem.go


@dataclass(frozen=True)
class _Map:
    go: str
    value: GoType


@dataclass(frozen=True)
class _Field:
    json: str
    type: GoType
    # Go's json tag: "empty" = omitempty, "zero" = omitzero, "never" = always encoded.
    omit: Literal["empty", "zero", "never"] = "empty"
    pointer: bool = False


@dataclass(frozen=True)
class _Struct:
    go: str
    fields: tuple[_Field, ...]

    @property
    def name(self) -> str:
        """The unqualified name Go puts in "Go struct field <Name>.<path>"."""
        return self.go.rpartition(".")[2]


GoType = _Scalar | _Quantity | _Opaque | _Slice | _Map | _Struct


def _string(go: str = "string") -> _Scalar:
    return _Scalar(go, "string")


def _f(json: str, type_: GoType, omit: Literal["empty", "zero", "never"] = "empty") -> _Field:
    return _Field(json, type_, omit)


def _ptr(json: str, type_: GoType) -> _Field:
    return _Field(json, type_, "empty", pointer=True)


_INT32 = _Scalar("int32", "int32")
_INT64 = _Scalar("int64", "int64")
_BOOL = _Scalar("bool", "bool")
_TIME = _Opaque("v1.Time")
_QUANTITY = _Quantity()
_STRINGS = _Slice(_string())
_STRING_MAP = _Map("map[string]string", _string())
_RESOURCE_NAME = _string("v1.ResourceName")
_RESOURCE_LIST = _Map("v1.ResourceList", _QUANTITY)
_FLAVOR_REF = _string("v1beta2.ResourceFlavorReference")
_PODSET_REF = _string("v1beta2.PodSetReference")

# corev1 / metav1 types (k8s.io/api, k8s.io/apimachinery); only the fields that matter here.
_TAINT = _Struct(
    "v1.Taint",
    (
        _f("key", _string(), "never"),
        _f("value", _string()),
        _f("effect", _string("v1.TaintEffect"), "never"),
        _ptr("timeAdded", _TIME),
    ),
)
_TOLERATION = _Struct(
    "v1.Toleration",
    (
        _f("key", _string()),
        _f("operator", _string("v1.TolerationOperator")),
        _f("value", _string()),
        _f("effect", _string("v1.TaintEffect")),
        _ptr("tolerationSeconds", _INT64),
    ),
)
_LABEL_SELECTOR = _Struct(
    "v1.LabelSelector",
    (
        _f("matchLabels", _STRING_MAP),
        _f(
            "matchExpressions",
            _Slice(
                _Struct(
                    "v1.LabelSelectorRequirement",
                    (
                        _f("key", _string(), "never"),
                        _f("operator", _string("v1.LabelSelectorOperator"), "never"),
                        _f("values", _STRINGS),
                    ),
                )
            ),
        ),
    ),
)
_CONDITION = _Struct(
    "v1.Condition",
    (
        _f("type", _string(), "never"),
        _f("status", _string("v1.ConditionStatus"), "never"),
        _f("observedGeneration", _INT64),
        _f("lastTransitionTime", _TIME, "never"),
        _f("reason", _string(), "never"),
        _f("message", _string(), "never"),
    ),
)
_RESOURCE_REQUIREMENTS = _Struct(
    "v1.ResourceRequirements",
    (
        _f("limits", _RESOURCE_LIST),
        _f("requests", _RESOURCE_LIST),
        _f("claims", _Slice(_Opaque("v1.ResourceClaim"))),
    ),
)


def _container(go: str) -> _Struct:
    # Container.Name has no omitempty: a nameless container gets name "" (and then passes the
    # CRD's "required" check). Resources is a struct, so it is always encoded.
    return _Struct(go, (_f("name", _string(), "never"), _f("resources", _RESOURCE_REQUIREMENTS)))


_POD_SPEC = _Struct(
    "v1.PodSpec",
    (
        _f("initContainers", _Slice(_container("v1.Container"))),
        _f("containers", _Slice(_container("v1.Container")), "never"),
        _f("ephemeralContainers", _Slice(_container("v1.EphemeralContainer"))),
        _f("nodeSelector", _STRING_MAP),
        _f("tolerations", _Slice(_TOLERATION)),
        _f("overhead", _RESOURCE_LIST),
        _ptr("resources", _RESOURCE_REQUIREMENTS),
    ),
)
_POD_TEMPLATE = _Struct(
    "v1.PodTemplateSpec", (_f("metadata", _Struct("v1.ObjectMeta", ())), _f("spec", _POD_SPEC))
)

# Kueue v1beta2 types (apis/kueue/v1beta2).
_FAIR_SHARING = _Struct("v1beta2.FairSharing", (_ptr("weight", _QUANTITY),))
_RESOURCE_GROUP = _Struct(
    "v1beta2.ResourceGroup",
    (
        _f("coveredResources", _Slice(_RESOURCE_NAME)),
        _f(
            "flavors",
            _Slice(
                _Struct(
                    "v1beta2.FlavorQuotas",
                    (
                        _f("name", _FLAVOR_REF, "never"),
                        _f(
                            "resources",
                            _Slice(
                                _Struct(
                                    "v1beta2.ResourceQuota",
                                    (
                                        _f("name", _RESOURCE_NAME),
                                        # A non-pointer Quantity: absent means "0" (DEF-3).
                                        _f("nominalQuota", _QUANTITY),
                                        _ptr("borrowingLimit", _QUANTITY),
                                        _ptr("lendingLimit", _QUANTITY),
                                    ),
                                )
                            ),
                        ),
                    ),
                )
            ),
        ),
    ),
)
_CLUSTER_QUEUE_SPEC = _Struct(
    "v1beta2.ClusterQueueSpec",
    (
        _f("resourceGroups", _Slice(_RESOURCE_GROUP)),
        _f("cohortName", _string("v1beta2.CohortReference")),
        _f("queueingStrategy", _string("v1beta2.QueueingStrategy")),
        _ptr("namespaceSelector", _LABEL_SELECTOR),
        _ptr(
            "flavorFungibility",
            _Struct(
                "v1beta2.FlavorFungibility",
                (
                    _f("whenCanBorrow", _string("v1beta2.FlavorFungibilityPolicy")),
                    _f("whenCanPreempt", _string("v1beta2.FlavorFungibilityPolicy")),
                    _ptr("preference", _string("v1beta2.FlavorFungibilityPreference")),
                ),
            ),
        ),
        _ptr(
            "preemption",
            _Struct(
                "v1beta2.ClusterQueuePreemption",
                (
                    _f("reclaimWithinCohort", _string("v1beta2.PreemptionPolicy")),
                    _ptr(
                        "borrowWithinCohort",
                        _Struct(
                            "v1beta2.BorrowWithinCohort",
                            (
                                _f("policy", _string("v1beta2.BorrowWithinCohortPolicy")),
                                _ptr("maxPriorityThreshold", _INT32),
                            ),
                        ),
                    ),
                    _f("withinClusterQueue", _string("v1beta2.PreemptionPolicy")),
                ),
            ),
        ),
        _ptr(
            "admissionChecksStrategy",
            _Struct(
                "v1beta2.AdmissionChecksStrategy",
                (
                    _f(
                        "admissionChecks",
                        _Slice(
                            _Struct(
                                "v1beta2.AdmissionCheckStrategyRule",
                                (
                                    _f("name", _string("v1beta2.AdmissionCheckReference")),
                                    _f("onFlavors", _Slice(_FLAVOR_REF)),
                                ),
                            )
                        ),
                    ),
                ),
            ),
        ),
        _ptr("stopPolicy", _string("v1beta2.StopPolicy")),
        _ptr("fairSharing", _FAIR_SHARING),
        _ptr(
            "admissionScope",
            _Struct("v1beta2.AdmissionScope", (_f("admissionMode", _string("v1beta2.AdmissionMode")),)),
        ),
        _ptr(
            "concurrentAdmissionPolicy",
            _Struct(
                "v1beta2.ConcurrentAdmissionPolicy",
                (
                    _f(
                        "migration",
                        _Struct(
                            "v1beta2.ConcurrentAdmissionMigration",
                            (
                                _f("mode", _string("v1beta2.ConcurrentAdmissionMigrationMode")),
                                _ptr(
                                    "constraints",
                                    _Struct(
                                        "v1beta2.ConcurrentAdmissionConstraints",
                                        (_ptr("lastAcceptableFlavorName", _FLAVOR_REF),),
                                    ),
                                ),
                            ),
                        ),
                        "zero",
                    ),
                ),
            ),
        ),
    ),
)
_FLAVOR_USAGE = _Struct(
    "v1beta2.FlavorUsage",
    (
        _f("name", _FLAVOR_REF),
        _f(
            "resources",
            _Slice(
                _Struct(
                    "v1beta2.ResourceUsage",
                    (_f("name", _RESOURCE_NAME), _f("total", _QUANTITY), _f("borrowed", _QUANTITY)),
                )
            ),
        ),
    ),
)
_CLUSTER_QUEUE_STATUS = _Struct(
    "v1beta2.ClusterQueueStatus",
    (
        _f("conditions", _Slice(_CONDITION)),
        _f("flavorsReservation", _Slice(_FLAVOR_USAGE)),
        _f("flavorsUsage", _Slice(_FLAVOR_USAGE)),
        _f("pendingWorkloads", _INT32, "never"),
        _f("reservingWorkloads", _INT32, "never"),
        _f("admittedWorkloads", _INT32, "never"),
        _ptr("fairSharing", _Struct("v1beta2.FairSharingStatus", (_f("weightedShare", _INT64, "never"),))),
    ),
)
_RESOURCE_FLAVOR_SPEC = _Struct(
    "v1beta2.ResourceFlavorSpec",
    (
        _f("nodeLabels", _STRING_MAP),
        _f("nodeTaints", _Slice(_TAINT)),
        _f("tolerations", _Slice(_TOLERATION)),
        _ptr("topologyName", _string("v1beta2.TopologyReference")),
    ),
)
_POD_SET = _Struct(
    "v1beta2.PodSet",
    (
        _f("name", _PODSET_REF),
        # PodTemplateSpec is a struct: always encoded, so a missing template becomes {metadata: {},
        # spec: {}} (nil slices and null times are pruned by the API server afterwards).
        _f("template", _POD_TEMPLATE),
        _f("count", _INT32, "never"),
        _ptr("minCount", _INT32),
        _ptr(
            "topologyRequest",
            _Struct(
                "v1beta2.PodSetTopologyRequest",
                (
                    _ptr("required", _string()),
                    _ptr("preferred", _string()),
                    _ptr("unconstrained", _BOOL),
                    _ptr("podIndexLabel", _string()),
                    _ptr("subGroupIndexLabel", _string()),
                    _ptr("subGroupCount", _INT32),
                    _ptr("podSetGroupName", _string()),
                    _ptr("podSetSliceRequiredTopology", _string()),
                    _ptr("podSetSliceSize", _INT32),
                    _f(
                        "podsetSliceRequiredTopologyConstraints",
                        _Slice(
                            _Struct(
                                "v1beta2.PodsetSliceRequiredTopologyConstraint",
                                (_f("topology", _string()), _f("size", _INT32)),
                            )
                        ),
                    ),
                ),
            ),
        ),
    ),
)
_WORKLOAD_SPEC = _Struct(
    "v1beta2.WorkloadSpec",
    (
        _f("podSets", _Slice(_POD_SET), "never"),
        _f("queueName", _string("v1beta2.LocalQueueName")),
        _ptr(
            "priorityClassRef",
            _Struct(
                "v1beta2.PriorityClassRef",
                (
                    _f("group", _string("v1beta2.PriorityClassGroup")),
                    _f("kind", _string("v1beta2.PriorityClassKind")),
                    _f("name", _string()),
                ),
            ),
        ),
        _ptr("priority", _INT32),
        _ptr("active", _BOOL),
        _ptr("maximumExecutionTimeSeconds", _INT32),
        _f("preemptionGates", _Slice(_Struct("v1beta2.PreemptionGate", (_f("name", _string(), "never"),)))),
    ),
)
_WORKLOAD_STATUS = _Struct(
    "v1beta2.WorkloadStatus",
    (
        _f("conditions", _Slice(_CONDITION)),
        _ptr(
            "admission",
            _Struct(
                "v1beta2.Admission",
                (
                    _f("clusterQueue", _string("v1beta2.ClusterQueueReference"), "never"),
                    _f(
                        "podSetAssignments",
                        _Slice(
                            _Struct(
                                "v1beta2.PodSetAssignment",
                                (
                                    _f("name", _PODSET_REF, "never"),
                                    _f(
                                        "flavors",
                                        _Map(
                                            "map[v1.ResourceName]v1beta2.ResourceFlavorReference", _FLAVOR_REF
                                        ),
                                    ),
                                    _f("resourceUsage", _RESOURCE_LIST),
                                    _ptr("count", _INT32),
                                    _ptr("topologyAssignment", _Opaque("v1beta2.TopologyAssignment")),
                                    _ptr(
                                        "delayedTopologyRequest",
                                        _string("v1beta2.DelayedTopologyRequestState"),
                                    ),
                                ),
                            )
                        ),
                        "never",
                    ),
                ),
            ),
        ),
        _ptr(
            "requeueState", _Struct("v1beta2.RequeueState", (_ptr("count", _INT32), _ptr("requeueAt", _TIME)))
        ),
        _f(
            "reclaimablePods",
            _Slice(
                _Struct(
                    "v1beta2.ReclaimablePod", (_f("name", _PODSET_REF, "never"), _f("count", _INT32, "never"))
                )
            ),
        ),
        _f(
            "admissionChecks",
            _Slice(
                _Struct(
                    "v1beta2.AdmissionCheckState",
                    (
                        _f("name", _string("v1beta2.AdmissionCheckReference")),
                        _f("state", _string("v1beta2.CheckState")),
                        _f("lastTransitionTime", _TIME, "zero"),
                        _f("message", _string(), "never"),
                        _ptr("requeueAfterSeconds", _INT32),
                        _ptr("retryCount", _INT32),
                        _f(
                            "podSetUpdates",
                            _Slice(
                                _Struct(
                                    "v1beta2.PodSetUpdate",
                                    (
                                        _f("name", _PODSET_REF, "never"),
                                        _f("labels", _STRING_MAP),
                                        _f("annotations", _STRING_MAP),
                                        _f("nodeSelector", _STRING_MAP),
                                        _f("tolerations", _Slice(_TOLERATION)),
                                    ),
                                )
                            ),
                        ),
                    ),
                )
            ),
        ),
        _f(
            "resourceRequests",
            _Slice(
                _Struct(
                    "v1beta2.PodSetRequest",
                    (_f("name", _PODSET_REF, "never"), _f("resources", _RESOURCE_LIST)),
                )
            ),
        ),
        _ptr("accumulatedPastExecutionTimeSeconds", _INT32),
        _ptr("schedulingStats", _Opaque("v1beta2.SchedulingStats")),
        _f("nominatedClusterNames", _STRINGS),
        _ptr("clusterName", _string()),
        _f("unhealthyNodes", _Slice(_Struct("v1beta2.UnhealthyNode", (_f("name", _string(), "never"),)))),
        _f(
            "preemptionGates",
            _Slice(
                _Struct(
                    "v1beta2.PreemptionGateState",
                    (
                        _f("name", _string(), "never"),
                        _f("position", _string("v1beta2.PreemptionGatePosition")),
                        _f("lastTransitionTime", _TIME, "zero"),
                    ),
                )
            ),
        ),
    ),
)

# Top-level object: (Go struct name, spec type, status type).
_ROOTS: dict[str, tuple[str, _Struct, _Struct | None]] = {
    "ClusterQueue": ("ClusterQueue", _CLUSTER_QUEUE_SPEC, _CLUSTER_QUEUE_STATUS),
    "ResourceFlavor": ("ResourceFlavor", _RESOURCE_FLAVOR_SPEC, None),
    "Workload": ("Workload", _WORKLOAD_SPEC, _WORKLOAD_STATUS),
}

# --- the public step ---------------------------------------------------------------------------


def apply_mutating_webhooks(
    body: dict[str, Any], *, partial_admission: bool = True
) -> tuple[dict[str, Any], list[Finding]]:
    """DEF-3: the object as the API server holds it after Kueue's mutating webhook, and its decode errors.

    ``body`` is a v1beta2 object after CRD defaulting; it is not mutated. Kinds without a Kueue
    mutating webhook (Cohort, LocalQueue, WorkloadPriorityClass, ...) come back unchanged. Any
    ``DEF-3-DECODE`` finding means the API server would reject the object right there.

    controller-runtime (v0.24, ``defaulterForType.Handle`` in pkg/webhook/admission/defaulter_custom.go)
    always decodes the object, but answers with a patch only when ``Default()`` changed the decoded
    object (``reflect.DeepEqual``): a ClusterQueue or ResourceFlavor without the resource-in-use
    finalizer, or a Workload with a ``minCount`` while PartialAdmission is off. Only then does the
    re-encoding reach the server, and only its additions and replacements: ``dropSchemeRemovals``
    drops every removal the decoding alone would make (a field Go does not know, an ``omitempty``
    zero value). Otherwise the object goes on exactly as the server holds it (so a Workload container
    without ``name`` stays without one, and the schema's ``Required value`` follows).
    """
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in _ROOTS:
        return dict(body), []
    encoded, findings = decode_and_encode(body, kind)
    if findings or not default_changes(body, kind, partial_admission=partial_admission):
        return body, findings  # denied, or allowed without a patch: the object as it was sent
    patched = _patched(body, encoded)
    return _defaulted(patched, kind, partial_admission), []


def decode_and_encode(body: dict[str, Any], kind: str) -> tuple[dict[str, Any], list[Finding]]:
    """The object decoded into Kueue's Go types and encoded again, and the decode errors: the compiled
    encoders for an object that decodes cleanly, the general codec at the first irregular value."""
    encoded = dict(body)  # only the top level is copied: spec and status are rebuilt by the encoders
    try:
        _encode_regular(body, encoded, kind)
    except _Irregular:
        return _decode_and_encode(body, kind)
    return encoded, []


def default_changes(body: dict[str, Any], kind: str, *, partial_admission: bool = True) -> bool:
    """Whether the webhook's ``Default()`` changes the decoded object, so that its patch is sent back:
    ClusterQueueWebhook/ResourceFlavorWebhook.Default add the resource-in-use finalizer when it is
    missing; WorkloadWebhook.Default drops ``minCount`` when PartialAdmission is off
    (pkg/webhooks/*_webhook.go at the reference commit)."""
    if kind in ("ClusterQueue", "ResourceFlavor"):
        metadata = body.get("metadata")
        finalizers = metadata.get("finalizers") if isinstance(metadata, dict) else None
        return not (isinstance(finalizers, list) and RESOURCE_IN_USE_FINALIZER in finalizers)
    if kind == "Workload" and not partial_admission:
        spec = body.get("spec")
        pod_sets = spec.get("podSets") if isinstance(spec, dict) else None
        return any(isinstance(p, dict) and p.get("minCount") is not None
                   for p in (pod_sets if isinstance(pod_sets, list) else []))
    return False


def _patched(raw: Any, encoded: Any) -> Any:
    """``raw`` with the JSON patch from ``raw`` to ``encoded`` applied, less its removals: what the API
    server makes of controller-runtime's answer (gomodules.xyz/jsonpatch/v2 ``CreatePatch`` compares
    maps key by key and lists item by item; a value of another type is replaced whole)."""
    if isinstance(raw, dict) and isinstance(encoded, dict):
        out = dict(raw)  # a key the encoding dropped stays: a removal by the scheme is not sent
        for key, value in encoded.items():
            out[key] = _patched(raw[key], value) if key in raw else value
        return out
    if isinstance(raw, list) and isinstance(encoded, list):
        shared = min(len(raw), len(encoded))
        return [*(_patched(raw[i], encoded[i]) for i in range(shared)), *raw[shared:], *encoded[shared:]]
    return encoded


def _decode_and_encode(body: dict[str, Any], kind: str) -> tuple[dict[str, Any], list[Finding]]:
    """The general codec: every value checked against its Go type, decode errors collected with their
    path and Go's wording."""
    out = dict(body)
    struct_name, spec_type, status_type = _ROOTS[kind]
    codec = _Codec()
    ctx = _Context(struct_name)
    # Spec is a struct field: Go always encodes it, even when the input had none.
    out["spec"] = codec.value(body.get("spec"), spec_type, ("spec",), ctx.enter("spec"))
    if status_type is not None and body.get("status") is not None:
        out["status"] = codec.value(body["status"], status_type, ("status",), ctx.enter("status"))
    webhook = WEBHOOK_NAMES[kind]
    return out, [
        error(RULE_DECODE, path, f'admission webhook "{webhook}" denied the request: {detail}')
        for path, detail in codec.errors
    ]


def _defaulted(out: dict[str, Any], kind: str, partial_admission: bool) -> dict[str, Any]:
    """The webhooks' own Default() methods, on the patched object."""
    if kind in ("ClusterQueue", "ResourceFlavor"):
        _add_finalizer(out)
    if kind == "Workload" and not partial_admission:
        _drop_min_counts(out)
    return out


def _add_finalizer(obj: dict[str, Any]) -> None:
    """ClusterQueueWebhook/ResourceFlavorWebhook.Default: add the resource-in-use finalizer."""
    metadata = obj.get("metadata", {})
    if not isinstance(metadata, dict):
        return
    finalizers = metadata.get("finalizers", [])
    if isinstance(finalizers, list) and RESOURCE_IN_USE_FINALIZER not in finalizers:
        obj["metadata"] = {**metadata, "finalizers": [*finalizers, RESOURCE_IN_USE_FINALIZER]}


def _drop_min_counts(obj: dict[str, Any]) -> None:
    """WorkloadWebhook.Default: without PartialAdmission, minCount is dropped."""
    spec = obj.get("spec")
    pod_sets = spec.get("podSets") if isinstance(spec, dict) else None
    for pod_set in pod_sets if isinstance(pod_sets, list) else []:
        if isinstance(pod_set, dict):
            pod_set.pop("minCount", None)


# --- Go's decode + encode ------------------------------------------------------------------------


class _Context:
    """What Go's decoder reports about a type error: innermost struct and JSON field stack.

    Built for every field the codec visits but read only on a decode error, so entering a field
    just links to the parent; the field stack is walked when a message needs it.
    """

    __slots__ = ("struct", "parent", "field")

    def __init__(self, struct: str, parent: _Context | None = None, field: str | None = None) -> None:
        self.struct = struct
        self.parent = parent
        self.field = field

    @property
    def fields(self) -> tuple[str, ...]:
        names: list[str] = []
        node: _Context | None = self
        while node is not None and node.field is not None:
            names.append(node.field)
            node = node.parent
        return tuple(reversed(names))

    def enter(self, field: str, struct: str | None = None) -> _Context:
        return _Context(struct or self.struct, self, field)


class _Omit:
    """The encoder leaves the field out."""


_OMIT = _Omit()
_MISSING = object()
# Per Go struct type (kept alive by the module-level type tables, so their ids are stable): the
# fields by JSON name, and what an absent field encodes to. Both are the same for every object.
_FIELDS_BY_JSON: dict[int, dict[str, _Field]] = {}
_ABSENT_ENCODINGS: dict[tuple[int, str], Any] = {}


def _fields_by_json_name(type_: _Struct) -> dict[str, _Field]:
    known = _FIELDS_BY_JSON.get(id(type_))
    if known is None:
        known = _FIELDS_BY_JSON[id(type_)] = {f.json: f for f in type_.fields}
    return known


class _Codec:
    """Decodes JSON-like values into a Go type and encodes them back, collecting decode errors."""

    def __init__(self) -> None:
        self.errors: list[tuple[FieldPath, str]] = []

    def value(self, raw: Any, type_: GoType, path: FieldPath, ctx: _Context) -> Any:
        if raw is None:
            return self._zero(type_, path, ctx)
        if isinstance(type_, _Struct):
            return self._struct(raw, type_, path, ctx)
        if isinstance(type_, _Slice):
            return self._slice(raw, type_, path, ctx)
        if isinstance(type_, _Map):
            return self._map(raw, type_, path, ctx)
        if isinstance(type_, _Quantity):
            return self._quantity(raw, path)
        if isinstance(type_, _Scalar):
            return self._scalar(raw, type_, path, ctx)
        return raw  # _Opaque

    def _type_error(
        self, raw: Any, type_: GoType, path: FieldPath, ctx: _Context, value: str | None = None
    ) -> Any:
        described = value or json_kind(raw)
        where = f"{ctx.struct}.{'.'.join(ctx.fields)}"
        self.errors.append(
            (path, f"json: cannot unmarshal {described} into Go struct field {where} of type {type_.go}")
        )
        return raw  # kept as written, so later steps still see the user's value

    def _struct(self, raw: Any, type_: _Struct, path: FieldPath, ctx: _Context) -> Any:
        if not isinstance(raw, dict):
            return self._type_error(raw, type_, path, ctx)
        out: dict[str, Any] = {}
        known = _fields_by_json_name(type_)
        for key, value in raw.items():
            field = known.get(key)
            if field is None:
                out[key] = value  # not modelled here: passed through
                continue
            encoded = self._field(value, field, (*path, key), ctx.enter(key, type_.name))
            if encoded is not _OMIT:
                out[key] = encoded
        for field in type_.fields:
            if field.json not in raw:
                encoded = self._absent(field, type_, path, ctx)
                if encoded is not _OMIT:
                    out[field.json] = encoded
        return out

    def _absent(self, field: _Field, owner: _Struct, path: FieldPath, ctx: _Context) -> Any:
        """What Go encodes for a field the input leaves out: the same for every object of the type
        (a zero value decodes without error), so it is computed once and copied."""
        key = (id(owner), field.json)
        cached = _ABSENT_ENCODINGS.get(key, _MISSING)
        if cached is _MISSING:
            cached = self._field(None, field, (*path, field.json), ctx.enter(field.json, owner.name))
            _ABSENT_ENCODINGS[key] = cached
        return copy.deepcopy(cached) if isinstance(cached, (dict, list)) else cached

    def _field(self, raw: Any, field: _Field, path: FieldPath, ctx: _Context) -> Any:
        if raw is None and (field.pointer or isinstance(field.type, (_Slice, _Map, _Opaque))):
            # A nil pointer/slice/map: omitted, or encoded as null, which the API server prunes.
            return _OMIT
        encoded = self.value(raw, field.type, path, ctx)
        if field.pointer:
            return encoded  # a non-nil pointer is encoded even when it points at a zero value
        if field.omit == "empty" and _is_empty(encoded, field.type):
            return _OMIT
        if field.omit == "zero" and _is_zero(encoded, field.type):
            return _OMIT
        return encoded

    def _zero(self, type_: GoType, path: FieldPath, ctx: _Context) -> Any:
        """What Go encodes for a value that was null or absent."""
        if isinstance(type_, _Struct):
            return self._struct({}, type_, path, ctx)
        if isinstance(type_, _Quantity):
            return "0"
        if isinstance(type_, _Scalar):
            return {"string": "", "bool": False}.get(type_.kind, 0)
        return None

    def _slice(self, raw: Any, type_: _Slice, path: FieldPath, ctx: _Context) -> Any:
        if not isinstance(raw, list):
            return self._type_error(raw, type_, path, ctx)
        return [self.value(item, type_.elem, (*path, i), ctx) for i, item in enumerate(raw)]

    def _map(self, raw: Any, type_: _Map, path: FieldPath, ctx: _Context) -> Any:
        if not isinstance(raw, dict):
            return self._type_error(raw, type_, path, ctx)
        return {key: self.value(value, type_.value, (*path, key), ctx) for key, value in raw.items()}

    def _quantity(self, raw: Any, path: FieldPath) -> Any:
        # resource.Quantity.UnmarshalJSON: strip the quotes, trim spaces, ParseQuantity; the
        # error is returned as is (no field context). MarshalJSON prints the canonical form.
        try:
            return parse_quantity(_wire_text(raw).strip()).canonical()
        except QuantityError as exc:
            self.errors.append((path, str(exc)))
            return raw

    def _scalar(self, raw: Any, type_: _Scalar, path: FieldPath, ctx: _Context) -> Any:
        if type_.kind == "string":
            return raw if isinstance(raw, str) else self._type_error(raw, type_, path, ctx)
        if type_.kind == "bool":
            return raw if isinstance(raw, bool) else self._type_error(raw, type_, path, ctx)
        return self._integer(raw, type_, path, ctx)

    def _integer(self, raw: Any, type_: _Scalar, path: FieldPath, ctx: _Context) -> Any:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            return self._type_error(raw, type_, path, ctx)
        text = _wire_text(raw)
        low, high = _INT_RANGES[type_.kind]
        # Go parses the JSON literal with ParseInt: "3" (YAML 3.0 reaches the server as 3) is
        # fine, "1.5" or an out-of-range number is "number <literal>".
        if not _is_int_literal(text) or not low <= int(text) <= high:
            return self._type_error(raw, type_, path, ctx, value=f"number {text}")
        return int(text)


def _is_int_literal(text: str) -> bool:
    digits = text[1:] if text.startswith("-") else text
    return digits.isdigit()


def _is_empty(value: Any, type_: GoType) -> bool:
    """Go's omitempty: false, 0, "", and empty slices/maps; never a struct (Quantity included).

    A value that failed to decode is never "empty": it stays as written.
    """
    if isinstance(type_, (_Slice, _Map)):
        return isinstance(value, (list, dict)) and not value
    if not isinstance(type_, _Scalar):
        return False
    if type_.kind == "string":
        return value == ""
    if type_.kind == "bool":
        return value is False
    return type(value) is int and value == 0


def _is_zero(value: Any, type_: GoType) -> bool:
    """Go's omitzero: the type's zero value (for a struct: every field zero, i.e. nothing encoded)."""
    if isinstance(type_, _Struct):
        return value == {}
    return value is None or _is_empty(value, type_)


def _wire_text(raw: Any) -> str:
    """The JSON text the API server receives for a YAML scalar (kubectl: YAML -> Go values -> JSON)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        return go_float_text(float(raw))
    return "{}" if isinstance(raw, dict) else "[]" if isinstance(raw, list) else str(raw)


def go_float_text(value: float) -> str:
    """How Go's encoding/json prints a float64: shortest digits, exponent only below 1e-6 or from 1e21.

    kubectl parses a YAML float into a float64, so ``0.1`` reaches the server as ``0.1`` but
    ``1e3`` as ``1000`` and ``2.50`` as ``2.5``.
    """
    if value != value or value in (float("inf"), float("-inf")):
        return repr(value)  # JSON cannot carry it; the quantity parser rejects the text
    shortest = Decimal(repr(value))
    magnitude = abs(value)
    if magnitude == 0 or 1e-6 <= magnitude < 1e21:
        text = format(shortest, "f")
        return text[:-2] if text.endswith(".0") else text
    sign, digits, exponent = shortest.as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    # strconv 'e' writes at least two exponent digits; encoding/json then turns e-07 into e-7.
    exp_text = f"{power:+03d}" if power > 0 else str(power)
    return ("-" if sign else "") + body + "e" + exp_text


# --- the same codec for objects that decode cleanly ----------------------------------------------
#
# Nearly every object decodes without an error. For those, encoders compiled once per Go type give the
# very same output without the bookkeeping errors need (field paths, Go's struct/field context); at the
# first value that is not plainly of its Go type (a wrong JSON type, an unparseable or non-string
# quantity, a number that is not a plain in-range integer) the general codec above redoes the object.


class _Irregular(Exception):
    """A value the general codec must judge."""


Encoder = Callable[[Any], Any]  # a non-null JSON value -> what Go encodes it to (or _OMIT)
_ENCODERS: dict[int, Encoder] = {}  # per Go type (by id: the type tables live as long as the module)
# Canonical forms of quantity strings already seen (a cluster repeats a few dozen of them).
_CANONICAL: dict[str, str] = {}
_CANONICAL_LIMIT = 10_000


def _encode_regular(body: dict[str, Any], out: dict[str, Any], kind: str) -> None:
    """Fills ``out`` as the general codec would, or raises _Irregular."""
    _, spec_type, status_type = _ROOTS[kind]
    spec = body.get("spec")
    out["spec"] = _encoder(spec_type)(spec if spec is not None else {})
    status = body.get("status")
    if status_type is not None and status is not None:
        out["status"] = _encoder(status_type)(status)


def _encoder(type_: GoType) -> Encoder:
    known = _ENCODERS.get(id(type_))
    if known is None:
        known = _ENCODERS[id(type_)] = _compile_encoder(type_)
    return known


def _compile_encoder(type_: GoType) -> Encoder:
    if isinstance(type_, _Struct):
        return _struct_encoder(type_)
    if isinstance(type_, _Slice):
        return _slice_encoder(type_)
    if isinstance(type_, _Map):
        return _map_encoder(type_)
    if isinstance(type_, _Quantity):
        return _quantity_encoder
    if isinstance(type_, _Scalar):
        return _scalar_encoder(type_)
    return _same  # _Opaque


def _same(raw: Any) -> Any:
    return raw


def _struct_encoder(type_: _Struct) -> Encoder:
    fields = {field.json: _field_encoder(field) for field in type_.fields}
    fields_get = fields.get
    # What absent fields encode to, computed by the general codec (a zero value never fails to decode).
    absent = []
    for field in type_.fields:
        encoded = _Codec()._field(None, field, (field.json,), _Context(type_.name))
        if encoded is not _OMIT:
            absent.append((field.json, encoded, isinstance(encoded, (dict, list))))

    def encode(raw: Any) -> Any:
        if type(raw) is not dict:
            raise _Irregular
        out = {}
        for key, value in raw.items():
            field = fields_get(key)
            if field is None:
                out[key] = value  # not modelled: passed through
            else:
                encoded = field(value)
                if encoded is not _OMIT:
                    out[key] = encoded
        for name, encoded, container in absent:
            if name not in raw:
                out[name] = _fresh(encoded) if container else encoded
        return out

    return encode


def _fresh(value: Any) -> Any:
    """A new copy of a constant encoding (dicts, lists and immutable scalars)."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    return value


def _field_encoder(field: _Field) -> Encoder:
    type_ = field.type
    if isinstance(type_, _Scalar) and type_.kind == "string" and not field.pointer:
        return _string_field(field.omit)
    encode = _encoder(type_)
    if field.pointer or isinstance(type_, (_Slice, _Map, _Opaque)):
        # nil is omitted; a non-nil pointer is encoded even when it points at a zero value.
        dropped = None if field.pointer or field.omit == "never" else _omitted_when(type_, field.omit)

        def encode_nillable(raw: Any) -> Any:
            if raw is None:
                return _OMIT
            encoded = encode(raw)
            return _OMIT if dropped is not None and dropped(encoded) else encoded

        return encode_nillable
    zero = _Codec()._zero(type_, (), _Context(""))
    dropped = None if field.omit == "never" else _omitted_when(type_, field.omit)

    def encode_value(raw: Any) -> Any:
        encoded = encode(raw) if raw is not None else _fresh(zero)
        return _OMIT if dropped is not None and dropped(encoded) else encoded

    return encode_value


def _omitted_when(type_: GoType, omit: str) -> Callable[[Any], bool] | None:
    """Go's omitempty/omitzero test for an encoded value of ``type_`` (None: never omitted), as
    _is_empty and _is_zero decide it."""
    if omit == "zero" and isinstance(type_, _Struct):
        return lambda value: value == {}
    if isinstance(type_, (_Slice, _Map)):
        return lambda value: isinstance(value, (list, dict)) and not value
    if isinstance(type_, _Scalar):
        return lambda value: _is_zero(value, type_) if omit == "zero" else _is_empty(value, type_)
    if omit == "zero":
        return lambda value: value is None  # a struct-less, never-empty type: only nil is its zero
    return None  # structs, quantities and opaque values are never "empty"


def _string_field(omit: str) -> Encoder:
    """A (non-pointer) string field, the most common kind."""
    kept_when_empty = omit == "never"

    def encode_field(raw: Any) -> Any:
        if type(raw) is str:
            return raw if raw or kept_when_empty else _OMIT
        if raw is None:
            return "" if kept_when_empty else _OMIT
        raise _Irregular

    return encode_field


def _slice_encoder(type_: _Slice) -> Encoder:
    item = _encoder(type_.elem)
    zero = _Codec()._zero(type_.elem, (), _Context(""))

    def encode(raw: Any) -> Any:
        if type(raw) is not list:
            raise _Irregular
        return [item(value) if value is not None else _fresh(zero) for value in raw]

    return encode


def _map_encoder(type_: _Map) -> Encoder:
    item = _encoder(type_.value)
    zero = _Codec()._zero(type_.value, (), _Context(""))

    def encode(raw: Any) -> Any:
        if type(raw) is not dict:
            raise _Irregular
        return {key: item(value) if value is not None else _fresh(zero) for key, value in raw.items()}

    return encode


def _quantity_encoder(raw: Any) -> Any:
    if type(raw) is not str:
        raise _Irregular
    canonical = _CANONICAL.get(raw)
    if canonical is None:
        try:
            canonical = parse_quantity(raw.strip()).canonical()
        except QuantityError:
            raise _Irregular from None
        if len(_CANONICAL) >= _CANONICAL_LIMIT:
            _CANONICAL.clear()
        _CANONICAL[raw] = canonical
    return canonical


def _scalar_encoder(type_: _Scalar) -> Encoder:
    if type_.kind == "string":
        def encode_string(raw: Any) -> Any:
            if type(raw) is not str:
                raise _Irregular
            return raw
        return encode_string
    if type_.kind == "bool":
        def encode_bool(raw: Any) -> Any:
            if type(raw) is not bool:
                raise _Irregular
            return raw
        return encode_bool
    low, high = _INT_RANGES[type_.kind]

    def encode_integer(raw: Any) -> Any:
        # A plain in-range int encodes to itself; floats (YAML 3.0) and the rest go the general way.
        if type(raw) is not int or not low <= raw <= high:
            raise _Irregular
        return raw

    return encode_integer
