"""Preemption to give a queue its guaranteed resources (spec §10; yunikorn-core ``objects/preemption.go``,
``Queue.findPreemptionFenceRoot``, ``findEligiblePreemptionVictims``).

An ask that does not fit its queue's headroom or any node may preempt when the partition allows it, the ask
may preempt others (E1), has not preempted before (E2), is older than its leaf's ``preemption.delay`` (E3)
and was not tried in the last 15 s (E4). Then its queue must be below its guaranteed resources, or get there
by removing victims (no guaranteed on the path: no preemption). Victims come from below the fence (F1):
leaves not disabled and above their own guaranteed (F3), tasks sharing a resource type with the ask and of no
higher priority (F4; anything below a fenced queue whose offset the ask's priority reaches, F2). Every node is
checked and the one with the lowest solution score is kept (``getSolutionScore``: penalties for evicting an
originator or a task that opted out, then how many victims it needs; the shim's predicate check answers "fits"
where the resources fit); victims on it are evicted in order (those allowing preemption first, non-originators
next, newest first).
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine.objects import Ask, Node
from kqctl.yunikorn.engine.queue import Queue
from kqctl.yunikorn.engine.state import PREEMPTED, CycleResult, SchedulerState

PRECONDITIONS_FAILED = "Preemption preconditions failed"
GUARANTEES_FAILED = "Preemption queue guarantees check failed"
SHORTFALL = "Preemption helped but short of resources"
DOES_NOT_HELP = "Preemption does not help"
MAX_ATTEMPTS = "Preemption max attempts exhausted"
RESERVATION_WAIT_TIMEOUT = 3600 * 1_000_000_000  # objects.reservationWaitTimeout
_CLOCK = itertools.count(1)
FEW_NODES = 10  # _open_to: at most a tenth of the nodes open to an ask are looked at one by one


@dataclass(eq=False)
class QueueSnapshot:
    """``QueuePreemptionSnapshot``: a queue's usage as preemption plays it out."""

    path: str
    parent: QueueSnapshot | None
    leaf: bool
    allocated: Resource
    preempting: Resource
    max: Resource | None
    guaranteed: Resource | None
    victims: list[Ask] = field(default_factory=list)
    victim_total: Resource = field(default_factory=dict)  # the victims' resources added up
    ask_queue: QueueSnapshot | None = None
    stamp: int = 0  # changes with its usage: what the memos below depend on
    _remaining: tuple[tuple[int, ...], Resource | None] | None = field(default=None, repr=False)
    _preemptable: tuple[tuple[int, ...], Resource | None] | None = field(default=None, repr=False)
    _own: tuple[int, Resource | None] | None = field(default=None, repr=False)

    def _signature(self) -> tuple[int, ...]:
        stamps = []
        node: QueueSnapshot | None = self
        while node is not None:
            stamps.append(node.stamp)
            node = node.parent
        return tuple(stamps)

    def duplicate(self, copies: dict[str, QueueSnapshot]) -> QueueSnapshot:
        if self.path in copies:
            return copies[self.path]
        parent = self.parent.duplicate(copies) if self.parent is not None else None
        copy = QueueSnapshot(self.path, parent, self.leaf, dict(self.allocated), dict(self.preempting),
                             self.max, self.guaranteed, victims=self.victims, victim_total=self.victim_total,
                             ask_queue=self.ask_queue)
        copies[self.path] = copy
        return copy

    def preemptable(self) -> Resource | None:
        """``GetPreemptableResource``: usage above guaranteed, bounded by the parent's."""
        signature = self._signature()
        if self._preemptable is not None and self._preemptable[0] == signature:
            return self._preemptable[1]
        value = self._preemptable_now()
        self._preemptable = (signature, value)
        return value

    def _preemptable_now(self) -> Resource | None:
        if not self.allocated:
            return None
        parent = self.parent.preemptable() if self.parent is not None else None
        actual = res.sub_only_existing(self.allocated, self.preempting) or {}
        if self.guaranteed is not None:
            actual = res.sub_only_existing(actual, self.guaranteed) or {}
        over = {name: value for name, value in (actual or {}).items() if value > 0}
        if not over:
            return over
        if parent is None:
            return over
        return {name: min(value, parent[name]) if name in parent else value for name, value in over.items()}

    def own_remaining(self) -> Resource | None:
        """Guaranteed minus this queue's own usage (None without guaranteed), its ancestors left out: what
        ``GetRemainingGuaranteedResource`` reads of the AskQueue for every other queue, kept while its usage is
        (``add`` changes its stamp)."""
        if self._own is not None and self._own[0] == self.stamp:
            return self._own[1]
        value = res.sub_only_existing(self.guaranteed, res.sub_only_existing(self.allocated, self.preempting)) \
            if self.guaranteed is not None else None
        self._own = (self.stamp, value)
        return value

    def remaining_guaranteed(self) -> Resource | None:
        """``GetRemainingGuaranteedResource``: guaranteed minus usage, combined with the ancestors'."""
        signature = self._signature()
        if self._remaining is not None and self._remaining[0] == signature:
            return self._remaining[1]
        value = self._remaining_now()
        self._remaining = (signature, value)
        return value

    def _remaining_now(self) -> Resource | None:
        parent = self.parent.remaining_guaranteed() if self.parent is not None else None
        if res.is_empty(parent) and res.is_empty(self.guaranteed):
            return None
        used = res.sub_only_existing(self.allocated, self.preempting)
        remaining = res.sub_only_existing(self.guaranteed, used) if self.guaranteed is not None else None
        ask = self.ask_queue
        if ask is not None:
            if ask.path == self.path and not res.is_empty(remaining):
                merged = dict(remaining or {})
                for name, value in (parent or {}).items():
                    merged.setdefault(name, value)
                return merged
            ask_remaining = ask.own_remaining()
            if not res.is_empty(remaining) and ask.path.startswith(self.path) and not res.is_empty(ask_remaining):
                return None
        return res.component_wise_min(remaining, parent)

    def add(self, amount: Resource) -> None:
        stamp = next(_CLOCK)
        node: QueueSnapshot | None = self
        while node is not None:
            node.allocated = res.add(node.allocated, amount)
            node.stamp = stamp
            node = node.parent

    def remove(self, amount: Resource) -> None:
        self.add({name: -value for name, value in amount.items()})


