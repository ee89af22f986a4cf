"""Validating many files on every core: each worker reads and checks whole files on its own.

Per-object steps (schema, CEL, webhooks) need nothing but the object, so workers run them and
send back finished reports. Checks across objects run afterwards in the parent, on trimmed
copies of the objects (a Workload only needs its queue and priority references there); lines
for those findings are found by re-reading the few files that have any.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass, field
from typing import Any

from kqctl.api.origin import FieldPath, Origin
from kqctl.errors import InputError
from kqctl.load.documents import Document, decode_text, parse_documents
from kqctl.load.objects import DUPLICATE_HINT, LoadedObject, identity, objects_of
from kqctl.load.sources import read_source
from kqctl.validate.findings import Finding, error
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.runner import finding_order, with_line

# Below this much input a second process costs more than it saves.
PARALLEL_MIN_BYTES = 4 * 1024 * 1024


@dataclass
class FilePart:
    """What a worker sends back for one file."""

    reports: list[DocumentReport] = field(default_factory=list)
    identities: list[tuple[tuple[str, str, str, str] | None, int]] = field(default_factory=list)  # (id, name line)
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


def validate_files_parallel(files: list[str], strict: bool, closed: bool, jobs: int) -> tuple[ValidationReport, bool]:
    """Returns the report and whether any input was unreadable."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with context.Pool(min(jobs, len(files))) as pool:
        parts = pool.map(_validate_file, [(f, strict) for f in files], chunksize=1)
    return _merge(parts, closed), any(p.unreadable is not None for p in parts)


def _validate_file(arguments: tuple[str, bool]) -> FilePart:
    try:
        return _validate_one(*arguments)
    except InputError:
        raise
    except Exception as exc:  # only picklable errors may cross back to the parent process
        raise RuntimeError(f"{arguments[0]}: {type(exc).__name__}: {exc}") from None


def _validate_one(name: str, strict: bool) -> FilePart:
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
        for obj in objects_of(document, strict):
            findings = list(obj.findings)
            if obj.known and not has_error(findings):
                findings.extend(validate_object(obj))
            report = report_for(obj, [located(obj, f) for f in findings])
            part.identities.append((identity(obj), obj.line_of(("metadata", "name"))))
            if obj.known and not has_error(obj.findings):
                part.cross.append((len(part.reports), _trimmed(obj)))
            part.reports.append(report)
    return part


def _trimmed(obj: LoadedObject) -> LoadedObject:
    """A copy light enough to send between processes, with what the cross-object checks read."""
    body = obj.body
    if obj.kind == "Workload":
        spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        body = {
            "apiVersion": body.get("apiVersion"), "kind": body.get("kind"),
            "metadata": {k: meta[k] for k in ("name", "namespace", "labels") if k in meta},
            "spec": {**{k: spec[k] for k in ("queueName", "priorityClassRef", "priorityClassName",
                                             "priorityClassSource") if k in spec},
                     "podSets": [_trimmed_pod_set(ps) for ps in spec.get("podSets") or [] if isinstance(ps, dict)]},
        }
    return LoadedObject(obj.origin, Document(obj.origin, None), obj.prefix, body, obj.info)


def _trimmed_pod_set(pod_set: dict[str, Any]) -> dict[str, Any]:
    """Only what the pod's requests are computed from (REQ-6)."""
    template = pod_set.get("template")
    raw_spec = template.get("spec") if isinstance(template, dict) else None
    spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
    containers = {key: [_resources_only(c) for c in spec.get(key) or [] if isinstance(c, dict)]
                  for key in ("containers", "initContainers")}
    rest = {key: spec[key] for key in ("overhead", "resources") if key in spec}
    kept: dict[str, Any] = {key: pod_set[key] for key in ("name", "count") if key in pod_set}
    return {**kept, "template": {"spec": {**containers, **rest}}}


def _resources_only(container: dict[str, Any]) -> dict[str, Any]:
    return {key: container[key] for key in ("resources", "restartPolicy") if key in container}


def _merge(parts: list[FilePart], closed: bool) -> ValidationReport:
    from kqctl.validate.crossobject import cross_object_findings

    reports: list[DocumentReport] = []
    first: dict[tuple[str, str, str, str], Origin] = {}
    cross: list[tuple[DocumentReport, LoadedObject]] = []
    for part in parts:
        offset = len(reports)
        reports.extend(part.reports)
        for i, (key, name_line) in enumerate(part.identities):
            if key is None:
                continue
            if key in first:
                _add(reports[offset + i], _duplicate(reports[offset + i], first[key], name_line))
            else:
                first[key] = reports[offset + i].origin
        cross.extend((reports[offset + i], obj) for i, obj in part.cross)
    # As in one process: a duplicate takes no part in the cross-object checks.
    included = [(report, obj) for report, obj in cross
                if not any(f.rule_id == "LOAD-DUPLICATE" for f in report.findings)]
    by_object = {id(obj): report for report, obj in included}
    lines = _LineCache()
    for obj, finding in cross_object_findings([obj for _, obj in included], closed):
        _add(by_object[id(obj)], with_line(finding, lines.line(obj, finding.path)))
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
    """Lines of cross-object findings, by re-reading only the files that have some."""

    def __init__(self) -> None:
        self.documents: dict[str, list[Document]] = {}

    def line(self, obj: LoadedObject, path: FieldPath) -> int:
        documents = self.documents.get(obj.origin.file)
        if documents is None:
            source = read_source(obj.origin.file)
            documents = parse_documents(decode_text(source.data, source.name), source.name)
            self.documents[obj.origin.file] = documents
        return documents[obj.origin.index].line_of((*obj.prefix, *path))


