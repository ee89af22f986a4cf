"""VAL-NODE-1: the API server refuses a Node whose status.capacity or status.allocatable holds a negative quantity,
or a fractional one for pods or an extended resource (pkg/apis/core/validation ValidateNode and ValidateNodeUpdate,
both through ValidateNodeResources). The rule lives in the shared layer: every scheduler's input with Nodes gets
it, and every command refuses such an input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kqctl.validate.rules import run_core_rules
from tests.support import run_kqctl


def node(**status: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": status}


def found(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f.rule_id, f.field, f.message) for f in run_core_rules("", "Node", body)]


NEGATIVE = 'Invalid value: "-4": must be greater than or equal to 0'


@pytest.mark.parametrize("status,expected", [
    ({"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "8"},
      "allocatable": {"cpu": "3500m", "memory": "7Gi", "pods": "110", "hugepages-2Mi": "0"}}, []),
    ({"allocatable": {"cpu": "-4"}}, [("VAL-NODE-1", "status.allocatable.cpu", NEGATIVE)]),
    ({"capacity": {"cpu": "-4"}, "allocatable": {"memory": "-1Gi"}},
     [("VAL-NODE-1", "status.capacity.cpu", NEGATIVE),
      ("VAL-NODE-1", "status.allocatable.memory", 'Invalid value: "-1Gi": must be greater than or equal to 0')]),
    ({"allocatable": {"pods": "1.5"}}, [("VAL-NODE-1", "status.allocatable.pods",
                                         'Invalid value: "1500m": must be an integer')]),
    ({"capacity": {"nvidia.com/gpu": "500m"}}, [("VAL-NODE-1", "status.capacity[nvidia.com/gpu]",
                                                 'Invalid value: "500m": must be an integer')]),
    ({"allocatable": {"cpu": "1.5", "memory": "1.5Gi"}}, []),  # cpu and memory need not be whole
])
def test_val_node_1_capacity_and_allocatable_are_not_negative_and_counts_are_whole(
        status: dict[str, dict[str, str]], expected: list[tuple[str, str, str]]) -> None:
    assert found(node(**status)) == expected


@pytest.mark.parametrize("scheduler", ["kueue", "volcano", "yunikorn"])
def test_val_node_1_is_an_error_for_every_scheduler_located_at_the_field(tmp_path: Path, scheduler: str) -> None:
    path = tmp_path / "node.yaml"
    path.write_text(yaml.safe_dump(node(allocatable={"cpu": "-4", "memory": "8Gi"})), encoding="utf-8")
    validated = run_kqctl("validate", "--scheduler", scheduler, str(path))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "-4" in text)
    assert validated.code == 1
    assert f"node.yaml:{line}  ✖ error  VAL-NODE-1  Node/n1  status.allocatable.cpu: {NEGATIVE}" in validated.out


@pytest.mark.parametrize("command", ["simulate", "audit"])
def test_val_node_1_every_command_refuses_a_node_that_cannot_exist(tmp_path: Path, command: str) -> None:
    path = tmp_path / "node.yaml"
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
             "spec": {"weight": 1}}
    path.write_text(yaml.safe_dump_all([queue, node(allocatable={"cpu": "-4"})]), encoding="utf-8")
    result = run_kqctl(command, str(path))
    assert result.code == 3
    assert "Node n1: status.allocatable.cpu" in result.err and "VAL-NODE-1" in result.err
