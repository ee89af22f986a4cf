"""Snapshots never store container env values nor kubectl's last-applied-configuration copies."""

from __future__ import annotations

import copy
import io
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from fake_apiserver import KUEUE, FakeApiServer, FakeCluster, sample_objects

from kqctl.cli import app as app_module
from kqctl.kueue.cluster import READ_PLAN
from kqctl.load.cluster import LAST_APPLIED, REDACTED_VALUE, Redactions, read_cluster, snapshot_text

SECRET = "hunter2-do-not-store"
ENV: list[dict[str, Any]] = [
    {"name": "PASSWORD", "value": SECRET},
    {"name": "EMPTY", "value": ""},
    {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
    {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
]
ENV_FROM = [{"secretRef": {"name": "db"}}, {"configMapRef": {"name": "settings"}}]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def with_env(pod_spec: dict[str, Any]) -> None:
    """Every container list of the pod spec gets env and envFrom."""
    containers = pod_spec["containers"]
    pod_spec["initContainers"] = [{**copy.deepcopy(containers[0]), "name": "init"}]
    pod_spec["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for container in pod_spec[key]:
            container["env"] = copy.deepcopy(ENV)
            container["envFrom"] = copy.deepcopy(ENV_FROM)


@pytest.fixture
def fake() -> FakeCluster:
    objects = sample_objects()
    for pod in objects[("", "pods")]:
        with_env(pod["spec"])
    for job in objects[("batch", "jobs")]:
        with_env(job["spec"]["template"]["spec"])
    for workload in objects[(KUEUE, "workloads")]:
        for pod_set in workload["spec"]["podSets"]:
            with_env(pod_set["template"]["spec"])
    for key in [(KUEUE, "clusterqueues"), ("batch", "jobs"), ("", "pods")]:
        for obj in objects[key]:
            obj["metadata"]["annotations"] = {LAST_APPLIED: f'{{"env": "{SECRET}"}}', "team": "ml"}
    return FakeCluster(objects=objects)


@pytest.fixture
def kubeconfig(fake: FakeCluster, tmp_path: Path) -> Iterator[str]:
    with FakeApiServer(fake) as server:
        yield server.write_kubeconfig(tmp_path / "kubeconfig")


def containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    if obj["kind"] == "Pod":
        specs = [obj["spec"]]
    elif obj["kind"] == "Job":
        specs = [obj["spec"]["template"]["spec"]]
    else:
        specs = [p["template"]["spec"] for p in obj["spec"]["podSets"]]
    return [c for s in specs for key in ("containers", "initContainers", "ephemeralContainers") for c in s[key]]


def test_env_values_are_replaced_in_every_container_of_every_kind(kubeconfig: str) -> None:
    snapshot = read_cluster(READ_PLAN, None, kubeconfig)
    holders = [o for o in snapshot.objects if o["kind"] in ("Pod", "Job", "Workload")]
    assert {o["kind"] for o in holders} == {"Pod", "Job", "Workload"}
    for obj in holders:
        for container in containers(obj):
            assert [e.get("value") for e in container["env"]] == [REDACTED_VALUE, REDACTED_VALUE, None, None]
            # valueFrom and envFrom name a Secret, ConfigMap or field, never hold the value: kept.
            assert [e.get("valueFrom") for e in container["env"]] == [None, None, *(e["valueFrom"] for e in ENV[2:])]
            assert container["envFrom"] == ENV_FROM


def test_last_applied_configuration_is_replaced_other_annotations_kept(kubeconfig: str) -> None:
    snapshot = read_cluster(READ_PLAN, None, kubeconfig)
    annotated = [o for o in snapshot.objects if "annotations" in o["metadata"]]
    assert len(annotated) == 2 + 2 + 1  # ClusterQueues, Jobs with the queue label, Pods with it
    for obj in annotated:
        assert obj["metadata"]["annotations"] == {LAST_APPLIED: REDACTED_VALUE, "team": "ml"}


def test_the_snapshot_says_what_was_redacted_and_holds_no_secret(kubeconfig: str) -> None:
    snapshot = read_cluster(READ_PLAN, None, kubeconfig)
    text = snapshot_text(snapshot, "yaml")
    assert SECRET not in text
    note = yaml.safe_load(text)["metadata"]["annotations"]["kqctl.dev/redacted"]
    # 1 Pod + 2 Jobs + 5 Workloads, each 3 containers with 2 env values; 5 annotations.
    assert "(48 env values, 5 annotations)" in note
    assert REDACTED_VALUE in note and LAST_APPLIED in note


def test_snapshot_save_writes_no_env_value(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    out, err = io.StringIO(), io.StringIO()
    argv = ["kqctl", "snapshot", "save", "-o", str(path), "--kubeconfig", kubeconfig]
    with mock.patch.object(sys, "argv", argv), mock.patch.object(app_module.gc, "disable"), \
            redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit) as exited:
        app_module.main()
    assert exited.value.code == 0, err.getvalue()
    text = path.read_text()
    assert SECRET not in text and REDACTED_VALUE in text


@pytest.mark.parametrize("obj", [
    {"kind": "Pod", "spec": {"containers": "not a list"}},
    {"kind": "Job", "spec": {"template": None}},
    {"kind": "Workload", "spec": {"podSets": [{"template": {"spec": {"containers": [{"env": [42, None]}]}}}]}},
    {"kind": "Workload", "metadata": {"annotations": ["not", "a", "map"]}},
    {"kind": "ClusterQueue", "spec": None},
])
def test_odd_objects_are_left_alone(obj: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    assert Redactions().apply(obj) == before
