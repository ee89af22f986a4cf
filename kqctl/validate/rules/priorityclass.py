"""scheduling.k8s.io/v1 PriorityClass rules of the API server itself.

Not Kueue rules, but they decide whether the PriorityClasses a Kueue setup relies on (REQ-3) can
be created at all (``pkg/apis/scheduling/validation/validation.go``, ``ValidatePriorityClass``).
The spec gives them no ID; they are VAL-PC-1 and VAL-PC-2 here.
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.k8s.names import forbidden
from kqctl.validate.fields import Body, Rule, child, finding, integer, text

SYSTEM_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
# name -> value; both built-in classes have globalDefault false.
_SYSTEM_CLASSES = {
    "system-node-critical": SYSTEM_CRITICAL_PRIORITY + 1000,
    "system-cluster-critical": SYSTEM_CRITICAL_PRIORITY,
}


def _system_class_error(name: str, value: int | None, global_default: bool) -> str | None:
    """``IsKnownSystemPriorityClass``: ``None`` when the object equals a built-in class."""
    if name not in _SYSTEM_CLASSES:
        return f"{name} is not a known system priority class"
    if value != _SYSTEM_CLASSES[name]:
        return f"value of {name} PriorityClass must be {_SYSTEM_CLASSES[name]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def vpc1_system_prefix_is_reserved(body: Body) -> Iterator[Finding]:
    name = text(child(body, "metadata", "name"))
    if name is None or not name.startswith(SYSTEM_PREFIX):
        return
    problem = _system_class_error(name, integer(body.get("value")), body.get("globalDefault") is True)
    if problem is not None:
        reserved = f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only"
        msg = f"{reserved}. error: {problem}"
        yield finding(
            "VAL-PC-1", forbidden(("metadata", "name"), msg), "choose a name without the 'system-' prefix"
        )


def vpc2_user_priority_at_most_one_billion(body: Body) -> Iterator[Finding]:
    name = text(child(body, "metadata", "name")) or ""
    value = integer(body.get("value"))
    # System-prefixed names are judged by VAL-PC-1 instead, as in Kubernetes.
    if name.startswith(SYSTEM_PREFIX) or value is None or value <= HIGHEST_USER_DEFINABLE_PRIORITY:
        return
    msg = f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
    yield finding("VAL-PC-2", forbidden(("value",), msg), "use a value of at most 1000000000")


RULES: tuple[Rule, ...] = (
    vpc1_system_prefix_is_reserved,
    vpc2_user_priority_at_most_one_billion,
)
