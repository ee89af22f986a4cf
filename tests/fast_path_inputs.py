"""Inputs for the tests that hold a fast path to its general path: every Kueue object of the samples and
of a few conformance snapshots, and variants of them with one field replaced by an odd value or
removed (what the fuzz tests do to whole files, here per object and exhaustively)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from support import REPO

from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import parse_documents
from kqctl.origin import FieldPath

ODD_VALUES: tuple[Any, ...] = (
    None, "", "x", "1Gi", "500m", " 2 ", "-1", "1e3", "0x10", "bogus quantity", 0, 1, -1, 2**31, 2**63, 1.5,
    LiteralFloat("2.0"), LiteralFloat("0.5"), LiteralFloat(".inf"), True, False, [], {}, ["a"], {"k": "v"},
)
_CONFORMANCE_SNAPSHOTS = (
    "flavor-assign/borrow-before-try-next-flavor",
    "preemption/long-range-preemption",
)


def sample_objects() -> list[dict[str, Any]]:
    """Every mapping document of the samples and of a few conformance snapshots."""
    files = sorted((REPO / "samples").rglob("*.yaml"))
    for case in _CONFORMANCE_SNAPSHOTS:
        files.extend(sorted((REPO / "tests" / "conformance" / "data" / "kueue" / case).rglob("*.yaml")))
    objects: list[dict[str, Any]] = []
    for path in files:
        objects.extend(_objects_in(path))
    return objects


def _objects_in(path: Path) -> Iterator[dict[str, Any]]:
    try:
        documents = parse_documents(path.read_text(encoding="utf-8"), str(path))
    except Exception:  # noqa: BLE001  # broken samples are broken on purpose
        return
    for document in documents:
        body = document.body
        items = body.get("items") if isinstance(body, dict) and str(body.get("kind", "")).endswith("List") else None
        for item in items if isinstance(items, list) else [body]:
            if isinstance(item, dict) and isinstance(item.get("kind"), str):
                yield item


def field_paths(value: Any, prefix: FieldPath = ()) -> Iterator[FieldPath]:
    """The path of every value inside ``value`` (not the root itself)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from field_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield (*prefix, i)
            yield from field_paths(item, (*prefix, i))


def replaced(value: Any, path: FieldPath, new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced (or removed, when ``new`` is _REMOVE)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if not rest and new is REMOVE:
            del copy[head]
        else:
            copy[head] = replaced(value[head], rest, new)
        return copy
    copy_list = list(value)
    if not rest and new is REMOVE:
        del copy_list[head]  # type: ignore[arg-type]
    else:
        copy_list[head] = replaced(value[head], rest, new)  # type: ignore[index]
    return copy_list


REMOVE = object()


def variants(body: dict[str, Any], per_field: int = 3) -> Iterator[dict[str, Any]]:
    """``body``, then ``body`` with each field in turn removed or replaced by ``per_field`` of the odd
    values (a different few for each field, so that every odd value lands on many fields)."""
    yield body
    for n, path in enumerate(field_paths(body)):
        yield replaced(body, path, REMOVE)
        for k in range(per_field):
            yield replaced(body, path, ODD_VALUES[(n * per_field + k) % len(ODD_VALUES)])


def typed(value: Any) -> Any:
    """A value with the types and the key order of everything in it made part of the comparison."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, LiteralFloat):
        return ("LiteralFloat", value.text)
    return (type(value).__name__, value)
