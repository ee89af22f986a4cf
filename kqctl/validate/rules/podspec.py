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
from kqctl.k8s.pods import is_extended_resource, overcommit_allowed
from kqctl.k8s.quantity import Quantity
from kqctl.origin import FieldPath
from kqctl.validate.fields import Body, Rule, child, finding, quantity, quoted_quantity, sequence

NEGATIVE_MSG = "must be greater than or equal to 0"  # apimachinery's IsNegativeErrorMsg
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})  # and hugepages-*
_HUGE_PAGES_PREFIX = "hugepages-"
_NATIVE_DOMAIN = "kubernetes.io/"


def _is_native(name: str) -> bool:
    """helper.IsNativeResource: no domain, or a kubernetes.io domain."""
    return "/" not in name or _NATIVE_DOMAIN in name


def _is_huge_pages(name: str) -> bool:
    return name.startswith(_HUGE_PAGES_PREFIX)




def _name_problems(name: str) -> tuple[str, ...]:
    """validateContainerResourceName (after validateResourceName's qualified-name check): the messages."""
    problems = list(is_qualified_name(name))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not _is_huge_pages(name):
            problems.append("must be a standard resource for containers")
    elif not _is_native(name) and not is_extended_resource(name):
        problems.append("doesn't follow extended resource name standard")
    return tuple(problems)


class _Name:
    """What the rules need to know of a resource name, worked out once per name (50,000 pods share a few)."""

    __slots__ = ("problems", "extended", "overcommit")

    def __init__(self, name: str) -> None:
        self.problems = _name_problems(name)
        self.extended = is_extended_resource(name)
        self.overcommit = overcommit_allowed(name)


_NAMES: dict[str, _Name] = {}
_QUANTITIES: dict[str, Quantity | None] = {}
_KEPT = 4096


def _facts(name: str) -> _Name:
    known = _NAMES.get(name)
    if known is None:
        if len(_NAMES) >= _KEPT:
            _NAMES.clear()
        known = _NAMES[name] = _Name(name)
    return known


def _quantity(raw: object) -> Quantity | None:
    """quantity(), remembered for the texts that repeat ("1", "4Gi")."""
    if type(raw) is not str:
        return quantity(raw)
    if raw not in _QUANTITIES:
        if len(_QUANTITIES) >= _KEPT:
            _QUANTITIES.clear()
        _QUANTITIES[raw] = quantity(raw)
    return _QUANTITIES[raw]


def _value_errors(facts: _Name, value: Quantity, path: FieldPath) -> list[FieldError]:
    """ValidateResourceQuantityValue: never negative; a whole number for an extended resource."""
    errors = []
    if value.value < 0:
        errors.append(invalid(path, quoted_quantity(value), NEGATIVE_MSG))
    if facts.extended and value.value.denominator != 1:
        errors.append(invalid(path, quoted_quantity(value), "must be an integer"))
    return errors


def _quantities(raw: object) -> list[tuple[str, Quantity]]:
    """The parsable entries of a resource map (what does not parse is the schema's finding)."""
    entries = []
    for name, text in (raw.items() if isinstance(raw, dict) else ()):
        value = _quantity(text)
        if isinstance(name, str) and value is not None:
            entries.append((name, value))
    return entries


def _checked(name: str, value: Quantity, where: FieldPath) -> Iterator[Problem]:
    facts = _facts(name)
    yield from ((NAME, invalid(where, go_quote(name), problem)) for problem in facts.problems)
    if value.value < 0 or facts.extended:
        yield from ((VALUE, error) for error in _value_errors(facts, value, where))


# The rule each kind of problem is reported under.
VALUE, NAME, LIMIT = "VAL-POD-1", "VAL-POD-2", "VAL-POD-3"
Problem = tuple[str, FieldError]


def _requirements(resources: object, path: FieldPath) -> Iterator[Problem]:
    """validateResourceRequirements for one container (or the overhead, as limits)."""
    limits = dict(_quantities(child(resources, "limits")))
    for name, value in limits.items():
        yield from _checked(name, value, (*path, "limits", name))
    for name, value in _quantities(child(resources, "requests")):
        yield from _checked(name, value, (*path, "requests", name))
        limit = limits.get(name)
        if limit is not None:
            if value.value != limit.value and not _facts(name).overcommit:
                yield LIMIT, invalid((*path, "requests"), quoted_quantity(value),
                                     f"must be equal to {name} limit of {limit.canonical()}")
            elif value.value > limit.value:
                yield LIMIT, invalid((*path, "requests"), quoted_quantity(value),
                                     f"must be less than or equal to {name} limit of {limit.canonical()}")
        elif not _facts(name).overcommit:
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


def pod_template_resources(spec: object, path: FieldPath) -> Iterator[Finding]:
    """The rules for a pod template's spec at ``path`` inside another kind (Volcano's job webhook runs
    ``ValidatePodTemplate`` on every task's template, so the same problems refuse a vcjob)."""
    yield from _findings(spec, path)


POD_RULES: tuple[Rule, ...] = (vpod_pod_resources,)
JOB_RULES: tuple[Rule, ...] = (vpod_job_template_resources,)
