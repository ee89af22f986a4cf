"""Label selectors as Kubernetes evaluates them (namespaceSelector, and later node affinity)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_labels(name: str, labels: Mapping[str, str] | None) -> dict[str, str]:
    """A namespace's labels as the API server holds them: it always adds its own name label."""
    result = dict(labels or {})
    result[NAMESPACE_NAME_LABEL] = name
    return result


def selector_matches(selector: Any, labels: Mapping[str, str]) -> bool:
    """Whether a LabelSelector matches; ``None`` matches nothing and ``{}`` everything (DEF-2).

    A malformed selector matches nothing, as Kueue treats a selector it cannot convert.
    """
    if selector is None or not isinstance(selector, Mapping):
        return False
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        return False
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        return False
    return all(_expression_matches(e, labels) for e in expressions)


def _expression_matches(expression: Any, labels: Mapping[str, str]) -> bool:
    if not isinstance(expression, Mapping):
        return False
    key = expression.get("key")
    operator = expression.get("operator")
    values = expression.get("values") or []
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False
