"""yunikorn-core's pkg/scheduler/objects/preemption_queue_test.go (commit be3bb487), ported by hand to the engine's
QueueSnapshot: ``GetPreemptableResource`` and ``GetRemainingGuaranteedResource`` of each queue's preemption snapshot
for the guaranteed and allocated amounts the Go tables set; and preemption_test.go's two tables of
``isAskQueueUnderGuaranteed`` / ``isVictimQueueOverGuaranteed``. These are inner functions (no cluster outcome follows
from them alone), so they are checked through the engine's API rather than as whole clusters
(tests/conformance/data/yunikorn-ported/README.md).

The Go test builds the snapshots as ``createQPSCache`` does: the ask queue's first (its ancestors before it, none
of them knowing the ask queue yet), then every queue from the ask queue up to, but not including, root is told
the ask queue; then root, parent, child1 and child2, each new one told the ask queue when it is created.
"""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine import preemption
from kqctl.yunikorn.engine.preemption import QueueSnapshot

PARENTS = {"root": None, "root.parent": "root", "root.parent1": "root", "root.parent.child1": "root.parent",
           "root.parent.child2": "root.parent", "root.parent1.child3": "root.parent1"}
ROOT, PARENT, CHILD1, CHILD2, CHILD3 = ("root", "root.parent", "root.parent.child1", "root.parent.child2",
                                        "root.parent1.child3")
CHECKED = (ROOT, PARENT, CHILD1, CHILD2)


def snapshots(guaranteed: dict[str, Resource | None], allocated: dict[str, Resource | None],
              ask_path: str | None) -> dict[str, QueueSnapshot]:
    """``createQPSCache`` over the Go test's queue tree."""
    cache: dict[str, QueueSnapshot] = {}

    def make(path: str) -> QueueSnapshot:
        if path in cache:
            return cache[path]
        parent_path = PARENTS[path]
        parent = make(parent_path) if parent_path is not None else None
        snap = QueueSnapshot(path, parent, path.count(".") == 2, dict(allocated.get(path) or {}), {}, None,
                             guaranteed.get(path), ask_queue=cache.get(ask_path) if ask_path else None)
        cache[path] = snap
        return snap

    if ask_path:
        ask = make(ask_path)
        path: str | None = ask_path
        while path is not None and PARENTS[path] is not None:
            cache[path].ask_queue = ask
            path = PARENTS[path]
    for path in CHECKED:
        make(path)
    return cache


def first(n: int) -> Resource:
    return {"first": 5 * n}


def second(n: int) -> Resource:
    return {"second": 5 * n}


def both(f: int, s: int) -> Resource:
    return {"first": 5 * f, "second": 5 * s}


def _q(root: Any, parent: Any, child1: Any, child2: Any) -> dict[str, Any]:
    return {ROOT: root, PARENT: parent, CHILD1: child1, CHILD2: child2}


# TestGetPreemptableResource (preemption_queue_test.go:69): name, guaranteed, allocated, preemptable (None: zero)
PREEMPTABLE = [
    ("NoGuaranteedNoUsage", _q(None, None, None, None), _q(None, None, None, None), _q(None, None, None, None)),
    ("YesGuaranteedNoUsage", _q(first(2), first(1), second(1), first(1)), _q(None, None, None, None),
     _q(None, None, None, None)),
    ("GuaranteedSetUsageExceeded1", _q(None, first(1), None, None), _q(first(2), first(2), None, first(2)),
     _q(first(2), first(1), None, first(1))),
    ("GuaranteedSetUsageExceeded2", _q(first(2), first(1), second(1), first(1)),
     _q(first(2), first(2), None, first(2)), _q(None, first(1), None, first(1))),
    ("GuaranteedSetExactUsage", _q(first(2), first(1), second(1), first(1)),
     _q(both(2, 1), both(1, 1), second(1), first(1)), _q(second(1), second(1), None, None)),
    ("GuaranteedSetMixedUsage", _q(first(2), first(1), second(1), first(1)),
     _q(both(2, 2), both(1, 2), second(2), None), _q(second(2), second(2), second(1), None)),
]


def _nonzero(resource: Resource | None) -> Resource:
    """``resources.Equals`` / ``IsZero`` ignore types at zero."""
    return {name: value for name, value in (resource or {}).items() if value != 0}


@pytest.mark.parametrize(("name", "guaranteed", "allocated", "expected"), PREEMPTABLE,
                         ids=[case[0] for case in PREEMPTABLE])
def test_get_preemptable_resource_matches_yunikorn_core(name: str, guaranteed: dict[str, Any],
                                                         allocated: dict[str, Any], expected: dict[str, Any]) -> None:
    snaps = snapshots(guaranteed, allocated, None)
    got = {path: _nonzero(snaps[path].preemptable()) for path in CHECKED}
    assert got == {path: _nonzero(expected[path]) for path in CHECKED}


