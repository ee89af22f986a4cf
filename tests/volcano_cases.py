"""Volcano conformance scenarios (enqueue + allocate) written as the Kubernetes objects kqctl reads.

A scenario (tests/conformance/data/volcano/*-enqueue-allocate/) lists nodes, queues, PodGroups, pods, the
actions and the plugin tiers of Volcano's unit test. They become: Nodes (allocatable, Ready), the Queues as
given, PodGroups (with status.phase), Pods (schedulerName volcano, the group annotation, one container with
the requests, nodeName and status.phase), and the ConfigMap volcano-scheduler-configmap holding the actions and
tiers. The pods' ``pods: 1`` is Volcano's own addition and is not written.

The ported action cases (tests/conformance/data/volcano-ported, README there) may also give PriorityClasses
(``priorityClasses``: name, value, preemptionPolicy), the ConfigMap's ``configurations``, node ``labels``, a
PodGroup's ``minTaskMember`` and ``priorityClassName`` (``minResources`` may be null), and a pod's ``labels``,
``nodeSelector``, ``priority`` (spec.priority) and ``preemptionPolicy``. A pod requesting an extended resource
(e.g. nvidia.com/gpu) gets a limit equal to the request, as the API server requires.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

NATIVE = frozenset({"cpu", "memory", "ephemeral-storage"})


def scenario_objects(case: dict[str, Any]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [_configmap(case)]
    for pc in case.get("priorityClasses", []):
        objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": pc["name"]},
                        "value": pc["value"], **_only(pc, "preemptionPolicy")})
    for node in case["nodes"]:
        objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node["name"], **_only(node, "labels")},
                        "status": {"allocatable": node["allocatable"],
                                   "conditions": [{"type": "Ready", "status": "True"}]}})
    objects.extend(case["queues"])
    for group in case["podGroups"]:
        group_spec: dict[str, Any] = {"queue": group["queue"], "minMember": group["minMember"],
                                      **_only(group, "minTaskMember", "priorityClassName")}
        if group["minResources"] is not None:
            group_spec["minResources"] = group["minResources"]
        objects.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"namespace": group["namespace"], "name": group["name"]},
                        "spec": group_spec, "status": {"phase": group["phase"]}})
    for pod in case["pods"]:
        resources: dict[str, Any] = {"requests": pod["requests"]}
        extended = {name: value for name, value in pod["requests"].items() if name not in NATIVE}
        if extended:  # the API server takes an extended resource only with a limit equal to its request
            resources["limits"] = extended
        spec: dict[str, Any] = {"schedulerName": "volcano",
                                "containers": [{"name": "main", "image": "busybox", "resources": resources}],
                                **_only(pod, "nodeSelector", "priority", "preemptionPolicy")}
        if pod["nodeName"]:
            spec["nodeName"] = pod["nodeName"]
        objects.append({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"namespace": pod["namespace"], "name": pod["name"], **_only(pod, "labels"),
                                     "annotations": {"scheduling.k8s.io/group-name": pod["podGroup"]}},
                        "spec": spec, "status": {"phase": pod["phase"]}})
    return objects


def _only(source: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The optional fields ``source`` gives, as they are."""
    return {key: source[key] for key in keys if key in source}


def _configmap(case: dict[str, Any]) -> dict[str, Any]:
    conf = {"actions": ", ".join(case["actions"]), "tiers": case["tiers"], **_only(case, "configurations")}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
            "data": {"volcano-scheduler.conf": yaml.safe_dump(conf, sort_keys=False)}}


def scenario_text(case: dict[str, Any]) -> str:
    return yaml.safe_dump_all(scenario_objects(case), sort_keys=False)


@contextmanager
def one_session_simulator() -> Iterator[Callable[[Path], dict[str, Any]]]:
    """``kqctl simulate PATH --cycles 1 -o json`` through typer's CliRunner, the command built once (typer rebuilds
    it per call): what the Volcano conformance modules run each case through."""
    import pytest
    import typer.main
    import typer.testing

    from kqctl.cli.app import app

    command = typer.main.get_command(app)
    runner = typer.testing.CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", lambda _: command)

        def run(path: Path) -> dict[str, Any]:
            result = runner.invoke(app, ["simulate", str(path), "--cycles", "1", "-o", "json"])
            assert result.exit_code == 0, result.output
            data: dict[str, Any] = json.loads(result.stdout)
            return data

        yield run
