"""The API server drops ``status`` when it creates an object with a status subresource, before its schema,
CEL rules and validating webhooks see it: validate reports what is wrong there as information only. Kueue's
mutating webhooks run before that and deny a status they cannot decode (DEF-3-DECODE), which stays an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import run_kqctl

CLUSTER_QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: 1}]
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers: [{name: c, image: i}]
"""
MULTIKUEUE_CLUSTER = """apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: m}
spec:
  clusterSource:
    kubeConfig: {locationType: Secret, location: s}
"""
LOCAL_QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
"""
ADMISSION_CHECK = """apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: ac}
spec: {controllerName: example.com/c}
"""
NAMESPACE = """apiVersion: v1
kind: Namespace
metadata: {name: ns}
"""


def _findings(tmp_path: Path, text: str) -> tuple[int, list[dict[str, Any]]]:
    path = tmp_path / "objects.yaml"
    path.write_text(text)
    run = run_kqctl("validate", str(path), "-o", "json")
    report = json.loads(run.out)
    return run.code, [f for doc in report["documents"] for f in doc["findings"]]


@pytest.mark.parametrize("manifest,status", [
    (CLUSTER_QUEUE, "status:\n  conditions: [{type: Active}]\n"),  # conditions lack required fields
    (JOB, "status: {active: many}\n"),
    (POD, "status: {phase: 7}\n"),
    (MULTIKUEUE_CLUSTER, "status: {conditions: nope}\n"),
    (LOCAL_QUEUE, "status:\n  conditions: [{type: Active}]\n"),
    (ADMISSION_CHECK, "status:\n  conditions: [{type: Active}]\n"),
    (NAMESPACE, "status: {phase: [Active]}\n"),
], ids=["ClusterQueue", "Job", "Pod", "MultiKueueCluster", "LocalQueue", "AdmissionCheck", "Namespace"])
def test_schema_errors_in_status_are_information_on_create(tmp_path: Path, manifest: str, status: str) -> None:
    code, findings = _findings(tmp_path, manifest + status)
    in_status = [f for f in findings if f["field"].startswith("status")]
    assert in_status, "the status problem is still reported"
    assert all(f["severity"] == "info" and "status is ignored" in f["message"] for f in in_status)
    assert not [f for f in findings if f["severity"] == "error"]
    assert code == 0


def test_a_malformed_status_does_not_hide_a_cel_error_in_spec(tmp_path: Path) -> None:
    # CEL (the flavor's resources must match coveredResources) still runs on the object without its status.
    broken_spec = CLUSTER_QUEUE.replace("[{name: cpu, nominalQuota: 1}]", "[{name: memory, nominalQuota: 1}]")
    code, findings = _findings(tmp_path, broken_spec + "status:\n  conditions: [{type: Active}]\n")
    errors = [f for f in findings if f["severity"] == "error"]
    assert errors and all(f["field"].startswith("spec") for f in errors)
    assert code == 1


def test_a_status_kueues_mutating_webhook_cannot_decode_is_denied(tmp_path: Path) -> None:
    # DEF-3-DECODE: the mutating webhook decodes the whole request, status included, before it is dropped.
    code, findings = _findings(tmp_path, CLUSTER_QUEUE + "status: {pendingWorkloads: many}\n")
    assert [f["ruleId"] for f in findings if f["severity"] == "error"] == ["DEF-3-DECODE"]
    assert code == 1


@pytest.mark.parametrize("manifest", [
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: pc}\nvalue: 5\n",
    "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: ns}\nspec: {limits: []}\n",
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: rf}\n",
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: w}\nvalue: 1\n",
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata: {name: mk}\nspec: {clusters: [a]}\n",
], ids=["PriorityClass", "LimitRange", "ResourceFlavor", "WorkloadPriorityClass", "MultiKueueConfig"])
def test_status_of_a_kind_without_status_is_an_unknown_field(tmp_path: Path, manifest: str) -> None:
    code, findings = _findings(tmp_path, manifest + "status: {}\n")
    assert [(f["ruleId"], f["field"]) for f in findings if f["severity"] == "error"] == [
        ("SCHEMA-UNKNOWN-FIELD", "status")]
    assert not [f for f in findings if "status is ignored" in f["message"]]
    assert code == 1


NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
"""


@pytest.mark.parametrize("status,errors", [
    ("status: {allocatable: {cpu: '4', memory: abc}}\n", [("SCHEMA-PATTERN", "status.allocatable.memory")]),
    ("status: {capacity: {cpu: four}}\n", [("SCHEMA-PATTERN", "status.capacity.cpu")]),
    ("status: {allocatable: {cpu: 4, memory: 16Gi, pods: '110'}}\n", []),
    ("status: {phase: [Running]}\n", []),  # the rest of a Node's status stays information
])
def test_a_nodes_capacity_and_allocatable_are_stored_on_create(tmp_path: Path, status: str,
                                                                errors: list[tuple[str, str]]) -> None:
    # The kubelet creates its Node with status: the quantities the schedulers' snapshots read must parse
    # (simulate refuses the input otherwise, exit 3), so validate says so as a located error.
    code, findings = _findings(tmp_path, NODE + status)
    assert [(f["ruleId"], f["field"]) for f in findings if f["severity"] == "error"] == errors
    assert all(f["line"] == 4 for f in findings)
    assert code == (1 if errors else 0)
    if errors and "allocatable" in status:
        assert run_kqctl("simulate", str(tmp_path / "objects.yaml")).code == 3
