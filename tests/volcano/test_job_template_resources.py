"""VAL-POD-1..3 for Volcano jobs: Volcano's job webhook (``validateTaskTemplate`` in admit_job.go) runs Kubernetes'
``ValidatePodTemplate`` on every task's template, so a vcjob whose template the API server would refuse as a Pod is
refused, and every command refuses it as validate does."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run_kqctl

QUEUE = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\nspec: {weight: 1}\n"


def _job(resources: str) -> str:
    return (QUEUE + "---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
            "spec:\n  queue: q\n  minAvailable: 1\n  tasks:\n    - name: ok\n      replicas: 1\n      template:\n"
            "        spec:\n          containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n"
            "    - name: w\n      replicas: 1\n      template:\n        spec:\n          containers:\n"
            f"            - {{name: c, image: x, resources: {resources}}}\n")


@pytest.mark.parametrize(("resources", "rule", "field"), [
    ("{requests: {cpu: '-1'}}", "VAL-POD-1", "spec.tasks[1].template.spec.containers[0].resources.requests.cpu"),
    ("{requests: {gpu: '1'}}", "VAL-POD-2", "spec.tasks[1].template.spec.containers[0].resources.requests.gpu"),
    ("{requests: {nvidia.com/gpu: '1'}}", "VAL-POD-3", "spec.tasks[1].template.spec.containers[0].resources.limits"),
    ("{requests: {cpu: '2'}, limits: {cpu: '1'}}", "VAL-POD-3",
     "spec.tasks[1].template.spec.containers[0].resources.requests"),
])
def test_val_pod_a_vcjob_task_template_the_api_server_refuses_is_an_error(
        tmp_path: Path, resources: str, rule: str, field: str) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(_job(resources), encoding="utf-8")
    validated = run_kqctl("validate", str(path), "-o", "json")
    assert validated.code == 1
    assert f'"{rule}"' in validated.out and field in validated.out
    simulated = run_kqctl("simulate", str(path))
    assert simulated.code == 3 and rule in simulated.err


def test_val_pod_a_vcjob_with_settable_resources_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(_job("{requests: {cpu: '1', nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}"),
                    encoding="utf-8")
    assert run_kqctl("validate", str(path)).code == 0
