"""Models of the core Kubernetes objects Kueue reads (Namespace, PriorityClass, LimitRange).

Also the small typed reader every model builder uses: it reads a JSON-like mapping the way Go's
decoder would accept it and raises :class:`ModelError` with the field path otherwise (an object
Kueue could not even decode has no meaning to simulate).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, TypeGuard

from kqctl.k8s.scalars import LiteralFloat
from kqctl.origin import FieldPath, Origin, format_path


class ModelError(ValueError):
    """A field whose JSON type or format Kueue's Go types cannot hold."""

    def __init__(self, path: FieldPath, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{format_path(path)}: {message}" if path else message)


# RFC 3339 as metav1.Time reads it; fractional seconds are accepted and kept to microseconds.
_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def parse_time(raw: Any, path: FieldPath) -> datetime:
    """An RFC 3339 timestamp (or a datetime the YAML loader already made) as an aware datetime."""
    if isinstance(raw, datetime):
        return raw if raw.tzinfo is not None else raw.replace(tzinfo=timezone.utc)
    match = _RFC3339.match(raw) if isinstance(raw, str) else None
    if match is None:
        raise ModelError(path, f"{raw!r} is not an RFC 3339 time")
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    offset = timedelta(0) if zulu else timedelta(hours=int(off_h), minutes=int(off_m))
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro,
            tzinfo=timezone(-offset if sign == "-" else offset),
        )  # fmt: skip
    except ValueError as exc:
        raise ModelError(path, f"{raw!r} is not a valid time: {exc}") from exc


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, answered without the ABC machinery for the plain dicts (and the None) that
    nearly every read meets: an ABC check costs a Python-level ``__instancecheck__`` call, and the engine makes
    about a million of them on 50,000 workloads."""
    if type(value) is dict:
        return True
    return value is not None and isinstance(value, Mapping)


class Fields:
    """Typed reads from one JSON object, each failure located by its field path.

    Absent keys and explicit ``null`` both read as "unset", as in Go.
    """

    def __init__(self, obj: Any, path: FieldPath = ()) -> None:
        if obj is None:
            obj = {}
        if not is_mapping(obj):
            raise ModelError(path, f"expected an object, got {json_kind(obj)}")
        self.obj: Mapping[str, Any] = obj
        self.path = path

    def at(self, key: str | int) -> FieldPath:
        return (*self.path, key)

    def raw(self, key: str) -> Any:
        return self.obj.get(key)

    def has(self, key: str) -> bool:
        return self.obj.get(key) is not None

    def string(self, key: str, default: str = "") -> str:
        value = self.opt_string(key)
        return default if value is None else value

    def opt_string(self, key: str) -> str | None:
        value = self.obj.get(key)
        if value is None or isinstance(value, str):
            return value
        raise ModelError(self.at(key), f"expected a string, got {json_kind(value)}")

    def integer(self, key: str, default: int = 0) -> int:
        value = self.opt_integer(key)
        return default if value is None else value

    def opt_integer(self, key: str) -> int | None:
        value = self.obj.get(key)
        if value is None:
            return None
        return as_integer(value, self.at(key))

    def boolean(self, key: str, default: bool) -> bool:
        value = self.obj.get(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        raise ModelError(self.at(key), f"expected a boolean, got {json_kind(value)}")

    def child(self, key: str) -> Fields:
        """The nested object (empty when unset)."""
        return Fields(self.obj.get(key), self.at(key))

    def opt_child(self, key: str) -> Fields | None:
        return self.child(key) if self.has(key) else None

    def items(self, key: str) -> Iterator[Fields]:
        """The elements of a list of objects."""
        for i, item in enumerate(self.list(key)):
            yield Fields(item, (*self.at(key), i))

    def list(self, key: str) -> list[Any]:
        value = self.obj.get(key)
        if value is None:
            return []
        if isinstance(value, list):
            return value
        raise ModelError(self.at(key), f"expected a list, got {json_kind(value)}")

    def strings(self, key: str) -> tuple[str, ...]:
        # Go's JSON decoder leaves a null element at its zero value, "" (the API server accepts it).
        values = ["" if value is None else value for value in self.list(key)]
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise ModelError((*self.at(key), i), f"expected a string, got {json_kind(value)}")
        return tuple(values)

    def string_map(self, key: str) -> dict[str, str]:
        # As strings(): a null value decodes to "" (labels: {k: null} is the label k with value "").
        values = {name: "" if value is None else value for name, value in self.child(key).obj.items()}
        for name, value in values.items():
            if not isinstance(value, str):
                raise ModelError((*self.at(key), name), f"expected a string, got {json_kind(value)}")
        return dict(values)

    def opt_time(self, key: str) -> datetime | None:
        value = self.obj.get(key)
        return None if value is None else parse_time(value, self.at(key))


def as_integer(value: Any, path: FieldPath) -> int:
    """A JSON integer; a YAML float with an integral value (``3.0``) reaches the server as ``3``."""
    if isinstance(value, bool):
        raise ModelError(path, "expected an integer, got bool")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, float):
        text = value.text if isinstance(value, LiteralFloat) else repr(value)
        raise ModelError(path, f"expected an integer, got number {text}")
    raise ModelError(path, f"expected an integer, got {json_kind(value)}")


def json_kind(value: Any) -> str:
    """How Go's JSON decoder names a value's kind in its errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return "string"


