"""A pod's node placement (nodeSelector and node affinity), as kube-scheduler evaluates it (any scheduler may use it).

Sources (kubernetes v1.36): ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity`` (``NodeSelector``,
``PreferredSchedulingTerms``, ``GetRequiredNodeAffinity``) and ``pkg/scheduler/framework/plugins/nodeaffinity``
(the filter and the score).

AFF-1 the filter: every ``nodeSelector`` label must be on the node with that value, and when the pod has
``requiredDuringSchedulingIgnoredDuringExecution``, one of its terms must match (terms are ORed, the
requirements inside a term ANDed). A term with no requirement matches no node; a requirement Kubernetes cannot
parse makes its term match nothing (the selector's error is lazy, the filter ignores it).
AFF-2 the score: the sum of the weights of the preferred terms that match the node; kube-scheduler then
normalises the sums over the scored nodes (``DefaultNormalizeScore(MaxNodeScore, false)``: the highest sum gets
100, the others in proportion, truncated).
AFF-3 ``matchFields`` takes only ``metadata.name`` with In or NotIn and exactly one value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kqctl.k8s.core import Fields

# kube-scheduler's reason, word for word (nodeaffinity.ErrReasonPod).
NODE_AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
NAME_FIELD = "metadata.name"


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...]

    def matches_label(self, labels: Mapping[str, str]) -> bool:
        """``labels.Selector.Matches`` for one requirement as ``nodeSelectorRequirementsAsSelector`` parses it
        (a requirement it refuses matches nothing)."""
        present = self.key in labels
        if self.operator in ("In", "NotIn"):
            if not self.values:
                return False
            inside = present and labels[self.key] in self.values
            return inside if self.operator == "In" else not inside
        if self.operator in ("Exists", "DoesNotExist"):
            if self.values:
                return False
            return present == (self.operator == "Exists")
        if self.operator in ("Gt", "Lt"):
            if len(self.values) != 1 or not _is_int(self.values[0]) or not present or not _is_int(labels[self.key]):
                return False
            bound, value = int(self.values[0]), int(labels[self.key])
            return value > bound if self.operator == "Gt" else value < bound
        return False

    def matches_field(self, node_name: str) -> bool:
        """AFF-3 ``nodeSelectorRequirementsAsFieldSelector``."""
        if self.key != NAME_FIELD or len(self.values) != 1 or self.operator not in ("In", "NotIn"):
            return False
        return (node_name == self.values[0]) == (self.operator == "In")


@dataclass(frozen=True)
class Term:
    """One NodeSelectorTerm: its matchExpressions and matchFields, ANDed."""

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if not self.expressions and not self.fields:
            return False  # an empty term selects no node
        return all(r.matches_label(labels) for r in self.expressions) and \
            all(r.matches_field(node_name) for r in self.fields)


@dataclass(frozen=True)
class NodePlacement:
    """What a pod asks of a node's labels: nodeSelector, required and preferred node affinity."""

    node_selector: tuple[tuple[str, str], ...] = ()
    required: tuple[Term, ...] | None = None  # None: no required node affinity
    preferred: tuple[tuple[int, Term], ...] = ()  # (weight, term)

    @property
    def filters(self) -> bool:
        return bool(self.node_selector) or self.required is not None

    def keys(self) -> tuple[str, ...]:
        """The label keys it reads (nodes that agree on them are alike for it)."""
        found = {key for key, _ in self.node_selector}
        for term in (*(self.required or ()), *(t for _, t in self.preferred)):
            found.update(r.key for r in term.expressions)
        return tuple(sorted(found))

    def reads_name(self) -> bool:
        return any(term.fields for term in (*(self.required or ()), *(t for _, t in self.preferred)))

    def admits(self, labels: Mapping[str, str], node_name: str) -> bool:
        """AFF-1 the NodeAffinity filter."""
        if any(labels.get(key) != value for key, value in self.node_selector):
            return False
        if self.required is None:
            return True
        return any(term.matches(labels, node_name) for term in self.required)

    def preferred_weight(self, labels: Mapping[str, str], node_name: str) -> int:
        """AFF-2 the NodeAffinity score before normalisation."""
        return sum(weight for weight, term in self.preferred if term.matches(labels, node_name))


NO_PLACEMENT = NodePlacement()


def read_placement(pod_spec: Fields) -> NodePlacement:
    """A pod spec's nodeSelector and ``affinity.nodeAffinity`` (a located ModelError for a wrong type)."""
    selector = tuple(sorted(pod_spec.string_map("nodeSelector").items()))
    node_affinity = pod_spec.child("affinity").child("nodeAffinity")
    required_spec = node_affinity.opt_child("requiredDuringSchedulingIgnoredDuringExecution")
    required = None if required_spec is None else \
        tuple(_term(term) for term in required_spec.items("nodeSelectorTerms"))
    preferred = tuple((item.integer("weight"), _term(item.child("preference")))
                      for item in node_affinity.items("preferredDuringSchedulingIgnoredDuringExecution"))
    if not selector and required is None and not preferred:
        return NO_PLACEMENT
    return NodePlacement(selector, required, preferred)


def _term(term: Fields) -> Term:
    return Term(tuple(_requirements(term.items("matchExpressions"))), tuple(_requirements(term.items("matchFields"))))


def _requirements(items: Iterable[Fields]) -> Iterable[Requirement]:
    for item in items:
        yield Requirement(item.string("key"), item.string("operator"), item.strings("values"))


def normalized_weights(sums: Mapping[str, int], max_score: int = 100) -> dict[str, int]:
    """AFF-2 ``DefaultNormalizeScore(MaxNodeScore, reverse=false)`` of the preferred-term sums, by node name."""
    highest = max(sums.values(), default=0)
    return {name: normalized_weight(value, highest, max_score) for name, value in sums.items()}


def normalized_weight(value: int, highest: int, max_score: int = 100) -> int:
    """One node's normalised score, given the highest sum among the nodes scored with it."""
    return max_score * value // highest if highest > 0 else 0


def _is_int(text: str) -> bool:
    """``strconv.ParseInt(text, 10, 64)`` succeeds (no spaces or underscores, as Python's int() would take)."""
    return _GO_INT.match(text) is not None and -(2**63) <= int(text) < 2**63


_GO_INT = re.compile(r"[+-]?[0-9]+\Z")