class Copies:
    """``duplicateQueueSnapshots`` done lazily: a queue's snapshot (and its ancestors') is copied the first time
    it is asked for; the ones never touched stay equal to the originals, as the full copy would."""

    def __init__(self, originals: dict[str, QueueSnapshot]) -> None:
        self.originals = originals
        self.copies: dict[str, QueueSnapshot] = {}

    def get(self, path: str) -> QueueSnapshot | None:
        found = self.copies.get(path)
        if found is not None:
            return found
        original = self.originals.get(path)
        return original.duplicate(self.copies) if original is not None else None

    def all(self) -> list[QueueSnapshot]:
        return [snap for path in self.originals if (snap := self.get(path)) is not None]


def _snapshot(queue: Queue, cache: dict[str, QueueSnapshot], ask_path: str) -> QueueSnapshot:
    """``createPreemptionSnapshot``."""
    if queue.path in cache:
        return cache[queue.path]
    parent = _snapshot(queue.parent, cache, ask_path) if queue.parent is not None else None
    snap = QueueSnapshot(queue.path, parent, queue.leaf, dict(queue.allocated), dict(queue.preempting),
                         queue.max, queue.guaranteed, ask_queue=cache.get(ask_path))
    cache[queue.path] = snap
    return snap


def fence_root(scheduler: SchedulerState, leaf: Queue, ask: Ask, priorities: dict[str, int]) -> Queue:
    """F1 ``findPreemptionFenceRoot``: walk up, adding offsets (a fenced queue restarts at its offset), to the
    root, a queue with preemption.policy fence, or one whose max the ask would exceed."""
    queue: Queue | None = leaf
    priority = ask.priority
    while True:
        assert queue is not None
        settings = queue.settings
        priority = settings.priority_offset if settings.priority_policy == props.FENCE else \
            priority + settings.priority_offset
        priorities[queue.path] = priority
        maximum = scheduler.p.max_of(queue)
        over_max = bool(maximum) and not res.greater_or_equal_only_existing(maximum, res.add(queue.allocated,
                                                                                              ask.resource))
        if queue.parent is None or settings.preemption_policy == props.FENCE or over_max:
            return queue
        queue = queue.parent


def eligible_victims(scheduler: SchedulerState, ask: Ask) -> tuple[dict[str, QueueSnapshot], Queue]:
    """``FindEligiblePreemptionVictims``: snapshots of the queues involved, victims on the leaves."""
    leaf = ask.app.queue
    assert leaf is not None
    priorities: dict[str, int] = {}
    fence = fence_root(scheduler, leaf, ask, priorities)
    return _eligible_below(scheduler, ask, leaf, fence, priorities), fence


def _eligible_below(scheduler: SchedulerState, ask: Ask, leaf: Queue, fence: Queue,
                    priorities: dict[str, int]) -> dict[str, QueueSnapshot]:
    """``eligible_victims`` once the fence and the priorities along the path are known: the result depends on the
    ask only through its leaf, its priority and its resource types."""
    results = _ask_chain(leaf)
    _collect(scheduler, fence, results, leaf.path, ask, priorities, priorities[fence.path], False)
    _prune(results, leaf.path)
    return results


def _ask_chain(leaf: Queue) -> dict[str, QueueSnapshot]:
    """Snapshots of the ask's leaf and its ancestors, the ancestors with the leaf as their AskQueue (the leaf's own is
    made before it is in the cache: it has none)."""
    results: dict[str, QueueSnapshot] = {}
    _snapshot(leaf, results, leaf.path)
    for queue in leaf.path_from_root():
        if queue.path != leaf.path:
            results[queue.path].ask_queue = results[leaf.path]
    return results


def _collect(scheduler: SchedulerState, queue: Queue, results: dict[str, QueueSnapshot], ask_path: str, ask: Ask,
             priorities: dict[str, int], ask_priority: int, fenced: bool) -> None:
    """F2-F4 ``findEligiblePreemptionVictims``: F2 and F4 pick the leaves with eligible victims (walk order: children
    by name, depth first), then F3 drops those within their guaranteed, leaf by leaf in that order (the order the
    snapshots are made in is the order of ``results``)."""
    types = tuple(sorted(name for name, value in ask.resource.items() if value != 0))
    for leaf, victims, total in _candidates(scheduler, queue, ask_path, types, priorities, ask_priority, fenced):
        key = _within_key(scheduler, leaf, ask_path)
        within = scheduler.within_guaranteed.get(key)
        if within:
            continue  # F3, as worked out before with the same usage
        snap = _snapshot(leaf, results, ask_path)
        if within is None:
            remaining = snap.remaining_guaranteed()
            within = remaining is not None and all(value >= 0 for value in remaining.values())
            if len(scheduler.within_guaranteed) > 50_000:
                scheduler.within_guaranteed.clear()
            scheduler.within_guaranteed[key] = within
            if within:
                del results[leaf.path]  # F3: not above its guaranteed
                continue
        snap.victims, snap.victim_total = victims, total


Candidates = list[tuple[Queue, list[Ask], Resource]]


