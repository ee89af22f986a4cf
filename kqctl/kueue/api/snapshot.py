"""One snapshot of everything the admission engine reads, as typed models (the engine's only input)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kqctl.k8s.core import LimitRange, Namespace, PriorityClass, namespace_of
from kqctl.kueue.api.config import KueueConfig
from kqctl.kueue.api.models import (
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


class DefaultedFields(Mapping[str, dict[str, Any]]):
    """DEF-1, per object ("ClusterQueue/team-a", "Workload/ns/name"): {field path as validate writes it: the value
    the API server stores} for the fields of its spec the input left out.

    Noted for every admitted object as the snapshot is built, and worked out the first time any is looked up: every
    one of 50,000 Workloads has ``spec.active`` filled in, and only explain reads them, for two objects.
    """

    def __init__(self) -> None:
        # (kind as keyed, namespaced, the stored body, the paths filled in)
        self._noted: list[tuple[str, bool, Mapping[str, Any], tuple[tuple[str | int, ...], ...]]] = []
        self._fields: dict[str, dict[str, Any]] = {}

    def note(self, kind: str, namespaced: bool, body: Mapping[str, Any],
             paths: tuple[tuple[str | int, ...], ...]) -> None:
        """The spec ``paths`` the API server filled in of an object of ``kind`` it stores as ``body``."""
        self._noted.append((kind, namespaced, body, paths))

    def _worked_out(self) -> dict[str, dict[str, Any]]:
        from kqctl.origin import format_path

        for kind, namespaced, body, paths in self._noted:
            meta = body.get("metadata")
            name = meta.get("name") if isinstance(meta, Mapping) else None
            namespace = namespace_of(meta, namespaced)
            key = f"{kind}/{namespace}/{name}" if namespace is not None else f"{kind}/{name}"
            self._fields[key] = {format_path(path): _value_at(body, path) for path in paths}
        self._noted.clear()
        return self._fields

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent to other processes (plan's executor) worked out: the bodies noted would weigh far more.
        return _defaulted_fields, (self._worked_out(),)

    def __getitem__(self, key: str) -> dict[str, Any]:
        return self._worked_out()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._worked_out())

    def __len__(self) -> int:
        return len(self._worked_out())


def _defaulted_fields(fields: dict[str, dict[str, Any]]) -> DefaultedFields:
    made = DefaultedFields()
    made._fields = fields
    return made


def _value_at(body: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        body = body[part]
    return body


@dataclass
class Snapshot:
    """Kueue and core objects by name; ``namespaces`` is None when the inputs hold no Namespace at all.

    ``now`` is the clock of the snapshot (when it was taken), used for wait times and the
    quota-reservation times of admissions made by the simulation.
    """

    resource_flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    cluster_queues: dict[str, ClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, Cohort] = field(default_factory=dict)
    local_queues: dict[str, LocalQueue] = field(default_factory=dict)  # key: namespace/name
    workloads: list[Workload] = field(default_factory=list)
    workload_priority_classes: dict[str, WorkloadPriorityClass] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    admission_checks: dict[str, AdmissionCheck] = field(default_factory=dict)
    namespaces: dict[str, Namespace] | None = None
    limit_ranges: list[LimitRange] = field(default_factory=list)
    topologies: dict[str, Topology] = field(default_factory=dict)  # TAS (kqctl.kueue.engine.tas_cache)
    nodes: dict[str, Node] = field(default_factory=dict)  # TAS: the Nodes TAS flavors place pods on
    config: KueueConfig = field(default_factory=KueueConfig)
    now: datetime | None = None
    warnings: list[str] = field(default_factory=list)
    # Jobs and Pods of the inputs that get no Workload (REQ-1, XO-8): "namespace/name" -> (kind, why).
    without_workload: dict[str, tuple[str, str]] = field(default_factory=dict)
    # DEF-1: the fields of a spec the API server filled in that the input left out, per object
    # ("ClusterQueue/team-a", "Workload/ns/name") -> {field path as validate writes it: the value stored}, e.g.
    # {"spec.queueingStrategy": "BestEffortFIFO"}; empty for objects simulated as given (--as-given) or read from
    # a cluster (stored objects: nobody knows what was written).
    defaulted: DefaultedFields = field(default_factory=DefaultedFields)
