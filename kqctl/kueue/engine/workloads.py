"""Workloads as the scheduler sees them: priority, queue order, requests per pod set, usage (REQ, CYC-16).

A :class:`WorkloadInfo` wraps the immutable model with the state the simulation changes:
its admission (quota reservation), whether it was evicted, and its flavor-scan memory (FA-4).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

from kqctl.k8s.core import is_mapping
from kqctl.k8s.pods import (
    LimitRangeSummary,
    PodResources,
    Resources,
    adjust,
    pod_requests,
    read_pod_resources,
)
from kqctl.k8s.quantity import MAX_INT64
from kqctl.kueue.api.config import KueueConfig
from kqctl.kueue.api.models import FlavorResource, PodSet, TopologyAssignment, Workload

# Kueue sees a workload without creationTimestamp at Go's zero time.
ZERO_TIME = datetime(1, 1, 1, tzinfo=timezone.utc)
_NOTHING_HELD: Mapping[FlavorResource, int] = {}  # never changed: shared by every workload without an admission


def fnv1a64(text: str) -> int:
    """FA-2: resources are visited in the order of this hash of their name."""
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


_HASH_CACHE: dict[str, int] = {}


def resource_order(names: Any) -> list[str]:
    """Resource names in Kueue's iteration order (FA-2): by FNV-1a hash, then name."""
    def key(name: str) -> tuple[int, str]:
        cached = _HASH_CACHE.get(name)
        if cached is None:
            cached = _HASH_CACHE[name] = fnv1a64(name)
        return cached, name

    return sorted(names, key=key)


def sat_mul(value: int, factor: int) -> int:
    return max(min(value * factor, MAX_INT64), -MAX_INT64 - 1)


