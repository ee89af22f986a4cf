"""Validating many files on every core: each process (the workers and this one) reads and checks
whole files on its own.

Per-object steps (schema, CEL, webhooks) need nothing but the object, so they run where the file
is read, and workers send back finished reports. Checks across objects run afterwards in this
process, on trimmed copies of the objects (a Workload only needs its queue and priority
references and its pod sets' counts and requests there); lines for those findings, and for
duplicates, are found by re-reading the few files that have any.
"""

from __future__ import annotations

import hashlib
import heapq
import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kqctl.errors import InputError
from kqctl.findings import Finding, error
from kqctl.k8s.kinds import KindRegistry
from kqctl.load.documents import Document
from kqctl.load.objects import (
    DUPLICATE_HINT,
    LoadedObject,
    LoadResult,
    identity,
    mark_duplicates,
    objects_of,
    read_documents,
    read_files,
)
from kqctl.load.sources import STDIN_NAME
from kqctl.origin import FieldPath, Origin
from kqctl.validate.gate import Checks, Prepare, defaulted_fields
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.runner import ObjectCheck, finding_order, seen_by, with_line
from kqctl.validate.skip import Skipping

_Part = TypeVar("_Part")

# Below this much input a second process costs more than it saves.
PARALLEL_MIN_BYTES = 4 * 1024 * 1024
# Seconds between GIL hand-overs while workers send results (see validate_files_parallel).
RESULT_SWITCH_INTERVAL = 0.0005


@dataclass
class FilePart:
    """What a worker sends back for one file (and what ``validate --cache`` keeps of it)."""

    reports: list[DocumentReport] = field(default_factory=list)
    # (identity, field path prefix of the object in its document): the line of a duplicate's name is
    # looked up in the parent, only for duplicates.
    identities: list[tuple[tuple[str, str, str, str] | None, FieldPath]] = field(default_factory=list)
    # (report index, trimmed object) of the objects the cross-object checks read, but the subjects below.
    cross: list[tuple[int, LoadedObject]] = field(default_factory=list)
    unreadable: InputError | None = None
    # The same of the objects of a kind some profile names in ``cross_object_subjects`` (Kueue's Workloads): kept
    # apart, so that a cached part leaves them pickled (``subject_blob``) while their findings can be reused.
    subjects: list[tuple[int, LoadedObject]] | None = field(default_factory=list)
    subject_blob: bytes | None = None
    subject_kinds: list[tuple[int, str]] = field(default_factory=list)  # (report index, kind) of every subject
    # Per profile (its scheduler): the findings on this file's subjects the last time they were checked.
    subject_findings: dict[str, SubjectFindings] = field(default_factory=dict)
    # A digest of each object of ``cross`` (None: not computed yet), for the fingerprint of the others.
    cross_digests: list[bytes] | None = None
    # The pickled per-object part (reports, identities, cross, subject_kinds) as read from or written to a cache,
    # taken before the cross-object checks add their findings to the reports.
    base_blob: bytes | None = None

    def loaded_subjects(self) -> list[tuple[int, LoadedObject]]:
        """The subjects, unpickled from a cache entry the first time they are asked for."""
        if self.subjects is None:
            self.subjects = pickle.loads(self.subject_blob) if self.subject_blob is not None else []
        return self.subjects

    def digests(self) -> list[bytes]:
        if self.cross_digests is None:
            self.cross_digests = [object_digest(obj) for _, obj in self.cross]
        return self.cross_digests


@dataclass(frozen=True)
class SubjectFindings:
    """One profile's cross-object findings on a file's subjects (report index, located finding), valid while the
    other objects the profile read have the same ``fingerprint`` and the same subjects took part (``checked``)."""

    fingerprint: bytes
    checked: tuple[int, ...]
    findings: tuple[tuple[int, Finding], ...]


