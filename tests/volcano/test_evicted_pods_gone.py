"""VC-R4 between sessions: an evicted pod its job's policy deletes is gone from the cluster, though an earlier
session bound it. simulate's outcome must read the pods that are left (it raised KeyError on such clusters)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.volcano.engine.simulation import simulate
from kqctl.volcano.load import build_snapshot


def _generated(nodes: int, queues: int, groups: int, seed: int) -> str:
    spec = importlib.util.spec_from_file_location("generate_volcano", REPO / "benchmarks" / "generate_volcano.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    conf = module.CHART_CONF.replace('"enqueue, allocate, backfill"', '"enqueue, allocate, reclaim, backfill"')
    return json.dumps(module.generate(nodes, queues, groups, seed, conf=conf))


@pytest.mark.parametrize(("nodes", "queues", "groups", "seed"), [(20, 6, 100, 1), (30, 8, 150, 0), (30, 8, 150, 1)])
def test_simulate_reports_the_pods_left_after_reclaim_deleted_some_it_had_bound(nodes: int, queues: int, groups: int,
                                                                                seed: int) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, _generated(nodes, queues, groups, seed), "cluster.json"))
    result = simulate(snapshot)
    assert result.evictions  # reclaim evicted pods: the case at hand
    for group in result.groups.values():
        assert set(group.bound) <= set(group.pods)  # a pod reported bound is one of the group's pods now
