"""The node choice of a quiet session (a replay's) judges a shape's changed nodes when the shape is read, from a log of
the nodes that may have changed and their versions (kqctl/volcano/engine/nodes.py): the replay comes out as when every
node is judged for every shape as it changes, as it did before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from volcano_generated import small_generated_cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from kqctl.volcano.engine.framework import NodeInfo
from kqctl.volcano.engine.nodes import NodeChooser
from kqctl.volcano.load import build_snapshot
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_snapshot
from kqctl.volcano.replay.timeline import TimelineOptions
from tests.volcano.test_replay import START, times

ACTIONS = "enqueue, allocate, reclaim, backfill"


def _cluster(placement: bool, actions: str | None) -> str:
    """A small generated cluster: few nodes, so that the log outgrows them and the indexes no session reads fold it."""
    return json.dumps(small_generated_cluster(placement, actions))


def _replay(text: str) -> dict[str, Any]:
    snapshot = build_snapshot(load_text(ALL_KINDS, text, "cluster.json"))
    options = TimelineOptions(START, 1000, parse_distribution("lognormal(5m,1.0)"), 0)
    report = replay_snapshot(snapshot, VolcanoReplayOptions(options))
    return {"times": times(report), "evictions": [(e.at, e.pod, e.by, e.outcome) for e in report.evictions]}


@pytest.mark.parametrize(("placement", "actions"), [(False, None), (True, None), (True, ACTIONS)])
def test_judging_when_read_replays_as_judging_when_changed(monkeypatch: pytest.MonkeyPatch, placement: bool,
                                                          actions: str | None) -> None:
    text = _cluster(placement, actions)
    lazy = _replay(text)
    logged, opened = NodeChooser.changed, NodeChooser._open

    def changed(self: NodeChooser, node: NodeInfo) -> None:  # every index judges the node now, as before
        logged(self, node)
        for index in self.shapes.values():
            index.sync()

    def open_now(self: NodeChooser, stale: list[str]) -> None:
        opened(self, stale)
        for index in self.shapes.values():
            index.sync()

    monkeypatch.setattr(NodeChooser, "changed", changed)
    monkeypatch.setattr(NodeChooser, "_open", open_now)
    assert _replay(text) == lazy
    assert lazy["times"]
