"""Kueue's scheduler performance configurations (``test/performance/scheduler/configs/*/generator.yaml``).

Read as Kueue's runner reads them (``runner/generator/generator.go`` at the reference commit) and
turned into the objects the runner creates, so that ``kqctl replay`` can be compared with Kueue's
published runs:

* one ResourceFlavor (``resourceFlavor.name``, default ``rf``);
* per cohort set ``count`` cohorts named ``<className>-<i>`` (implicit, only named by ClusterQueues);
* per queue set ``count`` ClusterQueues ``<className>-<setIndex>-<i>-<cohort>``: one resource group
  ``[cpu]`` with ``nominalQuota`` and ``borrowingLimit`` (and ``lendingLimit`` when given), the
  preemption policies of the set, and what Kueue's test wrapper defaults (``namespaceSelector: {}``,
  BestEffortFIFO, flavorFungibility MayStopSearch / TryNextFlavor); a Namespace and a LocalQueue of
  the same name;
* per workload set ``count`` rounds; in each round one Workload per template, each after waiting
  ``creationIntervalMs`` (so the k-th Workload of a set is created ``(k + 1) * interval`` after the
  set starts, plus ``initialDelayMs``): named ``<className>-<setIndex>-<round>-<templateIndex>``, one
  pod requesting ``request`` cpu, ``spec.priority``, the runtime and class labels the runner reads.

Every ClusterQueue and workload set starts at the replay's start (the runner starts them all
concurrently). UIDs, which break ties in Kueue's queues, are drawn from ``seed``. TAS and DRA
configurations (``topology``, ``dra``, ``tasLevel``, ``devices``) are refused: kqctl does not replay
Topology-Aware Scheduling.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from kqctl.k8s.core import Namespace
from kqctl.k8s.quantity import QuantityError, parse_quantity, quota_value, resource_value
from kqctl.kueue.api.models import ClusterQueue, LocalQueue, PodSet, ResourceFlavor, Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.replay.runtimes import PERFORMANCE_RUNTIME_LABEL
from kqctl.kueue.replay.timeline import CLASS_LABEL

DEFAULT_FLAVOR = "rf"
CLEANUP_LABEL = "kueue.x-k8s.io/performance-scheduler-cleanup"
Path = tuple[str | int, ...]


class GeneratorError(ValueError):
    """A configuration the runner would refuse or kqctl cannot replay; ``path`` locates the field."""

    def __init__(self, path: Path, message: str) -> None:
        self.path = path
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
        super().__init__(f"{where}: {message}" if path else message)


@dataclass(frozen=True)
class WorkloadTemplate:
    class_name: str
    runtime_ms: int
    priority: int
    request: str


@dataclass(frozen=True)
class WorkloadsSet:
    count: int
    interval_ms: int
    initial_delay_ms: int
    templates: tuple[WorkloadTemplate, ...]


@dataclass(frozen=True)
class QueuesSet:
    class_name: str
    count: int
    nominal_quota: str
    borrowing_limit: str | None
    lending_limit: str | None
    reclaim_within_cohort: str
    within_cluster_queue: str
    workloads_sets: tuple[WorkloadsSet, ...]


@dataclass(frozen=True)
class CohortSet:
    class_name: str
    count: int
    queues_sets: tuple[QueuesSet, ...]


@dataclass(frozen=True)
class GeneratorConfig:
    flavor: str
    cohorts: tuple[CohortSet, ...]

    @property
    def workloads(self) -> int:
        return sum(c.count * q.count * w.count * len(w.templates)
                   for c in self.cohorts for q in c.queues_sets for w in q.workloads_sets)

    @property
    def cluster_queues(self) -> int:
        return sum(c.count * q.count for c in self.cohorts for q in c.queues_sets)


def is_generator_config(data: Any) -> bool:
    """A generator configuration (``cohorts:`` of cohort sets, or the older top-level list), not manifests."""
    if isinstance(data, Mapping):
        return "cohorts" in data and "kind" not in data and "apiVersion" not in data
    return isinstance(data, list) and bool(data) and all(isinstance(i, Mapping) and "queuesSets" in i for i in data)


def parse_generator(data: Any) -> GeneratorConfig:
    """The configuration as Go's decoder would read it; unknown or unsupported fields are errors."""
    if isinstance(data, list):  # the runner's first format: the list of cohort sets itself
        data = {"cohorts": data}
    if not isinstance(data, Mapping):
        raise GeneratorError((), "expected a mapping with cohorts: (Kueue's generator.yaml)")
    for key in ("topology", "dra"):
        if data.get(key) is not None:
            raise GeneratorError((key,), "Topology-Aware Scheduling and DRA configurations are not replayed")
    _known(data, (), ("cohorts", "resourceFlavor", "topology", "dra"))
    flavor = DEFAULT_FLAVOR
    if data.get("resourceFlavor") is not None:
        rf = _mapping(data["resourceFlavor"], ("resourceFlavor",))
        flavor = _string(rf, ("resourceFlavor",), "name") or DEFAULT_FLAVOR
    cohorts = tuple(_cohort_set(item, ("cohorts", i)) for i, item in enumerate(_list(data, (), "cohorts")))
    if not cohorts:
        raise GeneratorError(("cohorts",), "config must contain at least one cohort")
    return GeneratorConfig(flavor, cohorts)


