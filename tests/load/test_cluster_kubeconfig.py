"""Kubeconfig handling as kubectl does it, checked against the fake API server on 127.0.0.1.

Several files in KUBECONFIG, token files, exec plugins, insecure-skip-tls-verify, and credentials
that never appear in any message.
"""

from __future__ import annotations

import os
import stat
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import TOKEN, FakeApiServer, FakeCluster, sample_objects

from kqctl.errors import EXIT_CLUSTER
from kqctl.kueue.cluster import READ_PLAN
from kqctl.load.cluster import ClusterError, ClusterSnapshot, merge_kubeconfigs, read_cluster

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


@pytest.fixture
def fake() -> FakeCluster:
    return FakeCluster(objects=sample_objects())


@pytest.fixture
def server(fake: FakeCluster) -> Iterator[FakeApiServer]:
    with FakeApiServer(fake) as running:
        yield running


def write_yaml(path: Path, document: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document))
    return str(path)


def kubeconfig(clusters: Sequence[tuple[str, dict[str, Any]]] = (), users: Sequence[tuple[str, dict[str, Any]]] = (),
               contexts: Sequence[tuple[str, str, str]] = (), current: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": n, "cluster": c} for n, c in clusters],
        "users": [{"name": n, "user": u} for n, u in users],
        "contexts": [{"name": n, "context": {"cluster": c, "user": u}} for n, c, u in contexts],
    }
    if current is not None:
        document["current-context"] = current
    return document


def cluster_error(config: str | None, context: str | None = None) -> ClusterError:
    with pytest.raises(ClusterError) as caught:
        read_cluster(READ_PLAN, context, config)
    assert caught.value.exit_code == EXIT_CLUSTER == 4
    return caught.value


# --- several files in KUBECONFIG -------------------------------------------------------------------------


def test_kubeconfig_files_merge_first_definition_wins(tmp_path: Path) -> None:
    first = write_yaml(tmp_path / "a" / "config", kubeconfig(
        clusters=[("c", {"server": "https://first:6443"})], users=[("u", {"token": "first-token"})],
        contexts=[("ctx", "c", "u")]))
    second = write_yaml(tmp_path / "b" / "config", kubeconfig(
        clusters=[("c", {"server": "https://second:6443"}), ("only-second", {"server": "https://x:1"})],
        users=[("u", {"token": "second-token"})], contexts=[("ctx", "c", "u"), ("other", "only-second", "u")],
        current="other"))
    merged = merge_kubeconfigs([first, second])
    assert [c["cluster"]["server"] for c in merged["clusters"]] == ["https://first:6443", "https://x:1"]
    assert [u["user"]["token"] for u in merged["users"]] == ["first-token"]
    assert [c["name"] for c in merged["contexts"]] == ["ctx", "other"]
    assert merged["current-context"] == "other"  # the first file sets none: the second's counts


def test_current_context_comes_from_the_first_file_that_sets_it(tmp_path: Path) -> None:
    first = write_yaml(tmp_path / "a", kubeconfig(current="mine"))
    second = write_yaml(tmp_path / "b", kubeconfig(current="theirs"))
    assert merge_kubeconfigs([first, second])["current-context"] == "mine"


def test_relative_paths_are_resolved_against_their_own_file(tmp_path: Path) -> None:
    first = write_yaml(tmp_path / "a" / "config", kubeconfig(
        clusters=[("c", {"server": "https://x:1", "certificate-authority": "ca.crt"})]))
    second = write_yaml(tmp_path / "b" / "config", kubeconfig(
        users=[("u", {"tokenFile": "secrets/token", "client-key": "/abs/key",
                      "exec": {"command": "./bin/plugin", "apiVersion": "client.authentication.k8s.io/v1"}}),
               ("bare", {"exec": {"command": "gke-gcloud-auth-plugin"}})]))
    merged = merge_kubeconfigs([first, second])
    assert merged["clusters"][0]["cluster"]["certificate-authority"] == str(tmp_path / "a" / "ca.crt")
    user = merged["users"][0]["user"]
    assert user["tokenFile"] == str(tmp_path / "b" / "secrets" / "token")
    assert user["client-key"] == "/abs/key"
    assert user["exec"]["command"] == os.path.join(str(tmp_path / "b"), "./bin/plugin")
    assert merged["users"][1]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"  # looked up on PATH


def test_kubeconfig_variable_with_several_files_reads_the_cluster(server: FakeApiServer, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The first file names the context and a broken user for another cluster; the second defines what it uses.
    first = write_yaml(tmp_path / "one", kubeconfig(current="fake"))
    second = server.write_kubeconfig(tmp_path / "two")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([first, str(tmp_path / "missing"), second]))
    snapshot = read_cluster(READ_PLAN)
    assert snapshot.context == "fake"
    assert snapshot.counts()["ClusterQueue"] == 2


def test_a_current_context_defined_nowhere_is_a_cluster_error(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "config", kubeconfig(current="gone"))
    assert "its current context 'gone' is not defined" in str(cluster_error(path))


@pytest.mark.parametrize("document", [
    {"users": {"u": {"token": "x"}}},
    {"users": [{"user": {"token": "x"}}]},
    {"users": [{"name": "u", "user": ["token"]}]},
    {"clusters": "nope"},
    {"current-context": ["a"]},
    ["a", "list"],
])
def test_malformed_kubeconfigs_are_cluster_errors(tmp_path: Path, document: Any) -> None:
    path = write_yaml(tmp_path / "config", document)
    assert str(cluster_error(path)).startswith(f"cannot use the kubeconfig {path}: ")


