"""Diagnostics on stderr at kubectl's ``-v N`` / ``--v=N`` verbosity, in klog's line shape.

Levels, as kubectl uses them: 0 (default) nothing; 1 the phases of a command and how long each took; 2 the
scheduler chosen and why; 4 every file read; 6 every API request to a cluster (--from-cluster, snapshot save).
Never on stdout: what a pipe parses is the same at every level.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime

_level = 0
_started = time.monotonic()
_said: set[str] = set()


def set_level(level: int) -> None:
    global _level, _started
    _level = max(0, level)
    _started = time.monotonic()
    _said.clear()


def level() -> int:
    return _level


def log_once(at: int, message: str) -> None:
    """``log``, but a message already written is not written again (a fact several layers look up)."""
    if _level >= at and message not in _said:
        _said.add(message)
        log(at, message)


def log(at: int, message: str) -> None:
    """``message`` on stderr when the verbosity is ``at`` or more: ``I1202 00:47:12.345678  12345 kqctl] ...``
    (klog's header: severity, date, time, process id), with the seconds since the command started."""
    if _level < at:
        return
    now = datetime.now()
    elapsed = time.monotonic() - _started
    sys.stderr.write(f"I{now:%m%d %H:%M:%S.%f} {os.getpid():>7} kqctl] [{elapsed:7.3f}s] {message}\n")


def extract_verbosity(argv: list[str]) -> tuple[list[str], int | None, str | None]:
    """``-v N``, ``-vN``, ``-v=N``, ``--v N``, ``--v=N`` anywhere before ``--`` (kubectl's global flag may follow
    the command), removed from ``argv``: (the rest, the level or None, an error message or None)."""
    rest: list[str] = []
    found: int | None = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            rest.extend(argv[index:])
            break
        value: str | None = None
        if arg in ("-v", "--v"):
            if index + 1 >= len(argv):
                return argv, None, f"{arg} needs a level, e.g. {arg} 4"
            value = argv[index + 1]
            index += 1
        elif arg.startswith(("-v=", "--v=")):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-v") and arg[2:].isdigit():
            value = arg[2:]
        if value is None:
            rest.append(arg)
        elif not value.isdigit():
            return argv, None, f"-v {value!r}: the verbosity is a whole number (0-9), as kubectl's"
        else:
            found = int(value)
        index += 1
    return rest, found, None
