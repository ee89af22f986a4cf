"""A Volcano replay: tables, data and charts in Volcano's words, on the shared replay renderer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from kqctl.render.columns import TableOptions
from kqctl.render.replay import Units, render_timeline
from kqctl.replay.report import TimelineReport
from kqctl.volcano.render.units import display, quantity

UNITS = Units(quantity, display)


def render_replay(report: TimelineReport, fmt: str, out: TextIO, view: TableOptions,
                  shown: Callable[[str], bool] | None = None) -> None:
    render_timeline(report, fmt, out, view, UNITS, shown)
