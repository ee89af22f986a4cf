"""ClusterQueue webhook rules (§2.3): one passing and one failing case per rule ID at least."""

from __future__ import annotations

import copy
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.scalars import LiteralFloat
from kqctl.kueue.validate.rules import run_webhook_rules, webhook_rules_for


def cluster_queue(**spec: Any) -> dict[str, Any]:
    """A valid, defaulted (DEF-1) ClusterQueue; keyword arguments replace spec fields."""
    body: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "stopPolicy": "None",
            "preemption": {
                "reclaimWithinCohort": "Never",
                "withinClusterQueue": "Never",
                "borrowWithinCohort": {"policy": "Never"},
            },
            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "default",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "10"},
                                {"name": "memory", "nominalQuota": "10Gi"},
                            ],
                        }
                    ],
                }
            ],
        },
    }
    body["spec"].update(spec)
    return body


def group(covered: list[str], *flavors: dict[str, Any]) -> dict[str, Any]:
    return {"coveredResources": covered, "flavors": list(flavors)}


def flavor(name: str, *resources: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "resources": list(resources)}


def quota(name: str, nominal: Any = "1", **limits: Any) -> dict[str, Any]:
    return {"name": name, "nominalQuota": nominal, **limits}


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("ClusterQueue", body) if f.rule_id == rule_id]


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found(body, rule_id)]


def test_valid_defaulted_cluster_queue_has_no_findings() -> None:
    assert run_webhook_rules("ClusterQueue", cluster_queue()) == []


def test_registry_lists_rules_for_cluster_queue() -> None:
    assert len(webhook_rules_for("kueue.x-k8s.io", "ClusterQueue")) > 10


# VAL-CQ-1 ----------------------------------------------------------------------------------


def test_vcq1_dns_subdomain_name_accepted() -> None:
    body = cluster_queue()
    body["metadata"]["name"] = "team-a.gpu"
    assert found(body, "VAL-CQ-1") == []


def test_vcq1_uppercase_name_rejected() -> None:
    body = cluster_queue()
    body["metadata"]["name"] = "TeamA"
    [finding] = found(body, "VAL-CQ-1")
    assert finding.field == "metadata.name"
    assert finding.message.startswith('Invalid value: "TeamA": a lowercase RFC 1123 subdomain')


# VAL-CQ-13 ---------------------------------------------------------------------------------


def test_vcq13_preference_with_both_try_next_flavor_accepted() -> None:
    fungibility = {
        "whenCanBorrow": "TryNextFlavor",
        "whenCanPreempt": "TryNextFlavor",
        "preference": "PreemptionOverBorrowing",
    }
    assert found(cluster_queue(flavorFungibility=fungibility), "VAL-CQ-13") == []


def test_vcq13_preference_with_defaulted_may_stop_search_rejected() -> None:
    fungibility = {
        "whenCanBorrow": "MayStopSearch",
        "whenCanPreempt": "TryNextFlavor",
        "preference": "BorrowingOverPreemption",
    }
    assert messages(cluster_queue(flavorFungibility=fungibility), "VAL-CQ-13") == [
        (
            "spec.flavorFungibility.preference",
            'Invalid value: "BorrowingOverPreemption": preference "BorrowingOverPreemption" requires both '
            "whenCanBorrow and whenCanPreempt to be TryNextFlavor",
        )
    ]


# VAL-CQ-15 ---------------------------------------------------------------------------------


def test_vcq15_reclaim_never_with_borrow_never_accepted() -> None:
    assert found(cluster_queue(), "VAL-CQ-15") == []


def test_vcq15_reclaim_any_with_borrow_lower_priority_accepted() -> None:
    preemption = {
        "reclaimWithinCohort": "Any",
        "withinClusterQueue": "Never",
        "borrowWithinCohort": {"policy": "LowerPriority"},
    }
    assert found(cluster_queue(preemption=preemption), "VAL-CQ-15") == []


