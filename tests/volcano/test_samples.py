"""The shipped Volcano samples: the valid ones validate clean and simulate as their comments say; the
broken one shows every kind of finding, each in the file whose ``# expect`` comment names it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.support import REPO, run_kqctl

SAMPLES = REPO / "samples"
EXPECT = re.compile(r"#\s*expect\s+([A-Z][A-Z0-9-]+)")
EXPECT_AGAINST = re.compile(r"#\s*expect-against\s+([A-Z][A-Z0-9-]+)")
VOLCANO = ("--scheduler", "volcano")
BROKEN = SAMPLES / "volcano-broken"
# The command 80-against.yaml's comment gives: the sample applied to the cluster in cluster/.
AGAINST = ("--against", str(BROKEN / "cluster"), "--prune",
           "--scheduler-conf", str(BROKEN / "cluster" / "volcano-scheduler.conf"),
           "--webhook-flag", "enable-queue-allocated-pods-check=true")


def _rules_per_file(out: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for document in json.loads(out)["documents"]:
        found.setdefault(document["file"].rsplit("/", 1)[-1], set()).update(f["ruleId"] for f in document["findings"])
    return found


@pytest.mark.parametrize("sample", ["volcano-two-teams", "volcano-hierarchy"])
def test_valid_sample_has_no_errors_or_warnings(sample: str) -> None:
    run = run_kqctl("validate", str(SAMPLES / sample), *VOLCANO, "--fail-on", "warning")
    assert run.code == 0, run.out


def test_seed_sample_warns_only_that_deserved_is_ignored() -> None:
    run = run_kqctl("validate", str(SAMPLES / "volcano-seed"), *VOLCANO, "-o", "json")
    assert run.code == 0, run.out
    assert set().union(*_rules_per_file(run.out).values()) == {"VC-LINT-DESERVED-IGNORED"}


def test_broken_sample_reports_exactly_the_expected_rules_file_by_file() -> None:
    run = run_kqctl("validate", str(BROKEN), *VOLCANO, "-o", "json")
    assert run.code == 1
    expected = {path.name: set(EXPECT.findall(path.read_text())) for path in sorted(BROKEN.glob("*.yaml"))}
    got = _rules_per_file(run.out)
    assert {name: rules for name, rules in got.items() if rules} == {n: r for n, r in expected.items() if r}


def test_broken_sample_against_its_cluster_adds_the_update_delete_and_tree_rules_file_by_file() -> None:
    # Q5, H3, H6, H7 judge a queue the cluster already holds (its stored status, its children), D1-D3 a
    # deletion and VC-TREE-NONLEAF hierarchical capacity: none can fire on the manifests alone.
    run = run_kqctl("validate", str(BROKEN), *AGAINST, "-o", "json")
    assert run.code == 1
    expected = {path.name: set(EXPECT.findall(path.read_text())) | set(EXPECT_AGAINST.findall(path.read_text()))
                for path in [*sorted(BROKEN.glob("*.yaml")), *sorted((BROKEN / "cluster").glob("*.yaml"))]}
    expected["50-scheduler-conf.yaml"] = set()  # --scheduler-conf is read instead of this ConfigMap
    got = _rules_per_file(run.out)
    assert {name: rules for name, rules in got.items() if rules} == {n: r for n, r in expected.items() if r}
    assert {"VC-Q5", "VC-H3", "VC-H6", "VC-H7", "VC-D1", "VC-D2", "VC-D3", "VC-TREE-NONLEAF"} <= set().union(
        *got.values())


def test_broken_sample_covers_every_kind_of_finding() -> None:
    run = run_kqctl("validate", str(SAMPLES / "volcano-broken"), *VOLCANO, "--vap", "-o", "json")
    rules = set().union(*_rules_per_file(run.out).values())
    kinds = {"SCHEMA-", "VC-Q", "VC-H", "VC-ROOT", "VC-VAP-", "VC-JOB-", "VC-PG-", "VC-CONF-", "VC-LINT-",
             "LOAD-DUPLICATE", "LOAD-NO-MATCH"}
    assert {k for k in kinds if any(r.startswith(k) for r in rules)} == kinds


def _simulated(sample: str) -> dict[str, dict[str, Any]]:
    run = run_kqctl("simulate", str(SAMPLES / sample), *VOLCANO, "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["stopReason"] == "steady state"
    return data["podGroups"]  # type: ignore[no-any-return]


def test_seed_sample_runs_the_sweep_and_holds_the_big_job_at_the_queue() -> None:
    groups = _simulated("volcano-seed")
    assert groups["research/sweep"]["phase"] == "Running"
    assert groups["research/tune-llm"]["phase"] == "Pending"
    assert groups["research/tune-llm"]["reason"] == {
        "gate": "queue-quota", "message": "queue resource quota insufficient: insufficient cpu, insufficient memory"}


def test_two_teams_sample_splits_by_weight_and_starves_team_b_behind_inqueue_work() -> None:
    groups = _simulated("volcano-two-teams")
    running = {name for name, g in groups.items() if g["phase"] == "Running"}
    assert running == {"team-a/team-a-job-0", "team-a/team-a-job-1", "team-b/team-b-job-0", "team-b/team-b-job-1",
                       "team-b/team-b-job-2"}
    waiting = [g for name, g in groups.items() if name.startswith("team-b/") and name not in running]
    assert {g["reason"]["gate"] for g in waiting} == {"overcommit"}


def test_hierarchy_sample_caps_ops_and_eng_web_by_their_ancestors() -> None:
    groups = _simulated("volcano-hierarchy")
    assert {name: g["phase"] for name, g in groups.items()} == {
        "ml/train-a": "Running", "ml/train-b": "Running", "ops/backup": "Running", "ops/reindex": "Pending",
        "web/render": "Pending"}


def test_explain_on_a_sample_names_the_gate_and_a_verified_fix() -> None:
    run = run_kqctl("explain", "team-b/team-b-job-3", str(SAMPLES / "volcano-two-teams"), *VOLCANO)
    assert run.code == 0, run.err
    assert "overcommit" in run.out and "  - raise overcommit-factor" in run.out


def _readme_runs() -> list[tuple[str, str]]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n## Volcano\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```text\n\$ (.*?)\n(.*?)```", section, re.S)


@pytest.mark.parametrize("command, shown", _readme_runs())
def test_the_readme_shows_real_volcano_runs(command: str, shown: str) -> None:
    import shlex

    args = shlex.split(command)  # a plan's target is quoted
    assert args[0] == "kqctl"
    run = run_kqctl(*[str(REPO / a) if a.startswith("samples/") else a for a in args[1:]])
    assert run.code == 0, run.err
    assert run.out == shown.replace("samples/", f"{REPO}/samples/") or run.out == shown
