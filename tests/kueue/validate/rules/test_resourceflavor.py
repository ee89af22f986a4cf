"""ResourceFlavor webhook rules (§2.5)."""

from __future__ import annotations

from typing import Any

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import run_webhook_rules


def resource_flavor(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "a100"},
        "spec": spec,
    }


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("ResourceFlavor", body) if f.rule_id == rule_id]


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found(body, rule_id)]


def test_valid_flavor_has_no_findings() -> None:
    body = resource_flavor(
        nodeLabels={"cloud.example.com/accelerator": "a100"},
        nodeTaints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
        tolerations=[{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
    )
    assert run_webhook_rules("ResourceFlavor", body) == []


def test_vrf1_valid_node_labels_accepted() -> None:
    assert found(resource_flavor(nodeLabels={"zone": "us-east-1a"}), "VAL-RF-1") == []


def test_vrf1_invalid_node_label_value_rejected_on_node_labels() -> None:
    [finding] = found(resource_flavor(nodeLabels={"zone": "us east"}), "VAL-RF-1")
    assert finding.field == "spec.nodeLabels"
    assert finding.message.startswith('Invalid value: "us east": a valid label must be an empty string')


def test_vrf1_invalid_node_label_key_rejected() -> None:
    [finding] = found(resource_flavor(nodeLabels={"a/b/c": "x"}), "VAL-RF-1")
    assert finding.message.startswith('Invalid value: "a/b/c": a valid label key must consist')


def test_vrf3_same_key_with_different_effects_accepted() -> None:
    taints = [{"key": "gpu", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoExecute"}]
    assert found(resource_flavor(nodeTaints=taints), "VAL-RF-3") == []


def test_vrf3_duplicate_key_and_effect_rejected() -> None:
    taints = [
        {"key": "gpu", "value": "a", "effect": "NoSchedule"},
        {"key": "gpu", "value": "b", "effect": "NoSchedule"},
    ]
    assert messages(resource_flavor(nodeTaints=taints), "VAL-RF-3") == [
        (
            "spec.nodeTaints[1]",
            'Duplicate value: {"key":"gpu","value":"b","effect":"NoSchedule"}: '
            "taints must be unique by key and effect pair",
        )
    ]


def test_vrf3_invalid_taint_key_rejected() -> None:
    [finding] = found(resource_flavor(nodeTaints=[{"key": "bad key", "effect": "NoSchedule"}]), "VAL-RF-3")
    assert finding.field == "spec.nodeTaints[0].key"


def test_vrf3_invalid_taint_value_messages_joined_with_semicolon() -> None:
    value = "-" + "a" * 63
    [finding] = found(
        resource_flavor(nodeTaints=[{"key": "k", "value": value, "effect": "NoSchedule"}]), "VAL-RF-3"
    )
    assert finding.field == "spec.nodeTaints[0].value"
    assert finding.message.startswith(
        f'Invalid value: "{value}": must be no more than 63 bytes;a valid label'
    )


def test_vrf9_empty_toleration_key_accepted() -> None:
    assert found(resource_flavor(tolerations=[{"operator": "Exists"}]), "VAL-RF-9") == []


def test_vrf9_invalid_toleration_key_rejected() -> None:
    [finding] = found(
        resource_flavor(tolerations=[{"key": "spot instance", "operator": "Exists"}]), "VAL-RF-9"
    )
    assert finding.field == "spec.tolerations[0].key"
    assert finding.message.startswith('Invalid value: "spot instance": name part must consist')


def test_vrf3_wrongly_typed_taint_fields_never_raise() -> None:
    taints = [{"key": {"a": 1}, "effect": ["NoSchedule"]}, {"key": {"a": 1}, "effect": ["NoSchedule"]}, "x"]
    assert found(resource_flavor(nodeTaints=taints), "VAL-RF-3") == []
