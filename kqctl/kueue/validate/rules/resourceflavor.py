"""ResourceFlavor validating-webhook rules (§2.5, ``pkg/webhooks/resourceflavor_webhook.go``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.names import (
    duplicate,
    go_json,
    go_quote,
    invalid,
    is_label_value,
    validate_label_name,
    validate_labels,
)
from kqctl.validate.fields import Body, Rule, child, finding, findings, sequence, text

DUPLICATE_TAINT_MSG = "taints must be unique by key and effect pair"


def vrf1_node_labels_are_valid_labels(body: Body) -> Iterator[Finding]:
    """Keys are label keys and values label values; errors sit on ``spec.nodeLabels`` itself."""
    labels = child(body, "spec", "nodeLabels")
    if isinstance(labels, Mapping):
        yield from findings(
            "VAL-RF-1",
            validate_labels(labels, ("spec", "nodeLabels")),
            "nodeLabels must be valid Kubernetes node labels",
        )


def vrf3_node_taints_are_valid_and_unique(body: Body) -> Iterator[Finding]:
    """Key is a label key, value a label value, and (key, effect) appears once."""
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(sequence(child(body, "spec", "nodeTaints"))):
        if not isinstance(taint, Mapping):
            continue
        path = ("spec", "nodeTaints", i)
        yield from _taint_format_errors(taint, path)
        identity = _taint_identity(taint)
        if identity is None:
            continue
        if identity in seen:
            yield finding(
                "VAL-RF-3",
                duplicate(path, go_json(_taint_as_go(taint)), DUPLICATE_TAINT_MSG),
                "remove the repeated taint or give it another effect",
            )
            continue
        seen.add(identity)


def _taint_identity(taint: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, effect), with Go's "" for a missing effect; ``None`` when a field has a wrong type."""
    key, effect = taint.get("key"), taint.get("effect", "")
    if isinstance(key, str) and isinstance(effect, str):
        return key, effect
    return None


def _taint_format_errors(taint: Mapping[str, Any], path: tuple[str, str, int]) -> Iterator[Finding]:
    # A taint without a key fails the schema first (VAL-RF-2); the webhook never sees it.
    key = text(taint.get("key"))
    if key is not None:
        yield from findings("VAL-RF-3", validate_label_name(key, (*path, "key")))
    value = text(taint.get("value", ""))
    if value is not None:
        errs = is_label_value(value)
        if errs:
            # Kueue joins the messages with ";" into one error (not one error each).
            yield finding("VAL-RF-3", invalid((*path, "value"), go_quote(value), ";".join(errs)))


def _taint_as_go(taint: Mapping[str, Any]) -> dict[str, Any]:
    """``corev1.Taint`` as ``json.Marshal`` writes it (``value``/``timeAdded`` are omitempty)."""
    out: dict[str, Any] = {"key": taint.get("key", "")}
    if taint.get("value"):
        out["value"] = taint["value"]
    out["effect"] = taint.get("effect", "")
    if taint.get("timeAdded"):
        out["timeAdded"] = taint["timeAdded"]
    return out


def vrf9_toleration_keys_are_label_keys(body: Body) -> Iterator[Finding]:
    """A non-empty toleration key must be a label key (an empty key means "any key")."""
    for i, toleration in enumerate(sequence(child(body, "spec", "tolerations"))):
        key = text(child(toleration, "key"))
        if key:
            yield from findings("VAL-RF-9", validate_label_name(key, ("spec", "tolerations", i, "key")))


RULES: tuple[Rule, ...] = (
    vrf1_node_labels_are_valid_labels,
    vrf3_node_taints_are_valid_and_unique,
    vrf9_toleration_keys_are_label_keys,
)
