"""Reading a Volcano cluster (snapshot save --scheduler volcano, --from-cluster): what is listed, how, and that
the snapshot feeds every command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.fake_apiserver import FakeApiServer, FakeCluster
from tests.support import run_kqctl

SCHED = "scheduling.volcano.sh"


def _objects() -> dict[tuple[str, str], list[dict[str, object]]]:
    conf = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: proportion\n'
    return {
        ("", "namespaces"): [{"metadata": {"name": "ns"}}],
        ("", "nodes"): [{"metadata": {"name": f"node-{i}"},
                         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                                    "conditions": [{"type": "Ready", "status": "True"}]}} for i in range(3)],
        ("", "configmaps"): [{"metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
                              "data": {"volcano-scheduler.conf": conf}},
                             {"metadata": {"namespace": "volcano-system", "name": "other"}, "data": {"secret": "x"}}],
        (SCHED, "queues"): [{"metadata": {"name": "team"}, "spec": {"weight": 1}, "status": {"state": "Open"}}],
        (SCHED, "podgroups"): [{"metadata": {"namespace": "ns", "name": "pg"},
                                "spec": {"queue": "team", "minMember": 1, "minResources": {"cpu": "1"}},
                                "status": {"phase": "Pending"}}],
        ("", "pods"): [{"metadata": {"namespace": "ns", "name": f"p-{i}",
                                     "annotations": {"scheduling.k8s.io/group-name": "pg"}},
                        "spec": {"schedulerName": "volcano",
                                 "containers": [{"name": "c", "image": "x", "env": [{"name": "K", "value": "s3cr3t"}],
                                                 "resources": {"requests": {"cpu": "1"}}}]},
                        "status": {"phase": "Pending"}} for i in range(3)],
    }


@pytest.fixture()
def fake() -> FakeCluster:
    return FakeCluster(objects=_objects(), kueue_installed=False, volcano_installed=True)


@pytest.fixture()
def kubeconfig(fake: FakeCluster, tmp_path: Path) -> Iterator[str]:
    with FakeApiServer(fake) as server:
        path = tmp_path / "kubeconfig"
        server.write_kubeconfig(path)
        yield str(path)


def test_save_reads_volcano_paginated_and_only_its_configmap(kubeconfig: str, fake: FakeCluster,
                                                             tmp_path: Path) -> None:
    out = tmp_path / "snap.yaml"
    run = run_kqctl("snapshot", "save", "-o", str(out), "--scheduler", "volcano", "--kubeconfig", kubeconfig)
    assert run.code == 0, run.err
    assert "for Volcano (APIs " in run.err and "scheduling.volcano.sh/v1beta1" in run.err
    snapshot = yaml.safe_load(out.read_text(encoding="utf-8"))
    kinds = [item["kind"] for item in snapshot["items"]]
    assert kinds.count("Node") == 3 and kinds.count("Pod") == 3 and kinds.count("ConfigMap") == 1
    assert "s3cr3t" not in out.read_text(encoding="utf-8")
    assert all(r.query.get("fieldSelector") == "metadata.name=volcano-scheduler-configmap"
               for r in fake.list_requests("configmaps"))
    assert len(fake.list_requests("pods")) == 2  # pages of 2: pagination
    simulated = run_kqctl("simulate", str(out), "-o", "json")
    assert simulated.code == 0, simulated.err
    assert '"bindCount": 3' in simulated.out


def test_from_cluster_simulates_volcano(kubeconfig: str) -> None:
    run = run_kqctl("simulate", "--from-cluster", "--scheduler", "volcano", "--kubeconfig", kubeconfig, "-o", "json")
    assert run.code == 0, run.err
    assert '"configuration": {\n    "source": "ConfigMap volcano-system/volcano-scheduler-configmap"' in run.out


def test_a_cluster_without_volcano_exits_4(kubeconfig: str, fake: FakeCluster, tmp_path: Path) -> None:
    fake.volcano_installed = False
    run = run_kqctl("snapshot", "save", "-o", str(tmp_path / "s.yaml"), "--scheduler", "volcano",
                    "--kubeconfig", kubeconfig)
    assert run.code == 4 and "is Volcano installed?" in run.err
