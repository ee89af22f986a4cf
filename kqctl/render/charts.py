"""Charts for people who would rather look than read: one library (matplotlib) for every chart of every
scheduler, SVG and PNG from the same drawing code.

A chart is plain data here: a :class:`QuotaChart` (per resource, one horizontal bar per queue: what it uses,
stacked, against its limits) or a :class:`TimeChart` (curves over time, as small multiples or on one axes).
The scheduler's renderer decides what to draw, in its own words; this module decides how, the same way for
all: axes with units and tick values, a legend entry for every colour drawn and none for a colour that is not,
titles and labels never clipped (the figure grows to hold them), and a note in place of the picture when there
is nothing to draw. Amounts stay exact integers until they are drawn; floats exist only as coordinates.

Rendering is deterministic (fixed ``svg.hashsalt``, no date in the metadata, text kept as text in SVG) so that
two runs write byte-identical files and tests can read a chart's structure: every panel, axis label, series
and the legend carry an SVG ``id`` (see :data:`IDS`).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:  # matplotlib is imported only when a chart is drawn: every other command starts faster
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SUFFIXES = (".svg", ".png")
#: SVG ids a chart's parts carry: ``{n}`` is the panel's index, ``{key}`` a series key, ``{at}`` what makes the id
#: unique (the bar's row): a test counts a series' shapes by the id's prefix.
IDS = {"title": "chart-title", "panel": "panel-{n}", "xlabel": "xlabel-{n}", "ylabel": "ylabel-{n}",
       "series": "series-{key}-{n}-{at}", "legend": "legend", "note": "chart-note", "empty": "chart-empty"}
MAX_ROWS = 40  # bars per panel: beyond that a chart shows nothing a person can read (-o json has every queue)
MAX_PANELS = 12  # small multiples per chart
WIDTH = 9.0  # inches; the height follows the content
ROW_HEIGHT = 0.32  # inches per bar
DPI = 100
_STYLE: dict[str, Any] = {
    "svg.hashsalt": "kqctl",  # stable ids for clip paths and the like: identical runs, identical files
    "svg.fonttype": "none",  # text stays text (searchable, smaller, and what the tests read)
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # shipped with matplotlib: the same metrics everywhere
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "figure.titlesize": 12.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": True,  # (the default) fewer vertices for long curves: smaller files
}
_METADATA = {".svg": {"Date": None, "Creator": "kqctl"}, ".png": {"Software": "kqctl"}}
Kind = Literal["cpu", "bytes", "count"]  # how a panel's amounts are counted: milli-cores, bytes, whole units
Amount = int | Fraction


class ChartError(ValueError):
    """The chart cannot be written as asked (an unknown suffix)."""


def check_path(path: str | Path, option: str = "--plot") -> str:
    """The chart's format from its file name (``svg`` or ``png``); a usage error before any work otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ChartError(f"{option} {str(path)!r}: the file name must end in .svg or .png")
    return suffix


