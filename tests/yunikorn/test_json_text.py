"""``simulate -o json`` writes its report without the standard library's pure-Python indenting encoder: the
text must stay exactly what ``json.dumps(indent=2, ensure_ascii=False)`` writes, for every kind of value."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine.simulation import simulate
from kqctl.yunikorn.render.jsontext import dumps_indented
from kqctl.yunikorn.render.simulation import contract


class Level(enum.IntEnum):
    LOW = 1


CASES: list[tuple[str, Any]] = [
    ("scalars", {"s": "x", "i": -3, "big": 2**70, "t": True, "f": False, "n": None}),
    ("floats", [0.1, 1e-07, 1e22, -0.0, 0.999414, float("nan"), float("inf"), float("-inf")]),
    ("escapes and unicode", {"q\"uote": "back\\slash\n\ttab\u0001", "ünï": "日本 ✓", "": ""}),
    ("empty containers", {"d": {}, "l": [], "t": (), "nested": [[], {}, [{}]]}),
    ("nesting", {"a": [{"b": [1, [2, {"c": None}]]}], "tuple": (1, "two")}),
    ("top-level list", [1, "a", None]),
    ("top-level scalar", "just a string"),
    ("bool subclass values stay booleans", {"flag": True, "n": 1}),
    ("an int subclass goes to json.dumps", {"level": Level.LOW}),
    ("non-string keys go to json.dumps", {1: "one", None: "none", 2.5: "x", False: "f"}),
]


@pytest.mark.parametrize("data", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_simulate_json_text_is_json_dumps_indent_2(data: Any) -> None:
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_simulate_json_text_rejects_what_json_rejects() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})


def test_simulate_json_report_is_json_dumps_indent_2() -> None:
    """A real report: queues with nil limits and float shares, pods allocated and pending, events."""
    queues = """
partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {guaranteed: {vcore: 1}, max: {vcore: 2}}
          - name: b
"""
    pods = [pod(f"p{i}", queue="root.a" if i % 2 else "root.b", cpu="1", app=f"app-{i % 3}") for i in range(6)]
    result = simulate(snapshot(queues, node("n1", cpu="3"), *pods))
    data = contract(result)
    assert data["pods"] and data["events"]
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
