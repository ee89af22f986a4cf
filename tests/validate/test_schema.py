"""kqctl.validate.schema: OpenAPI schema checks and CRD defaulting, as the API server does them."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from kqctl.findings import Finding, Severity
from kqctl.k8s.scalars import LiteralFloat
from kqctl.validate import schema as schema_module
from kqctl.validate.schema import (
    apply_schema_defaults,
    has_schema,
    load_schema,
    validate_schema,
)

KUEUE = "kueue.x-k8s.io/v1beta2"


def cluster_queue(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": {
            "cohortName": "org",
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "on-demand",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "10", "borrowingLimit": "5"},
                                {"name": "memory", "nominalQuota": "40Gi"},
                            ],
                        },
                        {
                            "name": "spot",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 20},
                                {"name": "memory", "nominalQuota": "80Gi"},
                            ],
                        },
                    ],
                }
            ],
        },
    }
    body["spec"].update(spec)
    return body


def cohort() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "Cohort",
        "metadata": {"name": "org"},
        "spec": {
            "parentName": "root",
            "fairSharing": {"weight": "2"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                }
            ],
        },
    }


def local_queue() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": "lq", "namespace": "team-a", "labels": {"a": "b"}},
        "spec": {"clusterQueue": "team-a", "stopPolicy": "Hold", "fairSharing": {"weight": "1"}},
    }


def resource_flavor() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "ResourceFlavor",
        "metadata": {"name": "spot"},
        "spec": {
            "nodeLabels": {"cloud.com/instance": "spot"},
            "nodeTaints": [{"key": "spot", "value": "true", "effect": "NoSchedule"}],
            "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
        },
    }


def workload_priority_class() -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 1000}


def workload() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {"name": "job-1", "namespace": "team-a"},
        "spec": {
            "queueName": "lq",
            "priority": 100,
            "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
            "podSets": [
                {
                    "name": "main",
                    "count": 3,
                    "template": {
                        "metadata": {"labels": {"app": "x"}},
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "c",
                                    "image": "busybox",
                                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                                }
                            ],
                            "tolerations": [{"key": "spot", "operator": "Exists"}],
                        },
                    },
                }
            ],
        },
    }


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "busybox",
                    "ports": [{"containerPort": 80}],
                    "readinessProbe": {"httpGet": {"port": "http", "path": "/"}},
                    "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "1Gi"}},
                }
            ]
        },
    }


def job() -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "default"},
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
            },
        },
    }


def limit_range() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "lr", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}, "max": {"memory": "4Gi"}}]},
    }


def namespace() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "a"}}}


def priority_class() -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "preemptionPolicy": "Never",
    }


def topology() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "Topology",
        "metadata": {"name": "default"},
        "spec": {"levels": [{"nodeLabel": "cloud.com/block"}, {"nodeLabel": "kubernetes.io/hostname"}]},
    }


ALL_VALID = [
    cluster_queue,
    cohort,
    local_queue,
    resource_flavor,
    workload_priority_class,
    workload,
    pod,
    job,
    limit_range,
    namespace,
    priority_class,
    topology,
]


def findings_of(body: dict[str, Any]) -> list[Finding]:
    return validate_schema(body, body["apiVersion"], body["kind"])


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, findings
    return findings[0]


def resource(body: dict[str, Any], flavor: int = 0, index: int = 0) -> dict[str, Any]:
    entry: dict[str, Any] = body["spec"]["resourceGroups"][0]["flavors"][flavor]["resources"][index]
    return entry


RESOURCE_PATH = ("spec", "resourceGroups", 0, "flavors", 0, "resources", 0)


# --------------------------------------------------------------------------------------------
# Valid documents and schema lookup
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ALL_VALID, ids=lambda f: f.__name__)
def test_valid_documents_of_every_kind_have_no_findings(make: Any) -> None:
    assert findings_of(make()) == []


def test_has_schema_for_kueue_versions_and_core_kinds() -> None:
    assert has_schema(KUEUE, "ClusterQueue")
    assert has_schema("kueue.x-k8s.io/v1beta1", "Workload")
    assert has_schema("batch/v1", "Job") and has_schema("v1", "Pod")
    assert not has_schema("kueue.x-k8s.io/v1alpha1", "ClusterQueue")
    assert not has_schema("apps/v1", "Deployment")


def test_kind_without_schema_yields_no_findings_and_a_plain_copy() -> None:
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": [1]}}
    assert validate_schema(body, "apps/v1", "Deployment") == []
    copied = apply_schema_defaults(body, "apps/v1", "Deployment")
    assert copied == body and copied["spec"] is not body["spec"]


def test_validator_is_built_once_per_kind_and_version() -> None:
    findings_of(workload())
    before = schema_module._validator.cache_info()
    findings_of(workload())
    after = schema_module._validator.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 1


def test_load_schema_returns_the_generated_schema() -> None:
    schema = load_schema(KUEUE, "LocalQueue")
    assert schema is not None and schema["x-kqctl-kind"] == "LocalQueue"
    assert load_schema(KUEUE, "Nope") is None


# --------------------------------------------------------------------------------------------
# Strict field validation
# --------------------------------------------------------------------------------------------


def test_unknown_field_in_clusterqueue_spec_is_an_error() -> None:
    body = cluster_queue(foo=1)
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-UNKNOWN-FIELD" and finding.severity is Severity.ERROR
    assert finding.path == ("spec", "foo")
    assert finding.message == 'unknown field "spec.foo"'


def test_unknown_field_deep_in_a_list_points_at_the_key() -> None:
    body = cluster_queue()
    resource(body)["quota"] = "1"
    finding = only(findings_of(body))
    assert finding.path == RESOURCE_PATH + ("quota",)
    assert finding.message == 'unknown field "spec.resourceGroups[0].flavors[0].resources[0].quota"'


@pytest.mark.parametrize("field,hint", [
    ("nominalQuta", "did you mean nominalQuota?"),  # a typo of a field defined right there
    ("borowingLimit", "did you mean borrowingLimit?"),
    ("quota", None),  # nothing close: no guess
])
def test_unknown_field_hints_the_close_field_defined_at_that_place(field: str, hint: str | None) -> None:
    body = cluster_queue()
    resource(body)[field] = "1"
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-UNKNOWN-FIELD" and finding.hint == hint


def test_unknown_field_is_reported_even_when_null() -> None:
    body = workload()
    body["spec"]["podSets"][0]["template"]["metadata"]["creationTimestamp"] = None
    finding = only(findings_of(apply_schema_defaults(body, KUEUE, "Workload")))
    assert finding.rule_id == "SCHEMA-UNKNOWN-FIELD"
    assert finding.path == ("spec", "podSets", 0, "template", "metadata", "creationTimestamp")


def test_unknown_metadata_field_is_an_error_but_null_creation_timestamp_is_fine() -> None:
    body = local_queue()
    body["metadata"]["creationTimestamp"] = None
    assert findings_of(body) == []
    body["metadata"]["owner"] = "me"
    assert only(findings_of(body)).path == ("metadata", "owner")


def test_unknown_field_in_core_job_is_an_error() -> None:
    body = job()
    body["spec"]["template"]["spec"]["containers"][0]["cpu"] = "1"
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-UNKNOWN-FIELD"
    assert finding.path == ("spec", "template", "spec", "containers", 0, "cpu")


# --------------------------------------------------------------------------------------------
# Required values and nulls
# --------------------------------------------------------------------------------------------


def test_missing_nominal_quota_on_cohort_is_required_value() -> None:
    body = cohort()
    del body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"]
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-REQUIRED" and finding.message == "Required value"
    assert finding.path == ("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota")


def test_null_required_field_is_required_value() -> None:
    body = cluster_queue()
    resource(body)["nominalQuota"] = None
    assert only(findings_of(body)).rule_id == "SCHEMA-REQUIRED"


def test_null_optional_field_counts_as_absent() -> None:
    assert findings_of(cluster_queue(cohortName=None, stopPolicy=None)) == []


def test_missing_container_name_in_pod_is_required_value() -> None:
    body = pod()
    del body["spec"]["containers"][0]["name"]
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-REQUIRED" and finding.path == ("spec", "containers", 0, "name")


def test_missing_pod_sets_template_is_required_value() -> None:
    body = workload()
    del body["spec"]["podSets"][0]["template"]
    assert only(findings_of(body)).path == ("spec", "podSets", 0, "template")


# --------------------------------------------------------------------------------------------
# Types, enums, patterns, ranges, lengths, item counts, formats
# --------------------------------------------------------------------------------------------


def test_wrong_type_on_localqueue_uses_kubernetes_wording() -> None:
    body = local_queue()
    body["spec"]["stopPolicy"] = 1
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-TYPE" and finding.path == ("spec", "stopPolicy")
    assert (
        finding.message
        == 'Invalid value: "integer": spec.stopPolicy in body must be of type string: "integer"'
    )


def test_string_where_integer_expected_is_a_type_error() -> None:
    body = workload()
    body["spec"]["podSets"][0]["count"] = "3"
    finding = only(findings_of(body))
    assert finding.message == (
        'Invalid value: "string": spec.podSets[0].count in body must be of type integer: "string"'
    )


def test_boolean_is_not_an_integer() -> None:
    body = workload_priority_class()
    body["value"] = True
    assert only(findings_of(body)).rule_id == "SCHEMA-TYPE"


def test_integral_yaml_float_is_an_integer() -> None:
    body = workload()
    body["spec"]["podSets"][0]["count"] = LiteralFloat("2.0")
    assert findings_of(body) == []


def test_enum_violation_lists_supported_values_vcq3() -> None:
    finding = only(findings_of(cluster_queue(queueingStrategy="FIFO")))
    assert finding.rule_id == "SCHEMA-ENUM" and finding.path == ("spec", "queueingStrategy")
    assert finding.message == 'Unsupported value: "FIFO": supported values: "StrictFIFO", "BestEffortFIFO"'


def test_enum_violation_in_nested_preemption_vcq16() -> None:
    finding = only(findings_of(cluster_queue(preemption={"withinClusterQueue": "Always"})))
    assert finding.rule_id == "SCHEMA-ENUM" and finding.path == ("spec", "preemption", "withinClusterQueue")


def test_pattern_violation_on_cohort_name_vcq2() -> None:
    finding = only(findings_of(cluster_queue(cohortName="Org_A")))
    assert finding.rule_id == "SCHEMA-PATTERN" and finding.path == ("spec", "cohortName")
    assert finding.message.startswith(
        'Invalid value: "Org_A": spec.cohortName in body should match \'^[a-z0-9]'
    )


def test_pattern_does_not_accept_a_trailing_newline() -> None:
    assert only(findings_of(cluster_queue(cohortName="org\n"))).rule_id == "SCHEMA-PATTERN"


def test_case_insensitive_re2_pattern_of_admission_check_is_honoured() -> None:
    body: dict[str, Any] = {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": {"name": "ac"},
        "spec": {
            "controllerName": "c",
            "parameters": {"apiGroup": "g", "kind": "ProvReqConfig", "name": "n"},
        },
    }
    assert findings_of(body) == []
    body["spec"]["parameters"]["kind"] = "9Bad"
    assert only(findings_of(body)).rule_id == "SCHEMA-PATTERN"


def test_bad_quantity_suffix_fails_the_pattern_vcq10() -> None:
    body = cluster_queue()
    resource(body)["nominalQuota"] = "1KB"
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-PATTERN" and finding.path == RESOURCE_PATH + ("nominalQuota",)


def test_integer_quantity_is_accepted_qty1() -> None:
    body = cohort()
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 10
    assert findings_of(body) == []


def test_bare_non_integer_number_quantity_fails_on_cohort_def3() -> None:
    body = cohort()
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = LiteralFloat("0.5")
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-TYPE"
    assert finding.message.endswith('nominalQuota in body must be of type integer,string: "number"')


def test_bare_non_integer_number_weight_fails_on_localqueue_def3() -> None:
    body = local_queue()
    body["spec"]["fairSharing"]["weight"] = LiteralFloat("1.5")
    assert only(findings_of(body)).rule_id == "SCHEMA-TYPE"


def test_core_pod_accepts_a_bare_number_quantity_qty1() -> None:
    body = pod()
    body["spec"]["containers"][0]["resources"]["requests"]["cpu"] = LiteralFloat("0.5")
    body["spec"]["containers"][0]["resources"]["limits"]["memory"] = 1073741824
    assert findings_of(body) == []


def test_core_pod_rejects_a_malformed_quantity_string() -> None:
    body = pod()
    body["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1 core"
    assert only(findings_of(body)).rule_id == "SCHEMA-PATTERN"


def test_int_or_string_port_accepts_both() -> None:
    body = pod()
    body["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"] = 8080
    assert findings_of(body) == []


def test_int32_out_of_range_rejected() -> None:
    body = workload()
    body["spec"]["priority"] = 2**31
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-RANGE" and finding.path == ("spec", "priority")
    assert finding.message == (
        "Invalid value: 2147483648: spec.priority in body should be less than or equal to 2147483647"
    )


def test_negative_pod_set_count_is_below_minimum_vwl3() -> None:
    body = workload()
    body["spec"]["podSets"][0]["count"] = -1
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-RANGE"
    assert (
        finding.message
        == "Invalid value: -1: spec.podSets[0].count in body should be greater than or equal to 0"
    )


def test_min_count_zero_is_below_minimum_vwl3() -> None:
    body = workload()
    body["spec"]["podSets"][0]["minCount"] = 0
    assert only(findings_of(body)).rule_id == "SCHEMA-RANGE"


def test_maximum_execution_time_must_be_positive_vwl15() -> None:
    body = workload()
    body["spec"]["maximumExecutionTimeSeconds"] = 0
    assert only(findings_of(body)).rule_id == "SCHEMA-RANGE"


def test_name_too_long_is_too_long() -> None:
    body = cluster_queue()
    body["spec"]["resourceGroups"][0]["flavors"][0]["name"] = "a" * 254
    finding = only(findings_of(body))
    assert (
        finding.rule_id == "SCHEMA-LENGTH" and finding.message == "Too long: may not be more than 253 bytes"
    )


def test_empty_priority_class_ref_name_is_too_short() -> None:
    body = workload()
    body["spec"]["priorityClassRef"]["name"] = ""
    found = findings_of(body)
    assert {f.rule_id for f in found} == {"SCHEMA-LENGTH", "SCHEMA-PATTERN"}


def test_too_many_resource_groups_vcq5() -> None:
    body = cluster_queue()
    body["spec"]["resourceGroups"] = [
        {
            "coveredResources": [f"r{i}"],
            "flavors": [{"name": f"f{i}", "resources": [{"name": f"r{i}", "nominalQuota": 1}]}],
        }
        for i in range(17)
    ]
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-ITEMS" and finding.path == ("spec", "resourceGroups")
    assert finding.message == "Too many: 17: must have at most 16 items"


def test_empty_flavor_list_has_too_few_items_vcq7() -> None:
    body = cluster_queue()
    body["spec"]["resourceGroups"][0]["flavors"] = []
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-ITEMS"
    assert finding.message == (
        "Invalid value: 0: spec.resourceGroups[0].flavors in body should have at least 1 items"
    )


def test_too_many_node_labels_vrf1() -> None:
    body = resource_flavor()
    body["spec"]["nodeLabels"] = {f"k{i}": "v" for i in range(9)}
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-ITEMS" and finding.path == ("spec", "nodeLabels")


def test_list_map_duplicate_flavor_name_rejected_vcq7() -> None:
    body = cluster_queue()
    body["spec"]["resourceGroups"][0]["flavors"][1]["name"] = "on-demand"
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-DUPLICATE"
    assert finding.path == ("spec", "resourceGroups", 0, "flavors", 1)
    assert finding.message == 'Duplicate value: {"name":"on-demand"}'


def test_list_map_duplicate_resource_name_rejected_vcq9() -> None:
    body = cluster_queue()
    resource(body, 0, 1)["name"] = "cpu"
    assert only(findings_of(body)).rule_id == "SCHEMA-DUPLICATE"


def test_two_unnamed_pod_sets_are_duplicates_after_defaulting_vwl1() -> None:
    body = workload()
    body["spec"]["podSets"] = [
        {"template": {"spec": {"containers": []}}},
        {"template": {"spec": {"containers": []}}},
    ]
    finding = only(findings_of(apply_schema_defaults(body, KUEUE, "Workload")))
    assert finding.rule_id == "SCHEMA-DUPLICATE" and finding.message == 'Duplicate value: {"name":"main"}'


def test_list_set_duplicate_rejected_vcq29() -> None:
    body = cluster_queue(
        admissionChecksStrategy={"admissionChecks": [{"name": "prov", "onFlavors": ["spot", "spot"]}]}
    )
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-DUPLICATE" and finding.message == 'Duplicate value: "spot"'
    assert finding.path == ("spec", "admissionChecksStrategy", "admissionChecks", 0, "onFlavors", 1)


def test_malformed_timestamp_is_a_format_error() -> None:
    body = namespace()
    body["metadata"]["creationTimestamp"] = "yesterday"
    finding = only(findings_of(body))
    assert finding.rule_id == "SCHEMA-FORMAT" and finding.path == ("metadata", "creationTimestamp")


def test_several_errors_are_all_reported() -> None:
    body = cluster_queue(queueingStrategy="FIFO", foo=1)
    resource(body)["nominalQuota"] = []
    assert sorted(f.rule_id for f in findings_of(body)) == [
        "SCHEMA-ENUM",
        "SCHEMA-TYPE",
        "SCHEMA-UNKNOWN-FIELD",
    ]


def test_wrong_type_for_an_object_stops_checks_below_it() -> None:
    finding = only(findings_of(cluster_queue(preemption="Never")))
    assert finding.rule_id == "SCHEMA-TYPE" and finding.path == ("spec", "preemption")


def test_accepted_but_surprising_inputs_of_def3_are_valid() -> None:
    zero = workload()
    zero["spec"]["podSets"][0]["count"] = 0
    no_pod_sets = workload()
    del no_pod_sets["spec"]["podSets"]
    no_queue = local_queue()
    del no_queue["spec"]["clusterQueue"]
    negative_weight = local_queue()
    negative_weight["spec"]["fairSharing"]["weight"] = -1
    for body in (zero, no_pod_sets, no_queue, negative_weight):
        assert findings_of(body) == [], body


def test_empty_cluster_queue_name_on_localqueue_is_rejected_def3() -> None:
    body = local_queue()
    body["spec"]["clusterQueue"] = ""
    assert only(findings_of(body)).rule_id == "SCHEMA-PATTERN"


# --------------------------------------------------------------------------------------------
# Defaulting (DEF-1)
# --------------------------------------------------------------------------------------------


def test_defaults_fill_queueing_strategy_and_preemption() -> None:
    spec = apply_schema_defaults(cluster_queue(), KUEUE, "ClusterQueue")["spec"]
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["stopPolicy"] == "None"
    assert spec["preemption"] == {
        "reclaimWithinCohort": "Never",
        "withinClusterQueue": "Never",
        "borrowWithinCohort": {"policy": "Never"},
    }
    assert spec["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}


def test_defaults_do_not_touch_given_values_or_the_namespace_selector_def2() -> None:
    body = cluster_queue(queueingStrategy="StrictFIFO", preemption={"withinClusterQueue": "LowerPriority"})
    del body["spec"]["namespaceSelector"]
    spec = apply_schema_defaults(body, KUEUE, "ClusterQueue")["spec"]
    assert spec["queueingStrategy"] == "StrictFIFO"
    assert spec["preemption"]["withinClusterQueue"] == "LowerPriority"
    assert spec["preemption"]["reclaimWithinCohort"] == "Never"
    assert "namespaceSelector" not in spec


def test_defaults_fill_fair_sharing_weight_only_when_fair_sharing_is_present() -> None:
    assert "fairSharing" not in apply_schema_defaults(cluster_queue(), KUEUE, "ClusterQueue")["spec"]
    spec = apply_schema_defaults(cluster_queue(fairSharing={}), KUEUE, "ClusterQueue")["spec"]
    assert spec["fairSharing"] == {"weight": 1}


def test_defaults_fill_workload_active_and_pod_set_name_and_count() -> None:
    body = workload()
    body["spec"]["podSets"] = [{"template": {"spec": {"containers": []}}}]
    spec = apply_schema_defaults(body, KUEUE, "Workload")["spec"]
    assert spec["active"] is True
    assert spec["podSets"][0]["name"] == "main" and spec["podSets"][0]["count"] == 1


def test_v1beta1_workload_pod_set_count_is_defaulted_too() -> None:
    body = workload()
    body["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    body["spec"]["podSets"][0].pop("count")
    del body["spec"]["priorityClassRef"]
    defaulted = apply_schema_defaults(body, "kueue.x-k8s.io/v1beta1", "Workload")
    assert defaulted["spec"]["podSets"][0]["count"] == 1
    assert findings_of(defaulted) == []


def test_defaults_fill_local_queue_stop_policy() -> None:
    body = local_queue()
    del body["spec"]["stopPolicy"]
    assert apply_schema_defaults(body, KUEUE, "LocalQueue")["spec"]["stopPolicy"] == "None"


def test_defaults_replace_a_null_that_has_a_default() -> None:
    spec = apply_schema_defaults(cluster_queue(queueingStrategy=None), KUEUE, "ClusterQueue")["spec"]
    assert spec["queueingStrategy"] == "BestEffortFIFO"


def test_defaults_return_a_deep_copy() -> None:
    body = cluster_queue()
    original = copy.deepcopy(body)
    defaulted = apply_schema_defaults(body, KUEUE, "ClusterQueue")
    resource(defaulted)["nominalQuota"] = "99"
    defaulted["spec"]["preemption"]["borrowWithinCohort"]["policy"] = "LowerPriority"
    assert body == original
    again = apply_schema_defaults(body, KUEUE, "ClusterQueue")
    assert again["spec"]["preemption"]["borrowWithinCohort"]["policy"] == "Never"


def test_defaults_keep_the_wrong_type_for_the_schema_check() -> None:
    defaulted = apply_schema_defaults(cluster_queue(preemption="Never"), KUEUE, "ClusterQueue")
    assert defaulted["spec"]["preemption"] == "Never"


def test_defaulted_view_of_every_valid_document_is_still_valid() -> None:
    for make in ALL_VALID:
        body = make()
        assert findings_of(apply_schema_defaults(body, body["apiVersion"], body["kind"])) == []


# --------------------------------------------------------------------------------------------
# The compiled validator agrees with jsonschema (the reference implementation)
# --------------------------------------------------------------------------------------------


def _list_map_keys(
    validator: Any, keys: list[str], instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    if not isinstance(instance, list):
        return
    seen: set[tuple[str, ...]] = set()
    for item in instance:
        if isinstance(item, dict) and any(item.get(k) is not None for k in keys):
            key = tuple(json.dumps(item.get(k)) for k in keys)
            if key in seen:
                yield jsonschema.ValidationError(f"duplicate list-map key {key}")
            seen.add(key)


_Reference = jsonschema.validators.extend(
    jsonschema.Draft7Validator, {"x-kqctl-list-map-keys": _list_map_keys}
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))


def _get(body: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        body = body[part]
    return body


def _mutations(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Variants of a valid document, each broken (or not) at one place."""
    for path in _paths(body):
        if path[:1] in (("apiVersion",), ("kind",)):
            continue
        value = _get(body, path)
        replacements: list[Any] = [12345 if isinstance(value, str) else "x", "Not A Name!", -1, 2**40]
        if isinstance(value, dict):
            replacements.append({**value, "zzUnknown": 1})
        if isinstance(value, list) and value:
            replacements.append(value + [copy.deepcopy(value[0])])
            replacements.append([])
        for replacement in replacements:
            yield _replaced(body, path, replacement)
        if path:
            yield _replaced(body, path, _DELETE)


