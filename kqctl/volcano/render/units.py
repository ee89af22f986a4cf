"""Volcano's amounts (milli-cores, bytes, milli-scalars, pods) as people and Kubernetes quantities write them."""

from __future__ import annotations

import math
from fractions import Fraction

from kqctl.render.units import human
from kqctl.volcano.api.resource import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Amount, to_quantity

UNLIMITED = "unlimited"


def _is_infinite(value: Amount) -> bool:
    return isinstance(value, float) and math.isinf(value)


def _floor(value: Amount) -> int:
    return math.floor(value) if isinstance(value, (Fraction, float)) else value


def display(name: str, value: Amount) -> str:
    """A table cell: ``4``, ``500m``, ``12Gi``, ``2`` GPUs; ``unlimited``; divided amounts rounded down."""
    if _is_infinite(value):
        return UNLIMITED
    if name == CPU:
        return human(CPU, _floor(value))
    if name in (MEMORY, PODS):
        return human(name, _floor(value))
    units = Fraction(value) / 1000  # scalars are milli-units in Volcano
    if name == EPHEMERAL_STORAGE:
        return human(name, math.floor(units))
    if units.denominator == 1:
        return human(name, int(units))
    return human("cpu", math.floor(units * 1000))  # a fraction of a device: 500m


def quantity(name: str, value: Amount) -> str:
    """A Kubernetes quantity string for json/yaml (``unlimited`` for an unlimited dimension)."""
    return to_quantity(name, value)


def ratio(value: Amount) -> str:
    """A share as a decimal with up to three places (``0.5``, ``1.333``)."""
    if _is_infinite(value):
        return UNLIMITED
    thousandths = math.floor(Fraction(value) * 1000 + Fraction(1, 2))
    whole, rest = divmod(thousandths, 1000)
    return f"{whole}.{rest:03d}".rstrip("0").rstrip(".") if rest else str(whole)
