"""Q1: the Queue CRD's schema (weight range, dequeueStrategy enum, priority >= 0, parent pattern, state enum), with
Volcano's mutating webhook applied before it on create (weight 0 becomes 1: ``createQueuePatch``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kqctl.volcano.validate.queue_mutate import mutated_on_create
from tests.support import run_kqctl


def body(name: str = "a", state: str | None = None, **spec: Any) -> dict[str, Any]:
    queue: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                             "metadata": {"name": name}, "spec": spec}
    if state is not None:
        queue["status"] = {"state": state}
    return queue


def findings(tmp_path: Path, queue: dict[str, Any], *args: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump(queue), encoding="utf-8")
    run = run_kqctl("validate", str(path), "-o", "json", *args)
    assert run.code in (0, 1), run.err
    return [(f["ruleId"], f["field"], f["severity"]) for d in json.loads(run.out)["documents"]
            for f in d["findings"]]


@pytest.mark.parametrize("spec,state,expected", [
    ({"weight": 0}, None, []),  # the mutating webhook writes 1 before the schema sees 0
    ({}, None, []),  # the CRD's default 1
    ({"weight": 1}, None, []),
    ({"weight": 65535}, None, []),
    ({"weight": 65536}, None, [("SCHEMA-RANGE", "spec.weight", "error")]),
    ({"weight": -1}, None, [("SCHEMA-RANGE", "spec.weight", "error")]),  # only 0 is Go's zero value
    ({"dequeueStrategy": "traverse"}, None, []),
    ({"dequeueStrategy": "lifo"}, None, [("SCHEMA-ENUM", "spec.dequeueStrategy", "error")]),
    ({"priority": 0}, None, []),
    ({"priority": -1}, None, [("SCHEMA-RANGE", "spec.priority", "error")]),
    ({"parent": "team.a-1"}, None, []),
    ({"parent": "Bad_Name"}, None, [("SCHEMA-PATTERN", "spec.parent", "error")]),
    ({}, "Closing", []),
    # status is dropped on create: a bad state is information only.
    ({}, "Bogus", [("SCHEMA-ENUM", "status.state", "info")]),
])
def test_q1_queue_schema_after_the_mutating_webhook(tmp_path: Path, spec: dict[str, Any], state: str | None,
                                                    expected: list[tuple[str, str, str]]) -> None:
    found = findings(tmp_path, body(state=state, **spec))
    assert [f for f in found if f[0].startswith("SCHEMA")] == expected


def test_q1_weight_zero_on_an_update_is_refused(tmp_path: Path) -> None:
    # The mutating webhook is registered for CREATE only: an update to weight 0 meets the schema's minimum.
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump(body(weight=3)), encoding="utf-8")
    found = findings(tmp_path, body(weight=0), "--against", str(old))
    assert found == [("SCHEMA-RANGE", "spec.weight", "error")]


@pytest.mark.parametrize("spec,weight,reclaimable", [
    ({"weight": 0}, 1, True),
    ({"weight": 5, "reclaimable": False}, 5, False),
    ({}, 1, True),
])
def test_q1_mutated_on_create_defaults(spec: dict[str, Any], weight: int, reclaimable: bool) -> None:
    original = body(**spec)
    mutated = mutated_on_create(original)
    assert (mutated["spec"]["weight"], mutated["spec"]["reclaimable"]) == (weight, reclaimable)
    assert original == body(**spec)  # a copy: the input is not changed
