"""Node taints and pod tolerations, as kube-scheduler and the API server treat them (any scheduler may use it).

Sources (kubernetes v1.36): ``k8s.io/component-helpers/scheduling/corev1`` (``Toleration.ToleratesTaint``,
``FindMatchingUntoleratedTaint``), ``pkg/scheduler/framework/plugins/tainttoleration`` (the filter: NoSchedule
and NoExecute taints must be tolerated; the score: untolerated PreferNoSchedule taints, fewer is better),
``pkg/scheduler/framework/plugins/nodeunschedulable`` (a cordoned node takes a pod only if it tolerates the
``node.kubernetes.io/unschedulable`` taint) and ``plugin/pkg/admission/defaulttolerationseconds`` (every pod
created through the API server gets NoExecute tolerations for ``not-ready`` and ``unreachable``, 300 s, unless
it already tolerates them).

TAINT-1 a toleration matches a taint when its effect is empty or equal, its key is empty or equal, and its
operator is Exists (any value) or Equal/empty (equal values). The numeric operators Lt and Gt match nothing
while their feature gate (TaintTolerationComparisonOperators, alpha) is off, as it is by default.
TAINT-2 the filter: a node whose NoSchedule or NoExecute taint no toleration matches takes no new pod.
TAINT-3 PreferNoSchedule is never a filter, only a score.
TAINT-4 the API server's default tolerations.
TAINT-5 a cordoned node (``spec.unschedulable``) refuses a pod that does not tolerate the unschedulable taint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kqctl.k8s.core import Fields

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
EXISTS = "Exists"
EQUAL = "Equal"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
DEFAULT_TOLERATION_SECONDS = 300  # the admission plugin's --default-not-ready/unreachable-toleration-seconds

# kube-scheduler's reasons, word for word (the tainttoleration and nodeunschedulable plugins).
UNTOLERATED_REASON = "node(s) had untolerated taint(s)"
UNSCHEDULABLE_REASON = "node(s) were unschedulable"


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = ""  # "" reads as Equal
    value: str = ""
    effect: str = ""  # "" matches every effect
    seconds: int | None = None  # tolerationSeconds (NoExecute only): how long a running pod stays

    def tolerates(self, taint: Taint) -> bool:
        """TAINT-1 ``ToleratesTaint``."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", EQUAL):
            return self.value == taint.value
        return self.operator == EXISTS  # Lt/Gt: their alpha gate is off; anything else never matches


# TAINT-4: what DefaultTolerationSeconds appends to a pod that does not tolerate these yet.
API_SERVER_TOLERATIONS = (
    Toleration(NOT_READY, EXISTS, "", NO_EXECUTE, DEFAULT_TOLERATION_SECONDS),
    Toleration(UNREACHABLE, EXISTS, "", NO_EXECUTE, DEFAULT_TOLERATION_SECONDS),
)


def read_taints(node_spec: Fields) -> tuple[Taint, ...]:
    """``spec.taints`` of a Node (a located ModelError when a field has the wrong type)."""
    return tuple(Taint(item.string("key"), item.string("value"), item.string("effect"))
                 for item in node_spec.items("taints"))


def read_tolerations(pod_spec: Fields) -> tuple[Toleration, ...]:
    """``spec.tolerations`` of a pod as written."""
    return tuple(Toleration(item.string("key"), item.string("operator"), item.string("value"),
                            item.string("effect"), item.opt_integer("tolerationSeconds"))
                 for item in pod_spec.items("tolerations"))


def with_api_server_defaults(tolerations: Sequence[Toleration]) -> tuple[Toleration, ...]:
    """TAINT-4: the tolerations as the API server stores a new pod: not-ready and unreachable NoExecute for
    300 s appended unless a toleration with that key (or no key) and effect NoExecute (or none) is there."""
    result = list(tolerations)
    for default in API_SERVER_TOLERATIONS:
        if not any(t.key in ("", default.key) and t.effect in ("", NO_EXECUTE) for t in tolerations):
            result.append(default)
    return tuple(result)


def tolerated(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                      effects: frozenset[str] = frozenset({NO_SCHEDULE, NO_EXECUTE})) -> Taint | None:
    """TAINT-2 ``FindMatchingUntoleratedTaint``: the first taint of those effects no toleration matches."""
    for taint in taints:
        if taint.effect in effects and not tolerated(tolerations, taint):
            return taint
    return None


def refuses_cordoned(unschedulable: bool, tolerations: Sequence[Toleration]) -> bool:
    """TAINT-5 the NodeUnschedulable filter."""
    return unschedulable and not tolerated(tolerations, Taint(UNSCHEDULABLE, "", NO_SCHEDULE))


def intolerable_prefer_no_schedule(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> int:
    """TAINT-3 the TaintToleration score's raw count: PreferNoSchedule taints that no toleration of effect
    PreferNoSchedule (or of no effect) matches. kube-scheduler then normalises the counts over the feasible
    nodes in reverse (the node with the most gets 0, a node with none the maximum)."""
    preferring = [t for t in tolerations if t.effect in ("", PREFER_NO_SCHEDULE)]
    return sum(1 for taint in taints if taint.effect == PREFER_NO_SCHEDULE and not tolerated(preferring, taint))


def normalized_scores(counts: Mapping[str, int], max_score: int = 100) -> dict[str, int]:
    """``DefaultNormalizeScore(MaxNodeScore, reverse=true)`` of those counts, by node name."""
    highest = max(counts.values(), default=0)
    return {name: normalized_score(count, highest, max_score) for name, count in counts.items()}


def normalized_score(count: int, highest: int, max_score: int = 100) -> int:
    """One node's reverse-normalised score, given the highest count among the nodes scored with it."""
    if highest <= 0:
        return max_score
    return max_score - max_score * count // highest


