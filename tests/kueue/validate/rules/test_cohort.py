"""Cohort webhook rules (§2.4)."""

from __future__ import annotations

from typing import Any

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import run_webhook_rules


def cohort(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "research"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "10"}]}],
                }
            ]
        },
    }
    body["spec"].update(spec)
    return body


def one_quota(**fields: Any) -> list[dict[str, Any]]:
    resource = {"name": "cpu", "nominalQuota": "10", **fields}
    return [{"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [resource]}]}]


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("Cohort", body) if f.rule_id == rule_id]


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found(body, rule_id)]


def test_valid_cohort_has_no_findings() -> None:
    assert run_webhook_rules("Cohort", cohort(parentName="org")) == []


def test_vco1_dns_subdomain_name_accepted() -> None:
    assert found(cohort(), "VAL-CO-1") == []


def test_vco1_name_with_underscore_rejected() -> None:
    body = cohort()
    body["metadata"]["name"] = "my_cohort"
    [finding] = found(body, "VAL-CO-1")
    assert finding.field == "metadata.name"


def test_vco3_consistent_resource_groups_accepted() -> None:
    assert found(cohort(), "VAL-CO-3") == []


def test_vco3_duplicate_covered_resource_across_groups_rejected() -> None:
    groups = one_quota() + [
        {
            "coveredResources": ["cpu"],
            "flavors": [{"name": "spot", "resources": [{"name": "cpu", "nominalQuota": "1"}]}],
        }
    ]
    assert messages(cohort(resourceGroups=groups), "VAL-CO-3") == [
        ("spec.resourceGroups[1].coveredResources[0]", 'Duplicate value: "cpu"')
    ]


def test_vco3_duplicate_flavor_across_groups_rejected() -> None:
    groups = one_quota() + [
        {
            "coveredResources": ["memory"],
            "flavors": [{"name": "default", "resources": [{"name": "memory", "nominalQuota": "1Gi"}]}],
        }
    ]
    assert messages(cohort(resourceGroups=groups), "VAL-CO-3") == [
        ("spec.resourceGroups[1].flavors[0].name", 'Duplicate value: "default"')
    ]


def test_vco3_bad_resource_name_rejected() -> None:
    groups = [
        {
            "coveredResources": ["CPU!"],
            "flavors": [{"name": "f", "resources": [{"name": "CPU!", "nominalQuota": "1"}]}],
        }
    ]
    [finding] = found(cohort(resourceGroups=groups), "VAL-CO-3")
    assert finding.message.startswith('Invalid value: "CPU!": name part must consist')


def test_vco3_resource_out_of_covered_order_rejected() -> None:
    groups = [
        {
            "coveredResources": ["cpu", "memory"],
            "flavors": [
                {
                    "name": "f",
                    "resources": [
                        {"name": "memory", "nominalQuota": "1"},
                        {"name": "cpu", "nominalQuota": "1"},
                    ],
                }
            ],
        }
    ]
    assert len(found(cohort(resourceGroups=groups), "VAL-CO-3")) == 2


def test_vco3_negative_nominal_quota_rejected() -> None:
    assert messages(cohort(resourceGroups=one_quota(nominalQuota="-2")), "VAL-CO-3") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
            'Invalid value: "-2": must be greater than or equal to 0',
        )
    ]


def test_vco4_limits_with_parent_accepted() -> None:
    body = cohort(parentName="org", resourceGroups=one_quota(borrowingLimit="5", lendingLimit="5"))
    assert found(body, "VAL-CO-4") == []


def test_vco4_lending_limit_without_parent_rejected() -> None:
    assert messages(cohort(resourceGroups=one_quota(lendingLimit="5")), "VAL-CO-4") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
            'Invalid value: "5": must be nil when parent is empty',
        )
    ]


def test_vco4_borrowing_limit_without_parent_rejected() -> None:
    assert [m for _, m in messages(cohort(resourceGroups=one_quota(borrowingLimit="5")), "VAL-CO-4")] == [
        'Invalid value: "5": must be nil when parent is empty'
    ]


def test_vco5_cohort_may_lend_more_than_its_nominal() -> None:
    body = cohort(parentName="org", resourceGroups=one_quota(lendingLimit="50"))
    assert run_webhook_rules("Cohort", body) == []


def test_vco5_cohort_has_no_256_flavor_total() -> None:
    flavors = [{"name": f"f{i}", "resources": [{"name": "cpu", "nominalQuota": "1"}]} for i in range(300)]
    body = cohort(resourceGroups=[{"coveredResources": ["cpu"], "flavors": flavors}])
    assert run_webhook_rules("Cohort", body) == []


def test_vco6_positive_weight_accepted() -> None:
    assert found(cohort(fairSharing={"weight": "0.5"}), "VAL-CO-6") == []


def test_vco6_weight_of_1n_rejected() -> None:
    assert messages(cohort(fairSharing={"weight": "1n"}), "VAL-CO-6") == [
        ("spec.fairSharing", 'Invalid value: "1n": When not 0, weight must be > 10e-9')
    ]


def test_vco6_negative_weight_rejected() -> None:
    assert [m for _, m in messages(cohort(fairSharing={"weight": "-0.5"}), "VAL-CO-6")] == [
        'Invalid value: "-500m": must be greater than or equal to 0'
    ]