def metadata(body: Mapping[str, Any]) -> Fields:
    return Fields(body, ()).child("metadata")


DEFAULT_NAMESPACE = "default"


def namespace_of(meta: Any, namespaced: bool) -> str | None:
    """An object's namespace as written in its metadata; a namespaced object without one lands in ``default``, as
    kubectl puts it (None for cluster-scoped objects)."""
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    if isinstance(namespace, str) and namespace:
        return namespace
    return DEFAULT_NAMESPACE if namespaced else None


# --- core/v1 and scheduling.k8s.io/v1 kinds -----------------------------------------------------


@dataclass(frozen=True)
class Namespace:
    name: str
    labels: Mapping[str, str] = field(hash=False)
    origin: Origin | None = None

    @classmethod
    def from_v1(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Namespace:
        meta = metadata(body)
        return cls(meta.string("name"), meta.string_map("labels"), origin)


@dataclass(frozen=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: what a Pod-PriorityClass reference resolves to (REQ-3)."""

    name: str
    value: int
    global_default: bool
    origin: Origin | None = None

    @classmethod
    def from_v1(cls, body: Mapping[str, Any], origin: Origin | None = None) -> PriorityClass:
        fields = Fields(body)
        return cls(
            metadata(body).string("name"),
            fields.integer("value"),
            fields.boolean("globalDefault", False),
            origin,
        )


@dataclass(frozen=True)
class LimitRange:
    """core/v1 LimitRange: its ``spec.limits`` items, as raw mappings (REQ-5 reads them)."""

    namespace: str
    name: str
    items: tuple[Mapping[str, Any], ...] = field(hash=False)
    origin: Origin | None = None

    @classmethod
    def from_v1(cls, body: Mapping[str, Any], origin: Origin | None = None) -> LimitRange:
        meta = metadata(body)
        limits = Fields(body).child("spec").items("limits")
        return cls(meta.string("namespace"), meta.string("name"), tuple(item.obj for item in limits), origin)


def total_allocatable(allocatables: Iterable[Mapping[str, int]]) -> dict[str, int] | None:
    """The nodes' allocatable added up per resource name, in whatever exact units the scheduler keeps them (the
    capacity its root queue holds); None when there is no node at all, which is not a cluster of size 0."""
    total: dict[str, int] | None = None
    for allocatable in allocatables:
        total = {} if total is None else total
        for name, value in allocatable.items():
            total[name] = total.get(name, 0) + value
    return total


def controller_kind(meta: Mapping[str, Any]) -> str:
    """The kind of the object's controller: its ownerReference with ``controller: true`` ("" without one). A pod a
    controller owns (a ReplicaSet's, a Job's, a StatefulSet's) is made again by it when it is deleted; a bare pod
    is not (kube-controller-manager's controllers act on the pods they own, ``metav1.GetControllerOf``)."""
    references = meta.get("ownerReferences")
    for reference in references if isinstance(references, list) else ():
        if isinstance(reference, Mapping) and reference.get("controller") is True:
            kind = reference.get("kind")
            return kind if isinstance(kind, str) and kind else "controller"
    return ""
