"""Validating many files on every core: each process (the workers and this one) reads and checks
whole files on its own.

Per-object steps (schema, CEL, webhooks) need nothing but the object, so they run where the file
is read, and workers send back finished reports. Checks across objects run afterwards in this
process, on trimmed copies of the objects (a Workload only needs its queue and priority
references and its pod sets' counts and requests there); lines for those findings, and for
duplicates, are found by re-reading the few files that have any.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from kqctl.errors import InputError
from kqctl.findings import Finding, error
from kqctl.k8s.kinds import KindRegistry
from kqctl.load.documents import Document, decode_text, parse_documents
from kqctl.load.objects import DUPLICATE_HINT, LoadedObject, identity, objects_of
from kqctl.load.sources import read_source
from kqctl.origin import FieldPath, Origin
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.runner import finding_order, seen_by, with_line
from kqctl.validate.skip import Skipping

# Below this much input a second process costs more than it saves.
PARALLEL_MIN_BYTES = 4 * 1024 * 1024
# Seconds between GIL hand-overs while workers send results (see validate_files_parallel).
RESULT_SWITCH_INTERVAL = 0.0005


@dataclass
class FilePart:
    """What a worker sends back for one file."""

    reports: list[DocumentReport] = field(default_factory=list)
    # (identity, field path prefix of the object in its document): the line of a duplicate's name is
    # looked up in the parent, only for duplicates.
    identities: list[tuple[tuple[str, str, str, str] | None, FieldPath]] = field(default_factory=list)
    cross: list[tuple[int, LoadedObject]] = field(default_factory=list)  # (report index, trimmed object)
    unreadable: InputError | None = None


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
    (the per-object steps); the cross-object checks always run again, over every file."""
    parts: list[FilePart | None] = [cache.get(name) for name in files]
    missing = [i for i, part in enumerate(parts) if part is None]
    names = [files[i] for i in missing]
    fresh = validate_parts(names, job, jobs) if worth_parallel(names, jobs) else [_validate_one(n, job) for n in names]
    for i, part in zip(missing, fresh, strict=True):
        parts[i] = part
        if part.unreadable is None:
            cache.put(files[i], part)
    done = [part for part in parts if part is not None]
    return _merge(done, job, closed), any(p.unreadable is not None for p in done)


class PartCache(Protocol):
    """Where :func:`validate_cached` keeps a file's part (kqctl.validate.cache)."""

    def get(self, name: str) -> FilePart | None: ...

    def put(self, name: str, part: FilePart) -> None: ...


def validate_parts(files: list[str], job: Job, jobs: int) -> list[FilePart]:
    """Each file's part, in input order, validated by ``jobs`` processes (this one included)."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    largest_first = sorted(range(len(files)), key=lambda i: -_size(files[i]))
    taken = context.Value("i", 0)
    workers = min(jobs, len(files)) - 1
    parts: list[FilePart | None] = [None] * len(files)
    # A worker writes a file's result into a pipe that holds 64 KiB: the pool's result thread here must take
    # the GIL from this busy thread for every 64 KiB, and with the default 5 ms switch interval a worker
    # waited about 0.2 s per file, idle. A short interval costs nothing while the result thread sleeps.
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(RESULT_SWITCH_INTERVAL)
    try:
        with context.Pool(workers, initializer=_share_counter, initargs=(taken,)) as pool:
            # One task per file at most: each takes the next file from the counter (None once all are taken).
            theirs = pool.imap_unordered(_take_file, [(files, largest_first, job)] * len(files), chunksize=1)
            for i, part in _files_taken(files, largest_first, job, taken):
                parts[i] = part
            for taken_by_worker in theirs:
                if taken_by_worker is not None:
                    i, part = taken_by_worker
                    parts[i] = part
    finally:
        sys.setswitchinterval(switch_interval)
    return [part for part in parts if part is not None]


# The counter of files taken so far, shared by this process and the workers (set in each worker).
_taken: Any = None


def _share_counter(taken: Any) -> None:
    global _taken
    _taken = taken


def _take_file(arguments: tuple[list[str], list[int], Job]) -> tuple[int, FilePart] | None:
    """In a worker: the next file from the shared counter, validated; None when none is left."""
    files, order, job = arguments
    return next(_files_taken(files, order, job, _taken), None)


def _files_taken(files: list[str], order: list[int], job: Job, taken: Any) -> Iterator[tuple[int, FilePart]]:
    """(input index, part) of each file taken from the shared counter, until every file is taken."""
    while True:
        with taken.get_lock():
            position = taken.value
            taken.value = position + 1
        if position >= len(order):
            return
        index = order[position]
        yield index, _validate_file((files[index], job))


def _validate_file(arguments: tuple[str, Job]) -> FilePart:
    try:
        return _validate_one(*arguments)
    except InputError:
        raise
    except Exception as exc:  # only picklable errors may cross back to the parent process
        raise RuntimeError(f"{arguments[0]}: {type(exc).__name__}: {exc}") from None


def _validate_one(name: str, job: Job) -> FilePart:
    from kqctl.validate.runner import has_error, located, report_for, unreadable_report, validate_object

    part = FilePart()
    try:
        source = read_source(name)
        documents = parse_documents(decode_text(source.data, source.name), source.name)
    except InputError as exc:
        part.unreadable = exc
        part.reports.append(unreadable_report(exc))
        return part
    for document in documents:
        for obj in objects_of(job.kinds, document, job.strict):
            reason = job.skipping.reason(obj) if job.skipping else None
            if reason is not None:
                _add_skipped(part, obj, reason, job)
                continue
            findings = list(obj.findings)
            if obj.known and not has_error(findings):
                findings.extend(validate_object(obj, job.profiles))
            report = report_for(obj, [located(obj, f) for f in findings], job.profiles)
            part.identities.append((identity(obj), obj.prefix))
            if obj.known and not has_error(obj.findings):
                part.cross.append((len(part.reports), _trimmed(obj, job.profiles)))
            part.reports.append(report)
    return part


def _add_skipped(part: FilePart, obj: LoadedObject, reason: str, job: Job) -> None:
    """A skipped object: no finding, never reported on, but others may still refer to it (cross-object)."""
    from kqctl.validate.runner import has_error, skipped_report

    part.identities.append((None, obj.prefix))  # nor is it a duplicate
    if obj.known and not has_error(obj.findings):
        part.cross.append((len(part.reports), _trimmed(obj, job.profiles)))
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
    reports: list[DocumentReport] = []
    first: dict[tuple[str, str, str, str], Origin] = {}
    cross: list[tuple[DocumentReport, LoadedObject]] = []
    lines = _LineCache()
    for part in parts:
        offset = len(reports)
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
        cross.extend((reports[offset + i], obj) for i, obj in part.cross)
    # As in one process: a duplicate takes no part in the cross-object checks.
    included = [(report, obj) for report, obj in cross
                if not any(f.rule_id == "LOAD-DUPLICATE" for f in report.findings)]
    by_object = {id(obj): report for report, obj in included}
    objects = [obj for _, obj in included]
    for profile in job.profiles:
        for obj, finding in profile.cross_object(seen_by(profile, objects), closed):
            if by_object[id(obj)].skipped is not None:
                continue  # a skipped object is referred to, never reported on
            line = finding.line if finding.line is not None else lines.line(obj.origin, (*obj.prefix, *finding.path))
            _add(by_object[id(obj)], with_line(finding, line))
    return ValidationReport(reports)


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
            source = read_source(origin.file)
            documents = parse_documents(decode_text(source.data, source.name), source.name)
            self.documents[origin.file] = documents
        return documents[origin.index].line_of(path)


