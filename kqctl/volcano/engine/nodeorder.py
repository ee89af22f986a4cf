"""Node scores: the nodeorder plugin (``plugins/nodeorder``) and the binpack plugin (``plugins/binpack``).

nodeorder runs kube-scheduler's score plugins (Kubernetes v1.36, ``framework/plugins/noderesources``) on the
pods kube-scheduler's NodeInfo holds for the node (:class:`~kqctl.volcano.engine.framework.ScoredPods`):

- VC-SCORE-1 ``leastrequested.weight`` (default 1): NodeResourcesFit, LeastAllocated, cpu and memory weighted
  50 each, on the *non-zero* requests (100m cpu, 200Mi memory for a container that asks for none);
- VC-SCORE-2 ``mostrequested.weight`` (default 0): NodeResourcesFit, MostAllocated, cpu and memory weighted 1;
- VC-SCORE-3 ``balancedresource.weight`` (default 1): NodeResourcesBalancedAllocation on the pods' *actual*
  requests (``useRequested``), cpu, memory and ``nvidia.com/gpu``: since v1.36 (kubernetes PR #135573) the
  score weighs the node's balance with the pod against its balance without it;
- VC-SCORE-6 ``tainttoleration.weight`` (default 3): TaintToleration, the count of the node's PreferNoSchedule
  taints the pod does not tolerate (TAINT-3), normalised in reverse over the nodes scored together (the most
  tainted gets 0, an untainted node 100);
- VC-SCORE-7 ``nodeaffinity.weight`` (default 2): NodeAffinity, the weights of the pod's preferred node-affinity
  terms the node matches (AFF-2), normalised over the nodes scored together (the best gets 100);
- each plugin's integer score times its weight, summed (``BatchNodeOrderFn``, ``nodescore.CalculatePluginScore``:
  the plugins with a NormalizeScore are normalised over the candidate nodes of one ``PrioritizeNodes`` call —
  allocate's nodes that fit the idle resources, else those that fit the future idle; preempt's nodes that pass
  the predicates).

binpack (VC-SCORE-4) adds ``binpack.weight`` x 100 x the weighted mean of (used + request) / allocatable over
the resources the task requests, in float64 as Volcano computes it. The session adds the plugins' scores as
``util.PrioritizeNodes`` does (VC-SCORE-5) and the allocate action takes the best (ties: the first node by
name; Volcano picks one of them at random).

The other nodeorder scores are left out. ImageLocality is 0 on every node in Volcano itself: the scheduler's
cache never fills its nodes' ImageStates (only the agent scheduler's cache does; ``GenerateNodeMapAndSlice``
copies an empty map). PodTopologySpread with its system defaults scores only pods a Service, ReplicaSet or
StatefulSet selects, objects kqctl does not read; InterPodAffinity and explicit topologySpreadConstraints are
not evaluated, and simulate says so when a pending pod uses them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from kqctl.k8s.affinity import normalized_weight
from kqctl.k8s.taints import intolerable_prefer_no_schedule, normalized_score
from kqctl.volcano.api.resource import CPU, MEMORY, Resource, is_scalar_resource_name
from kqctl.volcano.engine.framework import NodeInfo, Plugin, Session, TaskInfo

MAX_NODE_SCORE = 100
GPU = "nvidia.com/gpu"
LEAST_ALLOCATED = ((CPU, 50), (MEMORY, 50))  # nodeorder's ScoringStrategy for LeastAllocated
MOST_ALLOCATED = ((CPU, 1), (MEMORY, 1))  # and for MostAllocated
BALANCED_RESOURCES = (CPU, MEMORY, GPU)  # nodeorder's NodeResourcesBalancedAllocationArgs


def _weight(plugin: Plugin, key: str, default: int) -> int:
    """``Arguments.GetInt``: an integer argument, else the default."""
    value = plugin.option.argument(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def follow_scored_pods(ssn: Session) -> None:
    """The predicates plugin keeps kube-scheduler's NodeInfo up to date in the session: a task allocated or
    pipelined to a node is added to it, an evicted task or an undone allocation removed. Without the plugin
    the scores see the nodes as the session opened."""

    def allocated(task: TaskInfo) -> None:
        node = ssn.nodes.get(task.node)
        if node is not None:
            node.score_add(task.pod)

    def deallocated(task: TaskInfo) -> None:
        node = ssn.nodes.get(task.node)
        if node is not None:
            node.score_remove(task.pod)

    ssn.event_handlers.append((allocated, deallocated))


def open_nodeorder(ssn: Session, plugin: Plugin) -> None:
    least = _weight(plugin, "leastrequested.weight", 1)
    most = _weight(plugin, "mostrequested.weight", 0)
    balanced = _weight(plugin, "balancedresource.weight", 1)
    taints = _weight(plugin, "tainttoleration.weight", 3)
    affinity = _weight(plugin, "nodeaffinity.weight", 2)

    def score(task: TaskInfo, node: NodeInfo) -> int:
        total = 0
        if least:
            total += least * least_allocated(*_nonzero(task, node))
        if most:
            total += most * most_allocated(*_nonzero(task, node))
        if balanced:
            total += balanced * balanced_allocation(task, node)
        return total

    plugin.hooks["batch_node_order"] = score
    if taints or affinity:
        plugin.hooks["normalized_node_order"] = NormalizedScores(taints, affinity)
    # nodeorder's NodeOrderFn: ImageLocality, 0 on every node kqctl knows (no image lists).
    plugin.hooks["node_order"] = lambda task, node: 0.0


class NormalizedScores:
    """VC-SCORE-6 and VC-SCORE-7: the scores that depend on which nodes are scored together. Called with a task
    and a node, the hook gives the node's raw pair: its count of untolerated PreferNoSchedule taints and its
    preferred-term weight (fixed for a session: taints and labels do not change); ``score`` normalises one raw
    pair against the highest of each over the candidate nodes, times the weights."""

    width = 2

    def __init__(self, taint_weight: int, affinity_weight: int) -> None:
        self.taint_weight = taint_weight
        self.affinity_weight = affinity_weight

    def __call__(self, task: TaskInfo, node: NodeInfo) -> tuple[int, int]:
        count = intolerable_prefer_no_schedule(node.model.taints, task.pod.tolerations) if self.taint_weight else 0
        weight = task.pod.placement.preferred_weight(node.model.labels, node.name) if self.affinity_weight else 0
        return count, weight

    def score(self, raw: Sequence[int], highest: Sequence[int]) -> int:
        total = 0
        if self.taint_weight:
            total += self.taint_weight * normalized_score(raw[0], highest[0], MAX_NODE_SCORE)
        if self.affinity_weight:
            total += self.affinity_weight * normalized_weight(raw[1], highest[1], MAX_NODE_SCORE)
        return total


def _nonzero(task: TaskInfo, node: NodeInfo) -> tuple[list[int], list[int]]:
    """NodeResourcesFit's view (``useRequested`` false): the node's and the pod's non-zero requests."""
    scored = node.scored
    requested = [scored.nonzero_cpu + task.pod.score_request[0], scored.nonzero_memory + task.pod.score_request[1]]
    return requested, [int(node.allocatable.cpu), int(node.allocatable.memory)]


