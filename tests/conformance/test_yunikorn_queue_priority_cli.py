"""YuniKorn conformance, queue-priority/, through the real command ``kqctl explain --queue PATH -o json``.

The recorded applications were added straight to their queues by YuniKorn's test helpers; here they are pods
(``spec.priority`` from the recorded asks, the queue as their label) placed by YuniKorn's placement, so each case's
root gets ``submitacl: '*'`` (placement would refuse every pod otherwise; an ACL changes no priority or property).
Dynamic leaves are created the way placement creates them: a provided rule with create, and one running pod each
(running pods leave nothing pending, so no priority changes). Every recorded case with a configuration runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import run_kqctl
from yunikorn_conformance import load

CASES = [(name, case) for name, case in load("queue-priority") if "config" in case]
CREATED = "2026-01-01T00:00:{second:02d}Z"


def _config(case: dict[str, Any]) -> str:
    config = yaml.safe_load(case["config"])
    partition = config["partitions"][0]
    [root] = partition["queues"]
    assert root["name"] == "root"
    root["submitacl"] = "*"
    if case.get("dynamic_leaves_created"):
        assert not partition.get("placementrules")
        partition["placementrules"] = [{"name": "provided", "create": True}]
    return yaml.safe_dump(config, sort_keys=False)


def _pod(name: str, app_id: str, queue: str, second: int, priority: int | None = None,
         node: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": "yunikorn",
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    if priority is not None:
        spec["priority"] = priority
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec,
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": CREATED.format(second=second),
                         "labels": {"applicationId": app_id, "queue": queue}}}


def _inputs(case: dict[str, Any]) -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn"},
         "data": {"queues.yaml": _config(case)}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
         "status": {"allocatable": {"cpu": "1000", "memory": "1Ti", "pods": "1000"}}},
    ]
    second = 0
    for app in case.get("apps") or []:
        for i, priority in enumerate(app["ask_priorities"]):
            documents.append(_pod(f"{app['app_id']}-{i}", app["app_id"], app["queue"], second, priority))
            second += 1
    for i, leaf in enumerate(case.get("dynamic_leaves_created") or []):
        documents.append(_pod(f"dynamic-{i}", f"dynamic-{i}", leaf, 0, node="node-1"))
    return documents


def _seen(report: dict[str, Any], path: str, with_priority: bool) -> dict[str, Any]:
    settings = report["settings"]
    own = report["chain"][-1]
    got: dict[str, Any] = {
        "path": own["path"], "leaf": own["leaf"], "sort_policy": settings["application.sort.policy"].split()[0],
        "app_sort_priority_enabled": settings["application.sort.priority"] == "enabled",
        "priority_policy": own["policy"], "priority_offset": own["offset"],
        "preemption_policy": settings["preemption.policy"]}
    if with_priority:
        level = next((lv for lv in report["levels"] if lv["parent"] == path), None)
        got["current_priority"] = own["reported"]
        got["preemption_delay"] = settings["preemption.delay"]
        got["sorted_children_with_pending"] = [e["name"] for e in level["order"]] if level and level["order"] \
            else None
    return got


@pytest.mark.parametrize("name,case", CASES, ids=[name for name, _ in CASES])
def test_explain_queue_cli_matches_yunikorn(tmp_path: Path, name: str, case: dict[str, Any]) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump_all(_inputs(case), sort_keys=False))
    for expected in case["expected_queues"]:
        run = run_kqctl("explain", "--queue", expected["path"], str(path), "-o", "json")
        assert run.code == 0, run.err
        got = _seen(json.loads(run.out), expected["path"], "current_priority" in expected)
        assert got == {key: expected[key] for key in got}, expected["path"]