def object_digest(obj: LoadedObject) -> bytes:
    """What a cross-object check can read of an object, digested: its kind, where a snapshot saved it and its body
    (repr keeps every type YAML reads apart: 1, 1.0, True and "1" differ)."""
    info = (obj.info.group, obj.info.kind, obj.info.scheduler) if obj.info is not None else None
    return hashlib.sha256(repr((info, obj.read_for, obj.body)).encode()).digest()


def subject_kinds(profiles: tuple[ValidationProfile, ...]) -> frozenset[str]:
    return frozenset().union(*(profile.cross_object_subjects for profile in profiles))


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def worth_parallel(files: list[str], jobs: int) -> bool:
    if jobs < 2 or len(files) < 2 or "-" in files:
        return False
    return sum(_size(f) for f in files) >= PARALLEL_MIN_BYTES


def _size(path: str) -> int:
    # Unreadable entries (broken links, locked directories) are reported when read, not here.
    try:
        return os.path.getsize(path) if path != "-" else 0
    except OSError:
        return 0


@dataclass(frozen=True)
class Job:
    """What every worker needs besides its file: the kinds to read and the schedulers' validation profiles."""

    kinds: KindRegistry
    profiles: tuple[ValidationProfile, ...]
    strict: bool
    skipping: Skipping = Skipping()


def validate_files_parallel(files: list[str], job: Job, closed: bool, jobs: int) -> tuple[ValidationReport, bool]:
    """Returns the report and whether any input was unreadable.

    ``jobs - 1`` worker processes and this one take files from a shared counter, largest first, so the
    last file anybody starts is a small one; this process's own files need no pickling. A worker sends
    each file's part as soon as it is done (the pool's result thread here unpickles it meanwhile), so
    nothing is left to pickle and unpickle when the last file is done. Reports are merged in input
    order whoever validated them.
    """
    done = validate_parts(files, job, jobs)
    return _merge(done, job, closed), any(p.unreadable is not None for p in done)


def validate_cached(files: list[str], job: Job, closed: bool, jobs: int,
                    cache: PartCache) -> tuple[ValidationReport, bool]:
    """As :func:`validate_files_parallel`, with each file's part taken from ``cache`` when its content is unchanged
    (the per-object steps, and the findings on its subjects while the other objects are unchanged); the other
    cross-object checks always run again, over every file.

    With enough input for a second process, workers validate the changed files while this process reads the others'
    entries, then it helps them."""
    parts: list[FilePart | None] = [None] * len(files)
    changed = [i for i, name in enumerate(files) if not cache.holds(name)]
    unchanged = [i for i in range(len(files)) if parts[i] is None and i not in set(changed)]

    def read_entries() -> None:
        for i in unchanged:
            parts[i] = cache.get(files[i])

    names = [files[i] for i in changed]
    if changed and worth_parallel(files, jobs):
        fresh = validate_parts(names, job, jobs, meanwhile=read_entries)
    else:
        read_entries()
        fresh = [_validate_one(name, job) for name in names]
    for i, part in zip(changed, fresh, strict=True):
        parts[i] = part
    late = [i for i in unchanged if parts[i] is None]  # an entry that could not be read after all (damaged)
    for i in late:
        parts[i] = _validate_one(files[i], job)
    done = [part for part in parts if part is not None]
    renewed = set(changed) | set(late)
    for i in renewed:
        if done[i].unreadable is None:
            cache.freeze(done[i])  # before the cross-object checks add to its reports
    report, kept_changed = merge_parts(done, job, closed, keep=True)
    for i in sorted(renewed | kept_changed):
        if done[i].unreadable is None:
            cache.put(files[i], done[i])
    return report, any(p.unreadable is not None for p in done)


class PartCache(Protocol):
    """Where :func:`validate_cached` keeps a file's part (kqctl.validate.cache)."""

    def holds(self, name: str) -> bool: ...

    def get(self, name: str) -> FilePart | None: ...

    def put(self, name: str, part: FilePart) -> None: ...

    def freeze(self, part: FilePart) -> None: ...


