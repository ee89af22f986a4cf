"""Reading a live cluster, over real HTTP against a fake API server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import KUEUE, TOKEN, FakeApiServer, FakeCluster, sample_objects
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.errors import EXIT_CLUSTER
from kqctl.kueue.cluster import READ_PLAN
from kqctl.kueue.load import build_snapshot
from kqctl.load import cluster as cluster_module
from kqctl.load.cluster import (
    ClusterError,
    ClusterSnapshot,
    cluster_documents,
    load_cluster,
    read_cluster,
    snapshot_text,
)
from kqctl.load.objects import load_paths

KUEUE_CONFIG_PATH = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"
MISSING_CONFIG = "configmap kueue-system/kueue-manager-config does not exist"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The client honours proxy variables: the fake server must be reached directly.
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def fake() -> FakeCluster:
    return FakeCluster(objects=sample_objects())


@pytest.fixture
def server(fake: FakeCluster) -> Iterator[FakeApiServer]:
    with FakeApiServer(fake) as running:
        yield running


@pytest.fixture
def kubeconfig(server: FakeApiServer, tmp_path: Path) -> str:
    return server.write_kubeconfig(tmp_path / "kubeconfig")


def read(kubeconfig: str, context: str | None = None, page_size: int = 2) -> ClusterSnapshot:
    return read_cluster(READ_PLAN, context, kubeconfig, page_size=page_size)


def cluster_error(kubeconfig: str, context: str | None = None) -> ClusterError:
    with pytest.raises(ClusterError) as caught:
        read(kubeconfig, context)
    assert caught.value.exit_code == EXIT_CLUSTER == 4
    return caught.value


def names(snapshot: ClusterSnapshot, kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in snapshot.objects if o["kind"] == kind]


# --- contents and metadata -------------------------------------------------------------------------------


def test_snapshot_holds_every_kind_kqctl_reads(kubeconfig: str) -> None:
    snapshot = read(kubeconfig)
    assert snapshot.counts() == {
        "Namespace": 3, "PriorityClass": 1, "LimitRange": 1, "ResourceFlavor": 2, "Topology": 1,
        "AdmissionCheck": 1, "WorkloadPriorityClass": 1, "Cohort": 1, "ClusterQueue": 2, "LocalQueue": 2,
        "Workload": 5, "Job": 2, "Pod": 1,
    }
    assert snapshot.skipped == [MISSING_CONFIG]  # this cluster has none: Kueue's defaults


def test_items_get_api_version_and_kind_and_lose_managed_fields(kubeconfig: str) -> None:
    snapshot = read(kubeconfig)
    expected = {"Namespace": "v1", "PriorityClass": "scheduling.k8s.io/v1", "LimitRange": "v1", "Job": "batch/v1",
                "Pod": "v1", "Workload": f"{KUEUE}/v1beta2", "ClusterQueue": f"{KUEUE}/v1beta2"}
    for obj in snapshot.objects:
        assert list(obj)[:3] == ["apiVersion", "kind", "metadata"]
        assert obj["apiVersion"] == expected.get(obj["kind"], f"{KUEUE}/v1beta2")
        assert "managedFields" not in obj["metadata"]


def test_workloads_keep_their_status(kubeconfig: str) -> None:
    workloads = {o["metadata"]["name"]: o for o in read(kubeconfig).objects if o["kind"] == "Workload"}
    assert workloads["wl-1"]["status"]["admission"]["clusterQueue"] == "cq-a"
    assert "status" not in workloads["wl-2"]


def test_metadata_says_where_when_and_which_kueue_version(kubeconfig: str, server: FakeApiServer) -> None:
    snapshot = read(kubeconfig, context="other")
    annotations = cluster_documents(snapshot)[0]["metadata"]["annotations"]
    assert annotations["kqctl.dev/context"] == "other"
    assert annotations["kqctl.dev/server"] == server.url
    assert annotations["kqctl.dev/kueue-version"] == "v1beta2"
    assert annotations["kqctl.dev/kueue-served-versions"] == "v1beta2,v1beta1"
    assert annotations["kqctl.dev/snapshot-time"].endswith("Z")


def test_the_current_context_is_used_by_default(kubeconfig: str) -> None:
    assert read(kubeconfig).context == "fake"


def test_only_jobs_and_pods_submitted_to_kueue_are_listed(kubeconfig: str, fake: FakeCluster) -> None:
    snapshot = read(kubeconfig)
    assert names(snapshot, "Job") == ["train", "etl"]
    assert names(snapshot, "Pod") == ["plain-pod"]
    for plural in ("jobs", "pods"):
        assert {r.query.get("labelSelector") for r in fake.list_requests(plural)} == {"kueue.x-k8s.io/queue-name"}
    assert all("labelSelector" not in r.query for r in fake.list_requests("workloads"))


# --- pagination ------------------------------------------------------------------------------------------


def test_pages_are_merged_in_order(kubeconfig: str, fake: FakeCluster) -> None:
    snapshot = read(kubeconfig)
    assert names(snapshot, "Workload") == ["wl-1", "wl-2", "wl-3", "wl-4", "wl-5"]
    requests = fake.list_requests("workloads")
    assert len(requests) == 3  # 2 + 2 + 1
    assert "continue" not in requests[0].query
    assert all(r.query.get("continue") for r in requests[1:])
    assert len({r.query["continue"] for r in requests[1:]}) == 2


def test_page_size_is_sent_as_limit(kubeconfig: str, fake: FakeCluster) -> None:
    fake.page_size = None
    read(kubeconfig, page_size=3)
    assert [r.query.get("limit") for r in fake.list_requests("workloads")] == ["3", "3"]


def test_an_expired_continue_token_restarts_the_list(kubeconfig: str, fake: FakeCluster) -> None:
    fake.expire_continue_once.add("workloads")
    snapshot = read(kubeconfig)
    assert names(snapshot, "Workload") == ["wl-1", "wl-2", "wl-3", "wl-4", "wl-5"]  # no duplicates
    assert len(fake.list_requests("workloads")) == 2 + 3


def test_a_server_repeating_its_continue_token_does_not_loop_forever(kubeconfig: str, fake: FakeCluster) -> None:
    fake.repeat_continue.add("localqueues")
    error = cluster_error(kubeconfig)
    assert "cannot list localqueues.kueue.x-k8s.io" in str(error)
    assert "same continue token" in str(error)
    assert len(fake.list_requests("localqueues")) == 2


# --- Kueue versions --------------------------------------------------------------------------------------


def test_a_v1beta1_only_cluster_is_read_as_v1beta1(kubeconfig: str, fake: FakeCluster) -> None:
    fake.kueue_versions = ("v1beta1",)
    fake.kueue_resources = tuple(r for r in fake.kueue_resources if r != "topologies")  # newer than this Kueue
    fake.objects = sample_objects("v1beta1")
    snapshot = read(kubeconfig)
    assert snapshot.group_version == "v1beta1"
    assert {o["apiVersion"] for o in snapshot.objects if o["apiVersion"].startswith(KUEUE)} == {f"{KUEUE}/v1beta1"}
    assert all("/v1beta2" not in path for path in fake.paths())
    assert "Topology" not in snapshot.counts()
    assert snapshot.skipped == [MISSING_CONFIG, "topologies.kueue.x-k8s.io not served at v1beta1: none read"]
    assert "topologies" in cluster_documents(snapshot)[0]["metadata"]["annotations"]["kqctl.dev/skipped"]


def test_v1beta2_is_read_whenever_it_is_served(kubeconfig: str, fake: FakeCluster) -> None:
    fake.preferred_kueue_version = "v1beta1"
    assert read(kubeconfig).group_version == "v1beta2"


def test_a_kueue_too_old_for_kqctl_is_a_cluster_error(kubeconfig: str, fake: FakeCluster) -> None:
    fake.kueue_versions = ("v1alpha1",)
    error = cluster_error(kubeconfig)
    assert "v1alpha1" in str(error) and "v1beta2 or v1beta1" in str(error)


# --- failures --------------------------------------------------------------------------------------------


def test_kueue_not_installed_names_the_resource_and_the_verb(kubeconfig: str, fake: FakeCluster) -> None:
    fake.kueue_installed = False
    error = cluster_error(kubeconfig)
    assert str(error).startswith("cannot list resourceflavors.kueue.x-k8s.io")
    assert "is Kueue installed?" in str(error)
    assert not any("resourceflavors" in path for path in fake.paths())  # discovery said so: no blind list


def test_a_missing_kueue_crd_names_it(kubeconfig: str, fake: FakeCluster) -> None:
    fake.kueue_resources = tuple(r for r in fake.kueue_resources if r != "clusterqueues")
    error = cluster_error(kubeconfig)
    assert str(error).startswith("cannot list clusterqueues.kueue.x-k8s.io: the cluster does not serve it")


def test_a_404_on_a_list_names_the_resource(kubeconfig: str, fake: FakeCluster) -> None:
    fake.not_found.add("workloads")
    error = cluster_error(kubeconfig)
    assert str(error).startswith("cannot list workloads.kueue.x-k8s.io: not found (404)")
    assert error.status == 404


@pytest.mark.parametrize("plural, resource", [("workloads", "workloads.kueue.x-k8s.io"), ("pods", "pods"),
                                              ("priorityclasses", "priorityclasses.scheduling.k8s.io")])
def test_rbac_forbidden_names_the_resource_and_the_verb(kubeconfig: str, fake: FakeCluster, plural: str,
                                                        resource: str) -> None:
    fake.forbidden.add(plural)
    error = cluster_error(kubeconfig)
    assert str(error).startswith(f"cannot list {resource}: forbidden (403)")
    assert f'cannot list resource "{plural}"' in str(error)  # the API server's own explanation
    assert ("kqctl needs list on it (`kqctl rbac --scheduler kueue` prints the ClusterRole kqctl-kueue-reader and "
            "the Role kqctl-kueue-config)" in str(error))


def test_rejected_credentials_are_a_cluster_error_without_the_token(server: FakeApiServer, tmp_path: Path) -> None:
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="wrong-token-value")
    error = cluster_error(kubeconfig)
    assert "401 Unauthorized" in str(error)
    assert "wrong-token-value" not in str(error)


def test_an_unreachable_server_is_a_cluster_error(tmp_path: Path) -> None:
    with FakeApiServer(FakeCluster()) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    error = cluster_error(kubeconfig)  # the server is gone: its port refuses connections
    assert f"cannot reach the API server at {server.url}" in str(error)
    assert "object at 0x" not in str(error)


def test_an_unknown_context_lists_the_known_ones(kubeconfig: str) -> None:
    error = cluster_error(kubeconfig, context="prod")
    assert str(error) == f"context 'prod' not found in the kubeconfig {kubeconfig} (contexts: fake, other)"


def test_a_missing_kubeconfig_is_a_cluster_error(tmp_path: Path) -> None:
    path = str(tmp_path / "nope")
    assert str(cluster_error(path)) == f"cannot use the kubeconfig {path}: no such file"


@pytest.mark.parametrize("content", ["{not yaml: [", "apiVersion: v1\nkind: Config\n", "- just\n- a list\n"])
def test_a_broken_kubeconfig_is_a_cluster_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(content)
    assert str(cluster_error(str(path))).startswith(f"cannot use the kubeconfig {path}")


# --- what is (not) asked and written ---------------------------------------------------------------------


def test_secrets_and_configmaps_are_never_requested(kubeconfig: str, fake: FakeCluster) -> None:
    read(kubeconfig)
    assert fake.requests
    assert {r.method for r in fake.requests} == {"GET"}
    assert not [p for p in fake.paths() if "secrets" in p]
    # No ConfigMap but Kueue's manager Configuration, got by name: never a list.
    assert [p for p in fake.paths() if "configmaps" in p] == [KUEUE_CONFIG_PATH]


def test_every_request_is_a_known_discovery_or_list_call(kubeconfig: str, fake: FakeCluster) -> None:
    read(kubeconfig)
    lists = {f"/api/v1/{r.plural}" if not r.group else f"/apis/{r.group}/{r.version or 'v1beta2'}/{r.plural}"
             for r in READ_PLAN.resources if not r.names} | {KUEUE_CONFIG_PATH}
    assert {p.rstrip("/") for p in fake.paths()} == lists | {"/apis", f"/apis/{KUEUE}/v1beta2"}  # GET /apis/


def test_the_token_is_sent_but_never_written(kubeconfig: str, fake: FakeCluster) -> None:
    snapshot = read(kubeconfig)
    assert {r.authorization for r in fake.requests} == {f"Bearer {TOKEN}"}
    for fmt in ("yaml", "json"):
        text = snapshot_text(snapshot, fmt)
        assert TOKEN not in text
        assert "fake-user" not in text and kubeconfig not in text  # nothing from the kubeconfig but the server


def test_user_info_in_the_server_url_is_not_recorded() -> None:
    assert cluster_module._public_url("https://admin:hunter2@10.0.0.1:6443/k8s?x=1") == "https://10.0.0.1:6443/k8s"
    assert cluster_module._public_url("https://[::1]:6443") == "https://[::1]:6443"


# --- round trip ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1beta2", "v1beta1"])
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_the_snapshot_loads_back(kubeconfig: str, fake: FakeCluster, tmp_path: Path, fmt: str,
                                 version: str) -> None:
    fake.kueue_versions = (version,)
    fake.objects = sample_objects(version)
    snapshot = read(kubeconfig)
    path = tmp_path / f"snapshot.{fmt}"
    path.write_text(snapshot_text(snapshot, fmt))
    result = load_paths(ALL_KINDS, [str(path)])
    assert result.unreadable == []
    assert [f.message for o in result.objects for f in o.findings] == []
    assert len(result.objects) == len(snapshot.objects)
    built = build_snapshot(result)
    assert sorted(built.cluster_queues) == ["cq-a", "cq-b"]
    assert sorted(built.cohorts) == ["org"]
    assert len(built.workloads) == 5
    assert built.namespaces is not None and built.namespaces["team-a"].labels["gpu"] == "y"


def test_strings_that_look_like_booleans_or_numbers_stay_strings(kubeconfig: str) -> None:
    text = snapshot_text(read(kubeconfig), "yaml")
    labels = next(o for o in load_text_objects(text) if o.name == "team-a").metadata["labels"]
    assert labels == {"kubernetes.io/metadata.name": "team-a", "gpu": "y", "tier": "1e3", "legacy": "no"}


def load_text_objects(text: str) -> list[Any]:
    from kqctl.load.objects import load_text

    return load_text(ALL_KINDS, text).objects


def test_the_snapshot_is_one_list_document(kubeconfig: str) -> None:
    body = json.loads(snapshot_text(read(kubeconfig), "json"))
    assert (body["apiVersion"], body["kind"]) == ("v1", "List")
    assert yaml.safe_load(snapshot_text(read(kubeconfig), "yaml"))["kind"] == "List"
    with pytest.raises(ValueError):
        snapshot_text(read(kubeconfig), "toml")


def test_load_cluster_is_from_cluster_in_one_call(kubeconfig: str) -> None:
    snapshot, result = load_cluster(READ_PLAN, ALL_KINDS, None, kubeconfig)
    assert len(result.objects) == len(snapshot.objects)
    assert {o.origin.file for o in result.objects} == {"<cluster fake>"}
    assert len(build_snapshot(result).workloads) == 5


# --- configuration choices -------------------------------------------------------------------------------


def test_in_cluster_config_only_without_any_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    assert cluster_module._use_in_cluster(None, None)
    assert not cluster_module._use_in_cluster("ctx", None)
    assert not cluster_module._use_in_cluster(None, "/some/kubeconfig")
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text("{}")
    assert not cluster_module._use_in_cluster(None, None)


def test_the_shipped_clusterrole_lists_exactly_what_kqctl_reads() -> None:
    documents = list(yaml.safe_load_all((REPO / "deploy" / "kqctl-reader-clusterrole.yaml").read_text()))
    role = documents[0]
    assert (role["apiVersion"], role["kind"]) == ("rbac.authorization.k8s.io/v1", "ClusterRole")
    granted: set[tuple[str, str]] = set()
    for rule in role["rules"]:
        assert rule["verbs"] == ["list"]  # kqctl never gets a listed object by name: list is the least it needs
        granted |= {(group, resource) for group in rule["apiGroups"] for resource in rule["resources"]}
    from kqctl.cli.schedulers import SCHEDULERS

    plans = [scheduler.read_plan() for scheduler in SCHEDULERS.values()]
    assert granted == {(r.group, r.plural) for plan in plans for r in plan.resources if not r.names}
    by_name_only = {resource for rule in role["rules"] if rule.get("resourceNames") for resource in rule["resources"]}
    assert not ({resource for _, resource in granted} - by_name_only) & {"secrets", "configmaps", "*"}


def test_no_kubeconfig_anywhere_says_where_it_looked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'a'}:{tmp_path / 'b'}")
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(ClusterError) as caught:
        read_cluster(READ_PLAN)
    assert str(caught.value) == (f"no kubeconfig found (looked at {tmp_path / 'a'}:{tmp_path / 'b'}): "
                                 "pass --kubeconfig, or set KUBECONFIG")


def test_kubeconfig_from_the_environment_is_used(monkeypatch: pytest.MonkeyPatch, kubeconfig: str) -> None:
    monkeypatch.setenv("KUBECONFIG", kubeconfig)
    assert read_cluster(READ_PLAN, page_size=2).context == "fake"
