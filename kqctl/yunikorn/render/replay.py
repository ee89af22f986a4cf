"""A YuniKorn replay: tables, data and charts per application and queue path, on the shared replay renderer."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TextIO

from kqctl.k8s.quantity import format_resource_value
from kqctl.render.columns import TableOptions
from kqctl.render.replay import Units, render_timeline
from kqctl.replay.report import TimelineReport
from kqctl.yunikorn.render.common import amount


def _data(name: str, value: int) -> str:
    """An exact quantity as Kubernetes writes it (vcore is millicores: YuniKorn's cpu)."""
    return format_resource_value("cpu" if name == "vcore" else name, value)


def _display(name: str, value: int | Fraction) -> str:
    return amount(name, math.floor(value))


UNITS = Units(_data, _display)


def render_replay(report: TimelineReport, fmt: str, out: TextIO, view: TableOptions,
                  shown: Callable[[str], bool] | None = None) -> None:
    render_timeline(report, fmt, out, view, UNITS, shown)
