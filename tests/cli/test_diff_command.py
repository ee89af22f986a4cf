"""``kqctl diff`` through the real command: directories, --set, --with, markdown, --fail-on regression."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kqctl = Callable[..., Run]
NOW = ("--now", "2026-09-14T09:30:00Z")
SAMPLE = "samples/cohort-borrowing"
LESS_CPU = "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=10"


def test_set_changes_against_the_same_snapshot(kqctl: Kqctl) -> None:
    result = kqctl("diff", SAMPLE, "--set", LESS_CPU, *NOW)
    assert result.code == 0, result.err
    # hparam-sweep no longer fits; the two admitted before it now hold quota above the lower nominal.
    assert result.out.startswith("3 of 6 workloads change; 1 admitted before is no longer admitted.")
    assert "Admitted on default-flavor, borrowing cpu 6" in result.out
    assert "default-flavor/cpu nominalQuota" in result.out and "(regression)" in result.out


def test_fail_on_regression_exits_1_and_names_the_workload(kqctl: Kqctl) -> None:
    result = kqctl("diff", SAMPLE, "--set", LESS_CPU, "--fail-on", "regression", *NOW)
    assert result.code == 1 and "team-a/job-hparam-sweep-21f8c" in result.err
    assert kqctl("diff", SAMPLE, "--set", LESS_CPU.replace("=10", "=30"), "--fail-on", "regression", *NOW).code == 0


def test_a_prs_base_and_head_directories_share_the_workloads(kqctl: Kqctl, tmp_path: Path) -> None:
    cluster = (REPO / SAMPLE / "cluster.yaml").read_text()
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    (tmp_path / "base" / "cluster.yaml").write_text(cluster)
    head = cluster.replace("nominalQuota: 20", "nominalQuota: 30", 1)
    head = head.replace("nominalQuota: 80Gi", "nominalQuota: 120Gi", 1)
    (tmp_path / "head" / "cluster.yaml").write_text(head)
    result = kqctl("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--with", f"{SAMPLE}/workloads.yaml",
                   *NOW, "-o", "json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["compared"] == 6 and data["regressions"] == []
    assert data["workloads"]["team-a/job-llm-finetune-0d5b7"]["changes"] == ["decision"]


def test_markdown_is_a_pull_request_comment_with_replayed_percentiles(kqctl: Kqctl) -> None:
    result = kqctl("diff", SAMPLE, "--set", LESS_CPU.replace("=10", "=30"),
                   "--set", "clusterqueue/team-a.flavor.default-flavor.memory.nominalQuota=120Gi",
                   "--replay", "--runtime", "30m", *NOW, "-o", "markdown")
    assert result.code == 0, result.err
    assert result.out.startswith("### kqctl diff: changes\n")
    row = "| team-a/job-llm-finetune-0d5b7 | Inadmissible | Admitted on default-flavor, borrowing cpu 10, memory 40Gi |"
    assert row + " decision |" in result.out
    assert "#### Time to admission (replay)" in result.out and "| clusterQueue | team-a |" in result.out


def test_nothing_to_compare_and_bad_options_are_usage_errors(kqctl: Kqctl) -> None:
    assert "nothing to compare" in kqctl("diff", SAMPLE).err
    assert kqctl("diff", SAMPLE, "--set", LESS_CPU, "--fail-on", "worse").code == 2
    assert kqctl("diff", SAMPLE, "--set", LESS_CPU, "-o", "html").code == 2
    missing = kqctl("diff", SAMPLE, "no/such/dir", *NOW)
    assert missing.code == 3 and "no/such/dir" in missing.err


QUOTA = "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota="
RECLAIM = "clusterqueue/team-a.spec.preemption.reclaimWithinCohort="


@pytest.mark.parametrize("command", ["diff", "simulate", "replay", "explain"])
@pytest.mark.parametrize("value,line,rule,message", [
    (QUOTA + "abc", 68, "DEF-3-DECODE", "quantities must match the regular expression"),
    (QUOTA + "-5", 68, "VAL-CQ-21", 'Invalid value: "-5": must be greater than or equal to 0'),
    (RECLAIM + "Sometimes", 60, "SCHEMA-ENUM", 'Unsupported value: "Sometimes"'),
])
def test_def_3_a_set_the_api_server_would_reject_is_refused_as_a_file_value_is(
        kqctl: Kqctl, command: str, value: str, line: int, rule: str, message: str) -> None:
    args = {"explain": ("explain", "team-a/job-llm-finetune-0d5b7", SAMPLE)}.get(command, (command, SAMPLE))
    # Another, valid --set on the same object first: the message names the one that breaks it.
    result = kqctl(*args, "--set", RECLAIM + "Never", "--set", value, *NOW)
    assert result.code == 3, result.out + result.err
    assert f"cluster.yaml:{line} (document 5): --set {value!r}: the API server would reject ClusterQueue team-a: " \
        in result.err
    assert message in result.err and f"({rule}; kqctl validate shows every problem)" in result.err


def test_validate_reports_a_rejected_set_instead_of_refusing_it(kqctl: Kqctl) -> None:
    result = kqctl("validate", SAMPLE, "--set", QUOTA + "-5")
    assert result.code == 1 and "VAL-CQ-21" in result.out


def test_a_preempted_change_names_the_preemptor_on_each_side_as_the_readme_shows(kqctl: Kqctl) -> None:
    result = kqctl("diff", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now",
                   "2026-09-14T09:00:00Z", "-o", "markdown",
                   "--set", "clusterqueue/team-a.flavor.default.cpu.nominalQuota=20",
                   "--set", "clusterqueue/team-a.flavor.default.memory.nominalQuota=80Gi")
    assert result.code == 0, result.err
    row = next(line for line in result.out.splitlines() if line.startswith("| team-a/pretrain-shard-3 |"))
    assert row == ("| team-a/pretrain-shard-3 | Preempted (inadmissible) by team-a/job-notebook-alice-af17c | "
                   "Preempted (inadmissible) by team-a/notebook-alice-2 | preempted |")
    assert f"> {row}" in (REPO / "README.md").read_text()


def test_the_readme_says_when_the_preempted_pretraining_job_gets_in_and_finishes(kqctl: Kqctl) -> None:
    data = json.loads(kqctl("replay", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now",
                            "2026-09-14T09:00:00Z", "-o", "json").out)
    shard = data["workloads"]["team-a/pretrain-shard-3"]
    hours = {key: round(shard[key] / 3_600_000, 2) for key in ("timeToAdmissionMs", "timeToFinishMs")}
    assert hours == {"timeToAdmissionMs": 4.75, "timeToFinishMs": 6.75} and shard["evictions"] == 3
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "it gets in for the last time 4h45m after it was created" in readme
    assert "is done 6h45m after it was created" in readme