def _cohort_set(raw: Any, path: Path) -> CohortSet:
    item = _mapping(raw, path)
    _known(item, path, ("className", "count", "queuesSets"))
    sets = tuple(_queues_set(q, (*path, "queuesSets", i)) for i, q in enumerate(_list(item, path, "queuesSets")))
    return CohortSet(_string(item, path, "className"), _count(item, path, "count"), sets)


def _queues_set(raw: Any, path: Path) -> QueuesSet:
    item = _mapping(raw, path)
    _known(item, path, ("className", "count", "nominalQuota", "borrowingLimit", "lendingLimit", "reclaimWithinCohort",
                        "withinClusterQueue", "workloadsSets", "deviceNominalQuota", "deviceBorrowingLimit"))
    if item.get("deviceNominalQuota") is not None:
        raise GeneratorError((*path, "deviceNominalQuota"), "DRA configurations are not replayed")
    nominal = _quantity(item, path, "nominalQuota", required=True)
    assert nominal is not None
    workload_sets = tuple(_workloads_set(w, (*path, "workloadsSets", i))
                          for i, w in enumerate(_list(item, path, "workloadsSets")))
    return QueuesSet(_string(item, path, "className"), _count(item, path, "count"), nominal,
                     _quantity(item, path, "borrowingLimit"), _quantity(item, path, "lendingLimit"),
                     _policy(item, path, "reclaimWithinCohort", ("Never", "LowerPriority", "Any")),
                     _policy(item, path, "withinClusterQueue", ("Never", "LowerPriority", "LowerOrNewerEqualPriority")),
                     workload_sets)


def _workloads_set(raw: Any, path: Path) -> WorkloadsSet:
    item = _mapping(raw, path)
    _known(item, path, ("count", "creationIntervalMs", "initialDelayMs", "workloads"))
    templates = tuple(_template(t, (*path, "workloads", i)) for i, t in enumerate(_list(item, path, "workloads")))
    return WorkloadsSet(_count(item, path, "count"), _count(item, path, "creationIntervalMs"),
                        _count(item, path, "initialDelayMs"), templates)


def _template(raw: Any, path: Path) -> WorkloadTemplate:
    item = _mapping(raw, path)
    _known(item, path, ("className", "runtimeMs", "priority", "request", "podCount", "tasConstraint", "tasLevel",
                        "sliceSize", "devices"))
    for key in ("tasLevel", "tasConstraint", "devices"):
        if item.get(key):
            raise GeneratorError((*path, key), "Topology-Aware Scheduling and DRA workloads are not replayed")
    request = _quantity(item, path, "request", required=True)
    assert request is not None
    priority = item.get("priority", 0)
    if not isinstance(priority, int) or isinstance(priority, bool) or not -2**31 <= priority < 2**31:
        raise GeneratorError((*path, "priority"), f"expected an int32, got {priority!r}")
    return WorkloadTemplate(_string(item, path, "className"), _count(item, path, "runtimeMs"), priority, request)


def _mapping(raw: Any, path: Path) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise GeneratorError(path, f"expected a mapping, got {type(raw).__name__}")
    return raw


def _known(item: Mapping[str, Any], path: Path, keys: tuple[str, ...]) -> None:
    for key in item:
        if key not in keys:
            raise GeneratorError((*path, str(key)), f"unknown field; expected one of: {', '.join(keys)}")


def _list(item: Mapping[str, Any], path: Path, key: str) -> list[Any]:
    raw = item.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise GeneratorError((*path, key), f"expected a list, got {type(raw).__name__}")
    return raw


def _string(item: Mapping[str, Any], path: Path, key: str) -> str:
    raw = item.get(key, "")
    if not isinstance(raw, str):
        raise GeneratorError((*path, key), f"expected a string, got {raw!r}")
    return raw


def _count(item: Mapping[str, Any], path: Path, key: str) -> int:
    raw = item.get(key, 0)
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
        raise GeneratorError((*path, key), f"expected a whole number >= 0, got {raw!r}")
    return raw


def _quantity(item: Mapping[str, Any], path: Path, key: str, required: bool = False) -> str | None:
    raw = item.get(key)
    if raw is None or raw == "":
        if required:
            raise GeneratorError((*path, key), "required: a quantity such as 20 or 500m")
        return None
    try:
        return parse_quantity(raw if isinstance(raw, str) else str(raw)).canonical()
    except QuantityError as exc:
        raise GeneratorError((*path, key), str(exc)) from None


