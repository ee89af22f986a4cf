"""From inputs to objects: documents, ``kind: List`` expansion, kinds and duplicates.

Problems that concern one object (not a mapping, no kind, an unknown kind, a duplicate) are
kept as findings on that object so ``validate`` can report every document; inputs that cannot
be read at all are kept as :class:`InputError` values.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from kqctl.errors import InputError
from kqctl.findings import Finding, error, warning
from kqctl.k8s.core import namespace_of
from kqctl.k8s.kinds import KindInfo, KindRegistry, split_api_version
from kqctl.load.documents import Document, decode_text, parse_documents
from kqctl.load.sources import STDIN_NAME, expand_paths, read_source
from kqctl.origin import FieldPath, Origin, format_path


@dataclass
class LoadedObject:
    """One Kubernetes object as read, with where it came from."""

    origin: Origin
    document: Document
    prefix: FieldPath
    body: Any
    info: KindInfo | None
    findings: list[Finding] = field(default_factory=list)
    # (field path, --set text) of every value a --set put there: an error there names the --set, not the file.
    overridden: tuple[tuple[FieldPath, str], ...] = ()
    # Read from a cluster: already as the API server stores it (defaulted, admitted), not checked again.
    stored: bool = False
    # The fields the API server fills in on create that the input left out (CRD and webhook defaults), once the
    # object went through the gate (kqctl.validate.gate); () before, or for an object taken as given.
    defaulted: tuple[FieldPath, ...] = ()
    # The scheduler the kqctl snapshot holding this object was saved for (its List's kqctl.dev/scheduler
    # annotation), None elsewhere: another scheduler's pods in it are other pods on the nodes, not that scheduler's.
    read_for: str | None = None

    def set_by(self, path: FieldPath) -> str | None:
        """The --set that wrote ``path`` (or a field above it), if one did."""
        for prefix, text in reversed(self.overridden):
            if tuple(path[:len(prefix)]) == prefix:
                return text
        return None

    def set_behind(self, finding: Finding) -> tuple[FieldPath, str] | None:
        """The field and the --set behind ``finding``: the --set that wrote its own field, else one that wrote a
        field it weighs that one against (``Finding.involves``); None when no --set did."""
        for path in (finding.path, *finding.involves) if finding.path else finding.involves:
            text = self.set_by(path)
            if text is not None:
                return tuple(path), text
        return None

    def set_source(self, finding: Finding) -> str | None:
        """"the value comes from --set '...'" (or "the value of FIELD ...", for a field ``finding`` weighs its own
        against), for a finding a --set is behind; None for one no --set is."""
        behind = self.set_behind(finding)
        if behind is None:
            return None
        path, text = behind
        if path == tuple(finding.path):
            return f"the value comes from --set {text!r}"
        return f"the value of {format_path(path)} comes from --set {text!r}"

    @property
    def api_version(self) -> str:
        value = self.body.get("apiVersion") if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else ""

    @property
    def kind(self) -> str:
        value = self.body.get("kind") if isinstance(self.body, dict) else None
        if isinstance(value, str):
            return value
        return self.info.kind if self.info is not None and not self.info.api_object else ""

    @property
    def version(self) -> str:
        return split_api_version(self.api_version)[1]

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.body.get("metadata") if isinstance(self.body, dict) else None
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str | None:
        name = self.metadata.get("name")
        if isinstance(name, str):
            return name
        # A configuration file that is not an API object is named after its file.
        return os.path.basename(self.origin.file) if self.info is not None and not self.info.api_object else None

    @property
    def namespace(self) -> str | None:
        """The namespace as written; namespaced objects without one land in ``default`` (kubectl's default)."""
        return namespace_of(self.metadata, self.info is not None and self.info.namespaced)

    @property
    def known(self) -> bool:
        return self.info is not None

    def line_of(self, path: FieldPath) -> int:
        return self.document.line_of((*self.prefix, *path))

    def describe(self) -> str:
        name = self.name or "<unnamed>"
        where = f"{self.namespace}/{name}" if self.namespace and self.info and self.info.namespaced else name
        return f"{self.kind or '<no kind>'} {where} ({self.origin})"


@dataclass
class LoadResult:
    objects: list[LoadedObject]
    unreadable: list[InputError]
    files: list[str] = field(default_factory=list)  # in reading order ("<stdin>" for stdin)
    notes: list[str] = field(default_factory=list)  # what was left out of the inputs and why, for stderr

    @property
    def known_objects(self) -> list[LoadedObject]:
        return [o for o in self.objects if o.known and not _has_errors(o)]


def _has_errors(obj: LoadedObject) -> bool:
    return any(f.severity.value == "error" for f in obj.findings)


def load_paths(kinds: KindRegistry, paths: Iterable[str], recursive: bool = False, strict: bool = False,
               stdin: BinaryIO | None = None) -> LoadResult:
    """Read every path (``-`` is stdin) into objects of ``kinds``. Unreadable inputs do not stop the others."""
    notes: list[str] = []
    return read_files(kinds, expand_paths(paths, recursive, notes), strict, stdin, notes)


def read_files(kinds: KindRegistry, names: list[str], strict: bool = False, stdin: BinaryIO | None = None,
               notes: list[str] | None = None) -> LoadResult:
    """Every file of ``names`` (as :func:`~kqctl.load.sources.expand_paths` lists them) into objects of ``kinds``,
    duplicates marked; ``notes``: what listing them left out."""
    objects: list[LoadedObject] = []
    unreadable: list[InputError] = []
    files: list[str] = []
    for name in names:
        files.append(STDIN_NAME if name == "-" else name)
        try:
            documents = read_documents(name, stdin)
        except InputError as exc:
            unreadable.append(exc)
            continue
        for document in documents:
            objects.extend(objects_of(kinds, document, strict))
    mark_duplicates(objects)
    return LoadResult(objects, unreadable, files, notes if notes is not None else [])


def read_documents(name: str, stdin: BinaryIO | None = None) -> list[Document]:
    """The documents of one file (``-``: stdin); an :class:`InputError` when it cannot be read."""
    source = read_source(name, stdin)
    return parse_documents(decode_text(source.data, source.name), source.name)


def load_text(kinds: KindRegistry, text: str, name: str = "<text>", strict: bool = False) -> LoadResult:
    """Objects from YAML/JSON text (used by tests and by callers that already hold the text)."""
    objects = [obj for document in parse_documents(text, name) for obj in objects_of(kinds, document, strict)]
    mark_duplicates(objects)
    return LoadResult(objects, [])


def objects_of(kinds: KindRegistry, document: Document, strict: bool = False) -> list[LoadedObject]:
    """The objects a document holds: itself, or the items of a ``kind: List`` (``kubectl get -o yaml``)."""
    body = document.body
    if body is None:
        return []  # an empty document (a stray ``---``), ignored as kubectl does
    if isinstance(body, dict) and _is_list(body):
        return _list_items(kinds, document, body, strict)
    return [_object(kinds, document, (), body, document.origin, strict)]


def _is_list(body: dict[str, Any]) -> bool:
    kind = body.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in body and "spec" not in body


def _list_items(kinds: KindRegistry, document: Document, body: dict[str, Any], strict: bool) -> list[LoadedObject]:
    items = body.get("items")
    if not isinstance(items, list):
        obj = _object(kinds, document, (), body, document.origin, strict)
        obj.findings.append(error("LOAD-LIST", ("items",), "Invalid value: items of a List must be a sequence"))
        return [obj]
    result: list[LoadedObject] = []
    read_for = saved_for(body)
    for i, item in enumerate(items):
        origin = Origin(document.origin.file, document.origin.index, document.line_of(("items", i)), i)
        obj = _object(kinds, document, ("items", i), item, origin, strict)
        obj.read_for = read_for
        result.append(obj)
    return result


SAVED_FOR_ANNOTATION = "kqctl.dev/scheduler"


def saved_for(body: dict[str, Any]) -> str | None:
    """The scheduler a snapshot saved by kqctl was read for (``kqctl.dev/scheduler`` on the List)."""
    meta = body.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    value = notes.get(SAVED_FOR_ANNOTATION) if isinstance(notes, dict) else None
    return value if isinstance(value, str) and value else None


def _object(kinds: KindRegistry, document: Document, prefix: FieldPath, body: Any, origin: Origin,
            strict: bool) -> LoadedObject:
    if not isinstance(body, dict):
        obj = LoadedObject(origin, document, prefix, body, None)
        obj.findings.append(error("LOAD-NOT-OBJECT", (), f"document is a {_type_name(body)}, expected a mapping"
                                  " with apiVersion, kind and metadata"))
        return obj
    obj = LoadedObject(origin, document, prefix, body, None)
    if "apiVersion" not in body and "kind" not in body:
        obj.info = kinds.recognise(body)  # a scheduler's configuration file, known by its content
        if obj.info is not None:
            return obj
    if not obj.api_version or not obj.kind:
        missing = [k for k in ("apiVersion", "kind") if not isinstance(body.get(k), str) or not body.get(k)]
        obj.findings.append(error("LOAD-NO-KIND", (missing[0],), f"Required value: {missing[0]} must be set"))
        return obj
    obj.info = kinds.info(obj.api_version, obj.kind, obj.name) or kinds.recognise(body)
    group = obj.api_version.partition("/")[0] if "/" in obj.api_version else ""
    if obj.info is None and (group in kinds.owned_groups or kinds.served_kind_like(group, obj.kind)):
        # The API server serves no such kind in a scheduler's groups; elsewhere only a miscased or plural
        # spelling of a kind kqctl reads (kind: pod) is known to be unserved, any other kind may well exist.
        obj.findings.append(_no_match(kinds, obj, group))
    elif obj.info is None:
        obj.findings.append(_skipped(obj, strict, kinds.reads))
    elif obj.version not in obj.info.versions:
        obj.findings.append(error("LOAD-VERSION", ("apiVersion",),
                                  f'no matches for kind "{obj.kind}" in version "{obj.api_version}"',
                                  _versions_hint(obj.info)))
        obj.info = None
    for dup in document.duplicate_keys:
        if dup[: len(prefix)] == prefix:
            obj.findings.append(error("SCHEMA-DUPLICATE-FIELD", dup[len(prefix):],
                                      f'duplicate field "{dup[-1]}"'))
    return obj


def _versions_hint(info: KindInfo) -> str:
    served = [f"{_group_prefix(info)}{v}" for v in info.versions if not v.startswith("v1alpha")]
    legacy = [f"{_group_prefix(info)}{v}" for v in info.versions if v.startswith("v1alpha")]
    text = f"{info.kind} is served as {' and '.join(served)}"
    return text + (f" (kqctl also reads the legacy {', '.join(legacy)} and converts it)" if legacy else "")


def _group_prefix(info: KindInfo) -> str:
    return f"{info.group}/" if info.group else ""


def _no_match(kinds: KindRegistry, obj: LoadedObject, group: str) -> Finding:
    """kubectl's "no matches for kind": a kind the group does not serve (a typo, wrong case, a plural)."""
    like = kinds.served_kind_like(group, obj.kind)
    served = kinds.group_kinds(group)
    if like is None:
        close = difflib.get_close_matches(obj.kind, served, n=1, cutoff=0.6)
        like = close[0] if close else None
    hint = f"did you mean {like}?" if like else f"the kinds of {group}: {', '.join(served)}"
    return error("LOAD-NO-MATCH", ("kind",), f'no matches for kind "{obj.kind}" in version "{obj.api_version}"', hint)


def _skipped(obj: LoadedObject, strict: bool, reads: str) -> Finding:
    """An object no kind of the registry takes; the hint says what the registry reads (the scheduler's own words
    when --scheduler names one)."""
    message = f"{obj.kind} ({obj.api_version}) is not a kind kqctl reads; skipped"
    hint = f"kqctl reads {reads}" if reads else None
    return error("LOAD-SKIPPED", ("kind",), message, hint) if strict else warning(
        "LOAD-SKIPPED", ("kind",), message, hint)


def _type_name(value: Any) -> str:
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def identity(obj: LoadedObject) -> tuple[str, str, str, str] | None:
    """(group, kind, namespace, name): two objects with the same identity are the same object."""
    info = obj.info
    if info is None or not info.api_object:
        return None
    meta = obj.metadata  # read once: this runs for every object of the input
    name = meta.get("name")
    if not isinstance(name, str):
        return None
    kind = "LocalQueue" if info.kind == "Queue" else info.kind  # LEG-1: the same kind renamed
    return info.group, kind, namespace_of(meta, info.namespaced) or "", name


DUPLICATE_HINT = "each object may be defined once across all inputs; --override lets the one read last win"


def mark_duplicates(objects: list[LoadedObject]) -> None:
    """A second definition of the same object is an error naming both places."""
    first: dict[tuple[str, str, str, str], LoadedObject] = {}
    for obj in objects:
        key = identity(obj)
        if key is None:
            continue
        if key in first:
            other = first[key]
            obj.findings.append(error(
                "LOAD-DUPLICATE", ("metadata", "name"),
                f"Duplicate value: {obj.describe()} is also defined at {other.origin}",
                DUPLICATE_HINT))
        else:
            first[key] = obj
