"""Progress on a terminal for long runs: one line on stderr, rewritten in place, erased at the end.

Only when stderr is a terminal (never in pipes, files or CI logs) and only for large inputs, so
small runs and machine output look exactly as they would without it. KQCTL_NO_PROGRESS=1 turns it off.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

LARGE_INPUT = 2_000  # objects; below this a run takes well under a second


class Progress:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self.stream) and not os.environ.get("KQCTL_NO_PROGRESS")
        self.shown = False

    def step(self, text: str, size: int | None = None) -> None:
        """Show ``text`` (when ``size``, the number of objects, is large enough to be worth it)."""
        if not self.enabled or (size is not None and size < LARGE_INPUT):
            return
        self.stream.write(f"\r\x1b[K{text}")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        """Erase the line, so that what follows starts on a clean line."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
