"""Volcano conformance: enqueue + allocate scenarios through ``kqctl simulate`` (TestEnqueueAndAllocable,
TestEnqueueAndAllocatable) and the capacity plugin's share through the engine (Test_updateQueueAttrShare).

A scenario's objects are written as manifests (tests/volcano_cases.py) and simulated with its own actions and
tiers; the pods bound must be exactly the expected ones, on the expected nodes.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO, run_kqctl
from volcano_cases import scenario_text

from kqctl.volcano.api.resource import Resource, resource_list
from kqctl.volcano.engine.capacity import share_of

DATA = REPO / "tests" / "conformance" / "data" / "volcano"
SCENARIOS = sorted([*DATA.glob("proportion-enqueue-allocate/*.yaml"), *DATA.glob("capacity-enqueue-allocate/*.yaml")])
SHARES = sorted(DATA.glob("capacity-share/*.yaml"))


def _case(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", SCENARIOS, ids=[f"{p.parent.name}/{p.stem}" for p in SCENARIOS])
def test_enqueue_allocate_scenario_through_kqctl_simulate(path: Path, tmp_path: Path) -> None:
    case = _case(path)
    manifest = tmp_path / "scenario.yaml"
    manifest.write_text(scenario_text(case), encoding="utf-8")
    run = run_kqctl("simulate", str(manifest), "-o", "json")
    assert run.code == 0, run.err
    result = json.loads(run.out)
    assert result["binds"] == case["expected"]["binds"]
    assert result["bindCount"] == case["expected"]["bind_count"]


@pytest.mark.parametrize("path", SHARES, ids=[p.stem for p in SHARES])
def test_capacity_share(path: Path) -> None:
    case = _case(path)
    given = case["input"]
    share = share_of(Resource.of(resource_list(given["deserved"])), Resource.of(resource_list(given["allocated"])))
    assert share == Fraction(str(case["expected"]["share"]))


def test_every_case_is_collected() -> None:
    assert (len(SCENARIOS), len(SHARES)) == (6, 12)
