"""Line charts for people who would rather look than read: SVG by hand (no dependency), PNG via matplotlib.

A :class:`Chart` is plain data (lines of (x, y) points, axis labels and tick formatters); the
scheduler-specific renderers decide what to draw. Coordinates are floats here only: the figures
they come from stay exact until they are drawn.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape as xml_escape

PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
           "#eeca3b", "#1f77b4", "#8c564b")
WIDTH, HEIGHT = 900, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 230, 40, 50  # the legend sits on the right
TICKS = 5


@dataclass(frozen=True)
class Line:
    label: str
    points: Sequence[tuple[float, float]]
    step: bool = True  # a step function (usage) rather than a polyline (a distribution)


@dataclass(frozen=True)
class Chart:
    title: str
    x_label: str
    y_label: str
    lines: Sequence[Line]
    x_max: float
    y_max: float
    x_format: Callable[[float], str] = field(default=lambda v: f"{v:g}")
    y_format: Callable[[float], str] = field(default=lambda v: f"{v:g}")
    note: str = ""


def has_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def svg(chart: Chart) -> str:
    """The chart as a standalone SVG document (integer pixel positions: stable output)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{xml_escape(chart.title)}</text>',
             *_axes(chart)]
    for i, line in enumerate(chart.lines):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{x},{y}" for x, y in _pixels(chart, line))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}">'
                     f'<title>{xml_escape(line.label)}</title></polyline>')
        y = TOP + 14 + i * 16
        parts.append(f'<rect x="{WIDTH - RIGHT + 16}" y="{y - 9}" width="12" height="3" fill="{colour}"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 32}" y="{y - 4}">{xml_escape(line.label)}</text>')
    if chart.note:
        parts.append(f'<text x="{LEFT}" y="{HEIGHT - 8}" fill="#555555">{xml_escape(chart.note)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _axes(chart: Chart) -> Iterator[str]:
    right, base = WIDTH - RIGHT, HEIGHT - BOTTOM
    for k in range(TICKS + 1):
        y = base - k * (base - TOP) // TICKS
        value = chart.y_max * k / TICKS
        yield f'<line x1="{LEFT}" y1="{y}" x2="{right}" y2="{y}" stroke="#dddddd"/>'
        yield f'<text x="{LEFT - 6}" y="{y + 4}" text-anchor="end">{xml_escape(chart.y_format(value))}</text>'
        x = LEFT + k * (right - LEFT) // TICKS
        label = xml_escape(chart.x_format(chart.x_max * k / TICKS))
        yield f'<text x="{x}" y="{base + 16}" text-anchor="middle">{label}</text>'
    yield f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#333333"/>'
    yield f'<line x1="{LEFT}" y1="{base}" x2="{right}" y2="{base}" stroke="#333333"/>'
    yield f'<text x="{(LEFT + right) // 2}" y="{base + 34}" text-anchor="middle">{xml_escape(chart.x_label)}</text>'
    yield (f'<text x="16" y="{(TOP + base) // 2}" text-anchor="middle" transform="rotate(-90 16 {(TOP + base) // 2})">'
           f'{xml_escape(chart.y_label)}</text>')


def _pixels(chart: Chart, line: Line) -> list[tuple[int, int]]:
    right, base = WIDTH - RIGHT, HEIGHT - BOTTOM
    x_scale = (right - LEFT) / chart.x_max if chart.x_max > 0 else 0.0
    y_scale = (base - TOP) / chart.y_max if chart.y_max > 0 else 0.0
    pixels: list[tuple[int, int]] = []
    for x, y in line.points:
        px, py = LEFT + round(x * x_scale), base - round(min(y, chart.y_max) * y_scale)
        if line.step and pixels:
            pixels.append((px, pixels[-1][1]))
        pixels.append((px, py))
    return pixels


def write_png(chart: Chart, path: str) -> None:
    """The same chart through matplotlib (an optional dependency: call :func:`has_matplotlib` first)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(WIDTH / 100, HEIGHT / 100))
    for i, line in enumerate(chart.lines):
        xs = [p[0] for p in line.points]
        ys = [min(p[1], chart.y_max) for p in line.points]
        if line.step:
            ax.step(xs, ys, where="post", color=PALETTE[i % len(PALETTE)], label=line.label, linewidth=1.2)
        else:
            ax.plot(xs, ys, color=PALETTE[i % len(PALETTE)], label=line.label, linewidth=1.2)
    ticks = [chart.x_max * k / TICKS for k in range(TICKS + 1)]
    ax.set_xticks(ticks, [chart.x_format(t) for t in ticks])
    y_ticks = [chart.y_max * k / TICKS for k in range(TICKS + 1)]
    ax.set_yticks(y_ticks, [chart.y_format(t) for t in y_ticks])
    ax.set_xlim(0, chart.x_max or 1)
    ax.set_ylim(0, chart.y_max or 1)
    ax.set_title(chart.title)
    ax.set_xlabel(chart.x_label + (f"\n{chart.note}" if chart.note else ""))
    ax.set_ylabel(chart.y_label)
    if chart.lines:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    figure.tight_layout()
    figure.savefig(path, format="png")
    plt.close(figure)
