"""Resource-group checks shared by the ClusterQueue and Cohort webhooks.

Kueue validates both kinds with the same ``validateResourceGroups`` / ``validateFlavorQuotas`` /
``validateFairSharing`` (``pkg/webhooks/clusterqueue_webhook.go``, ``common.go``); only the rule ID,
the word in the "must be nil when … is empty" message and the lending-limit check differ.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.names import duplicate, go_json, invalid, is_qualified_name
from kqctl.origin import FieldPath
from kqctl.validate.fields import (
    Body,
    child,
    finding,
    mapping,
    quantity,
    quoted_quantity,
    sequence,
    text,
)

NEGATIVE_MSG = "must be greater than or equal to 0"
LENDING_LIMIT_MSG = "must be less than or equal to the nominalQuota"
# Kueue's text says 10e-9 but the comparison is "<= 1n" (1e-9): VAL-CQ-28.
WEIGHT_COLLAPSE_MSG = "When not 0, weight must be > 10e-9"
ONE_NANO = Fraction(1, 10**9)

_GROUPS: FieldPath = ("spec", "resourceGroups")


@dataclass(frozen=True)
class ResourceQuota:
    """One ``flavors[j].resources[k]`` entry together with where it sits."""

    path: FieldPath
    resource: Mapping[str, Any]
    covered_name: object


def iter_groups(body: Body) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
    for gi, group in enumerate(sequence(child(body, "spec", "resourceGroups"))):
        if isinstance(group, Mapping):
            yield (*_GROUPS, gi), group


def iter_covered(body: Body) -> Iterator[tuple[FieldPath, str]]:
    """Every string in every group's ``coveredResources``, in document order."""
    for group_path, group in iter_groups(body):
        for j, name in enumerate(sequence(group.get("coveredResources"))):
            if isinstance(name, str):
                yield (*group_path, "coveredResources", j), name


def iter_flavors(body: Body) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
    for group_path, group in iter_groups(body):
        for fi, flavor in enumerate(sequence(group.get("flavors"))):
            if isinstance(flavor, Mapping):
                yield (*group_path, "flavors", fi), flavor


def iter_quotas(body: Body) -> Iterator[ResourceQuota]:
    """Resource quotas Kueue's webhook looks at.

    ``validateFlavorQuotas`` stops at ``len(coveredResources)``: extra resources are never
    checked (the CEL count rule VAL-CQ-11 rejects them anyway).
    """
    for group_path, group in iter_groups(body):
        covered = sequence(group.get("coveredResources"))
        for fi, flavor in enumerate(sequence(group.get("flavors"))):
            resources = sequence(mapping(flavor).get("resources"))
            for ri, resource in enumerate(resources[: len(covered)]):
                if isinstance(resource, Mapping):
                    yield ResourceQuota((*group_path, "flavors", fi, "resources", ri), resource, covered[ri])


def all_flavor_names(body: Body) -> list[str]:
    """``utilqueue.AllFlavors`` in document order (Kueue's own set order is random)."""
    names: dict[str, None] = {}
    for _, flavor in iter_flavors(body):
        name = text(flavor.get("name"))
        if name is not None:
            names.setdefault(name)
    return list(names)


def covered_resource_name_errors(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-17 / VAL-CO-3: each covered resource is a qualified name (label-key syntax)."""
    for path, name in iter_covered(body):
        for msg in is_qualified_name(name):
            yield finding(
                rule_id,
                invalid(path, go_json(name), msg),
                "resource names look like 'cpu', 'memory' or 'example.com/gpu'",
            )


def covered_resource_duplicates(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-18 / VAL-CO-3: a resource is covered by one group only, across all groups."""
    seen: set[str] = set()
    for path, name in iter_covered(body):
        if name in seen:
            yield finding(
                rule_id,
                duplicate(path, go_json(name)),
                "a resource may be covered by only one resource group; merge the groups or drop it here",
            )
        seen.add(name)


def flavor_name_duplicates(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-19 / VAL-CO-3: a flavor appears in one group only, across all groups."""
    seen: set[str] = set()
    for path, flavor in iter_flavors(body):
        name = text(flavor.get("name"))
        if name is None:
            continue
        if name in seen:
            yield finding(
                rule_id,
                duplicate((*path, "name"), go_json(name)),
                "a flavor may belong to only one resource group; list all its resources in that group",
            )
        seen.add(name)


def resource_name_order(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-20 / VAL-CO-3: ``resources[k].name`` equals ``coveredResources[k]``."""
    for quota in iter_quotas(body):
        name = quota.resource.get("name")
        if isinstance(name, str) and isinstance(quota.covered_name, str) and name != quota.covered_name:
            yield finding(
                rule_id,
                invalid((*quota.path, "name"), go_json(name), "must match the name in coveredResources"),
                f"list the resources in coveredResources order; expected {quota.covered_name!r} here",
            )


def negative_quotas(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-21 / VAL-CO-3: nominalQuota, borrowingLimit and lendingLimit are ≥ 0."""
    for quota in iter_quotas(body):
        for field in ("nominalQuota", "borrowingLimit", "lendingLimit"):
            value = quantity(quota.resource.get(field))
            if value is not None and value.value < 0:
                yield finding(
                    rule_id,
                    invalid((*quota.path, field), quoted_quantity(value), NEGATIVE_MSG),
                    "quotas and limits cannot be negative",
                )


def limits_without_parent(body: Body, rule_id: str, has_parent: bool, parent_word: str) -> Iterator[Finding]:
    """VAL-CQ-22 / VAL-CO-4: borrowing and lending limits need a cohort (parent) to mean anything."""
    if has_parent:
        return
    hint = (
        "set spec.cohortName or remove the limit: with no cohort there is nothing to borrow from or lend to"
        if parent_word == "cohort"
        else "set spec.parentName or remove the limit: a root cohort has nothing to borrow from or lend to"
    )
    for quota in iter_quotas(body):
        for field in ("borrowingLimit", "lendingLimit"):
            value = quantity(quota.resource.get(field))
            if value is not None:
                msg = f"must be nil when {parent_word} is empty"
                yield finding(rule_id, invalid((*quota.path, field), quoted_quantity(value), msg), hint)


def fair_sharing_weight(body: Body, rule_id: str) -> Iterator[Finding]:
    """VAL-CQ-28 / VAL-CO-6: weight ≥ 0, and a positive weight must exceed 1n.

    Kueue reports both on ``spec.fairSharing`` (not ``…weight``).
    """
    weight = quantity(child(body, "spec", "fairSharing", "weight"))
    if weight is None:
        return
    path: FieldPath = ("spec", "fairSharing")
    if weight.value < 0:
        yield finding(
            rule_id,
            invalid(path, quoted_quantity(weight), NEGATIVE_MSG),
            "use 0 to give this queue no share of unused quota, or a positive weight",
        )
    if 0 < weight.value <= ONE_NANO:
        yield finding(
            rule_id,
            invalid(path, quoted_quantity(weight), WEIGHT_COLLAPSE_MSG),
            "weights this small collapse to zero; use 0 or a weight above 1n",
        )
