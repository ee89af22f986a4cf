"""The scheduler remembers failed asks instead of retrying them every cycle (a large speed-up): on random
clusters it must take exactly the decisions of a scheduler that retries every ask on every cycle, as YuniKorn
does, allocation by allocation, reservation by reservation, preemption by preemption."""

from __future__ import annotations

import copy

import pytest
import yaml
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.partition import build_partition
from kqctl.yunikorn.load import build_snapshot


def _decisions(seed: int, remember: bool) -> list[tuple[str, str, str, tuple[str, ...]]]:
    text = yaml.safe_dump_all(cluster(seed))
    snapshot = build_snapshot(load_text(ALL_KINDS, text), NOW)
    scheduler = Scheduler(build_partition(copy.deepcopy(snapshot)), remember_failures=remember)
    return [(r.kind, r.ask.key, r.node, tuple(v.key for v in r.victims)) for r in scheduler.run(2000)]


@pytest.mark.parametrize("seed", range(60))
def test_remembered_failures_change_no_decision(seed: int) -> None:
    assert _decisions(seed, True) == _decisions(seed, False)


def test_the_random_clusters_exercise_reservations_and_preemption() -> None:
    kinds = {kind for seed in range(60) for kind, *_ in _decisions(seed, True)}
    assert {"allocated", "reserved", "preempted"} <= kinds
