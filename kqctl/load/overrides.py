"""What-if edits without editing files: ``--set KIND/[NAMESPACE/]NAME.PATH=VALUE``.

Overrides are applied to the loaded objects before anything else reads them, so an overridden value
goes through the same validation as one written in a file. Paths are dotted, with ``[i]`` for list
items (``spec.resourceGroups[0].flavors[0].resources[0].nominalQuota``); for ClusterQueues and
Cohorts ``flavor.FLAVOR.RESOURCE.FIELD`` is a short form for the quota of a flavor and resource
(FIELD: nominalQuota, borrowingLimit or lendingLimit). Values are YAML scalars (``40``, ``1Gi``,
``true``, ``null``). Every mistake is a usage error naming the override.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from kqctl.errors import UsageError
from kqctl.load.objects import LoadedObject, identity

# kubectl's resource names and short names for the kinds worth overriding.
KIND_ALIASES = {
    "clusterqueue": "ClusterQueue", "clusterqueues": "ClusterQueue", "cq": "ClusterQueue",
    "localqueue": "LocalQueue", "localqueues": "LocalQueue", "lq": "LocalQueue", "queue": "LocalQueue",
    "workload": "Workload", "workloads": "Workload", "wl": "Workload",
    "cohort": "Cohort", "cohorts": "Cohort",
    "resourceflavor": "ResourceFlavor", "resourceflavors": "ResourceFlavor", "rf": "ResourceFlavor",
    "flavor": "ResourceFlavor", "flavors": "ResourceFlavor",
    "workloadpriorityclass": "WorkloadPriorityClass", "workloadpriorityclasses": "WorkloadPriorityClass",
    "wpc": "WorkloadPriorityClass",
    "admissioncheck": "AdmissionCheck", "admissionchecks": "AdmissionCheck",
    "job": "Job", "jobs": "Job",
    "namespace": "Namespace", "namespaces": "Namespace", "ns": "Namespace",
    "priorityclass": "PriorityClass", "priorityclasses": "PriorityClass", "pc": "PriorityClass",
    # Volcano: "queue" above names its Queues too; a vcjob is a Job (batch.volcano.sh)
    "podgroup": "PodGroup", "podgroups": "PodGroup", "pg": "PodGroup", "vcjob": "Job", "vcjobs": "Job",
    "node": "Node", "nodes": "Node",
}
QUOTA_FIELDS = ("nominalQuota", "borrowingLimit", "lendingLimit")
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Override:
    """One ``--set``: which object (by kind and the text naming it) and the path and value to set."""

    text: str  # as given, for messages
    kind: str
    target: str  # "[NAMESPACE/]NAME.PATH" before the object is known (a name may contain dots)
    value: Any


def parse_override(text: str) -> Override:
    """``KIND/[NS/]NAME.PATH=VALUE`` to an :class:`Override`; syntax errors are usage errors."""
    left, equals, raw = text.partition("=")
    if not equals:
        raise UsageError(f"--set {text!r}: expected KIND/NAME.PATH=VALUE, "
                         "e.g. clusterqueue/team-a.spec.stopPolicy=Hold")
    kind_text, slash, target = left.partition("/")
    if not slash or not target:
        raise UsageError(f"--set {text!r}: expected KIND/NAME.PATH before '=' "
                         "(e.g. workload/team-a/job-1.spec.priority)")
    kind = KIND_ALIASES.get(kind_text.strip().lower())
    if kind is None:
        close = difflib.get_close_matches(kind_text.lower(), list(KIND_ALIASES), n=1)
        hint = f"; did you mean {close[0]}?" if close else f"; one of: {', '.join(sorted(set(KIND_ALIASES)))}"
        raise UsageError(f"--set {text!r}: unknown kind {kind_text!r}{hint}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw  # not a YAML scalar: the text itself, as kubectl's --set-string would take it
    if isinstance(value, (dict, list)):
        raise UsageError(f"--set {text!r}: the value must be a single scalar, not a {type(value).__name__}")
    return Override(text, kind, target.strip(), value)


FieldCheck = Callable[[str, str, Path], "tuple[str, list[str]] | None"]
ObjectCheck = Callable[[str, str, Path], bool]


def apply_overrides(objects: Sequence[LoadedObject], overrides: Iterable[Override],
                    unknown_field: FieldCheck | None = None,
                    defines_object: ObjectCheck | None = None) -> list[LoadedObject]:
    """The objects with every override applied (in order); the inputs are left untouched.

    ``unknown_field(apiVersion, kind, path)`` (the schema's knowledge, from the validation layer)
    turns a path the API does not define into a usage error instead of a silently ignored field.
    ``defines_object(apiVersion, kind, path)`` says the API defines ``path`` as an object (a struct or a
    map): a --set below it creates it where the object leaves it out (a Queue's ``spec.capability``).
    """
    result = list(objects)
    for override in overrides:
        index, path = _resolve(result, override)
        obj = result[index]
        body = copy.deepcopy(obj.body)
        path = _expand_short_form(body, override, path)
        problem = unknown_field(obj.api_version, obj.kind, path) if unknown_field is not None else None
        if problem is not None:
            where, known = problem
            close = difflib.get_close_matches(where.rsplit(".", 1)[-1], known, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise UsageError(f"--set {override.text!r}: {obj.kind} has no field {where}{hint}")
        creatable = None if defines_object is None else functools.partial(defines_object, obj.api_version, obj.kind)
        _set(body, path, override, creatable)
        # An edited object is no longer the one the cluster stored: the gate checks it like a file's.
        result[index] = dataclasses.replace(obj, body=body, findings=list(obj.findings),
                                            overridden=(*obj.overridden, (path, override.text)), stored=False)
    return result


def _resolve(objects: Sequence[LoadedObject], override: Override) -> tuple[int, Path]:
    """Which object the override names, and the path after its name (names may hold dots)."""
    candidates = [(i, obj) for i, obj in enumerate(objects)
                  if identity(obj) is not None and _kind(obj) == override.kind]
    by_name = {_object_name(obj): i for i, obj in candidates}
    target = override.target
    for cut in [m.start() for m in re.finditer(r"\.", target)] + [len(target)]:
        name = target[:cut]
        if name in by_name:
            rest = target[cut + 1:]
            if not rest:
                raise UsageError(f"--set {override.text!r}: no field path after the object name")
            return by_name[name], _parse_path(rest, override)
    kind = "LocalQueue or Queue" if override.kind == "LocalQueue" else override.kind
    # A namespaced object named without its namespace (as explain takes it): fine when the name is unique.
    bare: dict[str, list[str]] = {}
    for full in by_name:
        if "/" in full:
            bare.setdefault(full.split("/", 1)[1], []).append(full)
    if "/" not in target.split(".", 1)[0]:
        for cut in [m.start() for m in re.finditer(r"\.", target)] + [len(target)]:
            name = target[:cut]
            if len(bare.get(name, ())) == 1:
                rest = target[cut + 1:]
                if not rest:
                    raise UsageError(f"--set {override.text!r}: no field path after the object name")
                return by_name[bare[name][0]], _parse_path(rest, override)
            if name in bare:
                raise UsageError(f"--set {override.text!r}: {kind} {name!r} is in several namespaces; did you mean "
                                 f"{' or '.join(_best_first(name, bare[name]))}? (name it as NAMESPACE/NAME)")
    names = sorted(by_name)
    guess = target.split(".", 1)[0]
    if not names:
        raise UsageError(f"--set {override.text!r}: the inputs hold no {kind}")
    close = _best_first(guess, names, cutoff=0.6)[:3]
    hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(names[:10])}"
    raise UsageError(f"--set {override.text!r}: no {kind} {guess!r} in the inputs{hint}")


def _best_first(guess: str, names: Iterable[str], cutoff: float = 0.0) -> list[str]:
    """``names`` most like ``guess`` first (a namespaced name is compared whole and by its name alone, so a bare
    ``team-a-job-2`` finds ``team-a/team-a-job-2`` before ``team-b/team-b-job-2``); those below ``cutoff`` left
    out; ties in name order."""
    def score(name: str) -> float:
        whole = difflib.SequenceMatcher(None, guess, name).ratio()
        return max(whole, difflib.SequenceMatcher(None, guess, name.split("/", 1)[-1]).ratio()) if "/" in name \
            else whole

    scored = sorted((-score(name), name) for name in names)
    return [name for negative, name in scored if -negative >= cutoff]


def _kind(obj: LoadedObject) -> str:
    return "LocalQueue" if obj.kind == "Queue" else obj.kind


def _object_name(obj: LoadedObject) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.info is not None and obj.info.namespaced else str(obj.name)


def _parse_path(text: str, override: Override) -> Path:
    parts: list[str | int] = []
    position = 0
    for match in _SEGMENT.finditer(text):
        between = text[position:match.start()]
        if between not in ("", "."):
            break
        parts.append(int(match.group(2)) if match.group(2) is not None else match.group(1))
        position = match.end()
    if position != len(text) or not parts:
        raise UsageError(f"--set {override.text!r}: cannot read the field path {text!r} "
                         "(dotted names and [index], e.g. spec.resourceGroups[0].coveredResources[1])")
    return tuple(parts)


def _expand_short_form(body: dict[str, Any], override: Override, path: Path) -> Path:
    """``flavor.FLAVOR.RESOURCE.FIELD`` of a ClusterQueue or Cohort to the full resourceGroups path."""
    if override.kind not in ("ClusterQueue", "Cohort") or not path or path[0] != "flavor":
        return path
    if len(path) != 4 or path[3] not in QUOTA_FIELDS:
        raise UsageError(f"--set {override.text!r}: the short form is flavor.FLAVOR.RESOURCE.FIELD with FIELD one "
                         f"of {', '.join(QUOTA_FIELDS)}")
    _, flavor, resource, field = path
    groups = body.get("spec", {}).get("resourceGroups") if isinstance(body.get("spec"), dict) else None
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        for f, entry in enumerate(group.get("flavors") or [] if isinstance(group, dict) else []):
            if not isinstance(entry, dict) or entry.get("name") != flavor:
                continue
            for r, quota in enumerate(entry.get("resources") or []):
                if isinstance(quota, dict) and quota.get("name") == resource:
                    return ("spec", "resourceGroups", g, "flavors", f, "resources", r, str(field))
            names = [q.get("name") for q in entry.get("resources") or [] if isinstance(q, dict)]
            raise UsageError(f"--set {override.text!r}: flavor {flavor} of {override.kind} has no resource "
                             f"{resource!r}{_did_you_mean(resource, names)}")
    flavors = [entry.get("name") for group in (groups if isinstance(groups, list) else []) if isinstance(group, dict)
               for entry in group.get("flavors") or [] if isinstance(entry, dict)]
    raise UsageError(f"--set {override.text!r}: {override.kind} has no flavor {flavor!r} in its resourceGroups"
                     f"{_did_you_mean(flavor, flavors)}")


def _did_you_mean(wrong: object, names: list[Any]) -> str:
    """``; did you mean default-flavor?`` (or the names there are, when none is close)."""
    known = sorted({str(n) for n in names if isinstance(n, str)})
    if not known:
        return ""
    close = difflib.get_close_matches(str(wrong), known, n=3, cutoff=0.5)
    close += [n for n in known if n.startswith(str(wrong)) and n not in close]
    return f"; did you mean {' or '.join(close[:3])}?" if close else f"; it has: {', '.join(known[:10])}"


def _set(body: Any, path: Path, override: Override, creatable: Callable[[Path], bool] | None = None) -> None:
    """Set the value at ``path``; only the last key may be new (a typo deeper in is an error), unless
    ``creatable`` says the API defines the missing field as an object: then it is created, empty."""
    node = body
    for depth, part in enumerate(path[:-1]):
        if isinstance(part, str) and isinstance(node, dict) and node.get(part) is None and creatable is not None \
                and creatable(path[:depth + 1]):
            node[part] = {}
        node = _step(node, part, path[:depth + 1], override)
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or not 0 <= last < len(node):
            raise UsageError(f"--set {override.text!r}: {_dotted(path)}: no item [{last}] (the list has "
                             f"{len(node) if isinstance(node, list) else 0})")
        node[last] = override.value
    elif isinstance(node, dict):
        if last not in node:
            # A new field is fine (an unset borrowingLimit); a near-miss of an existing one is a typo.
            close = difflib.get_close_matches(str(last), [str(k) for k in node], n=1, cutoff=0.8)
            if close:
                raise UsageError(f"--set {override.text!r}: {_dotted(path)} does not exist; did you mean "
                                 f"{close[0]}?")
        node[last] = override.value
    else:
        raise UsageError(f"--set {override.text!r}: {_dotted(path[:-1])} is not a mapping")


def _step(node: Any, part: str | int, path: Path, override: Override) -> Any:
    if isinstance(part, int):
        if isinstance(node, list) and 0 <= part < len(node):
            return node[part]
        size = len(node) if isinstance(node, list) else 0
        raise UsageError(f"--set {override.text!r}: {_dotted(path)}: no such item (the list has {size})")
    if isinstance(node, dict) and part in node:
        return node[part]
    known = sorted(str(k) for k in node) if isinstance(node, dict) else []
    close = difflib.get_close_matches(str(part), known, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise UsageError(f"--set {override.text!r}: {_dotted(path)} does not exist{hint}")


def _dotted(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def keep_last_definitions(objects: Sequence[LoadedObject]) -> list[LoadedObject]:
    """--override: of several definitions of one object, the last read wins (the others are dropped)."""
    last: dict[tuple[str, str, str, str], int] = {}
    for index, obj in enumerate(objects):
        key = identity(obj)
        if key is not None:
            last[key] = index
    kept = []
    for index, obj in enumerate(objects):
        key = identity(obj)
        if key is None or last[key] == index:
            kept.append(dataclasses.replace(obj, findings=[f for f in obj.findings if f.rule_id != "LOAD-DUPLICATE"]))
    return kept
