"""-R reports what it cannot read (a broken symlink, a directory without permission) instead of
skipping it silently."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_paths
from tests.support import REPO

CLUSTER = (REPO / "samples" / "cohort-borrowing" / "cluster.yaml").read_text()


def test_broken_symlink_is_reported(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "gone.yaml").symlink_to(tmp_path / "missing.yaml")
    result = load_paths(ALL_KINDS, [str(tmp_path)], recursive=True)
    assert result.objects
    assert [str(e) for e in result.unreadable] == [f"{tmp_path}/sub/gone.yaml: a broken symbolic link"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory_is_reported(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        result = load_paths(ALL_KINDS, [str(tmp_path)], recursive=True)
    finally:
        locked.chmod(0o755)
    assert any("permission denied: cannot list this directory" in str(e) for e in result.unreadable)


def test_cli_exits_3_and_names_the_broken_link(tmp_path: Path) -> None:
    from tests.support import run_kqctl

    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "missing.yaml")
    run = run_kqctl("validate", "-R", str(tmp_path))
    assert run.code == 3 and "gone.yaml: a broken symbolic link" in run.err