def _candidates(scheduler: SchedulerState, queue: Queue, ask_path: str, types: tuple[str, ...],
                priorities: dict[str, int], ask_priority: int, fenced: bool) -> Candidates:
    """F2 and F4 below ``queue``: the leaves (not the ask's, not preemption-disabled) with eligible victims, in walk
    order, with their victims. A subtree that does not hold the ask's queue answers the same while nothing below it
    changed (its version: every allocation, release or new ask below it counts), for the same resource types, the
    same priority reaching it and the same fence: those answers are kept (YuniKorn walks the whole tree for every
    attempt; most of it has not changed since the last one)."""
    if queue.path == ask_path:
        return []
    holds_ask = ask_path.startswith(queue.path + ".")
    key: tuple[object, ...] = ()
    if not holds_ask:
        key = (queue.path, scheduler.version.get(queue.path, 0), types, ask_priority, fenced)
        known = scheduler.subtree_victims.get(key)
        if known is not None:
            return known
    found: Candidates = []
    if queue.leaf:
        if queue.settings.preemption_policy != props.DISABLED:
            victims, total = _leaf_victims(scheduler, queue, types, ask_priority, fenced)
            if victims:
                found.append((queue, victims, total))
    else:
        for name in sorted(queue.children):
            child = queue.children[name]
            child_fenced = False
            child_priority = priorities.get(child.path)  # set on the ask's path only (fence_root)
            if child_priority is None:
                settings = child.settings
                if settings.priority_policy == props.FENCE:
                    if settings.priority_offset > ask_priority:
                        continue
                    child_fenced = True
                    child_priority = ask_priority
                else:
                    child_priority = ask_priority - settings.priority_offset
            found.extend(_candidates(scheduler, child, ask_path, types, priorities, child_priority,
                                     fenced or child_fenced))
    if not holds_ask:
        if len(scheduler.subtree_victims) > 50_000:
            scheduler.subtree_victims.clear()
        scheduler.subtree_victims[key] = found
    return found


def _within_key(scheduler: SchedulerState, leaf: Queue, ask_path: str) -> tuple[object, ...]:
    """What F3's answer for ``leaf`` depends on (``remaining_guaranteed`` of its snapshot, the ask's queue as
    AskQueue): the versions of the ask's queue and of the leaf's queues whose usage counts. From the root down, the
    queues without guaranteed resources whose ancestors have none answer None whatever their usage (no guaranteed
    here or above): their versions, the root's changing with every allocation, are left out."""
    chain = scheduler.guaranteed_chains.get(leaf.path)
    if chain is None:
        queues = [leaf, *leaf.ancestors()]
        while queues and res.is_empty(queues[-1].guaranteed):
            queues.pop()
        chain = scheduler.guaranteed_chains[leaf.path] = tuple(queue.path for queue in queues)
    version = scheduler.version
    return (leaf.path, ask_path, version.get(ask_path, 0), *(version.get(path, 0) for path in chain))


def _leaf_victims(scheduler: SchedulerState, queue: Queue, types: tuple[str, ...], ask_priority: int,
                  fenced: bool) -> tuple[list[Ask], Resource]:
    """F4 on a leaf: its allocations sharing a type with the ask (``types``: the ask's non-zero types, sorted), of the
    ask's priority or lower (any, below a fence), and their sum; kept until the leaf's allocations change."""
    key = (queue.path, scheduler.version.get(queue.path, 0), types, fenced, None if fenced else ask_priority)
    cache = scheduler.leaf_victims
    found = cache.get(key)
    if found is not None:
        return found
    victims: list[Ask] = []
    total: Resource = {}
    for app in scheduler.p.leaf_apps.get(queue.path, []):
        for alloc in app.asks:
            if not alloc.node or alloc.preempted_by or not (fenced or alloc.priority <= ask_priority):
                continue
            if not any(alloc.resource.get(name, 0) != 0 for name in types):
                continue
            victims.append(alloc)
            for name, value in alloc.resource.items():
                total[name] = res.add_val(total.get(name, 0), value)
    if len(cache) > 50_000:
        cache.clear()
    cache[key] = (victims, total)
    return victims, total


def _prune(results: dict[str, QueueSnapshot], ask_path: str) -> None:
    keep: set[str] = set()
    current = results.get(ask_path)
    while current is not None:
        keep.add(current.path)
        current = current.parent
    for snap in list(results.values()):
        if snap.leaf and snap.victims:
            node: QueueSnapshot | None = snap
            while node is not None:
                keep.add(node.path)
                node = node.parent
    for path in list(results):
        if path not in keep:
            del results[path]


def _under_guaranteed(ask: Resource, remaining: Resource) -> bool:
    return all(remaining.get(name, 0) >= 0 for name in ask if name in remaining)


def _victim_over_guaranteed(ask: Resource, remaining: Resource) -> bool:
    return any(remaining[name] < 0 for name in ask if name in remaining)


def check_guarantees(results: dict[str, QueueSnapshot], ask: Ask, ask_path: str) -> bool:
    """``checkPreemptionQueueGuarantees``: the ask fits the queue's remaining guaranteed, now or after some
    victims are gone.

    YuniKorn removes the victims one by one and stops at the first after which the ask's queue is under its
    guaranteed for the ask's types. Removing a victim only lowers usage, and the remaining guaranteed of the ask's
    queue only grows when usage falls (its types are those of the guarantees, whatever the usage), so that point
    exists exactly when it holds once every victim is gone: kqctl removes each queue's victims at once and looks
    once (tests/yunikorn_reference.py keeps the one-by-one loop, and the tests compare them)."""
    copies = Copies(results)
    current = copies.get(ask_path)
    if current is None:
        return False
    if _within_remaining(current.remaining_guaranteed(), ask.resource):
        return True
    current.add(ask.resource)
    removed = False
    for path, original in results.items():
        if not original.victims:
            continue
        snap = copies.get(path)
        assert snap is not None
        snap.remove(original.victim_total)
        removed = True
    if not removed:
        return False
    left = current.remaining_guaranteed()
    return left is not None and _under_guaranteed(ask.resource, left)


