"""Plain versions of what the YuniKorn engine does faster, as YuniKorn's core does it: the tests check the engine
takes the same decisions.

- ``check_guarantees_stepwise``: ``checkPreemptionQueueGuarantees`` removing victims one by one, looking after
  each (the engine removes them all and looks once, and answers some attempts without collecting victims).
- ``ReferenceScheduler``: retries every ask on every cycle (``remember_failures=False``), tries nodes one by one
  in the full sorted order (the engine skips blocks of nodes with no room), checks guarantees step by step and
  keeps none of preemption's memos.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from kqctl.yunikorn.engine import preemption
from kqctl.yunikorn.engine.allocation import Scheduler, describe_no_node
from kqctl.yunikorn.engine.nodes import predicates_pass
from kqctl.yunikorn.engine.objects import Ask, Node
from kqctl.yunikorn.engine.partition import RESERVATION_DELAY, Partition
from kqctl.yunikorn.engine.state import RESERVED, CycleResult


def check_guarantees_stepwise(results: dict[str, preemption.QueueSnapshot], ask: Ask, ask_path: str) -> bool:
    copies = preemption.Copies(results)
    current = copies.get(ask_path)
    if current is None:
        return False
    remaining = current.remaining_guaranteed()
    if remaining is not None and all(remaining.get(name, 0) >= value for name, value in ask.resource.items()
                                     if name in remaining):
        return True
    current.add(ask.resource)
    for path, original in results.items():
        if not original.victims:
            continue
        snap = copies.get(path)
        assert snap is not None
        for victim in snap.victims:
            snap.remove(victim.resource)
            left = current.remaining_guaranteed()
            if left is not None and preemption._under_guaranteed(ask.resource, left):
                return True
    return False


@contextmanager
def stepwise_guarantees() -> Iterator[None]:
    """Every attempt checks the queue guarantees step by step: none answered without its victims
    (``over_own_guaranteed``, ``nothing_to_try``)."""
    fast = preemption.check_guarantees, preemption.over_own_guaranteed, preemption.nothing_to_try
    preemption.check_guarantees = check_guarantees_stepwise  # type: ignore[assignment]
    preemption.over_own_guaranteed = lambda leaf, ask: False  # type: ignore[assignment]
    preemption.nothing_to_try = lambda leaf, ask: False  # type: ignore[assignment]
    try:
        yield
    finally:
        preemption.check_guarantees, preemption.over_own_guaranteed, preemption.nothing_to_try = fast  # type: ignore[assignment]


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memo that never keeps anything: every lookup misses, so the work is done again each time."""

    def __setitem__(self, key: object, value: object) -> None:
        return None


class ReferenceScheduler(Scheduler):
    def __init__(self, partition: Partition) -> None:
        super().__init__(partition, remember_failures=False)
        # preemption's memos (failed attempts, eligible victims, guarantee checks, victim indexes, leaf victims,
        # F3 per leaf, victims per unchanged subtree):
        # the reference works everything out again, so the tests check the memos change no decision
        self.failed_attempts = _Forgetful()
        self.victim_cache = _Forgetful()
        self.guarantee_cache = _Forgetful()
        self.victim_index = _Forgetful()
        self.leaf_victims = _Forgetful()
        self.within_guaranteed = _Forgetful()
        self.subtree_victims = _Forgetful()

    def try_nodes(self, ask: Ask) -> CycleResult | None:
        best: Node | None = None
        best_score = math.inf
        may_reserve = not ask.reserved_node and self.p.ask_age(ask) > RESERVATION_DELAY
        counts = {"unschedulable": 0, "too small": 0, "full": 0, "predicates": 0}
        predicate_reason = ""
        for node in self.p.nodes.iterate(unreserved=True):
            if not node.schedulable:
                counts["unschedulable"] += 1
                continue
            if not node.fits_total(ask.resource):
                counts["too small"] += 1
                continue
            if node.fits_available(ask.resource):
                why = predicates_pass(ask.pod, node)
                if not why:
                    return self._allocate(ask, node)
                counts["predicates"] += 1
                predicate_reason = predicate_reason or why
            else:
                counts["full"] += 1
            if may_reserve:
                score = node.fit_in_score(ask.resource)
                if score < best_score:
                    best, best_score = node, score
        ask.failure = ask.no_node = describe_no_node(counts, predicate_reason, len(self.p.nodes.by_name))
        if best is not None and best.reserved_by is None and not predicates_pass(ask.pod, best):
            self.p.reserve(ask, best)
            self.reserved.append(ask)
            assert ask.app.queue is not None
            self._changed(ask.app.queue)
            return CycleResult(RESERVED, ask, best.name)
        return None

    def try_reserved_allocate(self) -> CycleResult | None:
        for ask in sorted(self.reserved, key=lambda a: (a.app.app_id, a.key)):
            if ask.allocated or ask not in self.reserved:
                continue
            queue = ask.app.queue
            assert queue is not None
            room = self.p.headroom(queue)
            user_room, _ = self.p.limits.headroom(queue.path, ask.app.user, ask.app.group)
            from kqctl.yunikorn.api import resources as res
            if not (res.fit_in_max_undef(user_room, ask.resource) and res.fit_in_max_undef(room, ask.resource)):
                continue
            node = self.p.nodes.by_name[ask.reserved_node]
            if node.fits_available(ask.resource) and not predicates_pass(ask.pod, node):
                return self._allocate(ask, node)
            for other in self.p.nodes.iterate(unreserved=True):
                if other.schedulable and other.fits_total(ask.resource) and other.fits_available(ask.resource) \
                        and not predicates_pass(ask.pod, other):
                    return self._allocate(ask, other)
        return None