def least_allocated(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """VC-SCORE-1 ``leastResourceScorer``: per resource (capacity - requested) x 100 / capacity (0 when
    over), their weighted mean; a resource the node has none of is left out. Integer arithmetic, as Go's."""
    node_score = weight_sum = 0
    for (_, weight), req, cap in zip(LEAST_ALLOCATED, requested, allocatable, strict=True):
        if cap == 0:
            continue
        score = 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
        node_score += score * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def most_allocated(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """VC-SCORE-2 ``mostResourceScorer``: per resource min(requested, capacity) x 100 / capacity, weighted."""
    node_score = weight_sum = 0
    for (_, weight), req, cap in zip(MOST_ALLOCATED, requested, allocatable, strict=True):
        if cap == 0:
            continue
        node_score += min(req, cap) * MAX_NODE_SCORE // cap * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def balanced_allocation(task: TaskInfo, node: NodeInfo) -> int:
    """VC-SCORE-3 NodeResourcesBalancedAllocation: 0 for a pod that requests none of the resources (PreScore
    skips it); else 50 + (50 + balance with the pod - balance without it) / 2, in Go's integer division."""
    requests = [_pod_request(task, name) for name in BALANCED_RESOURCES]
    if not any(requests):
        return 0
    with_pod: list[int] = []
    without: list[int] = []
    allocatable: list[int] = []
    for name, request in zip(BALANCED_RESOURCES, requests, strict=True):
        if request == 0 and is_scalar_resource_name(name):
            continue  # an extended resource the pod does not ask for is not scored
        capacity = int(node.allocatable.get(name))
        if capacity == 0:
            continue
        used = node.scored.requested.get(name, 0)
        allocatable.append(capacity)
        with_pod.append(used + request)
        without.append(used)
    return balanced_score(with_pod, without, allocatable)


def balanced_score(with_pod: Sequence[int], without: Sequence[int], allocatable: Sequence[int]) -> int:
    """``balancedResourceScorer`` (v1.36): 75 when the pod leaves the balance as it is, 100 from perfectly
    unbalanced to perfectly balanced, 50 the other way round."""
    gain = balance(with_pod, allocatable) - balance(without, allocatable)
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + gain) // 2


def _pod_request(task: TaskInfo, name: str) -> int:
    return int(task.request.get(name))


def balance(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``balancedResourceScore``: (1 - the standard deviation of the requested/allocatable fractions, each at
    most 1) x 100, truncated; float64 as Go computes it (a score, not a quantity)."""
    fractions = [min(req / cap, 1.0) for req, cap in zip(requested, allocatable, strict=True)]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        total = 0.0
        for fraction in fractions:
            total = total + (fraction - mean) * (fraction - mean)
        std = math.sqrt(total / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


def open_binpack(ssn: Session, plugin: Plugin) -> None:
    """VC-SCORE-4 ``BinPackingScore``."""
    weight = _weight(plugin, "binpack.weight", 1)
    weights: dict[str, int] = {}
    extra = plugin.option.argument("binpack.resources")
    if isinstance(extra, str):
        for name in (n.strip() for n in extra.split(",")):
            if name:
                value = _weight(plugin, f"binpack.resources.{name}", 1)
                weights[name] = value if value >= 0 else 1
    cpu, memory = _weight(plugin, "binpack.cpu", 1), _weight(plugin, "binpack.memory", 1)
    weights[CPU] = cpu if cpu >= 0 else 1
    weights[MEMORY] = memory if memory >= 0 else 1
    if weight == 0:
        return  # Volcano registers no score at all
    plugin.hooks["node_order"] = lambda task, node: binpack_score(task.request, node.used, node.allocatable, weights,
                                                                  weight)


def binpack_score(request: Resource, used: Resource, allocatable: Resource, weights: Mapping[str, int],
                  weight: int) -> float:
    """VC-SCORE-4: per requested resource with a weight, (used + request) / allocatable times its weight, their
    weighted mean (0 for a resource the node lacks, whose weight still counts), times 100 x binpack.weight; 0
    when any of them would not fit. float64, as Volcano computes it: a score, not a quantity."""
    total = 0.0
    weight_sum = 0
    for name in request.names():
        amount = request.get(name)
        resource_weight = weights.get(name)
        if amount == 0 or resource_weight is None:
            continue
        capacity = float(allocatable.get(name))
        if capacity == 0 or resource_weight == 0:
            weight_sum += resource_weight
            continue
        used_finally = float(amount) + float(used.get(name))
        if used_finally > capacity:
            return 0.0
        total += used_finally * float(resource_weight) / capacity
        weight_sum += resource_weight
    if weight_sum > 0:
        total /= float(weight_sum)
    return total * float(MAX_NODE_SCORE * weight)
