"""One verdict for every command: what validate rejects in the fields the engine reads, simulate,
explain and audit refuse (exit 3, located) instead of simulating; what Kueue decodes, every command
reads the same way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = REPO / "samples" / "cohort-borrowing"
WORKLOAD = (SAMPLE / "workloads.yaml").read_text().split("\n---\n")[-1]  # team-b/job-model-eval-6a0f3
KEY = "team-b/job-model-eval-6a0f3"

REFUSED = [
    ("request-not-a-quantity", 'cpu: "2"', "cpu: abc"),
    ("negative-request", 'cpu: "2"', 'cpu: "-2"'),
    ("negative-count", "count: 1", "count: -1"),
    ("priority-beyond-int32", "priority: 100", "priority: 3000000000"),
    ("min-count-above-count", "count: 1", "count: 1\n    minCount: 3"),
    # DEF-3: Kueue's Workload webhook decodes these (Go's quantity parser reads "." and "-" as 0 and trims
    # spaces) but sends no patch, as its Default() changes nothing: the schema's quantity pattern refuses them.
    ("dot-is-not-a-quantity", 'cpu: "2"', 'cpu: "."'),
    ("dash-is-not-a-quantity", 'cpu: "2"', 'cpu: "-"'),
    ("trailing-space", 'cpu: "2"', 'cpu: "2 "'),
]
# The ClusterQueue webhook adds its finalizer to a new ClusterQueue, so its patch carries the re-encoded
# quantities ("." -> "0", "2 " -> "2", 1.5 -> "1500m") and a resource without nominalQuota gets "0": the API
# server stores them, and every command reads them so.
READ = [
    ("dot-is-zero", "nominalQuota: 20", 'nominalQuota: "."'),
    ("dash-is-zero", "nominalQuota: 20", 'nominalQuota: "-"'),
    ("trailing-space", "nominalQuota: 20", 'nominalQuota: "20 "'),
    ("not-an-integer", "nominalQuota: 20", "nominalQuota: 1.5"),
    ("missing", "nominalQuota: 20\n", "\n"),
]


def _inputs(tmp_path: Path, old: str, new: str) -> str:
    assert old in WORKLOAD
    (tmp_path / "cluster.yaml").write_text((SAMPLE / "cluster.yaml").read_text())
    (tmp_path / "workload.yaml").write_text(WORKLOAD.replace(old, new, 1))
    return str(tmp_path)


def _cluster_inputs(tmp_path: Path, old: str, new: str) -> str:
    # team-a's cpu without its lendingLimit, which must not exceed the nominal quota being changed
    cluster = (SAMPLE / "cluster.yaml").read_text().replace(
        "        lendingLimit: 5            # ... and lends at most 5 of its own 20 CPUs\n", "", 1)
    assert old in cluster
    (tmp_path / "cluster.yaml").write_text(cluster.replace(old, new, 1))
    (tmp_path / "workload.yaml").write_text(WORKLOAD)
    return str(tmp_path)


@pytest.mark.parametrize("name,old,new", REFUSED, ids=[c[0] for c in REFUSED])
def test_what_validate_rejects_every_command_refuses(kqctl: Kq, tmp_path: Path, name: str, old: str,
                                                      new: str) -> None:
    inputs = _inputs(tmp_path, old, new)
    assert kqctl("validate", inputs).code == 1
    for command in (["simulate"], ["audit"], ["explain", KEY]):
        run = kqctl(*command, inputs)
        assert run.code == 3, (command, run.out, run.err)
        assert "workload.yaml:" in run.err and "Workload team-b/job-model-eval-6a0f3: spec." in run.err


@pytest.mark.parametrize("name,old,new", READ, ids=[c[0] for c in READ])
def test_def3_what_the_cluster_queue_webhook_re_encodes_every_command_reads(kqctl: Kq, tmp_path: Path, name: str,
                                                                           old: str, new: str) -> None:
    inputs = _cluster_inputs(tmp_path, old, new)
    assert kqctl("validate", inputs).code == 0
    for command in (["simulate"], ["audit"], ["explain", KEY]):
        assert kqctl(*command, inputs).code == 0, command


def test_a_cohort_quantity_breaking_the_pattern_is_refused_everywhere(kqctl: Kq, tmp_path: Path) -> None:
    for source in (REPO / "samples" / "hierarchical-cohorts").iterdir():
        (tmp_path / source.name).write_text(source.read_text())
    cohorts = tmp_path / "cohorts.yaml"
    cohorts.write_text(cohorts.read_text().replace('nominalQuota: "16"', 'nominalQuota: "."', 1))
    assert kqctl("validate", str(tmp_path)).code == 1
    for command in ("simulate", "audit"):
        run = kqctl(command, str(tmp_path))
        assert run.code == 3 and "SCHEMA-PATTERN" in run.err and "cohorts.yaml:" in run.err


# Jobs and Pods become Workloads, a WorkloadPriorityClass gives them their priority: what the API server
# cannot store there is refused too, located at the field validate names.
_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: bj
  namespace: default
  uid: 11111111-2222-3333-4444-555555555555
  creationTimestamp: "2026-09-14T08:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 2
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1", memory: 1Gi}
"""
_POD = """apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
  uid: 11111111-2222-3333-4444-555555555556
  creationTimestamp: "2026-09-14T08:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/admission}]
  containers:
  - name: c
    image: busybox
    resources:
      requests: {cpu: "1", memory: 1Gi}
"""
_WPC = """apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
""" + _JOB.replace("queue-name: user-queue}", "queue-name: user-queue, kueue.x-k8s.io/priority-class: high}")
_RULE = REPO / "samples" / "single-clusterqueue" / "cluster.yaml"
# (name, manifest, old, new, explain key, the field the refusal names)
REFUSED_SUBMITTED = [
    ("job-request-not-a-quantity", _JOB, 'cpu: "1"', 'cpu: "abc"', "default/job-bj-",
     "Job default/bj: spec.template.spec.containers[0].resources.requests.cpu:"),
    ("VAL-BJOB-1-negative-parallelism", _JOB, "parallelism: 2", "parallelism: -2", "default/job-bj-",
     "Job default/bj: spec.parallelism: Invalid value: -2: must be greater than or equal to 0 (VAL-BJOB-1"),
    ("job-completions-not-an-integer", _JOB, "parallelism: 2", 'parallelism: 2\n  completions: "x"',
     "default/job-bj-", "Job default/bj: spec.completions:"),
    ("job-queue-label-not-a-string", _JOB, "queue-name: user-queue}", "queue-name: [q]}", "default/job-bj-",
     "Job default/bj: metadata.labels[kueue.x-k8s.io/queue-name]:"),
    ("pod-request-not-a-quantity", _POD, "memory: 1Gi", "memory: 1.5.5Gi", "default/pod-p1-",
     "Pod default/p1: spec.containers[0].resources.requests.memory:"),
    ("pod-containers-not-a-list", _POD, "  containers:\n  - name: c", "  containers: notalist\n  initContainers:\n"
     "  - name: c", "default/pod-p1-", "Pod default/p1: spec.containers:"),
    ("wpc-value-beyond-int32", _WPC, "value: 1000", "value: 99999999999", "default/job-bj-",
     "WorkloadPriorityClass high: value:"),
]