def validate_parts(files: list[str], job: Job, jobs: int,
                   meanwhile: Callable[[], None] | None = None) -> list[FilePart]:
    """Each file's part, in input order, validated by ``jobs`` processes (this one included); this one calls
    ``meanwhile`` first, while the workers have started."""
    return _parts(files, job, jobs, _validate_file, meanwhile)


def _parts(files: list[str], job: Job, jobs: int, work: Callable[[tuple[str, Job]], _Part],
           meanwhile: Callable[[], None] | None = None,
           on_part: Callable[[_Part], None] | None = None) -> list[_Part]:
    """``work`` done on each file by ``jobs`` processes (this one included), the results in input order;
    ``on_part`` is called here on each result as soon as this process has it (its own file just done, or a
    worker's received), in no particular order, while the workers may still be busy."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    largest_first = sorted(range(len(files)), key=lambda i: -_size(files[i]))
    taken = context.Value("i", 0)
    # Every worker has a file to take, and this process too unless it is busy meanwhile.
    workers = min(jobs - 1, len(files)) if meanwhile is not None else min(jobs, len(files)) - 1
    parts: list[_Part | None] = [None] * len(files)
    # A worker writes a file's result into a pipe that holds 64 KiB: the pool's result thread here must take
    # the GIL from this busy thread for every 64 KiB, and with the default 5 ms switch interval a worker
    # waited about 0.2 s per file, idle. A short interval costs nothing while the result thread sleeps.
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(RESULT_SWITCH_INTERVAL)
    try:
        with context.Pool(workers, initializer=_share_counter, initargs=(taken,)) as pool:
            # One task per file at most: each takes the next file from the counter (None once all are taken).
            theirs = pool.imap_unordered(_take_file, [(files, largest_first, job, work)] * len(files), chunksize=1)
            if meanwhile is not None:
                meanwhile()
            for i, part in _files_taken(files, largest_first, job, taken, work):
                parts[i] = part
                if on_part is not None:
                    on_part(part)
            for taken_by_worker in theirs:
                if taken_by_worker is not None:
                    i, part = taken_by_worker
                    parts[i] = part
                    if on_part is not None:
                        on_part(part)
    finally:
        sys.setswitchinterval(switch_interval)
    return [part for part in parts if part is not None]


# The counter of files taken so far, shared by this process and the workers (set in each worker).
_taken: Any = None


def _share_counter(taken: Any) -> None:
    global _taken
    _taken = taken


def _validate_file(arguments: tuple[str, Job]) -> FilePart:
    try:
        return _validate_one(*arguments)
    except InputError:
        raise
    except Exception as exc:  # only picklable errors may cross back to the parent process
        raise RuntimeError(f"{arguments[0]}: {type(exc).__name__}: {exc}") from None


def _take_file(arguments: tuple[list[str], list[int], Job, Callable[[tuple[str, Job]], _Part]]) \
        -> tuple[int, _Part] | None:
    """In a worker: the next file from the shared counter, worked on; None when none is left."""
    files, order, job, work = arguments
    return next(_files_taken(files, order, job, _taken, work), None)


def _files_taken(files: list[str], order: list[int], job: Job, taken: Any,
                 work: Callable[[tuple[str, Job]], _Part]) -> Iterator[tuple[int, _Part]]:
    """(input index, part) of each file taken from the shared counter, until every file is taken."""
    while True:
        with taken.get_lock():
            position = taken.value
            taken.value = position + 1
        if position >= len(order):
            return
        index = order[position]
        yield index, work((files[index], job))


def _validate_one(name: str, job: Job) -> FilePart:
    from kqctl.validate.runner import has_error, located, report_for, unreadable_report, validate_object

    part = FilePart()
    try:
        documents = read_documents(name)
    except InputError as exc:
        part.unreadable = exc
        part.reports.append(unreadable_report(exc))
        return part
    subjects = subject_kinds(job.profiles)
    for document in documents:
        for obj in objects_of(job.kinds, document, job.strict):
            reason = job.skipping.reason(obj) if job.skipping else None
            if reason is not None:
                _add_skipped(part, obj, reason, job, subjects)
                continue
            findings = list(obj.findings)
            if obj.known and not has_error(findings):
                findings.extend(validate_object(obj, job.profiles))
            report = report_for(obj, [located(obj, f) for f in findings], job.profiles)
            part.identities.append((identity(obj), obj.prefix))
            if obj.known and not has_error(obj.findings):
                _add_cross(part, obj, job, subjects)
            part.reports.append(report)
    return part


def _add_cross(part: FilePart, obj: LoadedObject, job: Job, subjects: frozenset[str]) -> None:
    """The object (trimmed) for the cross-object checks, among the subjects when its kind is one."""
    index, kind = len(part.reports), obj.kind
    if kind in subjects:
        part.loaded_subjects().append((index, _trimmed(obj, job.profiles)))
        part.subject_kinds.append((index, kind))
    else:
        part.cross.append((index, _trimmed(obj, job.profiles)))


def _add_skipped(part: FilePart, obj: LoadedObject, reason: str, job: Job, subjects: frozenset[str]) -> None:
    """A skipped object: no finding, never reported on, but others may still refer to it (cross-object)."""
    from kqctl.validate.runner import has_error, skipped_report

    part.identities.append((None, obj.prefix))  # nor is it a duplicate
    if obj.known and not has_error(obj.findings):
        _add_cross(part, obj, job, subjects)
    part.reports.append(skipped_report(obj, reason))


def _trimmed(obj: LoadedObject, profiles: tuple[ValidationProfile, ...]) -> LoadedObject:
    """The object as light as its owner's cross-object checks allow (core kinds are sent whole)."""
    if obj.info is not None:
        for profile in profiles:
            # reads, not owns: a scheduler's own core-kind objects (YuniKorn's ConfigMaps) are trimmed by it, and
            # keep what it needs to place its findings inside them (their document's lines).
            if profile.reads(obj.info.scheduler, obj.info.group):
                return profile.trim(obj)
    return LoadedObject(obj.origin, Document(obj.origin, None), obj.prefix, obj.body, obj.info, read_for=obj.read_for)


