"""Random YuniKorn clusters decided by the real yunikorn-core, reproduced through the real ``kqctl simulate``.

Each scenario of tests/conformance/data/yunikorn/random (its README.md says how it was recorded) runs the exact
command its expected.json holds, in this process, with the scenario's files as absolute paths. Every pod's state
must equal the recorded one; its node too where the core placed it (Running pods keep the node they are bound to);
its allocation order where the core's 20 runs all agreed on it (``order_deterministic``). Where the core's Go map
order or goroutine order let equal candidates come out differently, any outcome it recorded is right
(``alternatives``).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from support import run_kqctl

DATA = Path(__file__).resolve().parent / "data" / "yunikorn" / "random"
SCENARIOS = sorted(path.name for path in DATA.iterdir() if (path / "expected.json").is_file())

Outcome = dict[str, tuple[str, str | None]]


def _arguments(folder: Path, command: str) -> list[str]:
    """The recorded command's arguments after ``kqctl``, its input files made absolute."""
    words = shlex.split(command)
    assert words[0] == "kqctl"
    return [str(folder / word) if (folder / word).is_file() else word for word in words[1:]]


def _comparable(outcome: Outcome) -> Outcome:
    """Nodes matter for pods the core placed (Allocated) or found bound (Running); a pending, rejected or
    preempted pod has none."""
    return {key: (state, node if state in ("Allocated", "Running") else None) for key, (state, node) in outcome.items()}


def _recorded(expected: dict[str, Any]) -> list[Outcome]:
    first = {key: (pod["state"], pod["node"]) for key, pod in expected["pods"].items()}
    others = [{key: (state, node) for key, (state, node) in alternative.items()}
              for alternative in expected.get("alternatives", [])]
    return [_comparable(outcome) for outcome in [first, *others]]


def _differences(got: Outcome, recorded: list[Outcome]) -> list[str]:
    """Nothing when ``got`` is one of the recorded outcomes, else how it differs from the first one."""
    if any(got == outcome for outcome in recorded):
        return []
    first = recorded[0]
    return [f"{key}: YuniKorn {first.get(key)}, kqctl {got.get(key)}" for key in sorted(set(first) | set(got))
            if first.get(key) != got.get(key)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_scenario_matches_yunikorn_core(scenario: str) -> None:
    folder = DATA / scenario
    expected = json.loads((folder / "expected.json").read_text())
    run = run_kqctl(*_arguments(folder, expected["command"]))
    assert run.code in (0, 1), f"kqctl exited {run.code}: {run.err}"
    pods = json.loads(run.out)["pods"]
    got = _comparable({f"{pod['namespace']}/{pod['name']}": (pod["state"], pod["node"] or None) for pod in pods})
    assert _differences(got, _recorded(expected)) == []
    if expected["order_deterministic"]:
        orders = {f"{pod['namespace']}/{pod['name']}": pod["order"] for pod in pods if pod["state"] == "Allocated"}
        recorded = {key: pod["order"] for key, pod in expected["pods"].items() if pod["state"] == "Allocated"}
        assert _ranks(orders) == _ranks(recorded)


def _ranks(orders: dict[str, int]) -> list[str]:
    """The Allocated pods in allocation order (kqctl numbers every event, the core only allocations)."""
    return sorted(orders, key=lambda key: orders[key])