def _within_remaining(remaining: Resource | None, ask: Resource) -> bool:
    """The ask fits the queue's remaining guaranteed, for each type that has one."""
    return remaining is not None and all(remaining.get(name, 0) >= value for name, value in ask.items()
                                         if name in remaining)


def nothing_to_try(leaf: Queue, ask: Ask) -> bool:
    """With no node to look at (every one reserved for an ask this one may not take over, none for it: ``_open_to``
    answered none), the attempt answers "does not help" once the queue guarantees check passes; it passes at its first
    look, before any victim is removed, when the ask fits its queue's remaining guaranteed now. That look needs only
    the snapshots of the ask's queue and its ancestors: the victims below the fence are not collected."""
    return _within_remaining(_ask_chain(leaf)[leaf.path].remaining_guaranteed(), ask.resource)


def over_own_guaranteed(leaf: Queue, ask: Resource) -> bool:
    """``check_guarantees`` is False, whatever the victims: for a type its leaf guarantees, the ask does not fit the
    leaf's own guaranteed less its usage now, and with the ask added the leaf is over it.

    Why this holds without the victims: for a type the ask's queue guarantees, its remaining guaranteed
    (``_remaining_now``) is at most its own guaranteed less its own usage (that alone, or the smaller of it and the
    parent's), and victims are never on the ask's own leaf (F4): removing them does not raise that bound. The check
    would build a snapshot of every queue below the fence and collect their victims to find that out; on a full
    cluster most attempts end here (tests/yunikorn/test_preemption_shortcuts.py compares it with the check)."""
    guaranteed = leaf.guaranteed
    if not guaranteed:
        return False
    allocated, preempting = leaf.allocated, leaf.preempting
    short_now = over_after = False
    for name, value in ask.items():
        limit = guaranteed.get(name)
        if limit is None:
            continue
        # the snapshot's usage: allocated less preempting, for the types allocated holds (``sub_only_existing``)
        used = allocated[name] - preempting.get(name, 0) if name in allocated else 0
        short_now = short_now or limit - used < value
        over_after = over_after or limit - (allocated.get(name, 0) + value - preempting.get(name, 0)) < 0
    return short_now and over_after


def _victim_order(victim: Ask) -> tuple[int, int, int]:
    """``sortVictimsForPreemption``: tasks allowing preemption first, then non-originators, newest first."""
    return (0 if victim.pod.allow_preempt_self else 1, 1 if victim.originator else 0, -victim.created)


def victims_on_node(ask: Ask, available: Resource, candidates: list[Ask], results: dict[str, QueueSnapshot],
                    by_victim: dict[int, QueueSnapshot], ask_path: str) -> tuple[int, list[Ask] | None]:
    """``calculateVictimsByNode``: (index of the victim after which the ask fits, the victims) or None."""
    if res.fit_in(available, ask.resource):
        return -1, []
    reachable = dict(available)
    for victim in candidates:
        reachable = res.add(reachable, victim.resource)
    if not res.fit_in(reachable, ask.resource):
        return -1, None  # even every victim here would not make room: no subset will
    copies = Copies(results)
    found = copies.get(ask_path)
    if found is None:
        return -1, None
    ask_queue = found
    head: list[Ask] = []
    tail: list[Ask] = []
    current = dict(available)
    for victim in candidates:
        owner = by_victim.get(id(victim))
        snap = copies.get(owner.path) if owner is not None else None
        if snap is None:
            continue
        remaining = snap.remaining_guaranteed()
        snap.remove(victim.resource)
        preemptable = snap.preemptable()
        if (preemptable is None or all(v >= 0 for v in preemptable.values())) and \
                (remaining is None or _victim_over_guaranteed(ask.resource, remaining)):
            ask_remaining = ask_queue.remaining_guaranteed()
            if ask_remaining is not None and all(ask_remaining.get(n, 0) >= v for n, v in victim.resource.items()
                                                 if n in ask_remaining):
                ask_queue.add(victim.resource)
            else:
                snap.add(victim.resource)
                break
            shortfall = _shortfall(ask.resource, current)
            after = _shortfall(ask.resource, res.add(current, victim.resource))
            if shortfall == after:
                ask_queue.remove(victim.resource)
                snap.add(victim.resource)
                tail.append(victim)
            else:
                current = res.add(current, victim.resource)
                head.append(victim)
        else:
            snap.add(victim.resource)
    ordered = head + tail
    if not ordered:
        return -1, None
    copies = Copies(results)
    current = dict(available)
    chosen: list[Ask] = []
    index = -1
    for victim in ordered:
        owner = by_victim.get(id(victim))
        snap = copies.get(owner.path) if owner is not None else None
        if snap is None:
            continue
        remaining = snap.remaining_guaranteed()
        snap.remove(victim.resource)
        preemptable = snap.preemptable()
        if (preemptable is None or all(v >= 0 for v in preemptable.values())) and \
                (remaining is None or _victim_over_guaranteed(ask.resource, remaining)):
            current = res.add(current, victim.resource)
            if res.fit_in(current, ask.resource) and index < 0:
                index = len(chosen)
            chosen.append(victim)
        else:
            snap.add(victim.resource)
    if index < 0:
        return -1, None
    return index, chosen


SCORE_FIT_MAX = 1 << 32  # preemption.go: below this a solution evicts no originator and no task that opted out
SCORE_ORIGINATOR = 1 << 33
SCORE_NO_PREEMPT = 1 << 34
SCORE_UNFIT = 1 << 35


