"""Workload webhook rules (§2.8)."""

from __future__ import annotations

from typing import Any

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import run_webhook_rules


def pod_set(name: str = "main", count: int = 2, **fields: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    return {"name": name, "count": count, "template": {"spec": {"containers": [container]}}, **fields}


def workload(*pod_sets: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "job-a", "namespace": "team-a"},
        "spec": {"queueName": "lq", "active": True, "podSets": list(pod_sets) or [pod_set()]},
    }
    if status is not None:
        body["status"] = status
    return body


def reserved(admission: dict[str, Any] | None) -> dict[str, Any]:
    status: dict[str, Any] = {"conditions": [{"type": "QuotaReserved", "status": "True"}]}
    if admission is not None:
        status["admission"] = admission
    return status


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("Workload", body) if f.rule_id == rule_id]


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found(body, rule_id)]


def containers(body: dict[str, Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = body["spec"]["podSets"][0]["template"]["spec"]["containers"]
    return result


def test_valid_workload_has_no_findings() -> None:
    assert run_webhook_rules("Workload", workload()) == []


# VAL-WL-4 ----------------------------------------------------------------------------------


def test_vwl4_one_pod_set_with_min_count_accepted() -> None:
    assert found(workload(pod_set("a", minCount=1), pod_set("b")), "VAL-WL-4") == []


def test_vwl4_two_pod_sets_with_min_count_rejected() -> None:
    body = workload(pod_set("a", minCount=1), pod_set("b", minCount=1))
    assert messages(body, "VAL-WL-4") == [
        ("spec.podSets", "Invalid value: 2: at most one podSet can use minCount")
    ]


def test_vwl4_min_count_on_elastic_workload_rejected() -> None:
    body = workload(pod_set("a", minCount=1))
    body["metadata"]["annotations"] = {"kueue.x-k8s.io/elastic-job": "true"}
    assert messages(body, "VAL-WL-4") == [
        ("spec.podSets", "Invalid value: 1: partial admission and elastic job cannot be used together")
    ]


# VAL-WL-5 ----------------------------------------------------------------------------------


def test_vwl5_ordinary_resources_accepted() -> None:
    assert found(workload(), "VAL-WL-5") == []


def test_vwl5_pods_request_in_container_rejected() -> None:
    body = workload()
    containers(body)[0]["resources"]["requests"]["pods"] = "1"
    [finding] = found(body, "VAL-WL-5")
    assert finding.path == (
        "spec",
        "podSets",
        0,
        "template",
        "spec",
        "containers",
        0,
        "resources",
        "requests",
        "pods",
    )
    assert finding.message == 'Invalid value: "pods": the key is reserved for internal kueue use'


def test_vwl5_pods_limit_in_init_container_and_pod_level_rejected() -> None:
    body = workload()
    spec = body["spec"]["podSets"][0]["template"]["spec"]
    spec["initContainers"] = [{"name": "i", "resources": {"limits": {"pods": "1"}}}]
    spec["resources"] = {"requests": {"pods": "1"}}
    assert [f.field for f in found(body, "VAL-WL-5")] == [
        "spec.podSets[0].template.spec.initContainers[0].resources.limits.pods",
        "spec.podSets[0].template.spec.resources.requests.pods",
    ]


# VAL-WL-6 ----------------------------------------------------------------------------------


def test_vwl6_zero_request_accepted() -> None:
    body = workload()
    containers(body)[0]["resources"]["requests"]["memory"] = "0"
    assert found(body, "VAL-WL-6") == []


def test_vwl6_negative_request_rejected() -> None:
    body = workload()
    containers(body)[0]["resources"]["limits"] = {"memory": "-1Gi"}
    assert [m for _, m in messages(body, "VAL-WL-6")] == [
        'Invalid value: "-1Gi": must be greater than or equal to 0'
    ]


# VAL-WL-7 ----------------------------------------------------------------------------------


def test_vwl7_valid_template_metadata_accepted() -> None:
    body = workload(
        pod_set(template={"metadata": {"labels": {"app": "x"}, "annotations": {"a.b/c": "anything"}}})
    )
    assert found(body, "VAL-WL-7") == []


def test_vwl7_invalid_template_label_rejected() -> None:
    body = workload(pod_set(template={"metadata": {"labels": {"app": "not ok"}}}))
    [finding] = found(body, "VAL-WL-7")
    assert finding.field == "spec.podSets[0].template.metadata.labels"


def test_vwl7_invalid_template_annotation_key_rejected() -> None:
    body = workload(pod_set(template={"metadata": {"annotations": {"bad key": "v"}}}))
    [finding] = found(body, "VAL-WL-7")
    assert finding.field == "spec.podSets[0].template.metadata.annotations"


# VAL-WL-12 ---------------------------------------------------------------------------------


def test_vwl12_consistent_admission_accepted() -> None:
    admission = {
        "clusterQueue": "cq",
        "podSetAssignments": [{"name": "main", "count": 2, "resourceUsage": {"cpu": "2", "memory": "2Gi"}}],
    }
    assert found(workload(status=reserved(admission)), "VAL-WL-12") == []


def test_vwl12_no_quota_reservation_needs_no_admission() -> None:
    assert (
        found(workload(status={"conditions": [{"type": "QuotaReserved", "status": "False"}]}), "VAL-WL-12")
        == []
    )


def test_vwl12_quota_reserved_without_admission_rejected() -> None:
    assert messages(workload(status=reserved(None)), "VAL-WL-12") == [
        ("status.admission", "Required value: must be set while the QuotaReserved condition is true")
    ]


def test_vwl12_assignment_for_unknown_pod_set_not_found() -> None:
    admission = {"clusterQueue": "cq", "podSetAssignments": [{"name": "worker", "count": 2}]}
    assert messages(workload(status=reserved(admission)), "VAL-WL-12") == [
        ("status.admission.podSetAssignments[0].name", 'Not found: "worker"')
    ]


def test_vwl12_usage_not_divisible_by_count_rejected() -> None:
    admission = {
        "clusterQueue": "cq",
        "podSetAssignments": [{"name": "main", "count": 2, "resourceUsage": {"cpu": "1500m", "memory": "3"}}],
    }
    # cpu counts in milli-cores (1500 is even), memory in bytes (3 is not).
    assert messages(workload(status=reserved(admission)), "VAL-WL-12") == [
        (
            "status.admission.podSetAssignments[0].resourceUsage.memory",
            'Invalid value: "3": is not a multiple of 2',
        )
    ]


# VAL-WL-13 ---------------------------------------------------------------------------------


def test_vwl13_reclaimable_within_count_accepted() -> None:
    assert found(workload(status={"reclaimablePods": [{"name": "main", "count": 2}]}), "VAL-WL-13") == []


def test_vwl13_reclaimable_above_count_rejected() -> None:
    assert messages(workload(status={"reclaimablePods": [{"name": "main", "count": 3}]}), "VAL-WL-13") == [
        ("status.reclaimablePods.main.count", "Invalid value: 3: should be less or equal to 2")
    ]


def test_vwl13_reclaimable_for_unknown_pod_set_unsupported() -> None:
    body = workload(pod_set("a"), pod_set("b"), status={"reclaimablePods": [{"name": "c", "count": 1}]})
    assert messages(body, "VAL-WL-13") == [
        ("status.reclaimablePods.c.name", 'Unsupported value: "c": supported values: "a", "b"')
    ]
