"""A cluster with two schedulers (issue 18): Volcano's API group beside pods scheduled by YuniKorn.

snapshot save reads the cluster for one scheduler and says what it holds of the other; the saved file names the
scheduler it was read for, so every command reads it that way without --scheduler; with --scheduler, another
scheduler's pods are other pods using node capacity (Volcano, YuniKorn) or ignored (Kueue), said once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fake_apiserver import FakeApiServer, FakeCluster
from support import REPO, run_kqctl

SCHED = "scheduling.volcano.sh"
ENV = {"HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": "", "http_proxy": "", "https_proxy": "", "all_proxy": "",
       "NO_PROXY": "127.0.0.1,localhost", "KUBECONFIG": ""}


def _pod(name: str, scheduler: str, node: str | None = None, cpu: str = "1", **annotations: str) -> dict:
    spec: dict = {"schedulerName": scheduler, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"namespace": "ns", "name": name, "annotations": annotations}, "spec": spec,
            "status": {"phase": "Running" if node else "Pending"}}


def _objects() -> dict[tuple[str, str], list[dict]]:
    return {
        ("", "namespaces"): [{"metadata": {"name": "ns"}}],
        ("", "nodes"): [{"metadata": {"name": "node-0"},
                         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                                    "conditions": [{"type": "Ready", "status": "True"}]}}],
        (SCHED, "queues"): [{"metadata": {"name": "team"}, "spec": {"weight": 1}, "status": {"state": "Open"}}],
        (SCHED, "podgroups"): [{"metadata": {"namespace": "ns", "name": "pg"},
                                "spec": {"queue": "team", "minMember": 1, "minResources": {"cpu": "2"}},
                                "status": {"phase": "Pending"}}],
        ("", "pods"): [
            _pod("vc-0", "volcano", cpu="2", **{"scheduling.k8s.io/group-name": "pg"}),
            # YuniKorn's pods: one running (3 of the node's 4 cpu), one pending in a queue no config creates here
            _pod("yk-running", "yunikorn", node="node-0", cpu="3", **{"yunikorn.apache.org/queue": "root.nowhere"}),
            _pod("yk-pending", "yunikorn", **{"yunikorn.apache.org/queue": "root.nowhere"}),
        ],
    }


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Iterator[str]:
    fake = FakeCluster(objects=_objects(), kueue_installed=False, volcano_installed=True)
    with FakeApiServer(fake) as server:
        yield server.write_kubeconfig(tmp_path / "kubeconfig")


def test_save_names_the_scheduler_and_the_other_schedulers_pods(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    run = run_kqctl("snapshot", "save", "-o", str(path), "--kubeconfig", kubeconfig, env=ENV)
    assert run.code == 0, run.err
    assert ("kqctl: note: read for Volcano, the scheduler whose API group the cluster serves: 2 pod(s) of YuniKorn "
            "(schedulerName yunikorn) are saved as other pods using node capacity; pass --scheduler yunikorn")\
        in run.err
    assert yaml.safe_load(path.read_text())["metadata"]["annotations"]["kqctl.dev/scheduler"] == "volcano"


def test_a_saved_snapshot_is_simulated_without_edits_for_its_scheduler(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    assert run_kqctl("snapshot", "save", "-o", str(path), "--kubeconfig", kubeconfig, env=ENV).code == 0
    run = run_kqctl("simulate", str(path), "-o", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["scheduler"] == "volcano"
    assert run.err.count("kqctl: note: reading the input for Volcano (the snapshot was saved for it): 2 pod(s) of "
                         "YuniKorn are other pods using node capacity") == 1
    # The running YuniKorn pod holds 3 of node-0's 4 cpu: the PodGroup's 2-cpu pod does not fit beside it.
    assert json.loads(run.out)["podGroups"]["ns/pg"]["phase"] != "Running"


def test_without_the_other_pods_the_podgroup_would_run(tmp_path: Path) -> None:
    objects = _objects()
    objects[("", "pods")] = objects[("", "pods")][:1]
    fake = FakeCluster(objects=objects, kueue_installed=False, volcano_installed=True)
    with FakeApiServer(fake) as server:
        config = server.write_kubeconfig(tmp_path / "kubeconfig")
        path = tmp_path / "snap.yaml"
        assert run_kqctl("snapshot", "save", "-o", str(path), "--kubeconfig", config, env=ENV).code == 0
    run = run_kqctl("simulate", str(path), "-o", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["podGroups"]["ns/pg"]["phase"] == "Running"


def test_validate_from_cluster_for_volcano_makes_no_yunikorn_findings(kubeconfig: str) -> None:
    run = run_kqctl("validate", "--from-cluster", "--scheduler", "volcano", "--kubeconfig", kubeconfig, "-o", "json",
                    env=ENV)
    assert run.code == 0, run.out + run.err
    rules = {f["ruleId"] for d in json.loads(run.out)["documents"] for f in d["findings"]}
    assert not {rule for rule in rules if rule.startswith("YK-")}, rules


def test_validate_of_yunikorn_pods_in_a_plain_file_still_checks_them(tmp_path: Path) -> None:
    # Not from a snapshot saved for another scheduler: YuniKorn's own check of a pod's queue runs (YK-PL-QUEUE).
    path = tmp_path / "pods.yaml"
    pod = {"apiVersion": "v1", "kind": "Pod", **_pod("yk", "yunikorn", **{"yunikorn.apache.org/queue": "root.x"})}
    path.write_text(yaml.safe_dump(pod))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert "YK-PL-QUEUE" in {f["ruleId"] for d in json.loads(run.out)["documents"] for f in d["findings"]}


def test_scheduler_kueue_ignores_yunikorn_pods_and_says_so_once(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    pod = {"apiVersion": "v1", "kind": "Pod", **_pod("yk", "yunikorn")}
    queue = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}}}
    path.write_text(yaml.safe_dump_all([queue, pod]))
    assert run_kqctl("simulate", str(path)).code == 2  # two schedulers, none named
    run = run_kqctl("simulate", str(path), "--scheduler", "kueue", "-o", "json")
    assert run.code == 0, run.err
    assert run.err.count("kqctl: note: reading the input for Kueue (--scheduler kueue): 1 pod(s) of YuniKorn are "
                         "ignored (Kueue reads only the pods submitted to it)") == 1


@pytest.mark.parametrize(("typed", "meant"), [("volcno", "volcano"), ("Yunicorn", "yunikorn"), ("keue", "kueue")])
def test_a_misspelt_scheduler_is_a_usage_error_naming_the_one_meant(typed: str, meant: str) -> None:
    run = run_kqctl("simulate", str(REPO / "samples" / "preemption"), "--scheduler", typed)
    assert run.code == 2
    assert f"unknown --scheduler '{typed}'; did you mean {meant}? choose one of: kueue, volcano, yunikorn" in run.err


def test_a_scheduler_name_like_none_names_no_other() -> None:
    run = run_kqctl("rbac", "--scheduler", "slurm")
    assert run.code == 2 and "did you mean" not in run.err
