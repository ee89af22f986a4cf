"""What a Volcano simulation returns: a frozen value the engine computed (the queue reports included), which
renderers, --fail-on and explain only read, as Kueue's SimulationResult."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kqctl.volcano.engine.simulation import SimulationResult
from tests.volcano.builders import conf, group, node, pod, queue, run

RECLAIM = conf("enqueue, allocate, reclaim", ["priority", "gang", "conformance"],
               ["overcommit", "drf", "predicates", "capacity", "nodeorder"])


def reclaimed() -> SimulationResult:
    """qx runs 8 cores of 10, above its deserved 4; qy's 3-core task reclaims one of them."""
    running = [obj for i in range(8) for obj in (group(f"x{i}", "qx", phase="Running"),
                                                  pod(f"x{i}", f"x{i}", cpu="1", memory="0", node_name="n1"))]
    return run(RECLAIM, node("n1", cpu="10", memory="100Gi"),  # type: ignore[arg-type]
               queue("qx", deserved={"cpu": "4"}, capability={"cpu": "8"}),
               queue("qy", deserved={"cpu": "6"}, capability={"cpu": "10"}, guarantee={"resource": {"cpu": "2"}}),
               *running, group("y0", "qy", phase="Pending", min_resources={"cpu": "3"}),
               pod("y0", "y0", cpu="3", memory="0"))


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(SimulationResult)])
def test_the_result_is_frozen(name: str) -> None:
    result = reclaimed()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, name, None)


@pytest.mark.parametrize("change", [
    lambda r: r.groups.__setitem__("ns/new", None),
    lambda r: setattr(r.groups["ns/y0"], "phase", "Pending"),
    lambda r: r.groups["ns/y0"].pods.__setitem__("ns/y0", ""),
    lambda r: setattr(r.evictions[0], "pod", "ns/other"),
    lambda r: setattr(r.queues[0], "weight", 5),
    lambda r: r.queues[0].phases.__setitem__("Running", 0),
    lambda r: r.phases.__setitem__("ns/y0", "Pending"),
    lambda r: r.reasons.__setitem__("ns/y0", ("gate", "text")),
    lambda r: setattr(r.configuration, "source", "elsewhere"),
])
def test_nothing_inside_the_result_can_be_changed(change: Any) -> None:
    with pytest.raises((dataclasses.FrozenInstanceError, TypeError, AttributeError)):
        change(reclaimed())


def test_the_engine_computed_everything_a_renderer_shows() -> None:
    result = reclaimed()
    assert not hasattr(result, "world") and not hasattr(result, "snapshot") and not hasattr(result, "last")
    assert [q.name for q in result.queues] == ["default", "qx", "qy", "root"]
    x = next(q for q in result.queues if q.name == "qx")
    assert (x.allocated.cpu, x.deserved is not None and x.deserved.cpu) == (7000, 4000)
    assert [(e.pod, e.group, e.by) for e in result.evictions] == [("ns/x7", "ns/x7", "ns/y0")]
    assert result.groups["ns/y0"].phase == "Running" and result.quota_plugin == "capacity"
    assert result.configuration.actions == ("enqueue", "allocate", "reclaim")
