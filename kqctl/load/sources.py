"""Where input comes from: files, directories (optionally recursive) and standard input."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kqctl import diagnostics
from kqctl.errors import InputError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN_NAME = "<stdin>"
# Larger than any real snapshot (50,000 Kueue objects take ~40 MiB) yet small enough that a
# mistaken path to a disk image fails at once instead of exhausting memory.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    """The raw bytes of one input, with the name used in messages."""

    name: str
    data: bytes


def max_input_bytes() -> int:
    raw = os.environ.get("KQCTL_MAX_INPUT_BYTES")
    return int(raw) if raw and raw.isdigit() else DEFAULT_MAX_BYTES


def expand_paths(paths: Iterable[str], recursive: bool = False, skipped: list[str] | None = None) -> list[str]:
    """Every file named by ``paths``, directories expanded to their manifest files in name order. Inside a
    directory, an entry that is not a regular file (a FIFO, a socket, a device) is skipped, with a note in
    ``skipped``: reading a FIFO nobody writes to would wait forever. A path named as such is read (``<(cmd)``
    is a pipe).

    Each file is listed once, by the name it was first reached by: a directory and a file inside it (``dir
    dir/a.yaml``, a shell glob beside its directory), a path named twice or a link to a file already listed
    name the same file (by its resolved path), and reading it twice would make every object in it a duplicate
    of itself."""
    files: list[str] = []
    first: dict[str, str] = {}  # resolved path -> the name it was first listed by
    for raw in paths:
        if raw == "-":
            files.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            found = list(_manifests_in(path, recursive, skipped))
            diagnostics.log(4, f"{raw}: {len(found)} manifest file(s){' (recursive)' if recursive else ''}: "
                               f"{', '.join(found[:20])}{' ...' if len(found) > 20 else ''}")
        elif path.exists() or path.is_symlink():
            found = [raw]  # a broken link is reported when read
        else:
            raise InputError(raw, "no such file or directory")
        for name in found:
            resolved = os.path.realpath(name)
            if resolved in first:
                diagnostics.log(4, f"{name}: already read as {first[resolved]}")
                continue
            first[resolved] = name
            files.append(name)
    return files


def no_objects_error(paths: Iterable[str], recursive: bool) -> InputError:
    """The error for inputs that hold no Kubernetes object at all, saying where none was looked for.

    An empty input is never a clean pass: in CI it usually means a wrong path or a missing -R.
    """
    names = list(paths)
    for raw in names:
        if raw != "-" and not recursive and Path(raw).is_dir():
            nested = next(_manifests_in(Path(raw), True), None)
            if nested is not None:
                return InputError(raw, "no manifests directly in this directory, but some in its subdirectories "
                                  f"(e.g. {nested}): pass -R to read them")
    return InputError(", ".join(STDIN_NAME if n == "-" else n for n in names),
                      "no Kubernetes objects found: the input is empty (expected YAML or JSON manifests)")


def _manifests_in(directory: Path, recursive: bool, skipped: list[str] | None = None) -> Iterator[str]:
    """Manifest files of a directory in name order. What cannot be read is listed too, so that reading
    it reports the problem (a subdirectory without permission, a broken symlink) instead of skipping it;
    what is not a regular file is left out (noted in ``skipped``)."""
    found: list[str] = []
    special: list[str] = []

    def unreadable(error: OSError) -> None:
        found.append(str(error.filename))

    for root, dirs, files in os.walk(directory, onerror=unreadable):
        dirs.sort()
        for name in files:
            if Path(name).suffix.lower() in MANIFEST_SUFFIXES:
                path = os.path.join(root, name)
                (special if _not_regular(path) else found).append(path)
        if not recursive:
            break
    if skipped is not None:
        skipped.extend(f"{path}: skipped: not a regular file (a FIFO, socket or device is never read from a "
                       "directory; name it to read it)" for path in sorted(special))
    return iter(sorted(found))


def _not_regular(path: str) -> bool:
    """A FIFO, socket or device (a symbolic link is judged by its target; a broken one is read, and reported)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)


def read_source(name: str, stdin: BinaryIO | None = None, limit: int | None = None) -> Source:
    """Read one file (or ``-`` for stdin) with a size limit, as bytes."""
    limit = max_input_bytes() if limit is None else limit
    if name == "-":
        return Source(STDIN_NAME, _read_limited(stdin or _stdin_stream(), STDIN_NAME, limit))
    try:
        if os.path.isdir(name):
            os.listdir(name)  # an unreadable directory raises PermissionError here
            raise IsADirectoryError(name)
        size = os.path.getsize(name)
        if size > limit:
            raise InputError(name, f"file is {size:,} bytes, larger than the {limit:,}-byte limit"
                             " (set KQCTL_MAX_INPUT_BYTES to raise it)")
        with open(name, "rb") as handle:
            return Source(name, _read_limited(handle, name, limit))
    except IsADirectoryError:
        raise InputError(name, "is a directory; pass it as a path to read its manifests") from None
    except PermissionError:
        what = "cannot list this directory" if os.path.isdir(name) else "cannot read this file"
        raise InputError(name, f"permission denied: {what}") from None
    except FileNotFoundError:
        broken = os.path.islink(name)
        raise InputError(name, "a broken symbolic link" if broken else "no such file or directory") from None
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None


def _stdin_stream() -> BinaryIO:
    # `kqctl validate - <&-` starts Python without a stdin: sys.stdin is None, not an empty stream.
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputError(STDIN_NAME, "stdin is closed: nothing to read (pass a file, or pipe manifests in)")
    return stream


def _read_limited(stream: BinaryIO, name: str, limit: int) -> bytes:
    # Read one byte past the limit so special files (pipes, /dev/zero) are caught too.
    try:
        data = stream.read(limit + 1)
    except OSError as exc:  # a closed or unreadable descriptor (EBADF), a terminal that went away
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(name, f"input is larger than the {limit:,}-byte limit (set KQCTL_MAX_INPUT_BYTES to raise it)")
    return data
