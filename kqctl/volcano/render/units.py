"""Volcano's amounts (milli-cores, bytes, milli-scalars, pods) as people and Kubernetes quantities write them."""

from __future__ import annotations

import math
from fractions import Fraction

from kqctl.volcano.api.resource import Amount, human_amount, to_quantity

UNLIMITED = "unlimited"


def _is_infinite(value: Amount) -> bool:
    return isinstance(value, float) and math.isinf(value)


def display(name: str, value: Amount) -> str:
    """A table cell for an amount a person set (capability, guarantee, a request): ``4``, ``500m``, ``12Gi``,
    ``2`` GPUs; ``unlimited``."""
    return human_amount(name, value)


def display_figure(name: str, value: Amount) -> str:
    """A table cell for a computed amount (deserved, real capability, allocated, pending): cpu rounded to three
    significant digits as every computed figure is (kqctl.k8s.units)."""
    return human_amount(name, value, figure=True)


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
