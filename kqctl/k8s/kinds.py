"""The kinds an API server serves, as kqctl needs to know them before parsing an object.

Each scheduler package declares its own kinds (``kqctl/<scheduler>/kinds.py``); the CLI joins them with
the core kinds below into one :class:`KindRegistry` and hands it to the loader, so nothing below the CLI
needs to know which schedulers exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class KindInfo:
    group: str
    kind: str
    namespaced: bool
    versions: tuple[str, ...]
    # The scheduler that owns the kind's API group ("" for core Kubernetes kinds every scheduler reads).
    scheduler: str = ""
    # When set, only objects with these names are read (a scheduler's own ConfigMap); others stay unknown.
    names: tuple[str, ...] = ()
    # False for a scheduler's configuration file that is not an API object (no metadata rules apply).
    api_object: bool = True
    # False for a CRD without a status subresource (Volcano's PodGroup): the API server then keeps and validates
    # ``status`` on create like any other field, instead of dropping it.
    status_subresource: bool = True

    def __post_init__(self) -> None:
        _DEFINED.setdefault(self._fields(), self)

    def _fields(self) -> tuple[object, ...]:
        return (self.group, self.kind, self.namespaced, self.versions, self.scheduler, self.names, self.api_object)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Unpickled (from a worker process, or validate's --cache) as the very instance this process defined, so
        # that ``obj.info is kinds.CONFIG_MAP`` holds whatever process read the object.
        return _defined, self._fields()


_DEFINED: dict[tuple[object, ...], KindInfo] = {}


def _defined(*fields: object) -> KindInfo:
    found = _DEFINED.get(fields)
    return found if found is not None else KindInfo(*fields)  # type: ignore[arg-type]


# Core Kubernetes kinds kqctl reads for every scheduler (namespaces, priorities, defaults, jobs, pods, nodes).
CORE_KINDS: tuple[KindInfo, ...] = (
    KindInfo("", "Namespace", False, ("v1",)),
    KindInfo("scheduling.k8s.io", "PriorityClass", False, ("v1",)),
    KindInfo("", "LimitRange", True, ("v1",)),
    KindInfo("batch", "Job", True, ("v1",)),
    KindInfo("", "Pod", True, ("v1",)),
    KindInfo("", "Node", False, ("v1",)),
)


def split_api_version(api_version: str) -> tuple[str, str]:
    """``kueue.x-k8s.io/v1beta2`` -> (group, version); core ``v1`` -> ("", "v1")."""
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


# A scheduler's way to claim a document by what it holds rather than by kind: a configuration file with no
# apiVersion or kind, or an object of a kind nobody registers but that the scheduler reads by name.
Recogniser = Callable[[Mapping[str, Any]], "KindInfo | None"]


class KindRegistry:
    """Every kind kqctl reads, by (group, kind), and the recognisers of documents known by their content."""

    def __init__(self, kinds: Iterable[KindInfo], recognisers: Iterable[Recogniser] = (), reads: str = "") -> None:
        # What these kinds are, in words, for the hint of an object skipped as not read ("" when not told).
        self.reads = reads
        self._kinds: dict[tuple[str, str], KindInfo] = {}
        for info in kinds:
            known = self._kinds.get((info.group, info.kind))
            if known is not None and known.names and info.names:  # two schedulers' own ConfigMaps
                info = replace(info, names=(*known.names, *info.names))
            self._kinds[(info.group, info.kind)] = info
        # Groups a scheduler owns: any kind in them that is not listed is "no matches for kind".
        self.owned_groups = frozenset(info.group for info in self._kinds.values() if info.scheduler)
        self.recognisers = tuple(recognisers)

    def recognise(self, body: Mapping[str, Any]) -> KindInfo | None:
        """The kind a scheduler reads this document as, when no registered kind matches."""
        for recogniser in self.recognisers:
            info = recogniser(body)
            if info is not None:
                return info
        return None

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._kinds.values())

    def get(self, group: str, kind: str) -> KindInfo | None:
        return self._kinds.get((group, kind))

    def info(self, api_version: str, kind: str, name: str | None = None) -> KindInfo | None:
        group, _ = split_api_version(api_version)
        found = self._kinds.get((group, kind))
        if found is not None and found.names and name not in found.names:
            return None
        return found

    def served_kind_like(self, group: str, kind: str) -> str | None:
        """A kind of ``group`` that differs from ``kind`` only in case or a plural ``s`` (for "did you mean")."""
        wanted = kind.lower().rstrip("s")
        for known_group, known_kind in self._kinds:
            if known_group == group and known_kind.lower() == wanted and known_kind != kind:
                return known_kind
        return None

    def group_kinds(self, group: str) -> list[str]:
        """Every kind kqctl knows in an API group."""
        return sorted(k for g, k in self._kinds if g == group)

    def namespaced(self, kind: str) -> bool | None:
        """Whether ``kind`` (in any group) is namespaced; ``None`` for a kind kqctl does not know."""
        for info in self._kinds.values():
            if info.kind == kind:
                return info.namespaced
        return None
