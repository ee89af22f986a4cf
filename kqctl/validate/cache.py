"""``--cache DIR``: each file's per-object results, kept for the next run.

validate's entry is one file's :class:`~kqctl.validate.parallel.FilePart` (its documents' reports, and the trimmed
objects the cross-object checks read); the other commands' (simulate, explain, audit, replay, diff, plan) is the
file's objects as read with validate's per-object check of each (:class:`ReadCache`). Either is keyed by the file's
name as given, its absolute path and the SHA-256 of its content, under a directory named
after everything else the result depends on (the *setting*: kqctl's version and the fingerprint of its code and
schemas, the target releases, the flags that change per-object results). A changed file, flag or kqctl is a miss.

The cross-object checks run again over every file, cached or not, except on a profile's *subjects* (Kueue's
Workloads: ``ValidationProfile.cross_object_subjects``), whose findings depend only on themselves and on the other
objects: an entry also keeps its subjects' findings with a fingerprint of those other objects (and --closed), and
while the fingerprint is the same they are reused and the subjects stay pickled, never loaded.

Entries are pickles: the directory is created private (0700) and refused when someone else could write to it,
since loading a pickle runs what it says. Nothing is ever evicted: delete the directory any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kqctl.errors import UsageError
from kqctl.origin import Origin
from kqctl.validate.parallel import CheckedFile, FilePart
from kqctl.validate.report import DocumentReport

ENTRY_SUFFIX = ".part"
# Bump when FilePart or what it holds changes shape: old entries are then never read.
FORMAT = "2"
_TAG = f"kqctl-validate-part-{FORMAT}"
_READ_TAG = f"kqctl-read-part-{FORMAT}"


def default_directory() -> Path:
    """The user's cache directory (XDG_CACHE_HOME, ~/Library/Caches, %LOCALAPPDATA%), kqctl/validate inside."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kqctl" / "validate"


