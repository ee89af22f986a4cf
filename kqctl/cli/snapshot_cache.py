"""``kqctl explain --cache DIR``: the Kueue snapshot as built, kept for the next explain of the same inputs.

The read cache (kqctl.validate.cache) keeps each file's objects as read and checked; a warm run still unpickles
50,000 objects, runs the gate's cross-object checks and builds the snapshot (about 3 s of the 50,000-workload
shape, issue 21). This cache keeps the end of all that: the :class:`~kqctl.kueue.api.snapshot.Snapshot`, with what
the loading wrote on stderr (the gate's notes) and the count of objects read, so a warm explain unpickles one
snapshot and writes the same notes.

An entry is valid for exactly the inputs it was built from, and is looked for under the read cache's setting
directory (kqctl's version and the fingerprint of its code and schemas, --scheduler, --strict):

* the files: every name as the command line gives it, directories expanded as the loading expands them, with its
  absolute path and the SHA-256 of its content (a file added, removed, renamed or edited is a miss);
* every other flag that changes what is read: -R, --set (in order), --override, KQCTL_MAX_INPUT_BYTES;
* the snapshot's clock, only where the snapshot holds it beyond ``Snapshot.now``: Jobs and Pods without a
  creationTimestamp get their Workload created then (kqctl.kueue.load.reads_clock); else the entry serves any
  --now, with its clock set to the one asked for.

Only plain files are kept (stdin, a pipe or a missing path read as without the cache), only inputs that make a
Kueue snapshot, and only a load that succeeded. One entry per set of input names and flags: the newer content
replaces it. Entries are pickles in the private directory the read cache checked (see there).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqctl.kueue.api.snapshot import Snapshot

FORMAT = "1"  # bump when the entry's shape changes: older entries are then never read
_TAG = f"kqctl-snapshot-{FORMAT}"
SUFFIX = ".snapshot"


@dataclass(frozen=True)
class CachedSnapshot:
    """A hit: the snapshot (its clock the one asked for), the number of objects read, what the loading wrote on
    stderr."""

    snapshot: Snapshot
    objects: int
    stderr: str


@dataclass(frozen=True)
class SnapshotCache:
    """The entry of one set of inputs (``path``), valid while the files' content is ``content``."""

    path: Path
    content: str

    def get(self, now: datetime | None) -> CachedSnapshot | None:
        """The snapshot kept for these inputs, or None (none kept, other content, another clock it depends on, or an
        entry that cannot be read: a miss, replaced by the next :meth:`put`)."""
        try:
            with open(self.path, "rb") as handle:
                header = pickle.load(handle)
                if not _matches(header, self.content, now):
                    return None
                snapshot = pickle.load(handle)
        except Exception:  # noqa: BLE001 - missing, damaged or foreign: a miss
            return None
        _, _, _, objects, stderr = header
        return CachedSnapshot(replace(snapshot, now=now), objects, stderr)

    def put(self, snapshot: Snapshot, objects: int, stderr: str, reads_clock: bool) -> None:
        """Keep ``snapshot`` for these inputs (``reads_clock``: it holds its clock beyond ``Snapshot.now``, and serves
        that clock only). A cache that cannot be written costs time, never the answer."""
        header = (_TAG, self.content, snapshot.now if reads_clock else None, objects, stderr)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    pickle.dump(header, out, protocol=pickle.HIGHEST_PROTOCOL)
                    pickle.dump(snapshot, out, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except (OSError, pickle.PicklingError, RecursionError) as exc:
            text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            sys.stderr.write(f"kqctl: warning: --cache {self.path.parent}: cannot keep the snapshot: {text}\n")


def _matches(header: Any, content: str, now: datetime | None) -> bool:
    if not isinstance(header, tuple) or len(header) != 5 or header[0] != _TAG or header[1] != content:
        return False
    clock = header[2]
    return clock is None or clock == now


def open_snapshot_cache(setting_directory: Path, paths: list[str], recursive: bool, sets: list[str] | None,
                        override: bool) -> SnapshotCache | None:
    """The entry for these inputs under the read cache's ``setting_directory``, or None when they are not only plain
    files (stdin, a pipe, a missing path: read as without the cache, which reports what is wrong)."""
    from kqctl.errors import InputError
    from kqctl.load.sources import expand_paths

    try:
        names = expand_paths(paths, recursive, [])
    except (InputError, OSError):
        return None
    if any(name == "-" or not os.path.isfile(name) for name in names):
        return None
    flags = [f"recursive={recursive}", f"override={override}", *(f"set={text}" for text in sets or []),
             f"max-input-bytes={os.environ.get('KQCTL_MAX_INPUT_BYTES', '')}"]
    inputs = hashlib.sha256("\0".join([*flags, "", *paths, "", *names]).encode())
    content = hashlib.sha256()
    for name in names:
        digest = _file_digest(name)
        if digest is None:
            return None
        inputs.update(f"\0{os.path.abspath(name)}".encode())
        content.update(f"{name}\0{digest}\n".encode())
    return SnapshotCache(setting_directory / f"{inputs.hexdigest()[:32]}{SUFFIX}", content.hexdigest())


def _file_digest(name: str) -> str | None:
    try:
        with open(name, "rb") as handle:
            if hasattr(hashlib, "file_digest"):
                return hashlib.file_digest(handle, "sha256").hexdigest()
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


class _Tee:
    """stderr, with a copy of what is written kept (the loading's notes, written again on a hit)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.written: list[str] = []

    def write(self, text: str) -> int:
        self.written.append(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def recording_stderr() -> Iterator[list[str]]:
    """What is written on ``sys.stderr`` meanwhile (and written there as usual)."""
    tee = _Tee(sys.stderr)
    with contextlib.redirect_stderr(tee):  # type: ignore[type-var]
        yield tee.written