def solution_score(index: int, node_allocations: list[Ask] | None) -> int:
    """``predicateCheckResult.getSolutionScore``: how bad evicting the node's potential victims up to ``index`` is.

    YuniKorn reads the node's potential victims in ``sortVictimsForPreemption`` order (``node_allocations``; None
    when the node has none), not the list ``calculateVictimsByNode`` made: a victim up to the index that is its
    application's originator adds a large penalty, one that opted out of preemption a larger one, then the index
    counts (plus one: evicting nothing scores 0). A node without potential victims where the ask fits scores as
    unfit: it is kept only when no other node works."""
    if node_allocations is None:
        return SCORE_UNFIT
    if index < 0:
        return 0
    if index >= len(node_allocations):
        return SCORE_UNFIT
    score = 0
    for allocation in node_allocations[:index + 1]:
        if allocation.originator:
            score |= SCORE_ORIGINATOR
        if not allocation.pod.allow_preempt_self:
            score |= SCORE_NO_PREEMPT
    return score + index + 1


def _lowest_score(ask: Resource, available: Resource, node_allocations: list[Ask] | None,
                  index: VictimIndex | None = None, node: str = "") -> int:
    """A lower bound on the node's ``solution_score``: the fewest victims it could need (the largest first, per
    resource type) give the lowest index, and the penalties only grow with the index. ``index`` (with the node's
    name) holds the running totals of the node's victims, so they are not sorted again for every ask."""
    if node_allocations is None:
        return SCORE_UNFIT
    if index is None:
        needed = _fewest_victims(ask, available, node_allocations)
    else:
        needed = _fewest_victims_reached(ask, available, len(node_allocations), index, node)
    if needed == 0:
        return 0
    if needed > len(node_allocations):
        return SCORE_UNFIT
    return solution_score(needed - 1, node_allocations)


def _fewest_victims(ask: Resource, available: Resource, victims: list[Ask]) -> int:
    """A lower bound on how many victims a node needs before the ask fits: per resource type, taking the
    largest victims first."""
    needed = 0
    for name, value in ask.items():
        short = value - max(0, available.get(name, 0))
        if short <= 0:
            continue
        sizes = sorted((v.resource.get(name, 0) for v in victims), reverse=True)
        count = 0
        for size in sizes:
            if short <= 0 or size <= 0:
                break
            short -= size
            count += 1
        needed = max(needed, count if short <= 0 else len(victims) + 1)
    return needed


def _fewest_victims_reached(ask: Resource, available: Resource, count: int, index: VictimIndex, node: str) -> int:
    """``_fewest_victims`` from the index's running totals: per type, the first k whose total covers the
    shortfall (count + 1: none does)."""
    needed = 0
    for name, value in ask.items():
        short = value - max(0, available.get(name, 0))
        if short <= 0:
            continue
        reach = index.reach(node, name)
        if not reach or reach[-1] < short:
            return count + 1
        needed = max(needed, bisect.bisect_left(reach, short) + 1)
    return needed


def _shortfall(ask: Resource, available: Resource) -> Resource:
    return {name: value - available.get(name, 0) for name, value in ask.items() if value - available.get(name, 0) > 0}


def try_preemption(scheduler: SchedulerState, ask: Ask, headroom: Resource | None, attempts: list[int],
                   nodes_tried: bool) -> tuple[CycleResult | None, str]:
    """``Application.tryPreemption``: (the preemption's result, or the reason it did not happen)."""
    p = scheduler.p
    if attempts[0] == 0:
        return None, MAX_ATTEMPTS
    leaf = ask.app.queue
    assert leaf is not None
    why = preconditions(p.now, ask, leaf)
    if why:
        return None, f"{PRECONDITIONS_FAILED} ({why})"
    ask.preempt_checked = True
    attempts[0] -= 1
    if over_own_guaranteed(leaf, ask.resource):
        return None, GUARANTEES_FAILED  # what the attempt would answer, without collecting its victims
    # An attempt is a function of the state and the ask's shape: one that failed fails again for an ask alike
    # until something is allocated, released or reserved.
    outcome_key = (p.allocations, p.releases, p.reservation_changes, leaf.path, ask.priority, ask.reserved_node,
                   nodes_tried, tuple(sorted(ask.resource.items())))
    failed = scheduler.failed_attempts.get(outcome_key)
    if failed is not None:
        return None, failed
    # The queue guarantees check comes before any node is looked at: its answer does not depend on reservations,
    # the ask's own reserved node or whether tryNodes ran (every reserved ask has its own node: the key above never
    # matches two of them).
    guarantees_key = (p.allocations, p.releases, leaf.path, ask.priority, outcome_key[-1])
    if guarantees_key in scheduler.guarantees_failed:
        return None, GUARANTEES_FAILED
    result, reason = _attempt(scheduler, ask, leaf, nodes_tried)
    if result is None:
        if len(scheduler.failed_attempts) > 4096:
            scheduler.failed_attempts.clear()
        scheduler.failed_attempts[outcome_key] = reason
        if reason == GUARANTEES_FAILED:
            if len(scheduler.guarantees_failed) > 4096:
                scheduler.guarantees_failed.clear()
            scheduler.guarantees_failed.add(guarantees_key)
    return result, reason


