"""What one pod of a pod set requests, as Kueue computes it (rule set REQ, §4.3).

REQ-5: LimitRange defaults, then limits standing in for missing requests; REQ-6: Kubernetes'
pod request formula with init containers, sidecars, pod-level resources and overhead; REQ-8:
canonical integers (cpu in milli, others rounded up), negatives become 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kqctl.api.quantity import MAX_INT64, QuantityError, parse_quantity, resource_value, sat_add

Resources = dict[str, int]

# Pod-level resources (spec.resources) may only set these (REQ-6).
_POD_LEVEL_KEYS = ("cpu", "memory")


def pod_requests(pod_spec: Mapping[str, Any], limit_ranges: Sequence[Mapping[str, Any]] = ()) -> Resources:
    """REQ-5 + REQ-6 + REQ-8: the canonical per-pod request of a pod template's spec."""
    defaults = _limit_range_defaults(limit_ranges)
    containers = [_effective(c, defaults) for c in _list(pod_spec.get("containers"))]
    total: Resources = {}
    for requests, _ in containers:
        total = _add(total, requests)
    init_peak = _init_peak(pod_spec, defaults, total)
    pod = _max(init_peak[0], init_peak[1])
    pod = _apply_pod_level(pod, pod_spec)
    pod = _add(pod, _quantities(pod_spec.get("overhead")))
    return {name: max(0, value) for name, value in pod.items()}


def _init_peak(pod_spec: Mapping[str, Any], defaults: _Defaults, containers_sum: Resources) -> tuple[Resources, Resources]:
    restartable: Resources = {}
    peak: Resources = {}
    for container in _list(pod_spec.get("initContainers")):
        requests, _ = _effective(container, defaults)
        if isinstance(container, Mapping) and container.get("restartPolicy") == "Always":
            # A sidecar runs beside the main containers for the whole pod lifetime.
            containers_sum = _add(containers_sum, requests)
            restartable = _add(restartable, requests)
            candidate = restartable
        else:
            candidate = _add(requests, restartable)
        peak = _max(peak, candidate)
    return containers_sum, peak


def _apply_pod_level(pod: Resources, pod_spec: Mapping[str, Any]) -> Resources:
    resources = pod_spec.get("resources")
    if not isinstance(resources, Mapping):
        return pod
    requests = _quantities(resources.get("requests"))
    limits = _quantities(resources.get("limits"))
    result = dict(pod)
    for key in {*requests, *limits}:
        if key in _POD_LEVEL_KEYS or key.startswith("hugepages-"):
            result[key] = requests.get(key, limits.get(key, 0))  # REQ-5.3: limit stands in for a request
    return result


class _Defaults:
    """REQ-5.2: merged LimitRange defaults for containers (first LimitRange providing a key wins)."""

    def __init__(self) -> None:
        self.limits: Resources = {}
        self.requests: Resources = {}


def _limit_range_defaults(limit_ranges: Sequence[Mapping[str, Any]]) -> _Defaults:
    defaults = _Defaults()
    for limit_range in limit_ranges:
        spec = limit_range.get("spec") if isinstance(limit_range, Mapping) else None
        items = spec.get("limits") if isinstance(spec, Mapping) else None
        for item in _list(items):
            if isinstance(item, Mapping) and item.get("type") == "Container":
                _merge_first(defaults.limits, _quantities(item.get("default")))
                _merge_first(defaults.requests, _quantities(item.get("defaultRequest")))
    return defaults


def _merge_first(target: Resources, source: Resources) -> None:
    for key, value in source.items():
        target.setdefault(key, value)


def _effective(container: Any, defaults: _Defaults) -> tuple[Resources, Resources]:
    """A container's requests after LimitRange defaults and limits-as-requests (REQ-5.2, 5.3)."""
    resources = container.get("resources") if isinstance(container, Mapping) else None
    resources = resources if isinstance(resources, Mapping) else {}
    requests = _quantities(resources.get("requests"))
    limits = _quantities(resources.get("limits"))
    for key, value in defaults.limits.items():
        limits.setdefault(key, value)
    for key, value in defaults.requests.items():
        requests.setdefault(key, value)
    for key, value in limits.items():
        requests.setdefault(key, value)
    return requests, limits


def _quantities(raw: Any) -> Resources:
    if not isinstance(raw, Mapping):
        return {}
    result: Resources = {}
    for name, value in raw.items():
        try:
            result[str(name)] = resource_value(str(name), parse_quantity(value))
        except (QuantityError, TypeError, ValueError):
            continue  # validation reports the bad quantity; the engine ignores it
    return result


def _add(a: Resources, b: Resources) -> Resources:
    result = dict(a)
    for key, value in b.items():
        result[key] = sat_add(result.get(key, 0), value)
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
