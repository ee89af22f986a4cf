"""Node scores that depend on resources: nodeorder's least/most requested and balanced allocation
(kube-scheduler's NodeResourcesFit and BalancedAllocation, as ``plugins/nodeorder`` weighs them) and binpack
(``plugins/binpack``). The other nodeorder scores (node and pod affinity, taints, image locality, topology
spread) are not modelled: they are equal for every node here.
"""

from __future__ import annotations

import math

from kqctl.volcano.api.resource import CPU, MEMORY
from kqctl.volcano.engine.framework import NodeInfo, Plugin, Session, TaskInfo

MAX_NODE_SCORE = 100


def _weight(plugin: Plugin, key: str, default: int) -> int:
    value = plugin.option.argument(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def open_nodeorder(ssn: Session, plugin: Plugin) -> None:
    least = _weight(plugin, "leastrequested.weight", 1)
    most = _weight(plugin, "mostrequested.weight", 0)
    balanced = _weight(plugin, "balancedresource.weight", 1)

    def score(task: TaskInfo, node: NodeInfo) -> int:
        requested = (node.nonzero[0] + task.pod.score_request[0], node.nonzero[1] + task.pod.score_request[1])
        capacity = (int(node.allocatable.cpu), int(node.allocatable.memory))
        total = 0
        if least:
            total += least * _allocated_score(requested, capacity, least_allocated=True)
        if most:
            total += most * _allocated_score(requested, capacity, least_allocated=False)
        if balanced:
            total += balanced * _balanced(requested, capacity)
        return total

    plugin.hooks["node_order"] = score


def _allocated_score(requested: tuple[int, int], capacity: tuple[int, int], least_allocated: bool) -> int:
    """kube-scheduler's LeastAllocated/MostAllocated over cpu and memory, weight 50 each (integer math)."""
    total = 0
    for req, cap in zip(requested, capacity, strict=True):
        if cap == 0:
            score = 0
        elif least_allocated:
            score = 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
        else:
            score = min(req, cap) * MAX_NODE_SCORE // cap
        total += score * 50
    return total // 100


def _balanced(requested: tuple[int, int], capacity: tuple[int, int]) -> int:
    """kube-scheduler's BalancedAllocation: (1 - std of the cpu and memory fractions) x 100, in float64 as
    kube-scheduler computes it (a score, not a quantity)."""
    fractions = [min(req / cap, 1.0) if cap else 0.0 for req, cap in zip(requested, capacity, strict=True)]
    mean = sum(fractions) / len(fractions)
    variance = sum((f - mean) ** 2 for f in fractions) / len(fractions)
    return int((1 - math.sqrt(variance)) * MAX_NODE_SCORE)


def open_binpack(ssn: Session, plugin: Plugin) -> None:
    """``BinPackingScore``: sum over requested resources of weight x (used + request) / allocatable."""
    weight = _weight(plugin, "binpack.weight", 1)
    weights: dict[str, int] = {CPU: _weight(plugin, "binpack.cpu", 1), MEMORY: _weight(plugin, "binpack.memory", 1)}
    extra = plugin.option.argument("binpack.resources")
    if isinstance(extra, str):
        for name in (n.strip() for n in extra.split(",")):
            if name:
                weights[name] = _weight(plugin, f"binpack.resources.{name}", 1)

    def score(task: TaskInfo, node: NodeInfo) -> float:
        # float64, as Volcano computes it: a score, not a quantity.
        total = 0.0
        weight_sum = 0
        for name in task.request.names():
            request = task.request.get(name)
            resource_weight = weights.get(name)
            if request == 0 or resource_weight is None:
                continue
            capacity = node.allocatable.get(name)
            if capacity == 0 or resource_weight == 0:
                weight_sum += resource_weight
                continue
            used = request + node.used.get(name)
            if used > capacity:
                return 0.0
            total += float(used) * resource_weight / float(capacity)
            weight_sum += resource_weight
        if weight_sum > 0:
            total /= weight_sum
        return total * MAX_NODE_SCORE * weight

    plugin.hooks["node_order"] = score