@pytest.mark.parametrize("name,manifest,old,new,key,where", REFUSED_SUBMITTED, ids=[c[0] for c in REFUSED_SUBMITTED])
def test_what_validate_rejects_in_jobs_pods_and_priority_classes_every_command_refuses(
        kqctl: Kq, tmp_path: Path, name: str, manifest: str, old: str, new: str, key: str, where: str) -> None:
    (tmp_path / "cluster.yaml").write_text(_RULE.read_text())
    good = tmp_path / "good" / "submitted.yaml"
    good.parent.mkdir()
    good.write_text(manifest)
    assert kqctl("validate", str(tmp_path / "cluster.yaml"), str(good)).code == 0
    assert kqctl("simulate", str(tmp_path / "cluster.yaml"), str(good)).code == 0
    assert old in manifest
    bad = tmp_path / "submitted.yaml"
    bad.write_text(manifest.replace(old, new, 1))
    inputs = (str(tmp_path / "cluster.yaml"), str(bad))
    assert kqctl("validate", *inputs).code == 1
    explain_key = key + "x"  # refused before the workload is looked up
    for command in (["simulate"], ["audit"], ["explain", explain_key]):
        run = kqctl(*command, *inputs)
        assert run.code == 3, (command, run.out, run.err)
        assert "submitted.yaml:" in run.err and "(document " in run.err and where in run.err, (command, run.err)


def test_a_workload_node_affinity_key_that_is_not_a_string_is_refused(kqctl: Kq, tmp_path: Path) -> None:
    workloads = (REPO / "samples" / "single-clusterqueue" / "workloads.yaml").read_text()
    (tmp_path / "cluster.yaml").write_text(_RULE.read_text())
    affinity = ("        affinity:\n          nodeAffinity:\n"
                "            requiredDuringSchedulingIgnoredDuringExecution:\n"
                "              nodeSelectorTerms:\n              - matchExpressions:\n                - key: 5\n"
                "                  operator: In\n                  values: ['1']\n")
    anchor = "        containers:\n        - name: prep\n"
    text = workloads.replace(anchor, affinity + anchor, 1)
    assert text != workloads
    (tmp_path / "workloads.yaml").write_text(text)
    assert kqctl("validate", str(tmp_path)).code == 1
    for command in (["simulate"], ["audit"], ["explain", "default/job-data-prep-a81c4"]):
        run = kqctl(*command, str(tmp_path))
        assert run.code == 3, (command, run.out)
        assert "nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: \"integer\"" in run.err


def test_a_refusal_counts_documents_from_1_and_writes_paths_as_validate_does(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text((SAMPLE / "cluster.yaml").read_text())
    good = WORKLOAD.replace("job-model-eval-6a0f3", "first", 1)
    (tmp_path / "workload.yaml").write_text(good + "\n---\n" + WORKLOAD.replace("count: 1", "count: -1", 1))
    run = kqctl("simulate", str(tmp_path))
    assert run.code == 3
    assert "(document 2): Workload team-b/job-model-eval-6a0f3: spec.podSets[0].count:" in run.err, run.err
    field = json.loads(kqctl("validate", str(tmp_path), "-o", "json").out)
    assert "spec.podSets[0].count" in {f["field"] for d in field["documents"] for f in d["findings"]}
