"""LOAD: a file reached twice (a directory and a file inside it, a shell glob beside its directory, a path named twice,
a link to a file already named) is read once, by its resolved path: read twice, every object in it was reported as a
duplicate of itself (LOAD-DUPLICATE, exit 3)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from support import Run

from kqctl.load.sources import expand_paths

Kq = Callable[..., Run]


@pytest.mark.parametrize("given, expected", [
    (["dir"], ["dir/a.yaml", "dir/b.yaml"]),
    (["dir", "dir/a.yaml"], ["dir/a.yaml", "dir/b.yaml"]),
    (["dir/b.yaml", "dir"], ["dir/b.yaml", "dir/a.yaml"]),
    (["dir/a.yaml", "dir/a.yaml"], ["dir/a.yaml"]),
    (["dir", "dir"], ["dir/a.yaml", "dir/b.yaml"]),
    (["dir/a.yaml", "dir/../dir/a.yaml"], ["dir/a.yaml"]),
    (["dir/a.yaml", "link.yaml"], ["dir/a.yaml"]),  # a link to a file already listed
    (["link.yaml", "dir"], ["link.yaml", "dir/b.yaml"]),
    (["-", "-"], ["-", "-"]),  # standard input is not a file: read as often as named
])
def test_each_file_is_listed_once_by_the_name_first_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          given: list[str], expected: list[str]) -> None:
    (tmp_path / "dir").mkdir()
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / "dir" / name).write_text("{}\n", encoding="utf-8")
    os.symlink(tmp_path / "dir" / "a.yaml", tmp_path / "link.yaml")
    monkeypatch.chdir(tmp_path)
    assert expand_paths(given) == expected


@pytest.mark.parametrize("args, also", [
    (("simulate", "samples/single-clusterqueue"), "samples/single-clusterqueue/workloads.yaml"),
    (("simulate", "samples/single-clusterqueue/cluster.yaml", "samples/single-clusterqueue/workloads.yaml"),
     "samples/single-clusterqueue"),
    (("simulate", "samples/single-clusterqueue"), "samples/single-clusterqueue"),
    (("validate", "samples/cohort-borrowing"), "samples/cohort-borrowing/cluster.yaml"),
    (("audit", "samples/cohort-borrowing"), "samples/cohort-borrowing/cluster.yaml"),
    (("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing"),
     "samples/cohort-borrowing/workloads.yaml"),
    (("replay", "samples/single-clusterqueue", "--runtime", "10m"), "samples/single-clusterqueue/workloads.yaml"),
    (("simulate", "samples/volcano-two-teams"), "samples/volcano-two-teams/workloads.yaml"),
    (("audit", "samples/volcano-two-teams"), "samples/volcano-two-teams/cluster.yaml"),
    (("simulate", "samples/yunikorn-priority"), "samples/yunikorn-priority/pods.yaml"),
    (("validate", "samples/yunikorn-priority"), "samples/yunikorn-priority/yunikorn-configs.yaml"),
])
def test_a_directory_and_a_file_inside_it_read_the_file_once(kqctl: Kq, args: tuple[str, ...], also: str) -> None:
    once, twice = kqctl(*args), kqctl(*args, also)
    assert "LOAD-DUPLICATE" not in twice.out + twice.err
    assert (twice.code, twice.out) == (once.code, once.out)
    assert once.code in (0, 1), once.err