def _merge(parts: list[FilePart], job: Job, closed: bool) -> ValidationReport:
    return merge_parts(parts, job, closed)[0]


def merge_parts(parts: list[FilePart], job: Job, closed: bool,
                keep: bool = False) -> tuple[ValidationReport, set[int]]:
    """The report of every part in order, duplicates and cross-object findings added. With ``keep`` (validate
    --cache) each part keeps its subjects' findings, and a part's kept findings are reused instead of checking its
    subjects again while the rest is unchanged; returns the numbers of the parts whose kept findings changed."""
    reports: list[DocumentReport] = []
    first: dict[tuple[str, str, str, str], Origin] = {}
    offsets: list[int] = []
    lines = _LineCache()
    for part in parts:
        offset = len(reports)
        offsets.append(offset)
        reports.extend(part.reports)
        for i, (key, prefix) in enumerate(part.identities):
            if key is None:
                continue
            report = reports[offset + i]
            if key in first:
                name_line = lines.line(report.origin, (*prefix, "metadata", "name"))
                _add(report, _duplicate(report, first[key], name_line))
            else:
                first[key] = report.origin
    merged = _Merged(parts, offsets, reports, job, closed, keep, lines)
    # Kinds counted once: a scheduler none of whose kinds is in the input is not asked (50,000 Workloads need not
    # be scanned for Volcano's and YuniKorn's checks to find nothing).
    present = merged.kinds_present()
    for profile in job.profiles:
        if profile.cross_object_needs is None or not present.isdisjoint(profile.cross_object_needs):
            merged.check(profile)
    return ValidationReport(reports), merged.changed


