"""validate --kueue-version, --volcano-version, --yunikorn-version: the CRDs and webhook rules of the release the
cluster runs (kubeconform's -kubernetes-version), each difference from the reference tested by its rule ID."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from support import run_kqctl

from kqctl.cli.schedulers import SCHEDULERS
from kqctl.validate.schema import load_schema

WORKLOAD = "kueue.x-k8s.io/v1beta2"


def workload(topology: dict[str, Any] | None = None, requests: dict[str, Any] | None = None,
             limits: dict[str, Any] | None = None, pod_sets: int = 1) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "resources": {"requests": requests or {"cpu": "1"}}}
    if limits:
        container["resources"]["limits"] = limits
    pod_set: dict[str, Any] = {"count": 1, "template": {"spec": {"containers": [container]}}}
    if topology:
        pod_set["topologyRequest"] = topology
    return {"apiVersion": WORKLOAD, "kind": "Workload", "metadata": {"name": "w", "namespace": "ns"},
            "spec": {"queueName": "lq", "podSets": [{**pod_set, "name": f"ps{i}"} for i in range(pod_sets)]}}


def findings(tmp_path: Path, body: dict[str, Any], *flags: str) -> list[tuple[str, str]]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump(body))
    run = run_kqctl("validate", str(path), "-o", "json", *flags)
    assert run.code in (0, 1), run.err
    return [(f["ruleId"], f["severity"]) for d in json.loads(run.out)["documents"] for f in d["findings"]
            if not f["ruleId"].startswith("XO-")]


def test_every_shipped_release_has_its_schemas_and_says_what_differs() -> None:
    for name, scheduler in SCHEDULERS.items():
        table = scheduler.releases()
        assert sum(r.reference for r in table.releases) == 1, name
        for release in table.releases:
            assert release.reference or release.differences, (name, release.version)
            if release.schema is not None:  # every patched kind loads
                from kqctl.validate.schema import _release

                for key in _release(release.schema)["patches"]:
                    api_version, kind = key.rsplit("/", 1)
                    assert load_schema(api_version, kind, release.schema) is not None
    kueue = [r.version for r in SCHEDULERS["kueue"].releases().releases if not r.reference]
    assert len({version.rsplit(".", 1)[0] for version in kueue}) >= 3  # the last three minor releases


def test_release_schemas_are_the_released_crds() -> None:
    pod_sets = lambda release: load_schema(WORKLOAD, "Workload", release)["properties"]["spec"][  # noqa: E731
        "properties"]["podSets"]["maxItems"]
    assert (pod_sets(None), pod_sets("kueue-v0.19.2"), pod_sets("kueue-v0.18.6"), pod_sets("kueue-v0.17.8")) == \
        (18, 18, 10, 8)
    cq = load_schema(WORKLOAD, "ClusterQueue", "kueue-v0.17.8")
    assert "concurrentAdmissionPolicy" not in cq["properties"]["spec"]["properties"]
    assert "concurrentAdmissionPolicy" in load_schema(WORKLOAD, "ClusterQueue")["properties"]["spec"]["properties"]


def test_val_wl_17_a_negative_sub_group_count_by_release(tmp_path: Path) -> None:
    body = workload(topology={"subGroupCount": -1})
    assert findings(tmp_path, body) == [("SCHEMA-RANGE", "error")]  # the reference's CRD: minimum 0
    assert findings(tmp_path, body, "--kueue-version", "v0.19") == [("VAL-WL-17", "warning")]
    assert findings(tmp_path, body, "--kueue-version", "v0.18") == []  # accepted silently


def test_pod_set_count_limit_by_release(tmp_path: Path) -> None:
    body = workload(pod_sets=9)
    assert findings(tmp_path, body, "--kueue-version", "0.18.6") == []
    assert findings(tmp_path, body, "--kueue-version", "v0.17.8") == [("SCHEMA-ITEMS", "error")]


def test_v0_17_lacks_the_later_webhook_rules(tmp_path: Path) -> None:
    negative = workload(requests={"cpu": "-1"})
    assert ("VAL-WL-6", "error") in findings(tmp_path, negative)
    assert findings(tmp_path, negative, "--kueue-version", "v0.17") == []
    pods_limit = workload(limits={"pods": "1"})
    assert findings(tmp_path, pods_limit, "--kueue-version", "v0.18") == [("VAL-WL-5", "error")]
    assert findings(tmp_path, pods_limit, "--kueue-version", "v0.17") == []  # v0.17 read requests only
    pods_request = workload(requests={"pods": "1"})
    assert findings(tmp_path, pods_request, "--kueue-version", "v0.17") == [("VAL-WL-5", "error")]


def test_v0_17_serves_no_concurrent_admission_policy(tmp_path: Path) -> None:
    cq = {"apiVersion": WORKLOAD, "kind": "ClusterQueue", "metadata": {"name": "cq"},
          "spec": {"namespaceSelector": {}, "concurrentAdmissionPolicy": {"migration": {"mode": "Never"}}}}
    assert ("SCHEMA-UNKNOWN-FIELD", "error") in findings(tmp_path, cq, "--kueue-version", "v0.17")
    assert ("SCHEMA-UNKNOWN-FIELD", "error") not in findings(tmp_path, cq)


def test_volcano_v1_15_pod_templates(tmp_path: Path) -> None:
    job = yaml.safe_load_all(Path("samples/volcano-hierarchy/jobs.yaml").read_text())
    vcjob = next(d for d in job if d and d.get("kind") == "Job")
    vcjob["spec"]["tasks"][0]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "g"}
    assert ("SCHEMA-UNKNOWN-FIELD", "error") in findings(tmp_path, vcjob, "--volcano-version", "v1.15.1")
    assert ("SCHEMA-UNKNOWN-FIELD", "error") not in findings(tmp_path, vcjob)


QUEUES = """partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            properties: {quota.preemption.delay: 10s}
          - name: b
            properties: {preemption.quota.delay: 10s}