def _attempt(scheduler: SchedulerState, ask: Ask, leaf: Queue, nodes_tried: bool) -> tuple[CycleResult | None, str]:
    """``TryPreemption`` after the preconditions."""
    p = scheduler.p
    names = _open_to(scheduler, ask) if nodes_tried else None
    if names == [] and nothing_to_try(leaf, ask):
        return None, DOES_NOT_HELP
    results = _cached_victims(scheduler, ask)
    memo = scheduler.guarantee_cache
    memo_key = (id(results), tuple(sorted(ask.resource.items())))
    known = memo.get(memo_key)
    if known is None or known[0] is not results:  # the snapshots are kept, so their id is not reused meanwhile
        if len(memo) > 256:
            memo.clear()
        known = (results, check_guarantees(results, ask, leaf.path))
        memo[memo_key] = known
    if not known[1]:
        return None, GUARANTEES_FAILED
    index = _victim_index(scheduler, results)
    # YK-PREEMPT-NODE ``tryNodes``: every candidate node is checked and the solution with the lowest score is kept
    # (``getSolutionScore``). Equal scores mean equal indexes, and YuniKorn keeps the check that answered first
    # (goroutine order): kqctl keeps the first started, by index then node name (``checkPreemptionPredicates``; its
    # batches of 10 change nothing then: a batch ends the search only with a score below any penalty).
    # Nodes are tried by name; one whose best possible score cannot beat the best so far is not worked out. After
    # tryNodes failed (``nodes_tried``) a node without victims is never a candidate: only the nodes with victims
    # are looked at, in the same name order.
    best: tuple[int, str, list[Ask]] | None = None
    by_name = p.nodes.by_name
    if nodes_tried:
        if names is None:
            names = index.node_names
    else:
        index.group_all()  # every node is looked at
        names = p.nodes.names
    for name in names:
        node = by_name.get(name)
        # the cheapest test first (on a full cluster most nodes are reserved for other asks); the order of these
        # tests changes nothing: each only skips the node
        if node is None or _reserved_for_other(p.now, node, ask) or not node.schedulable \
                or not node.fits_total(ask.resource):
            continue
        ordered = index.on_node(name)
        if not ordered and (nodes_tried or not node.fits_available(ask.resource)):
            continue  # no victim here: it can only be a candidate when the ask already fits (quota preemption)
        if best is not None and _lowest_score(ask.resource, node.free, ordered or None, index, name) >= best[0]:
            continue
        at, victims = victims_on_node(ask, node.available, ordered or [], results, index.owners, leaf.path)
        if victims is None or not (victims or not nodes_tried):
            continue
        score = solution_score(at, ordered or None)
        if best is None or score < best[0]:
            best = (score, name, victims)
            if score == 0:
                break  # nothing can do better
    if best is None:
        return None, DOES_NOT_HELP
    _, node_name, victims = best
    node = p.nodes.by_name[node_name]
    extra, ok = additional_victims(ask, victims, results, index.by_victim, leaf.path, index.less_order)
    if not ok:
        return None, DOES_NOT_HELP
    victims = victims + extra
    if not victims:
        return None, DOES_NOT_HELP
    fits_already = res.fit_in(node.available, ask.resource)
    chosen: list[Ask] = []
    total: Resource = {}
    considered = 0
    passed: list[str] = []  # the ask's types the victims' total went above, when YuniKorn stopped choosing
    for victim in victims:
        if not fits_already and victim.node != node_name:
            continue
        considered += 1
        # YuniKorn keeps a victim only while the ask is StrictlyGreaterThanOnlyExisting the total so far: once the
        # total is above the ask in any one type (memory, or pods: every pod counts 1), no later victim is taken,
        # even when the ask still lacks another type. The shortfall check below is on the total of all of them.
        if res.strictly_greater_only_existing(ask.resource, total):
            chosen.append(victim)
        elif not passed:
            passed = sorted(name for name, value in ask.resource.items() if total.get(name, 0) > value)
        total = res.add(total, victim.resource)
    if res.strictly_greater_only_existing(ask.resource, total):
        return None, SHORTFALL
    for victim in chosen:
        victim.preempted_by = ask.key
        victim.preempted_from = victim.node
        p.release(victim)
        assert victim.app.queue is not None
        scheduler._changed(victim.app.queue)
        if victim.preempted_from != node_name:
            scheduler.node_opened(p.nodes.by_name[victim.preempted_from])
    ask.preempt_triggered = True
    if len(chosen) < considered and not (res.fit_in(node.available, ask.resource)
                                         and res.fit_in_max_undef(p.headroom(leaf), ask.resource)):
        exceeded = f" (here {' and '.join(passed)})" if passed else ""
        ask.preempt_short = (f"it preempted {len(chosen)} of {considered} victims: YuniKorn stops taking victims once "
                             f"their total exceeds the ask in one resource type{exceeded}, which left it short, and "
                             "an ask preempts only once")
    if node.reserved_by is not None and node.reserved_by is not ask:
        other = node.reserved_by
        assert other.app.queue is not None
        scheduler.settle_leaf(other.app.queue.path)  # before its reservation goes: it decides what a release did
        p.unreserve(other)
        scheduler.reserved.remove(other)
        scheduler.unblock(other)  # it may reserve another node now
    if ask.reserved_node:
        old = p.nodes.by_name[ask.reserved_node]
        p.unreserve(ask)
        scheduler.reserved.remove(ask)
        scheduler.node_opened(old)
        scheduler.node_unreserved(old)
    p.reserve(ask, node)
    scheduler.reserved.append(ask)
    scheduler.node_reserved()
    scheduler.reserved_dirty[ask] = None  # its node is being emptied for it
    scheduler.quota_released()
    return CycleResult(PREEMPTED, ask, node_name, tuple(chosen)), ""