class _Merged:
    """The cross-object checks over every part, one profile at a time."""

    def __init__(self, parts: list[FilePart], offsets: list[int], reports: list[DocumentReport], job: Job,
                 closed: bool, keep: bool, lines: _LineCache) -> None:
        self.parts, self.offsets, self.reports = parts, offsets, reports
        self.job, self.closed, self.keep, self.lines = job, closed, keep, lines
        self.lazy = subject_kinds(job.profiles)
        self.changed: set[int] = set()
        self.duplicates = {i for i, report in enumerate(reports)
                           if report.findings and any(f.rule_id == "LOAD-DUPLICATE" for f in report.findings)}

    def included(self, index: int) -> bool:
        """As in one process: a duplicate takes no part in the cross-object checks."""
        return index not in self.duplicates

    def kinds_present(self) -> set[str]:
        present = {obj.kind for part in self.parts for _, obj in part.cross}
        present.update(kind for part in self.parts for _, kind in part.subject_kinds)
        return present

    def check(self, profile: ValidationProfile) -> None:
        reads, own = profile.cross_object_reads, profile.cross_object_subjects
        # Subjects of another profile's kinds are this one's objects like any other.
        foreign = {kind for kind in self.lazy - own if reads is None or kind in reads}
        contexts = [self._context(n, part, reads, foreign) for n, part in enumerate(self.parts)]
        fingerprint = self._fingerprint(profile, contexts) if self.keep and own else b""
        objects: list[LoadedObject] = []
        owner: dict[int, tuple[int, int, bool]] = {}  # id(object) -> (part number, report index in it, own subject)
        checked_now: dict[int, tuple[int, ...]] = {}
        for n, part in enumerate(self.parts):
            context = contexts[n]
            mine: list[tuple[int, LoadedObject]] = []
            checked = tuple(i for i, kind in part.subject_kinds if kind in own)
            if self.duplicates and checked:
                checked = tuple(i for i in checked if self.included(self.offsets[n] + i))
            if checked:
                kept = part.subject_findings.get(profile.scheduler) if self.keep else None
                if kept is not None and kept.fingerprint == fingerprint and kept.checked == checked:
                    self._reuse(n, kept)
                else:
                    wanted = set(checked)
                    mine = [(i, obj) for i, obj in part.loaded_subjects() if i in wanted]
                    checked_now[n] = checked
            for i, obj in context:
                owner[id(obj)] = (n, i, False)
            for i, obj in mine:
                owner[id(obj)] = (n, i, True)
            if mine:
                objects.extend(obj for _, obj in heapq.merge(context, mine, key=_first))  # in input order
            else:
                objects.extend(obj for _, obj in context)
        found: dict[int, list[tuple[int, Finding]]] = {n: [] for n in checked_now}
        for obj, finding in profile.cross_object(seen_by(profile, objects), self.closed):
            n, i, subject = owner[id(obj)]
            report = self.reports[self.offsets[n] + i]
            if report.skipped is not None:
                continue  # a skipped object is referred to, never reported on
            line = finding.line if finding.line is not None else self.lines.line(obj.origin,
                                                                                 (*obj.prefix, *finding.path))
            located = with_line(finding, line)
            _add(report, located)
            if subject:
                found[n].append((i, located))
        if self.keep:
            for n, checked in checked_now.items():
                self.parts[n].subject_findings[profile.scheduler] = SubjectFindings(fingerprint, checked,
                                                                                    tuple(found[n]))
                self.changed.add(n)

    def _context(self, n: int, part: FilePart, reads: frozenset[str] | None,
                 foreign: set[str]) -> list[tuple[int, LoadedObject]]:
        """The part's objects the profile reads besides its own subjects, in input order."""
        offset = self.offsets[n]
        context = [(i, obj) for i, obj in part.cross
                   if (reads is None or obj.kind in reads) and self.included(offset + i)]
        if foreign and any(kind in foreign for _, kind in part.subject_kinds):
            others = [(i, obj) for i, obj in part.loaded_subjects()
                      if obj.kind in foreign and self.included(offset + i)]
            context = list(heapq.merge(context, others, key=_first))
        return context

    def _fingerprint(self, profile: ValidationProfile, contexts: list[list[tuple[int, LoadedObject]]]) -> bytes:
        """What a subject's findings may depend on besides the subject: every other object the profile reads (in
        input order) and --closed."""
        digest = hashlib.sha256(f"{profile.scheduler}\0{self.closed}\0".encode())
        for part, context in zip(self.parts, contexts, strict=True):
            known = {i: d for (i, _), d in zip(part.cross, part.digests(), strict=True)}
            for i, obj in context:
                digest.update(known[i] if i in known else object_digest(obj))
        return digest.digest()

    def _reuse(self, n: int, kept: SubjectFindings) -> None:
        offset = self.offsets[n]
        for i, finding in kept.findings:
            _add(self.reports[offset + i], finding)


