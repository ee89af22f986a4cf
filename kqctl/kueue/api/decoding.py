"""What a Workload must hold for Kueue to decode it and the API server to accept it, checked on the
fields the admission engine reads.

``kqctl validate`` runs every rule; simulate, explain and audit read tens of thousands of Workloads
and check only these, so that they refuse (instead of simulating) what validate rejects: a request
that is not a quantity, a negative request, a negative count, a minCount out of range, a priority
that is not an int32.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.k8s.quantity import QuantityError, parse_quantity

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_CONTAINER_LISTS = ("containers", "initContainers")
_RESOURCE_LISTS = ("requests", "limits")

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
    overhead = pod_spec.get("overhead")
    if isinstance(overhead, Mapping):
        yield from _quantities_problems(overhead, (*path, "overhead"))
    resources = pod_spec.get("resources")
    if isinstance(resources, Mapping):
        yield from _resources_problems(resources, (*path, "resources"))


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
