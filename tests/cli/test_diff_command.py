"""``kqctl diff`` through the real command: directories, --set, --with, markdown, --fail-on regression."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

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
    assert f"cluster.yaml:{line} (document 6): --set {value!r}: the API server would reject ClusterQueue team-a: " \
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
    # Running before the replay starts (created 07:55, --now 09:00): its waits count from the start (SIM-R1).
    assert hours == {"timeToAdmissionMs": 3.67, "timeToFinishMs": 5.67} and shard["evictions"] == 3
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "it gets in for the last time 3h40m after the replay starts" in readme
    assert "is done 5h40m after the start" in readme


CHANGED_BY_LESS_CPU = {"team-a/job-feature-etl-7b2e0", "team-a/job-hparam-sweep-21f8c",
                       "team-a/job-pretrain-resnet-4c1d9"}
LABEL_HPARAM = "workload/team-a/job-hparam-sweep-21f8c.metadata.labels.tier=gpu"  # on the AFTER side only


@pytest.mark.parametrize("args,listed", [
    ((), CHANGED_BY_LESS_CPU),
    (("-A",), CHANGED_BY_LESS_CPU),
    (("-n", "team-a"), CHANGED_BY_LESS_CPU),
    (("-n", "team-b"), set()),
    (("-l", "tier=gpu"), {"team-a/job-hparam-sweep-21f8c"}),  # labelled after only: a match on either side lists
    (("-l", "tier!=gpu", "-n", "team-a"), CHANGED_BY_LESS_CPU),  # hparam-sweep has no tier before: it matches
    (("-l", "tier", "-n", "team-b"), set()),
])
def test_namespace_and_selector_choose_the_changes_listed_and_nothing_else(kqctl: Kqctl, args: tuple[str, ...],
                                                                          listed: set[str]) -> None:
    diff = ("diff", SAMPLE, "--set", LESS_CPU, "--set", LABEL_HPARAM, *NOW)
    everything = json.loads(kqctl(*diff, "-o", "json").out)
    result = kqctl(*diff, "-o", "json", *args)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data["workloads"]) == listed
    assert data["regressions"] == sorted(listed & {"team-a/job-hparam-sweep-21f8c"})
    # The counts cover every workload, as simulate's summary does; only the lists are filtered.
    for key in ("compared", "changed", "before", "after", "configuration"):
        assert data[key] == everything[key], key
    table = kqctl(*diff, *args).out
    assert table.startswith("3 of 6 workloads change; 1 admitted before is no longer admitted.")
    assert {key for key in CHANGED_BY_LESS_CPU if f"{key} " in table} == listed
    hidden = len(CHANGED_BY_LESS_CPU) - len(listed)
    assert (f"{hidden} other workload change(s) not listed (-n/-l)." in table) == bool(hidden)
    markdown = kqctl(*diff, *args, "-o", "markdown").out
    assert {key for key in CHANGED_BY_LESS_CPU if f"| {key} |" in markdown} == listed


def test_fail_on_regression_asks_about_the_workloads_listed_as_simulates_fail_on_does(kqctl: Kqctl) -> None:
    # The regression is team-a's: a CI job for team-b passes, one for team-a (or for everybody) fails.
    assert kqctl("diff", SAMPLE, "--set", LESS_CPU, "-n", "team-b", "--fail-on", "regression", *NOW).code == 0
    for scope in (("-n", "team-a"), ()):
        result = kqctl("diff", SAMPLE, "--set", LESS_CPU, *scope, "--fail-on", "regression", *NOW)
        assert result.code == 1 and "team-a/job-hparam-sweep-21f8c" in result.err


def _split_sample(tmp_path: Path, base_workloads: str, head_workloads: str) -> tuple[str, str]:
    for side, workloads in (("base", base_workloads), ("head", head_workloads)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "cluster.yaml").write_text((REPO / SAMPLE / "cluster.yaml").read_text())
        (tmp_path / side / "workloads.yaml").write_text(workloads)
    return str(tmp_path / "base"), str(tmp_path / "head")


def test_a_removed_workload_is_listed_by_its_labels_before(kqctl: Kqctl, tmp_path: Path) -> None:
    documents = (REPO / SAMPLE / "workloads.yaml").read_text().split("\n---\n")
    model_eval = next(d for d in documents if "name: job-model-eval-6a0f3" in d)
    labelled = model_eval.replace("  labels:\n", "  labels:\n    tier: eval\n", 1)
    assert labelled != model_eval
    base, head = _split_sample(tmp_path, "\n---\n".join(labelled if d is model_eval else d for d in documents),
                               "\n---\n".join(d for d in documents if d is not model_eval))
    data = json.loads(kqctl("diff", base, head, *NOW, "-o", "json", "-l", "tier=eval").out)
    assert data["workloads"]["team-b/job-model-eval-6a0f3"]["changes"] == ["removed"]
    assert len(data["workloads"]) == 1


@pytest.mark.parametrize("namespace,message", [
    ("team-bb", "-n team-bb: no workload in namespace 'team-bb'; did you mean team-b? "
                "(workloads are in: team-a, team-b)"),
    ("default", "-n default: no workload in namespace 'default' (workloads are in: team-a, team-b)"),
])
def test_a_namespace_without_workloads_on_either_side_gets_a_did_you_mean_note(
        kqctl: Kqctl, namespace: str, message: str) -> None:
    result = kqctl("diff", SAMPLE, "--set", LESS_CPU, *NOW, "-n", namespace)
    # Not an error (kubectl finds "No resources" and exits 0): a note on stderr, nothing in what a pipe reads.
    assert result.code == 0 and f"kqctl: note: {message}" in result.err, result.err
    assert message not in result.out


def test_a_namespace_with_workloads_on_one_side_only_is_listed(kqctl: Kqctl, tmp_path: Path) -> None:
    workloads = (REPO / SAMPLE / "workloads.yaml").read_text()
    base, head = _split_sample(tmp_path, workloads, workloads.replace("namespace: team-b", "namespace: team-c"))
    result = kqctl("diff", base, head, *NOW, "-o", "json", "-n", "team-c")
    assert result.code == 0, result.err
    assert {c["changes"][0] for c in json.loads(result.out)["workloads"].values()} == {"added"}


@pytest.mark.parametrize("args,message", [
    (("-n", "team-a", "-A"), "-n/--namespace and -A/--all-namespaces cannot be used together"),
    (("-l", "tier in gpu"), "-l 'tier in gpu': "),
    (("-l", "tier=-gpu-"), "-l 'tier=-gpu-': invalid label selector"),
])
def test_bad_namespace_and_selector_options_are_usage_errors_before_reading(kqctl: Kqctl, args: tuple[str, ...],
                                                                           message: str) -> None:
    result = kqctl("diff", "no/such/dir", "--set", LESS_CPU, *args)
    assert result.code == 2 and message in result.err, result.err


def _override_dirs(tmp_path: Path, where: str, extra: str) -> tuple[str, ...]:
    """BEFORE and AFTER hold the sample's cluster.yaml, --with its workloads.yaml; ``where`` also gets ``extra``
    (z-extra.yaml, read after the others) redefining one of those objects."""
    for side in ("before", "after", "with"):
        (tmp_path / side).mkdir(parents=True)
    (tmp_path / "before" / "cluster.yaml").write_text((REPO / SAMPLE / "cluster.yaml").read_text())
    (tmp_path / "after" / "cluster.yaml").write_text((REPO / SAMPLE / "cluster.yaml").read_text())
    (tmp_path / "with" / "workloads.yaml").write_text((REPO / SAMPLE / "workloads.yaml").read_text())
    (tmp_path / where / "z-extra.yaml").write_text(extra)
    return "diff", str(tmp_path / "before"), str(tmp_path / "after"), "--with", str(tmp_path / "with"), *NOW, \
        "-o", "json"


def _refused_without_override(kqctl: Kqctl, diff: tuple[str, ...]) -> dict[str, Any]:
    refused = kqctl(*diff)
    assert refused.code == 3 and "LOAD-DUPLICATE" in refused.err and "--override" in refused.err, refused.err
    result = kqctl(*diff, "--override")
    assert result.code == 0, result.err
    return cast(dict[str, Any], json.loads(result.out))


@pytest.mark.parametrize("where", ["before", "after"])
def test_override_lets_the_last_definition_win_within_before_or_after(kqctl: Kqctl, tmp_path: Path,
                                                                      where: str) -> None:
    """--override as on simulate, within one side's inputs: BEFORE's (or AFTER's) directory defines ClusterQueue
    team-a twice, the second with 10 CPUs; with --override that one is the side's team-a."""
    import yaml

    team_a = next(d for d in yaml.safe_load_all((REPO / SAMPLE / "cluster.yaml").read_text())
                  if d and d["kind"] == "ClusterQueue" and d["metadata"]["name"] == "team-a")
    team_a["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 10
    data = _refused_without_override(kqctl, _override_dirs(tmp_path, where, yaml.safe_dump(team_a)))
    [change] = data["configuration"]
    assert (change["before"], change["after"]) == (("10", "20") if where == "before" else ("20", "10"))
    regression = ["team-a/job-hparam-sweep-21f8c"]
    assert data["regressions"] == (regression if where == "after" else [])
    assert data["workloads"]["team-a/job-hparam-sweep-21f8c"]["changes"] == ["decision"]


def test_override_lets_the_last_definition_win_within_the_shared_inputs(kqctl: Kqctl, tmp_path: Path) -> None:
    """--with's inputs define job-hparam-sweep twice, the second asking for 250m CPU a pod instead of 2: with
    --override both sides get that one, so AFTER's 10-CPU team-a (--set) still admits it."""
    documents = (REPO / SAMPLE / "workloads.yaml").read_text().split("\n---\n")
    sweep = next(d for d in documents if "name: job-hparam-sweep-21f8c" in d)
    smaller = sweep.replace('cpu: "2"', 'cpu: 250m', 1)
    assert smaller != sweep
    diff = _override_dirs(tmp_path, "with", smaller)
    data = _refused_without_override(kqctl, (*diff, "--set", LESS_CPU))
    assert data["regressions"] == []
    base = _override_dirs(tmp_path / "plain", "with", "")
    assert json.loads(kqctl(*base, "--set", LESS_CPU).out)["regressions"] == ["team-a/job-hparam-sweep-21f8c"]


DIFF_REPLAYS = {
    "kueue": ("samples/replay", "samples/replay/arrivals.csv", "2026-09-14T09:00:00Z",
              "clusterqueue/team-a.flavor.default.cpu.nominalQuota=20", "controller throughput"),
    "volcano": ("samples/volcano-two-teams", "samples/volcano-two-teams/arrivals.csv", "2026-01-01T12:00:00Z",
                "queue/team-a.spec.weight=3", "a session every 1s"),
    "yunikorn": ("samples/yunikorn-priority", "samples/yunikorn-priority/arrivals.csv", "2026-01-01T12:00:00Z",
                 "queue/root.tenant1.properties.priority.offset=11", "the shim sends new pods"),
}


@pytest.mark.parametrize("name", sorted(DIFF_REPLAYS))
def test_diff_replay_says_what_its_replays_assumed_in_every_format(kqctl: Kqctl, name: str) -> None:
    """The runtimes, the arrivals drawn and the scheduler's own timing a diff's replays ran under, as replay says them:
    once in a table and in a PR comment, per side in -o json; nothing of it without --replay."""
    sample, trace, now, change, first_note = DIFF_REPLAYS[name]
    args = ("diff", sample, "--set", change, "--trace", trace, "--now", now, "--runtime", "30m", "--arrivals",
            "jitter(10m)")
    table, comment, data = (kqctl(*args, "--replay", *fmt) for fmt in ((), ("-o", "markdown"), ("-o", "json")))
    assert (table.code, comment.code, data.code) == (0, 0, 0), table.err + comment.err + data.err
    assumed = json.loads(data.out)["replayAssumptions"]
    assert assumed["before"] and assumed["before"][0].startswith(first_note)
    assert any("were drawn: jitter(±10m) (seed 0; --arrivals)" in note for note in assumed["before"])
    for note in assumed["before"]:
        assert f"Assumed: {note}" in table.out.replace("\n  ", " ")
        assert f"- {note}" in comment.out
    assert "<details><summary>Replay assumptions</summary>" in comment.out
    steady = kqctl("diff", sample, "--set", change, "--now", now, "-o", "json")
    assert steady.code == 0 and json.loads(steady.out)["replayAssumptions"] is None


@pytest.mark.parametrize("name", sorted(DIFF_REPLAYS))
@pytest.mark.parametrize("shaping", [("--runtime", "30m"), ("--arrivals", "poisson")])
def test_diff_runtimes_and_drawn_arrivals_without_a_replay_are_refused(kqctl: Kqctl, name: str,
                                                                       shaping: tuple[str, str]) -> None:
    """They change nothing but a replay: without --replay they would be silently ignored."""
    sample, _, now, change, _ = DIFF_REPLAYS[name]
    run = kqctl("diff", sample, "--set", change, "--now", now, *shaping)
    assert run.code == 2 and f"{shaping[0]} shapes the replays: pass --replay with it" in run.err, run.err