def _first(entry: tuple[int, LoadedObject]) -> int:
    return entry[0]


def _add(report: DocumentReport, finding: Finding) -> None:
    report.findings.append(finding)
    report.findings.sort(key=finding_order)


def _duplicate(report: DocumentReport, other: Origin, line: int) -> Finding:
    found = error("LOAD-DUPLICATE", ("metadata", "name"),
                  f"Duplicate value: {report.kind} {report.display_name} ({report.origin}) is also defined at {other}",
                  DUPLICATE_HINT)
    return with_line(found, line)


class _LineCache:
    """Lines of findings made in the parent (duplicates, cross-object checks), by re-reading only the
    files that have some."""

    def __init__(self) -> None:
        self.documents: dict[str, list[Document]] = {}

    def line(self, origin: Origin, path: FieldPath) -> int:
        """The line of ``path`` (from the top of the document) in the document at ``origin``."""
        documents = self.documents.get(origin.file)
        if documents is None:
            documents = read_documents(origin.file)
            self.documents[origin.file] = documents
        return documents[origin.index].line_of(path)




# --- reading for the gate: the objects, and validate's per-object check of each made where its file is read ----


@dataclass
class CheckedFile:
    """One file as a process read it for the gate (kqctl.validate.gate): its objects, each with validate's
    per-object check made ahead (None where the gate makes it itself, if it gets that far)."""

    objects: list[LoadedObject] = field(default_factory=list)
    checks: list[ObjectCheck | None] = field(default_factory=list)
    # The fields each check fills in (gate.defaulted_fields of the object and the body it stores), where known.
    filled: list[tuple[FieldPath, ...] | None] = field(default_factory=list)
    unreadable: InputError | None = None
    # Something other than a located input error went wrong: the file is read again here, as one process would.
    failed: bool = False


def read_checked(kinds: KindRegistry, names: list[str], strict: bool, checks: Checks,
                 notes: list[str], jobs: int | None = None, cache: CheckedFileCache | None = None,
                 prepare: Prepare | None = None) -> LoadResult:
    """:func:`~kqctl.load.objects.read_files` of ``names`` on every core, each object's per-object check (with
    ``checks.profiles``) made by the process that read its file and kept in ``checks``, for the gate to take
    instead of making it again. The result is read_files' (objects, lines, unreadable files, duplicates), in
    input order; a small input is read in this process only, without checks made ahead.

    With a ``cache`` (``--cache DIR``), a file whose content, name and setting are unchanged is taken as an earlier
    run read and checked it, and every other file read without error is kept there for the next run.

    ``prepare(obj, stored, alike)`` is called in this process on each object checked ahead whose check keeps a status
    the gate admits it with (``stored``, the body the gate gives it if it admits it; ``alike``, the check's
    :attr:`~kqctl.validate.runner.ObjectCheck.alike`), as soon as its file is read here
    or received from a worker, while the workers may still read: work the command does on the admitted objects
    anyway (decoding them) gets done on this core meanwhile. Not for a file taken from the cache."""
    workers = jobs or default_jobs()
    if cache is None and not worth_parallel(names, workers):
        return read_files(kinds, names, strict, notes=notes)
    job = Job(kinds, checks.profiles, strict)
    parts: list[CheckedFile | None] = [cache.get(name) if cache is not None and name != "-" else None
                                       for name in names]
    missing = [i for i, part in enumerate(parts) if part is None]
    fresh_parts = _read_checked_parts([names[i] for i in missing], job, workers, prepare)
    for i, fresh in zip(missing, fresh_parts, strict=True):
        parts[i] = fresh
        if cache is not None and names[i] != "-":
            cache.put(names[i], fresh)
    objects: list[LoadedObject] = []
    unreadable: list[InputError] = []
    for part in parts:
        assert part is not None
        if part.unreadable is not None:
            unreadable.append(part.unreadable)
        for obj, check, filled in zip(part.objects, part.checks, part.filled, strict=True):
            if check is not None:
                checks.add(obj, check, filled)
        objects.extend(part.objects)
    mark_duplicates(objects)
    return LoadResult(objects, unreadable, [STDIN_NAME if name == "-" else name for name in names], notes)


