"""Cohort validating-webhook rules (§2.4, ``pkg/webhooks/cohort_webhook.go``).

The Cohort webhook reuses the ClusterQueue resource-group checks with two differences that
VAL-CO-5 spells out: no lendingLimit ≤ nominalQuota check (a cohort lends its children's quota
too) and no 256/512 totals. ``validateCohort`` checks fairSharing first, then resourceGroups.
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import resource_groups as rg
from kqctl.validate.fields import Body, Rule, child, text


def vco6_fair_sharing_weight(body: Body) -> Iterator[Finding]:
    yield from rg.fair_sharing_weight(body, "VAL-CO-6")


def vco3_resource_groups_are_consistent(body: Body) -> Iterator[Finding]:
    """Names, uniqueness, coveredResources order and non-negative quotas, as for a ClusterQueue."""
    yield from rg.covered_resource_name_errors(body, "VAL-CO-3")
    yield from rg.covered_resource_duplicates(body, "VAL-CO-3")
    yield from rg.resource_name_order(body, "VAL-CO-3")
    yield from rg.negative_quotas(body, "VAL-CO-3")
    yield from rg.flavor_name_duplicates(body, "VAL-CO-3")


def vco4_limits_need_parent(body: Body) -> Iterator[Finding]:
    has_parent = bool(text(child(body, "spec", "parentName")))
    yield from rg.limits_without_parent(body, "VAL-CO-4", has_parent, "parent")


RULES: tuple[Rule, ...] = (
    vco6_fair_sharing_weight,
    vco3_resource_groups_are_consistent,
    vco4_limits_need_parent,
)