_DELETE = object()


def _replaced(body: dict[str, Any], path: tuple[Any, ...], replacement: Any) -> dict[str, Any]:
    mutated = copy.deepcopy(body)
    if not path:
        return mutated if replacement is _DELETE else {**mutated, "zzUnknown": replacement}
    parent = _get(mutated, path[:-1])
    if replacement is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return mutated


@pytest.mark.parametrize("make", ALL_VALID, ids=lambda f: f.__name__)
def test_compiled_validator_agrees_with_jsonschema_on_mutated_documents(make: Any) -> None:
    body = make()
    schema = load_schema(body["apiVersion"], body["kind"])
    assert schema is not None
    reference = _Reference(schema)
    checked = 0
    for mutated in _mutations(body):
        ours = findings_of(mutated)
        theirs = list(reference.iter_errors(mutated))
        assert (ours == []) == (theirs == []), (mutated, ours, [e.message for e in theirs])
        checked += 1
    assert checked > 20


# --------------------------------------------------------------------------------------------
# The compiled validators are reused (their speed is measured by benchmarks/bench_steps.py, not here)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [cluster_queue, local_queue, workload], ids=lambda f: f.__name__)
def test_schema_validator_and_defaulter_are_built_once_per_kind(make: Any) -> None:
    body = make()
    api_version, kind = body["apiVersion"], body["kind"]
    findings_of(body)
    validator = schema_module._validator(api_version, kind)
    defaulter = schema_module._defaulter(api_version, kind)
    validate_schema(apply_schema_defaults(body, api_version, kind), api_version, kind)
    assert validator is not None and schema_module._validator(api_version, kind) is validator
    assert defaulter is not None and schema_module._defaulter(api_version, kind) is defaulter
