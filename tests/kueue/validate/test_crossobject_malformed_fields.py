"""Cross-object checks (XO) skip what the schema already rejects: each malformed field below ends in exit 1
with the schema's finding at that field, never in an internal error (exit 70)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.validate.crossobject import cross_object_findings
from kqctl.load.objects import load_text
from tests.support import run_kqctl

WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: {}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
"""
CASES = {
    "cluster-queue-resource-group-without-flavors": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
        "spec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n",
        "SCHEMA-REQUIRED", "spec.resourceGroups[0].flavors"),
    "local-queue-cluster-queue-as-list": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ns}\n"
        "spec:\n  clusterQueue: [a]\n",
        "SCHEMA-TYPE", "spec.clusterQueue"),
    "queue-name-label-as-list": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: ns\n"
        "  labels: {kueue.x-k8s.io/queue-name: [a]}\n"
        "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: i}]\n",
        "SCHEMA-TYPE", "metadata.labels[kueue.x-k8s.io/queue-name]"),
    # Kueue's mutating webhook decodes a Workload before the schema sees it.
    "workload-queue-name-as-mapping": (WORKLOAD, "DEF-3-DECODE", "spec.queueName"),
    "admission-check-parameters-as-list": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: ac}\n"
        "spec:\n  controllerName: kueue.x-k8s.io/provisioning-request\n  parameters: [prov]\n",
        "SCHEMA-TYPE", "spec.parameters"),
    "admission-check-parameters-name-as-number": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: ac}\n"
        "spec:\n  controllerName: kueue.x-k8s.io/provisioning-request\n"
        "  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: 7}\n",
        "SCHEMA-TYPE", "spec.parameters.name"),
    "multikueue-config-clusters-as-string": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata: {name: mk}\n"
        "spec:\n  clusters: worker-1\n",
        "SCHEMA-TYPE", "spec.clusters"),
    "multikueue-config-cluster-as-mapping": (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata: {name: mk}\n"
        "spec:\n  clusters: [{name: worker-1}]\n",
        "SCHEMA-TYPE", "spec.clusters[0]"),
}


@pytest.mark.parametrize("manifest,rule,field", CASES.values(), ids=CASES.keys())
def test_malformed_field_read_by_cross_object_checks_is_a_schema_error_not_a_crash(
        tmp_path: Path, manifest: str, rule: str, field: str) -> None:
    path = tmp_path / "object.yaml"
    path.write_text(manifest)
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 1, run.err
    findings = [f for doc in json.loads(run.out)["documents"] for f in doc["findings"]]
    assert [(f["ruleId"], f["field"]) for f in findings if f["severity"] == "error"] == [(rule, field)]


MULTIKUEUE_AND_PROVISIONING = """apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prov-config}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: mk}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: mk-config}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: mk-config}
spec:
  clusters: [worker-1, worker-2]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: worker-1}
spec:
  clusterSource:
    kubeConfig: {locationType: Secret, location: worker-1-secret}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: prov-config}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
"""


def test_admission_check_parameter_checks_survive_a_wrong_type_in_every_field() -> None:
    # XO-AC-PARAMS and XO-MK-CLUSTER read the kinds no shipped sample has: the same wrong-type sweep as
    # test_crossobject_wrong_types, over these objects.
    from tests.kueue.validate.test_crossobject_wrong_types import WRONG_VALUES, field_paths, replaced

    objects = load_text(ALL_KINDS, MULTIKUEUE_AND_PROVISIONING, "mk.yaml").known_objects
    assert [f.rule_id for _, f in cross_object_findings(objects, closed=True)] == ["XO-MK-CLUSTER"]
    crashes: list[str] = []
    for position, obj in enumerate(objects):
        for path in field_paths(obj.body):
            if len(path) < 2 or path[0] in ("apiVersion", "kind"):
                continue
            for value in WRONG_VALUES:
                mutated = dataclasses.replace(obj, body=replaced(obj.body, path, value), findings=[])
                try:
                    cross_object_findings([*objects[:position], mutated, *objects[position + 1:]], closed=True)
                except Exception as exc:  # noqa: BLE001 - the point is that nothing escapes
                    crashes.append(f"{obj.describe()} {'.'.join(map(str, path))}={value!r}: {exc!r}")
    assert not crashes, "\n".join(crashes[:20])
