"""YK-RESERVE: when a node's reservation ends, old asks without a reservation that fit the node by size are let through
to reserve it (``SchedulerState.node_unreserved``). kqctl applies such a release to a leaf's asks only when the walk, or
anything that reads or changes them, gets to the leaf, and drops what was not applied once every node is reserved
again. It must decide exactly as applying every release to every leaf at once: same cycles, same reasons, same asks
blocked, on random clusters and on the benchmark's shape (full nodes, every one reserved, thousands of asks waiting)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from yunikorn_build import benchmark_shape
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.objects import Node
from kqctl.yunikorn.engine.partition import build_partition
from kqctl.yunikorn.load import build_snapshot


class _SettledAtOnce(Scheduler):
    """Every release applied to every leaf when it happens (what kqctl did before the releases were settled lazily)."""

    def node_unreserved(self, node: Node) -> None:
        super().node_unreserved(node)
        self._settle_all()


def _outcome(snapshot: Snapshot, scheduler: type[Scheduler]) -> tuple[Any, ...]:
    partition = build_partition(copy.deepcopy(snapshot))
    results = scheduler(partition).run(3000)
    decisions = [(r.kind, r.ask.key, r.node, tuple(v.key for v in r.victims)) for r in results]
    asks = sorted((ask.key, ask.node, ask.reserved_node, ask.blocked, ask.failure) for ask in partition.asks.values())
    return decisions, asks


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_yk_reserve_a_release_settled_leaf_by_leaf_decides_as_settled_at_once(seed: int) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    assert _outcome(snapshot, Scheduler) == _outcome(snapshot, _SettledAtOnce)


@pytest.mark.parametrize("seed", [0, 3])
def test_yk_reserve_the_benchmark_s_releases_settled_leaf_by_leaf_decide_as_settled_at_once(seed: int) -> None:
    snapshot = benchmark_shape(seed)
    lazy = _outcome(snapshot, Scheduler)
    assert lazy == _outcome(snapshot, _SettledAtOnce)
    assert {"reserved", "allocated-reserved", "preempted"} <= {kind for kind, *_ in lazy[0]}  # reservations end here
