"""validate answers as the API server does for what it does not serve (no matches for kind), covers
every Kueue CRD, and ignores status on create."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
Write = Callable[[str, str], str]


def _findings(kqctl: Kq, path: str) -> list[dict[str, Any]]:
    report = json.loads(kqctl("validate", path, "-o", "json").out)
    return [f for doc in report["documents"] for f in doc["findings"]]


@pytest.mark.parametrize("kind,hint", [
    ("clusterqueue", "did you mean ClusterQueue?"),
    ("ClusterQueues", "did you mean ClusterQueue?"),
    ("ClusterQeue", "did you mean ClusterQueue?"),
    ("Nonsense", "the kinds of kueue.x-k8s.io:"),
])
def test_a_kind_kueue_does_not_serve_is_no_matches_for_kind(kqctl: Kq, write: Write, kind: str, hint: str) -> None:
    path = write("x.yaml", f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: {kind}\nmetadata: {{name: a}}\n")
    run = kqctl("validate", path)
    found = _findings(kqctl, path)
    assert run.code == 1
    assert found[0]["ruleId"] == "LOAD-NO-MATCH" and found[0]["severity"] == "error"
    assert f'no matches for kind "{kind}" in version "kueue.x-k8s.io/v1beta2"' in found[0]["message"]
    assert hint in found[0]["hint"]


def test_an_unserved_version_names_the_served_ones(kqctl: Kq, write: Write) -> None:
    path = write("x.yaml", "apiVersion: kueue.x-k8s.io/v1beta3\nkind: ClusterQueue\nmetadata: {name: a}\n")
    finding = _findings(kqctl, path)[0]
    assert finding["ruleId"] == "LOAD-VERSION"
    assert "served as kueue.x-k8s.io/v1beta2 and kueue.x-k8s.io/v1beta1" in finding["hint"]


def test_a_v1alpha1_cluster_queue_is_an_error_in_validate_with_a_convert_hint(kqctl: Kq) -> None:
    sample = "samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml"
    found = [f for f in _findings(kqctl, sample) if f["ruleId"] == "LEG-VERSION"]
    assert found and all(f["severity"] == "error" for f in found)
    assert 'no matches for kind "ClusterQueue" in version "kueue.x-k8s.io/v1alpha1"' in " ".join(
        f["message"] for f in found)
    assert f"kqctl convert -f {sample} --to v1beta2" in found[0]["hint"]
    refused = kqctl("simulate", sample)  # validate's verdict is simulate's: refused, with the same hint
    assert refused.code == 3 and "LEG-VERSION" in refused.err and "kqctl convert -f" in refused.err
    assert kqctl("simulate", sample, "--as-given").code == 0  # as written: read through the conversion


def test_status_is_ignored_on_create(kqctl: Kq, write: Write) -> None:
    workload = (REPO / "samples" / "cohort-borrowing" / "workloads.yaml").read_text().split("\n---\n")[0]
    bad_status = (workload.split("\nstatus:", 1)[0]
                  + "\nstatus:\n  admission:\n    clusterQueue: Not_A_Name\n    podSetAssignments: []\n")
    path = write("w.yaml", bad_status)
    found = [f for f in _findings(kqctl, path) if f["field"].startswith("status")]
    assert found and all(f["severity"] == "info" for f in found)
    assert all("status is ignored when the object is created" in f["message"] for f in found)
    assert kqctl("validate", path).code == 0


MULTIKUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prov-config}
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
metadata: {name: other}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  managedResourcess: [nvidia.com/gpu]
"""


def test_multikueue_and_provisioning_kinds_are_validated(kqctl: Kq, write: Write) -> None:
    found = {(f["ruleId"], f["field"]) for f in _findings(kqctl, write("mk.yaml", MULTIKUEUE))}
    assert ("XO-AC-PARAMS", "spec.parameters.name") in found
    assert ("XO-MK-CLUSTER", "spec.clusters[1]") in found
    assert ("SCHEMA-UNKNOWN-FIELD", "spec.managedResourcess") in found
    assert not any(rule == "LOAD-SKIPPED" for rule, _ in found)


def test_unique_clusters_cel_rule_of_multikueue_config(kqctl: Kq, write: Write) -> None:
    text = MULTIKUEUE.replace("[worker-1, worker-2]", "[worker-1, worker-1]")
    found = {(f["ruleId"], f["message"]) for f in _findings(kqctl, write("mk.yaml", text))}
    assert ("CEL-RULE", 'Invalid value: "array": must be unique') in found
