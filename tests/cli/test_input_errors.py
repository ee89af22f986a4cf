"""Inputs that would silently give a clean answer are errors: empty input, a folder needing -R, cluster
flags without --from-cluster."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
COMMANDS = ["validate", "simulate", "explain", "audit"]


def arguments(command: str, *paths: str) -> list[str]:
    return [command, "ns/name", *paths] if command == "explain" else [command, *paths]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("stdin", [b"", b"---\n", b"# only a comment\n"])
def test_an_empty_input_is_an_input_error(kqctl: Kq, command: str, stdin: bytes) -> None:
    run = kqctl(*arguments(command, "-"), stdin=stdin)
    assert run.code == 3, run.out + run.err
    assert "<stdin>: no Kubernetes objects found" in run.err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_with_manifests_only_in_subfolders_says_to_use_r(kqctl: Kq, command: str, tmp_path: Path) -> None:
    nested = tmp_path / "team" / "queues"
    nested.mkdir(parents=True)
    (nested / "cluster.yaml").write_text((REPO / "samples" / "preemption" / "cluster.yaml").read_text())
    run = kqctl(*arguments(command, str(tmp_path)))
    assert run.code == 3
    assert "pass -R" in run.err and "cluster.yaml" in run.err
    assert kqctl("validate", "-R", str(tmp_path)).code == 0


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flags, named", [
    (["--context", "prod"], "--context only applies"),
    (["--kubeconfig", "/nonexistent"], "--kubeconfig only applies"),
    (["--context", "prod", "--kubeconfig", "k"], "--context and --kubeconfig only apply"),
])
def test_cluster_flags_without_from_cluster_are_a_usage_error(kqctl: Kq, command: str, flags: list[str],
                                                              named: str) -> None:
    run = kqctl(*arguments(command, str(REPO / "samples" / "preemption")), *flags)
    assert run.code == 2
    assert named in run.err and "--from-cluster" in run.err
