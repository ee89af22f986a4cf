"""Progress on a terminal for long runs: one line on stderr, rewritten in place, erased at the end.

Only when stderr is a terminal (never in pipes, files or CI logs) and only for large inputs, so
small runs and machine output look exactly as they would without it. KQCTL_NO_PROGRESS=1 turns it off.

The line is cut to the terminal's width (asked at every step: terminals are resized): a line that
wrapped could no longer be rewritten by ``\r`` and would leave its first part behind.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO

LARGE_INPUT = 2_000  # objects; below this a run takes well under a second
DEFAULT_WIDTH = 80  # when the terminal does not say (and $COLUMNS is not set)


# The line on the terminal now, if any: an error ends a command wherever it is, and its message must start on a
# clean line, not after "kqctl: reading the inputs..." (see erase_shown).
_shown: Progress | None = None


class Progress:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self.stream) and not os.environ.get("KQCTL_NO_PROGRESS")
        self.shown = False

    def step(self, text: str, size: int | None = None) -> None:
        """Show ``text`` (when ``size``, the number of objects, is large enough to be worth it); at -v 1 and more,
        log it as a diagnostic whatever the size."""
        from kqctl import diagnostics

        diagnostics.log(1, text.removeprefix("kqctl: "))
        if not self.enabled or (size is not None and size < LARGE_INPUT):
            return
        global _shown
        self.stream.write(f"\r\x1b[K{fit(text, terminal_width(self.stream))}")
        self.stream.flush()
        self.shown = True
        _shown = self

    def done(self) -> None:
        """Erase the line, so that what follows starts on a clean line."""
        from kqctl import diagnostics

        diagnostics.log(1, "done; writing the output")
        global _shown
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
        if _shown is self:
            _shown = None


def erase_shown() -> None:
    """Erase whichever progress line is on the terminal (before an error message is written)."""
    if _shown is not None:
        _shown.done()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_width(stream: TextIO) -> int:
    """Columns of the terminal ``stream`` writes to; $COLUMNS, then 80, when it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        pass
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else DEFAULT_WIDTH


def fit(text: str, width: int) -> str:
    """``text`` on one line of ``width`` columns, the last left free (some terminals wrap on writing it)."""
    room = max(1, width - 1)
    return text if len(text) <= room else text[:room - 1] + "…"