# TestGetRemainingGuaranteedResource (preemption_queue_test.go:266): the guaranteed and allocated sets it names
GUARANTEED1 = _q(first(2), first(1), second(1), first(1))
GUARANTEED2 = _q(first(2), both(1, 1), second(1), first(1))
ALLOCATED1 = _q(None, None, None, None)
ALLOCATED2 = _q(first(2), first(2), None, first(1))
ALLOCATED3 = _q(both(2, 1), both(1, 1), second(1), first(1))
ALLOCATED4 = _q(both(2, 2), both(1, 2), second(2), first(1))
ALLOCATED5 = _q(both(2, 2), both(1, 2), second(2), {"first": 2})
RES1 = (_q(first(2), None, second(1), None), ALLOCATED1, _q(first(2), first(2), both(2, 1), first(2)))
ZERO, MINUS = {"first": 0}, {"first": -5}

# (subtest, step, guaranteed, allocated, remaining: exact, None meaning nil)
REMAINING = [
    *[("AskQueueIsChild3", i, *step) for i, step in enumerate([
        RES1,
        (GUARANTEED1, ALLOCATED1, _q(first(2), first(1), both(1, 1), first(1))),
        (GUARANTEED1, ALLOCATED2, _q(ZERO, MINUS, {"first": -5, "second": 5}, MINUS)),
        (GUARANTEED1, ALLOCATED3, _q(ZERO, ZERO, {"first": 0, "second": 0}, ZERO)),
        (GUARANTEED1, ALLOCATED4, _q(ZERO, ZERO, {"first": 0, "second": -5}, ZERO)),
        (GUARANTEED2, ALLOCATED5, _q(ZERO, {"first": 0, "second": -5}, {"first": 0, "second": -5},
                                     {"first": 0, "second": -5})),
    ])],
    *[("AskQueueIsChild2", i, *step) for i, step in enumerate([
        RES1,
        (GUARANTEED1, ALLOCATED1, _q(first(2), None, second(1), first(1))),
        (GUARANTEED1, ALLOCATED2, _q(ZERO, None, second(1), ZERO)),
        (GUARANTEED1, ALLOCATED3, _q(ZERO, None, {"second": 0}, ZERO)),
        (GUARANTEED1, ALLOCATED4, _q(ZERO, None, {"second": -5}, ZERO)),
        (GUARANTEED2, ALLOCATED5, _q(ZERO, None, {"second": -5}, {"first": 3})),
    ])],
]
ASK_QUEUES = {"AskQueueIsChild3": CHILD3, "AskQueueIsChild2": CHILD2}


@pytest.mark.parametrize(("subtest", "step", "guaranteed", "allocated", "expected"), REMAINING,
                         ids=[f"{case[0]}-{case[1]}" for case in REMAINING])
def test_get_remaining_guaranteed_resource_matches_yunikorn_core(
        subtest: str, step: int, guaranteed: dict[str, Any], allocated: dict[str, Any],
        expected: dict[str, Any]) -> None:
    """``resources.DeepEquals``: nil only equals nil, and the types present must be the same."""
    snaps = snapshots(guaranteed, allocated, ASK_QUEUES[subtest])
    got = {path: snaps[path].remaining_guaranteed() for path in CHECKED}
    assert got == expected


# preemption_test.go's TestIsAskQueueUnderGuaranteed (275) and TestIsVictimQueueOverGuaranteed (299): the ask, the
# queue's remaining guaranteed, and what each function answers (under guaranteed, over guaranteed)
GUARANTEE_TYPES = [
    ("matching res types with +ve value", {"first": 1}, {"first": 10}, True, False),
    ("matching res types with zero value", {"first": 1}, {"first": 0}, True, False),
    ("matching res types with -ve value", {"first": 1}, {"first": -10}, False, True),
    ("matching res types, one -ve one +ve", {"first": 1, "second": 1}, {"first": 10, "second": -10}, False, True),
    ("matching +ve, non matching -ve", {"first": 1}, {"first": 10, "second": -10}, True, False),
    ("matching -ve, non matching +ve", {"first": 1}, {"first": -10, "second": 10}, False, True),
    ("matching +ve and non matching types", {"first": 1, "third": 1}, {"first": 10}, True, False),
    ("matching -ve and non matching types", {"first": 1, "third": 1}, {"first": -10}, False, True),
]


@pytest.mark.parametrize(("name", "ask", "remaining", "under", "over"), GUARANTEE_TYPES,
                         ids=[case[0] for case in GUARANTEE_TYPES])
def test_ask_under_and_victim_over_guaranteed_match_yunikorn_core(name: str, ask: Resource, remaining: Resource,
                                                                   under: bool, over: bool) -> None:
    """Only the ask's resource types count, a negative remaining meaning over guaranteed."""
    assert preemption._under_guaranteed(ask, remaining) is under
    assert preemption._victim_over_guaranteed(ask, remaining) is over
