"""The one place that decides how kqctl talks to a terminal: colour, width and wrapping.

Rules (``color`` is the ``--color`` option):

* ``"never"``: no colour.
* ``"always"``: colour, even into a pipe or file and even when ``NO_COLOR`` is set (an explicit flag
  beats the environment, as https://no-color.org allows).
* ``"auto"`` (default): colour only when the stream is a TTY and ``NO_COLOR`` is not set (any value,
  even empty). ``FORCE_COLOR`` / ``TTY_COMPATIBLE`` are deliberately ignored: use ``--color always``.

Width (``terminal_width``) is the terminal's when the stream is a TTY (``$COLUMNS`` first, as
``shutil.get_terminal_size`` reads it, so a terminal can be told its width). Piped or redirected output
is never wrapped, whatever ``$COLUMNS`` says, as kubectl does not wrap it: a CI log, a file or a ``grep``
gets one line per row and per message, and the same bytes on every machine. On a terminal only free
text (a reason, a message, a sentence of prose) is wrapped, at spaces, with a hanging indent; a name,
a quantity, a path or a tree gutter is never broken (a word longer than the line runs past the edge).
Rich is imported lazily so that machine formats never load it.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from rich.console import Console

COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")
NO_WRAP_WIDTH = 1_000_000  # rich's width for a stream that is not a terminal: nothing is wrapped
MIN_WRAP_WIDTH = 20  # free text is never squeezed narrower than this: the line runs past the edge instead

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
        width=None if tty else NO_WRAP_WIDTH,
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


def terminal_width(stream: TextIO) -> int | None:
    """The width to wrap free text at on ``stream``: the terminal's columns (``$COLUMNS`` first), or None
    when ``stream`` is not a terminal (a pipe or a file is never wrapped)."""
    if not is_tty(stream):
        return None
    return shutil.get_terminal_size(fallback=(80, 24)).columns


def wrap_text(text: str, width: int | None, indent: str = "", hanging: str | None = None,
              least: int = MIN_WRAP_WIDTH) -> list[str]:
    """``text`` as lines of at most ``width`` columns, the first after ``indent``, the others after
    ``hanging`` (default: ``indent`` and two spaces). Breaks only at spaces: never inside a word, so a
    name, a quantity or a hyphenated token stays whole (a word longer than the line runs past it), and
    ``indent`` (e.g. a finding's file:line and rule) is never broken either: a first line it leaves less
    than ``least`` columns of still takes that much text. ``width`` None (not a terminal) gives the text's
    own lines.

    A line break in ``text`` is kept: the line after it starts as it does in a pipe (at the left edge, with
    its own leading spaces), and wraps under those spaces and two more, as ``wrap_lines`` wraps a line. No
    line returned holds a line break."""
    first, *others = text.split("\n")
    lines = _wrap_line(first, width, indent, hanging, least)
    for other in others:
        body = other.lstrip(" ")
        lines.extend(_wrap_line(body, width, other[:len(other) - len(body)], None, least))
    return lines


def _wrap_line(text: str, width: int | None, indent: str, hanging: str | None, least: int) -> list[str]:
    """One line of ``text`` (no line break in it) wrapped as ``wrap_text`` says."""
    if width is None or len(indent) + len(text) <= width:
        return [indent + text]
    rest = indent + "  " if hanging is None else hanging
    lines: list[str] = []
    line, room = indent, max(width, len(indent) + least)
    empty = True  # nothing of ``text`` on ``line`` yet
    # Words with the spaces before them: a line keeps the spacing it was given (two spaces stay two).
    for gap, word in re.findall(r"( *)(\S+)", text):
        if not empty and len(line) + len(gap) + len(word) > room:
            lines.append(line)
            line, room, empty = rest, max(width, len(rest) + least), True
        line += word if empty else gap + word
        empty = False
    lines.append(line)
    return lines


def write_wrapped(out: TextIO, text: str, indent: str = "", hanging: str | None = None) -> None:
    """Prose to ``out`` (one line, or more when ``text`` breaks its lines), wrapped at the terminal's width (see
    ``wrap_text``); as is into a pipe."""
    for line in wrap_text(text, terminal_width(out), indent, hanging):
        out.write(line + "\n")


TABLE_GAP = "   "  # columns.GAP: a line holding it after its indent is a table row (or aligned list), never wrapped


def wrap_lines(lines: list[str], width: int | None) -> list[str]:
    """Prose lines wrapped at ``width``, each keeping its own leading indent plus two spaces as its hanging
    indent. A table row (columns.format_lines' lines, told by the three spaces between its columns) or an
    aligned list is left whole: its columns would not survive wrapping."""
    if width is None:
        return lines
    wrapped: list[str] = []
    for line in lines:
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        wrapped.extend(wrap_text(body, width, indent) if body and TABLE_GAP not in body else [line])
    return wrapped


def write_prose(out: TextIO, text: str) -> None:
    """Text of prose lines (and tables) to ``out``, its prose wrapped on a terminal (see ``wrap_lines``)."""
    width = terminal_width(out)
    if width is None:
        out.write(text)
        return
    ending = "\n" if text.endswith("\n") else ""
    out.write("\n".join(wrap_lines(text[:len(text) - len(ending)].split("\n"), width)) + ending)


def _color_system(forced: bool) -> _ColorSystem:
    # Rich detects truecolor/256/standard from COLORTERM and TERM and turns colour off for
    # TERM=dumb, which is right for "auto"; "always" falls back to the 16 ANSI colours instead.
    term = os.environ.get("TERM", "").strip().lower()
    return "standard" if forced and term in ("dumb", "unknown") else "auto"
