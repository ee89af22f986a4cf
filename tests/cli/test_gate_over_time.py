"""replay, diff and plan admit Volcano's and YuniKorn's objects through the one gate, as simulate does.

kqctl.validate.gate: what validate rejects, every command refuses (exit 3, validate's finding and rule, located);
--as-given (Kueue's objects as written) is a Kueue-only option for all of them; the objects a trace submits go
through the gate too, so a row Volcano's webhook would refuse is refused at the row, and a pod asking for an
extended resource carries the limit the API server requires (VAL-POD-3).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO, run_kqctl

from kqctl.errors import EXIT_INPUT, EXIT_OK, EXIT_USAGE
from kqctl.k8s.pods import limits_for, overcommit_allowed

NOW = ("--now", "2026-01-01T12:00:00Z")
VOLCANO = REPO / "samples" / "volcano-two-teams"
YUNIKORN = REPO / "samples" / "yunikorn-priority"
PLAN = ("--target", "no workload inadmissible", "--budget", "2", "--jobs", "1")
# (sample, what diff changes, whose quota plan finds)
SAMPLES = {
    "volcano": (VOLCANO, "queue/team-a.spec.weight=3", ("--for", "queue/team-a", "--field", "weight")),
    "yunikorn": (YUNIKORN, "queue/root.tenant1.properties.priority.offset=11", ("--for", "queue/root.tenant1")),
}


def commands(scheduler: str, inputs: str) -> dict[str, tuple[str, ...]]:
    _, change, planned = SAMPLES[scheduler]
    return {
        "simulate": ("simulate", inputs, *(NOW if scheduler == "yunikorn" else ())),  # Volcano's refuses --now
        "replay": ("replay", inputs, *NOW),
        "diff": ("diff", inputs, "--set", change, *NOW),
        "plan": ("plan", inputs, *planned, *PLAN, *NOW),
    }


def _with_negative_request(scheduler: str, tmp_path: Path) -> str:
    """The sample with its first pod asking for -1 cpu: the API server refuses it (VAL-POD-1)."""
    sample = SAMPLES[scheduler][0]
    for source in sample.glob("*.yaml"):
        documents = list(yaml.safe_load_all(source.read_text()))
        pod = next((d for d in documents if isinstance(d, dict) and d.get("kind") == "Pod"), None)
        if pod is not None and not (tmp_path / "bad").exists():
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "-1"
            (tmp_path / "bad").touch()
        (tmp_path / source.name).write_text(yaml.safe_dump_all(documents))
    return str(tmp_path)


@pytest.mark.parametrize("scheduler", sorted(SAMPLES))
def test_val_pod_1_replay_diff_and_plan_refuse_what_validate_rejects_as_simulate_does(scheduler: str,
                                                                                       tmp_path: Path) -> None:
    inputs = _with_negative_request(scheduler, tmp_path)
    validated = json.loads(run_kqctl("validate", inputs, "-o", "json").out)
    errors = {f["ruleId"] for d in validated["documents"] for f in d["findings"] if f["severity"] == "error"}
    assert errors == {"VAL-POD-1"}
    refusals = {}
    for command, args in commands(scheduler, inputs).items():
        run = run_kqctl(*args)
        assert run.code == EXIT_INPUT, (command, run.out, run.err)
        refusals[command] = run.err.splitlines()[-1]
    assert "VAL-POD-1" in refusals["simulate"] and "must be greater than or equal to 0" in refusals["simulate"]
    assert set(refusals.values()) == {refusals["simulate"]}  # one refusal, worded and located as simulate's


@pytest.mark.parametrize("scheduler", sorted(SAMPLES))
def test_the_unchanged_samples_pass_the_gate_in_every_command(scheduler: str) -> None:
    for command, args in commands(scheduler, str(SAMPLES[scheduler][0])).items():
        run = run_kqctl(*args)
        assert run.code in (EXIT_OK, 1), (command, run.err)  # plan: 1 when no quota up to the cap meets the target
        assert "error" not in run.err, (command, run.err)


@pytest.mark.parametrize("scheduler", sorted(SAMPLES))
@pytest.mark.parametrize("command", ["simulate", "replay", "diff", "plan"])
def test_as_given_is_kueues_only_for_every_command(scheduler: str, command: str) -> None:
    run = run_kqctl(*commands(scheduler, str(SAMPLES[scheduler][0]))[command], "--as-given")
    assert run.code == EXIT_USAGE, run.err
    assert "--as-given" in run.err and "Kueue only" in run.err


def test_as_given_is_refused_before_reading_when_scheduler_volcano_is_named() -> None:
    run = run_kqctl("simulate", str(REPO / "does-not-exist"), "--scheduler", "volcano", "--as-given")
    assert run.code == EXIT_USAGE and "--as-given applies to Kueue only" in run.err


def test_vc_job_leaf_a_trace_row_volcano_would_refuse_is_refused_at_the_row(tmp_path: Path) -> None:
    """Volcano's job webhook refuses a vcjob in a queue with children (VC-JOB-LEAF): a trace is what a user
    submits, so the row is refused as validate refuses the same vcjob in a file."""
    trace = tmp_path / "arrivals.csv"
    trace.write_text("time,namespace,queue,name,pods,cpu,memory,runtime\n5m,default,eng,r-1,1,1,1Gi,20m\n")
    hierarchy = str(REPO / "samples" / "volcano-hierarchy")
    run = run_kqctl("replay", hierarchy, "--trace", str(trace), *NOW)
    assert run.code == EXIT_INPUT
    assert f"{trace}:2: " in run.err and "VC-JOB-LEAF" in run.err and "can only submit job to leaf queue" in run.err
    leaf = tmp_path / "leaf.csv"
    leaf.write_text("time,namespace,queue,name,pods,cpu,memory,runtime\n5m,default,eng-ml,r-1,1,1,1Gi,20m\n")
    assert run_kqctl("replay", hierarchy, "--trace", str(leaf), *NOW).code == EXIT_OK


@pytest.mark.parametrize("scheduler, header, row", [
    ("volcano", "time,namespace,queue,name,pods,cpu,memory,example.com/gpu,runtime",
     "5m,team-a,team-a,gpu-1,1,1,1Gi,1,20m"),
    ("yunikorn", "time,namespace,queue,name,priorityClass,pods,cpu,memory,example.com/gpu,runtime",
     "5m,team1,root.tenant1.a,gpu-1,high,1,1,1Gi,1,20m"),
])
def test_val_pod_3_a_trace_row_asking_for_an_extended_resource_submits_its_limit(
        scheduler: str, header: str, row: str, tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(SAMPLES[scheduler][0], inputs)
    for node in (inputs / "cluster.yaml",):  # nodes that have the resource, so the row can run
        documents = list(yaml.safe_load_all(node.read_text()))
        for document in documents:
            if isinstance(document, dict) and document.get("kind") == "Node":
                for field in ("allocatable", "capacity"):
                    if field in document.get("status", {}):
                        document["status"][field]["example.com/gpu"] = "4"
        node.write_text(yaml.safe_dump_all(documents))
    trace = tmp_path / "arrivals.csv"
    trace.write_text(f"{header}\n{row}\n")
    run = run_kqctl("replay", str(inputs), "--trace", str(trace), *NOW, "-o", "json")
    assert run.code == EXIT_OK, run.err
    report: dict[str, Any] = json.loads(run.out)
    assert "gpu-1" in json.dumps(report)


@pytest.mark.parametrize("name, allowed", [
    ("cpu", True), ("memory", True), ("ephemeral-storage", True), ("kubernetes.io/something", True),
    ("hugepages-2Mi", False), ("nvidia.com/gpu", False), ("example.com/foo", False),
])
def test_overcommit_allowed_is_kubernetes_is_overcommit_allowed(name: str, allowed: bool) -> None:
    assert overcommit_allowed(name) is allowed


def test_limits_for_names_only_what_cannot_be_overcommitted() -> None:
    assert limits_for({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2", "hugepages-1Gi": "2Gi"}) == {
        "nvidia.com/gpu": "2", "hugepages-1Gi": "2Gi"}


KUEUE_REPLAY = REPO / "samples" / "replay"
KUEUE_NOW = ("--now", "2026-09-14T09:00:00Z")


@pytest.mark.parametrize("scheduler, inputs, header, row, now", [
    ("kueue", KUEUE_REPLAY, "time,namespace,queue,name,cpu,nvidia.com/gpu,runtime",
     "5m,team-a,team-a-queue,g-1,2,500m,30m", KUEUE_NOW),
    ("volcano", VOLCANO, "time,namespace,queue,name,pods,cpu,memory,nvidia.com/gpu,runtime",
     "5m,team-a,team-a,g-1,1,1,1Gi,500m,20m", NOW),
    ("yunikorn", YUNIKORN, "time,namespace,queue,name,priorityClass,pods,cpu,memory,nvidia.com/gpu,runtime",
     "5m,team1,root.tenant1.a,g-1,high,1,1,1Gi,0.5,20m", NOW),
])
def test_val_pod_1_a_trace_row_asking_for_part_of_an_extended_resource_is_refused_at_its_cell(
        scheduler: str, inputs: Path, header: str, row: str, now: tuple[str, str], tmp_path: Path) -> None:
    """The API server refuses a pod asking for 500m GPUs; a trace must not read it as one GPU."""
    trace = tmp_path / "arrivals.csv"
    trace.write_text(f"{header}\n{row}\n")
    run = run_kqctl("replay", str(inputs), "--trace", str(trace), *now)
    assert run.code == EXIT_INPUT, run.err
    column = header.split(",").index("nvidia.com/gpu") + 1
    assert f"{trace}:2:{column}: nvidia.com/gpu:" in run.err and "must be an integer" in run.err
    assert "VAL-POD-1" in run.err


def test_a_kueue_trace_submits_workloads_through_the_gate_located_at_their_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Workloads a Kueue trace submits go through validate's checks, as Volcano's and YuniKorn's do: what the
    API server would refuse of one is refused at the row (here a manifest spoiled on purpose, as no row the trace
    reader accepts is refused today), and the sample's own trace passes."""
    from kqctl.kueue.replay import arrivals

    real = arrivals.workload_manifest

    def spoiled(workload: Any) -> dict[str, Any]:
        body = real(workload)
        if workload.name == "embed-backfill-1":
            body["spec"]["podSets"][0]["count"] = -1
        return body

    trace = REPO / "samples" / "replay" / "arrivals.csv"
    assert run_kqctl("replay", str(KUEUE_REPLAY), "--trace", str(trace), *KUEUE_NOW).code == EXIT_OK
    monkeypatch.setattr(arrivals, "workload_manifest", spoiled)
    run = run_kqctl("replay", str(KUEUE_REPLAY), "--trace", str(trace), *KUEUE_NOW)
    assert run.code == EXIT_INPUT
    line = next(i for i, text in enumerate(trace.read_text().splitlines(), 1) if "embed-backfill-1" in text)
    assert f"{trace}:{line}: Workload team-b/embed-backfill-1" in run.err, "at the row, no document number"
    assert "spec.podSets[0].count" in run.err, run.err