# --- quota charts: per resource, one bar per queue --------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One colour of a chart: its legend entry, and how it is drawn.

    ``stack``: a bar segment, drawn end to end with the row's other stacked segments from 0; ``marker``: a
    vertical tick across the bar (a limit such as a nominal quota); ``ceiling``: a light bar behind the others
    (the most the queue can ever hold), across the whole axes when unlimited.
    """

    key: str
    label: str
    colour: str
    role: Literal["stack", "marker", "ceiling"]
    hatch: str = ""


@dataclass(frozen=True)
class QuotaRow:
    """One queue (or queue and flavor) in one resource. ``ceiling`` ``(key, None)`` is unlimited."""

    label: str
    stack: tuple[tuple[str, Amount], ...] = ()
    markers: tuple[tuple[str, Amount], ...] = ()
    ceiling: tuple[str, Amount | None] | None = None


@dataclass(frozen=True)
class QuotaPanel:
    """The bars of one resource; ``kind`` says how its amounts are counted."""

    resource: str
    kind: Kind
    rows: tuple[QuotaRow, ...]


@dataclass(frozen=True)
class QuotaChart:
    title: str
    rows_are: str  # what one bar is, for the axis and the command's message: "ClusterQueue · flavor", "queue"
    series: tuple[Series, ...]
    panels: tuple[QuotaPanel, ...]
    empty: str  # why nothing is drawn, when nothing is: "no ClusterQueue has quota"
    note: str = ""


# --- time charts -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curve:
    label: str
    points: Sequence[tuple[float, float]]  # (x, y) in the chart's display units (seconds, percent)
    step: bool = True  # a step function (usage over time) rather than a polyline (a distribution)


@dataclass(frozen=True)
class TimeChart:
    title: str
    x_label: str
    y_label: str
    curves: tuple[Curve, ...]
    x_max: float
    y_max: float
    x_format: Callable[[float], str] = field(default=lambda v: f"{v:g}")
    y_format: Callable[[float], str] = field(default=lambda v: f"{v:g}")
    x_durations: bool = False  # x is in seconds: ticks at round durations (1m, 15m, 1h, 1d), not at 1000 s
    small_multiples: bool = False  # one panel per curve (curves that would lie on top of each other)
    reference: tuple[float, str] | None = None  # a dashed horizontal line: (y, legend label)
    curve_label: str = ""  # the legend entry of the curves in small multiples
    note: str = ""
    empty: str = "nothing to draw"


Chart = QuotaChart | TimeChart


def is_empty(chart: Chart) -> bool:
    if isinstance(chart, QuotaChart):
        return not any(panel.rows for panel in chart.panels)
    return not chart.curves


def describe(chart: Chart) -> str:
    """What the chart shows, for the command's "wrote ..." line."""
    if is_empty(chart):
        return f"nothing drawn: {chart.empty}"
    if isinstance(chart, QuotaChart):
        panels = [p for p in chart.panels if p.rows]
        rows = max(len(p.rows) for p in panels)
        shown = f"{min(rows, MAX_ROWS)} of {rows}" if rows > MAX_ROWS else f"{rows}"
        return f"{', '.join(p.resource for p in panels)} per {chart.rows_are} ({shown} bar(s) per panel)"
    kind = "panel(s)" if chart.small_multiples else "curve(s)"
    return f"{min(len(chart.curves), MAX_PANELS) if chart.small_multiples else len(chart.curves)} {kind}"


def write_chart(chart: Chart, path: str | Path) -> None:
    """Draw ``chart`` and write it as SVG or PNG (by the file name's suffix)."""
    suffix = check_path(path)
    import matplotlib

    with matplotlib.rc_context(cast(Any, _STYLE)):
        figure = draw(chart)
        drawn = io.BytesIO()
        figure.savefig(drawn, format=suffix[1:], dpi=DPI, metadata=_METADATA[suffix], bbox_inches="tight",
                       pad_inches=0.15, facecolor="white")
    content = drawn.getvalue()
    Path(path).write_bytes(_numbered_ids(content.decode("utf-8")).encode("utf-8") if suffix == ".svg" else content)


# matplotlib names an SVG clip path (and hatch pattern, marker) by a hash of its content: for a clip rectangle, of
# its bounds' full float repr (backend_svg.RendererSVG._get_clip_attrs, _make_id). The constrained layout can land
# a bound 1e-14 away from the last run's when the process drew another chart before (tests do; replay --plot draws
# several), which renamed every clip path. Ids numbered in the order they appear are the same whenever the drawing is.
_HASHED_ID = re.compile(r'\bid="([a-z])([0-9a-f]{10})"')


def _numbered_ids(svg: str) -> str:
    names: dict[str, str] = {}
    for match in _HASHED_ID.finditer(svg):
        names.setdefault(match.group(1) + match.group(2), f"{match.group(1)}{len(names)}")
    if not names:
        return svg
    used = re.compile(r"\b(" + "|".join(names) + r")\b")
    return used.sub(lambda match: names[match.group(1)], svg)


def draw(chart: Chart) -> Figure:
    """The matplotlib figure of a chart (no pyplot: no global state, nothing left open)."""
    if is_empty(chart):
        figure, body = _frame(chart.title, [], 1.2, "")
        ax = body.add_subplot()
        ax.set_axis_off()
        ax.text(0.5, 0.5, f"Nothing to draw: {chart.empty}.", ha="center", va="center", fontsize=11,
                color="#555555", gid=IDS["empty"])
        return figure
    if isinstance(chart, QuotaChart):
        return _draw_quota(chart)
    return _draw_time(chart)


