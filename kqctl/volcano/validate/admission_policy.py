"""The Helm chart's ValidatingAdmissionPolicy for Queues (``queue-validation-policy``), reimplemented.

Source: ``installer/helm/chart/volcano/policy/queues-validating.yaml`` at the pinned commit (a copy is in
``upstream/volcano-crds/``; a test checks that every validation message there is one of these rules). The
chart installs it only with ``custom.vap_enable: true`` (default false), so ``kqctl validate`` applies it
only with ``--vap``. A denial reads as the API server words it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kqctl.k8s.quantity import QuantityError, parse_quantity
from kqctl.origin import FieldPath, format_path
from kqctl.volcano.api.models import HIERARCHY_ANNOTATION, HIERARCHY_WEIGHTS_ANNOTATION

POLICY = "queue-validation-policy"
BINDING = "queue-validation-policy-binding"
_WEIGHT = re.compile(r"^[0-9]+(\.[0-9]+)?$")


@dataclass(frozen=True)
class PolicyDenial:
    rule_id: str
    message: str
    path: FieldPath
    hint: str | None = None
    involves: tuple[FieldPath, ...] = ()  # the other fields the rule weighs (capability for "<= capability")


def denied(message: str) -> str:
    """The API server's text for a ValidatingAdmissionPolicy denial."""
    return f"ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}' denied request: {message}"


