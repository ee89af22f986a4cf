"""Jobs, Pods and pod groups turned into the Workloads Kueue creates (REQ-1..REQ-6, XO-8, §2.9)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any

import yaml
from support import REPO

from kqctl.k8s.core import PriorityClass
from kqctl.k8s.pods import spec_requests
from kqctl.kueue.api.models import LocalQueue, Workload, WorkloadPriorityClass
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.jobs import (
    ConversionContext,
    created_workloads,
    dedupe,
    job_workload_name,
    pod_role_hash,
    pod_workload_name,
    role_hash,
    workload_from_job,
    workload_from_pod,
    workload_from_pod_group,
    workloads_from_jobs,
)

NS = "team-a"
QUEUE = "kueue.x-k8s.io/queue-name"
WPC = "kueue.x-k8s.io/priority-class"
CTX = ConversionContext(local_queues=frozenset({f"{NS}/team-a-queue"}))


def make_job(name: str = "sweep", *, uid: str = "job-uid-1", labels: dict[str, str] | None = None,
             annotations: dict[str, str] | None = None, suspend: bool | None = True, status: dict | None = None,
             pod_spec: dict | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS, "labels": {QUEUE: "team-a-queue", **(labels or {})}}
    if labels is not None and labels.get(QUEUE) == "":
        del meta["labels"][QUEUE]
    if uid:
        meta["uid"] = uid
        meta["creationTimestamp"] = "2026-09-14T09:00:00Z"
    if annotations:
        meta["annotations"] = annotations
    job_spec: dict[str, Any] = {**spec, "template": {"spec": pod_spec or {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}
    if suspend is not None:
        job_spec["suspend"] = suspend
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": job_spec}
    if status is not None:
        job["status"] = status
    return job


def pod_set(result: Any) -> dict[str, Any]:
    assert result.workload is not None, result.reason
    return result.workload["spec"]["podSets"][0]


def spec(result: Any) -> dict[str, Any]:
    assert result.workload is not None, result.reason
    return result.workload["spec"]


# --- REQ-2: the pod set ---------------------------------------------------------------------------


def test_req2_count_is_parallelism_capped_by_completions() -> None:
    assert pod_set(workload_from_job(make_job(parallelism=4, completions=8), CTX))["count"] == 4
    assert pod_set(workload_from_job(make_job(parallelism=4, completions=2), CTX))["count"] == 2


def test_req2_parallelism_defaults_to_one_even_with_more_completions() -> None:
    assert pod_set(workload_from_job(make_job(), CTX))["count"] == 1
    assert pod_set(workload_from_job(make_job(completions=5), CTX))["count"] == 1


def test_req2_single_pod_set_main_with_the_jobs_template_minus_job_controller_labels() -> None:
    job = make_job()
    job["spec"]["template"]["metadata"] = {"labels": {"app": "x", "controller-uid": "1", "job-name": "sweep",
                                                      "batch.kubernetes.io/job-name": "sweep"}}
    ps = pod_set(workload_from_job(job, CTX))
    assert ps["name"] == "main"
    assert ps["template"]["metadata"]["labels"] == {"app": "x", "batch.kubernetes.io/job-name": "sweep"}
    assert ps["template"]["spec"] == job["spec"]["template"]["spec"]
    # TopologyAwareScheduling (beta, on) always gives a Job's pod set its index label.
    assert ps["topologyRequest"] == {"podIndexLabel": "batch.kubernetes.io/job-completion-index"}


def test_req2_min_parallelism_annotation_becomes_min_count_for_partial_admission() -> None:
    job = make_job(parallelism=10, annotations={"kueue.x-k8s.io/job-min-parallelism": "2"})
    assert pod_set(workload_from_job(job, CTX))["minCount"] == 2
    assert "minCount" not in pod_set(workload_from_job(make_job(parallelism=10), CTX))


def test_val_job_2_min_parallelism_out_of_range_means_the_job_is_rejected_and_has_no_workload() -> None:
    job = make_job(parallelism=3, annotations={"kueue.x-k8s.io/job-min-parallelism": "3"})
    result = workload_from_job(job, CTX)
    assert result.status == "not-created" and result.workload is None
    assert "VAL-JOB-2" in result.reason and "between 0 and 2" in result.reason


def test_req2_max_exec_time_label_becomes_maximum_execution_time_seconds() -> None:
    job = make_job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "3600"})
    assert spec(workload_from_job(job, CTX))["maximumExecutionTimeSeconds"] == 3600
    assert "maximumExecutionTimeSeconds" not in spec(workload_from_job(make_job(), CTX))


def test_req2_queue_name_namespace_and_creation_time_come_from_the_job() -> None:
    result = workload_from_job(make_job(), CTX)
    assert result.workload is not None
    assert result.workload["metadata"]["namespace"] == NS
    assert result.workload["metadata"]["creationTimestamp"] == "2026-09-14T09:00:00Z"
    assert spec(result)["queueName"] == "team-a-queue"


def test_req2_only_the_job_uid_label_and_provisioning_annotations_are_copied() -> None:
    job = make_job(labels={"team": "vision"}, annotations={"provreq.kueue.x-k8s.io/maxRunDurationSeconds": "60",
                                                          "note": "x"})
    meta = workload_from_job(job, CTX).workload["metadata"]  # type: ignore[index]
    assert meta["labels"] == {"kueue.x-k8s.io/job-uid": "job-uid-1"}
    assert meta["annotations"] == {"provreq.kueue.x-k8s.io/maxRunDurationSeconds": "60"}
    assert meta["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep", "uid": "job-uid-1",
                                        "controller": True, "blockOwnerDeletion": True}]
    copying = ConversionContext(local_queues=CTX.local_queues, label_keys_to_copy=("team",))
    assert workload_from_job(job, copying).workload["metadata"]["labels"]["team"] == "vision"  # type: ignore[index]


def test_req2_the_workload_dict_reads_as_a_v1beta2_workload() -> None:
    job = make_job(parallelism=6, annotations={"kueue.x-k8s.io/job-min-parallelism": "2"})
    workload = Workload.from_v1beta2(workload_from_job(job, CTX).workload)  # type: ignore[arg-type]
    assert (workload.key, workload.queue_name, workload.priority) == (f"{NS}/job-sweep-{_sha1('sweep')}",
                                                                       "team-a-queue", 0)
    assert [(ps.name, ps.count, ps.min_count) for ps in workload.pod_sets] == [("main", 6, 2)]


# --- REQ-2: names -----------------------------------------------------------------------------------


def _sha1(name: str, uid: str = "job-uid-1") -> str:
    return hashlib.sha1(f"Job\nbatch\n{name}\n{uid}".encode()).hexdigest()[:5]


def test_req2_workload_name_is_job_name_plus_five_hex_of_sha1_hand_computed() -> None:
    # sha1("Job\nbatch\nresnet-sweep\n6f1c2a3e-1d2b-4c5d-9e8f-0a1b2c3d4e5f") = 9aa0d0d6ece4...
    assert job_workload_name("resnet-sweep", "6f1c2a3e-1d2b-4c5d-9e8f-0a1b2c3d4e5f") == "job-resnet-sweep-9aa0d"
    # Kueue's own test vector (workload_names_test.go): name "name", uid "uid".
    assert job_workload_name("name", "uid") == "job-name-ef3a1"


def test_req2_long_job_names_are_truncated_to_247_characters_before_the_hash() -> None:
    owner = ("marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social"
             "-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior"
             "-architect-validation-checked-approved-by-legal-and-ops-dept")
    name = job_workload_name(owner, "uid")
    assert len(name) == 253 and name.endswith("-approved-by-l-218b8")  # Kueue's vector


def test_req2_job_with_uid_gets_exact_name_and_without_uid_job_name_marked_inexact() -> None:
    exact = workload_from_job(make_job(), CTX)
    assert exact.workload_name == f"job-sweep-{_sha1('sweep')}" and exact.name_exact
    bare = workload_from_job(make_job(uid=""), CTX)
    assert bare.workload_name == "job-sweep" and not bare.name_exact
    assert bare.workload is not None and bare.workload["metadata"]["name"] == "job-sweep"
    assert "ownerReferences" not in bare.workload["metadata"]  # the schema requires an owner UID
    assert any("has no UID" in note for note in bare.notes)


# --- REQ-3: priority ----------------------------------------------------------------------------------


def test_req3_wpc_label_gives_its_value_and_a_workload_priority_class_ref() -> None:
    ctx = ConversionContext(local_queues=CTX.local_queues, workload_priority_classes={"urgent": 1000},
                            priority_classes={"pod-high": (500, False)})
    pod_spec = {"priorityClassName": "pod-high", "containers": [{"name": "c"}]}
    s = spec(workload_from_job(make_job(labels={WPC: "urgent"}, pod_spec=pod_spec), ctx))
    assert s["priority"] == 1000
    assert s["priorityClassRef"] == {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "urgent"}


def test_req3_wpc_named_default_applies_when_the_label_is_absent() -> None:
    ctx = ConversionContext(local_queues=CTX.local_queues, workload_priority_classes={"default": 50, "urgent": 1000})
    result = workload_from_job(make_job(), ctx)
    assert spec(result)["priority"] == 50 and spec(result)["priorityClassRef"]["name"] == "default"
    assert any("REQ-3" in note for note in result.notes)
    assert spec(workload_from_job(make_job(labels={WPC: "urgent"}), ctx))["priority"] == 1000


def test_req3_pod_priority_class_name_gives_the_priority_class_value() -> None:
    ctx = ConversionContext(local_queues=CTX.local_queues, priority_classes={"pod-high": (500, False),
                                                                            "fallback": (1, True)})
    s = spec(workload_from_job(make_job(pod_spec={"priorityClassName": "pod-high", "containers": []}), ctx))
    assert s["priority"] == 500
    assert s["priorityClassRef"] == {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "pod-high"}


def test_req3_global_default_priority_class_lowest_value_of_several() -> None:
    ctx = ConversionContext(local_queues=CTX.local_queues,
                            priority_classes={"a-default": (300, True), "b-default": (100, True), "other": (5, False)})
    s = spec(workload_from_job(make_job(), ctx))
    assert s["priority"] == 100 and s["priorityClassRef"]["name"] == "b-default"


def test_req3_priority_is_zero_without_any_class() -> None:
    s = spec(workload_from_job(make_job(), ConversionContext(local_queues=CTX.local_queues,
                                                             priority_classes={"other": (5, False)})))
    assert s["priority"] == 0 and "priorityClassRef" not in s


def test_xo8_job_labelled_with_a_missing_wpc_gets_no_workload_and_no_pod_class_fallback() -> None:
    ctx = ConversionContext(local_queues=CTX.local_queues, priority_classes={"pod-high": (500, False)})
    job = make_job(labels={WPC: "gone"}, pod_spec={"priorityClassName": "pod-high", "containers": []})
    result = workload_from_job(job, ctx)
    assert result.status == "not-created" and result.workload is None
    assert "XO-8" in result.reason and "'gone'" in result.reason
    assert created_workloads([result]) == []


def test_xo8_pod_priority_class_name_naming_a_missing_class_gets_no_workload() -> None:
    result = workload_from_job(make_job(pod_spec={"priorityClassName": "nope", "containers": []}), CTX)
    assert result.status == "not-created" and "PriorityClass 'nope' not found" in result.reason


# --- REQ-1: which Jobs are managed; suspended vs running ----------------------------------------------


def test_req1_missing_queue_label_defaults_to_the_local_queue_named_default() -> None:
    ctx = ConversionContext(local_queues=frozenset({f"{NS}/default"}))
    result = workload_from_job(make_job(labels={QUEUE: ""}), ctx)
    assert spec(result)["queueName"] == "default"
    assert any("REQ-1" in note for note in result.notes)


def test_req1_job_without_queue_label_and_no_default_local_queue_is_not_governed() -> None:
    result = workload_from_job(make_job(labels={QUEUE: ""}, suspend=False, status={"active": 1}), CTX)
    assert result.status == "not-governed" and result.workload is None
    assert result.running_unaccounted and "without quota accounting" in result.reason


def test_req1_jobs_in_kube_system_are_outside_managed_jobs_namespace_selector() -> None:
    job = make_job()
    job["metadata"]["namespace"] = "kube-system"
    assert workload_from_job(job, CTX).status == "not-governed"


def test_req1_suspended_job_is_a_pending_workload() -> None:
    result = workload_from_job(make_job(suspend=True), CTX)
    assert result.status == "created" and not result.running_unaccounted
    assert "status" not in result.workload  # type: ignore[operator]


def test_req1_submitted_manifest_is_suspended_by_the_webhook_and_queued() -> None:
    result = workload_from_job(make_job(uid="", suspend=None), CTX)
    assert result.status == "created" and not result.running_unaccounted
    assert any("suspend: true" in note for note in result.notes)


def test_req1_running_job_without_workload_is_reported_not_invented() -> None:
    running = make_job(suspend=False, status={"active": 2, "startTime": "2026-09-14T09:01:00Z"})
    result = workload_from_job(running, CTX)
    assert result.status == "not-created" and result.workload is None and result.running_unaccounted
    assert "no ClusterQueue accounts for" in result.reason
    # As Kueue would do if the Workload really does not exist: suspend the Job and queue a Workload.
    requeued = workload_from_job(running, ConversionContext(local_queues=CTX.local_queues, requeue_running_jobs=True))
    assert requeued.status == "created" and requeued.running_unaccounted
    assert any("suspends it" in note for note in requeued.notes)


def test_req1_finished_job_gets_no_workload() -> None:
    done = make_job(suspend=False, status={"conditions": [{"type": "Complete", "status": "True"}]})
    result = workload_from_job(done, CTX)
    assert result.status == "not-created" and "finished" in result.reason and not result.running_unaccounted


def test_req1_job_owned_by_a_kueue_integrated_controller_has_no_workload_of_its_own() -> None:
    job = make_job()
    job["metadata"]["ownerReferences"] = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                           "name": "js", "uid": "1", "controller": True}]
    result = workload_from_job(job, CTX)
    assert result.status == "not-created" and "JobSet/js" in result.reason


# --- REQ-5/REQ-6: the requests the engine computes from the Workload's template -----------------------


def _requests(pod_spec: dict[str, Any]) -> dict[str, int]:
    template_spec = pod_set(workload_from_job(make_job(parallelism=3, pod_spec=pod_spec), CTX))["template"]["spec"]
    return spec_requests(template_spec)


def test_req6_init_container_peak_reaches_the_workload_requests() -> None:
    assert _requests({"initContainers": [{"name": "i", "resources": {"requests": {"cpu": "4"}}}],
                      "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}) == {"cpu": 4000}


def test_req6_sidecar_adds_to_the_containers_in_the_workload_requests() -> None:
    pod_spec = {"initContainers": [{"name": "proxy", "restartPolicy": "Always",
                                    "resources": {"requests": {"cpu": "500m", "memory": "64Mi"}}}],
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
    assert _requests(pod_spec) == {"cpu": 1500, "memory": 1024**3 + 64 * 1024**2}


def test_req6_overhead_reaches_the_workload_requests() -> None:
    assert _requests({"overhead": {"cpu": "250m"},
                      "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}) == {"cpu": 1250}


def test_req5_limits_stand_in_for_missing_requests_in_the_workload() -> None:
    assert _requests({"containers": [{"name": "c", "resources": {"limits": {"cpu": "2", "nvidia.com/gpu": "1"}}}]}) \
        == {"cpu": 2000, "nvidia.com/gpu": 1}


def test_req2_duplicate_env_vars_are_collapsed_as_kueue_sanitizes_pod_sets() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "A", "value": "3"}]
    ps = pod_set(workload_from_job(make_job(pod_spec={"containers": [{"name": "c", "env": env}]}), CTX))
    assert ps["template"]["spec"]["containers"][0]["env"] == [{"name": "A", "value": "3"}, {"name": "B", "value": "2"}]


# --- Pods and pod groups ----------------------------------------------------------------------------


def make_pod(name: str, *, uid: str = "", cpu: str = "1", group: str = "", total: int = 0,
             gated: bool = False, phase: str = "", queue: str = "team-a-queue") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS, "labels": {QUEUE: queue} if queue else {}}
    if uid:
        meta["uid"] = uid
    if group:
        meta["labels"]["kueue.x-k8s.io/pod-group-name"] = group
        meta["annotations"] = {"kueue.x-k8s.io/pod-group-total-count": str(total)}
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if gated:
        pod_spec["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    if phase:
        pod["status"] = {"phase": phase}
    return pod


def test_pod_single_pod_workload_named_pod_name_hash_with_pod_set_main_count_one() -> None:
    result = workload_from_pod(make_pod("web-0", uid="pod-uid-1", gated=True), CTX)
    # sha1("Pod\n\nweb-0\npod-uid-1") = cfd8a692...: the core group is the empty string.
    assert result.workload_name == pod_workload_name("web-0", "pod-uid-1") == "pod-web-0-cfd8a"
    ps = pod_set(result)
    assert (ps["name"], ps["count"], set(ps["template"])) == ("main", 1, {"spec"})
    assert ps["topologyRequest"] == {"podIndexLabel": "kueue.x-k8s.io/pod-group-pod-index"}
    assert result.workload["metadata"]["ownerReferences"][0]["kind"] == "Pod"  # type: ignore[index]


def test_pod_submitted_manifest_is_gated_by_the_webhook() -> None:
    ps = pod_set(workload_from_pod(make_pod("web-0"), CTX))
    assert {"name": "kueue.x-k8s.io/admission"} in ps["template"]["spec"]["schedulingGates"]


def test_pod_running_ungated_without_workload_is_not_invented() -> None:
    result = workload_from_pod(make_pod("web-0", uid="u", phase="Running"), CTX)
    assert result.status == "not-created" and result.running_unaccounted and "deletes" in result.reason


def test_pod_role_hash_matches_kueues_test_vectors() -> None:
    # pod_webhook_test.go / pod_controller_test.go: testingpod.MakePod with empty and with cpu=1 requests.
    assert role_hash({"containers": [{"name": "c", "resources": {"requests": {}, "limits": {}}}]}) == "a9f06f3a"
    assert role_hash({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1000m"}}}]}) == "dc85db45"


def test_pod_role_hash_prefers_the_webhooks_annotation_and_sees_requests_defaulted_from_limits() -> None:
    annotated = make_pod("a", uid="1")
    annotated["metadata"]["annotations"] = {"kueue.x-k8s.io/role-hash": "feedbeef"}
    assert pod_role_hash(annotated, CTX) == ("feedbeef", True)
    by_limits = make_pod("b")
    by_limits["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    assert pod_role_hash(by_limits, CTX) == pod_role_hash(make_pod("c", cpu="1000m"), CTX)
    assert pod_role_hash(make_pod("c"), CTX)[1]  # nothing approximate in a plain pod


def test_pod_owned_by_a_job_is_admitted_through_the_job_not_on_its_own() -> None:
    pod = make_pod("sweep-abcde", uid="1", gated=True)
    pod["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep", "uid": "2",
                                           "controller": True}]
    result = workload_from_pod(pod, CTX)
    assert result.status == "not-created" and "Job/sweep" in result.reason


def test_pod_group_one_workload_named_after_the_group_with_a_pod_set_per_shape() -> None:
    pods = [make_pod("w0", uid="1", cpu="1", group="g", total=3, gated=True),
            make_pod("w1", uid="2", cpu="1", group="g", total=3, gated=True),
            make_pod("driver", uid="3", cpu="2", group="g", total=3, gated=True)]
    pods[2]["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = "00driver"
    result = workload_from_pod_group(pods, CTX)
    assert result.status == "created" and result.workload_name == "g"
    sets = [(ps["name"], ps["count"]) for ps in spec(result)["podSets"]]
    assert sets[0] == ("00driver", 1) and sets[1][1] == 2  # sorted by role hash
    meta = result.workload["metadata"]  # type: ignore[index]
    assert meta["annotations"] == {"kueue.x-k8s.io/is-group-workload": "true"}
    assert [o["name"] for o in meta["ownerReferences"]] == ["w0", "w1", "driver"]


def test_pod_group_waits_for_all_members_and_fast_admission_does_not() -> None:
    pods = [make_pod("w0", uid="1", group="g", total=3, gated=True)]
    result = workload_from_pod_group(pods, CTX)
    assert result.status == "not-created" and "fewer runnable pods than expected" in result.reason
    pods[0]["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-fast-admission"] = "true"
    assert [(ps["count"]) for ps in spec(workload_from_pod_group(pods, CTX))["podSets"]] == [3]


def test_pod_group_members_must_share_the_queue_name() -> None:
    pods = [make_pod("w0", uid="1", group="g", total=2, gated=True),
            make_pod("w1", uid="2", group="g", total=2, gated=True, queue="other")]
    result = workload_from_pod_group(pods, CTX)
    assert result.status == "not-created" and "different queue names" in result.reason


def test_workloads_from_jobs_converts_jobs_single_pods_and_groups_in_input_order() -> None:
    objects = [make_job("a"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
               make_pod("g0", uid="1", group="g", total=2, gated=True), make_pod("solo", uid="9", gated=True),
               make_pod("g1", uid="2", group="g", total=2, gated=True)]
    results = workloads_from_jobs(objects, CTX)
    assert [(r.kind, r.name, r.status) for r in results] == [
        ("Job", "a", "created"), ("PodGroup", "g", "created"), ("Pod", "solo", "created")]
    assert results[1].members == ("g0", "g1")


# --- matching with Workloads already in the inputs -----------------------------------------------------


def _existing(name: str, owners: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS}
    if owners is not None:
        meta["ownerReferences"] = owners
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta,
            "spec": {"queueName": "team-a-queue", "podSets": [{"name": "main", "count": 1}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True"}]}}


def test_dedupe_existing_workload_owned_by_the_job_wins() -> None:
    converted = [workload_from_job(make_job("sweep", uid=""), CTX)]
    owned = _existing("whatever", [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep", "uid": "x",
                                    "controller": True}])
    [result] = dedupe(converted, [owned])
    assert result.status == "existing" and result.workload is None and result.matched_workload == f"{NS}/whatever"
    assert created_workloads([result]) == []


def test_dedupe_matches_on_the_computed_name_and_not_on_another_jobs_uid() -> None:
    converted = [workload_from_job(make_job("sweep"), CTX)]
    by_name = _existing(job_workload_name("sweep", "job-uid-1"))
    assert dedupe(converted, [by_name])[0].status == "existing"
    orphan = _existing("old", [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep", "uid": "previous-job"}])
    assert dedupe(converted, [orphan])[0].status == "created"


def test_dedupe_notes_when_the_job_no_longer_matches_its_workload() -> None:
    converted = [workload_from_job(make_job("sweep", parallelism=4), CTX)]
    [result] = dedupe(converted, [_existing(job_workload_name("sweep", "job-uid-1"))])
    assert result.status == "existing" and any("EquivalentToWorkload" in note for note in result.notes)


def test_dedupe_running_job_with_its_workload_is_no_longer_unaccounted() -> None:
    converted = [workload_from_job(make_job("sweep", suspend=False, status={"active": 1}), CTX)]
    assert converted[0].running_unaccounted
    [result] = dedupe(converted, [_existing(job_workload_name("sweep", "job-uid-1"))])
    assert result.status == "existing" and not result.running_unaccounted


def test_dedupe_pod_group_matches_the_workload_named_after_the_group() -> None:
    pods = [make_pod("w0", uid="1", group="g", total=1, gated=True)]
    [result] = dedupe(workloads_from_jobs(pods, CTX), [_existing("g")])
    assert result.status == "existing"


# --- wiring: context from a snapshot, and the shipped sample ----------------------------------------


def test_context_from_snapshot_reads_local_queues_priority_classes_and_the_clock() -> None:
    snapshot = Snapshot(now=datetime(2026, 9, 14, 10, tzinfo=timezone.utc))
    snapshot.local_queues[f"{NS}/default"] = LocalQueue(NS, "default", "cq", "None", 1.0)
    snapshot.workload_priority_classes["urgent"] = WorkloadPriorityClass("urgent", 1000)
    snapshot.priority_classes["base"] = PriorityClass("base", 7, True)
    ctx = ConversionContext.from_snapshot(snapshot)
    assert ctx.default_creation_timestamp == "2026-09-14T10:00:00Z"
    result = workload_from_job(make_job(uid="", labels={QUEUE: ""}), ctx)
    assert spec(result)["queueName"] == "default" and spec(result)["priority"] == 7
    assert result.workload["metadata"]["creationTimestamp"] == "2026-09-14T10:00:00Z"  # type: ignore[index]


def test_sample_submit_jobs_become_the_workloads_its_header_lists() -> None:
    objects = [o for path in sorted((REPO / "samples").glob("*/*.yaml"))
               if path.parent.name in ("cohort-borrowing", "submit-jobs") for o in yaml.safe_load_all(path.read_text())]
    ctx = ConversionContext(
        local_queues=frozenset(f"{o['metadata']['namespace']}/{o['metadata']['name']}"
                               for o in objects if o["kind"] == "LocalQueue"),
        workload_priority_classes={o["metadata"]["name"]: o["value"]
                                   for o in objects if o["kind"] == "WorkloadPriorityClass"})
    results = dedupe(workloads_from_jobs(objects, ctx), [o for o in objects if o["kind"] == "Workload"])
    got = {r.workload_name: (pod_set(r)["count"], pod_set(r).get("minCount"), spec(r)["priority"],
                             spec_requests(pod_set(r)["template"]["spec"])) for r in results}
    gib = 1024**3
    assert got == {
        "job-embedding-backfill-cff1f": (4, None, 100, {"cpu": 2000, "memory": 8 * gib}),
        "job-ablation-study-13c6a": (6, 2, 100, {"cpu": 2000, "memory": 4 * gib + 512 * 1024**2}),
        "job-eval-nightly-87b27": (1, None, 0, {"cpu": 1000, "memory": 4 * gib}),
        "job-tokenizer-train": (1, None, 1000, {"cpu": 4000, "memory": 16 * gib}),
    }


def test_a_job_or_pod_naming_a_prebuilt_workload_gets_none_created_and_points_at_it() -> None:
    prebuilt = "kueue.x-k8s.io/prebuilt-workload-name"
    job = workload_from_job(make_job(annotations={prebuilt: "my-wl"}), CTX)
    pod = make_pod("web-0", uid="pod-uid-1", gated=True)
    pod["metadata"]["labels"][prebuilt] = "pod-wl"
    from_pod = workload_from_pod(pod, CTX)
    for result, name in ((job, "my-wl"), (from_pod, "pod-wl")):
        assert (result.status, result.workload_name, result.name_exact) == ("not-created", name, True)
        assert result.workload is None
        assert f"uses the prebuilt Workload {NS}/{name}" in result.reason