def test_vcq15_reclaim_never_with_borrow_lower_priority_rejected_on_spec_preemption() -> None:
    preemption = {
        "reclaimWithinCohort": "Never",
        "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
        "withinClusterQueue": "LowerPriority",
    }
    assert messages(cluster_queue(preemption=preemption), "VAL-CQ-15") == [
        (
            "spec.preemption",
            'Invalid value: {"reclaimWithinCohort":"Never","borrowWithinCohort":{"policy":"LowerPriority",'
            '"maxPriorityThreshold":100},"withinClusterQueue":"LowerPriority"}: '
            "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
        )
    ]


# VAL-CQ-17 ---------------------------------------------------------------------------------


def test_vcq17_prefixed_extended_resource_name_accepted() -> None:
    groups = [group(["nvidia.com/gpu"], flavor("a100", quota("nvidia.com/gpu", "8")))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-17") == []


def test_vcq17_resource_name_with_space_rejected_with_label_key_message() -> None:
    groups = [group(["my gpu"], flavor("a100", quota("my gpu", "8")))]
    [finding] = found(cluster_queue(resourceGroups=groups), "VAL-CQ-17")
    assert finding.path == ("spec", "resourceGroups", 0, "coveredResources", 0)
    assert finding.message.startswith(
        'Invalid value: "my gpu": name part must consist of alphanumeric characters'
    )


# VAL-CQ-18 ---------------------------------------------------------------------------------


def test_vcq18_distinct_covered_resources_in_two_groups_accepted() -> None:
    groups = [
        group(["cpu"], flavor("a", quota("cpu"))),
        group(["nvidia.com/gpu"], flavor("b", quota("nvidia.com/gpu"))),
    ]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-18") == []


def test_vcq18_covered_resource_listed_in_two_groups_is_duplicate() -> None:
    groups = [
        group(["cpu", "memory"], flavor("a", quota("cpu"), quota("memory"))),
        group(["cpu"], flavor("b", quota("cpu"))),
    ]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-18") == [
        ("spec.resourceGroups[1].coveredResources[0]", 'Duplicate value: "cpu"')
    ]


# VAL-CQ-19 ---------------------------------------------------------------------------------


def test_vcq19_two_flavors_in_one_group_accepted() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu")), flavor("b", quota("cpu")))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-19") == []


def test_vcq19_flavor_in_two_groups_is_duplicate() -> None:
    groups = [
        group(["cpu"], flavor("shared", quota("cpu"))),
        group(["memory"], flavor("shared", quota("memory"))),
    ]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-19") == [
        ("spec.resourceGroups[1].flavors[0].name", 'Duplicate value: "shared"')
    ]


# VAL-CQ-20 ---------------------------------------------------------------------------------


def test_vcq20_resources_in_covered_order_accepted() -> None:
    assert found(cluster_queue(), "VAL-CQ-20") == []


def test_vcq20_resources_out_of_covered_order_rejected() -> None:
    groups = [group(["cpu", "memory"], flavor("a", quota("memory"), quota("cpu")))]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-20") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].name",
            'Invalid value: "memory": must match the name in coveredResources',
        ),
        (
            "spec.resourceGroups[0].flavors[0].resources[1].name",
            'Invalid value: "cpu": must match the name in coveredResources',
        ),
    ]


def test_vcq20_resources_beyond_covered_count_are_not_checked_by_the_webhook() -> None:
    # Kueue's loop stops at len(coveredResources); the CEL count rule (VAL-CQ-11) reports these.
    groups = [group(["cpu"], flavor("a", quota("cpu"), quota("bogus", "-1")))]
    body = cluster_queue(resourceGroups=groups)
    assert found(body, "VAL-CQ-20") == [] and found(body, "VAL-CQ-21") == []


# VAL-CQ-21 ---------------------------------------------------------------------------------


def test_vcq21_zero_quota_accepted() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "0")))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-21") == []


def test_vcq21_negative_nominal_quota_rejected() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "-1")))]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-21") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
            'Invalid value: "-1": must be greater than or equal to 0',
        )
    ]


def test_vcq21_negative_limits_rejected_with_canonical_value() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "1", borrowingLimit="-0.5", lendingLimit="-1000")))]
    body = cluster_queue(resourceGroups=groups, cohortName="all")
    assert [m for _, m in messages(body, "VAL-CQ-21")] == [
        'Invalid value: "-500m": must be greater than or equal to 0',
        'Invalid value: "-1k": must be greater than or equal to 0',
    ]


