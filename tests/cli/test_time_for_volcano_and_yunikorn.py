"""kqctl replay, diff and plan on Volcano and YuniKorn inputs, through the real commands (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_kqctl

VOLCANO = "samples/volcano-two-teams"
YUNIKORN = "samples/yunikorn-priority"
NOW = ("--now", "2026-01-01T12:00:00Z")


# --- replay ----------------------------------------------------------------------------------------------------


def test_volcano_replay_as_json_names_the_scheduler_its_rules_and_every_podgroup() -> None:
    run = run_kqctl("replay", VOLCANO, "--runtime", "30m", *NOW, "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["scheduler"] == "Volcano" and data["model"]["rules"][0] == "VC-R1"
    assert len(data["workloads"]) == 12 and data["overall"]["timeToStart"]["p95Ms"] == 1_800_000
    assert set(data["usage"]["queues"]) == {"team-a", "team-b"}


def test_yunikorn_replay_table_speaks_of_applications_and_queue_paths() -> None:
    run = run_kqctl("replay", YUNIKORN, "--runtime", "30m", *NOW)
    assert run.code == 0, run.err
    assert run.out.startswith("Replayed 4 YuniKorn applications")
    assert "root.tenant1.a" in run.out and "Time until allocated per queue:" in run.out


def test_yunikorn_replay_json_keeps_every_pod_beside_the_applications() -> None:
    data = json.loads(run_kqctl("replay", YUNIKORN, "--runtime", "30m", *NOW, "-o", "json").out)
    assert set(data["workloads"]) == {"a-job", "b-job", "sys-job", "t2-job"}
    assert "team1/a-job-0" in data["pods"]


def test_n_lists_the_podgroups_of_a_namespace_and_the_figures_still_cover_every_one() -> None:
    data = json.loads(run_kqctl("replay", VOLCANO, "--runtime", "30m", *NOW, "-n", "team-b", "-o", "json").out)
    assert set(data["workloads"]) == {f"team-b/team-b-job-{i}" for i in range(6)}
    assert data["overall"]["workloads"] == 12


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_volcano_trace_submits_vcjobs_that_arrive_on_time(tmp_path: Path) -> None:
    trace = write(tmp_path, "arrivals.csv", "time,namespace,queue,name,pods,cpu,memory,runtime\n"
                                            "10m,team-b,team-b,burst,2,2,4Gi,15m\n")
    data = json.loads(run_kqctl("replay", VOLCANO, "--trace", trace, "--runtime", "30m", *NOW, "-o", "json").out)
    burst = data["workloads"]["team-b/burst"]
    assert burst["arrivalMs"] == 600_000 and burst["runtimeMs"] == 900_000


def test_a_trace_row_naming_a_queue_the_inputs_lack_is_a_located_error(tmp_path: Path) -> None:
    trace = write(tmp_path, "arrivals.csv", "time,namespace,queue,cpu\n0s,team-b,team-c,1\n")
    run = run_kqctl("replay", VOLCANO, "--trace", trace, *NOW)
    assert run.code == 3 and "arrivals.csv:2:3" in run.err and "Queue team-c is not in the inputs" in run.err


def test_a_trace_priority_without_a_priority_class_is_refused_for_volcano(tmp_path: Path) -> None:
    trace = write(tmp_path, "arrivals.csv", "time,namespace,queue,priority,cpu\n0s,team-b,team-b,100,1\n")
    run = run_kqctl("replay", VOLCANO, "--trace", trace, *NOW)
    assert run.code == 3 and "from its PriorityClass" in run.err


def test_a_yunikorn_trace_submits_pods_of_one_application_per_row(tmp_path: Path) -> None:
    trace = write(tmp_path, "arrivals.yaml", "- {time: 1m, namespace: team1, queue: root.tenant1.b, name: extra, "
                                             "pods: 2, priorityClass: low, cpu: 1, memory: 1Gi, runtime: 5m}\n")
    data = json.loads(run_kqctl("replay", YUNIKORN, "--trace", trace, "--runtime", "30m", *NOW, "-o", "json").out)
    assert data["workloads"]["extra"]["arrivalMs"] == 60_000
    assert {"team1/extra-0", "team1/extra-1"} <= set(data["pods"])


def test_a_yunikorn_trace_queue_no_rule_can_create_is_a_located_error(tmp_path: Path) -> None:
    trace = write(tmp_path, "arrivals.csv", "time,namespace,queue,cpu\n0s,team1,root.tenant3,1\n")
    run = run_kqctl("replay", YUNIKORN, "--trace", trace, *NOW)
    assert run.code == 3 and "queue root.tenant3 is not in the configuration" in run.err


def test_a_runtime_annotation_that_does_not_parse_is_a_located_input_error(tmp_path: Path) -> None:
    text = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted(Path(YUNIKORN).glob("*.yaml")))
    annotated = text.replace("metadata:\n  name: a-job-0", "metadata:\n  annotations: {kqctl.dev/runtime: soon}\n"
                             "  name: a-job-0", 1)
    assert annotated != text
    path = write(tmp_path, "cluster.yaml", annotated)
    run = run_kqctl("replay", path, *NOW)
    assert run.code == 3 and "kqctl.dev/runtime" in run.err and "cluster.yaml:" in run.err


@pytest.mark.parametrize("flag", [("--cycle-latency", "50ms"), ("--fair-sharing",),
                                  ("--feature-gates", "PartialAdmission=false")])
def test_kueue_s_replay_options_are_refused_for_volcano(flag: tuple[str, ...]) -> None:
    run = run_kqctl("replay", VOLCANO, *flag, *NOW)
    assert run.code == 2 and "Kueue only" in run.err and "Volcano's" in run.err


def test_kueue_s_summary_is_refused_for_yunikorn() -> None:
    run = run_kqctl("replay", YUNIKORN, "-o", "summary", *NOW)
    assert run.code == 2 and "Kueue's performance summary" in run.err


def test_the_schedule_period_is_volcano_s_alone() -> None:
    run = run_kqctl("replay", YUNIKORN, "--schedule-period", "2s", *NOW)
    assert run.code == 2 and "service.schedulingInterval" in run.err
    fast = json.loads(run_kqctl("replay", VOLCANO, "--schedule-period", "250ms", *NOW, "-o", "json").out)
    assert fast["model"]["periodMs"] == 250


# --- diff ------------------------------------------------------------------------------------------------------


def test_volcano_diff_as_markdown_shows_the_queue_change_and_the_podgroups_it_lets_run() -> None:
    run = run_kqctl("diff", VOLCANO, "--set", "queue/team-a.spec.weight=3", "--replay", "--runtime", "30m", *NOW,
                    "-o", "markdown")
    assert run.code == 0, run.err
    assert run.out.startswith("### kqctl diff (Volcano): changes")
    assert "| Queue | team-a | weight | 1 | 3 |" in run.out
    assert "| team-a/team-a-job-2 | Inqueue | Running (2/2 pods on node-" in run.out
    assert "#### Time until running per PodGroup (replay)" in run.out


def _with_overcommit_factor(folder: Path, factor: str) -> str:
    """The Volcano sample with ``overcommit-factor: FACTOR`` in its scheduler configuration."""
    for source in Path(VOLCANO).glob("*.yaml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "cluster.yaml":
            argument = f"        arguments:\n          overcommit-factor: {factor}\n"
            text = text.replace("      - name: overcommit\n", "      - name: overcommit\n" + argument)
        (folder / source.name).write_text(text, encoding="utf-8")
    return str(folder)


@pytest.mark.parametrize("factor", ["1.5", "1.33", "2", "0.875"])
@pytest.mark.parametrize("output", ["table", "markdown", "json"])
def test_volcano_diff_prints_an_overcommit_factor_as_the_decimal_written(tmp_path: Path, factor: str,
                                                                          output: str) -> None:
    run = run_kqctl("diff", VOLCANO, _with_overcommit_factor(tmp_path, factor), "-o", output)
    assert run.code == 0, run.err
    if output == "json":
        assert {"kind": "SchedulerConfiguration", "name": "volcano-scheduler.conf",
                "field": "overcommit.arguments.overcommit-factor", "before": "-",
                "after": factor} in json.loads(run.out)["configuration"]
    else:
        row = next(line for line in run.out.splitlines() if "overcommit-factor" in line)
        assert row.replace("|", " ").split()[-2:] == ["-", factor]


def test_yunikorn_diff_edits_queue_properties_with_set() -> None:
    run = run_kqctl("diff", YUNIKORN, "--set", "queue/root.tenant1.properties.priority.offset=11", *NOW, "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert {"kind": "queue", "name": "root.tenant1", "field": "properties.priority.offset", "before": "10",
            "after": "11"} in data["configuration"]
    assert data["regressions"] == ["team2/t2-job-2"]


def test_fail_on_regression_exits_1_and_names_the_workloads() -> None:
    run = run_kqctl("diff", YUNIKORN, "--set", "queue/root.tenant1.properties.priority.offset=11", *NOW,
                    "--fail-on", "regression")
    assert run.code == 1 and "team2/t2-job-2" in run.err


def test_a_queue_override_naming_no_queue_says_which_there_are() -> None:
    run = run_kqctl("diff", YUNIKORN, "--set", "queue/root.tenant9.properties.priority.offset=1", *NOW)
    assert run.code == 2 and "did you mean tenant2?" in run.err


def test_diff_runtimes_without_a_replay_are_refused() -> None:
    run = run_kqctl("diff", VOLCANO, "--set", "queue/team-a.spec.weight=3", "--runtime", "30m", *NOW)
    assert run.code == 2 and "--replay" in run.err


# --- plan ------------------------------------------------------------------------------------------------------


def test_volcano_plan_finds_the_smallest_weight_and_proves_it() -> None:
    run = run_kqctl("plan", VOLCANO, "--for", "queue/team-a", "--field", "weight", "--runtime", "30m", *NOW,
                    "--target", "p95(time-to-admission) < 20m", "--jobs", "1", "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["answer"] == {"weight": "9"} and data["current"] == {"weight": "1"}
    assert data["proof"]["atAnswer"]["met"] and not data["proof"]["belowAnswer"]["met"]
    assert data["proof"]["belowAnswer"]["weight"] == {"weight": "8"}


def test_yunikorn_plan_finds_a_guaranteed_and_says_it() -> None:
    run = run_kqctl("plan", YUNIKORN, "--for", "queue/root.tenant1", "--runtime", "30m", *NOW,
                    "--target", "p95(time-to-admission) < 10m", "--jobs", "1")
    assert run.code == 0, run.err
    assert "Answer: guaranteed memory 6Gi, vcore 6 (today: memory 8Gi, vcore 4)." in run.out


def test_a_target_nothing_meets_exits_1() -> None:
    run = run_kqctl("plan", VOLCANO, "--for", "queue/team-a", "--field", "capability", "--resource", "cpu",
                    "--max", "cpu=8", "--runtime", "30m", *NOW, "--target", "p50(time-to-finish) < 1m", "--jobs", "1")
    assert run.code == 1 and "Not met at any capability" in run.out


def test_field_is_refused_for_kueue() -> None:
    run = run_kqctl("plan", "samples/replay", "--for", "clusterqueue/team-a", "--field", "max", "--target",
                    "p95(time-to-admission) < 10m")
    assert run.code == 2 and "--field applies to Volcano" in run.err


def test_plot_writes_the_usage_and_wait_charts_and_says_so(tmp_path: Path) -> None:
    run = run_kqctl("replay", YUNIKORN, "--runtime", "30m", *NOW, "--plot", str(tmp_path / "charts"))
    assert run.code == 0, run.err
    written = sorted(p.name for p in (tmp_path / "charts").iterdir())
    assert {"usage-queues.svg", "time-to-start.svg"} <= set(written)
    assert "wrote 4 chart file(s)" in run.err and "usage-queues (4 panel(s)); time-to-start (3 curve(s))" in run.err
    assert "root.tenant1 · vcore" in (tmp_path / "charts" / "usage-queues.svg").read_text(encoding="utf-8")


@pytest.mark.parametrize(("sample", "typed", "meant"), [(VOLCANO, "team-a", "queue/team-a"),
                                                        (YUNIKORN, "root.tenant1", "queue/root.tenant1"),
                                                        (YUNIKORN, "tenant1", "queue/tenant1")])
def test_plan_for_a_bare_queue_name_says_the_scope_it_means(sample: str, typed: str, meant: str) -> None:
    run = run_kqctl("plan", sample, "--for", typed, "--target", "p95(time-to-admission) < 10m", *NOW)
    assert run.code == 2 and f"did you mean {meant}?" in run.err, run.err


@pytest.mark.parametrize("sample", [VOLCANO, YUNIKORN, "samples/replay"])
def test_plan_for_a_name_that_is_no_queue_suggests_none(sample: str) -> None:
    run = run_kqctl("plan", sample, "--for", "nothere", "--target", "p95(time-to-admission) < 10m", *NOW)
    assert run.code == 2 and ("queue/NAME" in run.err or "queue/PATH" in run.err), run.err
    assert "did you mean" not in run.err


@pytest.mark.parametrize(("typed", "meant"), [("team-a", "clusterqueue/team-a"), ("ml", "cohort/ml")])
def test_kueue_plan_for_a_bare_name_says_the_scope_it_means(typed: str, meant: str) -> None:
    run = run_kqctl("plan", "samples/replay", "--for", typed, "--target", "p95(time-to-admission) < 10m", *NOW)
    assert run.code == 2 and f"did you mean {meant}?" in run.err, run.err