def code_fingerprint() -> str:
    """kqctl's version, Python's and its YAML and CEL libraries', and the size and modification time of every
    module and schema file: an edited checkout (same version number) must not read results older code produced."""
    from kqctl import __version__

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"{FORMAT}\0{__version__}\0{sys.version}\0{_dependencies()}".encode())
    for path in sorted((*root.rglob("*.py"), *(root / "schemas").rglob("*.json"))):
        with contextlib.suppress(OSError):
            info = path.stat()
            digest.update(f"{path.relative_to(root)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _dependencies() -> str:
    """The versions of the libraries whose answers a result holds (YAML reading, CEL evaluation)."""
    from importlib import metadata

    versions = []
    for name in ("pyyaml", "common-expression-language"):
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=-")
    return ",".join(versions)


class _FileEntries:
    """One setting's entries in ``directory``/<setting hash>/, one per file read: keyed by the file's name as given
    (the results name the file so), its absolute path and the SHA-256 of its content."""

    # Told apart from the other caches' entries in the same setting directory.
    suffix = ENTRY_SUFFIX
    kind = "validate"

    def __init__(self, directory: Path, setting: Iterable[str]) -> None:
        self.root = directory
        digest = hashlib.sha256("\0".join([code_fingerprint(), self.kind, *setting]).encode()).hexdigest()
        self.directory = directory / digest[:32]
        self.hits = self.misses = 0
        self._ready = False
        self._keys: dict[str, Path | None] = {}  # each file is hashed once a run

    def holds(self, name: str) -> bool:
        """Whether an entry for the file's content is stored (a miss, counted, when not)."""
        key = self._key(name)
        if key is not None and key.exists():
            return True
        self.misses += 1
        return False

    def _key(self, name: str) -> Path | None:
        if name not in self._keys:
            self._keys[name] = self._content_key(name)
        return self._keys[name]

    def _content_key(self, name: str) -> Path | None:
        try:
            with open(name, "rb") as handle:
                content = hashlib.file_digest(handle, "sha256").hexdigest() if hasattr(hashlib, "file_digest") \
                    else hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            return None  # validated (and reported unreadable) as usual, never cached
        # The name as given too: the results name the file as the command line did (a.yaml, or dir/a.yaml from
        # the parent directory), and a hit must not name it as an earlier run from another directory did.
        path_digest = hashlib.sha256(f"{name}\0{os.path.abspath(name)}".encode()).hexdigest()[:32]
        return self.directory / f"{path_digest}-{content}{self.suffix}"

    def _entry_of(self, name: str) -> Any:
        """The entry stored for the file's content, or None (counted as a hit or a miss)."""
        key = self._key(name)
        entry = self._load(key) if key is not None else None
        if entry is None:
            self.misses += 1
        else:
            self.hits += 1
        return entry

    def _load(self, key: Path) -> Any:
        try:
            with open(key, "rb") as handle:
                return self._decoded(pickle.load(handle))
        except FileNotFoundError:
            return None
        except Exception:  # a damaged or foreign entry is a miss, and is replaced
            return None

    def _decoded(self, entry: Any) -> Any:
        """What an entry holds, or None when it is not one of this cache's."""
        raise NotImplementedError

    def _store(self, name: str, entry: Any) -> None:
        key = self._key(name)
        if key is None or self._broken:
            return
        try:
            self._prepare()
            # The same content's entry again (with new findings on its subjects): no older one to look for.
            rewritten = key.exists()
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                pickle.dump(entry, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, key)
            for older in () if rewritten else self.directory.glob(key.name.split("-", 1)[0] + "-*" + self.suffix):
                if older != key:  # the same file's earlier content: one entry per file and setting
                    older.unlink(missing_ok=True)
        except OSError as exc:  # a cache that cannot be written costs time, never the answer
            sys.stderr.write(f"kqctl: warning: --cache {self.root}: cannot write: {exc.strerror or exc}\n")
            self._broken = True

    _broken = False

    def _prepare(self) -> None:
        if not self._ready:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._ready = True


class ValidationCache(_FileEntries):
    """validate's entries: each file's :class:`~kqctl.validate.parallel.FilePart`."""

    def get(self, name: str) -> FilePart | None:
        part: FilePart | None = self._entry_of(name)
        return part

    def _decoded(self, entry: Any) -> FilePart | None:
        return _part(entry)

    def put(self, name: str, part: FilePart) -> None:
        self._store(name, _entry(part))

    def freeze(self, part: FilePart) -> None:
        freeze(part)


def freeze(part: FilePart) -> None:
    """Pickles the part's per-object results now, before the cross-object checks add their findings to its reports
    (an entry holds only what the file alone says; the checks' findings on its subjects are kept beside)."""
    if part.base_blob is None:
        part.base_blob = pickle.dumps((_compact(part.reports), part.identities, part.cross, part.subject_kinds),
                                      protocol=pickle.HIGHEST_PROTOCOL)
    if part.subject_blob is None:
        part.subject_blob = pickle.dumps(part.loaded_subjects(), protocol=pickle.HIGHEST_PROTOCOL)


def _entry(part: FilePart) -> tuple[Any, ...]:
    freeze(part)
    return (_TAG, part.base_blob, part.subject_blob, part.digests(), part.subject_findings)


def _part(entry: Any) -> FilePart | None:
    """The part of an entry, its subjects left pickled until a check needs them."""
    if not isinstance(entry, tuple) or len(entry) != 5 or entry[0] != _TAG:
        return None
    _, base, subjects, digests, kept = entry
    rows, identities, cross, subject_kinds = pickle.loads(base)
    return FilePart(_reports(rows), identities, cross, subjects=None, subject_blob=subjects,
                    subject_kinds=subject_kinds, subject_findings=kept, cross_digests=digests, base_blob=base)


# A report with nothing but its place and name (most of them) is kept as a row of plain values: it unpickles in half
# the time of the dataclasses.
_Row = tuple[str, int, int, int | None, str, str, str | None, str | None]


def _compact(reports: list[DocumentReport]) -> list[DocumentReport | _Row]:
    return [(r.origin.file, r.origin.index, r.origin.line, r.origin.item, r.api_version, r.kind, r.namespace, r.name)
            if not r.findings and r.effective is None and r.skipped is None else r for r in reports]


def _reports(rows: list[DocumentReport | _Row]) -> list[DocumentReport]:
    return [DocumentReport(Origin(row[0], row[1], row[2], row[3]), row[4], row[5], row[6], row[7], [])
            if isinstance(row, tuple) else row for row in rows]


class ReadCache(_FileEntries):
    """The entries of the commands that answer (simulate, explain, audit, replay, diff, plan): each file's objects as
    read, with validate's per-object check of each (:class:`~kqctl.validate.parallel.CheckedFile`), which the gate
    (kqctl.validate.gate) takes instead of checking again. Only a file read without error has one."""

    suffix = ".read"
    kind = "read"

    def get(self, name: str) -> CheckedFile | None:
        part: CheckedFile | None = self._entry_of(name)
        return part

    def _decoded(self, entry: Any) -> CheckedFile | None:
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == _READ_TAG and isinstance(entry[1], CheckedFile):
            return entry[1]
        return None

    def put(self, name: str, part: CheckedFile) -> None:
        if part.unreadable is None and not part.failed:
            self._store(name, (_READ_TAG, part))


def open_cache(directory: Path, setting: Iterable[str]) -> ValidationCache:
    """validate's cache in ``directory``, created private; a usage error when it is not a directory or when another
    user could write to it (its entries are pickles)."""
    return ValidationCache(_private(directory), setting)


def open_read_cache(directory: Path, setting: Iterable[str]) -> ReadCache:
    """The answering commands' cache in ``directory``, as :func:`open_cache` opens validate's."""
    return ReadCache(_private(directory), setting)


def _private(directory: Path) -> Path:
    """``directory``, created private; a usage error when it is not a directory or when another user could write to
    it (a cache's entries are pickles: loading one runs what it says)."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--cache {directory}: not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
    except OSError as exc:
        raise UsageError(f"--cache {directory}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"--cache {directory}: not a directory")
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        raise UsageError(f"--cache {directory}: owned or writable by another user; kqctl keeps its cache only in a "
                         "directory that is yours alone (chmod go-w)")
    return directory
