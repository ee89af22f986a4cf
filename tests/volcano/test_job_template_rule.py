"""VC-JOB-TEMPLATE: Volcano's job webhook runs Kubernetes' ValidatePodTemplate on every task's template, so a task
without a template, without containers, or with a container lacking a name or an image is refused on create:
validate reports it where it is written, simulate stops with exit 3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import run_kqctl

CONTAINER = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}


def vcjob(*tasks: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "train", "namespace": "default"},
            "spec": {"minAvailable": 1, "queue": "default", "tasks": list(tasks)}}


def task(name: str = "worker", **template: Any) -> dict[str, Any]:
    return {"name": name, "replicas": 1, **({"template": template} if template else {})}


@pytest.mark.parametrize("job,field,message", [
    (vcjob(task()), "spec.tasks[0].template", "spec.task[0].template.spec.containers: Required value"),
    (vcjob(task(spec={"containers": []})), "spec.tasks[0].template.spec.containers",
     "spec.task[0].template.spec.containers: Required value"),
    (vcjob(task(metadata={"labels": {"app": "x"}})), "spec.tasks[0].template.spec.containers",
     "spec.task[0].template.spec.containers: Required value"),
    (vcjob(task(spec={"containers": [CONTAINER]}), task("ps", spec={"containers": [{"name": "c"}]})),
     "spec.tasks[1].template.spec.containers[0].image",
     "spec.task[1].template.spec.containers[0].image: Required value"),
    (vcjob(task(spec={"containers": [CONTAINER], "initContainers": [{"name": "init"}]})),
     "spec.tasks[0].template.spec.initContainers[0].image",
     "spec.task[0].template.spec.initContainers[0].image: Required value"),
])
def test_a_task_template_kubernetes_refuses_is_an_error(tmp_path: Path, job: dict[str, Any], field: str,
                                                       message: str) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    validated = run_kqctl("validate", str(path), "-o", "json")
    assert validated.code == 1, validated.out + validated.err
    findings = [f for d in yaml.safe_load(validated.out)["documents"] for f in d["findings"]
                if f["ruleId"] == "VC-JOB-TEMPLATE"]
    assert [(f["field"], f["message"].split(" (")[0]) for f in findings] == [(field, message)]
    assert findings[0]["line"] is not None
    simulated = run_kqctl("simulate", str(path))
    assert simulated.code == 3 and "VC-JOB-TEMPLATE" in simulated.err and f"{path}:" in simulated.err, simulated.err
    assert "Traceback" not in simulated.err


@pytest.mark.parametrize("job,field", [
    (vcjob(task(spec={})), "spec.tasks[0].template.spec.containers"),
    (vcjob(task(spec={"containers": [{"image": "busybox"}]})), "spec.tasks[0].template.spec.containers[0].name"),
])
def test_what_the_schema_already_requires_is_reported_once(tmp_path: Path, job: dict[str, Any], field: str) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    run = run_kqctl("validate", str(path), "-o", "json")
    findings = [(f["ruleId"], f["field"]) for d in yaml.safe_load(run.out)["documents"] for f in d["findings"]
                if f["severity"] == "error"]
    assert run.code == 1 and findings == [("SCHEMA-REQUIRED", field)], findings


def test_a_task_with_containers_named_and_imaged_passes(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(vcjob(task(spec={"containers": [CONTAINER]}))), encoding="utf-8")
    run = run_kqctl("validate", str(path))
    assert run.code == 0 and "VC-JOB-TEMPLATE" not in run.out, run.out