def additional_victims(ask: Ask, node_victims: list[Ask], results: dict[str, QueueSnapshot],
                       by_victim: dict[int, QueueSnapshot], ask_path: str,
                       less_order: list[Ask] | None = None) -> tuple[list[Ask], bool]:
    """``calculateAdditionalVictims``: victims elsewhere that bring the ask's queue under its guaranteed.
    ``less_order``: every victim of ``results`` sorted by ``_less_key`` (worked out here when not given)."""
    copies: dict[str, QueueSnapshot] = {}
    for original in results.values():
        original.duplicate(copies)
    found = copies.get(ask_path)
    if found is None:
        return [], False
    ask_queue = found
    seen = set()
    for victim in node_victims:
        owner = by_victim.get(id(victim))
        if owner is not None and owner.path in copies:
            copies[owner.path].remove(victim.resource)
            seen.add(id(victim))
    if less_order is None:
        less_order = sorted(by_victim_list(results), key=_less_key)
    others = [v for v in less_order if id(v) not in seen]  # a stable sort: filtering after sorting is the same
    extra: list[Ask] = []
    # A victim that is not taken leaves every snapshot as it found it: another victim of the same queue and the same
    # resources is not taken either until one is (kept here by queue and resources, forgotten when one is taken).
    passed_over: set[tuple[str, tuple[tuple[str, int], ...]]] = set()
    for victim in others:
        owner = by_victim.get(id(victim))
        snap = copies.get(owner.path) if owner is not None else None
        if snap is None:
            continue
        alike = (snap.path, tuple(victim.resource.items()))
        if alike in passed_over:
            continue
        remaining = snap.remaining_guaranteed()
        snap.remove(victim.resource)
        preemptable = snap.preemptable()
        if (preemptable is None or all(v >= 0 for v in preemptable.values())) and \
                (remaining is None or _victim_over_guaranteed(ask.resource, remaining)):
            before = ask_queue.remaining_guaranteed()
            if before is not None and all(before.get(n, 0) >= v for n, v in victim.resource.items() if n in before):
                ask_queue.add(victim.resource)
            else:
                snap.add(victim.resource)
                break
            after = ask_queue.remaining_guaranteed()
            if before != after:
                extra.append(victim)
                passed_over.clear()
            else:
                ask_queue.remove(victim.resource)
                snap.add(victim.resource)
                passed_over.add(alike)
        else:
            snap.add(victim.resource)
            passed_over.add(alike)
    if extra:
        final = ask_queue.remaining_guaranteed()
        return extra, final is not None and _under_guaranteed(ask.resource, final)
    return [], True


def _less_key(victim: Ask) -> tuple[int, int]:
    """``compareAllocationLess``: originators and tasks that opt out of preemption last, then newest first."""
    score = (1 << 33 if victim.originator else 0) | (0 if victim.pod.allow_preempt_self else 1 << 34)
    return (score, -victim.created)


class VictimIndex:
    """The victims of one ``results``: by id (their queue's snapshot), by node in ``sortVictimsForPreemption`` order
    (``_victim_order``), the names of the nodes that have any (sorted), and every victim in ``_less_key`` order.
    Kept per ``results``: the attempts of asks alike share them, and a victim's node only changes with a release,
    which makes new ``results``. Each leaf's victims are grouped by node once for as long as its victims are the same
    list (``_leaf_victims`` keeps it while the leaf is unchanged); a node's victims in ``results`` order are those
    groups in ``results`` order, put together and sorted the first time an attempt looks at the node, the names of
    every node with victims and the ``_less_key`` order the first time they are needed: on a full cluster most
    attempts only look at the few nodes no other ask holds a reservation on."""

    def __init__(self, results: dict[str, QueueSnapshot], groups: dict[int, tuple[list[Ask], dict[str, list[Ask]]]]
                 | None = None) -> None:
        self._results = results
        known = groups if groups is not None else {}
        self._groups = [(snap, _groups_of(snap.victims, known)) for snap in results.values() if snap.victims]
        self._by_victim: dict[int, QueueSnapshot] | None = None
        self._grouped: dict[str, list[Ask]] | None = None  # every node's victims, once node_names is asked for
        self._ordered: dict[str, list[Ask] | None] = {}
        self._node_names: list[str] | None = None
        self._less_order: list[Ask] | None = None
        self._sizes: dict[tuple[str, str], list[int]] = {}
        self.owners: dict[int, QueueSnapshot] = {}  # the snapshot of each victim of the nodes looked at so far

    @property
    def node_names(self) -> list[str]:
        """The names of the nodes with victims, sorted."""
        return self.group_all()

    def group_all(self) -> list[str]:
        """Every victim grouped by node at once (for an attempt that looks at every node); the nodes' names."""
        if self._node_names is None:
            grouped: dict[str, list[Ask]] = {}
            for _, groups in self._groups:
                for node, victims in groups.items():
                    found = grouped.get(node)
                    if found is None:
                        grouped[node] = list(victims)
                    else:
                        found.extend(victims)
            self._grouped = grouped
            self._node_names = sorted(grouped)
        return self._node_names

    def _victims_of(self, node: str) -> list[Ask]:
        """The node's victims in ``results`` order (the order ``by_victim_list`` lists them in)."""
        if self._grouped is not None:
            return self._grouped.get(node, [])
        found: list[Ask] = []
        for _, groups in self._groups:
            victims = groups.get(node)
            if victims is not None:
                found.extend(victims)
        return found

    def on_node(self, node: str) -> list[Ask] | None:
        """The node's victims in ``_victim_order`` (a stable sort of them in ``results`` order), None: it has none."""
        if node in self._ordered:
            return self._ordered[node]
        grouped = self._victims_of(node)
        ordered = sorted(grouped, key=_victim_order) if grouped else None
        self._ordered[node] = ordered
        if grouped:
            owners = self.owners
            for snap, groups in self._groups:
                for victim in groups.get(node, ()):
                    owners[id(victim)] = snap
        return ordered

    @property
    def by_victim(self) -> dict[int, QueueSnapshot]:
        if self._by_victim is None:
            self._by_victim = {id(v): snap for snap in self._results.values() for v in snap.victims}
        return self._by_victim

    @property
    def less_order(self) -> list[Ask]:
        if self._less_order is None:
            self._less_order = sorted(by_victim_list(self._results), key=_less_key)
        return self._less_order

    def reach(self, node: str, resource_type: str) -> list[int]:
        """Running totals of the node's victims' amounts of one type, largest first (zeros left out): how much
        the first k of them could free at most (``_fewest_victims``)."""
        key = (node, resource_type)
        known = self._sizes.get(key)
        if known is None:
            sizes = sorted((v.resource.get(resource_type, 0) for v in self.on_node(node) or ()), reverse=True)
            known = list(itertools.accumulate(size for size in sizes if size > 0))
            self._sizes[key] = known
        return known