HEAD = 0.8  # inches above the panels: the title, and the legend under it
FOOT = 0.35  # inches under the panels for a note


def _frame(title: str, handles: Sequence[Any], body: float, note: str) -> tuple[Figure, Any]:
    """A figure in three bands, so nothing overlaps whatever the content: the title and the legend (one entry
    per colour drawn), the panels (returned, a subfigure to draw in), and the note."""
    from matplotlib.figure import Figure

    bands = [HEAD, body] + ([FOOT] if note else [])
    figure = Figure(figsize=(WIDTH, sum(bands)), layout="constrained")
    parts: Any = figure.subfigures(len(bands), 1, height_ratios=bands)
    head = parts[0]
    head.text(0.5, 0.92, title, ha="center", va="top", fontsize=12, fontweight="bold", gid=IDS["title"])
    if handles:
        head.legend(handles=handles, loc="lower center", ncols=min(len(handles), 4), frameon=False,
                    bbox_to_anchor=(0.5, 0.0)).set_gid(IDS["legend"])
    if note:
        parts[2].text(0.5, 0.5, note, ha="center", va="center", fontsize=8, color="#555555", gid=IDS["note"])
    return figure, parts[1]


# --- drawing quota charts --------------------------------------------------------------------------------------


def unit_of(kind: Kind, top: Amount) -> tuple[Amount, str]:
    """The display unit of a panel (how many base units, its name): cores, the largest binary unit the largest
    amount reaches (Gi), or whole units."""
    if kind == "cpu":
        return 1000, "cores"
    if kind == "bytes":
        suffixes = ("bytes", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
        power = 0
        while power < len(suffixes) - 1 and top >= 1024 ** (power + 1):
            power += 1
        return 1024**power, suffixes[power]
    return 1, ""


def _finite(rows: Sequence[QuotaRow]) -> Iterator[Amount]:
    for row in rows:
        yield from (v for _, v in row.stack)
        yield sum((v for _, v in row.stack), start=Fraction(0))
        yield from (v for _, v in row.markers)
        if row.ceiling is not None and row.ceiling[1] is not None:
            yield row.ceiling[1]


def _used_series(chart: QuotaChart) -> list[Series]:
    """The series some bar draws: only these get a legend entry (no entry for a colour that is not there)."""
    drawn: set[str] = set()
    for panel in chart.panels:
        for row in panel.rows[:MAX_ROWS]:
            drawn.update(key for key, value in row.stack if value > 0)
            drawn.update(key for key, _ in row.markers)
            if row.ceiling is not None:
                drawn.add(row.ceiling[0])
    return [s for s in chart.series if s.key in drawn]


def _draw_quota(chart: QuotaChart) -> Figure:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    panels = [p for p in chart.panels if p.rows]
    heights = [min(len(p.rows), MAX_ROWS) * ROW_HEIGHT + 0.9 for p in panels]
    handles: list[Any] = []
    for series in _used_series(chart):
        if series.role == "marker":
            handles.append(Line2D([], [], color=series.colour, linewidth=2.5, label=series.label))
        else:
            handles.append(Patch(facecolor=series.colour, hatch=series.hatch, edgecolor=_edge(series),
                                 label=series.label))
    figure, body = _frame(chart.title, handles, sum(heights), chart.note)
    axes = body.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    styles = {s.key: s for s in chart.series}
    for n, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
        _quota_panel(ax, n, panel, styles, chart.rows_are)
    return figure


def _edge(series: Series) -> str:
    return "#555555" if series.hatch else series.colour


def _quota_panel(ax: Axes, n: int, panel: QuotaPanel, styles: dict[str, Series], rows_are: str) -> None:
    from matplotlib.ticker import MaxNLocator

    rows = panel.rows[:MAX_ROWS]
    top = max(_finite(rows), default=0)
    unit, unit_name = unit_of(panel.kind, top)
    limit = max(float(Fraction(top) / unit) * 1.08, 1.0)
    ys = list(range(len(rows)))
    for y, row in zip(ys, rows, strict=True):
        _quota_row(ax, n, y, row, styles, unit, limit)
        _value_label(ax, y, row, panel.kind, unit, limit)
    ax.set_gid(IDS["panel"].format(n=n))
    ax.set_xlim(0, limit)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first row on top, as in the table
    ax.set_yticks(ys, [row.label for row in rows])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10], integer=panel.kind == "count"))
    ax.grid(axis="x", color="#e0e0e0", linewidth=0.6)
    ax.set_axisbelow(True)
    label = f"{panel.resource} ({unit_name})" if unit_name else panel.resource
    ax.set_xlabel(label).set_gid(IDS["xlabel"].format(n=n))
    ax.set_ylabel(rows_are).set_gid(IDS["ylabel"].format(n=n))
    hidden = len(panel.rows) - len(rows)
    title = panel.resource + (f" (first {len(rows)} of {len(panel.rows)}; -o json has all)" if hidden else "")
    ax.set_title(title, loc="left")


