"""The predicates plugin, as far as kqctl models it: a cordoned node (spec.unschedulable) takes no pod.

Fitting by resources and by the pods count is the allocate action's own check. The other predicates
(node selectors, affinity, taints and tolerations, topology spread, ports, volumes) are not evaluated:
simulate says so when the input uses them.
"""

from __future__ import annotations

from kqctl.volcano.engine.framework import NodeInfo, Plugin, Session, TaskInfo

UNSCHEDULABLE = "node(s) were unschedulable"


def open_session(ssn: Session, plugin: Plugin) -> None:
    plugin.hooks["predicate"] = predicate


def predicate(task: TaskInfo, node: NodeInfo) -> str | None:
    return UNSCHEDULABLE if node.model.unschedulable else None
