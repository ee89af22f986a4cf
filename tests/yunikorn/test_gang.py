"""V28: a gang application (yunikorn.apache.org/task-groups) is refused by a queue whose applications are not
sorted fifo, or whose max below root cannot hold its placeholders (yunikorn-core ``AddApplication``)."""

from __future__ import annotations

import json

import pytest
from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine.simulation import simulate
from kqctl.yunikorn.load import placeholder_ask

CONFIG = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: fair
            properties: {application.sort.policy: fair}
          - name: small
            resources: {max: {vcore: 1, memory: 8Gi}}
          - name: ok
"""
GROUPS = json.dumps([{"name": "workers", "minMember": 2, "minResource": {"cpu": "1", "memory": "1Gi"}}])


def _gang(queue: str) -> dict:  # type: ignore[type-arg]
    return pod(f"gang-{queue}", f"root.{queue}", f"gang-{queue}",
               annotations={"yunikorn.apache.org/task-groups": GROUPS})


@pytest.mark.parametrize("queue,reason", [
    ("fair", "queue root.fair cannot run application gang-fair with task group request: unsupported sort type"),
    ("small", "queue root.small cannot fit application gang-small: task group request map[memory:2147483648 pods:2 "
              "vcore:2000] larger than max queue allocation map[memory:8589934592 vcore:1000]"),
])
def test_gang_refused(queue: str, reason: str) -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8", memory="16Gi"), _gang(queue)))
    outcome = result.pods[0]
    assert outcome.state == "Rejected" and outcome.reason == reason


def test_gang_in_a_fifo_queue_is_scheduled_as_its_pods() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8", memory="16Gi"), _gang("ok")))
    assert result.pods[0].state == "Allocated"


@pytest.mark.parametrize("raw,expected", [
    ("", None),
    (GROUPS, {"pods": 2, "vcore": 2000, "memory": 2 * 2**30}),
    (json.dumps([{"Name": "a", "MINMEMBER": 3, "minresource": {"cpu": "500m", "nvidia.com/gpu": 1}},
                 {"name": "b", "minMember": 1, "minResource": {}}]), {"pods": 4, "vcore": 1500, "nvidia.com/gpu": 3}),
    ("not json", None),
    (json.dumps([{"name": "", "minMember": 1, "minResource": {"cpu": "1"}}]), None),
    (json.dumps([{"name": "a", "minMember": 0, "minResource": {"cpu": "1"}}]), None),
    (json.dumps([{"name": "a", "minMember": 1}]), None),
    (json.dumps([{"name": "a", "minMember": 1, "minResource": {"cpu": "-1"}}]), None),
    (json.dumps([{"name": "a", "minMember": 1, "minResource": {"cpu": "1", "vcore": "1"}}]), None),
    (json.dumps([{"name": "a", "minMember": 1, "minResource": {"pods": "1"}}]), None),
])
def test_placeholder_ask(raw: str, expected: dict[str, int] | None) -> None:
    assert placeholder_ask(raw) == expected


def test_explain_and_audit_name_the_gang_refusal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import yaml
    from support import run_kqctl
    from yunikorn_build import configmap

    path = tmp_path / "gang.yaml"
    path.write_text(yaml.safe_dump_all([configmap(CONFIG), node("n1", cpu="8", memory="16Gi"), _gang("fair")]))
    assert "Gang application (YK-V28, YK-G7)" in run_kqctl("explain", "default/gang-fair", str(path)).out
    assert "unsupported sort type" in run_kqctl("audit", str(path)).out


def test_disable_gang_scheduling_ignores_task_groups() -> None:
    from yunikorn_build import NOW, configmap

    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_text
    from kqctl.yunikorn.load import build_snapshot

    config = configmap(CONFIG)
    config["data"]["service.disableGangScheduling"] = "true"
    import yaml

    text = yaml.safe_dump_all([config, node("n1", cpu="8", memory="16Gi"), _gang("fair")])
    result = simulate(build_snapshot(load_text(ALL_KINDS, text), NOW))
    assert result.pods[0].state == "Allocated"