def _quota_row(ax: Axes, n: int, y: int, row: QuotaRow, styles: dict[str, Series], unit: Amount,
               limit: float) -> None:
    def x(value: Amount) -> float:
        return float(Fraction(value) / unit)

    def gid(key: str) -> str:
        return IDS["series"].format(key=key, n=n, at=y)

    if row.ceiling is not None:
        style = styles[row.ceiling[0]]
        width = limit if row.ceiling[1] is None else x(row.ceiling[1])
        ax.barh(y, width, height=0.8, color=style.colour, hatch=style.hatch, edgecolor=_edge(style), linewidth=0,
                gid=gid(style.key), zorder=1)
        if row.ceiling[1] is None:
            ax.text(limit * 0.995, y, "no limit", ha="right", va="center", fontsize=7, color="#555555", zorder=4)
    left = 0.0
    for key, value in row.stack:
        if value <= 0:
            continue
        style = styles[key]
        ax.barh(y, x(value), left=left, height=0.5, color=style.colour, hatch=style.hatch, edgecolor=_edge(style),
                linewidth=0.4 if style.hatch else 0, gid=gid(key), zorder=2)
        left += x(value)
    for key, value in row.markers:
        style = styles[key]
        ax.plot([x(value)] * 2, [y - 0.38, y + 0.38], color=style.colour, linewidth=2.5, solid_capstyle="butt",
                gid=gid(key), zorder=3)


def _value_label(ax: Axes, y: int, row: QuotaRow, kind: Kind, unit: Amount, limit: float) -> None:
    """The stacked amounts in reading units (``36``, ``32 + 4``, ``144Gi``) just past the end of the bar, and past
    a limit's tick standing right there (the text would hide it)."""
    parts = [v for _, v in row.stack if v > 0]
    total = sum(parts, start=Fraction(0))
    text = " + ".join(amount_text(kind, v) for v in parts) or "0"
    at = float(total / unit)
    for marker in sorted(float(Fraction(v) / unit) for _, v in row.markers):
        if at <= marker <= at + limit * 0.08:
            at = marker
    ax.annotate(text, (at, y), xytext=(4, 0), textcoords="offset points", ha="left", va="center", fontsize=7,
                color="#333333", zorder=5)


def amount_text(kind: Kind, value: Amount) -> str:
    """An amount as every table prints it (kqctl.k8s.units): cores, binary units, whole units."""
    from kqctl.k8s.units import cores_figure, human_bytes, human_figure

    if value == 0:
        return "0"
    if kind == "cpu":
        return cores_figure(value)
    if kind == "bytes":
        return human_bytes(value)
    return human_figure("count", value)


# --- drawing time charts ---------------------------------------------------------------------------------------

PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d", "#ff9da6",
           "#bab0ac", "#1f77b4", "#8c564b")
LINE_STYLES: tuple[Any, ...] = ("-", "--", "-.", ":")


