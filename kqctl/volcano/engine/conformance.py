"""The conformance plugin (``plugins/conformance/conformance.go``): never evict critical or kube-system pods."""

from __future__ import annotations

from kqctl.volcano.engine.framework import PERMIT, Plugin, Session, TaskInfo

CRITICAL_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})


def open_session(ssn: Session, plugin: Plugin) -> None:
    plugin.hooks["reclaimable"] = lambda reclaimer, reclaimees: evictable(reclaimees)
    plugin.hooks["preemptable"] = lambda preemptor, preemptees: evictable(preemptees)


def evictable(candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
    victims = [t for t in candidates
               if t.pod.priority_class_name not in CRITICAL_CLASSES and t.pod.namespace != "kube-system"]
    return victims, PERMIT
