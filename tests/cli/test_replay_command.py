"""``kqctl replay`` through the real command (in-process): samples, traces, generator configs, errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from support import Run

SAMPLE = ("samples/replay", "--trace", "samples/replay/arrivals.csv", "--now", "2026-09-14T09:00:00Z")
SMALL_GENERATOR = """
cohorts:
- className: cohort
  count: 2
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 4
    borrowingLimit: 4
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 20
      creationIntervalMs: 100
      workloads:
      - {className: small, runtimeMs: 300, priority: 50, request: 1}
    - count: 5
      creationIntervalMs: 400
      workloads:
      - {className: large, runtimeMs: 800, priority: 200, request: 4}
"""

Kqctl = Callable[..., Run]
Write = Callable[[str, str], str]


def test_replay_of_the_sample_prints_waits_per_queue_and_priority_and_usage(kqctl: Kqctl) -> None:
    result = kqctl("replay", *SAMPLE)
    assert result.code == 0, result.err
    assert result.out.startswith("Replayed 20 workloads over ")
    for heading in ("Time to admission per ClusterQueue:", "Time to admission per priority:",
                    "Quota held over time", "Workloads (Wait"):
        assert heading in result.out
    assert "team-b/job-finetune-llama" in result.out  # a Job dated in the future became a Workload
    assert "Assumed: controller throughput" in result.out


def test_json_holds_every_workload_with_its_times_and_is_the_same_every_run(kqctl: Kqctl) -> None:
    first = kqctl("replay", *SAMPLE, "-o", "json")
    data = json.loads(first.out)
    assert set(data) >= {"start", "endMs", "cycles", "model", "overall", "percentiles", "usage",
                         "performanceSummary", "evictions", "workloads", "assumptions"}
    notebook = data["workloads"]["team-a/notebook-bob"]
    assert notebook["arrivalMs"] == 18 * 60_000 and notebook["runtimeMs"] == 25 * 60_000
    assert notebook["finishedMs"] - notebook["admittedMs"] == 25 * 60_000
    assert set(data["percentiles"]["priorities"]) == {"100", "1000"}
    assert data["usage"]["cohorts"]["ml"]["default/cpu"]["nominal"] == "32"
    assert kqctl("replay", *SAMPLE, "-o", "json").out == first.out


def test_namespace_limits_the_workloads_listed(kqctl: Kqctl) -> None:
    data = json.loads(kqctl("replay", *SAMPLE, "-o", "json", "-n", "team-a").out)
    assert data["workloads"] and all(key.startswith("team-a/") for key in data["workloads"])


def test_summary_is_kueues_performance_summary_shape(kqctl: Kqctl, write: Write) -> None:
    config = write("generator.yaml", SMALL_GENERATOR)
    result = kqctl("replay", "--generator", config, "-o", "summary")
    assert result.code == 0, result.err
    summary = yaml.safe_load(result.out)
    assert set(summary) == {"clusterQueueClasses", "workloadClasses"}
    assert set(summary["clusterQueueClasses"]["cq"]) == {"cpuAverageUsage", "cpuUsed", "firstEventTime",
                                                         "lastEventTime", "nominalQuota"}
    assert summary["clusterQueueClasses"]["cq"]["nominalQuota"] == 4 * 4000
    assert summary["workloadClasses"]["small"]["count"] == 4 * 20
    assert summary["workloadClasses"]["large"]["count"] == 4 * 5


def test_plot_writes_charts_into_a_directory(kqctl: Kqctl, tmp_path: Path) -> None:
    result = kqctl("replay", *SAMPLE, "--plot", str(tmp_path / "charts"), "-o", "yaml")
    assert result.code == 0, result.err
    names = sorted(p.name for p in (tmp_path / "charts").iterdir())
    assert {"usage-clusterqueues.svg", "usage-cohorts.svg", "time-to-admission.svg"} <= set(names)
    assert "<svg" in (tmp_path / "charts" / "usage-cohorts.svg").read_text()
    assert "wrote" in result.err and yaml.safe_load(result.out)["workloads"]


def test_until_stops_the_replay(kqctl: Kqctl) -> None:
    data = json.loads(kqctl("replay", *SAMPLE, "--until", "30m", "-o", "json").out)
    assert data["stoppedAtHorizon"] and data["endMs"] == 30 * 60_000
    assert any(w["state"] != "Finished" for w in data["workloads"].values())


def test_a_runtime_distribution_fills_in_missing_runtimes(kqctl: Kqctl) -> None:
    data = json.loads(kqctl("replay", "samples/cohort-borrowing", "--runtime", "uniform(10m,1h)", "--seed", "7",
                            "--now", "2026-09-14T09:00:00Z", "-o", "json").out)
    assert all(w["state"] == "Finished" for w in data["workloads"].values())
    assert any("draw from uniform(10m,1h) (seed 7;" in note for note in data["assumptions"])


def test_usage_errors_exit_2_before_reading_anything(kqctl: Kqctl, write: Write) -> None:
    for args, message in (
        (("--runtime", "forever"), "--runtime: 'forever' is not a duration"),
        (("--cycle-latency", "fast"), "--cycle-latency: 'fast' is not a duration"),
        (("--cycle-latency", "qps=0"), "qps='0': expected a whole number"),
        (("--until", "0s"), "--until must be longer than 0"),
        (("-o", "csv"), "unknown output format 'csv'"),
    ):
        result = kqctl("replay", "samples/replay", *args)
        assert result.code == 2 and message in result.err, (args, result.err)
    config = write("generator.yaml", SMALL_GENERATOR)
    result = kqctl("replay", "--generator", config, "samples/replay")
    assert result.code == 2 and "--generator builds its own cluster" in result.err


def test_bad_traces_and_configs_are_located_errors(kqctl: Kqctl, write: Write) -> None:
    trace = write("arrivals.csv", "time,namespace,queue,cpu\n0s,team-a,team-a-queue,1\n5q,team-a,team-a-queue,1\n")
    result = kqctl("replay", "samples/replay", "--trace", trace, "--now", "2026-09-14T09:00:00Z")
    assert result.code == 3 and f"{trace}:3:1: time: '5q' is not a duration" in result.err
    config = write("generator.yaml", SMALL_GENERATOR.replace("nominalQuota: 4", "nominalQuota: 4\n    quota: 1"))
    result = kqctl("replay", "--generator", config)
    assert result.code == 3 and f"{config}:9: cohorts[0].queuesSets[0].quota: unknown field" in result.err
    trace = write("arrivals.yaml", "- {time: 0s, namespace: team-a, queue: team-a-queue, cpu: 1, "
                  "priorityClass: urgent}\n")
    result = kqctl("replay", "samples/replay", "--trace", trace)
    assert result.code == 3 and "priorityClass: WorkloadPriorityClass 'urgent' is not in the inputs" in result.err


def test_no_headers_drops_the_header_lines_only(kqctl: Kqctl) -> None:
    result = kqctl("replay", *SAMPLE, "--no-headers", "--sort-by", "wait")
    lines = result.out.splitlines()
    full = kqctl("replay", *SAMPLE, "--sort-by", "wait").out.splitlines()
    assert result.code == 0 and len(lines) == len(full) - 4  # four tables, four header lines
    assert not any(line.startswith(("WORKLOAD ", "CLUSTERQUEUE ", "PRIORITY ", "QUEUE ")) for line in lines)


def test_progress_of_a_long_replay_is_shown_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # the width of a terminal that does not say (a StringIO here)
    import io

    from kqctl.cli.progress import Progress
    from kqctl.cli.replay import progress_reporter
    from kqctl.kueue.api.snapshot import Snapshot

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    snapshot = Snapshot(workloads=[None] * 5000)  # type: ignore[list-item]
    terminal, piped = Terminal(), io.StringIO()
    progress_reporter(Progress(terminal), snapshot)(90_000, 1234, 5000)
    progress_reporter(Progress(piped), snapshot)(90_000, 1234, 5000)
    assert "replaying [###.............] 1,234/5,000 done, virtual time 1m30s" in terminal.getvalue()
    wide = Terminal()
    progress_reporter(Progress(wide), Snapshot(workloads=[None] * 2_500_000))(  # type: ignore[list-item]
        3_600_000 * 30, 1_234_567, 2_500_000)
    assert len(wide.getvalue().removeprefix("\r\x1b[K")) < 80 and wide.getvalue().endswith("virtual time 30h")
    assert piped.getvalue() == ""


def test_a_replay_is_the_same_in_processes_with_different_hash_seeds() -> None:
    from support import run_kqctl_subprocess

    outputs = {run_kqctl_subprocess("replay", *SAMPLE, "-o", "json", env={"PYTHONHASHSEED": seed}).out
               for seed in ("1", "2")}
    assert len(outputs) == 1 and json.loads(outputs.pop())["workloads"]


def test_a_yaml_trace_with_a_priority_class(kqctl: Kqctl, write: Write) -> None:
    trace = write("arrivals.yaml", "- {time: 10m, namespace: team-a, queue: team-a-queue, name: late, "
                  "priorityClass: interactive, requests: {cpu: '1', memory: 1Gi}, runtime: 5m}\n")
    data = json.loads(kqctl("replay", "samples/replay", "--trace", trace, "--now", "2026-09-14T09:00:00Z",
                            "-o", "json").out)
    late = data["workloads"]["team-a/late"]
    assert (late["priority"], late["arrivalMs"], late["runtimeMs"], late["state"]) == (1000, 600_000, 300_000,
                                                                                        "Finished")


def test_a_now_before_the_snapshots_dates_gives_no_negative_wait(kqctl: Kqctl) -> None:
    # Explain's rule (test_a_snapshot_whose_clock_is_before_its_dates_is_read_as_now) in every command that replays:
    # a running workload dated after --now runs from the start, with a wait of 0.
    for sample, now in (("samples/cohort-borrowing", "2026-01-01T00:00:00Z"),
                        ("samples/replay", "2026-09-14T07:00:00Z")):
        data = json.loads(kqctl("replay", sample, "--now", now, "-o", "json").out)
        waits = [w["timeToAdmissionMs"] for w in data["workloads"].values() if w["timeToAdmissionMs"] is not None]
        finishes = [w["timeToFinishMs"] for w in data["workloads"].values() if w["timeToFinishMs"] is not None]
        assert waits and min(waits) >= 0 and min(finishes, default=0) >= 0, (sample, waits, finishes)
        assert any("dated after the replay's start" in note for note in data["assumptions"])
        summary = yaml.safe_load(kqctl("replay", sample, "--now", now, "-o", "summary").out)
        assert all(c["averageTimeToAdmissionMs"] >= 0 for c in summary["workloadClasses"].values())
    table = kqctl("replay", "samples/replay", "--now", "2026-09-14T07:00:00Z").out
    assert "Time to admission: P50 0ms" in table and " -" not in table.split("Assumed")[0].replace(" - ", "")


def test_a_trace_row_for_a_queue_not_in_the_inputs_is_a_located_error(kqctl: Kqctl, write: Write) -> None:
    for queue, hint in (("team-a-queu", "did you mean team-a-queue?"), ("nosuch", "namespace team-a has team-a-queue")):
        trace = write("arrivals.csv", f"time,namespace,queue,cpu\n0s,team-a,{queue},1\n")
        result = kqctl("replay", "samples/replay", "--trace", trace, "--now", "2026-09-14T09:00:00Z")
        assert result.code == 3, result.err
        assert f"{trace}:2:3: queue: LocalQueue team-a/{queue} is not in the inputs; {hint}" in result.err


def test_very_large_values_are_usage_or_input_errors_never_a_crash(kqctl: Kqctl, write: Write) -> None:
    far = write("far.csv", "time,namespace,queue,cpu,runtime\n100000000h,team-a,team-a-queue,1,1m\n")
    nort = write("nort.csv", "time,namespace,queue,cpu\n5m,team-a,team-a-queue,2\n10m,team-a,team-a-queue,4\n")
    for args, code, message in (
        (("--cycle-latency", "100000000h"), 2, "--cycle-latency: '100000000h' is longer than 100 years"),
        (("--cycle-latency", "per-head=99999999999999999us"), 2, "is longer than 100 years"),
        (("--trace", nort, "--finish-latency", "100000000h"), 2, "--finish-latency: '100000000h' is longer than"),
        (("--trace", far), 3, f"{far}:2:1: time: '100000000h' is longer than 100 years"),
    ):
        result = kqctl("replay", *SAMPLE[:1], "--now", "2026-09-14T09:00:00Z", *args)
        assert result.code == code and message in result.err, (args, result.err)
    late = kqctl("replay", "samples/replay", "--now", "9999-12-30T23:00:00Z", "--trace", far.replace("far", "nort"),
                 "--trace", write("later.csv", "time,namespace,queue,cpu\n2d,team-a,team-a-queue,1\n"))
    assert late.code == 3 and "time: 2d after the start (9999-12-30T23:00:00Z) is past the year 9999" in late.err
    wide = kqctl("replay", "samples/replay", "--now", "2026-09-14T09:00:00Z", "--trace", nort, "--runtime",
                 "lognormal(20m,50)", "-o", "json")
    assert wide.code == 0, wide.err
    data = json.loads(wide.out)
    assert max(w["runtimeMs"] or 0 for w in data["workloads"].values()) <= 100 * 365 * 86_400_000
    assert any("were cut to it" in note for note in data["assumptions"])
    table = kqctl("replay", "samples/replay", "--now", "2026-09-14T09:00:00Z", "--trace", nort, "--runtime",
                  "lognormal(20m,50)")
    assert table.code == 0 and "36500d" in table.out


def test_a_declared_runtime_that_does_not_parse_is_a_located_input_error(kqctl: Kqctl, tmp_path: Path) -> None:
    import shutil

    shutil.copy("samples/replay/cluster.yaml", tmp_path / "cluster.yaml")
    running = Path("samples/replay/running.yaml").read_text()
    for runtime, message in (("200000000h", "is longer than 100 years"), ("forever", "is not a duration")):
        (tmp_path / "running.yaml").write_text(running.replace("kqctl.dev/runtime: 2h}",
                                                               f"kqctl.dev/runtime: {runtime}}}"))
        for command in (("replay", str(tmp_path)), ("diff", str(tmp_path), "--replay", "--set",
                                                    "clusterqueue/team-a.flavor.default.cpu.nominalQuota=20")):
            result = kqctl(*command, "--now", "2026-09-14T09:00:00Z")
            assert result.code == 3, (command, result.err)
            assert f"running.yaml:4: Workload team-a/pretrain-shard-3: annotation kqctl.dev/runtime: '{runtime}' " \
                   f"{message}" in result.err


@pytest.mark.parametrize("sample,product", [("samples/volcano-two-teams", "Volcano"),
                                            ("samples/yunikorn-priority", "YuniKorn")])
def test_replay_serves_volcano_and_yunikorn_and_kueue_s_queue_words_are_refused_for_them(
        kqctl: Kqctl, sample: str, product: str) -> None:
    """No longer Kueue-only (tests/cli/test_time_for_volcano_and_yunikorn.py has the rest): a replay runs; a plan
    for a ClusterQueue and a diff setting one say what these inputs hold instead."""
    assert kqctl("replay", sample, "--now", "2026-01-01T12:00:00Z").code == 0
    plan = kqctl("plan", sample, "--for", "clusterqueue/q", "--target", "no workload inadmissible")
    assert plan.code == 2 and "expected queue/" in plan.err
    diff = kqctl("diff", sample, "--set", "clusterqueue/q.spec.stopPolicy=Hold")
    assert diff.code == 2 and "ClusterQueue" in diff.err
    assert "Kueue-only" not in plan.err + diff.err


def test_a_trace_on_stdin_is_read_as_csv_or_yaml_by_its_first_line(kqctl: Kqctl) -> None:
    now = ("--now", "2026-09-14T09:00:00Z")
    for text in ("time,namespace,queue,cpu,runtime\n0s,team-a,team-a-queue,1,5m\n",
                 "# arrivals\n- {time: 0s, namespace: team-a, queue: team-a-queue, cpu: 1, runtime: 5m}\n"):
        result = kqctl("replay", "samples/replay", *now, "--trace", "-", "-o", "json", stdin=text.encode())
        assert result.code == 0, (text, result.err)
        assert json.loads(result.out)["workloads"]["team-a/trace-1"]["runtimeMs"] == 300_000
    empty = kqctl("replay", "samples/replay", *now, "--trace", "-", stdin=b"")
    assert empty.code == 3 and "<stdin>: an empty trace: expected CSV with a header row" in empty.err


def test_small_usage_mistakes_are_usage_errors(kqctl: Kqctl) -> None:
    for args, message in (
        (("--plot", ""), "--plot needs a directory"),
        (("--cycle-latency", "qps=10,qps=20"), "--cycle-latency: qps is given twice in 'qps=10,qps=20'"),
        (("--runtime", "normal(3m)"), "nor a distribution: uniform(MIN,MAX), exponential(MEAN) or "
                                      "lognormal(MEDIAN,SIGMA)"),
    ):
        result = kqctl("replay", "samples/replay", *args)
        assert result.code == 2 and message in result.err, (args, result.err)


def _labelled_replay_sample(tmp_path: Path) -> str:
    """samples/replay with labels on two of its Workloads (tier=pretrain on team-a's, tier=serving on team-b's)."""
    import shutil

    copy = tmp_path / "replay"
    shutil.copytree(Path(__file__).resolve().parents[2] / "samples" / "replay", copy)
    running = copy / "running.yaml"
    text = running.read_text()
    for name, tier in (("pretrain-shard-3", "pretrain"), ("batch-inference-eu", "serving")):
        text = text.replace(f"  name: {name}\n", f"  name: {name}\n  labels: {{tier: {tier}}}\n", 1)
    running.write_text(text)
    return str(copy)


@pytest.mark.parametrize("args,listed", [
    (("-l", "tier=pretrain"), {"team-a/pretrain-shard-3"}),
    (("-l", "tier in (pretrain,serving)"), {"team-a/pretrain-shard-3", "team-b/batch-inference-eu"}),
    (("-l", "tier!=pretrain", "-n", "team-b"), {"team-b/batch-inference-eu", "team-b/job-finetune-llama-cb6db"}),
    (("-l", "!tier"), {"team-a/job-notebook-alice-af17c", "team-b/job-finetune-llama-cb6db"}),
    (("-A",), {"team-a/job-notebook-alice-af17c", "team-a/pretrain-shard-3", "team-b/batch-inference-eu",
               "team-b/job-finetune-llama-cb6db"}),
])
def test_namespace_and_selector_list_the_workloads_simulate_lists_and_replay_them_all(
        kqctl: Kqctl, tmp_path: Path, args: tuple[str, ...], listed: set[str]) -> None:
    sample = _labelled_replay_sample(tmp_path)
    now = ("--now", "2026-09-14T09:00:00Z")
    everything = json.loads(kqctl("replay", sample, *now, "-o", "json").out)
    result = kqctl("replay", sample, *now, "-o", "json", *args)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data["workloads"]) == listed
    assert set(json.loads(kqctl("simulate", sample, *now, "-o", "json", *args).out)["workloads"]) == listed
    # What is replayed (and so every percentile, usage and eviction) does not depend on what is listed.
    assert {key: value for key, value in data.items() if key != "workloads"} == \
        {key: value for key, value in everything.items() if key != "workloads"}
    table = kqctl("replay", sample, *now, *args, "--no-headers").out.splitlines()
    assert {line.split()[0] for line in table if line and "/" in line.split()[0]} == listed  # the workload rows


def test_a_selector_lists_generated_workloads_by_their_class_label(kqctl: Kqctl, write: Write) -> None:
    config = write("generator.yaml", SMALL_GENERATOR)
    result = kqctl("replay", "--generator", config, "-o", "json", "-l",
                   "kueue.x-k8s.io/performance-scheduler-class=large")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert len(data["workloads"]) == 4 * 5 and {w["class"] for w in data["workloads"].values()} == {"large"}
    assert data["overall"]["workloads"] == 4 * 25  # every workload was replayed


@pytest.mark.parametrize("namespace,message", [
    ("team-aa", "-n team-aa: no workload in namespace 'team-aa'; did you mean team-a? "
                "(workloads are in: team-a, team-b)"),
    ("prod", "-n prod: no workload in namespace 'prod' (workloads are in: team-a, team-b)"),
])
def test_a_namespace_without_workloads_gets_a_did_you_mean_note_as_kubectl_finds_no_resources(
        kqctl: Kqctl, namespace: str, message: str) -> None:
    result = kqctl("replay", *SAMPLE, "-n", namespace)
    # Not an error (kubectl finds "No resources" and exits 0): a note on stderr, nothing in what a pipe reads.
    assert result.code == 0 and f"kqctl: note: {message}" in result.err, result.err
    assert message not in result.out


def test_a_namespace_that_only_a_trace_fills_is_listed(kqctl: Kqctl, write: Write) -> None:
    trace = write("arrivals.csv", "time,namespace,queue,cpu,runtime\n0s,team-a,team-a-queue,1,5m\n")
    result = kqctl("replay", "samples/replay", "--now", "2026-09-14T09:00:00Z", "--trace", trace, "-o", "json",
                   "-l", "!kueue.x-k8s.io/job-uid", "-n", "team-a")
    assert result.code == 0, result.err
    assert set(json.loads(result.out)["workloads"]) == {"team-a/pretrain-shard-3", "team-a/trace-1"}


@pytest.mark.parametrize("args,message", [
    (("-n", "team-a", "-A"), "-n/--namespace and -A/--all-namespaces cannot be used together"),
    (("-l", "tier in pretrain"), "-l 'tier in pretrain': "),
    (("-l", "-bad-=x"), "-l '-bad-=x': invalid label selector"),
    (("-l", "tier=a", "-o", "summary"), "-o summary lists none"),
    (("-n", "team-a", "-o", "summary"), "-o summary lists none"),
])
def test_bad_namespace_and_selector_options_are_usage_errors_before_reading(kqctl: Kqctl, args: tuple[str, ...],
                                                                           message: str) -> None:
    result = kqctl("replay", "no/such/dir", *args)  # exit 2, not the unreadable input's 3: nothing was read
    assert result.code == 2 and message in result.err, result.err
