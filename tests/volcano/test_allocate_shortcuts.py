"""A shortcut of allocate in a quiet incremental session (a replay's), checked against the way it replaced: the queues
let into the queue heap as the action starts found shape by shape (``allocate._hopeful_queues``) are those asking
queue by queue gives (``_may_place``); replays with the shortcut turned off come out the same."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from support import REPO

from kqctl.replay.durations import parse_distribution
from kqctl.volcano.engine import allocate
from kqctl.volcano.engine.framework import Session
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_timeline
from kqctl.volcano.replay.timeline import TimelineOptions
from tests.volcano.test_incremental_sessions import random_cluster
from tests.volcano.test_replay import START, snapshot_of


def _generated(placement: bool, actions: str | None) -> list[dict[str, Any]]:
    """A small cluster of benchmarks/generate_volcano.py (12 nodes, 5 queues, 60 groups): nodes fill up, so that shapes
    no node takes rule queues out."""
    spec = importlib.util.spec_from_file_location("generate_volcano", REPO / "benchmarks" / "generate_volcano.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    extra: dict[str, Any] = {}
    if actions is not None:
        extra["conf"] = module.CHART_CONF.replace('"enqueue, allocate, backfill"', f'"{actions}"')
    return module.generate(12, 5, 60, 4, placement=placement, **extra)["items"]  # type: ignore[no-any-return]


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
def test_replays_with_the_shortcut_are_those_without(monkeypatch: pytest.MonkeyPatch, name: str, seed: int) -> None:
    objects = _cluster(name, seed)
    fast = _replay(objects)
    monkeypatch.setattr(allocate, "_hopeful_queues", _queue_by_queue)
    assert _replay(objects) == fast
