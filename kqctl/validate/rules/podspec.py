"""The API server's own rules for the resources of a Pod, or of a Job's pod template (VAL-POD-*).

``pkg/apis/core/validation/validation.go`` at Kubernetes v1.36, ``validateResourceRequirements`` (with
``validateContainerResourceName``, ``ValidateResourceQuantityValue`` and the ``helper`` predicates it calls), run
for every container and init container and for the pod's ``overhead`` (as limits). A Job's template is validated
the same way (``ValidatePodTemplateSpec``). The OpenAPI schema only says "a quantity": without these rules a
negative request passed validate and the engine read it.

Not run for Kueue Workloads: a Workload is a CRD, the API server does not validate its pod templates as pods
(Kueue's webhook has its own rule, VAL-WL-6).
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.k8s.names import FieldError, go_quote, invalid, is_qualified_name, required
from kqctl.k8s.quantity import Quantity
from kqctl.origin import FieldPath
from kqctl.validate.fields import Body, Rule, child, finding, quantity, quoted_quantity, sequence

NEGATIVE_MSG = "must be greater than or equal to 0"  # apimachinery's IsNegativeErrorMsg
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})  # and hugepages-*
_HUGE_PAGES_PREFIX = "hugepages-"
_NATIVE_DOMAIN = "kubernetes.io/"
_REQUESTS_PREFIX = "requests."


def _is_native(name: str) -> bool:
    """helper.IsNativeResource: no domain, or a kubernetes.io domain."""
    return "/" not in name or _NATIVE_DOMAIN in name


def _is_huge_pages(name: str) -> bool:
    return name.startswith(_HUGE_PAGES_PREFIX)


def _is_extended(name: str) -> bool:
    """helper.IsExtendedResourceName: a domain outside kubernetes.io, usable as a quota name too."""
    if _is_native(name) or name.startswith(_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(_REQUESTS_PREFIX + name)


def _overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: requests may stay below limits for native resources other than huge pages."""
    return _is_native(name) and not _is_huge_pages(name)


def _name_errors(name: str, path: FieldPath) -> list[FieldError]:
    """validateContainerResourceName (after validateResourceName's qualified-name check)."""
    errors = [invalid(path, go_quote(name), message) for message in is_qualified_name(name)]
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not _is_huge_pages(name):
            errors.append(invalid(path, go_quote(name), "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errors.append(invalid(path, go_quote(name), "doesn't follow extended resource name standard"))
    return errors


def _value_errors(name: str, value: Quantity, path: FieldPath) -> list[FieldError]:
    """ValidateResourceQuantityValue: never negative; a whole number for an extended resource."""
    errors = []
    if value.value < 0:
        errors.append(invalid(path, quoted_quantity(value), NEGATIVE_MSG))
    if _is_extended(name) and value.value.denominator != 1:
        errors.append(invalid(path, quoted_quantity(value), "must be an integer"))
    return errors


def _quantities(raw: object) -> list[tuple[str, Quantity]]:
    """The parsable entries of a resource map (what does not parse is the schema's finding)."""
    entries = []
    for name, text in (raw.items() if isinstance(raw, dict) else ()):
        value = quantity(text)
        if isinstance(name, str) and value is not None:
            entries.append((name, value))
    return entries


# The rule each kind of problem is reported under.
VALUE, NAME, LIMIT = "VAL-POD-1", "VAL-POD-2", "VAL-POD-3"
Problem = tuple[str, FieldError]


def _requirements(resources: object, path: FieldPath) -> Iterator[Problem]:
    """validateResourceRequirements for one container (or the overhead, as limits)."""
    limits = dict(_quantities(child(resources, "limits")))
    for name, value in limits.items():
        where = (*path, "limits", name)
        yield from ((NAME, error) for error in _name_errors(name, where))
        yield from ((VALUE, error) for error in _value_errors(name, value, where))
    for name, value in _quantities(child(resources, "requests")):
        where = (*path, "requests", name)
        yield from ((NAME, error) for error in _name_errors(name, where))
        yield from ((VALUE, error) for error in _value_errors(name, value, where))
        limit = limits.get(name)
        if limit is not None:
            if value.value != limit.value and not _overcommit_allowed(name):
                yield LIMIT, invalid((*path, "requests"), quoted_quantity(value),
                                     f"must be equal to {name} limit of {limit.canonical()}")
            elif value.value > limit.value:
                yield LIMIT, invalid((*path, "requests"), quoted_quantity(value),
                                     f"must be less than or equal to {name} limit of {limit.canonical()}")
        elif not _overcommit_allowed(name):
            yield LIMIT, required((*path, "limits"), "Limit must be set for non overcommitable resources")


def _pod_spec_problems(spec: object, path: FieldPath) -> Iterator[Problem]:
    for group in ("initContainers", "containers"):
        for index, container in enumerate(sequence(child(spec, group))):
            yield from _requirements(child(container, "resources"), (*path, group, index, "resources"))
    overhead = child(spec, "overhead")
    if isinstance(overhead, dict):
        yield from _requirements({"limits": overhead}, (*path, "overhead"))


_HINTS = {
    VALUE: "resource quantities cannot be negative; an extended resource (example.com/gpu) counts whole units",
    NAME: "a container asks for cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource "
          "(example.com/gpu)",
    LIMIT: "requests cannot exceed limits; an extended resource's request must equal its limit",
}


def _findings(spec: object, path: FieldPath) -> Iterator[Finding]:
    for rule_id, error in _pod_spec_problems(spec, path):
        yield finding(rule_id, error, _HINTS[rule_id])


def vpod_pod_resources(body: Body) -> Iterator[Finding]:
    yield from _findings(child(body, "spec"), ("spec",))


def vpod_job_template_resources(body: Body) -> Iterator[Finding]:
    yield from _findings(child(body, "spec", "template", "spec"), ("spec", "template", "spec"))


POD_RULES: tuple[Rule, ...] = (vpod_pod_resources,)
JOB_RULES: tuple[Rule, ...] = (vpod_job_template_resources,)
