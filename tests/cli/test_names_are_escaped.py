"""Object names are user input: a newline, tab or terminal escape in one never splits a table row or reaches
the terminal raw; every table, reason line and explain tree writes it as the messages do (Go's %q)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
FLAVORS = '''apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "multi\\nline"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "tab\\there\\u001b[31mRED"
'''
RAW = ("\x1b", "\t", "multi\nline")


def test_validate_object_column_escapes_control_characters(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "nl.yaml").write_text(FLAVORS)
    compact = kqctl("validate", str(tmp_path / "nl.yaml"))
    assert "ResourceFlavor/multi\\nline  " in compact.out and not any(raw in compact.out for raw in RAW)
    run = kqctl("validate", str(tmp_path / "nl.yaml"), "-o", "wide")
    assert run.code == 1
    assert "ResourceFlavor multi\\nline " in run.out and "ResourceFlavor tab\\there\\x1b[31mRED " in run.out
    assert not any(raw in run.out for raw in RAW)
    rows = [line for line in run.out.splitlines() if line.startswith(str(tmp_path))]
    assert len(rows) == 2, run.out  # one row per finding: no row split


@pytest.mark.parametrize("command", [["simulate"], ["audit"], ["explain", "-l", "kueue.x-k8s.io/job-uid",
                                                               "--no-estimate"]])
def test_a_workload_name_with_control_characters_is_escaped_everywhere(kqctl: Kq, tmp_path: Path,
                                                                       command: list[str]) -> None:
    sample = REPO / "samples" / "single-clusterqueue"
    workloads = (sample / "workloads.yaml").read_text()
    assert "name: job-data-prep-a81c4" in workloads
    (tmp_path / "cluster.yaml").write_text((sample / "cluster.yaml").read_text())
    before, after = workloads.split("name: job-data-prep-a81c4", 1)
    assert 'cpu: "2"' in after
    # 200 cpu can never fit: audit names it in a finding too.
    renamed = before + 'name: "job-data\\nprep\\u001b[31m"' + after.replace('cpu: "2"', 'cpu: "200"', 1)
    (tmp_path / "workloads.yaml").write_text(renamed)
    # The API server refuses the name: so does every command, naming it escaped.
    refused = kqctl(*command, str(tmp_path))
    assert refused.code == 3 and "Workload default/job-data\\nprep\\x1b[31m: metadata.name:" in refused.err
    assert "\x1b" not in refused.err and "job-data\nprep" not in refused.err
    run = kqctl(*command, str(tmp_path), "--as-given")  # read as written, as Kueue's unit tests may name things
    assert run.code == 0, run.err
    assert "job-data\\nprep\\x1b[31m" in run.out
    assert "\x1b" not in run.out and "job-data\nprep" not in run.out