def _draw_time(chart: TimeChart) -> Figure:
    if chart.small_multiples:
        return _small_multiples(chart)
    from matplotlib.lines import Line2D

    handles: list[Any] = []
    for i, curve in enumerate(chart.curves):
        handles.append(Line2D([], [], color=PALETTE[i % len(PALETTE)], linestyle=_line_style(i), linewidth=1.6,
                              label=curve.label))
    figure, body = _frame(chart.title, handles, 4.0, chart.note)
    ax = body.add_subplot()
    for i, curve in enumerate(chart.curves):
        xs, ys = _xy(chart, curve)
        ax.plot(xs, ys, drawstyle="steps-post" if curve.step else "default", color=PALETTE[i % len(PALETTE)],
                linestyle=_line_style(i), linewidth=1.6, label=curve.label,
                gid=IDS["series"].format(key="curve", n=0, at=i))
    _time_axes(ax, chart, 0)
    ax.set_xlabel(chart.x_label).set_gid(IDS["xlabel"].format(n=0))
    ax.set_ylabel(chart.y_label).set_gid(IDS["ylabel"].format(n=0))
    return figure


def _line_style(i: int) -> Any:
    """Colours first, then dashes: two curves never look alike, even printed in grey."""
    return LINE_STYLES[i % len(LINE_STYLES)]


def _xy(chart: TimeChart, curve: Curve) -> tuple[list[float], list[float]]:
    return [p[0] for p in curve.points], [min(p[1], chart.y_max) for p in curve.points]


# Round durations in seconds, for time axes: a tick every 1000 s (16m40s) reads as noise.
DURATION_STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
                  1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000, 7776000, 31536000)


def duration_ticks(x_max: float, most: int) -> list[float]:
    """Ticks from 0 at the smallest round duration that needs at most ``most`` of them up to ``x_max``."""
    step = next((s for s in DURATION_STEPS if x_max / s <= most), None)
    if step is None:  # longer than the list goes: whole multiples of the last step
        step = DURATION_STEPS[-1] * math.ceil(x_max / (DURATION_STEPS[-1] * most))
    return [k * step for k in range(int(x_max // step) + 1)]


def _time_axes(ax: Axes, chart: TimeChart, n: int, ticks: int = 6) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    ax.set_gid(IDS["panel"].format(n=n))
    ax.set_xlim(0, chart.x_max or 1)
    ax.set_ylim(0, chart.y_max or 1)
    if chart.x_durations:
        ax.xaxis.set_major_locator(FixedLocator(duration_ticks(chart.x_max or 1, ticks)))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=ticks))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: chart.x_format(v)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: chart.y_format(v)))
    ax.grid(color="#e0e0e0", linewidth=0.6)
    ax.set_axisbelow(True)


def _small_multiples(chart: TimeChart) -> Figure:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    curves = chart.curves[:MAX_PANELS]
    columns = min(3, len(curves))
    rows = math.ceil(len(curves) / columns)
    colour = PALETTE[0]
    handles: list[Any] = [Patch(facecolor=colour, alpha=0.35, edgecolor=colour, label=chart.curve_label or "value")]
    if chart.reference is not None:
        handles.append(Line2D([], [], color="#222222", linestyle="--", linewidth=0.9, label=chart.reference[1]))
    more = f"; {len(curves)} of {len(chart.curves)} shown" if len(chart.curves) > len(curves) else ""
    figure, body = _frame(chart.title, handles, 0.6 + 2.0 * rows, (chart.note + more).lstrip("; "))
    grid = body.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
    for n, (ax, curve) in enumerate(zip(grid.flat, curves, strict=False)):
        xs, ys = _xy(chart, curve)
        step = "post" if curve.step else None
        ax.fill_between(xs, ys, step=step, color=colour, alpha=0.35, linewidth=0,
                        gid=IDS["series"].format(key="curve", n=n, at=0))
        ax.plot(xs, ys, drawstyle="steps-post" if curve.step else "default", color=colour, linewidth=1.0)
        if chart.reference is not None:
            ax.axhline(chart.reference[0], color="#222222", linestyle="--", linewidth=0.9)
        _time_axes(ax, chart, n, ticks=4)
        ax.set_title(curve.label, fontsize=9, loc="left")
        ax.tick_params(labelbottom=True, labelleft=True)
    for ax in list(grid.flat)[len(curves):]:
        ax.set_axis_off()
    body.supxlabel(chart.x_label).set_gid(IDS["xlabel"].format(n=0))
    body.supylabel(chart.y_label).set_gid(IDS["ylabel"].format(n=0))
    return figure
