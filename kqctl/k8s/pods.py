"""What one pod of a pod set requests, as Kueue computes it (rule set REQ, §4.3), and its admissibility.

REQ-5: LimitRange defaults, then limits standing in for missing requests (Kueue's
``AdjustResources``); REQ-6: Kubernetes' pod request formula with init containers, sidecars,
pod-level resources and overhead; REQ-8: canonical integers (cpu in milli, others rounded up),
negatives become 0; REQ-15/16: requests above limits and LimitRange min/max violations with
Kueue's exact messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kqctl.k8s.core import is_mapping
from kqctl.k8s.names import is_qualified_name
from kqctl.k8s.quantity import MAX_INT64, QuantityError, int64_sat_add, parse_quantity, resource_value

Resources = dict[str, int]


def overcommit_allowed(name: str) -> bool:
    """Kubernetes' ``helper.IsOvercommitAllowed`` (pkg/apis/core/helper/helpers.go): a native resource (no
    domain, or a kubernetes.io one) other than huge pages may be requested below its limit; any other (an
    extended resource such as nvidia.com/gpu, huge pages) needs a limit, equal to its request (VAL-POD-3)."""
    return ("/" not in name or "kubernetes.io/" in name) and not name.startswith("hugepages-")


def is_extended_resource(name: str) -> bool:
    """Kubernetes' ``helper.IsExtendedResourceName``: a domain outside kubernetes.io, usable as a quota name too
    (``requests.`` + name is a qualified name). Its quantities must be whole numbers (VAL-POD-1)."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def limits_for(requests: Mapping[str, str]) -> dict[str, str]:
    """The limits a pod asking for ``requests`` must set for the API server to take it: the request of every
    resource that cannot be overcommitted (VAL-POD-3), nothing for cpu and memory."""
    return {name: value for name, value in requests.items() if not overcommit_allowed(name)}


@dataclass
class ContainerResources:
    requests: Resources = field(default_factory=dict)
    limits: Resources = field(default_factory=dict)
    sidecar: bool = False  # an init container with restartPolicy: Always


@dataclass
class PodResources:
    """The resource-relevant part of a pod spec, in canonical integers."""

    init_containers: list[ContainerResources]
    containers: list[ContainerResources]
    pod_level: ContainerResources | None
    overhead: Resources


@dataclass(frozen=True)
class LimitRangeSummary:
    """LimitRanges of a namespace merged as Kueue's ``Summarize`` does, per type (Container, Pod)."""

    items: Mapping[str, Mapping[str, Resources]]

    def get(self, limit_type: str, key: str) -> Resources:
        return dict(self.items.get(limit_type, {}).get(key, {}))

    def has(self, limit_type: str) -> bool:
        return limit_type in self.items


def summarize_limit_ranges(limit_items: Iterable[Mapping[str, Any]]) -> LimitRangeSummary:
    """REQ-5.2: max keeps the minimum, min keeps the maximum, defaults keep the first value seen."""
    summary: dict[str, dict[str, Resources]] = {}
    for item in limit_items:
        limit_type = str(item.get("type", ""))
        current = summary.setdefault(limit_type, {"max": {}, "min": {}, "default": {}, "defaultRequest": {}})
        _merge(current["max"], _quantities(item.get("max")), min)
        _merge(current["min"], _quantities(item.get("min")), max)
        _merge(current["default"], _quantities(item.get("default")), lambda old, new: old)
        _merge(current["defaultRequest"], _quantities(item.get("defaultRequest")), lambda old, new: old)
    return LimitRangeSummary(summary)


def _merge(target: Resources, source: Resources, pick: Any) -> None:
    for key, value in source.items():
        target[key] = pick(target[key], value) if key in target else value


def read_pod_resources(pod_spec: Mapping[str, Any]) -> PodResources:
    """The resources of a pod spec as written (no adjustment yet)."""
    pod_level = pod_spec.get("resources")
    return PodResources(
        [_container(c) for c in _list(pod_spec.get("initContainers"))],
        [_container(c) for c in _list(pod_spec.get("containers"))],
        _resources(pod_level) if is_mapping(pod_level) else None,
        _quantities(pod_spec.get("overhead")),
    )


def _container(raw: Any) -> ContainerResources:
    if not is_mapping(raw):
        return ContainerResources()
    resources = _resources(raw.get("resources"))
    resources.sidecar = raw.get("restartPolicy") == "Always"
    return resources


def _resources(raw: Any) -> ContainerResources:
    if not is_mapping(raw):
        return ContainerResources()
    return ContainerResources(_quantities(raw.get("requests")), _quantities(raw.get("limits")))


def adjust(pod: PodResources, limits: LimitRangeSummary | None) -> PodResources:
    """REQ-5: LimitRange defaults (missing keys only), then limits as missing requests."""
    if limits is not None and limits.has("Container"):
        for container in [*pod.init_containers, *pod.containers]:
            _fill(container.limits, limits.get("Container", "default"))
            _fill(container.requests, limits.get("Container", "defaultRequest"))
    if limits is not None and pod.pod_level is not None and limits.has("Pod"):
        _fill(pod.pod_level.limits, limits.get("Pod", "default"))
        _fill(pod.pod_level.requests, limits.get("Pod", "defaultRequest"))
    for container in [*pod.init_containers, *pod.containers]:
        _fill(container.requests, container.limits)
    if pod.pod_level is not None:
        _fill(pod.pod_level.requests, pod.pod_level.limits)
    return pod


def _fill(target: Resources, source: Resources) -> None:
    for key, value in source.items():
        target.setdefault(key, value)


