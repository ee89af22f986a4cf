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
    key = str(expression.get("key"))
    operator = expression.get("operator")
    values = expression.get("values") or []
    if not isinstance(values, list):
        return False  # malformed (the schema's finding): matches nothing, like any selector Kueue cannot convert
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False


# --- FA-5: taints, tolerations and node affinity against a flavor --------------------------------


class SelectorError(ValueError):
    """A node selector requirement Kubernetes cannot evaluate (FA-5: the pod set fails with it)."""


def taint_text(taint: Mapping[str, Any] | Any) -> str:
    """Go's default struct printing of a Taint: ``{key value effect <nil>}``."""
    key, value, effect = _taint_fields(taint)
    return f"{{{key} {value} {effect} <nil>}}"


def _taint_fields(taint: Any) -> tuple[str, str, str]:
    if isinstance(taint, Mapping):
        return str(taint.get("key", "")), str(taint.get("value", "")), str(taint.get("effect", ""))
    return taint.key, taint.value, taint.effect


def _toleration_fields(toleration: Any) -> tuple[str, str, str, str]:
    if isinstance(toleration, Mapping):
        return (str(toleration.get("key") or ""), str(toleration.get("operator") or ""),
                str(toleration.get("value") or ""), str(toleration.get("effect") or ""))
    return toleration.key, toleration.operator, toleration.value, toleration.effect


def tolerates(toleration: Any, taint: Any) -> bool:
    """Kubernetes' ToleratesTaint: effect and key (when set) must match, then the operator decides."""
    key, operator, value, effect = _toleration_fields(toleration)
    taint_key, taint_value, taint_effect = _taint_fields(taint)
    if effect and effect != taint_effect:
        return False
    if key and key != taint_key:
        return False
    if operator in ("", "Equal"):
        return value == taint_value
    if operator == "Exists":
        return True
    if operator in ("Lt", "Gt") and _is_int(value) and _is_int(taint_value):
        return int(taint_value) < int(value) if operator == "Lt" else int(taint_value) > int(value)
    return False


def first_untolerated_taint(taints: Any, tolerations: list[Any]) -> Any | None:
    """FA-5.1: the first NoSchedule/NoExecute taint no toleration tolerates (PreferNoSchedule ignored)."""
    for taint in taints:
        if _taint_fields(taint)[2] not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def flavor_matches_pod(pod_spec: Mapping[str, Any], node_labels: Mapping[str, str]) -> bool:
    """FA-5.2: the pod's nodeSelector and required node affinity, limited to the flavor's label keys.

    Raises :class:`SelectorError` for a requirement Kubernetes cannot evaluate.
    """
    allowed = set(node_labels)
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        for key, value in selector.items():
            if key in allowed and node_labels.get(key) != value:
                return False
    terms = _required_terms(pod_spec, allowed)
    if not terms:
        return True
    return any(all(_requirement_matches(r, node_labels) for r in term) for term in terms)


def _required_terms(pod_spec: Mapping[str, Any], allowed: set[str]) -> list[list[Mapping[str, Any]]]:
    """Terms restricted to allowed keys; a term left empty drops the whole affinity (Kueue's flavorSelector)."""
    affinity = pod_spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(node_affinity, Mapping) else None
    raw_terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    terms: list[list[Mapping[str, Any]]] = []
    for term in raw_terms if isinstance(raw_terms, list) else []:
        expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
        kept = [e for e in (expressions or []) if isinstance(e, Mapping) and e.get("key") in allowed]
        if not kept:
            return []
        terms.append(kept)
    return terms


def _requirement_matches(requirement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(requirement.get("key"))
    operator = requirement.get("operator")
    values = [str(v) for v in requirement.get("values") or []]
    if operator in ("In", "NotIn"):
        if not values:
            raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
        present = key in labels and labels[key] in values
        return present if operator == "In" else not present
    if operator in ("Exists", "DoesNotExist"):
        if values:
            raise SelectorError("values set must be empty for exists and does not exist")
        return (key in labels) == (operator == "Exists")
    if operator in ("Gt", "Lt"):
        if len(values) != 1 or not _is_int(values[0]):
            raise SelectorError("for 'Gt', 'Lt' operators, exactly one value is required and it must be an integer")
        if key not in labels or not _is_int(labels[key]):
            return False
        return int(labels[key]) > int(values[0]) if operator == "Gt" else int(labels[key]) < int(values[0])
    raise SelectorError(f"{operator!r} is not a valid node selector operator")


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


# --- kubectl's -l/--selector syntax ----------------------------------------------------------------


def parse_label_selector(text: str) -> dict[str, Any]:
    """``a=b,c!=d,e in (x,y),f notin (z),g,!h`` as a LabelSelector mapping; ValueError when malformed."""
    labels: dict[str, str] = {}
    expressions: list[dict[str, Any]] = []
    for term in _split_terms(text):
        term = term.strip()
        if not term:
            continue
        lowered = term.replace("\t", " ")
        if " in " in lowered or " notin " in lowered:
            key, operator, values = _set_term(lowered)
            expressions.append({"key": key, "operator": operator, "values": values})
        elif "!=" in term:
            key, value = (p.strip() for p in term.split("!=", 1))
            expressions.append({"key": key, "operator": "NotIn", "values": [value]})
        elif "==" in term or "=" in term:
            key, value = (p.strip() for p in term.replace("==", "=").split("=", 1))
            labels[key] = value
        elif term.startswith("!"):
            expressions.append({"key": term[1:].strip(), "operator": "DoesNotExist"})
        else:
            expressions.append({"key": term, "operator": "Exists"})
    for key in [*labels, *(e["key"] for e in expressions)]:
        if not key:
            raise ValueError(f"invalid label selector {text!r}: a requirement has no key")
    return {"matchLabels": labels, "matchExpressions": expressions}


def _split_terms(text: str) -> list[str]:
    terms, depth, current = [], 0, ""
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            terms.append(current)
            current = ""
        else:
            current += char
    if depth != 0:
        raise ValueError(f"invalid label selector {text!r}: unbalanced parentheses")
    terms.append(current)
    return terms


def _set_term(term: str) -> tuple[str, str, list[str]]:
    operator = "NotIn" if " notin " in term else "In"
    key, _, rest = term.partition(" notin " if operator == "NotIn" else " in ")
    rest = rest.strip()
    if not (rest.startswith("(") and rest.endswith(")")):
        raise ValueError(f"invalid label selector term {term!r}: expected a value list in parentheses")
    values = [v.strip() for v in rest[1:-1].split(",") if v.strip()]
    return key.strip(), operator, values
