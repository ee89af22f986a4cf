"""--from-cluster reads Kueue's manager Configuration from its ConfigMap (kueue-manager-config in kueue-system, by
name): fair sharing from the cluster as from the same ConfigMap in a file; a missing one, or one RBAC forbids, is a
note and the read goes on (a role granted before kqctl read it keeps working)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cluster_examples import cluster_objects
from fake_apiserver import FakeApiServer, FakeCluster
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = REPO / "samples" / "fair-sharing"
CONFIG_PATH = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"
FILE_CM = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kueue-manager-config\n  namespace: kueue-system\n"
           "data:\n  controller_manager_config.yaml: |\n")


def _configuration() -> str:
    return (SAMPLE / "kueue-config.yaml").read_text(encoding="utf-8")


def _config_map(namespace: str = "kueue-system", name: str = "kueue-manager-config") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace},
            "data": {"controller_manager_config.yaml": _configuration()}}


def _cluster(*config_maps: dict[str, Any]) -> FakeCluster:
    objects = cluster_objects("fair-sharing")
    objects[("", "configmaps")] = list(config_maps)
    return FakeCluster(objects=objects)


def _simulate_from(kqctl: Kq, cluster: FakeCluster, tmp_path: Path) -> tuple[Run, FakeCluster]:
    with FakeApiServer(cluster) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        run = kqctl("simulate", "--from-cluster", "--kubeconfig", kubeconfig, "-o", "json")
    assert run.code == 0, run.err
    return run, cluster


def test_fair_sharing_from_the_cluster_as_from_the_same_configmap_in_a_file(kqctl: Kq, tmp_path: Path) -> None:
    run, cluster = _simulate_from(kqctl, _cluster(_config_map()), tmp_path)
    in_cluster = json.loads(run.out)
    (tmp_path / "cm.yaml").write_text(FILE_CM + "".join(f"    {line}\n" for line in _configuration().splitlines()))
    files = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), str(tmp_path / "cm.yaml"),
                  "-o", "json")
    assert files.code == 0, files.err
    in_files = json.loads(files.out)
    assert in_cluster["fairSharing"] is True
    assert {k: v for k, v in in_cluster.items() if k != "source"} == {k: v for k, v in in_files.items()
                                                                      if k != "source"}
    assert "kueue-manager-config" not in run.err  # read: no note
    configmaps = [r for r in cluster.requests if "configmaps" in r.path]
    assert [r.path for r in configmaps] == [CONFIG_PATH]  # got by name: no list, no other ConfigMap


def test_another_name_is_not_read_but_can_be_given_as_a_file(kqctl: Kq, tmp_path: Path) -> None:
    # A Helm release of another name (<fullname>-manager-config): not read, so Kueue's defaults, with a note.
    cluster = _cluster(_config_map(name="my-kueue-manager-config"))
    run, _ = _simulate_from(kqctl, cluster, tmp_path)
    assert json.loads(run.out)["fairSharing"] is False
    assert "configmap kueue-system/kueue-manager-config does not exist" in run.err
    # What README says to do: save that ConfigMap and give it as one more input beside --from-cluster.
    text = FILE_CM.replace("kueue-manager-config", "my-kueue-manager-config")
    (tmp_path / "cm.yaml").write_text(text + "".join(f"    {line}\n" for line in _configuration().splitlines()))
    with FakeApiServer(cluster) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        given = kqctl("simulate", "--from-cluster", "--kubeconfig", kubeconfig, str(tmp_path / "cm.yaml"), "-o", "json")
    assert given.code == 0, given.err
    assert json.loads(given.out)["fairSharing"] is True


def test_a_missing_configmap_is_a_note(kqctl: Kq, tmp_path: Path) -> None:
    run, _ = _simulate_from(kqctl, _cluster(), tmp_path)
    assert json.loads(run.out)["fairSharing"] is False
    assert "kqctl: warning: configmap kueue-system/kueue-manager-config does not exist" in run.err


def test_a_forbidden_configmap_is_a_note_and_the_read_goes_on(kqctl: Kq, tmp_path: Path) -> None:
    cluster = _cluster(_config_map())
    cluster.forbidden.add("configmaps")  # a role from before kqctl read it: list on the rest, no get here
    run, _ = _simulate_from(kqctl, cluster, tmp_path)
    assert json.loads(run.out)["fairSharing"] is False
    assert ("kqctl: warning: configmap kueue-system/kueue-manager-config could not be read (forbidden (403)): "
            "Kueue's manager Configuration not read") in run.err
    assert "--fair-sharing and --feature-gates" in run.err


def test_forbidden_with_fair_sharing_given(kqctl: Kq, tmp_path: Path) -> None:
    cluster = _cluster(_config_map())
    cluster.forbidden.add("configmaps")
    with FakeApiServer(cluster) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        run = kqctl("simulate", "--from-cluster", "--kubeconfig", kubeconfig, "--fair-sharing", "-o", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["fairSharing"] is True


@pytest.mark.parametrize("status", ["missing", "forbidden"])
def test_snapshot_save_notes_it_too(kqctl: Kq, tmp_path: Path, status: str) -> None:
    cluster = _cluster() if status == "missing" else _cluster(_config_map())
    if status == "forbidden":
        cluster.forbidden.add("configmaps")
    with FakeApiServer(cluster) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        run = kqctl("snapshot", "save", "--kubeconfig", kubeconfig, "-o", str(tmp_path / "snap.yaml"))
    assert run.code == 0, run.err
    assert "kueue-system/kueue-manager-config" in run.err


def test_snapshot_save_keeps_the_configuration(kqctl: Kq, tmp_path: Path) -> None:
    with FakeApiServer(_cluster(_config_map())) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        saved = kqctl("snapshot", "save", "--kubeconfig", kubeconfig, "-o", str(tmp_path / "snap.yaml"))
    assert saved.code == 0, saved.err
    run = kqctl("simulate", str(tmp_path / "snap.yaml"), "-o", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["fairSharing"] is True
