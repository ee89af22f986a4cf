"""Priorities (YK-P1-P3) and quota gating (YK-G4, G6, G7) one table each, through the loader and the engine."""

from __future__ import annotations

import json
from typing import Any

import pytest
from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine.partition import build_partition
from kqctl.yunikorn.engine.queue import MIN_PRIORITY
from kqctl.yunikorn.engine.simulation import simulate

CONFIG = """partitions:
  - name: default
    placementrules:
      - name: provided
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {max: {vcore: 1}}
          - name: b
          - name: p
            queues:
              - name: x
                properties: {priority.offset: "5"}
              - name: y
"""


def _class(name: str, value: int, default: bool = False) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **({"globalDefault": True} if default else {})}


@pytest.mark.parametrize(("extra", "spec", "expected"), [
    ([], {"priority": 7}, 7),                                              # spec.priority as set by admission
    ([_class("high", 100)], {"priorityClassName": "high"}, 100),           # from the PriorityClass
    ([_class("base", 3, default=True)], {}, 3),                            # the global default class
    ([], {}, 0),                                                           # nothing: 0
    ([_class("high", 100)], {"priorityClassName": "high", "priority": 9}, 9),  # spec.priority wins
])
def test_p1_pod_priority(extra: list[dict[str, Any]], spec: dict[str, Any], expected: int) -> None:
    built = snapshot(CONFIG, node("n1"), *extra, pod("p", "root.b", "app", **spec))
    assert [p.priority for p in built.pods] == [expected]


@pytest.mark.parametrize(("pods", "expected"), [
    # (queue, priority, bound?) per pod -> raw priority of root.p.x, root.p.y, root.p
    ([("x", 10, False), ("x", 50, False)], (50, MIN_PRIORITY, 55)),        # leaf: its highest pending ask
    ([("x", 10, False), ("x", 50, True)], (10, MIN_PRIORITY, 15)),         # an allocated ask no longer counts
    ([("x", 10, False), ("y", 40, False)], (10, 40, 40)),                  # parent: its children's reported max
    ([("x", 10, True)], (MIN_PRIORITY, MIN_PRIORITY, MIN_PRIORITY)),       # nothing pending: MIN
])
def test_p2_p3_raw_priorities(pods: list[tuple[str, int, bool]], expected: tuple[int, int, int]) -> None:
    objects = [pod(f"p{i}", f"root.p.{queue}", f"app-{queue}", cpu="100m", priority=priority,
                   node_name="n1" if bound else "") for i, (queue, priority, bound) in enumerate(pods)]
    partition = build_partition(snapshot(CONFIG, node("n1"), *objects))
    raw = tuple(partition.tree.get(path).raw_priority for path in ("root.p.x", "root.p.y", "root.p"))  # type: ignore[union-attr]
    assert raw == expected


def _gpu_pod(name: str) -> dict[str, Any]:
    body = pod(name, "root.b", name, cpu="100m")
    body["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    return body


@pytest.mark.parametrize(("nodes", "state"), [
    ([node("n1")], "Pending"),                                             # no node has it: 0 at root, never fits
    ([node("n1"), node("gpu", status={"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110",
                                                      "nvidia.com/gpu": "1"}})], "Allocated"),
])
def test_g4_a_resource_no_node_has_never_fits(nodes: list[dict[str, Any]], state: str) -> None:
    result = simulate(snapshot(CONFIG, *nodes, _gpu_pod("g")))
    assert [p.state for p in result.pods] == [state]


def _namespace(quota: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team", "annotations": {"yunikorn.apache.org/namespace.quota": json.dumps(quota)}}}


@pytest.mark.parametrize(("queue", "states"), [
    ("", ["Allocated", "Pending"]),       # dynamic root.team: the namespace quota (1 cpu) is its max
    ("root.b", ["Allocated", "Allocated"]),  # a configured leaf: the annotation does not apply
])
def test_g6_namespace_quota_limits_only_the_dynamic_leaf(queue: str, states: list[str]) -> None:
    pods = [pod(f"t{i}", queue, f"app{i}", cpu="1", namespace="team") for i in range(2)]
    result = simulate(snapshot(CONFIG, node("n1"), _namespace({"cpu": "1"}), *pods))
    assert sorted(p.state for p in result.pods) == sorted(states)
    if not queue:
        assert {p.queue for p in result.pods} == {"root.team"}


GROUPS = [{"name": "w", "minMember": 2, "minResource": {"cpu": "1"}}]


@pytest.mark.parametrize(("queue", "state"), [
    ("root.a", "Rejected"),    # placeholders 2 vcore > max 1 vcore
    ("root.b", "Allocated"),   # no max below root
])
def test_g7_gang_placeholders_must_fit_the_queue_max(queue: str, state: str) -> None:
    gang = pod("gang", queue, "gang", cpu="500m", annotations={"yunikorn.apache.org/task-groups": json.dumps(GROUPS)})
    result = simulate(snapshot(CONFIG, node("n1"), gang))
    assert [p.state for p in result.pods if not p.placeholder] == [state]
    # the shim makes placeholders only for an application the core accepted (YK-GANG-1)
    assert len([p for p in result.pods if p.placeholder]) == (0 if state == "Rejected" else 2)
    if state == "Rejected":
        assert "task group request map[pods:2 vcore:2000] larger than max queue allocation map[vcore:1000]" in \
            result.pods[0].reason
