"""Everything one Volcano scheduling session reads, built from the inputs (kqctl.volcano.load)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.k8s.core import PriorityClass
from kqctl.volcano.api.config import SchedulerConf
from kqctl.volcano.api.models import EvictionPolicy, Node, Pod, PodGroup, Queue


@dataclass
class Snapshot:
    conf: SchedulerConf
    queues: dict[str, Queue] = field(default_factory=dict)
    pod_groups: dict[str, PodGroup] = field(default_factory=dict)  # by namespace/name
    pods: list[Pod] = field(default_factory=list)
    nodes: dict[str, Node] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    # vcjob namespace/name -> the namespace/name of its PodGroup (explain accepts either).
    vcjobs: dict[str, str] = field(default_factory=dict)
    # vcjob PodGroup key -> what its job controller does when one of its pods is evicted (replay).
    eviction_policies: dict[str, EvictionPolicy] = field(default_factory=dict)
    # What kqctl assumed because the input did not say (queue states, the configuration used, ...).
    notes: list[str] = field(default_factory=list)
    # What the input uses that kqctl does not simulate (predicates, plugins, actions), one line each.
    limitations: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def job_priority(self, group: PodGroup) -> int:
        """The job's priority (cache ``Snapshot``): its PriorityClass value, else the globalDefault one, else 0."""
        named = self.priority_classes.get(group.priority_class_name) if group.priority_class_name else None
        if named is not None:
            return named.value
        default = next((pc for pc in self.priority_classes.values() if pc.global_default), None)
        return default.value if default is not None else 0
