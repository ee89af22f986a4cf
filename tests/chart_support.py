"""A chart's structure read back from the SVG a command wrote: title, panels, axis labels, legend entries, how
many shapes each series drew, the note. Chart tests compare these, never pixels (kqctl.render.charts.IDS)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class ChartShape:
    title: str
    panels: int
    x_labels: list[str]
    y_labels: list[str]
    legend: list[str]
    series: Counter[str]  # series key -> shapes drawn (bars, markers, curves)
    note: str
    empty: str
    texts: list[str]  # every text of the chart (tick labels, bar labels...)


def _text(element: ET.Element | None) -> str:
    return "" if element is None else " ".join(t.text or "" for t in element.iter(f"{SVG}text")).strip()


def read_chart(path: str | Path) -> ChartShape:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    numbered = sorted(int(m.group(1)) for key in groups if (m := re.fullmatch(r"panel-(\d+)", str(key))))
    series: Counter[str] = Counter()
    for key in groups:
        match = re.fullmatch(r"series-(.+)-\d+-\d+", str(key))
        if match:
            series[match.group(1)] += 1
    legend = groups.get("legend")
    return ChartShape(
        title=_text(groups.get("chart-title")),
        panels=len(numbered),
        x_labels=[_text(groups.get(f"xlabel-{n}")) for n in numbered if f"xlabel-{n}" in groups],
        y_labels=[_text(groups.get(f"ylabel-{n}")) for n in numbered if f"ylabel-{n}" in groups],
        legend=[t.text or "" for t in legend.iter(f"{SVG}text")] if legend is not None else [],
        series=series,
        note=_text(groups.get("chart-note")),
        empty=_text(groups.get("chart-empty")),
        texts=[t.text or "" for t in root.iter(f"{SVG}text")],
    )
