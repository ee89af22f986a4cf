"""VAL-POD-1..3: the API server's own rules for the resources of a Pod and of a Job's pod template
(pkg/apis/core/validation validateResourceRequirements), so that validate, and every command through the gate,
refuse what `kubectl apply` would."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.validate.rules import run_core_rules


def pod(resources: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "resources": resources}], **spec}}


def job(resources: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "resources": resources}]}}}}


def found(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    group = "batch" if body["kind"] == "Job" else ""
    return [(f.rule_id, f.field, f.message) for f in run_core_rules(group, body["kind"], body)]


@pytest.mark.parametrize("resources,expected", [
    ({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2"}}, []),
    ({"requests": {"cpu": "-1"}}, [("VAL-POD-1", "spec.containers[0].resources.requests.cpu",
                                    'Invalid value: "-1": must be greater than or equal to 0')]),
    ({"limits": {"memory": "-1Gi"}}, [("VAL-POD-1", "spec.containers[0].resources.limits.memory",
                                       'Invalid value: "-1Gi": must be greater than or equal to 0')]),
    ({"requests": {"example.com/gpu": "500m"}, "limits": {"example.com/gpu": "500m"}},
     [("VAL-POD-1", "spec.containers[0].resources.limits[example.com/gpu]", 'Invalid value: "500m": must be an '
       "integer"), ("VAL-POD-1", "spec.containers[0].resources.requests[example.com/gpu]",
                    'Invalid value: "500m": must be an integer')]),
])
def test_val_pod_1_quantities_are_not_negative_and_extended_resources_are_whole(
        resources: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert found(pod(resources)) == expected


@pytest.mark.parametrize("name,expected", [
    ("cpu", None), ("hugepages-2Mi", None), ("nvidia.com/gpu", None), ("kubernetes.io/foo", None),
    ("cpus", "must be a standard resource for containers"),
    ("gpu", "must be a standard resource for containers"),
])
def test_val_pod_2_a_container_asks_for_standard_or_extended_resources(name: str, expected: str | None) -> None:
    body = pod({"requests": {name: "1"}, "limits": {name: "1"}, **({"limits": {name: "1", "cpu": "1"}}
                                                                    if name.startswith("hugepages") else {})})
    messages = [m for rule, _, m in found(body) if rule == "VAL-POD-2"]
    assert messages == ([] if expected is None else [f'Invalid value: "{name}": {expected}'] * 2)


@pytest.mark.parametrize("resources,message", [
    ({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}, 'Invalid value: "2": must be less than or equal to cpu '
                                                          "limit of 1"),
    ({"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}},
     'Invalid value: "1": must be equal to example.com/gpu limit of 2'),
    ({"requests": {"example.com/gpu": "1"}}, "Required value: Limit must be set for non overcommitable resources"),
])
def test_val_pod_3_requests_against_limits(resources: dict[str, Any], message: str) -> None:
    assert [(r, m) for r, _, m in found(pod(resources))] == [("VAL-POD-3", message)]


def test_val_pod_a_job_template_and_the_pod_overhead_are_checked_too() -> None:
    assert found(job({"requests": {"cpu": "-1"}})) == [
        ("VAL-POD-1", "spec.template.spec.containers[0].resources.requests.cpu",
         'Invalid value: "-1": must be greater than or equal to 0')]
    assert [(r, f) for r, f, _ in found(pod({}, overhead={"memory": "-1Mi"}))] == [
        ("VAL-POD-1", "spec.overhead.limits.memory")]


def test_val_pod_values_of_the_wrong_type_are_left_to_the_schema() -> None:
    assert found(pod({"requests": {"cpu": ["1"]}, "limits": "x"})) == []
