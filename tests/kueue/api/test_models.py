"""The internal model (§1.5): built from undefaulted v1beta2 objects (DEF-4), quantities as QTY-5 integers."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from kqctl.k8s.core import LimitRange, ModelError, Namespace, PriorityClass
from kqctl.k8s.quantity import UNLIMITED
from kqctl.k8s.scalars import LiteralFloat
from kqctl.kueue.api.models import (
    AdmissionCheck,
    BorrowWithinCohort,
    ClusterQueue,
    Cohort,
    FlavorFungibility,
    LocalQueue,
    Preemption,
    PriorityClassRef,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Taint,
    Toleration,
    Workload,
    WorkloadPriorityClass,
)
from kqctl.origin import Origin

ORIGIN = Origin("objects.yaml", 0, 1)


def cq(spec: dict[str, Any], **meta: Any) -> ClusterQueue:
    return ClusterQueue.from_v1beta2(
        {"kind": "ClusterQueue", "metadata": {"name": "cq", **meta}, "spec": spec}, ORIGIN
    )


def one_group(*resources: dict[str, Any], flavor: str = "spot") -> dict[str, Any]:
    covered = [r["name"] for r in resources]
    return {
        "resourceGroups": [
            {"coveredResources": covered, "flavors": [{"name": flavor, "resources": list(resources)}]}
        ]
    }


def test_cluster_queue_quotas_are_qty5_integers_in_canonical_units() -> None:
    queue = cq(
        {
            "cohortName": "org",
            **one_group(
                {"name": "cpu", "nominalQuota": "1.5", "borrowingLimit": "500m", "lendingLimit": 1},
                {"name": "memory", "nominalQuota": "1Gi"},
                {"name": "nvidia.com/gpu", "nominalQuota": LiteralFloat("0.5")},
            ),
        }
    )

    assert queue.resource_groups == (ResourceGroup(("cpu", "memory", "nvidia.com/gpu"), ("spot",)),)
    assert queue.quotas == {
        ("spot", "cpu"): ResourceQuota(1500, 500, 1000),
        ("spot", "memory"): ResourceQuota(2**30),
        ("spot", "nvidia.com/gpu"): ResourceQuota(1),
    }
    assert queue.origin == ORIGIN


def test_cluster_queue_quota_beyond_int64_is_the_unlimited_sentinel() -> None:
    queue = cq(one_group({"name": "cpu", "nominalQuota": "9223372036854775"}))

    assert queue.quotas[("spot", "cpu")].nominal == UNLIMITED


def test_def4_absent_nominal_quota_reads_as_zero_like_the_go_zero_quantity() -> None:
    assert cq(one_group({"name": "cpu"})).quotas[("spot", "cpu")] == ResourceQuota(0)


def test_quotas_follow_the_flavor_resources_and_the_last_duplicate_wins() -> None:
    # Kueue's createResourceQuotas keys by flavor.resources, not coveredResources.
    spec = {
        "resourceGroups": [
            {
                "coveredResources": ["cpu"],
                "flavors": [
                    {
                        "name": "a",
                        "resources": [{"name": "cpu", "nominalQuota": 1}, {"name": "cpu", "nominalQuota": 2}],
                    }
                ],
            }
        ]
    }

    assert cq(spec).quotas == {("a", "cpu"): ResourceQuota(2000)}


def test_def4_unset_fields_stay_unset_and_only_kueues_own_nil_fills_apply() -> None:
    queue = cq({})

    assert queue.cohort is None
    assert queue.queueing_strategy == ""  # not BestEffortFIFO (DEF-4)
    assert queue.namespace_selector is None  # matches nothing (DEF-2)
    assert queue.preemption == Preemption("Never", "Never", None)  # cache defaultPreemption
    assert queue.flavor_fungibility == FlavorFungibility("MayStopSearch", "TryNextFlavor")
    assert queue.stop_policy == "None"
    assert queue.fair_weight == 1.0
    assert queue.admission_mode is None and queue.deleting is False


def test_def4_present_preemption_keeps_empty_policies_and_empty_borrow_policy() -> None:
    queue = cq({"preemption": {"borrowWithinCohort": {"maxPriorityThreshold": 5}}})

    assert queue.preemption == Preemption("", "", BorrowWithinCohort("", 5))


def test_def4_empty_fungibility_policies_get_the_cache_defaults_and_preference_is_kept() -> None:
    queue = cq(
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch", "preference": "BorrowingOverPreemption"}}
    )

    assert queue.flavor_fungibility == FlavorFungibility(
        "MayStopSearch", "MayStopSearch", "BorrowingOverPreemption"
    )


def test_empty_stop_policy_is_kept_and_means_stopped_to_kueue() -> None:
    assert cq({"stopPolicy": ""}).stop_policy == ""


def test_empty_namespace_selector_is_kept_as_match_everything() -> None:
    assert cq({"namespaceSelector": {}}).namespace_selector == {}


def test_admission_check_without_on_flavors_applies_to_every_flavor() -> None:
    spec = {
        **one_group({"name": "cpu", "nominalQuota": 1}),
        "admissionChecksStrategy": {"admissionChecks": [{"name": "a"}, {"name": "b", "onFlavors": ["x"]}]},
    }

    assert cq(spec).admission_checks == {"a": frozenset({"spot"}), "b": frozenset({"x"})}


def test_fair_weight_and_admission_mode_and_deletion_are_read() -> None:
    queue = cq(
        {
            "fairSharing": {"weight": "500m"},
            "admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"},
        },
        deletionTimestamp="2024-01-01T00:00:00Z",
    )

    assert (queue.fair_weight, queue.admission_mode, queue.deleting) == (
        0.5,
        "UsageBasedAdmissionFairSharing",
        True,
    )


def test_cohort_reads_parent_and_quotas_and_implicit_cohorts_have_none() -> None:
    body = {
        "kind": "Cohort",
        "metadata": {"name": "org"},
        "spec": {"parentName": "root", **one_group({"name": "cpu", "nominalQuota": 4})},
    }

    cohort = Cohort.from_v1beta2(body, ORIGIN)

    assert (cohort.name, cohort.parent, cohort.explicit) == ("org", "root", True)
    assert cohort.quotas == {("spot", "cpu"): ResourceQuota(4000)}
    implicit = Cohort.implicit("root")
    assert (implicit.parent, implicit.quotas, implicit.explicit) == (None, {}, False)


def test_resource_flavor_labels_taints_and_tolerations() -> None:
    body = {
        "kind": "ResourceFlavor",
        "metadata": {"name": "spot"},
        "spec": {
            "nodeLabels": {"instance": "spot"},
            "nodeTaints": [{"key": "spot", "value": "true", "effect": "NoSchedule"}],
            "tolerations": [
                {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
            ],
            "topologyName": "default",
        },
    }

    flavor = ResourceFlavor.from_v1beta2(body, ORIGIN)

    assert flavor.node_labels == {"instance": "spot"}
    assert flavor.node_taints == (Taint("spot", "true", "NoSchedule"),)
    assert flavor.tolerations == (Toleration("k", "Exists", "", "NoExecute", 30),)
    assert flavor.topology_name == "default"


def test_local_queue_key_cluster_queue_and_stop_policy() -> None:
    body = {
        "kind": "LocalQueue",
        "metadata": {"name": "lq", "namespace": "ns"},
        "spec": {"clusterQueue": "cq"},
    }

    queue = LocalQueue.from_v1beta2(body, ORIGIN)

    assert (queue.key, queue.cluster_queue, queue.stop_policy) == ("ns/lq", "cq", "None")


def test_workload_priority_class_and_admission_check() -> None:
    wpc = WorkloadPriorityClass.from_v1beta2({"metadata": {"name": "high"}, "value": 1000})
    check = AdmissionCheck.from_v1beta2(
        {
            "metadata": {"name": "prov"},
            "spec": {"controllerName": "c"},
            "status": {"conditions": [{"type": "Active", "status": "True"}]},
        }
    )

    assert (wpc.name, wpc.value) == ("high", 1000)
    assert (check.controller_name, check.active) == ("c", True)
    assert AdmissionCheck.from_v1beta2({"metadata": {"name": "p"}}).active is False


WORKLOAD: dict[str, Any] = {
    "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns", "uid": "u-1", "creationTimestamp": "2024-05-01T10:00:00Z"},
    "spec": {
        "queueName": "lq",
        "priority": 100,
        "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
        "podSets": [
            {
                "name": "main",
                "count": 4,
                "minCount": 2,
                "template": {"spec": {"containers": [{"name": "c"}]}},
                "topologyRequest": {"podSetGroupName": "g"},
            }
        ],
    },
    "status": {
        "admission": {
            "clusterQueue": "cq",
            "podSetAssignments": [
                {
                    "name": "main",
                    "flavors": {"cpu": "spot"},
                    "resourceUsage": {"cpu": "1500m", "nvidia.com/gpu": "0.5"},
                    "count": 4,
                }
            ],
        },
        "conditions": [
            {
                "type": "QuotaReserved",
                "status": "True",
                "reason": "QuotaReserved",
                "lastTransitionTime": "2024-05-01T10:00:05Z",
            }
        ],
        "reclaimablePods": [{"name": "main", "count": 1}],
        "admissionChecks": [{"name": "prov", "state": "Pending", "message": "waiting"}],
        "requeueState": {"count": 2, "requeueAt": "2024-05-01T10:05:00+02:00"},
    },
}


def test_workload_reads_spec_and_status_with_usage_as_qty5_integers() -> None:
    wl = Workload.from_v1beta2(WORKLOAD, ORIGIN)

    assert (wl.key, wl.uid, wl.queue_name, wl.priority, wl.active) == ("ns/w", "u-1", "lq", 100, True)
    assert wl.priority_class_ref == PriorityClassRef("kueue.x-k8s.io", "WorkloadPriorityClass", "high")
    assert wl.creation_timestamp == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    [pod_set] = wl.pod_sets
    assert (pod_set.name, pod_set.count, pod_set.min_count, pod_set.topology_request) == (
        "main",
        4,
        2,
        {"podSetGroupName": "g"},
    )
    assert wl.admission is not None and wl.admission.cluster_queue == "cq"
    [assignment] = wl.admission.pod_set_assignments
    assert assignment.resource_usage == {"cpu": 1500, "nvidia.com/gpu": 1}  # QTY-5: 0.5 gpu rounds up
    assert assignment.flavors == {"cpu": "spot"} and assignment.count == 4
    assert wl.is_condition_true("QuotaReserved") and not wl.is_condition_true("Admitted")
    assert wl.reclaimable_pods == {"main": 1}
    assert [(s.name, s.state) for s in wl.admission_check_states] == [("prov", "Pending")]
    assert wl.requeue_state is not None and wl.requeue_state.requeue_at == datetime(
        2024, 5, 1, 8, 5, tzinfo=timezone.utc
    )


def test_def4_undefaulted_workload_keeps_unset_priority_name_and_count() -> None:
    wl = Workload.from_v1beta2({"metadata": {"name": "w"}, "spec": {"podSets": [{"template": {}}]}})

    assert (wl.priority, wl.uid, wl.creation_timestamp, wl.admission) == (None, "", None, None)
    assert (wl.pod_sets[0].name, wl.pod_sets[0].count) == ("", 0)  # no CRD defaults "main" / 1
    assert wl.active is True  # workload.IsActive: nil means active


def test_inactive_workload_is_read() -> None:
    assert Workload.from_v1beta2({"spec": {"active": False}}).active is False


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (WORKLOAD | {"spec": {"podSets": [{"count": "3"}]}}, ("spec", "podSets", 0, "count")),
        ({"spec": {"priority": 1.5}}, ("spec", "priority")),
        ({"metadata": {"creationTimestamp": "yesterday"}}, ("metadata", "creationTimestamp")),
    ],
)
def test_workload_values_go_could_not_decode_raise_a_located_model_error(
    body: dict[str, Any], path: tuple[Any, ...]
) -> None:
    with pytest.raises(ModelError) as caught:
        Workload.from_v1beta2(body)

    assert caught.value.path == path


def test_unparseable_quota_raises_a_located_model_error() -> None:
    with pytest.raises(ModelError, match="quantities must match") as caught:
        cq(one_group({"name": "cpu", "nominalQuota": "ten"}))

    assert caught.value.path == ("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota")


def test_core_namespace_priority_class_and_limit_range() -> None:
    namespace = Namespace.from_v1({"metadata": {"name": "ns", "labels": {"team": "a"}}}, ORIGIN)
    priority = PriorityClass.from_v1({"metadata": {"name": "high"}, "value": 1000, "globalDefault": True})
    limits = LimitRange.from_v1(
        {"metadata": {"name": "lr", "namespace": "ns"}, "spec": {"limits": [{"type": "Container"}]}}
    )

    assert (namespace.name, namespace.labels, namespace.origin) == ("ns", {"team": "a"}, ORIGIN)
    assert (priority.name, priority.value, priority.global_default) == ("high", 1000, True)
    assert (limits.namespace, limits.items) == ("ns", ({"type": "Container"},))


def test_models_are_hashable_despite_mapping_fields() -> None:
    assert len({cq({}), cq({})}) == 1
