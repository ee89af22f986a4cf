"""The indenting JSON writer every large report goes through (validate -o json and sarif, YuniKorn's simulate -o
json): its text must be exactly what ``json.dumps(indent=2, ensure_ascii=...)`` writes, for every kind of value,
or json's own error."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from kqctl.k8s.scalars import LiteralFloat
from kqctl.render.jsontext import dumps_indented, indented_text


class Level(enum.IntEnum):
    LOW = 1


class Text(str):
    pass


class Ordered(dict):  # type: ignore[type-arg]
    pass


CASES: list[tuple[str, Any]] = [
    ("scalars", {"s": "x", "i": -3, "big": 2**70, "t": True, "f": False, "n": None}),
    ("floats", [0.1, 1e-07, 1e22, -0.0, 0.999414, 1.5, float("nan"), float("inf"), float("-inf")]),
    ("escapes and unicode", {"q\"uote": "back\\slash\n\ttab\u0001", "ünï": "日本 ✓ 😀 \u2028", "": "", "d": "\x7f"}),
    ("empty containers", {"d": {}, "l": [], "t": (), "nested": [[], {}, [{}]]}),
    ("nesting", {"a": [{"b": [1, [2, {"c": None}]]}], "tuple": (1, "two")}),
    ("top-level list", [1, "a", None]),
    ("top-level scalar", "just a string"),
    ("an int subclass is written as its int", {"level": Level.LOW}),
    ("a str subclass as its text, as value and as key", {Text("k"): Text("v")}),
    ("a float subclass as its float", {"literal": LiteralFloat("1.50")}),
    ("a dict subclass as a dict", {"o": Ordered(a=1, b=[Ordered()])}),
    ("non-string keys go to json.dumps", {1: "one", None: "none", 2.5: "x", False: "f"}),
]


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("data", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_text_is_json_dumps_indent_2(data: Any, ensure_ascii: bool) -> None:
    assert dumps_indented(data, ensure_ascii) == json.dumps(data, indent=2, ensure_ascii=ensure_ascii) + "\n"


@pytest.mark.parametrize("data", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_nested_value_is_written_as_json_dumps_writes_it_at_that_depth(data: Any) -> None:
    whole = json.dumps({"outer": {"value": data}}, indent=2)
    assert whole == '{\n  "outer": {\n    "value": ' + indented_text(data, "\n    ") + "\n  }\n}"


def test_what_json_rejects_is_rejected() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})
