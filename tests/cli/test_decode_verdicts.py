"""One verdict for every command: what validate rejects in the fields the engine reads, simulate,
explain and audit refuse (exit 3, located) instead of simulating; what Kueue decodes, every command
reads the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = REPO / "samples" / "cohort-borrowing"
WORKLOAD = (SAMPLE / "workloads.yaml").read_text().split("\n---\n")[-1]  # team-b/job-model-eval-6a0f3
KEY = "team-b/job-model-eval-6a0f3"

REFUSED = [
    ("request-not-a-quantity", 'cpu: "2"', "cpu: abc"),
    ("negative-request", 'cpu: "2"', 'cpu: "-2"'),
    ("negative-count", "count: 1", "count: -1"),
    ("priority-beyond-int32", "priority: 100", "priority: 3000000000"),
    ("min-count-above-count", "count: 1", "count: 1\n    minCount: 3"),
]
# Kueue's webhook decodes these (Go's quantity parser: "." and "-" are 0, surrounding space trimmed)
# and re-encodes them before the schema sees them: the API server stores them, every command reads them.
READ = [
    ("dot-is-zero", 'cpu: "2"', 'cpu: "."'),
    ("dash-is-zero", 'cpu: "2"', 'cpu: "-"'),
    ("trailing-space", 'cpu: "2"', 'cpu: "2 "'),
]


def _inputs(tmp_path: Path, old: str, new: str) -> str:
    assert old in WORKLOAD
    (tmp_path / "cluster.yaml").write_text((SAMPLE / "cluster.yaml").read_text())
    (tmp_path / "workload.yaml").write_text(WORKLOAD.replace(old, new, 1))
    return str(tmp_path)


@pytest.mark.parametrize("name,old,new", REFUSED, ids=[c[0] for c in REFUSED])
def test_what_validate_rejects_every_command_refuses(kqctl: Kq, tmp_path: Path, name: str, old: str,
                                                      new: str) -> None:
    inputs = _inputs(tmp_path, old, new)
    assert kqctl("validate", inputs).code == 1
    for command in (["simulate"], ["audit"], ["explain", KEY]):
        run = kqctl(*command, inputs)
        assert run.code == 3, (command, run.out, run.err)
        assert "workload.yaml:" in run.err and "Workload job-model-eval-6a0f3: spec." in run.err


@pytest.mark.parametrize("name,old,new", READ, ids=[c[0] for c in READ])
def test_what_kueue_decodes_every_command_reads(kqctl: Kq, tmp_path: Path, name: str, old: str, new: str) -> None:
    inputs = _inputs(tmp_path, old, new)
    assert kqctl("validate", inputs).code == 0
    for command in (["simulate"], ["audit"], ["explain", KEY]):
        assert kqctl(*command, inputs).code == 0, command


def test_a_cohort_quantity_breaking_the_pattern_is_refused_everywhere(kqctl: Kq, tmp_path: Path) -> None:
    for source in (REPO / "samples" / "hierarchical-cohorts").iterdir():
        (tmp_path / source.name).write_text(source.read_text())
    cohorts = tmp_path / "cohorts.yaml"
    cohorts.write_text(cohorts.read_text().replace('nominalQuota: "16"', 'nominalQuota: "."', 1))
    assert kqctl("validate", str(tmp_path)).code == 1
    for command in ("simulate", "audit"):
        run = kqctl(command, str(tmp_path))
        assert run.code == 3 and "SCHEMA-PATTERN" in run.err and "cohorts.yaml:" in run.err