def test_vcq21_wrong_type_quota_is_left_to_the_schema() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", {"oops": 1})))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-21") == []


# VAL-CQ-22 ---------------------------------------------------------------------------------


def test_vcq22_limits_with_cohort_accepted() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "4", borrowingLimit="2", lendingLimit="1")))]
    assert found(cluster_queue(resourceGroups=groups, cohortName="all"), "VAL-CQ-22") == []


def test_vcq22_borrowing_limit_without_cohort_rejected() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "4", borrowingLimit=LiteralFloat("1.5"))))]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-22") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit",
            'Invalid value: "1500m": must be nil when cohort is empty',
        )
    ]


def test_vcq22_empty_cohort_name_counts_as_no_cohort() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "4", lendingLimit="1")))]
    assert len(found(cluster_queue(resourceGroups=groups, cohortName=""), "VAL-CQ-22")) == 1


# VAL-CQ-23 ---------------------------------------------------------------------------------


def test_vcq23_lending_limit_equal_to_nominal_accepted() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "4", lendingLimit="4000m")))]
    assert found(cluster_queue(resourceGroups=groups, cohortName="all"), "VAL-CQ-23") == []


def test_vcq23_lending_limit_above_nominal_rejected() -> None:
    groups = [group(["cpu"], flavor("a", quota("cpu", "4", lendingLimit="5")))]
    assert messages(cluster_queue(resourceGroups=groups, cohortName="all"), "VAL-CQ-23") == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
            'Invalid value: "5": must be less than or equal to the nominalQuota',
        )
    ]


def test_vcq23_missing_nominal_counts_as_zero() -> None:
    groups = [group(["cpu"], flavor("a", {"name": "cpu", "lendingLimit": "1"}))]
    assert len(found(cluster_queue(resourceGroups=groups, cohortName="all"), "VAL-CQ-23")) == 1


# VAL-CQ-24 / 25 / 26 -----------------------------------------------------------------------


def test_vcq24_256_flavors_accepted() -> None:
    groups = [group(["cpu"], *(flavor(f"f{i}", quota("cpu")) for i in range(256)))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-24") == []


def test_vcq24_257_flavors_across_groups_rejected() -> None:
    groups = [
        group(["cpu"], *(flavor(f"c{i}", quota("cpu")) for i in range(200))),
        group(["memory"], *(flavor(f"m{i}", quota("memory")) for i in range(57))),
    ]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-24") == [
        (
            "spec.resourceGroups",
            "Invalid value: 257: total number of flavors across all resourceGroups must be ≤ 256, got 257",
        )
    ]


def test_vcq25_256_covered_resources_accepted() -> None:
    names = [f"example.com/r{i}" for i in range(256)]
    groups = [group(names, flavor("a", *(quota(n) for n in names)))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-25") == []


def test_vcq25_257_covered_resources_rejected() -> None:
    names = [f"example.com/r{i}" for i in range(257)]
    groups = [
        group(names[:200], flavor("a", *(quota(n) for n in names[:200]))),
        group(names[200:], flavor("b", *(quota(n) for n in names[200:]))),
    ]
    assert [m for _, m in messages(cluster_queue(resourceGroups=groups), "VAL-CQ-25")] == [
        "Invalid value: 257: total number of covered resources across all resourceGroups "
        "must be ≤ 256, got 257"
    ]


def test_vcq26_512_combinations_in_a_group_accepted() -> None:
    names = [f"example.com/r{i}" for i in range(8)]
    groups = [group(names, *(flavor(f"f{i}", *(quota(n) for n in names)) for i in range(64)))]
    assert found(cluster_queue(resourceGroups=groups), "VAL-CQ-26") == []


def test_vcq26_513_combinations_in_a_group_rejected() -> None:
    names = [f"example.com/r{i}" for i in range(9)]
    groups = [group(names, *(flavor(f"f{i}", *(quota(n) for n in names)) for i in range(57)))]
    assert messages(cluster_queue(resourceGroups=groups), "VAL-CQ-26") == [
        (
            "spec.resourceGroups[0]",
            "Invalid value: 513: number of flavor-resource combinations in a resourceGroup "
            "must be ≤ 512, got 513",
        )
    ]


# VAL-CQ-27 ---------------------------------------------------------------------------------


def test_vcq27_valid_selector_accepted() -> None:
    selector = {
        "matchLabels": {"team": "a"},
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["a", "b"]}],
    }
    assert found(cluster_queue(namespaceSelector=selector), "VAL-CQ-27") == []


