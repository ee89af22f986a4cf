"""Two shortcuts of allocate in a quiet incremental session (a replay's), each checked against the way it replaced:
the queues let into the queue heap as the action starts found shape by shape (``allocate._hopeful_queues``) are those
asking queue by queue gives (``_may_place``), and proportion's P3 on the integer fill's numerators
(``_Deserved.admits``) and P2 (``_Deserved.covered_by``) answer as the comparisons on the deserved vector do; replays
with the shortcuts turned off come out the same."""

from __future__ import annotations

from typing import Any

import pytest
from volcano_generated import small_generated_cluster

from kqctl.replay.durations import parse_distribution
from kqctl.volcano.api.resource import Resource, exceeding_requested_dims, less_equal
from kqctl.volcano.engine import allocate
from kqctl.volcano.engine.framework import Session
from kqctl.volcano.engine.proportion import _Deserved
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_timeline
from kqctl.volcano.replay.timeline import TimelineOptions
from tests.volcano.test_incremental_sessions import random_cluster
from tests.volcano.test_replay import START, snapshot_of


def _generated(placement: bool, actions: str | None) -> list[dict[str, Any]]:
    """A small generated cluster: nodes fill up, so that shapes no node takes rule queues out."""
    return small_generated_cluster(placement, actions)["items"]  # type: ignore[no-any-return]


CLUSTERS = [("random-chart", 0), ("random-chart", 3), ("random-reclaim", 1), ("random-reclaim", 4),
            ("generated", 0), ("generated-placement", 0), ("generated-reclaim", 0)]


def _cluster(name: str, seed: int) -> list[dict[str, Any]]:
    if name.startswith("random-"):
        return random_cluster(seed, name.removeprefix("random-"))
    return _generated(name != "generated", "enqueue, allocate, reclaim, backfill" if name.endswith("reclaim") else None)


def _replay(objects: list[dict[str, Any]]) -> tuple[object, ...]:
    options = TimelineOptions(START, 1000, parse_distribution("lognormal(10m,0.8)"), 0)
    report, timeline = replay_timeline(snapshot_of(objects), VolcanoReplayOptions(options))
    return report, timeline.sessions, timeline.placements(), timeline.phases


MAY_PLACE = allocate._may_place


def _queue_by_queue(ssn: Session, waiting: Any, hopeless: Any) -> list[str]:
    """The queues as asking each waiting queue gives them, with verdicts of their own (a fresh ``_Hopeless``)."""
    fresh = allocate._Hopeless(ssn)
    return sorted(name for name in waiting.queues() if MAY_PLACE(ssn, ssn.queues[name], fresh))


@pytest.mark.parametrize(("name", "seed"), CLUSTERS)
def test_queues_found_shape_by_shape_are_those_asked_queue_by_queue(monkeypatch: pytest.MonkeyPatch, name: str,
                                                                    seed: int) -> None:
    shape_by_shape = allocate._hopeful_queues
    seen = {"sessions": 0, "let in": 0, "ruled out": 0}

    def both(ssn: Session, waiting: Any, hopeless: Any) -> list[str]:
        expected = _queue_by_queue(ssn, waiting, hopeless)
        found = shape_by_shape(ssn, waiting, hopeless)
        assert found == expected
        seen["sessions"] += 1
        seen["let in"] += len(found)
        seen["ruled out"] += len(waiting.queues()) - len(found)
        return found

    monkeypatch.setattr(allocate, "_hopeful_queues", both)
    _replay(_cluster(name, seed))
    assert seen["sessions"] and seen["let in"]
    if name.startswith("generated"):
        assert seen["ruled out"]


@pytest.mark.parametrize(("name", "seed"), CLUSTERS)
def test_p3_on_the_numerators_answers_as_on_the_deserved_vector(monkeypatch: pytest.MonkeyPatch, name: str,
                                                                seed: int) -> None:
    on_numerators = _Deserved.admits
    answers: dict[bool | None, int] = {True: 0, False: 0, None: 0}

    def both(self: _Deserved, allocated: Resource, request: Resource) -> bool | None:
        found = on_numerators(self, allocated, request)
        answers[found] += 1
        if found is not None:  # (queue_allocatable's comparison, on the vector made from the numerators)
            assert found == (not exceeding_requested_dims(allocated.clone().add(request), self, request))
        return found

    monkeypatch.setattr(_Deserved, "admits", both)
    _replay(_cluster(name, seed))
    assert answers[True] + answers[False]


@pytest.mark.parametrize(("name", "seed"), CLUSTERS)
def test_p2_on_the_numerators_answers_as_on_the_deserved_vector(monkeypatch: pytest.MonkeyPatch, name: str,
                                                                seed: int) -> None:
    on_numerators = _Deserved.covered_by
    answers: dict[bool | None, int] = {True: 0, False: 0, None: 0}

    def both(self: _Deserved, allocated: Resource) -> bool | None:
        found = on_numerators(self, allocated)
        answers[found] += 1
        if found is not None:  # (overused's comparison, on the vector made from the numerators)
            assert found == less_equal(self, allocated, "zero")
        return found

    monkeypatch.setattr(_Deserved, "covered_by", both)
    _replay(_cluster(name, seed))
    assert answers[False]


def test_p2_on_the_numerators_at_the_tolerance() -> None:
    """Volcano's 0.1 tolerance: a deserved above the allocation by less than 0.1 is covered, by 0.1 or more it is
    not; whole amounts compare as they are."""
    layout = ("nvidia.com/gpu",)
    for amounts, over, allocated, covered in (([30, 20, 0], 10, Resource(3, 2), True),
                                              ([299, 200, 0], 100, Resource(3, 2), True),
                                              ([309, 200, 0], 100, Resource(3, 2), True),  # 3.09: within 0.1
                                              ([310, 200, 0], 100, Resource(3, 2), False),  # 3.1: not
                                              ([31, 20, 0], 10, Resource(3, 2), False),
                                              ([39, 20, 0], 10, Resource(3, 2), False),
                                              ([61, 40, 1], 20, Resource(3, 2), True),
                                              ([61, 40, 3], 20, Resource(3, 2), False),  # 0.15 gpu against none
                                              ([30, 21, 0], 10, Resource(3, 2), False),
                                              ([30, 30, 0], 10, Resource(3, 2), False),
                                              ([30, 20, 2], 10, Resource(3, 2), False),
                                              ([30, 20, 2], 10, Resource(3, 2, {"nvidia.com/gpu": 1}), True)):
        deserved = _Deserved(layout, amounts, over)
        assert deserved.covered_by(allocated) is (less_equal(_Deserved(layout, amounts, over), allocated, "zero"))
        assert deserved.covered_by(allocated) is covered, (amounts, over)


@pytest.mark.parametrize(("name", "seed"), CLUSTERS)
def test_replays_with_the_shortcuts_are_those_without(monkeypatch: pytest.MonkeyPatch, name: str, seed: int) -> None:
    objects = _cluster(name, seed)
    fast = _replay(objects)
    monkeypatch.setattr(allocate, "_hopeful_queues", _queue_by_queue)
    monkeypatch.setattr(_Deserved, "admits", lambda self, allocated, request: None)
    monkeypatch.setattr(_Deserved, "covered_by", lambda self, allocated: None)
    assert _replay(objects) == fast
