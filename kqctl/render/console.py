"""The one place that decides how kqctl talks to a terminal: colour, width and wrapping.

Rules (``color`` is the ``--color`` option):

* ``"never"``: no colour.
* ``"always"``: colour, even into a pipe or file and even when ``NO_COLOR`` is set (an explicit flag
  beats the environment, as https://no-color.org allows).
* ``"auto"`` (default): colour only when the stream is a TTY and ``NO_COLOR`` is not set (any value,
  even empty). ``FORCE_COLOR`` / ``TTY_COMPATIBLE`` are deliberately ignored: use ``--color always``.

Width is the terminal's when the stream is a TTY; otherwise ``$COLUMNS`` if set, else 120, so CI
logs do not wrap at 80 columns. Rich is imported lazily so that machine formats never load it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from rich.console import Console

COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")
NON_TTY_WIDTH = 120

_ColorSystem = Literal["auto", "standard"]


def make_console(stream: TextIO, color: str = "auto") -> Console:
    """A rich Console writing to ``stream`` that follows kqctl's terminal rules.

    Markup stays enabled (``[bold]...[/]`` in literal strings) but automatic highlighting and emoji
    codes are off, so user data printed as plain strings is not recoloured; pass user data as
    ``rich.text.Text`` to keep it free of markup interpretation. ``soft_wrap`` is off so tables fit
    the width; print single long lines with ``console.print(..., soft_wrap=True)``.
    """
    from rich.console import Console

    tty = is_tty(stream)
    colour = use_color(stream, color)
    return Console(
        file=stream,
        force_terminal=colour,
        force_interactive=None if tty else False,
        color_system=_color_system(forced=color == "always") if colour else None,
        no_color=not colour,
        width=None if tty else non_tty_width(),
        soft_wrap=False,
        highlight=False,
        emoji=False,
    )


def use_color(stream: TextIO, color: str = "auto") -> bool:
    """Whether output to ``stream`` should carry ANSI colour under the ``color`` option."""
    if color not in COLOR_CHOICES:
        raise ValueError(f"unknown color mode {color!r}; expected one of: {', '.join(COLOR_CHOICES)}")
    if color == "always":
        return True
    if color == "never" or "NO_COLOR" in os.environ:
        return False
    return is_tty(stream)


def is_tty(stream: TextIO) -> bool:
    """``stream.isatty()``, treating missing or closed streams as not a terminal."""
    isatty = getattr(stream, "isatty", None)
    if isatty is None:
        return False
    try:
        return bool(isatty())
    except (ValueError, OSError):
        return False


def non_tty_width() -> int:
    """The width for pipes and files: ``$COLUMNS`` when it is a positive number, else 120."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return NON_TTY_WIDTH


def _color_system(forced: bool) -> _ColorSystem:
    # Rich detects truecolor/256/standard from COLORTERM and TERM and turns colour off for
    # TERM=dumb, which is right for "auto"; "always" falls back to the 16 ANSI colours instead.
    term = os.environ.get("TERM", "").strip().lower()
    return "standard" if forced and term in ("dumb", "unknown") else "auto"
