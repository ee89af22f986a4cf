"""Nodes in the order YuniKorn tries them (yunikorn-core ``objects/nodesorting.go``,
``node_collection.go``) and the shim's predicates kqctl models.

Node sort policy (partition ``nodesortpolicy``): a node's score is the weighted mean of its usage shares over
the weighted resource types (default vcore and memory, weight 1); ``fair`` tries the least used node first,
``binpacking`` the most used. Equal scores go by node name. Reserved nodes are skipped by the normal
iterator. Predicates: ``nodeSelector``, required node affinity and NoSchedule/NoExecute taints (the rest of
the default Kubernetes plugins the shim runs are not modelled).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.k8s.selectors import first_untolerated_taint
from kqctl.yunikorn.api.snapshot import PodInfo
from kqctl.yunikorn.engine.objects import Node

FAIR = "fair"
BINPACKING = "binpacking"
DEFAULT_WEIGHTS = {"vcore": 1.0, "memory": 1.0}


class NodeSet:
    """The partition's nodes, kept sorted by the policy's score."""

    def __init__(self, nodes: list[Node], policy: str, weights: Mapping[str, float] | None) -> None:
        self.policy = BINPACKING if policy == BINPACKING else FAIR
        self.weights = dict(weights) if weights else dict(DEFAULT_WEIGHTS)
        self.by_name = {node.name: node for node in nodes}
        for node in nodes:
            node.score = self.score(node)
        self.order: list[tuple[float, str]] = sorted((node.score, node.name) for node in nodes)
        self.reserved = 0  # nodes with a reservation

    def score(self, node: Node) -> float:
        """``absResourceUsage`` (fair) or 1 minus it (binpacking)."""
        usage = 0.0
        total_weight = 0.0
        for name, share in node.usage_shares().items():
            weight = self.weights.get(name)
            if not weight or math.isnan(share):
                continue
            usage += share * weight
            total_weight += weight
        mean = usage / total_weight if total_weight else 0.0
        return 1.0 - mean if self.policy == BINPACKING else mean

    def changed(self, node: Node) -> None:
        """Re-place a node after its usage changed."""
        index = bisect.bisect_left(self.order, (node.score, node.name))
        if index < len(self.order) and self.order[index][1] == node.name:
            del self.order[index]
        node.score = self.score(node)
        bisect.insort(self.order, (node.score, node.name))

    def iterate(self, unreserved: bool) -> Iterator[Node]:
        """The full iterator, or the normal one that skips reserved nodes."""
        for _, name in self.order:  # callers stop at the first node they change
            node = self.by_name[name]
            if unreserved and node.reserved_by is not None:
                continue
            yield node



def predicates_pass(pod: PodInfo, node: Node) -> str:
    """The shim's predicates kqctl models; "" when the node passes, else why not."""
    labels: Mapping[str, str] = node.info.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return f"node(s) didn't match Pod's node affinity/selector ({key}={value})"
    if pod.affinity_terms and not any(_term_matches(term, node) for term in pod.affinity_terms):
        return "node(s) didn't match Pod's node affinity/selector"
    taint = first_untolerated_taint(node.info.taints, list(pod.tolerations))
    if taint is not None:
        taint_key = taint.get("key") if isinstance(taint, Mapping) else str(taint)
        return f"node(s) had untolerated taint {{{taint_key}}}"
    return ""


def _term_matches(term: Any, node: Node) -> bool:
    if not isinstance(term, Mapping):
        return False
    labels = node.info.labels
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term matches nothing
    return all(_requirement(e, labels) for e in expressions if isinstance(e, Mapping)) and \
        all(_requirement(f, {"metadata.name": node.name}) for f in fields if isinstance(f, Mapping))


def _requirement(requirement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(requirement.get("key"))
    operator = requirement.get("operator")
    values = [str(v) for v in requirement.get("values") or []]
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and len(values) == 1 and key in labels:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False
