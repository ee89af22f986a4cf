"""Kubernetes metadata rules every kind gets (VAL-CQ-1, VAL-CO-1, VAL-META-*)."""

from __future__ import annotations

from typing import Any

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.findings import Finding, Severity
from kqctl.k8s.kinds import KindInfo
from kqctl.kueue.validate.rules import run_webhook_rules
from kqctl.validate.rules import run_metadata_rules
from kqctl.validate.rules.metadata import metadata_rules_for


def obj(kind: str, **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "ok", **metadata}, "spec": {}}


def found(kind: str, body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules(kind, body) if f.rule_id == rule_id]


def test_unknown_kinds_and_configuration_have_no_metadata_rules() -> None:
    assert metadata_rules_for(None) == ()
    assert metadata_rules_for(ALL_KINDS.get("config.kueue.x-k8s.io", "Configuration")) == ()


def test_same_kind_name_in_two_groups_gets_its_own_scope() -> None:
    namespaced = KindInfo("example.com", "Queue", True, ("v1",))
    cluster_scoped = KindInfo("example.org", "Queue", False, ("v1",))
    body = obj("Queue", namespace="bad_ns")
    assert [f.rule_id for f in run_metadata_rules(namespaced, body)] == ["VAL-META-2"]
    assert [f.severity for f in run_metadata_rules(cluster_scoped, body)] != [Severity.ERROR]


# VAL-META-1 ---------------------------------------------------------------------------------


def test_vmeta1_local_queue_subdomain_name_accepted() -> None:
    assert found("LocalQueue", obj("LocalQueue", name="lq.team-a"), "VAL-META-1") == []


def test_vmeta1_missing_name_and_generate_name_required() -> None:
    body = obj("ResourceFlavor")
    del body["metadata"]["name"]
    assert [(f.field, f.message) for f in found("ResourceFlavor", body, "VAL-META-1")] == [
        ("metadata.name", "Required value: name or generateName is required")
    ]


def test_vmeta1_generate_name_may_end_with_dash() -> None:
    body = obj("Workload", generateName="job-", namespace="ns")
    del body["metadata"]["name"]
    assert found("Workload", body, "VAL-META-1") == []


def test_vmeta1_bad_generate_name_rejected() -> None:
    body = obj("Workload", generateName="Job-", namespace="ns")
    del body["metadata"]["name"]
    [finding] = found("Workload", body, "VAL-META-1")
    assert finding.field == "metadata.generateName"


def test_vmeta1_namespace_name_must_be_a_dns_label() -> None:
    [finding] = found("Namespace", obj("Namespace", name="team.a"), "VAL-META-1")
    assert finding.message == 'Invalid value: "team.a": must not contain dots'


def test_vmeta1_job_name_of_63_characters_accepted() -> None:
    assert found("Job", obj("Job", name="j" * 63, namespace="ns"), "VAL-META-1") == []


def test_vmeta1_job_name_over_63_characters_rejected_on_pod_template_labels() -> None:
    name = "j" * 64
    [finding] = found("Job", obj("Job", name=name, namespace="ns"), "VAL-META-1")
    assert (finding.field, finding.message) == (
        "spec.template.labels",
        f'Invalid value: "{name}": must be no more than 63 bytes',
    )


def test_vcq1_and_vco1_name_rules_use_the_spec_ids() -> None:
    assert found("ClusterQueue", obj("ClusterQueue", name="Bad"), "VAL-CQ-1")
    assert found("Cohort", obj("Cohort", name="Bad"), "VAL-CO-1")
    assert not found("ClusterQueue", obj("ClusterQueue", name="Bad"), "VAL-META-1")


# VAL-META-2 ---------------------------------------------------------------------------------


def test_vmeta2_namespaced_kind_with_valid_namespace_accepted() -> None:
    assert found("LocalQueue", obj("LocalQueue", namespace="team-a"), "VAL-META-2") == []


