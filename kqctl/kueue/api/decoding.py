"""What a Workload must hold for Kueue to decode it and the API server to accept it, checked on the
fields the admission engine reads.

``kqctl validate`` runs every rule; simulate, explain and audit read tens of thousands of Workloads
and check only these, so that they refuse (instead of simulating) what validate rejects: a request
that is not a quantity, a negative request, a negative count, a minCount out of range, a priority
that is not an int32, a node selector, affinity or toleration that is not a string.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.k8s.quantity import QuantityError, parse_quantity

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_CONTAINER_LISTS = ("containers", "initContainers")
_RESOURCE_LISTS = ("requests", "limits")
_SELECTOR_LISTS = ("matchExpressions", "matchFields")
_TOLERATION_FIELDS = ("key", "operator", "value", "effect")
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (list, "array"))  # bool before int

Path = tuple[str | int, ...]
Problem = tuple[Path, str, str]  # (field path, message, rule ID)


def workload_decoding_problem(body: Mapping[str, Any]) -> Problem | None:
    """The first problem of a v1beta2 Workload body (in field order), or None."""
    return next(_problems(body), None)


def _problems(body: Mapping[str, Any]) -> Iterator[Problem]:
    spec = body.get("spec")
    if not isinstance(spec, Mapping):
        return
    priority = _int(spec.get("priority"))
    if priority is not None and not INT32_MIN <= priority <= INT32_MAX:
        yield ("spec", "priority"), f"Invalid value: {priority}: must be a 32-bit integer", "SCHEMA-RANGE"
    pod_sets = spec.get("podSets")
    for i, pod_set in enumerate(pod_sets if isinstance(pod_sets, list) else []):
        if isinstance(pod_set, Mapping):
            yield from _pod_set_problems(pod_set, ("spec", "podSets", i))


def _pod_set_problems(pod_set: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    count, min_count = _int(pod_set.get("count")), _int(pod_set.get("minCount"))
    if count is not None and not 0 <= count <= INT32_MAX:
        yield (*path, "count"), f"Invalid value: {count}: must be between 0 and {INT32_MAX}", "SCHEMA-RANGE"
    if min_count is not None and (min_count < 1 or (count is not None and min_count > count)):
        yield (*path, "minCount"), "Invalid value: minCount should be positive and less or equal to count", \
            "VAL-WL-3"
    template = pod_set.get("template")
    pod_spec = template.get("spec") if isinstance(template, Mapping) else None
    if isinstance(pod_spec, Mapping):
        yield from _pod_spec_problems(pod_spec, (*path, "template", "spec"))


def _pod_spec_problems(pod_spec: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    for list_name in _CONTAINER_LISTS:
        containers = pod_spec.get(list_name)
        for j, container in enumerate(containers if isinstance(containers, list) else []):
            resources = container.get("resources") if isinstance(container, Mapping) else None
            if isinstance(resources, Mapping):
                yield from _resources_problems(resources, (*path, list_name, j, "resources"))
    yield from _placement_problems(pod_spec, path)
    overhead = pod_spec.get("overhead")
    if isinstance(overhead, Mapping):
        yield from _quantities_problems(overhead, (*path, "overhead"))
    resources = pod_spec.get("resources")
    if isinstance(resources, Mapping):
        yield from _resources_problems(resources, (*path, "resources"))


def _placement_problems(pod_spec: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    """The strings the flavor assigner matches against flavors (FA-5): a number there is not stored."""
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        for key, value in selector.items():
            yield from _not_string(value, (*path, "nodeSelector", str(key)))
    required = _child(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    terms_path = (*path, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                  "nodeSelectorTerms")
    for i, term in enumerate(terms if isinstance(terms, list) else []):
        for list_name in _SELECTOR_LISTS:
            requirements = term.get(list_name) if isinstance(term, Mapping) else None
            for j, requirement in enumerate(requirements if isinstance(requirements, list) else []):
                if isinstance(requirement, Mapping):
                    yield from _requirement_problems(requirement, (*terms_path, i, list_name, j))
    tolerations = pod_spec.get("tolerations")
    for i, toleration in enumerate(tolerations if isinstance(tolerations, list) else []):
        if isinstance(toleration, Mapping):
            for name in _TOLERATION_FIELDS:
                yield from _not_string(toleration.get(name), (*path, "tolerations", i, name))


def _requirement_problems(requirement: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    yield from _not_string(requirement.get("key"), (*path, "key"))
    yield from _not_string(requirement.get("operator"), (*path, "operator"))
    values = requirement.get("values")
    for k, value in enumerate(values if isinstance(values, list) else []):
        yield from _not_string(value, (*path, "values", k))


def _not_string(value: Any, path: Path) -> Iterator[Problem]:
    if value is not None and not isinstance(value, str):
        kind = next((name for cls, name in _JSON_TYPES if isinstance(value, cls)), "object")
        yield path, f'Invalid value: "{kind}": must be of type string: "{kind}"', "SCHEMA-TYPE"


def _child(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _resources_problems(resources: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    for kind in _RESOURCE_LISTS:
        values = resources.get(kind)
        if isinstance(values, Mapping):
            yield from _quantities_problems(values, (*path, kind))


def _quantities_problems(values: Mapping[str, Any], path: Path) -> Iterator[Problem]:
    for name, raw in values.items():
        if raw is None:
            continue  # decoded as zero, as Go does
        try:
            # Go's Quantity decoder trims surrounding space before parsing ("2 " is 2), as the engine does.
            quantity = parse_quantity(raw.strip() if isinstance(raw, str) else raw)
        except (QuantityError, TypeError, ValueError) as exc:
            yield (*path, str(name)), f"Invalid value: {raw!r}: {exc}", "DEF-3-DECODE"
            continue
        if quantity.value < 0:
            yield (*path, str(name)), f"Invalid value: {raw!r}: must be greater than or equal to 0", "VAL-WL-6"


def _int(value: Any) -> int | None:
    """An integer field as decoded; other types are the schema's findings, not ours."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
