"""scheduling.k8s.io PriorityClass rules of the API server (VAL-PC-1, VAL-PC-2)."""

from __future__ import annotations

from typing import Any

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import run_webhook_rules


def priority_class(name: str, value: int, global_default: bool = False) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": global_default,
    }


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("PriorityClass", body) if f.rule_id == rule_id]


def test_vpc1_built_in_system_class_accepted() -> None:
    assert found(priority_class("system-cluster-critical", 2_000_000_000), "VAL-PC-1") == []


def test_vpc1_unknown_system_prefixed_name_rejected() -> None:
    [finding] = found(priority_class("system-batch", 10), "VAL-PC-1")
    assert (finding.field, finding.message) == (
        "metadata.name",
        "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-batch is not a known system priority class",
    )


def test_vpc1_system_class_with_wrong_value_rejected() -> None:
    [finding] = found(priority_class("system-node-critical", 5), "VAL-PC-1")
    assert finding.message.endswith("error: value of system-node-critical PriorityClass must be 2000001000")


def test_vpc2_value_of_one_billion_accepted() -> None:
    assert found(priority_class("high", 1_000_000_000), "VAL-PC-2") == []


def test_vpc2_value_above_one_billion_rejected() -> None:
    [finding] = found(priority_class("higher", 1_000_000_001), "VAL-PC-2")
    assert (finding.field, finding.message) == (
        "value",
        "Forbidden: maximum allowed value of a user defined priority is 1000000000",
    )
