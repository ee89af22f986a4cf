"""Helpers shared by the webhook rule modules: type-safe field access, quantities, findings.

Rules run on objects that may still carry wrong JSON types (those are the schema layer's
findings), so every accessor here returns ``None`` or an empty sequence instead of raising.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from kqctl.findings import Finding, Severity
from kqctl.k8s.names import FieldError, go_quote
from kqctl.k8s.quantity import Quantity, QuantityError, parse_quantity

Body = Mapping[str, Any]
Rule = Callable[[Body], Iterable[Finding]]


def child(obj: object, *keys: str | int) -> object:
    """``obj[k1][k2]…`` or ``None`` as soon as a level is missing or has the wrong type."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(obj, list) or not 0 <= key < len(obj):
                return None
            obj = obj[key]
        else:
            # dict, not Mapping: the loader only builds dicts, and the ABC check is several times slower.
            if not isinstance(obj, dict):
                return None
            obj = obj.get(key)
    return obj


def mapping(obj: object) -> Mapping[Any, Any]:
    """``obj`` if it is a mapping, else an empty one."""
    return obj if isinstance(obj, dict) else {}


def sequence(obj: object) -> list[Any]:
    """``obj`` if it is a list, else an empty one."""
    return obj if isinstance(obj, list) else []


def text(obj: object) -> str | None:
    return obj if isinstance(obj, str) else None


def integer(obj: object) -> int | None:
    """A JSON integer (``bool`` is not one, although Python says it is)."""
    return obj if isinstance(obj, int) and not isinstance(obj, bool) else None


def quantity(raw: object) -> Quantity | None:
    """Parse a quantity field; ``None`` for wrong types and unparsable text (schema findings)."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        return None
    try:
        # parse_quantity reads bare YAML numbers from their literal text (QTY-1).
        return parse_quantity(raw)
    except (QuantityError, ValueError, TypeError):
        return None


def quoted_quantity(q: Quantity) -> str:
    """How Kueue shows a quantity it passed as ``value.String()``: the Go-quoted canonical form."""
    return go_quote(q.canonical())


def finding(
    rule_id: str, err: FieldError, hint: str | None = None, severity: Severity = Severity.ERROR
) -> Finding:
    return Finding(rule_id, severity, err.path, err.body(), hint)


def findings(
    rule_id: str, errs: Iterable[FieldError], hint: str | None = None, severity: Severity = Severity.ERROR
) -> Iterator[Finding]:
    for err in errs:
        yield finding(rule_id, err, hint, severity)
