"""Per-pod requests as Kueue computes them (REQ-5, REQ-6, REQ-8)."""

from __future__ import annotations

from kqctl.api.kueue.requests import pod_requests, scale
from kqctl.api.quantity import MAX_INT64


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
    assert pod_requests(spec) == {"cpu": 1500, "memory": 1024**3}


def test_req5_limit_stands_in_for_missing_request() -> None:
    assert pod_requests({"containers": [container(limits={"cpu": "2"})]}) == {"cpu": 2000}


def test_req6_init_container_peak_wins_when_larger() -> None:
    spec = {"initContainers": [container({"cpu": "4"})], "containers": [container({"cpu": "1"})]}
    assert pod_requests(spec) == {"cpu": 4000}


def test_req6_sidecar_adds_to_containers_and_to_later_init_containers() -> None:
    spec = {
        "initContainers": [container({"cpu": "1"}, restartPolicy="Always"), container({"cpu": "2"})],
        "containers": [container({"cpu": "1"})],
    }
    # containers 1 + sidecar 1 = 2; second init container 2 + sidecar 1 = 3 -> peak 3
    assert pod_requests(spec) == {"cpu": 3000}


def test_req6_overhead_is_added() -> None:
    spec = {"containers": [container({"cpu": "1"})], "overhead": {"cpu": "250m"}}
    assert pod_requests(spec) == {"cpu": 1250}


def test_req6_pod_level_resources_replace_cpu_and_memory() -> None:
    spec = {"containers": [container({"cpu": "1"})], "resources": {"requests": {"cpu": "3"}}}
    assert pod_requests(spec) == {"cpu": 3000}


def test_req5_limitrange_default_request_fills_missing_request() -> None:
    limit_range = {"spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "200m"}}]}}
    assert pod_requests({"containers": [container()]}, [limit_range]) == {"cpu": 200}


def test_req5_first_limitrange_providing_a_key_wins() -> None:
    first = {"spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}}]}}
    second = {"spec": {"limits": [{"type": "Container", "default": {"cpu": "2"}}]}}
    assert pod_requests({"containers": [container()]}, [first, second]) == {"cpu": 1000}


def test_qty5_rounding_is_per_pod_before_multiplying() -> None:
    per_pod = pod_requests({"containers": [container({"nvidia.com/gpu": "0.5"})]})
    assert scale(per_pod, 4) == {"nvidia.com/gpu": 4}


def test_req9_totals_saturate_at_int64() -> None:
    assert scale({"cpu": MAX_INT64 // 2 + 1}, 4) == {"cpu": MAX_INT64}
