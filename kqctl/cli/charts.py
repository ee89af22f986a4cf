"""Charts written by commands (``audit --plot FILE``, ``replay --plot DIR``): the file name checked before any
work, the file written, and a line on stderr saying what was written (stdout stays the report a pipe parses)."""

from __future__ import annotations

import sys
from pathlib import Path

from kqctl.errors import UsageError
from kqctl.render.charts import Chart, ChartError, check_path, describe, write_chart


def check_chart_path(path: str) -> None:
    """A usage error before the inputs are read when the name cannot be a chart (only .svg and .png can)."""
    try:
        check_path(path)
    except ChartError as exc:
        raise UsageError(str(exc)) from None


def write_chart_file(chart: Chart, path: str) -> None:
    """Write ``chart`` to ``path`` and say so: ``kqctl: wrote quota.svg: cpu, memory per ClusterQueue (...)``."""
    check_chart_path(path)
    try:
        write_chart(chart, path)
    except OSError as exc:
        raise UsageError(f"--plot {path!r}: cannot write the file: {exc.strerror or exc}") from None
    sys.stderr.write(f"kqctl: wrote {path}: {describe(chart)}\n")


def write_chart_files(charts: list[tuple[str, Chart]], directory: str, suffixes: tuple[str, ...]) -> list[str]:
    """Write every chart into ``directory`` once per suffix (``stem.svg``, ``stem.png``); say what was written."""
    folder = Path(directory)
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for stem, chart in charts:
            for suffix in suffixes:
                path = folder / f"{stem}{suffix}"
                write_chart(chart, path)
                written.append(str(path))
    except OSError as exc:
        raise UsageError(f"--plot {directory!r}: cannot write the charts: {exc.strerror or exc}") from None
    shown = "; ".join(f"{stem} ({describe(chart)})" for stem, chart in charts)
    sys.stderr.write(f"kqctl: wrote {len(written)} chart file(s) to {directory} ({', '.join(suffixes)}): {shown}\n")
    return written
