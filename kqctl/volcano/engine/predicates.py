"""The predicates plugin (``plugins/predicates/predicates.go``), as far as kqctl models it: kube-scheduler's
NodeUnschedulable and TaintToleration filters, in Volcano's order.

NodeUnschedulable: a cordoned node (``spec.unschedulable``) takes no pod that does not tolerate the
``node.kubernetes.io/unschedulable:NoSchedule`` taint (TAINT-5). TaintToleration (argument
``predicate.TaintTolerationEnable``, true by default): a node whose NoSchedule or NoExecute taint the pod does
not tolerate takes no pod (TAINT-2); PreferNoSchedule taints are only scored, by nodeorder's
``tainttoleration.weight`` (TAINT-3). The rules themselves are Kubernetes', in :mod:`kqctl.k8s.taints`.

Fitting by resources and by the pods count is the allocate action's own check. The other predicates (node
selectors, affinity, topology spread, ports, volumes) are not evaluated: simulate says so when the input uses
them.
"""

from __future__ import annotations

from kqctl.k8s.taints import UNSCHEDULABLE_REASON, UNTOLERATED_REASON, refuses_cordoned, untolerated_taint
from kqctl.volcano.engine.framework import NodeInfo, Plugin, Session, TaskInfo

UNSCHEDULABLE = UNSCHEDULABLE_REASON
UNTOLERATED = UNTOLERATED_REASON
TAINT_TOLERATION_ENABLE = "predicate.TaintTolerationEnable"


def open_session(ssn: Session, plugin: Plugin) -> None:
    plugin.hooks["predicate"] = predicate if taints_checked(plugin) else cordon_only


def taints_checked(plugin: Plugin) -> bool:
    """``Arguments.GetBool``: a boolean, or a string ``strconv.ParseBool`` reads; anything else keeps true."""
    value = plugin.option.argument(TAINT_TOLERATION_ENABLE)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in _GO_BOOLS:
        return _GO_BOOLS[value]
    return True


_GO_BOOLS = {**dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
             **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False)}


def cordon_only(task: TaskInfo, node: NodeInfo) -> str | None:
    return UNSCHEDULABLE if refuses_cordoned(node.model.unschedulable, task.pod.tolerations) else None


def predicate(task: TaskInfo, node: NodeInfo) -> str | None:
    tolerations = task.pod.tolerations
    if refuses_cordoned(node.model.unschedulable, tolerations):
        return UNSCHEDULABLE
    if node.model.taints and untolerated_taint(node.model.taints, tolerations) is not None:
        return UNTOLERATED
    return None