def pod_requests(pod: PodResources) -> Resources:
    """REQ-6 + REQ-8: Kubernetes' PodRequests on an adjusted pod, negatives floored to 0."""
    containers_sum: Resources = {}
    for container in pod.containers:
        containers_sum = _add(containers_sum, container.requests)
    restartable: Resources = {}
    init_peak: Resources = {}
    for container in pod.init_containers:
        if container.sidecar:
            # A sidecar runs beside the main containers for the whole pod lifetime.
            containers_sum = _add(containers_sum, container.requests)
            restartable = _add(restartable, container.requests)
            candidate = restartable
        else:
            candidate = _add(container.requests, restartable)
        init_peak = _max(init_peak, candidate)
    total = _max(containers_sum, init_peak)
    if pod.pod_level is not None:
        for key, value in pod.pod_level.requests.items():
            if key in ("cpu", "memory") or key.startswith("hugepages-"):
                total[key] = value
    total = _add(total, pod.overhead)
    return {name: max(0, value) for name, value in total.items()}


def spec_requests(pod_spec: Mapping[str, Any], limits: LimitRangeSummary | None = None) -> Resources:
    """Convenience: REQ-5 then REQ-6 on a raw pod spec."""
    return pod_requests(adjust(read_pod_resources(pod_spec), limits))


# --- REQ-15 / REQ-16: admissibility of the requests -------------------------------------------------


def requests_above_limits(pod: PodResources, path: str) -> list[str]:
    """Field errors for requests above limits (REQ-15.3): init containers, containers, pod level."""
    errors: list[str] = []
    for label, containers in (("initContainers", pod.init_containers), ("containers", pod.containers)):
        for i, container in enumerate(containers):
            names = _greater_keys(container.requests, container.limits)
            if names:
                errors.append(_field_error(f"{path}.{label}[{i}]", names, "requests must not exceed its limits"))
    if pod.pod_level is not None:
        names = _greater_keys(pod.pod_level.requests, pod.pod_level.limits)
        if names:
            errors.append(_field_error(f"{path}.resources", names, "requests must not exceed its limits"))
    return errors


def limit_range_violations(pod: PodResources, limits: LimitRangeSummary, path: str) -> list[str]:
    """Field errors for LimitRange max/min (REQ-15.4), max before min per container."""
    errors: list[str] = []
    if limits.has("Container"):
        for label, containers in (("initContainers", pod.init_containers), ("containers", pod.containers)):
            for i, container in enumerate(containers):
                errors.extend(_range_errors(f"{path}.{label}[{i}]", container, limits, "Container"))
    if limits.has("Pod"):
        total = pod_requests(pod)
        errors.extend(_range_errors(path, ContainerResources(total, total), limits, "Pod"))
    return errors


def _range_errors(path: str, resources: ContainerResources, limits: LimitRangeSummary, kind: str) -> list[str]:
    errors: list[str] = []
    upper = _combine(resources.requests, resources.limits, max)
    lower = _combine(resources.requests, resources.limits, min)
    above = _greater_keys(upper, limits.get(kind, "max"))
    if above:
        errors.append(_field_error(path, above, "requests must not be above the limitRange max"))
    below = _greater_keys(limits.get(kind, "min"), lower)
    if below:
        errors.append(_field_error(path, below, "requests must not be below the limitRange min"))
    return errors


def _combine(a: Resources, b: Resources, pick: Any) -> Resources:
    result = dict(a)
    for key, value in b.items():
        result[key] = pick(result[key], value) if key in result else value
    return result


def _greater_keys(values: Resources, bounds: Resources) -> list[str]:
    """Sorted names present on both sides whose value is above the bound."""
    return sorted(name for name, value in values.items() if name in bounds and value > bounds[name])


def _field_error(path: str, names: list[str], detail: str) -> str:
    return f"{path}: Invalid value: {json.dumps(names, separators=(',', ':'))}: {detail}"


def aggregate(errors: Sequence[str]) -> str:
    """Kubernetes' error aggregate: one error as is, several in brackets, repeats dropped."""
    distinct = list(dict.fromkeys(errors))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


# --- helpers ----------------------------------------------------------------------------------------


def _quantities(raw: Any) -> Resources:
    if not is_mapping(raw):
        return {}
    result: Resources = {}
    for name, value in raw.items():
        converted = _canonical(str(name), value) if isinstance(value, str) else _convert(str(name), value)
        if converted is not None:
            result[str(name)] = converted
    return result


@lru_cache(maxsize=4096)
def _canonical(name: str, value: str) -> int | None:
    # Thousands of pods request the same few quantities: convert each (resource, text) once.
    return _convert(name, value)


def _convert(name: str, value: Any) -> int | None:
    try:
        # Go's Quantity decoder trims surrounding space first: Kueue reads "2 " as 2 (QTY-1).
        return resource_value(name, parse_quantity(value.strip() if isinstance(value, str) else value))
    except (QuantityError, TypeError, ValueError):
        return None  # validation reports the bad quantity; the engine ignores it


def _add(a: Resources, b: Resources) -> Resources:
    result = dict(a)
    for key, value in b.items():
        result[key] = int64_sat_add(result.get(key, 0), value)
    return result


def _max(a: Resources, b: Resources) -> Resources:
    result = dict(a)
    for key, value in b.items():
        result[key] = max(result.get(key, value), value)
    return result


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def scale(per_pod: Resources, count: int) -> Resources:
    """REQ-9: a pod set's total, saturating at int64 like Kueue."""
    return {name: min(value * count, MAX_INT64) for name, value in per_pod.items()}
