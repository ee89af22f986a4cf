"""DEF-3: Kueue's mutating webhooks decode and re-encode ClusterQueues, ResourceFlavors and Workloads."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kqctl.findings import Severity
from kqctl.k8s.scalars import LiteralFloat
from kqctl.kueue.validate.webhook_defaults import (
    RESOURCE_IN_USE_FINALIZER,
    RULE_DECODE,
    apply_mutating_webhooks,
    go_float_text,
)

QPAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def cq(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": spec,
    }


def cq_quota(**fields: Any) -> dict[str, Any]:
    return cq(
        {
            "cohortName": "org",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "f", "resources": [{"name": "cpu", **fields}]}],
                }
            ],
        }
    )


def quota_of(body: dict[str, Any]) -> dict[str, Any]:
    quota: dict[str, Any] = body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    return quota


def workload(pod_set: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w"}}
    return {**body, "spec": {"podSets": [{"name": "main", "count": 1, **pod_set}]}, **extra}


def test_def3_cluster_queue_resource_without_nominal_quota_gets_zero() -> None:
    out, findings = apply_mutating_webhooks(cq_quota())

    assert quota_of(out) == {"name": "cpu", "nominalQuota": "0"}
    assert findings == []


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        (LiteralFloat("1.5"), "1500m"),
        (10, "10"),
        (LiteralFloat("1e3"), "1k"),
        (LiteralFloat("2.50"), "2500m"),
        ("1.5", "1500m"),
    ],
)
def test_def3_bare_number_quantities_are_re_encoded_canonically(raw: Any, canonical: str) -> None:
    out, findings = apply_mutating_webhooks(cq_quota(nominalQuota=raw, borrowingLimit=raw))

    assert quota_of(out) == {"name": "cpu", "nominalQuota": canonical, "borrowingLimit": canonical}
    assert findings == []


def test_def3_a_number_that_is_not_a_quantity_fails_decoding() -> None:
    out, [finding] = apply_mutating_webhooks(cq_quota(nominalQuota=LiteralFloat(".inf")))

    assert finding.rule_id == RULE_DECODE and finding.severity is Severity.ERROR
    assert finding.field == "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
    assert "quantities must match the regular expression" in finding.message
    assert quota_of(out)["nominalQuota"].text == ".inf"  # kept as written


def test_def3_an_unparseable_quantity_string_is_denied_by_the_webhook() -> None:
    _, [finding] = apply_mutating_webhooks(cq_quota(nominalQuota="1", lendingLimit="1KB"))

    assert finding.field == "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit"
    assert finding.message == f'admission webhook "mclusterqueue.kb.io" denied the request: {QPAT_ERROR}'


def test_def3_wrong_json_type_is_a_decode_error_with_go_wording() -> None:
    _, [finding] = apply_mutating_webhooks(cq({"queueingStrategy": 1}))

    assert finding.field == "spec.queueingStrategy"
    assert finding.message == (
        'admission webhook "mclusterqueue.kb.io" denied the request: json: cannot unmarshal number into '
        "Go struct field ClusterQueueSpec.spec.queueingStrategy of type v1beta2.QueueingStrategy"
    )


def test_def3_string_pod_set_count_is_a_decode_error_at_the_field() -> None:
    _, [finding] = apply_mutating_webhooks(workload({"count": "3"}))

    assert finding.field == "spec.podSets[0].count"
    assert finding.message.endswith(
        "json: cannot unmarshal string into Go struct field PodSet.spec.podSets.count of type int32"
    )


def test_def3_integral_float_count_decodes_and_fractional_count_fails() -> None:
    out, findings = apply_mutating_webhooks(workload({"count": LiteralFloat("3.0")}))
    assert out["spec"]["podSets"][0]["count"] == 3 and findings == []

    _, [finding] = apply_mutating_webhooks(workload({"count": LiteralFloat("1.5")}))
    assert "cannot unmarshal number 1.5 into Go struct field PodSet.spec.podSets.count" in finding.message


def test_def3_wrong_type_in_a_nested_struct_names_the_innermost_go_struct() -> None:
    _, [finding] = apply_mutating_webhooks(
        cq({"preemption": {"borrowWithinCohort": {"maxPriorityThreshold": "x"}}})
    )

    where = "BorrowWithinCohort.spec.preemption.borrowWithinCohort.maxPriorityThreshold"
    assert finding.message.endswith(f"Go struct field {where} of type int32")


def test_def3_taint_without_effect_gets_an_empty_effect() -> None:
    rf = {
        "kind": "ResourceFlavor",
        "metadata": {"name": "rf"},
        "spec": {"nodeTaints": [{"key": "spot", "value": "x"}]},
    }

    out, findings = apply_mutating_webhooks(rf)

    assert out["spec"]["nodeTaints"] == [{"key": "spot", "value": "x", "effect": ""}]
    assert findings == []


def test_def3_removals_are_never_sent_so_an_empty_toleration_value_stays() -> None:
    # controller-runtime's dropSchemeRemovals: what only the decoding removes (omitempty) is not patched away.
    rf = {"kind": "ResourceFlavor", "spec": {"tolerations": [{"key": "", "operator": "Exists", "value": ""}]}}

    out, _ = apply_mutating_webhooks(rf)

    assert out["spec"]["tolerations"] == [{"key": "", "operator": "Exists", "value": ""}]


def test_def3_empty_strings_stay_as_written() -> None:
    out, _ = apply_mutating_webhooks(cq({"cohortName": "", "stopPolicy": ""}))

    assert out["spec"] == {"cohortName": "", "stopPolicy": ""}


def test_def3_a_workload_is_not_patched_when_default_changes_nothing() -> None:
    # WorkloadWebhook.Default changes nothing with PartialAdmission on: controller-runtime answers without a
    # patch, so the re-encoding (canonical quantities, a nameless container's name "") never reaches the server.
    template = {
        "spec": {"containers": [{"resources": {"requests": {"cpu": LiteralFloat("0.5"), "memory": 1024}}}]}
    }
    body = workload({"template": template})

    out, findings = apply_mutating_webhooks(body)

    assert out is body and findings == []


def test_def3_a_patched_workload_gets_canonical_quantities_and_nameless_containers_a_name() -> None:
    template = {
        "spec": {"containers": [{"resources": {"requests": {"cpu": LiteralFloat("0.5"), "memory": 1024}}}]}
    }

    out, findings = apply_mutating_webhooks(workload({"template": template, "minCount": 1}),
                                            partial_admission=False)

    assert out["spec"]["podSets"][0]["template"] == {
        "spec": {"containers": [{"resources": {"requests": {"cpu": "500m", "memory": "1024"}}, "name": ""}]},
        "metadata": {},
    }
    assert findings == []


def test_def3_a_cluster_queue_that_already_holds_the_finalizer_is_not_patched() -> None:
    body = cq_quota(nominalQuota=LiteralFloat("1.5"))
    body["metadata"]["finalizers"] = [RESOURCE_IN_USE_FINALIZER]

    out, findings = apply_mutating_webhooks(body)

    assert out is body and findings == []
    assert quota_of(out)["nominalQuota"] == LiteralFloat("1.5")


def test_def3_a_decode_error_denies_even_when_default_changes_nothing() -> None:
    _, [finding] = apply_mutating_webhooks(workload({"count": "many"}))

    assert finding.rule_id == RULE_DECODE


def test_def3_admission_usage_quantities_in_status_are_decoded_too() -> None:
    status = {
        "admission": {
            "clusterQueue": "cq",
            "podSetAssignments": [{"name": "main", "resourceUsage": {"cpu": "x"}}],
        }
    }

    _, [finding] = apply_mutating_webhooks(workload({}, status=status))

    assert finding.field == "status.admission.podSetAssignments[0].resourceUsage.cpu"
    assert finding.message.startswith('admission webhook "mworkload.kb.io" denied the request: quantities')


def test_def3_status_is_not_created_when_absent() -> None:
    out, _ = apply_mutating_webhooks(cq({}))

    assert "status" not in out


def test_def3_cluster_queue_and_resource_flavor_get_the_resource_in_use_finalizer_once() -> None:
    body = cq({})
    body["metadata"]["finalizers"] = [RESOURCE_IN_USE_FINALIZER]

    out, _ = apply_mutating_webhooks(body)
    rf_out, _ = apply_mutating_webhooks({"kind": "ResourceFlavor", "spec": {}})

    assert out["metadata"]["finalizers"] == [RESOURCE_IN_USE_FINALIZER]
    assert rf_out["metadata"]["finalizers"] == [RESOURCE_IN_USE_FINALIZER]


def test_def3_workload_webhook_drops_min_count_only_without_partial_admission() -> None:
    kept, _ = apply_mutating_webhooks(workload({"minCount": 1}))
    dropped, _ = apply_mutating_webhooks(workload({"minCount": 1}), partial_admission=False)


    assert kept["spec"]["podSets"][0]["minCount"] == 1
    assert "minCount" not in dropped["spec"]["podSets"][0]


@pytest.mark.parametrize("kind", ["Cohort", "LocalQueue", "WorkloadPriorityClass"])
def test_def3_kinds_without_a_mutating_webhook_are_unchanged(kind: str) -> None:
    body = {
        "kind": kind,
        "spec": {"resourceGroups": [{"flavors": [{"resources": [{"name": "cpu"}]}]}], "x": 1},
    }

    out, findings = apply_mutating_webhooks(body)

    assert out == body and findings == []


def test_def3_the_input_is_not_mutated() -> None:
    body = cq_quota(nominalQuota=LiteralFloat("1.5"))
    before = copy.deepcopy(body)

    apply_mutating_webhooks(body)

    assert body == before


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1, "0.1"),
        (3.0, "3"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (-2.5e-10, "-2.5e-10"),
    ],
)
def test_def3_yaml_floats_reach_the_server_as_go_prints_a_float64(value: float, text: str) -> None:
    assert go_float_text(value) == text