def evaluate(operation: str, obj: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> PolicyDenial | None:
    """The first validation of the policy that fails for this request (CREATE/UPDATE judge ``object``, DELETE
    judges ``oldObject``'s name), or None."""
    if operation == "DELETE":
        name = str(_dict(_dict(old).get("metadata")).get("name", ""))
        if name in ("default", "root"):
            return PolicyDenial("VC-VAP-DELETE", denied(f"`{name}` queue can not be deleted"), ())
        return None
    body = _dict(obj)
    for check in (_state, _empty_values, _deserved_within_capability, _deserved_covers_guarantee,
                  _hierarchy_lengths, _hierarchy_weights):
        found = check(body)
        if found is not None:
            return found
    return None


def _state(body: Mapping[str, Any]) -> PolicyDenial | None:
    state = _dict(body.get("status")).get("state")
    if state in (None, "", "Open", "Closed"):
        return None
    return PolicyDenial("VC-VAP-STATE", denied("queue state must be in [Open, Closed]"), ("status", "state"))


def _empty_values(body: Mapping[str, Any]) -> PolicyDenial | None:
    spec = _dict(body.get("spec"))
    lists = (("capability", _dict(spec.get("capability")), ("spec", "capability")),
             ("deserved", _dict(spec.get("deserved")), ("spec", "deserved")),
             ("guarantee", _dict(_dict(spec.get("guarantee")).get("resource")), ("spec", "guarantee", "resource")))
    for label, values, path in lists:
        for name, value in values.items():
            if value == "":
                return PolicyDenial("VC-VAP-EMPTY", denied(f"{label} resource values must not be empty"),
                                    (*path, name))
    return None


def _deserved_within_capability(body: Mapping[str, Any]) -> PolicyDenial | None:
    """VC-VAP-CAPABILITY, and VC-VAP-QUANTITY-TYPE when ``quantity()`` is handed a number. CEL's ``&&``,
    ``||`` and ``all()`` let a false beat an error: a resource with deserved above capability denies with the
    rule's message even beside a number; otherwise a number on a resource both lists is an evaluation error."""
    spec = _dict(body.get("spec"))
    capability, deserved = _dict(spec.get("capability")), _dict(spec.get("deserved"))
    if not capability or not deserved:
        return None
    failed: FieldPath | None = None
    erred: tuple[FieldPath, Any] | None = None
    for name in sorted(set(capability) & set(deserved)):
        number = _cel_number_path(name, (("capability", capability), ("deserved", deserved)))
        if number is not None:
            erred = erred or number
            continue
        cap, des = _quantity(capability[name]), _quantity(deserved[name])
        if cap is not None and des is not None and des > cap and failed is None:
            failed = ("spec", "deserved", name)
    if failed is not None:
        return PolicyDenial("VC-VAP-CAPABILITY", denied("must be <= capability"), failed,
                            involves=(("spec", "capability", failed[-1]),))
    if erred is not None:
        return _quantity_error("must be <= capability", erred)
    return None


def _deserved_covers_guarantee(body: Mapping[str, Any]) -> PolicyDenial | None:
    """VC-VAP-GUARANTEE (a guarantee missing from deserved is false before any ``quantity()`` call), and
    VC-VAP-QUANTITY-TYPE as for the capability rule."""
    spec = _dict(body.get("spec"))
    guarantee = _dict(_dict(spec.get("guarantee")).get("resource"))
    deserved = _dict(spec.get("deserved"))
    if not guarantee:
        return None
    failed: FieldPath | None = None
    erred: tuple[FieldPath, Any] | None = None
    for name in sorted(guarantee):
        if name not in deserved:
            failed = failed or ("spec", "guarantee", "resource", name)
            continue
        number = _cel_number_path(name, (("deserved", deserved), ("guarantee", guarantee)))
        if number is not None:
            erred = erred or number
            continue
        des, guar = _quantity(deserved[name]), _quantity(guarantee[name])
        if des is None or (guar is not None and des < guar):
            failed = failed or ("spec", "guarantee", "resource", name)
    if failed is not None:
        return PolicyDenial("VC-VAP-GUARANTEE", denied("must be >= guarantee"), failed,
                            involves=(("spec", "deserved", failed[-1]),))
    if erred is not None:
        return _quantity_error("must be >= guarantee", erred)
    return None


def _cel_number_path(name: str, lists: tuple[tuple[str, Mapping[str, Any]], ...]) -> tuple[FieldPath, Any] | None:
    """Where (and what) the policy's ``quantity()`` would be handed a number for this resource: an unquoted
    quantity the API server decodes as an integer (``10``, ``1e3``) reaches CEL as an int, and ``quantity()``
    takes strings."""
    for label, values in lists:
        value = values.get(name)
        if _decoded_as_integer(value):
            base: FieldPath = ("spec", "guarantee", "resource") if label == "guarantee" else ("spec", label)
            return (*base, name), value
    return None


def _decoded_as_integer(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return float(value).is_integer() and -(2**63) <= value <= 2**63 - 1


def _quantity_error(rule: str, where: tuple[FieldPath, Any]) -> PolicyDenial:
    """The API server's words for an expression that failed to evaluate under ``failurePolicy: Fail``; the
    expression is named by the message of the validation it belongs to."""
    path, value = where
    text = getattr(value, "text", None) or str(value)
    return PolicyDenial("VC-VAP-QUANTITY-TYPE",
                        denied(f"expression '<the validation \"{rule}\">' resulted in error: no such overload"),
                        path,
                        f"{format_path(path)} is the number {text}, not a string: the policy passes it to CEL's "
                        "quantity(), which takes strings only, and its failurePolicy is Fail, so the API server "
                        f"refuses the Queue; quote it: \"{text}\" (the webhook alone would accept it)")


def _hierarchy_lengths(body: Mapping[str, Any]) -> PolicyDenial | None:
    notes = _dict(_dict(body.get("metadata")).get("annotations"))
    path, weights = str(notes.get(HIERARCHY_ANNOTATION, "")), str(notes.get(HIERARCHY_WEIGHTS_ANNOTATION, ""))
    if (not path and not weights) or (path and weights and len(path.split("/")) == len(weights.split("/"))):
        return None
    return PolicyDenial("VC-VAP-HIERARCHY", denied(f"{HIERARCHY_ANNOTATION} must have the same length with "
                                                   f"{HIERARCHY_WEIGHTS_ANNOTATION}"),
                        ("metadata", "annotations", HIERARCHY_ANNOTATION))


def _hierarchy_weights(body: Mapping[str, Any]) -> PolicyDenial | None:
    notes = _dict(_dict(body.get("metadata")).get("annotations"))
    weights = str(notes.get(HIERARCHY_WEIGHTS_ANNOTATION, ""))
    if not weights or all(_WEIGHT.match(w) and float(w) > 0 for w in weights.split("/")):
        return None
    return PolicyDenial("VC-VAP-HIERARCHY", denied(f"weights in {HIERARCHY_WEIGHTS_ANNOTATION} must be larger than 0"),
                        ("metadata", "annotations", HIERARCHY_WEIGHTS_ANNOTATION))


# The messages of the policy's validations, for the test that keeps this module in step with the chart.
MESSAGES = (
    "queue state must be in [Open, Closed]",
    "capability resource values must not be empty",
    "deserved resource values must not be empty",
    "guarantee resource values must not be empty",
    "must be <= capability",
    "must be >= guarantee",
    f"{HIERARCHY_ANNOTATION} must have the same length with {HIERARCHY_WEIGHTS_ANNOTATION}",
    f"weights in {HIERARCHY_WEIGHTS_ANNOTATION} must be larger than 0",
    "`default` queue can not be deleted",
    "`root` queue can not be deleted",
)


def _quantity(raw: Any) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return parse_quantity(raw)
    except (QuantityError, TypeError, ValueError):
        return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
