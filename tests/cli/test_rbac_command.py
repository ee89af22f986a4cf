"""``kqctl rbac``: the least-privilege RBAC for snapshot save and --from-cluster, printed from the read plans, so a
pip install has it (messages point at the command, not at a file of the repository)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fake_apiserver import FakeApiServer, FakeCluster
from support import REPO, run_kqctl

from kqctl.cli.schedulers import SCHEDULERS


def objects_of(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


@pytest.mark.parametrize("scheduler", [None, *SCHEDULERS])
def test_the_rules_are_exactly_what_the_read_plan_reads(scheduler: str | None) -> None:
    run = run_kqctl("rbac", *(("--scheduler", scheduler) if scheduler else ()))
    assert run.code == 0, run.err
    documents = objects_of(run.out)
    plans = [s.read_plan() for name, s in SCHEDULERS.items() if scheduler in (None, name)]
    listed = {(g, r) for rule in documents[0]["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert listed == {(r.group, r.plural) for plan in plans for r in plan.resources if not r.names}
    assert all(rule["verbs"] == ["list"] for rule in documents[0]["rules"])  # kqctl only lists
    named = [rule for d in documents[1:] for rule in d["rules"]]
    assert all(rule["verbs"] == ["get"] and rule["resourceNames"] for rule in named)  # get only by name
    granted = {r for d in documents for rule in d["rules"] for r in rule["resources"]}
    assert "secrets" not in granted and "*" not in granted


def test_yunikorn_gets_its_two_configmaps_by_name_in_its_namespace() -> None:
    run = run_kqctl("rbac", "--scheduler", "yunikorn", "--yunikorn-namespace", "sched")
    cluster_role, role = objects_of(run.out)
    assert cluster_role["metadata"]["name"] == "kqctl-yunikorn-reader"
    assert role["metadata"] == {"name": "kqctl-yunikorn-config", "namespace": "sched",
                                "labels": {"app.kubernetes.io/name": "kqctl"}}
    assert role["rules"] == [{"apiGroups": [""], "resources": ["configmaps"],
                              "resourceNames": ["yunikorn-defaults", "yunikorn-configs"], "verbs": ["get"]}]
    assert "kubectl -n sched create rolebinding kqctl-yunikorn-config --role=kqctl-yunikorn-config" in run.out


def test_json_and_usage_errors() -> None:
    body = json.loads(run_kqctl("rbac", "-o", "json").out)
    assert body["kind"] == "List" and body["items"][0]["kind"] == "ClusterRole"
    assert run_kqctl("rbac", "-o", "xml").code == 2
    assert run_kqctl("rbac", "--scheduler", "slurm").code == 2
    run = run_kqctl("rbac", "--scheduler", "kueue", "--yunikorn-namespace", "x")
    assert run.code == 2 and "--yunikorn-namespace applies" in run.err


@pytest.mark.parametrize("path, args", [("deploy/kqctl-reader-clusterrole.yaml", ()),
                                        ("deploy/kqctl-yunikorn-reader.yaml", ("--scheduler", "yunikorn"))])
def test_the_shipped_manifests_are_what_the_command_prints(path: str, args: tuple[str, ...]) -> None:
    assert (REPO / path).read_text() == run_kqctl("rbac", *args).out, f"regenerate: kqctl rbac {' '.join(args)}"


@pytest.fixture
def yunikorn_cluster(tmp_path: Path) -> Iterator[tuple[FakeCluster, str]]:
    fake = FakeCluster(objects={("", "nodes"): []}, kueue_installed=False)
    with FakeApiServer(fake) as server:
        yield fake, server.write_kubeconfig(tmp_path / "kubeconfig")


def test_a_forbidden_yunikorn_configmap_names_the_yunikorn_roles(yunikorn_cluster: tuple[FakeCluster, str]) -> None:
    fake, kubeconfig = yunikorn_cluster
    fake.forbidden.add("configmaps")
    run = run_kqctl("snapshot", "save", "-o", "-", "--scheduler", "yunikorn", "--kubeconfig", kubeconfig,
                    env={"KUBECONFIG": "", "NO_PROXY": "127.0.0.1"})
    assert run.code == 4
    assert ("cannot get configmap yunikorn/yunikorn-defaults: forbidden (403)") in run.err
    assert ("kqctl needs get on it (`kqctl rbac --scheduler yunikorn` prints the ClusterRole kqctl-yunikorn-reader "
            "and the Role kqctl-yunikorn-config)") in run.err
