"""The fair-sharing admission tournament (FS-4): which entry of a cycle goes next under fair sharing.

Used instead of the classical ordering (CYC-6) when the Kueue Configuration enables fair
sharing; Kueue's fair_sharing_iterator.go. Shares are recomputed after each entry was processed,
so entries are yielded one at a time.
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.cache import QuotaCache
from kqctl.kueue.engine.dominant_resource_share import DRS, compare_drs, dominant_resource_share
from kqctl.kueue.engine.entry import Entry
from kqctl.kueue.engine.quota import QuotaNode, add_usage, remove_usage


def tournament(cache: QuotaCache, entries: list[Entry]) -> Iterator[Entry]:
    """Yield entries one at a time; shares are recomputed after each yielded entry was processed."""
    by_cq = {entry.cq_name: entry for entry in entries}
    while by_cq:
        root = min((cache.root_of(by_cq[name].cq) for name in by_cq if by_cq[name].cq is not None),  # type: ignore[arg-type]
                   key=lambda n: n.name)
        if not root.is_cohort:
            yield by_cq.pop(root.name)
            continue
        shares, requested = _tournament_shares(cache, root, by_cq)
        winner = _run_tournament(cache, root, by_cq, shares, requested)
        assert winner is not None
        del by_cq[winner.cq_name]
        yield winner


def _tournament_shares(cache: QuotaCache, root: QuotaNode, by_cq: dict[str, Entry],
                       ) -> tuple[dict[tuple[str, str], DRS], dict[str, dict[FlavorResource, int]]]:
    shares: dict[tuple[str, str], DRS] = {}
    requested: dict[str, dict[FlavorResource, int]] = {}
    for cq in cache.subtree_cluster_queues(root):
        entry = by_cq.get(cq.name)
        if entry is None or entry.assignment is None:
            continue
        usage = entry.assignment.usage
        for fr, value in usage.items():
            add_usage(cq.node, fr, value)
        key = entry.workload.key
        requested[key] = dict(usage)
        share = dominant_resource_share(cache, cq.node)
        for ancestor in cq.node.ancestors():
            shares[(ancestor.name, key)] = share
            share = dominant_resource_share(cache, ancestor)
        for fr, value in usage.items():
            remove_usage(cq.node, fr, value)
    return shares, requested


def _run_tournament(cache: QuotaCache, cohort: QuotaNode, by_cq: dict[str, Entry],
                    shares: dict[tuple[str, str], DRS], requested: dict[str, dict[FlavorResource, int]],
                    ) -> Entry | None:
    candidates: list[Entry] = []
    for child in cache.child_cohorts(cohort):
        winner = _run_tournament(cache, child, by_cq, shares, requested)
        if winner is not None:
            candidates.append(winner)
    for cq in cache.child_cluster_queues(cohort):
        if cq.name in by_cq:
            candidates.append(by_cq[cq.name])
    if not candidates:
        return None
    best = candidates[0]
    for current in candidates[1:]:
        if _less(current, best, cohort.name, shares, requested):
            best = current
    return best


def _less(a: Entry, b: Entry, cohort: str, shares: dict[tuple[str, str], DRS],
          requested: dict[str, dict[FlavorResource, int]]) -> bool:
    a_share, b_share = shares[(cohort, a.workload.key)], shares[(cohort, b.workload.key)]
    a_borrowing = a_share.borrowing_on(requested.get(a.workload.key, {}))
    b_borrowing = b_share.borrowing_on(requested.get(b.workload.key, {}))
    if a_borrowing != b_borrowing:
        return not a_borrowing
    order = compare_drs(a_share, b_share)
    if order != 0:
        return order == -1
    if a.workload.priority != b.workload.priority:
        return a.workload.priority > b.workload.priority
    return a.workload.queue_order_time < b.workload.queue_order_time
