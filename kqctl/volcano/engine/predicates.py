"""The predicates plugin (``plugins/predicates/predicates.go``), as far as kqctl models it: kube-scheduler's
NodeUnschedulable, NodeAffinity and TaintToleration filters, in Volcano's order (``InitPlugin``).

NodeUnschedulable: a cordoned node (``spec.unschedulable``) takes no pod that does not tolerate the
``node.kubernetes.io/unschedulable:NoSchedule`` taint (TAINT-5). TaintToleration (argument
``predicate.TaintTolerationEnable``, true by default): a node whose NoSchedule or NoExecute taint the pod does
not tolerate takes no pod (TAINT-2); PreferNoSchedule taints are only scored, by nodeorder's
``tainttoleration.weight`` (TAINT-3). The rules themselves are Kubernetes', in :mod:`kqctl.k8s.taints`.

NodeAffinity (argument ``predicate.NodeAffinityEnable``, true by default): the pod's nodeSelector and required
node affinity against the node's labels (AFF-1, :mod:`kqctl.k8s.affinity`).

Fitting by resources and by the pods count is the allocate action's own check. The other predicates (inter-pod
affinity, topology spread, ports, volumes) are not evaluated: simulate says so when the input uses them.
"""

from __future__ import annotations

from kqctl.k8s.affinity import NODE_AFFINITY_REASON
from kqctl.k8s.taints import UNSCHEDULABLE_REASON, UNTOLERATED_REASON, refuses_cordoned, untolerated_taint
from kqctl.volcano.api.config import PluginOption, SchedulerConf
from kqctl.volcano.api.models import Node, Pod
from kqctl.volcano.engine.framework import Plugin, Session

UNSCHEDULABLE = UNSCHEDULABLE_REASON
UNTOLERATED = UNTOLERATED_REASON
UNMATCHED_AFFINITY = NODE_AFFINITY_REASON
TAINT_TOLERATION_ENABLE = "predicate.TaintTolerationEnable"
NODE_AFFINITY_ENABLE = "predicate.NodeAffinityEnable"


def open_session(ssn: Session, plugin: Plugin) -> None:
    affinity, taints = enabled(plugin, NODE_AFFINITY_ENABLE), enabled(plugin, TAINT_TOLERATION_ENABLE)
    plugin.hooks["predicate"] = lambda task, node: refusal(task.pod, node.model, affinity, taints)


def refusal(pod: Pod, node: Node, affinity: bool, taints: bool) -> str | None:
    """Why the node refuses the pod whatever runs on it (NodeUnschedulable, NodeAffinity, TaintToleration, in
    Volcano's order); None when it takes it."""
    tolerations = pod.tolerations
    if refuses_cordoned(node.unschedulable, tolerations):
        return UNSCHEDULABLE
    placement = pod.placement
    if affinity and placement.filters and not placement.admits(node.labels, node.name):
        return UNMATCHED_AFFINITY
    if taints and node.taints and untolerated_taint(node.taints, tolerations) is not None:
        return UNTOLERATED
    return None


def configured(conf: SchedulerConf) -> tuple[bool, bool] | None:
    """Whether the predicates plugin runs, and then whether its NodeAffinity and TaintToleration filters do
    (outside a session: for what can never run as configured)."""
    plugin = conf.plugin("predicates")
    if plugin is None or not plugin.enabled("enablePredicate"):
        return None
    return enabled_option(plugin, NODE_AFFINITY_ENABLE), enabled_option(plugin, TAINT_TOLERATION_ENABLE)


def enabled(plugin: Plugin, key: str) -> bool:
    return enabled_option(plugin.option, key)


def enabled_option(option: PluginOption, key: str) -> bool:
    """``Arguments.GetBool``: a boolean, or a string ``strconv.ParseBool`` reads; anything else keeps true."""
    value = option.argument(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in _GO_BOOLS:
        return _GO_BOOLS[value]
    return True


_GO_BOOLS = {**dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
             **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False)}
