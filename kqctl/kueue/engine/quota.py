"""The quota tree: ClusterQueues and Cohorts, their quotas, usage and what each can use (rule set Q).

Pure integer arithmetic in canonical units (QTY-5) with Kueue's saturation rules (Q-10).
Usage is updated incrementally (Q-4), never recomputed per cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.kueue.api.models import FlavorResource


@dataclass(frozen=True)
class Limits:
    """The quota of one node for one (flavor, resource)."""

    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass
class QuotaNode:
    """A ClusterQueue (``is_cohort`` False) or a Cohort in the tree."""

    name: str
    is_cohort: bool
    quotas: dict[FlavorResource, Limits] = field(default_factory=dict)
    parent: QuotaNode | None = None
    children: list[QuotaNode] = field(default_factory=list)
    subtree: dict[FlavorResource, int] = field(default_factory=dict)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    # Inactive ClusterQueues keep their quota and usage in the tree but are not scheduled (XO-1).
    active: bool = True
    # On a root: counts every change of usage or quota in its tree (QuotaCache), so that an answer worked out on the
    # tree can be known to still hold (verdict.py reuses a cycle's nomination when nothing changed since).
    version: int = 0

    def limits(self, fr: FlavorResource) -> Limits:
        return self.quotas.get(fr, _NO_LIMITS)

    #
    def local_quota(self, fr: FlavorResource) -> int:
        return _local_quota(self.subtree.get(fr, 0), self.limits(fr))

    def local_available(self, fr: FlavorResource) -> int:
        return max(0, sat_sub(self.local_quota(fr), self.usage.get(fr, 0)))

    def ancestors(self) -> Iterable[QuotaNode]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


_NO_LIMITS = Limits()


def _local_quota(subtree: int, limits: Limits) -> int:
    """Q-1: the part of a node's subtree quota it keeps to itself (all but its lendingLimit; none without one)."""
    if limits.lending_limit is None:
        return 0
    return max(0, sat_sub(subtree, limits.lending_limit))


def compute_subtree_quota(root: QuotaNode) -> None:
    """Q-2: a cohort's subtree quota is its own plus what each child does not keep private."""
    for child in root.children:
        compute_subtree_quota(child)
    subtree: dict[FlavorResource, int] = {fr: q.nominal for fr, q in root.quotas.items()}
    for child in root.children:
        for fr, amount in child.subtree.items():
            subtree[fr] = sat_add(subtree.get(fr, 0), sat_sub(amount, child.local_quota(fr)))
    root.subtree = subtree


def add_usage(node: QuotaNode, fr: FlavorResource, amount: int) -> None:
    """Q-4: usage beyond a node's private part is stored in its parent, recursively."""
    local_free = node.local_available(fr)
    node.usage[fr] = sat_add(node.usage.get(fr, 0), amount)
    if node.parent is not None and amount > local_free:
        add_usage(node.parent, fr, amount - local_free)


def remove_usage(node: QuotaNode, fr: FlavorResource, amount: int) -> None:
    """Q-4, the inverse of :func:`add_usage`."""
    stored = node.usage.get(fr, 0) - node.local_quota(fr)
    node.usage[fr] = sat_sub(node.usage.get(fr, 0), amount)
    if stored > 0 and node.parent is not None:
        remove_usage(node.parent, fr, min(amount, stored))


def available(node: QuotaNode, fr: FlavorResource) -> int:
    """Q-5: what a new request can use now, before any preemption (never negative)."""
    return max(0, _available(node, fr))


def _available(node: QuotaNode, fr: FlavorResource) -> int:
    subtree, usage = node.subtree.get(fr, 0), node.usage.get(fr, 0)
    if node.parent is None:
        return sat_sub(subtree, usage)
    parent_available = _available(node.parent, fr)
    # the node's limits looked up once (local_quota and local_available would look them up again), and Q-1's local
    # quota written out for the common case of no lendingLimit: every head's fit check and every admission reads this
    limits = node.quotas.get(fr, _NO_LIMITS)
    local = 0 if limits.lending_limit is None else _local_quota(subtree, limits)
    borrowing = limits.borrowing_limit
    if borrowing is not None:
        stored_in_parent = sat_sub(subtree, local)
        used_in_parent = max(0, sat_sub(usage, local))
        parent_available = min(parent_available, sat_add(sat_sub(stored_in_parent, used_in_parent), borrowing))
    if local == 0 and usage >= 0:
        return parent_available  # (nothing of its own left: the sum below adds 0)
    return sat_add(max(0, sat_sub(local, usage)), parent_available)


def potential(node: QuotaNode, fr: FlavorResource) -> int:
    """Q-6: the largest request that could ever fit, with no usage anywhere."""
    if node.parent is None:
        return node.subtree.get(fr, 0)
    result = sat_add(node.local_quota(fr), potential(node.parent, fr))
    borrowing = node.limits(fr).borrowing_limit
    if borrowing is not None:
        result = min(result, sat_add(node.subtree.get(fr, 0), borrowing))
    return result


def lendable_from_tree(node: QuotaNode, fr: FlavorResource) -> int:
    """What the rest of the tree could lend this node at most, ignoring its own borrowing limit."""
    if node.parent is None:
        return 0
    return max(0, sat_sub(sat_add(node.local_quota(fr), potential(node.parent, fr)), node.subtree.get(fr, 0)))