"""


def test_yk_v23_the_quota_preemption_delay_key_by_release(tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text(QUEUES)

    def unknown(*flags: str) -> list[str]:
        run = run_kqctl("validate", "--scheduler", "yunikorn", str(path), "-o", "json", *flags)
        return [f["field"].rsplit("[", 1)[-1].rstrip("]") for d in json.loads(run.out)["documents"]
                for f in d["findings"] if f["ruleId"] == "YK-V23"]

    assert unknown() == ["preemption.quota.delay"]
    assert unknown("--yunikorn-version", "v1.8.0") == ["quota.preemption.delay"]


def test_an_unshipped_version_is_a_usage_error_naming_the_shipped_ones(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump(workload()))
    run = run_kqctl("validate", str(path), "--kueue-version", "v0.12")
    assert run.code == 2 and "kqctl ships v0.20.0-devel (the default), v0.19.2, v0.18.6, v0.17.8" in run.err
    other_patch = run_kqctl("validate", str(path), "--kueue-version", "v0.19.0")
    assert "checked against v0.19.2, the 0.19 release kqctl ships" in other_patch.err


def test_the_parallel_split_checks_the_same_release(tmp_path: Path) -> None:
    for i in range(3):
        body = workload(topology={"subGroupCount": -1})
        body["metadata"]["name"] = f"w{i}"
        (tmp_path / f"w{i}.yaml").write_text(yaml.safe_dump(body))
    args = ("validate", "-R", str(tmp_path), "-o", "json", "--kueue-version", "v0.19")
    serial = run_kqctl(*args, "-j", "1")
    with mock.patch("kqctl.validate.parallel.PARALLEL_MIN_BYTES", 0):
        parallel = run_kqctl(*args, "-j", "2")
    assert json.loads(serial.out) == json.loads(parallel.out)
    assert [f["ruleId"] for d in json.loads(parallel.out)["documents"] for f in d["findings"]].count("VAL-WL-17") == 3


def test_version_lists_the_releases_validate_checks_against() -> None:
    text = run_kqctl("version").out
    assert "validate --kueue-version: v0.20.0-devel (default), v0.19.2, v0.18.6, v0.17.8" in text
    assert "validate --volcano-version: v1.16.0-devel (default), v1.15.1" in text
    assert "validate --yunikorn-version: master-be3bb487 (default), v1.8.0" in text
    wide = run_kqctl("version", "-o", "wide").out
    assert "v0.19.2: VAL-WL-17" in wide
    body = json.loads(run_kqctl("version", "-o", "json").out)
    releases = body["schedulers"]["kueue"]["validateReleases"]
    assert [r["version"] for r in releases] == ["v0.20.0-devel", "v0.19.2", "v0.18.6", "v0.17.8"]
    assert releases[0]["default"] and not releases[1]["default"]


@pytest.mark.parametrize("flag", ["--kueue-version", "--volcano-version", "--yunikorn-version"])
def test_each_version_flag_is_listed_in_validate_help(flag: str) -> None:
    assert flag in run_kqctl("validate", "--help").out
