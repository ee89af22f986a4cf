"""--set on a Volcano Queue's resource lists: a map the Queue's schema defines is created where the queue has none
(a typo is still refused), and an error a --set causes names that --set, even when it is reported on another field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import run_kqctl

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.mark.parametrize("sets,queue,field,expected", [
    (["queue/team-a.spec.capability.cpu=4"], "team-a", "capability", {"cpu": "4", "memory": "unlimited"}),
    (["queue/team-b.spec.capability.memory=8Gi"], "team-b", "capability", {"memory": "8Gi"}),
    (["queue/team-b.spec.deserved.cpu=3", "queue/team-b.spec.guarantee.resource.cpu=2"], "team-b", "guarantee",
     {"cpu": "2"}),
])
def test_set_creates_a_resource_list_the_queue_leaves_out(sets: list[str], queue: str, field: str,
                                                          expected: dict[str, str]) -> None:
    args = [a for text in sets for a in ("--set", text)]
    run = run_kqctl("simulate", str(SAMPLES / "volcano-two-teams"), "-o", "json", *args)
    assert run.code == 0, run.err
    got = json.loads(run.out)["queues"][queue][field]
    assert {name: got[name] for name in expected} == expected


@pytest.mark.parametrize("text,message", [
    ("queue/team-a.spec.capabilty.cpu=4", "Queue has no field spec.capabilty; did you mean capability?"),
    ("queue/team-a.spec.guarantee.resorce.cpu=4", "Queue has no field spec.guarantee.resorce; did you mean resource?"),
    ("queue/team-a.spec.weight.cpu=4", "spec.weight is not a mapping"),
])
def test_set_still_refuses_a_field_the_queue_schema_does_not_define(text: str, message: str) -> None:
    run = run_kqctl("simulate", str(SAMPLES / "volcano-two-teams"), "--set", text)
    assert run.code == 2 and message in run.err and text in run.err, run.err


@pytest.mark.parametrize("command,text,rule", [
    ("simulate", "queue/eng.spec.capability.cpu=100m", "VC-Q4"),
    ("simulate", "queue/eng.spec.guarantee.resource.cpu=30", "VC-Q3"),
    ("validate", "queue/eng.spec.capability.cpu=100m", "VC-Q4"),
    ("validate", "queue/eng.spec.guarantee.resource.cpu=30", "VC-Q3"),
])
def test_an_error_on_another_field_names_the_set_of_the_field_it_is_weighed_against(command: str, text: str,
                                                                                     rule: str) -> None:
    run = run_kqctl(command, str(SAMPLES / "volcano-hierarchy"), "--set", text)
    said = run.out + run.err
    line = next(line for line in said.splitlines() if rule in line)
    assert run.code == (3 if command == "simulate" else 1), said
    assert "spec.deserved.cpu" in line and f"comes from --set {text!r}" in line, line
