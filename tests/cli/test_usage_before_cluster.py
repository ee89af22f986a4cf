"""A usage error is reported before any cluster read: a mistyped flag must not cost the listing of a whole
cluster (issue 20: a bad --now was reported only after every object was listed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_apiserver import FakeApiServer, FakeCluster, sample_objects
from support import run_kqctl

ENV = {"HTTP_PROXY": "", "HTTPS_PROXY": "", "NO_PROXY": "127.0.0.1,localhost", "KUBECONFIG": ""}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeCluster, str]]:
    fake = FakeCluster(objects=sample_objects())
    with FakeApiServer(fake) as server:
        yield fake, server.write_kubeconfig(tmp_path_factory.mktemp("k") / "kubeconfig")


@pytest.mark.parametrize("args", [
    ("simulate", "--from-cluster", "--now", "yesterday"),
    ("simulate", "--from-cluster", "-o", "xml"),
    ("simulate", "--from-cluster", "-l", "a b"),
    ("simulate", "--from-cluster", "--fail-on", "sometimes"),
    ("simulate", "--from-cluster", "--scheduler", "volcano", "--now", "2026-01-01T00:00:00Z"),
    ("simulate", "--from-cluster", "--scheduler", "kueue", "--scheduler-conf", "volcano-scheduler.conf"),
    ("explain", "team-a/x", "--from-cluster", "--scheduler", "volcano", "--runtime", "1h"),
    ("explain", "team-a/x", "--from-cluster", "--now", "yesterday"),
    ("audit", "--from-cluster", "--scheduler", "kueue", "--scheduler-conf", "volcano-scheduler.conf"),
    ("audit", "--from-cluster", "-o", "xml"),
    ("replay", "--from-cluster", "--now", "yesterday"),
    ("validate", "--from-cluster", "--kueue-version", "v0.1"),
    ("validate", "--from-cluster", "--cache", "c"),
    ("validate", "--from-cluster", "--fail-on", "sometimes"),
    ("snapshot", "save", "-o", "snapshot.txt"),
    ("snapshot", "save", "-o", "-", "--scheduler", "slurm"),
], ids=" ".join)
def test_usage_errors_come_before_any_request(cluster: tuple[FakeCluster, str], args: tuple[str, ...],
                                              tmp_path: Path) -> None:
    fake, kubeconfig = cluster
    before = len(fake.requests)
    run = run_kqctl(*args, "--kubeconfig", kubeconfig, env=ENV)
    assert run.code == 2, run.err
    assert len(fake.requests) == before, [r.path for r in fake.requests[before:]]
