"""Volcano's own answers on random sessions (tests/conformance/data/volcano/random, README there): each scenario
goes through the real ``kqctl simulate <n>/scenario.yaml --cycles 1 -o json`` in this process, and must reach
one of the outcomes Volcano's scheduler recorded for it.

The verdict first (which pods are bound, which evicted), then the pods left pipelined and the PodGroups'
phases. Nodes count only where Volcano's own runs agree on them (``deterministic``): elsewhere Volcano picks at
random among equally scored nodes and kqctl breaks the tie by node name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import REPO
from volcano_cases import one_session_simulator

RANDOM = REPO / "tests" / "conformance" / "data" / "volcano" / "random"
SCENARIOS = sorted(p for p in RANDOM.iterdir() if (p / "expected.json").is_file())


@pytest.fixture(scope="module")
def simulate() -> Iterator[Any]:
    with one_session_simulator() as run:
        yield run


def _placed(outcome: dict[str, str], deterministic: bool) -> Any:
    return outcome if deterministic else sorted(outcome)


def _mismatch(expected: dict[str, Any], got: dict[str, Any], deterministic: bool) -> str | None:
    """What differs from one recorded outcome, in the README's order; None when nothing does."""
    if _placed(expected["binds"], deterministic) != _placed(got["binds"], deterministic):
        return f"binds: Volcano {expected['binds']}, kqctl {got['binds']}"
    if sorted(expected["evicted"]) != got["evicted"]:
        return f"evicted: Volcano {sorted(expected['evicted'])}, kqctl {got['evicted']}"
    if _placed(expected["pipelined"], deterministic) != _placed(got["pipelined"], deterministic):
        return f"pipelined: Volcano {expected['pipelined']}, kqctl {got['pipelined']}"
    phases = {key: got["phases"].get(key) for key in expected["phases"]}
    if phases != expected["phases"]:
        return f"phases: Volcano {expected['phases']}, kqctl {phases}"
    return None


def _answer(result: dict[str, Any]) -> dict[str, Any]:
    return {"binds": result["binds"], "evicted": sorted(e["pod"] for e in result["evictions"]),
            "pipelined": result["pipelined"],
            "phases": {key: group["phase"] for key, group in result["podGroups"].items()}}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_simulate_reaches_an_outcome_volcano_recorded(scenario: Path, simulate: Any) -> None:
    recorded = json.loads((scenario / "expected.json").read_text(encoding="utf-8"))
    got = _answer(simulate(scenario / "scenario.yaml"))
    differences = [_mismatch(outcome, got, recorded["deterministic"]) for outcome in recorded["outcomes"]]
    assert None in differences, f"{scenario.name} ({recorded['meta']['actions']}, {recorded['meta']['plugin']}): " \
                                f"{'; '.join(d for d in differences if d)}"


def test_a_node_difference_counts_only_where_volcano_is_deterministic() -> None:
    recorded = {"binds": {"ns/p0": "n1"}, "evicted": [], "pipelined": {}, "phases": {"ns/pg": "Inqueue"}}
    moved = {"binds": {"ns/p0": "n2"}, "evicted": [], "pipelined": {}, "phases": {"ns/pg": "Inqueue"}}
    assert _mismatch(recorded, moved, deterministic=False) is None
    assert _mismatch(recorded, moved, deterministic=True) is not None
    assert _mismatch(recorded, {**moved, "evicted": ["ns/p1"]}, deterministic=False) is not None


def test_every_scenario_is_collected() -> None:
    assert len(SCENARIOS) == 194
