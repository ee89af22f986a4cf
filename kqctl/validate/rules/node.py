"""The API server's own rule for a Node's resources (VAL-NODE-1).

``pkg/apis/core/validation/validation.go``: ``ValidateNode`` (create) and ``ValidateNodeUpdate`` (every update,
the kubelet's status updates included) both run ``ValidateNodeResources``, which checks each quantity of
``status.capacity`` and ``status.allocatable`` with ``ValidateResourceQuantityValue``: never negative, and a whole
number for an integer resource (``helper.IsIntegerResourceName``: pods and the other object counts, or an
extended resource). A Node breaking it can never be stored, so it is an error, not a what-if: every scheduler's
snapshot reads these two maps (Kueue's topology, Volcano's and YuniKorn's nodes).
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.k8s.names import invalid
from kqctl.k8s.pods import is_extended_resource
from kqctl.validate.fields import Body, Rule, child, finding, quantity, quoted_quantity
from kqctl.validate.rules.podspec import NEGATIVE_MSG

# helper.integerResources: the resources counted in whole objects.
_INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims",
    "services.nodeports", "services.loadbalancers",
})
_HINT = ("no Node can hold it: the API server refuses it on create and on every status update; capacity and "
         "allocatable are 0 or more, pods and extended resources (example.com/gpu) whole units")


def _integer_resource(name: str) -> bool:
    """``helper.IsIntegerResourceName``."""
    return name in _INTEGER_RESOURCES or is_extended_resource(name)


def vnode1_status_quantities(body: Body) -> Iterator[Finding]:
    """``ValidateNodeResources``: capacity first, then allocatable, each quantity where it is written (a value
    that is no quantity at all is the schema's finding)."""
    for field_name in ("capacity", "allocatable"):
        resources = child(body, "status", field_name)
        for name, raw in (resources.items() if isinstance(resources, dict) else ()):
            value = quantity(raw)
            if not isinstance(name, str) or value is None:
                continue
            path = ("status", field_name, name)
            if value.value < 0:
                yield finding("VAL-NODE-1", invalid(path, quoted_quantity(value), NEGATIVE_MSG), _HINT)
            if value.value.denominator != 1 and _integer_resource(name):
                yield finding("VAL-NODE-1", invalid(path, quoted_quantity(value), "must be an integer"), _HINT)


RULES: tuple[Rule, ...] = (vnode1_status_quantities,)
