"""YK-PREEMPT: two preemption attempts answered without collecting victims, as the full queue guarantees check
(``checkPreemptionQueueGuarantees``) would answer them.

- ``over_own_guaranteed``: for a type its leaf guarantees, the ask does not fit the leaf's own guaranteed less its usage
  now, and with the ask added the leaf is over it: the check fails whatever victims there are (they are never on the
  ask's own leaf, F4).
- ``nothing_to_try``: the ask fits its queue's remaining guaranteed at the check's first look (the snapshots of its
  queue and ancestors only), so the check passes and, with no node to look at, the attempt does not help.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from yunikorn_build import benchmark_shape
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.engine import preemption
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.partition import build_partition
from kqctl.yunikorn.engine.queue import Queue
from kqctl.yunikorn.load import build_snapshot

GIB = 1 << 30


def _leaf(guaranteed: dict[str, int] | None, allocated: dict[str, int],
          preempting: dict[str, int] | None = None) -> Queue:
    queue = Queue(name="leaf", path="root.leaf", parent=None, leaf=True, managed=True)
    queue.guaranteed = guaranteed
    queue.allocated = allocated
    queue.preempting = preempting or {}
    return queue


@pytest.mark.parametrize(("guaranteed", "allocated", "preempting", "ask", "over"), [
    # at its guaranteed: one more core puts it over
    ({"vcore": 4000}, {"vcore": 4000}, None, {"vcore": 1000}, True),
    # room for the ask in its guaranteed
    ({"vcore": 4000}, {"vcore": 3000}, None, {"vcore": 1000}, False),
    # over in memory, a type the ask asks for
    ({"vcore": 4000, "memory": 8 * GIB}, {"vcore": 1000, "memory": 8 * GIB}, None, {"vcore": 1000, "memory": GIB},
     True),
    # pods is not guaranteed: no bound from the leaf itself (its ancestors and victims decide)
    ({"vcore": 4000}, {"vcore": 1000, "pods": 50}, None, {"vcore": 1000, "pods": 1}, False),
    # usage being preempted away does not count
    ({"vcore": 4000}, {"vcore": 4000}, {"vcore": 2000}, {"vcore": 1000}, False),
    # no guaranteed: nothing to be over
    (None, {"vcore": 4000}, None, {"vcore": 1000}, False),
    # a type the leaf has never used: its usage there is 0
    ({"nvidia.com/gpu": 1}, {"vcore": 1000}, None, {"nvidia.com/gpu": 2}, True),
])
def test_yk_preempt_over_own_guaranteed(guaranteed: dict[str, int] | None, allocated: dict[str, int],
                                        preempting: dict[str, int] | None, ask: dict[str, int], over: bool) -> None:
    assert preemption.over_own_guaranteed(_leaf(guaranteed, allocated, preempting), ask) is over


def _states(snapshots: list[Any]) -> list[tuple[Scheduler, Any]]:
    """Every pending ask at each of the first cycles of each snapshot, with its scheduler as it is then."""
    found: list[tuple[Scheduler, Any]] = []
    for snapshot in snapshots:
        scheduler = Scheduler(build_partition(snapshot))
        for _ in range(40):
            for ask in list(scheduler.p.asks.values()):
                if not ask.allocated and ask.app.queue is not None:
                    found.append((scheduler, ask))
            if scheduler.cycle() is None:
                break
    return found


def test_yk_preempt_the_shortcuts_answer_as_the_full_guarantees_check() -> None:
    """On random clusters and the benchmark's shape, at every cycle, for every pending ask: when an attempt ends
    without victims, the full check (the victims collected and removed) agrees."""
    snapshots = [build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW) for seed in range(12)]
    snapshots += [benchmark_shape(seed) for seed in range(2)]
    answered = {"over": 0, "nothing to try": 0}
    for scheduler, ask in _states(snapshots):
        leaf = ask.app.queue
        over = preemption.over_own_guaranteed(leaf, ask.resource)
        fits = preemption.nothing_to_try(leaf, ask)
        if not (over or fits):
            continue
        results, _ = preemption.eligible_victims(scheduler, ask)
        assert preemption.check_guarantees(results, ask, leaf.path) is not over
        assert not (over and fits)
        answered["over" if over else "nothing to try"] += 1
    assert all(count > 20 for count in answered.values()), answered


@pytest.mark.parametrize("allow", [True, False])
@pytest.mark.parametrize("triggered", [True, False])
@pytest.mark.parametrize("age_s", [0, 29, 30, 31])
@pytest.mark.parametrize("checked", [True, False])
def test_yk_e1_to_e4_preconditions_pass_exactly_when_no_reason_is_given(allow: bool, triggered: bool, age_s: int,
                                                                        checked: bool) -> None:
    """``preconditions_pass`` (the replay's test, no reason written) is ``preconditions`` answering "" (a 30 s
    preemption.delay: younger, exactly as old, older)."""
    from dataclasses import replace

    scheduler = Scheduler(build_partition(build_snapshot(
        load_text(ALL_KINDS, yaml.safe_dump_all(cluster(0), sort_keys=False)), NOW)))
    ask = next(a for a in scheduler.p.asks.values() if a.app.queue is not None)
    leaf = ask.app.queue
    assert leaf is not None
    leaf.settings = replace(leaf.settings, preemption_delay=30 * 10**9)
    ask.pod = replace(ask.pod, allow_preempt_other=allow)
    ask.preempt_triggered, ask.preempt_checked = triggered, checked
    now = ask.created + age_s * 10**9
    reason = preemption.preconditions(now, ask, leaf)
    assert preemption.preconditions_pass(now, ask, leaf) is (reason == "")
    assert reason == "" or reason.startswith("YK-E")
