"""Fair sharing's measure (rule set FS, FS-1..FS-3): weights and dominant resource shares.

What the admission tournament (fair_sharing_tournament.py, FS-4) and fair-sharing preemption
(preemption/fair_sharing.py, FS-5..FS-10) compare. Kueue computes it in its cache
(``dominantResourceShare`` in pkg/cache/scheduler/fair_sharing.go) from the quota tree alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.quota import QuotaNode, potential


@dataclass(frozen=True)
class DRS:
    """FS-2: a node's dominant resource share (ratio in thousandths of what the tree could lend)."""

    weight: float = 1.0
    ratio: float = 0.0
    dominant: str = ""
    borrowing: bool = False
    borrowed: tuple[FlavorResource, ...] = ()

    @property
    def weighted(self) -> float:
        if self.ratio == 0:
            return 0.0
        return math.inf if self.weight == 0 else self.ratio / self.weight

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0

    def borrowing_on(self, requested: dict[FlavorResource, int]) -> bool:
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE_DRS = DRS(ratio=-1.0)


def compare_drs(a: DRS, b: DRS) -> int:
    """FS-3: weight-0 borrowers are above everyone else and compare by their raw ratio."""
    if a.zero_weight_borrows and b.zero_weight_borrows:
        return _cmp(a.ratio, b.ratio)
    if a.zero_weight_borrows:
        return 1
    if b.zero_weight_borrows:
        return -1
    return _cmp(a.weighted, b.weighted)


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


def weight_of(cache: QuotaCache, node: QuotaNode) -> float:
    if node.is_cohort:
        model = cache.cohorts[node.name].model
        return model.fair_weight if model is not None else 1.0
    return cache.cluster_queues[node.name].model.fair_weight


def dominant_resource_share(cache: QuotaCache, node: QuotaNode) -> DRS:
    """FS-2 on the current usage (a root's share is always 0)."""
    weight = weight_of(cache, node)
    if node.parent is None:
        return DRS(weight)
    borrowed: dict[str, int] = {}
    borrowed_frs: list[FlavorResource] = []
    for fr, quota in node.subtree.items():
        amount = sat_sub(node.usage.get(fr, 0), quota)
        if amount > 0:
            borrowed[fr[1]] = sat_add(borrowed.get(fr[1], 0), amount)
            borrowed_frs.append(fr)
    if not borrowed:
        return DRS(weight)
    lendable = _lendable(node.parent)
    ratio, dominant = 0.0, ""
    for resource, amount in borrowed.items():
        capacity = lendable.get(resource, 0)
        if capacity > 0:
            value = float(amount) * 1000.0 / float(capacity)
            if value > ratio or (value == ratio and resource < dominant):
                ratio, dominant = value, resource
    return DRS(weight, ratio, dominant, True, tuple(borrowed_frs))


def _lendable(node: QuotaNode) -> dict[str, int]:
    root = node
    while root.parent is not None:
        root = root.parent
    lendable: dict[str, int] = {}
    for fr in root.subtree:
        lendable[fr[1]] = sat_add(lendable.get(fr[1], 0), potential(node, fr))
    return lendable
