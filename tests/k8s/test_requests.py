"""Per-pod requests as Kueue computes them (REQ-5, REQ-6, REQ-8)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from kqctl.k8s.core import is_mapping
from kqctl.k8s.pods import (
    aggregate,
    limit_range_violations,
    read_pod_resources,
    requests_above_limits,
    scale,
    spec_requests,
    summarize_limit_ranges,
)
from kqctl.k8s.quantity import MAX_INT64


def container(
    requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, **extra: str
) -> dict:
    resources: dict = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"name": "c", "resources": resources, **extra}


def test_req6_containers_are_summed_cpu_in_milli() -> None:
    spec = {"containers": [container({"cpu": "500m", "memory": "1Gi"}), container({"cpu": "1"})]}
    assert spec_requests(spec) == {"cpu": 1500, "memory": 1024**3}


def test_req5_limit_stands_in_for_missing_request() -> None:
    assert spec_requests({"containers": [container(limits={"cpu": "2"})]}) == {"cpu": 2000}


def test_req6_init_container_peak_wins_when_larger() -> None:
    spec = {"initContainers": [container({"cpu": "4"})], "containers": [container({"cpu": "1"})]}
    assert spec_requests(spec) == {"cpu": 4000}


def test_req6_sidecar_adds_to_containers_and_to_later_init_containers() -> None:
    spec = {
        "initContainers": [container({"cpu": "1"}, restartPolicy="Always"), container({"cpu": "2"})],
        "containers": [container({"cpu": "1"})],
    }
    # containers 1 + sidecar 1 = 2; second init container 2 + sidecar 1 = 3 -> peak 3
    assert spec_requests(spec) == {"cpu": 3000}


def test_req6_overhead_is_added() -> None:
    spec = {"containers": [container({"cpu": "1"})], "overhead": {"cpu": "250m"}}
    assert spec_requests(spec) == {"cpu": 1250}


def test_req6_pod_level_resources_replace_cpu_and_memory() -> None:
    spec = {"containers": [container({"cpu": "1"})], "resources": {"requests": {"cpu": "3"}}}
    assert spec_requests(spec) == {"cpu": 3000}


def test_req5_limitrange_default_request_fills_missing_request() -> None:
    summary = summarize_limit_ranges([{"type": "Container", "defaultRequest": {"cpu": "200m"}}])
    assert spec_requests({"containers": [container()]}, summary) == {"cpu": 200}


def test_req5_first_limitrange_providing_a_key_wins() -> None:
    summary = summarize_limit_ranges([{"type": "Container", "default": {"cpu": "1"}},
                                      {"type": "Container", "default": {"cpu": "2"}}])
    assert spec_requests({"containers": [container()]}, summary) == {"cpu": 1000}


def test_qty5_rounding_is_per_pod_before_multiplying() -> None:
    per_pod = spec_requests({"containers": [container({"nvidia.com/gpu": "0.5"})]})
    assert scale(per_pod, 4) == {"nvidia.com/gpu": 4}


def test_req9_totals_saturate_at_int64() -> None:
    assert scale({"cpu": MAX_INT64 // 2 + 1}, 4) == {"cpu": MAX_INT64}


def test_req16_requests_above_limits_message() -> None:
    pod = read_pod_resources({"containers": [container({"cpu": "2"}, {"cpu": "1"})]})
    errors = requests_above_limits(pod, "spec.podSets[0].template.spec")
    assert aggregate(errors) == (
        'spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not exceed its limits'
    )


def test_req16_limitrange_max_before_min_and_aggregate_in_brackets() -> None:
    summary = summarize_limit_ranges([{"type": "Container", "max": {"cpu": "1"}, "min": {"memory": "1Gi"}}])
    pod = read_pod_resources({"containers": [container({"cpu": "2", "memory": "1Mi"})]})
    errors = limit_range_violations(pod, summary, "spec.podSets[0].template.spec")
    assert aggregate(errors) == (
        '[spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be above the'
        ' limitRange max, spec.podSets[0].template.spec.containers[0]: Invalid value: ["memory"]: requests must'
        ' not be below the limitRange min]'
    )


def test_req5_summary_keeps_lowest_max_and_highest_min() -> None:
    summary = summarize_limit_ranges([{"type": "Container", "max": {"cpu": "2"}, "min": {"cpu": "100m"}},
                                      {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "200m"}}])
    assert summary.get("Container", "max") == {"cpu": 1000}
    assert summary.get("Container", "min") == {"cpu": 200}


class _ReadOnlyMapping(Mapping[str, Any]):
    """A mapping that is not a dict: reads must accept any Mapping, not only the dicts YAML and JSON make."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


@pytest.mark.parametrize(("value", "expected"), [
    ({}, True), ({"a": 1}, True), (_ReadOnlyMapping({"a": 1}), True),
    (None, False), ([], False), ("a", False), (1, False),
])
def test_is_mapping_is_isinstance_mapping(value: Any, expected: bool) -> None:
    assert is_mapping(value) is expected is isinstance(value, Mapping)


def test_requests_of_a_pod_spec_that_is_another_mapping_are_read_as_of_a_dict() -> None:
    spec = {"containers": [{"resources": {"requests": {"cpu": "500m"}}}], "overhead": {"cpu": "100m"}}
    other = _ReadOnlyMapping({"containers": [_ReadOnlyMapping({"resources": _ReadOnlyMapping(
        {"requests": _ReadOnlyMapping({"cpu": "500m"})})})], "overhead": _ReadOnlyMapping({"cpu": "100m"})})
    assert spec_requests(other) == spec_requests(spec) == {"cpu": 600}
