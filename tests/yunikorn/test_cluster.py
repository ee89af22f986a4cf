"""Reading a YuniKorn cluster (snapshot save / --from-cluster): the two ConfigMaps by name only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fake_apiserver import FakeApiServer, FakeCluster
from support import REPO, run_kqctl

from kqctl.load.cluster import read_cluster
from kqctl.yunikorn.cluster import READ_PLAN

QUEUES = ("partitions:\n  - name: default\n    placementrules: [{name: tag, value: namespace, create: true}]\n"
          "    queues:\n      - name: root\n        submitacl: '*'\n")


def _objects(namespace: str = "yunikorn") -> dict[tuple[str, str], list[dict]]:
    return {
        ("", "configmaps"): [
            {"metadata": {"name": "yunikorn-configs", "namespace": namespace}, "data": {"queues.yaml": QUEUES}},
            {"metadata": {"name": "unrelated", "namespace": namespace}, "data": {"password": "hunter2"}},
        ],
        ("", "nodes"): [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                                              "pods": "110"}}}],
        ("", "namespaces"): [{"metadata": {"name": "team-a"}}],
        ("", "pods"): [{"metadata": {"name": "p1", "namespace": "team-a"},
                        "spec": {"schedulerName": "yunikorn", "containers": [
                            {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}],
    }


@pytest.fixture
def fake() -> FakeCluster:
    return FakeCluster(objects=_objects(), kueue_installed=False)


@pytest.fixture
def kubeconfig(fake: FakeCluster, tmp_path: Path) -> Iterator[str]:
    with FakeApiServer(fake) as server:
        yield server.write_kubeconfig(tmp_path / "kubeconfig")


def test_configmaps_are_read_by_name_only(kubeconfig: str, fake: FakeCluster) -> None:
    snapshot = read_cluster(READ_PLAN, None, kubeconfig)
    kinds = snapshot.counts()
    assert kinds == {"ConfigMap": 1, "Namespace": 1, "Node": 1, "Pod": 1}
    assert [o["metadata"]["name"] for o in snapshot.objects if o["kind"] == "ConfigMap"] == ["yunikorn-configs"]
    assert "configmap yunikorn/yunikorn-defaults does not exist" in snapshot.skipped
    configmap_requests = [r.path for r in fake.requests if "configmaps" in r.path]
    assert sorted(configmap_requests) == ["/api/v1/namespaces/yunikorn/configmaps/yunikorn-configs",
                                          "/api/v1/namespaces/yunikorn/configmaps/yunikorn-defaults"]
    assert not fake.list_requests("configmaps")  # never a list: nothing else is seen
    assert not [r for r in fake.requests if r.path.startswith("/apis/kueue")]


def test_another_namespace_with_yunikorn_namespace(tmp_path: Path) -> None:
    fake = FakeCluster(objects=_objects("scheduling"), kueue_installed=False)
    with FakeApiServer(fake) as server:
        config = server.write_kubeconfig(tmp_path / "kubeconfig")
        out = tmp_path / "snap.yaml"
        run = run_kqctl("snapshot", "save", "-o", str(out), "--scheduler", "yunikorn", "--yunikorn-namespace",
                        "scheduling", "--kubeconfig", config)
        assert run.code == 0, run.err
        items = yaml.safe_load(out.read_text())["items"]
        assert [i["metadata"]["name"] for i in items if i["kind"] == "ConfigMap"] == ["yunikorn-configs"]
        simulated = run_kqctl("simulate", str(out), "-o", "json")
        assert simulated.code == 0, simulated.err
        assert '"state": "Allocated"' in simulated.out


def test_yunikorn_namespace_needs_the_yunikorn_scheduler() -> None:
    run = run_kqctl("snapshot", "save", "-o", "-", "--yunikorn-namespace", "x")
    assert run.code == 2 and "--scheduler yunikorn" in run.err


def test_the_rbac_grants_get_on_the_two_configmaps_only() -> None:
    role = [d for d in yaml.safe_load_all((REPO / "deploy" / "kqctl-yunikorn-reader.yaml").read_text())
            if d["kind"] == "Role"][0]
    assert role["rules"] == [{"apiGroups": [""], "resources": ["configmaps"],
                              "resourceNames": ["yunikorn-defaults", "yunikorn-configs"], "verbs": ["get"]}]
    cluster_role = [d for d in yaml.safe_load_all((REPO / "deploy" / "kqctl-yunikorn-reader.yaml").read_text())
                    if d["kind"] == "ClusterRole"][0]
    listed = {r for rule in cluster_role["rules"] for r in rule["resources"]}
    assert listed == {r.plural for r in READ_PLAN.resources if not r.names}
