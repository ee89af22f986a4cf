"""What a simulation cannot stand on, found by validate: VC-PRIORITYCLASS (a vcjob, a task template or a PodGroup
naming a PriorityClass not in the inputs), VC-POD-NODE (a pod bound to a node not in the inputs): warnings, errors
with --closed. A negative allocatable or capacity, also through --set, is the API server's VAL-NODE-1 (an error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import run_kqctl
from tests.volcano.builders import group, node, pod, queue

PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 100}


def vcjob(priority: str | None = None, task_priority: str | None = None) -> dict[str, Any]:
    template: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if task_priority:
        template["priorityClassName"] = task_priority
    spec: dict[str, Any] = {"queue": "q", "minAvailable": 1,
                            "tasks": [{"name": "w", "replicas": 1, "template": {"spec": template}}]}
    if priority:
        spec["priorityClassName"] = priority
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j", "namespace": "ns"},
            "spec": spec}


def _findings(tmp_path: Path, objects: list[dict[str, Any]], *args: str) -> tuple[int, list[tuple[str, str, str]]]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    run = run_kqctl("validate", str(path), "-o", "json", *args)
    found = [(f["ruleId"], f["severity"], f["field"]) for d in json.loads(run.out)["documents"]
             for f in d["findings"] if f["ruleId"] in ("VC-PRIORITYCLASS", "VC-POD-NODE", "VAL-NODE-1")]
    assert all(f["line"] for d in json.loads(run.out)["documents"] for f in d["findings"])
    return run.code, found


BASE = [queue("q"), node("n1")]


@pytest.mark.parametrize("objects,field,rule", [
    ([vcjob(priority="nosuch")], "spec.priorityClassName", "VC-PRIORITYCLASS"),
    ([vcjob(task_priority="nosuch")], "spec.tasks[0].template.spec.priorityClassName", "VC-PRIORITYCLASS"),
    ([group("g", "q", priorityClassName="nosuch")], "spec.priorityClassName", "VC-PRIORITYCLASS"),
    ([group("g", "q"), pod("p", "g", node_name="ghost")], "spec.nodeName", "VC-POD-NODE"),
])
def test_a_missing_reference_is_a_warning_and_an_error_with_closed(tmp_path: Path, objects: list[dict[str, Any]],
                                                                   field: str, rule: str) -> None:
    assert _findings(tmp_path, [*BASE, *objects]) == (0, [(rule, "warning", field)])
    assert _findings(tmp_path, [*BASE, *objects], "--closed") == (1, [(rule, "error", field)])


@pytest.mark.parametrize("objects", [
    [PC, vcjob(priority="high", task_priority="high"), group("g", "q", priorityClassName="high")],
    [vcjob(priority="system-cluster-critical"), group("g", "q", priorityClassName="system-node-critical")],
    [group("g", "q"), pod("p", "g", node_name="n1"), pod("done", "g", node_name="gone", phase="Succeeded")],
])
def test_references_the_inputs_or_the_cluster_always_hold_are_fine(tmp_path: Path,
                                                                   objects: list[dict[str, Any]]) -> None:
    assert _findings(tmp_path, [*BASE, *objects], "--closed") == (0, [])


def test_val_node_1_a_negative_node_allocatable_is_an_error_also_when_a_set_writes_it(tmp_path: Path) -> None:
    assert _findings(tmp_path, [queue("q"), node("n1", cpu="-4")]) == \
        (1, [("VAL-NODE-1", "error", "status.allocatable.cpu")])
    sample = str(Path(__file__).resolve().parents[2] / "samples" / "volcano-two-teams")
    run = run_kqctl("validate", sample, "--set", "node/node-1.status.allocatable.cpu=-4")
    assert run.code == 1
    line = next(line for line in run.out.splitlines() if "VAL-NODE-1" in line)
    assert "status.allocatable.cpu" in line and "comes from --set 'node/node-1.status.allocatable.cpu=-4'" in line
