"""Who borrows and who lends: kqctl's attributions of a cohort's borrowing, which Kueue does not report.

Kueue tracks borrowing per ClusterQueue only (Q-7). :func:`borrowed_by_workload` charges a
ClusterQueue's borrowing to the workloads holding quota in it, the most recently admitted first,
as they are the ones whose admission went above nominal.

Kueue keeps borrowed quota in the cohort's pool and never says whose unused quota it came from, so
"lent" (:func:`lent_by_cluster_queue`) is our own, documented attribution, not a Kueue value:

- a ClusterQueue offers its cohort ``subtree - local`` (its nominal quota, or its lendingLimit when
  one is set, Q-1/Q-2) and what it does not use of that offer is *free*;
- a Cohort offers its own nominal quota, all of it free (no workload runs in a cohort);
- what the ClusterQueues of one cohort tree borrow in total (usage above nominal) is shared among the
  free offers of that tree in proportion to their size, in whole units; the units left by rounding
  down go to the largest remainders, ties by name, so the figures always add up.

Within hierarchical cohorts with borrowing limits a borrower may in fact only reach part of the tree;
the proportional share ignores that, so treat the figure as an attribution, not a ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice

from kqctl.k8s.quantity import sat_sub
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.quota import QuotaNode
from kqctl.kueue.engine.workloads import WorkloadInfo

Lent = dict[str, dict[FlavorResource, int]]  # ClusterQueue name -> (flavor, resource) -> amount lent
Borrowed = dict[str, dict[FlavorResource, int]]  # workload key -> (flavor, resource) -> amount borrowed


def borrowed_by_workload(cache: QuotaCache, admission_order: Callable[[WorkloadInfo], tuple[object, ...]],
                         ) -> Borrowed:
    """Each ClusterQueue's usage above nominal (Q-7) charged to its holders, latest ``admission_order`` first.

    Only non-zero amounts appear; a workload holding quota within nominal has no entry.
    """
    borrowed: Borrowed = {}
    for state in cache.cluster_queues.values():
        holders = sorted(state.workloads.values(), key=admission_order, reverse=True)
        usage = {holder.key: holder.usage() for holder in holders}
        for fr in sorted({fr for used in usage.values() for fr in used}):
            over = state.usage(fr) - state.nominal(fr)
            for holder in holders:
                if over <= 0:
                    break
                share = min(usage[holder.key].get(fr, 0), over)
                if share > 0:
                    borrowed.setdefault(holder.key, {})[fr] = share
                over -= share
    return borrowed


def lent_by_cluster_queue(cache: QuotaCache) -> Lent:
    """The amount each ClusterQueue lends, per (flavor, resource); only non-zero amounts appear."""
    lent: Lent = {}
    for root in _roots(cache):
        nodes = list(_walk(root))
        for fr in sorted({fr for node in nodes for fr in node.quotas}):
            borrowed = sum(_borrowed(node, fr) for node in nodes if not node.is_cohort)
            free = [_free(node, fr) for node in nodes]
            for node, amount in zip(nodes, _share(min(borrowed, sum(free)), free, nodes), strict=True):
                if amount and not node.is_cohort:
                    lent.setdefault(node.name, {})[fr] = amount
    return lent


def _roots(cache: QuotaCache) -> list[QuotaNode]:
    """The top of every tree that has a cohort; a ClusterQueue with no cohort lends to nobody."""
    tops: dict[int, QuotaNode] = {}
    for state in cache.cluster_queues.values():
        node = state.node
        if node.parent is None:
            continue
        while node.parent is not None:
            node = node.parent
        tops[id(node)] = node
    return sorted(tops.values(), key=lambda n: n.name)


def _walk(node: QuotaNode) -> Iterator[QuotaNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _borrowed(node: QuotaNode, fr: FlavorResource) -> int:
    return max(0, sat_sub(node.usage.get(fr, 0), node.limits(fr).nominal))


def _free(node: QuotaNode, fr: FlavorResource) -> int:
    """What the node offers its cohort and does not use itself."""
    if node.is_cohort:
        return node.limits(fr).nominal
    if node.parent is None:
        return 0
    offered = sat_sub(node.subtree.get(fr, 0), node.local_quota(fr))
    used_from_pool = max(0, sat_sub(node.usage.get(fr, 0), node.local_quota(fr)))
    return max(0, sat_sub(offered, used_from_pool))


def _share(total: int, weights: list[int], nodes: list[QuotaNode]) -> list[int]:
    """``total`` split in proportion to ``weights`` in whole units (largest remainder, ties by name)."""
    weight_sum = sum(weights)
    if total <= 0 or weight_sum <= 0:
        return [0] * len(weights)
    shares = [total * weight // weight_sum for weight in weights]
    left = total - sum(shares)
    by_remainder = sorted(range(len(weights)),
                          key=lambda i: (-(total * weights[i] % weight_sum), nodes[i].name, nodes[i].is_cohort))
    for index in islice(by_remainder, left):
        shares[index] += 1
    return shares
