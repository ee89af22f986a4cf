"""DEF-1: every command simulates objects as the API server stores them once applied (CRD and webhook defaults),
DEF-4: --as-given simulates them exactly as written (how Kueue's own unit tests build them).

The motivating case (issue 18): ClusterQueues in cohorts with reclaimWithinCohort Any and withinClusterQueue
LowerPriority and no queueingStrategy written. The API server stores BestEffortFIFO, under which Kueue keeps a
preempting workload at the head of its queue (CYC-13); simulated as written (an empty strategy) the same
objects alternate between two states and kqctl reports a livelock that Kueue never reaches.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml
from support import REPO, run_kqctl

NOW = ("--now", "2026-01-02T00:00:00Z")
PRIORITIES = (("low", 0), ("mid", 100), ("high", 1000))


def cohorts_without_queueing_strategy(workloads: int, strategy: str | None = None) -> list[dict[str, Any]]:
    """The issue's shape, smaller: 50 ClusterQueues in 5 cohorts, nominal 20 cpu / 80Gi, borrowingLimit
    10 / 40Gi, reclaimWithinCohort Any, withinClusterQueue LowerPriority; workloads of 1-8 cpu at priorities
    0 / 100 / 1000, placed by a fixed seed."""
    rng = random.Random(7)
    documents: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}]
    documents += [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": name},
                   "value": value} for name, value in PRIORITIES]
    for cohort in range(5):
        for queue in range(10):
            name = f"cq-{cohort}-{queue}"
            spec: dict[str, Any] = {
                "cohortName": f"cohort-{cohort}", "namespaceSelector": {},
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [{"name": "default",
                                                                                         "resources": [
                    {"name": "cpu", "nominalQuota": "20", "borrowingLimit": "10"},
                    {"name": "memory", "nominalQuota": "80Gi", "borrowingLimit": "40Gi"}]}]}]}
            if strategy is not None:
                spec["queueingStrategy"] = strategy
            documents += [
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
                 "spec": spec},
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                 "metadata": {"name": "lq", "namespace": name}, "spec": {"clusterQueue": name}}]
    for i in range(workloads):
        namespace = f"cq-{rng.randrange(5)}-{rng.randrange(10)}"
        cpu = rng.randint(1, 8)
        priority_class, priority = rng.choice(PRIORITIES)
        documents.append({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"wl-{i:05d}", "namespace": namespace,
                         "creationTimestamp": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"},
            "spec": {"queueName": "lq", "priority": priority,
                     "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                          "name": priority_class},
                     "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                         {"name": "c", "resources": {"requests": {"cpu": str(cpu), "memory": f"{4 * cpu}Gi"}}}]}}}]}})
    return documents


def _write(tmp_path: Path, name: str, documents: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def _simulate(*args: str) -> dict[str, Any]:
    run = run_kqctl("simulate", *args, *NOW, "-o", "json")
    assert run.code == 0, run.err
    return json.loads(run.out)  # type: ignore[no-any-return]


def test_def1_queueing_strategy_unset_is_simulated_as_the_best_effort_fifo_the_api_server_stores(
        tmp_path: Path) -> None:
    unset = _write(tmp_path, "unset.yaml", cohorts_without_queueing_strategy(400))
    written = _write(tmp_path, "written.yaml", cohorts_without_queueing_strategy(400, "BestEffortFIFO"))
    stored = _simulate(unset)
    assert stored["stopReason"] == "steady" and stored["livelock"] is None
    assert stored == _simulate(written)  # exactly what BestEffortFIFO written in the files gives
    assert len(stored["workloads"]) == 400 and all(w["decision"] for w in stored["workloads"].values())


def test_def4_as_given_simulates_the_unset_queueing_strategy_as_kueues_unit_tests_build_it(tmp_path: Path) -> None:
    unset = _write(tmp_path, "unset.yaml", cohorts_without_queueing_strategy(400))
    as_given = _simulate(unset, "--as-given")
    # An empty strategy gets no sticky preemptor (CYC-13): two preemptors take turns, as the spec's DEF-4 says.
    assert as_given["stopReason"] == "livelock" and as_given["livelock"]["workloads"]


COHORT_BORROWING = REPO / "samples" / "cohort-borrowing"


def _without_queueing_strategy(tmp_path: Path) -> str:
    for source in COHORT_BORROWING.iterdir():
        text = source.read_text()
        if source.name == "cluster.yaml":
            assert "  queueingStrategy: BestEffortFIFO\n" in text
            text = text.replace("  queueingStrategy: BestEffortFIFO\n", "")
        (tmp_path / source.name).write_text(text)
    return str(tmp_path)


def test_def1_explain_says_which_defaults_the_api_server_filled_in(tmp_path: Path) -> None:
    inputs = _without_queueing_strategy(tmp_path)
    key = "team-a/job-llm-finetune-0d5b7"
    data = json.loads(run_kqctl("explain", key, inputs, *NOW, "-o", "json", "--no-estimate").out)
    texts = {d["field"]: d["text"] for d in data["defaults"] if d["object"] == "ClusterQueue/team-a"}
    assert texts["spec.queueingStrategy"] == ("queueingStrategy is not set in the file; the API server stores "
                                              "BestEffortFIFO")
    table = run_kqctl("explain", key, inputs, *NOW, "--no-estimate").out
    assert "Defaults of ClusterQueue team-a" in table
    assert "queueingStrategy is not set in the file; the API server stores BestEffortFIFO" in table
    as_given = json.loads(run_kqctl("explain", key, inputs, *NOW, "-o", "json", "--no-estimate", "--as-given").out)
    assert as_given["defaults"] == []  # read as written: nothing was filled in


def test_def1_a_written_value_is_not_a_default(kqctl: Any) -> None:
    data = json.loads(kqctl("explain", "team-a/job-llm-finetune-0d5b7", str(COHORT_BORROWING), *NOW, "-o", "json",
                            "--no-estimate").out)
    assert "spec.queueingStrategy" not in {d["field"] for d in data["defaults"]}  # cluster.yaml writes it
