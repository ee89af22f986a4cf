"""One snapshot of everything the admission engine reads, as typed models (the engine's only input)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kqctl.k8s.core import LimitRange, Namespace, PriorityClass
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
    defaulted: dict[str, dict[str, Any]] = field(default_factory=dict)
