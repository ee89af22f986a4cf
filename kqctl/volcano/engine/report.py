"""Per queue, what the last session computed: weight, capability, guarantee, deserved, real capability,
allocated, pending request, inqueue and share, for every queue (also those without jobs, which proportion
leaves out of the water-filling: their deserved is shown as not computed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from kqctl.volcano.api.models import ROOT_QUEUE, Queue
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Amount, Resource
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.drf import HdrfLevel, queue_level
from kqctl.volcano.engine.queue_attr import QueueAttr, capability_of, guarantee_of, real_capability
from kqctl.volcano.engine.session import World


@dataclass(frozen=True)
class QueueReport:
    name: str
    parent: str
    state: str
    state_assumed: bool
    weight: int
    priority: int
    reclaimable: bool
    capability: Resource | None  # as the plugin reads it (cpu/memory <= 0: unlimited); None: not set
    guarantee: Resource
    deserved: Resource | None  # None: not computed (proportion leaves queues without jobs out)
    real_capability: Resource
    allocated: Resource
    request: Resource
    inqueue: Resource
    share: Amount | None
    phases: Mapping[str, int] = field(default_factory=dict)  # PodGroup phase -> count
    children: tuple[str, ...] = ()
    implicit: bool = False
    spec_names: frozenset[str] = frozenset()  # resources the queue's spec names
    hierarchy: str = ""  # volcano.sh/hierarchy, as stored (hierarchical DRF)
    hdrf: HdrfLevel | None = None  # its level of the HDRF tree (drf enableHierarchy; None when it has no jobs)

    def dimensions(self) -> list[str]:
        """cpu, memory, then every other resource any of the queue's lists names (pods only when the queue's
        capability or guarantee sets it: every pod counts one)."""
        names: set[str] = set()
        for values in (self.capability, self.guarantee, self.deserved, self.allocated, self.request):
            if values is not None:
                names.update(values.as_dict())
        if not self._pods_set():
            names.discard(PODS)
        return [CPU, MEMORY, *sorted(names - {CPU, MEMORY})]

    def _pods_set(self) -> bool:
        return PODS in self.spec_names


def queue_reports(snapshot: Snapshot, world: World, attrs: dict[str, QueueAttr], hierarchy: bool,
                  hdrf: Mapping[str, HdrfLevel] | None = None) -> list[QueueReport]:
    """Every queue's report; ``hdrf``: the HDRF tree's levels by path when drf runs with enableHierarchy."""
    return [replace(report, hierarchy=snapshot.queues[report.name].hierarchy,
                    hdrf=queue_level(dict(hdrf), snapshot.queues[report.name].hierarchy) if hdrf else None)
            for report in _queue_reports(snapshot, world, attrs, hierarchy)]


def _queue_reports(snapshot: Snapshot, world: World, attrs: dict[str, QueueAttr],
                   hierarchy: bool) -> list[QueueReport]:
    total = Resource()
    for node in snapshot.nodes.values():
        if node.ready:
            total.add(Resource.of(node.allocatable))
    total_guarantee = Resource()
    for queue in snapshot.queues.values():
        total_guarantee.add(guarantee_of(queue))
    usage = _usage(snapshot, world)
    phases = _phases(snapshot, world)
    children: dict[str, list[str]] = {}
    for queue in snapshot.queues.values():
        if queue.name != ROOT_QUEUE:
            children.setdefault(queue.parent_name, []).append(queue.name)
    reports = []
    for name in sorted(snapshot.queues):
        queue = snapshot.queues[name]
        attr = attrs.get(name)
        allocated, request = usage.get(name, (Resource(), Resource()))
        if attr is not None:
            capability = attr.capability if attr.capability is not None and not (
                hierarchy and attr.capability.is_empty()) else capability_of(queue)
            reports.append(QueueReport(
                name, queue.parent_name, queue.state, queue.state_assumed, queue.weight, queue.priority,
                queue.reclaimable, capability, attr.guarantee, attr.deserved, attr.real_capability, attr.allocated,
                attr.request, attr.inqueue, attr.share, MappingProxyType(phases.get(name, {})),
                tuple(sorted(children.get(name, ()))), queue.implicit, _spec_names(queue)))
            continue
        capability = capability_of(queue)
        guarantee = guarantee_of(queue)
        reports.append(QueueReport(
            name, queue.parent_name, queue.state, queue.state_assumed, queue.weight, queue.priority,
            queue.reclaimable, capability, guarantee, None,
            real_capability(total, total_guarantee, guarantee, capability), allocated, request, Resource(), None,
            MappingProxyType(phases.get(name, {})), tuple(sorted(children.get(name, ()))), queue.implicit,
            _spec_names(queue)))
    return reports


def _usage(snapshot: Snapshot, world: World) -> dict[str, tuple[Resource, Resource]]:
    found: dict[str, tuple[Resource, Resource]] = {}
    for pod in world.pods.values():
        group = snapshot.pod_groups.get(f"{pod.namespace}/{pod.group}") if pod.group else None
        if group is None or pod.status in ("Succeeded", "Failed"):
            continue
        allocated, request = found.setdefault(group.queue, (Resource(), Resource()))
        request.add(Resource.of(pod.request))
        if pod.node_name:
            allocated.add(Resource.of(pod.request))
    return found


def _phases(snapshot: Snapshot, world: World) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for key, group in snapshot.pod_groups.items():
        phase = world.phases.get(key, group.phase)
        counts = found.setdefault(group.queue, {})
        counts[phase] = counts.get(phase, 0) + 1
    return found


def _spec_names(queue: Queue) -> frozenset[str]:
    return frozenset(name for values in (queue.capability, queue.deserved, queue.guarantee) if values
                     for name in values)
