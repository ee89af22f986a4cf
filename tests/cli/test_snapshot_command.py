"""``kqctl snapshot save``: the real command in a subprocess, against a fake API server on 127.0.0.1."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fake_apiserver import TOKEN, FakeApiServer, FakeCluster, sample_objects
from support import REPO, Run, run_kqctl

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths

# The kubernetes client honours proxy variables; empty ones are ignored, so the fake server is reached directly.
ENV = {"HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": "", "http_proxy": "", "https_proxy": "", "all_proxy": "",
       "NO_PROXY": "127.0.0.1,localhost", "KUBECONFIG": ""}


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


def save(kubeconfig: str, output: str, *extra: str) -> Run:
    return run_kqctl("snapshot", "save", "-o", output, "--kubeconfig", kubeconfig, *extra, env=ENV)


def test_save_writes_a_yaml_snapshot_that_loads(kubeconfig: str, server: FakeApiServer, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    run = save(kubeconfig, str(path))
    assert run.code == 0, run.err
    assert run.out == ""
    assert run.err.startswith("kqctl: saved 23 objects (Namespace 3, PriorityClass 1, LimitRange 1, ")
    assert (f"from context fake ({server.url}) for Kueue (APIs v1, scheduling.k8s.io/v1, kueue.x-k8s.io/v1beta2, "
            f"batch/v1) to {path}") in run.err
    body = yaml.safe_load(path.read_text())
    assert (body["apiVersion"], body["kind"]) == ("v1", "List")
    assert body["metadata"]["annotations"]["kqctl.dev/kueue-version"] == "v1beta2"
    built = build_snapshot(load_paths(ALL_KINDS, [str(path)]))
    assert sorted(built.cluster_queues) == ["cq-a", "cq-b"] and len(built.workloads) == 5


def test_json_by_extension(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    assert save(kubeconfig, str(path)).code == 0
    body = json.loads(path.read_text())
    assert body["kind"] == "List" and len(body["items"]) == 23


def test_dash_writes_yaml_to_stdout(kubeconfig: str) -> None:
    run = save(kubeconfig, "-")
    assert run.code == 0, run.err
    assert yaml.safe_load(run.out)["kind"] == "List"
    assert "to stdout" in run.err


def test_the_snapshot_is_private_and_holds_no_credentials(kubeconfig: str, fake: FakeCluster,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    run = save(kubeconfig, str(path))
    assert run.code == 0, run.err
    assert {r.authorization for r in fake.requests} == {f"Bearer {TOKEN}"}  # the token did arrive
    assert TOKEN not in path.read_text() + run.out + run.err
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".kqctl-snapshot-")] == []


def test_secrets_and_configmaps_are_never_requested(kubeconfig: str, fake: FakeCluster, tmp_path: Path) -> None:
    assert save(kubeconfig, str(tmp_path / "snap.yaml")).code == 0
    assert not [p for p in fake.paths() if "secrets" in p]
    # No ConfigMap but Kueue's manager Configuration, got by name: never a list.
    assert [p for p in fake.paths() if "configmaps" in p] == [
        "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"]
    assert {r.method for r in fake.requests} == {"GET"}


def test_context_is_chosen_and_recorded(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    assert save(kubeconfig, str(path), "--context", "other").code == 0
    assert yaml.safe_load(path.read_text())["metadata"]["annotations"]["kqctl.dev/context"] == "other"


def test_the_saved_snapshot_feeds_validate_and_simulate(kubeconfig: str, tmp_path: Path) -> None:
    path = str(tmp_path / "snap.yaml")
    assert save(kubeconfig, path).code == 0
    validate = run_kqctl("validate", path, "--fail-on", "never")
    assert validate.code == 0, validate.err
    simulate = run_kqctl("simulate", path, "--now", "2026-09-14T10:00:00Z")
    assert simulate.code == 0, simulate.err


# --- failures: one line on stderr, the documented exit code, no file ---------------------------------------


def assert_cluster_failure(run: Run, message: str, path: Path) -> None:
    assert run.code == 4, run.err
    assert run.err.startswith(f"kqctl: error: {message}")
    assert run.err.count("\n") == 1 and "Traceback" not in run.err
    assert not path.exists()


def test_kueue_not_installed_exits_4(kubeconfig: str, fake: FakeCluster, tmp_path: Path) -> None:
    fake.kueue_installed = False
    path = tmp_path / "snap.yaml"
    assert_cluster_failure(save(kubeconfig, str(path), "--scheduler", "kueue"),
                           "cannot list resourceflavors.kueue.x-k8s.io", path)


# --- which scheduler a cluster runs, when --scheduler does not say ---------------------------------------------


def test_without_scheduler_a_volcano_cluster_is_read_for_volcano(kubeconfig: str, fake: FakeCluster,
                                                                 tmp_path: Path) -> None:
    fake.kueue_installed, fake.volcano_installed = False, True
    path = tmp_path / "snap.yaml"
    run = save(kubeconfig, str(path))
    assert run.code == 0, run.err
    assert "for Volcano (APIs v1, scheduling.k8s.io/v1, scheduling.volcano.sh/v1beta1, batch.volcano.sh/v1alpha1)" \
        in run.err
    annotations = yaml.safe_load(path.read_text())["metadata"]["annotations"]
    assert annotations["kqctl.dev/scheduler"] == "volcano" and "kqctl.dev/volcano-version" in annotations


def test_without_scheduler_a_cluster_serving_kueue_and_volcano_needs_one_named(kubeconfig: str, fake: FakeCluster,
                                                                               tmp_path: Path) -> None:
    fake.volcano_installed = True
    path = tmp_path / "snap.yaml"
    run = save(kubeconfig, str(path))
    assert run.code == 2 and "serves the API groups of Kueue and Volcano" in run.err
    assert "--scheduler kueue or --scheduler volcano" in run.err and not path.exists()
    assert save(kubeconfig, str(path), "--scheduler", "volcano").code == 0


def test_without_scheduler_a_cluster_serving_no_scheduler_group_exits_4_naming_yunikorn(
        kubeconfig: str, fake: FakeCluster, tmp_path: Path) -> None:
    fake.kueue_installed = False
    path = tmp_path / "snap.yaml"
    assert_cluster_failure(save(kubeconfig, str(path)), "the cluster serves the API group of none of Kueue "
                           "(kueue.x-k8s.io), Volcano (scheduling.volcano.sh): is one installed?; for YuniKorn, "
                           "which has no API group, pass --scheduler yunikorn", path)


def test_forbidden_list_exits_4_naming_resource_and_verb(kubeconfig: str, fake: FakeCluster, tmp_path: Path) -> None:
    fake.forbidden.add("workloads")
    path = tmp_path / "snap.yaml"
    assert_cluster_failure(save(kubeconfig, str(path)), "cannot list workloads.kueue.x-k8s.io: forbidden (403)",
                           path)


def test_unknown_context_exits_4(kubeconfig: str, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    assert_cluster_failure(save(kubeconfig, str(path), "--context", "prod"), "context 'prod' not found", path)


def test_unreachable_server_exits_4(tmp_path: Path) -> None:
    with FakeApiServer(FakeCluster()) as gone:
        kubeconfig = gone.write_kubeconfig(tmp_path / "kubeconfig")
    path = tmp_path / "snap.yaml"
    assert_cluster_failure(save(kubeconfig, str(path)), "cannot get the API groups (/apis): cannot reach", path)


@pytest.mark.parametrize("name, message", [("snap.txt", "cannot tell the format of"),
                                           ("missing/snap.yaml", "cannot write")])
def test_a_bad_output_path_is_a_usage_error_before_any_request(kubeconfig: str, fake: FakeCluster,
                                                               tmp_path: Path, name: str, message: str) -> None:
    run = save(kubeconfig, str(tmp_path / name))
    assert run.code == 2
    assert run.err.startswith(f"kqctl: error: {message}")
    assert fake.requests == []


def test_output_is_required(kubeconfig: str) -> None:
    run = run_kqctl("snapshot", "save", "--kubeconfig", kubeconfig, env=ENV)
    assert run.code == 2
    assert "--output" in run.err


def test_help_lists_save_and_its_options() -> None:
    group = run_kqctl("snapshot", "--help")
    assert group.code == 0 and "save" in group.out
    command = run_kqctl("snapshot", "save", "--help")
    assert command.code == 0
    assert all(option in command.out for option in ("--output", "--context", "--kubeconfig"))


def test_importing_the_command_does_not_import_the_kubernetes_client() -> None:
    code = "import sys, kqctl.cli.snapshot; print('kubernetes' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.parametrize("command", ["simulate", "validate", "audit"])
def test_from_cluster_reads_the_live_cluster_directly(command: str, kubeconfig: str) -> None:
    run = run_kqctl(command, "--from-cluster", "--kubeconfig", kubeconfig, "-o", "json", env=ENV)
    assert run.code in (0, 1), run.err  # validate may find something to say about the fake objects
    data = json.loads(run.out)
    if command == "simulate":
        assert len(data["workloads"]) == 5
    elif command == "validate":
        assert {d["kind"] for d in data["documents"]} >= {"ClusterQueue", "Workload"}


def test_from_cluster_and_files_together_find_duplicates(kubeconfig: str, tmp_path: Path) -> None:
    saved = tmp_path / "snap.yaml"
    assert save(kubeconfig, str(saved)).code == 0
    run = run_kqctl("validate", str(saved), "--from-cluster", "--kubeconfig", kubeconfig, "-o", "json", env=ENV)
    rules = {f["ruleId"] for d in json.loads(run.out)["documents"] for f in d["findings"]}
    assert "LOAD-DUPLICATE" in rules


def test_from_cluster_without_a_cluster_exits_4(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-kubeconfig"
    run = run_kqctl("simulate", "--from-cluster", "--kubeconfig", str(missing), env=ENV)
    assert run.code == 4 and "Traceback" not in run.err