def test_vcq27_unknown_operator_rejected() -> None:
    selector = {"matchExpressions": [{"key": "team", "operator": "Equals", "values": ["a"]}]}
    assert messages(cluster_queue(namespaceSelector=selector), "VAL-CQ-27") == [
        (
            "spec.namespaceSelector.matchExpressions[0].operator",
            'Invalid value: "Equals": not a valid selector operator',
        )
    ]


def test_vcq27_bad_match_label_key_rejected_on_match_labels() -> None:
    [finding] = found(cluster_queue(namespaceSelector={"matchLabels": {"-team": "a"}}), "VAL-CQ-27")
    assert finding.path == ("spec", "namespaceSelector", "matchLabels")
    assert finding.message.startswith('Invalid value: "-team": name part must consist')


# VAL-CQ-28 ---------------------------------------------------------------------------------


def test_vcq28_weight_zero_accepted() -> None:
    assert found(cluster_queue(fairSharing={"weight": "0"}), "VAL-CQ-28") == []


def test_vcq28_weight_just_above_1n_accepted() -> None:
    assert found(cluster_queue(fairSharing={"weight": "2n"}), "VAL-CQ-28") == []


def test_vcq28_weight_of_exactly_1n_rejected() -> None:
    assert messages(cluster_queue(fairSharing={"weight": "1n"}), "VAL-CQ-28") == [
        ("spec.fairSharing", 'Invalid value: "1n": When not 0, weight must be > 10e-9')
    ]


def test_vcq28_weight_below_1n_rounds_up_to_1n_and_is_rejected() -> None:
    assert [m for _, m in messages(cluster_queue(fairSharing={"weight": "0.1n"}), "VAL-CQ-28")] == [
        'Invalid value: "1n": When not 0, weight must be > 10e-9'
    ]


def test_vcq28_negative_weight_rejected() -> None:
    assert messages(cluster_queue(fairSharing={"weight": "-1"}), "VAL-CQ-28") == [
        ("spec.fairSharing", 'Invalid value: "-1": must be greater than or equal to 0')
    ]


# VAL-CQ-30 ---------------------------------------------------------------------------------


def test_vcq30_on_flavors_naming_a_cq_flavor_accepted() -> None:
    strategy = {"admissionChecks": [{"name": "prov", "onFlavors": ["default"]}]}
    assert found(cluster_queue(admissionChecksStrategy=strategy), "VAL-CQ-30") == []


def test_vcq30_on_flavors_naming_an_unknown_flavor_rejected() -> None:
    strategy = {"admissionChecks": [{"name": "prov", "onFlavors": ["default", "spot"]}]}
    assert messages(cluster_queue(admissionChecksStrategy=strategy), "VAL-CQ-30") == [
        (
            "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[1]",
            'Unsupported value: "spot": supported values: "default"',
        )
    ]


# robustness --------------------------------------------------------------------------------


def test_wrongly_typed_spec_parts_never_raise() -> None:
    body = cluster_queue(
        resourceGroups="nope", namespaceSelector=[1], preemption=3, fairSharing={"weight": True}
    )
    body_copy = copy.deepcopy(body)
    assert [f.rule_id for f in run_webhook_rules("ClusterQueue", body)] == []
    assert body == body_copy


def test_wrongly_typed_groups_never_raise() -> None:
    groups = [None, {"coveredResources": [1, None], "flavors": [None, {"name": 3, "resources": "x"}]}]
    assert run_webhook_rules("ClusterQueue", cluster_queue(resourceGroups=groups)) == []