# --- tokens ----------------------------------------------------------------------------------------------


def test_a_token_file_ending_in_a_newline_works(server: FakeApiServer, tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN + "\n")
    path = server.write_kubeconfig(tmp_path / "config", user={"tokenFile": "token"})  # relative to the file
    assert read_cluster(READ_PLAN, None, path).counts()["Workload"] == 5


def test_a_missing_token_file_is_named(server: FakeApiServer, tmp_path: Path) -> None:
    path = server.write_kubeconfig(tmp_path / "config", user={"tokenFile": "nope"})
    assert str(cluster_error(path)) == (f"cannot read the tokenFile {tmp_path / 'nope'} of user 'fake-user': "
                                        "No such file or directory")


SECRET = "s3cr3t-token-value-9f8e7d"


@pytest.mark.parametrize("user", [
    {"token": SECRET},
    {"token": SECRET + "\nX-Injected: 1"},
    {"token": f" {SECRET}\t"},
    {"username": "alice", "password": SECRET},
], ids=["rejected", "with-line-break", "with-spaces", "basic-auth"])
def test_a_rejected_or_malformed_credential_never_appears_in_the_error(server: FakeApiServer, fake: FakeCluster,
                                                                       tmp_path: Path, user: dict[str, str]) -> None:
    fake.echo_credentials = True  # even a server that quotes the header back does not get it shown
    path = server.write_kubeconfig(tmp_path / "config", user=user)
    message = str(cluster_error(path))
    assert SECRET not in message
    assert "\n" not in message


def test_a_token_in_a_yaml_error_is_not_quoted(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text(f"users:\n- name: u\n  user:\n    token: {SECRET}\n   bad: indent: [\n")
    message = str(cluster_error(str(path)))
    assert message.startswith(f"cannot use the kubeconfig {path}: not valid YAML at line ")
    assert SECRET not in message


def test_a_token_file_token_rejected_by_the_server_is_not_shown(server: FakeApiServer, fake: FakeCluster,
                                                                tmp_path: Path) -> None:
    fake.echo_credentials = True
    (tmp_path / "token").write_text(SECRET + "\n")
    path = server.write_kubeconfig(tmp_path / "config", user={"tokenFile": str(tmp_path / "token")})
    message = str(cluster_error(path))
    assert "401" in message and SECRET not in message


# --- exec plugins ----------------------------------------------------------------------------------------


def test_a_missing_exec_plugin_is_named(server: FakeApiServer, tmp_path: Path) -> None:
    path = server.write_kubeconfig(tmp_path / "config", user={"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "kqctl-no-such-plugin"}})
    assert str(cluster_error(path)) == ("exec plugin 'kqctl-no-such-plugin' not found on PATH, needed by user "
                                        "'fake-user'")


def test_an_exec_plugin_gives_the_token(server: FakeApiServer, tmp_path: Path) -> None:
    plugin = tmp_path / "bin" / "auth-plugin"
    plugin.parent.mkdir()
    credential = ('{"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", '
                  f'"status": {{"token": "{TOKEN}"}}}}')
    plugin.write_text(f"#!/bin/sh\necho '{credential}'\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    path = server.write_kubeconfig(tmp_path / "config", user={"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "./bin/auth-plugin"}})
    assert read_cluster(READ_PLAN, None, path).counts()["LocalQueue"] == 2


# --- insecure-skip-tls-verify ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    directory = tmp_path_factory.mktemp("tls")
    cert, key = str(directory / "cert.pem"), str(directory / "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


def test_insecure_skip_tls_verify_warns_once_per_run(fake: FakeCluster, tmp_path: Path,
                                                     certificate: tuple[str, str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer(fake, tls=certificate) as server:
        path = server.write_kubeconfig(tmp_path / "config", cluster={"insecure-skip-tls-verify": True})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            snapshot: ClusterSnapshot = read_cluster(READ_PLAN, None, path)
    assert snapshot.server.startswith("https://")
    assert len([r for r in fake.requests if r.path.endswith("workloads")]) >= 2  # many requests...
    assert [str(w.message) for w in caught if "Insecure" in type(w.message).__name__] == []
    err = capsys.readouterr().err
    assert err.count("warning") == 1  # ...one warning
    assert "is not verified (insecure-skip-tls-verify" in err


def test_a_verified_tls_server_needs_no_warning(fake: FakeCluster, tmp_path: Path, certificate: tuple[str, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer(fake, tls=certificate) as server:
        path = server.write_kubeconfig(tmp_path / "config", cluster={"certificate-authority": certificate[0]})
        assert read_cluster(READ_PLAN, None, path).counts()["Cohort"] == 1
    assert "warning" not in capsys.readouterr().err


def test_insecure_skip_tls_verify_on_a_plain_http_server_warns_of_nothing(fake: FakeCluster, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer(fake) as server:
        assert server.url.startswith("http://")
        path = server.write_kubeconfig(tmp_path / "config", cluster={"insecure-skip-tls-verify": True})
        assert read_cluster(READ_PLAN, None, path).counts()["Cohort"] == 1
    assert "not verified" not in capsys.readouterr().err
