"""ClusterQueue validating-webhook rules (§2.3, ``pkg/webhooks/clusterqueue_webhook.go``).

Listed in the order ``ValidateClusterQueue`` runs them. The schema [S] and CEL [C] halves of
VAL-CQ-13/15 are another layer's; these are the webhook halves, with the webhook's messages.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.names import go_json, go_quote, invalid, not_supported, validate_label_selector
from kqctl.kueue.validate.rules import resource_groups as rg
from kqctl.validate.fields import (
    Body,
    Rule,
    child,
    finding,
    findings,
    integer,
    mapping,
    quantity,
    quoted_quantity,
    sequence,
    text,
)

MAX_TOTAL_FLAVORS = 256
MAX_TOTAL_COVERED_RESOURCES = 256
MAX_FLAVOR_RESOURCE_COMBINATIONS = 512
_BOTH_POLICIES = "whenCanBorrow and whenCanPreempt"


def _has_cohort(body: Body) -> bool:
    # Go compares the string with ""; an absent or wrongly typed cohortName counts as empty.
    return bool(text(child(body, "spec", "cohortName")))


def vcq17_covered_resources_are_qualified_names(body: Body) -> Iterator[Finding]:
    yield from rg.covered_resource_name_errors(body, "VAL-CQ-17")


def vcq18_covered_resources_unique_across_groups(body: Body) -> Iterator[Finding]:
    yield from rg.covered_resource_duplicates(body, "VAL-CQ-18")


def vcq19_flavor_names_unique_across_groups(body: Body) -> Iterator[Finding]:
    yield from rg.flavor_name_duplicates(body, "VAL-CQ-19")


def vcq20_resource_names_follow_covered_resources(body: Body) -> Iterator[Finding]:
    yield from rg.resource_name_order(body, "VAL-CQ-20")


def vcq21_quotas_not_negative(body: Body) -> Iterator[Finding]:
    yield from rg.negative_quotas(body, "VAL-CQ-21")


def vcq22_limits_need_cohort(body: Body) -> Iterator[Finding]:
    yield from rg.limits_without_parent(body, "VAL-CQ-22", _has_cohort(body), "cohort")


def vcq23_lending_limit_within_nominal(body: Body) -> Iterator[Finding]:
    """lendingLimit ≤ nominalQuota; checked for ClusterQueues only (VAL-CO-5)."""
    for quota in rg.iter_quotas(body):
        lending = quantity(quota.resource.get("lendingLimit"))
        # A missing nominalQuota is "0" after the mutating webhook's round trip (DEF-3).
        raw_nominal = quota.resource.get("nominalQuota", "0")
        nominal = quantity(raw_nominal)
        if lending is not None and nominal is not None and lending.value > nominal.value:
            yield finding(
                "VAL-CQ-23",
                invalid((*quota.path, "lendingLimit"), quoted_quantity(lending), rg.LENDING_LIMIT_MSG),
                f"lendingLimit is the part of nominalQuota ({nominal.canonical()}) this queue may lend; "
                "it cannot be larger",
            )


def vcq27_namespace_selector_is_valid(body: Body) -> Iterator[Finding]:
    selector = child(body, "spec", "namespaceSelector")
    yield from findings(
        "VAL-CQ-27",
        validate_label_selector(selector, ("spec", "namespaceSelector")),
        "fix the label selector; an empty selector {} matches every namespace",
    )


def vcq15_reclaim_never_requires_borrow_never(body: Body) -> Iterator[Finding]:
    preemption = child(body, "spec", "preemption")
    if not isinstance(preemption, Mapping):
        return
    borrow = preemption.get("borrowWithinCohort")
    if preemption.get("reclaimWithinCohort") != "Never" or not isinstance(borrow, Mapping):
        return
    if borrow.get("policy") == "Never":
        return
    msg = "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
    yield finding(
        "VAL-CQ-15",
        invalid(("spec", "preemption"), go_json(_preemption_as_go(preemption)), msg),
        "a queue that never reclaims cannot preempt while borrowing; "
        "set borrowWithinCohort.policy: Never or allow reclaimWithinCohort",
    )


def _preemption_as_go(preemption: Mapping[str, Any]) -> dict[str, Any]:
    """``ClusterQueuePreemption`` as ``json.Marshal`` writes it: Go field order, empty fields omitted."""
    out: dict[str, Any] = {}
    if preemption.get("reclaimWithinCohort"):
        out["reclaimWithinCohort"] = preemption["reclaimWithinCohort"]
    borrow = mapping(preemption.get("borrowWithinCohort"))
    if isinstance(preemption.get("borrowWithinCohort"), Mapping):
        out["borrowWithinCohort"] = _borrow_as_go(borrow)
    if preemption.get("withinClusterQueue"):
        out["withinClusterQueue"] = preemption["withinClusterQueue"]
    return out


def _borrow_as_go(borrow: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if borrow.get("policy"):
        out["policy"] = borrow["policy"]
    threshold = integer(borrow.get("maxPriorityThreshold"))
    if threshold is not None:
        out["maxPriorityThreshold"] = threshold
    return out


def vcq13_preference_requires_try_next_flavor(body: Body) -> Iterator[Finding]:
    fungibility = child(body, "spec", "flavorFungibility")
    if not isinstance(fungibility, Mapping):
        return
    preference = text(fungibility.get("preference"))
    if preference is None:
        return
    if (
        fungibility.get("whenCanBorrow") == "TryNextFlavor"
        and fungibility.get("whenCanPreempt") == "TryNextFlavor"
    ):
        return
    msg = f"preference {go_quote(preference)} requires both {_BOTH_POLICIES} to be TryNextFlavor"
    yield finding(
        "VAL-CQ-13",
        invalid(("spec", "flavorFungibility", "preference"), go_json(preference), msg),
        "set whenCanBorrow and whenCanPreempt to TryNextFlavor, or remove preference "
        "(whenCanBorrow defaults to MayStopSearch)",
    )


def vcq28_fair_sharing_weight(body: Body) -> Iterator[Finding]:
    yield from rg.fair_sharing_weight(body, "VAL-CQ-28")


def vcq24_total_flavors_at_most_256(body: Body) -> Iterator[Finding]:
    total = sum(len(sequence(group.get("flavors"))) for _, group in rg.iter_groups(body))
    if total > MAX_TOTAL_FLAVORS:
        msg = f"total number of flavors across all resourceGroups must be ≤ {MAX_TOTAL_FLAVORS}, got {total}"
        yield finding(
            "VAL-CQ-24",
            invalid(("spec", "resourceGroups"), str(total), msg),
            "split the ClusterQueue into several queues in one cohort",
        )


def vcq25_total_covered_resources_at_most_256(body: Body) -> Iterator[Finding]:
    total = sum(len(sequence(group.get("coveredResources"))) for _, group in rg.iter_groups(body))
    if total > MAX_TOTAL_COVERED_RESOURCES:
        msg = (
            f"total number of covered resources across all resourceGroups must be "
            f"≤ {MAX_TOTAL_COVERED_RESOURCES}, got {total}"
        )
        yield finding(
            "VAL-CQ-25",
            invalid(("spec", "resourceGroups"), str(total), msg),
            "split the ClusterQueue into several queues in one cohort",
        )


def vcq26_flavor_resource_combinations_at_most_512(body: Body) -> Iterator[Finding]:
    for path, group in rg.iter_groups(body):
        total = sum(
            len(sequence(mapping(flavor).get("resources"))) for flavor in sequence(group.get("flavors"))
        )
        if total > MAX_FLAVOR_RESOURCE_COMBINATIONS:
            msg = (
                f"number of flavor-resource combinations in a resourceGroup must be "
                f"≤ {MAX_FLAVOR_RESOURCE_COMBINATIONS}, got {total}"
            )
            yield finding(
                "VAL-CQ-26",
                invalid(path, str(total), msg),
                "split this resource group, or the ClusterQueue, into smaller ones",
            )


def vcq30_on_flavors_name_cluster_queue_flavors(body: Body) -> Iterator[Finding]:
    """On create every ``onFlavors`` entry must be a flavor of this ClusterQueue."""
    flavors = rg.all_flavor_names(body)
    checks = sequence(child(body, "spec", "admissionChecksStrategy", "admissionChecks"))
    for i, check in enumerate(checks):
        for j, flavor in enumerate(sequence(mapping(check).get("onFlavors"))):
            if isinstance(flavor, str) and flavor not in flavors:
                path = ("spec", "admissionChecksStrategy", "admissionChecks", i, "onFlavors", j)
                yield finding(
                    "VAL-CQ-30",
                    not_supported(path, go_json(flavor), flavors),
                    "onFlavors may only name flavors listed in this ClusterQueue's resourceGroups",
                )


RULES: tuple[Rule, ...] = (
    vcq17_covered_resources_are_qualified_names,
    vcq18_covered_resources_unique_across_groups,
    vcq20_resource_names_follow_covered_resources,
    vcq21_quotas_not_negative,
    vcq22_limits_need_cohort,
    vcq23_lending_limit_within_nominal,
    vcq19_flavor_names_unique_across_groups,
    vcq27_namespace_selector_is_valid,
    vcq15_reclaim_never_requires_borrow_never,
    vcq13_preference_requires_try_next_flavor,
    vcq28_fair_sharing_weight,
    vcq24_total_flavors_at_most_256,
    vcq25_total_covered_resources_at_most_256,
    vcq26_flavor_resource_combinations_at_most_512,
    vcq30_on_flavors_name_cluster_queue_flavors,
)