@dataclass
class PodSetInfo:
    """One pod set: per-pod requests after REQ-5/6/7/8 and the effective count (REQ-9)."""

    index: int
    name: str
    spec_count: int
    count: int  # after reclaimable pods
    min_count: int | None
    per_pod: Resources
    pod_spec: Mapping[str, Any]
    resources: PodResources  # adjusted, for the REQ-15 checks
    group: str  # FA-15: podSetGroupName, else the pod set's index

    @property
    def total(self) -> Resources:
        """Per-pod requests times the count (a new dict: callers add to it)."""
        return dict(self._total)

    @cached_property
    def _total(self) -> Resources:
        # Worked out once: a pod set's requests and count never change, and every attempt asks for them.
        return {name: sat_mul(value, self.count) for name, value in self.per_pod.items()}

    def total_for(self, count: int) -> Resources:
        """Totals for another count, scaled as Kueue's ``ScaledTo`` does (divide, then multiply); a new dict."""
        if self.count == 0 or count == self.count:
            return self.total
        return {name: sat_mul(value // self.count, count) for name, value in self._total.items()}


@dataclass(frozen=True)
class PodSetAdmission:
    """One pod set of an admission: the flavor of each resource, the pod set's total usage, its pod count."""

    name: str
    flavors: Mapping[str, str]  # resource -> flavor
    usage: Mapping[str, int]  # resource -> total for the pod set
    count: int
    # TAS-6: the nodes its pods hold (PodSetAssignment.topologyAssignment); None without a topology. Not part of
    # equality: two admissions of the same quota are the same reservation wherever the pods go.
    topology: TopologyAssignment | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Admission:
    """A quota reservation (REQ-10): the ClusterQueue and its pod sets' assignments."""

    cluster_queue: str
    pod_sets: tuple[PodSetAdmission, ...]

    def usage(self) -> dict[FlavorResource, int]:
        """REQ-10: usage per (flavor, resource); resources without a flavor hold no quota (a new dict)."""
        return dict(self._usage)

    def held(self) -> Mapping[FlavorResource, int]:
        """:meth:`usage` itself, not a copy, for readers that only read it (the quota cache, on every admission and
        release): never to be changed."""
        return self._usage

    # An admission never changes once made, and preemption searches ask every admitted workload of a cohort for
    # its usage and flavors many times per cycle: both are worked out once (cached_property on a frozen dataclass
    # stores in the instance dict, outside the fields that equality and hashing see).
    @cached_property
    def _usage(self) -> dict[FlavorResource, int]:
        result: dict[FlavorResource, int] = {}
        for pod_set in self.pod_sets:
            for resource, value in pod_set.usage.items():
                flavor = pod_set.flavors.get(resource)
                if flavor is not None:
                    result[(flavor, resource)] = result.get((flavor, resource), 0) + value
        return result

    @cached_property
    def flavor_resources(self) -> frozenset[FlavorResource]:
        """Every (flavor, resource) a pod set of it was assigned (PRE-4), held quota or not."""
        return frozenset((flavor, resource) for ps in self.pod_sets for resource, flavor in ps.flavors.items())


@dataclass
class ScanMemory:
    """FA-4: where the flavor scan of each pod set and resource ended in the last attempt."""

    last_tried: list[dict[str, int]]
    cycle: int
    generation: int
    shape: str

    def next_index(self, pod_set_index: int, resource: str) -> int:
        if pod_set_index >= len(self.last_tried):
            return 0
        return self.last_tried[pod_set_index].get(resource, -1) + 1

    def has_pending_flavors(self) -> bool:
        return any(index != -1 for tried in self.last_tried for index in tried.values())


class DerivedParts:
    """What the engine works out from a workload model alone (its LimitRanges and the configuration held): the pod
    sets' requests (REQ-5..9), the scheduling shape (CYC-12) and whether a pod set asks for a topology (TAS-2).
    None of them changes while a simulation runs."""

    __slots__ = ("pod_sets", "shape", "requests_tas", "partially_admissible")

    def __init__(self) -> None:
        self.pod_sets: list[PodSetInfo] | None = None
        self.shape: str | None = None
        self.requests_tas: bool | None = None
        self.partially_admissible: bool | None = None


class WorkloadMemo:
    """The derived parts of workload models, shared by every simulation of one question.

    explain checks each suggestion with another simulation of (almost) the same snapshot: the same Workload objects,
    LimitRanges and configuration. Their pod-set arithmetic and shapes are then the same, and on 50,000 workloads
    working them out again was most of each check's set-up. A model's parts are reused only for the same model object
    read with the same LimitRange list and configuration objects (a changed snapshot that replaced either gets its
    own); the memo holds the models it answers for, so an id is never reused while it lives.
    """

    def __init__(self) -> None:
        self._parts: dict[int, tuple[Workload, object, KueueConfig, DerivedParts, bool]] = {}
        # Models written alike share their parts: (LimitRange list, configuration, namespace, priority, the pod sets as
        # written) -> the parts, with the list and configuration they are keyed by (kept alive: ids stay theirs).
        self._alike: dict[tuple[int, int, str, int, str], tuple[object, KueueConfig, DerivedParts]] = {}
        # The repr of each pod-set tuple, by the tuple (models decoded from bodies written alike share theirs:
        # kqctl.kueue.load.WorkloadsAhead), so that 50,000 of them are not written out one by one.
        self._written: dict[int, tuple[tuple[PodSet, ...], str]] = {}

    def parts(self, model: Workload, limit_ranges: object, config: KueueConfig,
              reclaimable_pods: bool = True) -> DerivedParts:
        """``reclaimable_pods``: the ReclaimablePods gate (REQ-9), read by the parts of a model with reclaimable pods
        (never shared with another model's): such a model's parts are kept for one value of the gate."""
        entry = self._parts.get(id(model))
        if entry is not None and entry[0] is model and entry[1] is limit_ranges and entry[2] is config and (
                entry[4] == reclaimable_pods or not model.reclaimable_pods):
            return entry[3]
        parts = self._alike_parts(model, limit_ranges, config)
        self._parts[id(model)] = (model, limit_ranges, config, parts, reclaimable_pods)
        return parts

    def _alike_parts(self, model: Workload, limit_ranges: object, config: KueueConfig) -> DerivedParts:
        """The parts of a model whose pod sets are written as another's (the same templates, counts and topology
        requests, compared as their repr: the YAML's dicts, lists, strings and numbers), at the same priority, in the
        same namespace (its LimitRanges): the pod-set arithmetic (REQ-5..9), the shape (CYC-12) and the topology
        question (TAS-2) read nothing else of a model without reclaimable pods and without an admission (whose usage
        is its own). 50,000 generated workloads come in a few such kinds; each kind is worked out once."""
        if model.admission is not None or model.reclaimable_pods:
            return DerivedParts()
        key = (id(limit_ranges), id(config), model.namespace, model.priority or 0, self._written_as(model.pod_sets))
        found = self._alike.get(key)
        if found is None or found[0] is not limit_ranges or found[1] is not config:
            found = self._alike[key] = (limit_ranges, config, DerivedParts())
        return found[2]

    def _written_as(self, pod_sets: tuple[PodSet, ...]) -> str:
        known = self._written.get(id(pod_sets))
        if known is not None and known[0] is pod_sets:
            return known[1]
        written = repr(pod_sets)
        self._written[id(pod_sets)] = (pod_sets, written)
        return written


@dataclass(eq=False)
class WorkloadInfo:
    """A workload and what the simulation changes about it.

    Pod-set requests and the scheduling shape are computed on first use: most of 50,000 pending
    workloads are never heads, and their queue order needs only priority, time and UID.
    """

    model: Workload
    priority: int
    queue_order_time: datetime
    build_pod_sets: Callable[[], list[PodSetInfo]] = field(repr=False)
    cluster_queue: str | None = None
    admission: Admission | None = None
    evicted: bool = False
    reservation_time: datetime | None = None
    scan_memory: ScanMemory | None = None
    # Pod sets and shape, worked out once; shared with the infos of the same model in other simulations (WorkloadMemo).
    derived: DerivedParts = field(default_factory=lambda: DerivedParts(), repr=False)
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = f"{self.model.namespace}/{self.model.name}"

    @property
    def pod_sets(self) -> list[PodSetInfo]:
        derived = self.derived
        if derived.pod_sets is None:
            derived.pod_sets = self.build_pod_sets()
        return derived.pod_sets

    @property
    def shape(self) -> str:
        derived = self.derived
        if derived.shape is None:
            derived.shape = scheduling_shape(self)
        return derived.shape

    @property
    def namespace(self) -> str:
        return self.model.namespace

    @property
    def uid(self) -> str:
        return self.model.uid

    def order_key(self) -> tuple[str, str]:
        """§0.4: UID, then namespace/name when UIDs are equal (a missing UID sorts first)."""
        return self.model.uid, self.key

    def usage(self) -> dict[FlavorResource, int]:
        return self.admission.usage() if self.admission is not None else {}

    def held_usage(self) -> Mapping[FlavorResource, int]:
        """:meth:`usage` for readers that only read it (Admission.held): never to be changed."""
        return self.admission.held() if self.admission is not None else _NOTHING_HELD

    def can_be_partially_admitted(self) -> bool:
        """REQ-13: some pod set may shrink down to its minCount (its pod sets never change: worked out once)."""
        derived = self.derived
        if derived.partially_admissible is None:
            derived.partially_admissible = any(
                ps.spec_count > (ps.min_count if ps.min_count is not None else ps.spec_count) for ps in self.pod_sets)
        return derived.partially_admissible


ALLOWED_FLAVORS_ANNOTATION = "kueue.x-k8s.io/workload-allowed-resource-flavors"
PARENT_LABEL = "kueue.x-k8s.io/concurrent-admission-parent"


def allowed_flavors(workload: WorkloadInfo) -> list[str] | None:
    """ConcurrentAdmission: the flavors a variant may use (None: no restriction)."""
    raw = workload.model.annotations.get(ALLOWED_FLAVORS_ANNOTATION)
    if raw is None:
        return None
    return [part.strip() for part in raw.split(",")] if raw.strip() else []


def variant_flavor(workload: WorkloadInfo) -> str:
    flavors = allowed_flavors(workload)
    return flavors[0] if flavors else ""


def is_concurrent_admission_parent(workload: WorkloadInfo) -> bool:
    return workload.model.labels.get(PARENT_LABEL) == "true"


def build_workload_info(workload: Workload, limits: LimitRangeSummary | None, config: KueueConfig,
                        derived: DerivedParts | None = None, reclaimable_pods: bool = True) -> WorkloadInfo:
    """REQ-5..10 and CYC-16 for one workload model; ``derived``: its parts worked out by another simulation (memo);
    ``reclaimable_pods``: whether the ReclaimablePods gate is on (REQ-9)."""
    def pod_sets() -> list[PodSetInfo]:
        return [_pod_set_info(i, ps, workload, limits, config, reclaimable_pods)
                for i, ps in enumerate(workload.pod_sets)]

    info = WorkloadInfo(
        model=workload,
        priority=workload.priority or 0,  # REQ-4
        queue_order_time=queue_order_time(workload),
        build_pod_sets=pod_sets,
        derived=derived if derived is not None else DerivedParts(),
    )
    if workload.admission is not None and workload.is_condition_true("QuotaReserved"):
        info.admission = _admission(workload, info.pod_sets)
        condition = workload.condition("QuotaReserved")
        info.reservation_time = condition.last_transition_time if condition else None
    info.evicted = workload.is_condition_true("Evicted")
    return info


def queue_order_time(workload: Workload) -> datetime:
    """CYC-16: eviction by PodsReady timeout or by an admission check restarts the queue order."""
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.status == "True" and evicted.reason in ("PodsReadyTimeout", "AdmissionCheck"):
        return evicted.last_transition_time or ZERO_TIME
    return workload.creation_timestamp or ZERO_TIME


def _pod_set_info(index: int, pod_set: Any, workload: Workload, limits: LimitRangeSummary | None,
                  config: KueueConfig, reclaimable_pods: bool = True) -> PodSetInfo:
    template = pod_set.template if is_mapping(pod_set.template) else {}
    raw_spec = template.get("spec")
    spec: Mapping[str, Any] = raw_spec if is_mapping(raw_spec) else {}
    resources = adjust(read_pod_resources(spec), limits)
    per_pod = apply_resource_filters(pod_requests(resources), config)
    # REQ-9: pods the job reports reclaimable are not counted, while the ReclaimablePods gate is on (with it off, Kueue
    # counts every pod of the spec, for a pending workload's requests and an admitted one's usage alike).
    reclaimable = workload.reclaimable_pods.get(pod_set.name, 0) if reclaimable_pods else 0
    count = pod_set.count - min(reclaimable, pod_set.count)
    topology = pod_set.topology_request if is_mapping(pod_set.topology_request) else {}
    group = topology.get("podSetGroupName")
    return PodSetInfo(
        index=index,
        name=pod_set.name,
        spec_count=pod_set.count,
        count=count,
        min_count=pod_set.min_count,
        per_pod=per_pod,
        pod_spec=spec,
        resources=resources,
        group=str(group) if isinstance(group, str) and group else str(index),
    )


def apply_resource_filters(requests: Resources, config: KueueConfig) -> Resources:
    """REQ-7: excluded resource prefixes, then resource transformations."""
    result = {name: value for name, value in requests.items()
              if not any(name.startswith(prefix) for prefix in config.exclude_resource_prefixes)}
    if not config.transformations:
        return result
    from kqctl.kueue.engine.transformations import apply_transformations

    return apply_transformations(result, config.transformations)


def _admission(workload: Workload, pod_sets: list[PodSetInfo]) -> Admission | None:
    """REQ-10: quota is held from the reservation, as status.admission records it."""
    if workload.admission is None or not workload.is_condition_true("QuotaReserved"):
        return None
    by_name = {ps.name: ps for ps in pod_sets}
    assignments: list[PodSetAdmission] = []
    for assignment in workload.admission.pod_set_assignments:
        pod_set = by_name.get(assignment.name)
        spec_count = pod_set.spec_count if pod_set else 0
        count = assignment.count if assignment.count is not None else spec_count
        usage = dict(assignment.resource_usage)
        after_reclaim = pod_set.count if pod_set else count
        if pod_set is not None and after_reclaim < count and count > 0:
            usage = {name: (value // count) * after_reclaim for name, value in usage.items()}
            count = after_reclaim
        assignments.append(PodSetAdmission(assignment.name, dict(assignment.flavors), usage, count,
                                           assignment.topology_assignment))
    return Admission(workload.admission.cluster_queue, tuple(assignments))


def scheduling_shape(info: WorkloadInfo) -> str:
    """CYC-12: what makes two workloads equivalent to the scheduler (not namespace, name or time)."""
    parts: list[str] = [str(info.priority)]
    for pod_set in info.pod_sets:
        parts.append(repr((pod_set.name, pod_set.count, pod_set.min_count, sorted(pod_set.total.items()),
                           _spec_shape(pod_set.pod_spec), pod_set.group)))
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def _spec_shape(spec: Mapping[str, Any]) -> str:
    keys = ("nodeSelector", "affinity", "tolerations", "priorityClassName")
    return repr({key: spec.get(key) for key in keys if key in spec})
