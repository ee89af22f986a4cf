"""REQ-7: Kueue's resource transformations (``resources.transformations`` in its Configuration)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from kqctl.k8s.quantity import QuantityError, parse_quantity

Resources = dict[str, int]


def _scale(resource: str) -> int:
    return 1000 if resource == "cpu" else 1  # QTY-5: cpu is held in milli-units


def apply_transformations(requests: Resources, transformations: Sequence[Mapping[str, Any]]) -> Resources:
    """Inputs produce outputs (x their factor, x the multiplyBy resource); Replace drops the input."""
    retained = dict(requests)
    generated: dict[str, Fraction] = {}
    for rule in transformations:
        source = rule.get("input")
        if not isinstance(source, str) or source not in requests:
            continue
        amount = Fraction(requests[source], _scale(source)) * _multiplier(rule, requests)
        for output, factor in _outputs(rule).items():
            generated[output] = generated.get(output, Fraction(0)) + amount * factor
        if rule.get("strategy") == "Replace":
            retained.pop(source, None)
    for output, total in generated.items():
        value = max(0, math.ceil(total * _scale(output)))
        retained[output] = retained.get(output, 0) + value
    return retained


def _multiplier(rule: Mapping[str, Any], requests: Resources) -> Fraction:
    by = rule.get("multiplyBy")
    if isinstance(by, str) and by in requests:
        return Fraction(requests[by], _scale(by))
    return Fraction(1)


def _outputs(rule: Mapping[str, Any]) -> dict[str, Fraction]:
    outputs = rule.get("outputs")
    result: dict[str, Fraction] = {}
    if not isinstance(outputs, Mapping):
        return result
    for name, raw in outputs.items():
        try:
            result[str(name)] = parse_quantity(raw).value
        except (QuantityError, TypeError, ValueError):
            continue
    return result
