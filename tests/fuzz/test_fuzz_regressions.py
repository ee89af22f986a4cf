"""Inputs the fuzz test found, kept as fixed examples: validate and simulate agree on what decodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzz_inprocess import run_kqctl

from kqctl.errors import EXIT_INTERNAL, EXIT_OK

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
FLAVOR = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}
CLUSTER_QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
                 "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                     {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}]}}
LOCAL_QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
               "metadata": {"name": "lq", "namespace": "team-a"}, "spec": {"clusterQueue": "cq"}}


def workload(**status: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "team-a"},
        "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
            {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
    if status:
        body["status"] = status
    return body


ADMITTED_WITH_NULL_USAGE = workload(admission={"clusterQueue": "cq", "podSetAssignments": [
    {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1", "memory": None}}]})


@pytest.mark.parametrize("changed", [
    # A null label value is the label with value "" (Go's JSON decoder), not an undecodable object.
    {**NAMESPACE, "metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": None}}},
    # A null quantity decodes to zero, as resource.Quantity does.
    ADMITTED_WITH_NULL_USAGE,
], ids=["null-label-value", "null-quantity-in-resource-usage"])
def test_what_validate_accepts_simulate_can_read(tmp_path: Path, changed: dict[str, Any]) -> None:
    documents = [d for d in (NAMESPACE, FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE, workload()) if d["kind"] != changed["kind"]]
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*documents, changed]}))
    validated = run_kqctl("validate", str(path))
    assert validated.code == EXIT_OK, validated.out + validated.err
    simulated = run_kqctl("simulate", str(path), "--now", "2026-01-01T00:00:00Z")
    assert simulated.code == EXIT_OK, simulated.err


LEGACY_CLUSTER_QUEUE_WITH_A_LIST_AS_FLAVOR_NAME = """\
apiVersion: kueue.x-k8s.io/v1alpha1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resources:
  - name: cpu
    flavors: [{name: [x], quota: {min: "8"}}]
  - name: memory
    flavors: [{name: {a: 1}, quota: {min: 32Gi}}]
"""


@pytest.mark.parametrize("command, rejects", [("validate", True), ("simulate", True), ("convert", True)])
def test_a_legacy_flavor_name_that_is_not_a_string_is_an_error_not_a_crash(tmp_path: Path, command: str,
                                                                           rejects: bool) -> None:
    path = tmp_path / "legacy.yaml"
    path.write_text(LEGACY_CLUSTER_QUEUE_WITH_A_LIST_AS_FLAVOR_NAME)
    args = ["convert", "-f", str(path), "--to", "v1beta2"] if command == "convert" else [command, str(path)]
    run = run_kqctl(*args)
    assert run.code != EXIT_INTERNAL, run.err
    assert "Traceback" not in run.err
    # every command refuses what validate rejects: convert too (the object it would write could not be created)
    assert (run.code != EXIT_OK) is rejects


@pytest.mark.parametrize("tolerations", [0.25, 7, "x", {"key": "a"}, True])
def test_tolerations_that_are_not_a_list_do_not_crash_the_engine(tmp_path: Path, tolerations: Any) -> None:
    odd = workload()
    odd["spec"]["podSets"][0]["template"]["spec"]["tolerations"] = tolerations
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [NAMESPACE, FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE, odd]}))
    assert run_kqctl("validate", str(path)).code == 1  # the API server would refuse it
    for args in (["simulate", str(path)], ["explain", "team-a/w", str(path)]):
        run = run_kqctl(*args, "--now", "2026-01-01T00:00:00Z")
        assert run.code != EXIT_INTERNAL, run.err