def _groups_of(victims: list[Ask], known: dict[int, tuple[list[Ask], dict[str, list[Ask]]]]) -> dict[str, list[Ask]]:
    """A leaf's victims by node, each node's in the list's order; kept by the list's id (the entry keeps the list
    alive, so the id is not reused meanwhile)."""
    found = known.get(id(victims))
    if found is not None and found[0] is victims:
        return found[1]
    groups: dict[str, list[Ask]] = {}
    for victim in victims:
        group = groups.get(victim.node)
        if group is None:
            groups[victim.node] = [victim]
        else:
            group.append(victim)
    if len(known) > 50_000:
        known.clear()
    known[id(victims)] = (victims, groups)
    return groups


def _victim_index(scheduler: SchedulerState, results: dict[str, QueueSnapshot]) -> VictimIndex:
    """The ``VictimIndex`` of ``results``, kept while ``results`` is (its entry keeps it alive: its id is not
    reused)."""
    cache = scheduler.victim_index
    known = cache.get(id(results))
    if known is not None and known[0] is results:
        return known[1]  # type: ignore[no-any-return]
    index = VictimIndex(results, scheduler.victim_groups)
    if len(cache) >= 8:  # victim sets only live until the next allocation or release: a few are enough
        cache.clear()
    cache[id(results)] = (results, index)
    return index


def _open_to(scheduler: SchedulerState, ask: Ask) -> list[str] | None:
    """The names of the nodes ``_reserved_for_other`` lets the ask look at, in name order, when they are few: the
    unreserved ones and its own. None when a reservation of a lower priority than the ask's is held (it may be old
    enough to be taken over) or when those nodes are more than a tenth of all: the caller then passes every node by
    in name order, which skips exactly the others (each reserved for an ask of the same or a higher priority)."""
    nodes = scheduler.p.nodes
    if any(priority < ask.priority for priority in nodes.reserver_priorities):
        return None
    names = set(nodes.unreserved)
    if ask.reserved_node:
        names.add(ask.reserved_node)
    if FEW_NODES * len(names) > len(nodes.by_name):
        return None
    return sorted(names)


def _cached_victims(scheduler: SchedulerState, ask: Ask) -> dict[str, QueueSnapshot]:
    """``eligible_victims``, shared by the attempts of asks alike (same leaf, priority, resource types and fence:
    the ask's size only matters through the fence, F1) while nothing is allocated or released: many asks of one
    queue fail the same way in one walk."""
    p = scheduler.p
    leaf = ask.app.queue
    assert leaf is not None
    priorities: dict[str, int] = {}
    fence = fence_root(scheduler, leaf, ask, priorities)
    key = (p.allocations, p.releases, leaf.path, ask.priority,
           tuple(sorted(n for n, v in ask.resource.items() if v)), fence.path)
    cached = scheduler.victim_cache.get(key)
    if cached is None:
        if len(scheduler.victim_cache) > 256:
            scheduler.victim_cache.clear()
        cached = _eligible_below(scheduler, ask, leaf, fence, priorities)
        scheduler.victim_cache[key] = cached
    # the snapshots carry the ask's own queue as AskQueue: the same for every ask of the leaf
    return cached  # type: ignore[return-value]


def by_victim_list(results: dict[str, QueueSnapshot]) -> list[Ask]:
    return [v for snap in results.values() for v in snap.victims]


def preconditions_pass(now: int, ask: Ask, leaf: Queue) -> bool:
    """E1-E4 ``CheckPreconditions`` pass: preemption may be tried (``preconditions`` without the reason)."""
    # (E4 first: an ask let out after its attempt failed is checked, the usual answer in a replay)
    return not ask.preempt_checked and ask.pod.allow_preempt_other and not ask.preempt_triggered \
        and now >= ask.created + leaf.settings.preemption_delay


def preconditions(now: int, ask: Ask, leaf: Queue) -> str:
    """E1-E4 ``CheckPreconditions``: "" when preemption may be tried, else the first that fails."""
    if preconditions_pass(now, ask, leaf):
        return ""
    if not ask.pod.allow_preempt_other:
        return "YK-E1: the pod's preemptionPolicy is Never"
    if ask.preempt_triggered:
        why = f"; {ask.preempt_short}" if ask.preempt_short else ""
        return f"YK-E2: the ask has already triggered preemption{why}"
    delay = leaf.settings.preemption_delay
    if now < ask.created + delay:
        return f"YK-E3: the ask is younger than the queue's preemption.delay ({props.format_duration(delay)})"
    return "YK-E4: preemption was tried for this ask in the last 15s"


def _reserved_for_other(now: int, node: Node, ask: Ask) -> bool:
    other = node.reserved_by
    if other is None or other is ask:
        return False
    old = now - other.created - RESERVATION_WAIT_TIMEOUT - 2_000_000_000 > RESERVATION_WAIT_TIMEOUT
    return not (other.priority < ask.priority and old and not other.preempt_triggered)