def _policy(item: Mapping[str, Any], path: Path, key: str, allowed: tuple[str, ...]) -> str:
    raw = _string(item, path, key)
    if raw and raw not in allowed:
        raise GeneratorError((*path, key), f"expected one of: {', '.join(allowed)}")
    return raw


# --- the objects the runner creates -------------------------------------------------------------------


def build_snapshot(config: GeneratorConfig, start: datetime, seed: int = 0) -> Snapshot:
    """The ResourceFlavor, ClusterQueues, Namespaces, LocalQueues and Workloads of one run (no I/O)."""
    rng = random.Random(seed)
    snapshot = Snapshot(now=start, namespaces={})
    snapshot.resource_flavors[config.flavor] = ResourceFlavor.from_v1beta2(
        {"metadata": {"name": config.flavor, "labels": {CLEANUP_LABEL: "true"}}, "spec": {}})
    for cohort_set in config.cohorts:
        for c in range(cohort_set.count):
            cohort = f"{cohort_set.class_name}-{c}"
            for set_index, queues_set in enumerate(cohort_set.queues_sets):
                for q in range(queues_set.count):
                    name = f"{queues_set.class_name}-{set_index}-{q}-{cohort}"
                    _add_queue(snapshot, config.flavor, queues_set, name, cohort)
                    _add_workloads(snapshot, queues_set, name, start, rng)
    return snapshot


def _add_queue(snapshot: Snapshot, flavor: str, queues_set: QueuesSet, name: str, cohort: str) -> None:
    cpu: dict[str, Any] = {"name": "cpu", "nominalQuota": queues_set.nominal_quota}
    if queues_set.borrowing_limit is not None:
        cpu["borrowingLimit"] = queues_set.borrowing_limit
    if queues_set.lending_limit is not None:
        cpu["lendingLimit"] = queues_set.lending_limit
    body = {
        "metadata": {"name": name, "labels": {CLASS_LABEL: queues_set.class_name, CLEANUP_LABEL: "true"}},
        "spec": {
            "cohortName": cohort,
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
            "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": flavor, "resources": [cpu]}]}],
            "preemption": {"reclaimWithinCohort": queues_set.reclaim_within_cohort,
                           "withinClusterQueue": queues_set.within_cluster_queue},
        },
    }
    snapshot.cluster_queues[name] = ClusterQueue.from_v1beta2(body)
    assert snapshot.namespaces is not None
    snapshot.namespaces[name] = Namespace.from_v1(
        {"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, CLEANUP_LABEL: "true"}}})
    local_queue = LocalQueue.from_v1beta2({"metadata": {"namespace": name, "name": name},
                                           "spec": {"clusterQueue": name}})
    snapshot.local_queues[local_queue.key] = local_queue


def _add_workloads(snapshot: Snapshot, queues_set: QueuesSet, namespace: str, start: datetime,
                   rng: random.Random) -> None:
    for set_index, workloads_set in enumerate(queues_set.workloads_sets):
        created = workloads_set.initial_delay_ms
        pod_sets = {t.class_name: _pod_sets(t) for t in workloads_set.templates}
        for round_ in range(workloads_set.count):
            for index, template in enumerate(workloads_set.templates):
                created += workloads_set.interval_ms
                snapshot.workloads.append(Workload(
                    namespace=namespace, name=f"{template.class_name}-{set_index}-{round_}-{index}",
                    uid=make_uid(rng), queue_name=namespace, priority=template.priority, priority_class_ref=None,
                    active=True, creation_timestamp=start + timedelta(milliseconds=created),
                    pod_sets=pod_sets[template.class_name], admission=None, conditions=(), reclaimable_pods={},
                    admission_check_states=(),
                    labels={PERFORMANCE_RUNTIME_LABEL: str(template.runtime_ms), CLASS_LABEL: template.class_name},
                ))


def _pod_sets(template: WorkloadTemplate) -> tuple[PodSet, ...]:
    """One pod set ``main`` of one pod with one container requesting the template's cpu (MakeWorkload)."""
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": template.request}}}]}
    return (PodSet("main", 1, None, {"spec": spec}, None),)


def make_uid(rng: random.Random) -> str:
    """A random UUID drawn from ``rng`` (so UIDs, which break ties in queues, follow the seed)."""
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def cpu_request(template: WorkloadTemplate) -> int:
    """The template's request in milli-cores (QTY-5)."""
    return resource_value("cpu", parse_quantity(template.request))


def nominal_cpu(queues_set: QueuesSet) -> int:
    return quota_value("cpu", parse_quantity(queues_set.nominal_quota))