def test_vmeta2_namespaced_kind_with_bad_namespace_rejected() -> None:
    [finding] = found("LocalQueue", obj("LocalQueue", namespace="Team_A"), "VAL-META-2")
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith('Invalid value: "Team_A": a lowercase RFC 1123 label must consist')


def test_vmeta2_cluster_scoped_kind_with_namespace_warns() -> None:
    [finding] = found("ClusterQueue", obj("ClusterQueue", namespace="default"), "VAL-META-2")
    assert finding.severity is Severity.WARNING
    assert finding.field == "metadata.namespace"


def test_vmeta2_cluster_scoped_kind_without_namespace_accepted() -> None:
    assert found("ResourceFlavor", obj("ResourceFlavor"), "VAL-META-2") == []


# VAL-META-3 / 4 / 5 ---------------------------------------------------------------------------


def test_vmeta3_valid_labels_accepted() -> None:
    assert found("Cohort", obj("Cohort", labels={"example.com/team": "a", "empty": ""}), "VAL-META-3") == []


def test_vmeta3_label_value_too_long_rejected() -> None:
    [finding] = found("Cohort", obj("Cohort", labels={"team": "a" * 64}), "VAL-META-3")
    assert finding.message.endswith(": must be no more than 63 bytes")


def test_vmeta4_mixed_case_annotation_key_accepted() -> None:
    assert (
        found(
            "Workload",
            obj("Workload", namespace="n", annotations={"Example.com/Note": "x y z"}),
            "VAL-META-4",
        )
        == []
    )


def test_vmeta4_annotation_key_with_space_rejected() -> None:
    [finding] = found("Workload", obj("Workload", namespace="n", annotations={"my note": "x"}), "VAL-META-4")
    assert finding.field == "metadata.annotations"


def test_vmeta5_qualified_finalizer_accepted() -> None:
    assert (
        found(
            "ClusterQueue", obj("ClusterQueue", finalizers=["kueue.x-k8s.io/resource-in-use"]), "VAL-META-5"
        )
        == []
    )


def test_vmeta5_orphan_and_foreground_together_rejected() -> None:
    [finding] = found(
        "Pod", obj("Pod", namespace="n", finalizers=["orphan", "foregroundDeletion"]), "VAL-META-5"
    )
    assert finding.message == (
        'Invalid value: ["orphan","foregroundDeletion"]: '
        "finalizer orphan and foregroundDeletion cannot be both set"
    )


def test_vmeta5_bad_finalizer_name_rejected() -> None:
    [finding] = found("Pod", obj("Pod", namespace="n", finalizers=["a/b/c"]), "VAL-META-5")
    assert finding.message.startswith('Invalid value: "a/b/c": a valid label key')


def test_metadata_error_keeps_the_kind_webhook_from_running() -> None:
    # BeforeCreate rejects the object, so Kueue's webhook never sees the negative quota.
    groups = [
        {
            "coveredResources": ["cpu"],
            "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "-1"}]}],
        }
    ]
    body: dict[str, Any] = {"kind": "Cohort", "metadata": {"name": "Bad"}, "spec": {"resourceGroups": groups}}
    assert [f.rule_id for f in run_webhook_rules("Cohort", body)] == ["VAL-CO-1"]
    body["metadata"]["name"] = "good"
    assert [f.rule_id for f in run_webhook_rules("Cohort", body)] == ["VAL-CO-3"]


def test_run_metadata_rules_runs_only_metadata() -> None:
    body = {"kind": "Cohort", "metadata": {"name": "Bad"}, "spec": {"fairSharing": {"weight": "-1"}}}
    assert [f.rule_id for f in run_metadata_rules(ALL_KINDS.get("kueue.x-k8s.io", "Cohort"), body)] == ["VAL-CO-1"]


def test_webhook_rules_without_metadata_skip_the_name_check() -> None:
    body = {"kind": "Cohort", "metadata": {"name": "Bad"}, "spec": {"fairSharing": {"weight": "-1"}}}
    assert [f.rule_id for f in run_webhook_rules("Cohort", body, include_metadata=False)] == ["VAL-CO-6"]
