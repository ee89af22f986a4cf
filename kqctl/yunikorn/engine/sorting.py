"""Who goes first (spec §7; yunikorn-core ``objects/sorters.go``, ``sorted_asks.go``).

Child queues of a parent (§7.1) and applications of a leaf (§7.2) are sorted with Go's stable sort over an
input order that upstream comes from a Go map (random): kqctl feeds them in name order, so its remaining
ties are broken by name, and :func:`tied_with_next` tells ``explain`` where YuniKorn would have flipped a coin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine.gosort import stable_sort
from kqctl.yunikorn.engine.properties import FAIR

T = TypeVar("T")


@dataclass
class QueueEntry(Generic[T]):
    """A child queue as the sort sees it: reported priority (P4), fair share, pending resources."""

    name: str
    priority: int
    allocated: Resource
    guaranteed: Resource | None
    fair_max: Resource | None
    pending: Resource
    item: T | None = None
    share: float = field(init=False)

    def __post_init__(self) -> None:
        self.share = res.fair_share(self.allocated, self.guaranteed, self.fair_max)


@dataclass
class AppEntry(Generic[T]):
    """An application as the sort sees it: its priority (P2), usage, submission time."""

    app_id: str
    priority: int
    allocated: Resource
    submission_time: int  # any monotonic clock; only the order matters
    total: Resource | None  # the leaf's guaranteed (usage ratio denominator)
    item: T | None = None
    shares: list[float] = field(init=False)

    def __post_init__(self) -> None:
        self.shares = res.usage_shares(self.allocated, self.total)


def pending_ahead(left: Resource, right: Resource) -> bool:
    """The last tie-break of the queue sort: ``left - right`` >= 0 in every type and > 0 in one."""
    return res.strictly_greater_than(res.sub(left, right), {})


def queue_less(consider_priority: bool) -> Callable[[QueueEntry[T], QueueEntry[T]], bool]:
    """``sortQueuesByPriorityAndFairness`` or, with priority sorting disabled, ``...ByFairnessAndPriority``."""
    def by_priority_then_fairness(left: QueueEntry[T], right: QueueEntry[T]) -> bool:
        if left.priority != right.priority:
            return left.priority > right.priority
        if left.share != right.share:
            return left.share < right.share
        return pending_ahead(left.pending, right.pending)

    def by_fairness_then_priority(left: QueueEntry[T], right: QueueEntry[T]) -> bool:
        if left.share != right.share:
            return left.share < right.share
        if left.priority != right.priority:
            return left.priority > right.priority
        return pending_ahead(left.pending, right.pending)

    return by_priority_then_fairness if consider_priority else by_fairness_then_priority


def sort_queues(entries: list[QueueEntry[T]], consider_priority: bool, policy: str = FAIR) -> list[QueueEntry[T]]:
    """§7.1: parents always sort their children fair; entries go in by name (kqctl's tie-break)."""
    return order_queues(sorted(entries, key=lambda e: e.name), consider_priority, policy)


def order_queues(entries: list[QueueEntry[T]], consider_priority: bool, policy: str = FAIR) -> list[QueueEntry[T]]:
    """``sortQueue`` on entries in the order given: fair sorts by priority and share; fifo only by priority
    when priority sorting is on, else not at all."""
    ordered = list(entries)
    if policy == FAIR:
        stable_sort(ordered, queue_less(consider_priority))
    elif consider_priority:
        stable_sort(ordered, lambda left, right: left.priority > right.priority)
    return ordered


def app_less(policy: str, consider_priority: bool) -> Callable[[AppEntry[T], AppEntry[T]], bool]:
    """§7.2: fifo or fair, with or without priority first."""
    def fair_priority(left: AppEntry[T], right: AppEntry[T]) -> bool:
        if left.priority != right.priority:
            return left.priority > right.priority
        return res.compare_shares(left.shares, right.shares) < 0

    def fair_only(left: AppEntry[T], right: AppEntry[T]) -> bool:
        compared = res.compare_shares(left.shares, right.shares)
        if compared != 0:
            return compared < 0
        return left.priority > right.priority

    def fifo_priority(left: AppEntry[T], right: AppEntry[T]) -> bool:
        if left.priority != right.priority:
            return left.priority > right.priority
        return left.submission_time < right.submission_time

    def fifo_only(left: AppEntry[T], right: AppEntry[T]) -> bool:
        if left.submission_time != right.submission_time:
            return left.submission_time < right.submission_time
        return left.priority > right.priority

    if policy == FAIR:
        return fair_priority if consider_priority else fair_only
    return fifo_priority if consider_priority else fifo_only


def sort_applications(entries: list[AppEntry[T]], policy: str, consider_priority: bool) -> list[AppEntry[T]]:
    """``sortApplications``: entries go in by application ID (kqctl's tie-break)."""
    return order_applications(sorted(entries, key=lambda e: e.app_id), policy, consider_priority)


def order_applications(entries: list[AppEntry[T]], policy: str, consider_priority: bool) -> list[AppEntry[T]]:
    """``sortApplications`` on entries in the order given."""
    ordered = list(entries)
    stable_sort(ordered, app_less(policy, consider_priority))
    return ordered


def tied_with_next(ordered: Sequence[T], less: Callable[[T, T], bool]) -> list[bool]:
    """For each position, whether YuniKorn could have put the next entry first (neither is ahead)."""
    return [i + 1 < len(ordered) and not less(ordered[i], ordered[i + 1]) and not less(ordered[i + 1], ordered[i])
            for i in range(len(ordered))]


def ask_order_key(priority: int, create_time: int, name: str) -> tuple[int, int, str]:
    """``Allocation.LessThan`` (sorted_asks): higher priority first, then older first; kqctl breaks equal
    creation times by pod name."""
    return (-priority, create_time, name)