class CheckedFileCache(Protocol):
    """Where :func:`read_checked` keeps a file as read and checked (kqctl.validate.cache.ReadCache)."""

    def get(self, name: str) -> CheckedFile | None: ...

    def put(self, name: str, part: CheckedFile) -> None: ...


def _read_checked_parts(names: list[str], job: Job, workers: int, prepare: Prepare | None = None) \
        -> list[CheckedFile]:
    """Each file read and checked, in input order: on every core when there is enough to share."""
    on_part = _preparing(prepare) if prepare is not None else None
    if not worth_parallel(names, workers):
        parts = [_read_checked_one(name, job) for name in names]
        if on_part is not None:
            for part in parts:
                on_part(part)
        return parts
    parts = _parts(names, job, workers, _read_checked_file, on_part=on_part)
    # A part a worker could not make is read again here, which raises what one process raises.
    return [_read_checked_one(name, job, ahead=False) if part.failed else part
            for name, part in zip(names, parts, strict=True)]


def _preparing(prepare: Prepare) -> Callable[[CheckedFile], None]:
    def on_part(part: CheckedFile) -> None:
        for obj, check in zip(part.objects, part.checks, strict=True):
            if check is not None and not check.status_ignored:
                prepare(obj, check.stored, check.alike)
    return on_part


def _read_checked_file(arguments: tuple[str, Job]) -> CheckedFile:
    try:
        return _read_checked_one(*arguments)
    except Exception:  # noqa: BLE001  # read again by the parent, which raises it as one process would
        return CheckedFile(failed=True)


def _read_checked_one(name: str, job: Job, ahead: bool = True) -> CheckedFile:
    part = CheckedFile()
    try:
        documents = read_documents(name)
    except InputError as exc:
        part.unreadable = exc
        return part
    for document in documents:
        part.objects.extend(objects_of(job.kinds, document, job.strict))
    part.checks = [_check_ahead(obj, job.profiles) if ahead else None for obj in part.objects]
    part.filled = [_filled(obj, check) for obj, check in zip(part.objects, part.checks, strict=True)]
    return part


def _filled(obj: LoadedObject, check: ObjectCheck | None) -> tuple[FieldPath, ...] | None:
    """What the check's stored body fills in of the object as written (the gate stores it without a status it
    ignores, and works that out itself)."""
    if check is None or check.status_ignored:
        return None
    return tuple(defaulted_fields(obj.body, check.stored))


def _check_ahead(obj: LoadedObject, profiles: tuple[ValidationProfile, ...]) -> ObjectCheck | None:
    """validate's per-object check of an object the gate will check (known, read without error), or None."""
    from kqctl.validate.runner import check_object, has_error

    if not obj.known or has_error(obj.findings):
        return None
    try:
        return check_object(obj, profiles)
    except Exception:  # noqa: BLE001  # the gate checks it again and fails as one process would
        return None
