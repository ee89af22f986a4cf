"""yunikorn-core's own unit tests, ported by hand into whole clusters under tests/conformance/data/yunikorn-ported
(its README.md says how), reproduced through the real ``kqctl simulate``.

Each case's expected.yaml holds only what the Go test asserts: the allocations it expects preempted (or not), one
of several of which must be (``preempted_any_of``), what becomes of the ask (placed, on which node where the
test's outcome fixes it, or left pending with the allocation-log message the test checks, reserving no node) and
the order in which the test's successive allocation calls place the asks (``allocation_order``).
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import run_kqctl

DATA = Path(__file__).resolve().parent / "data" / "yunikorn-ported"
GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "port_yunikorn_unit_cases.py"
CASES = sorted(str(path.parent.relative_to(DATA)) for path in DATA.glob("*/*/expected.yaml"))

# case -> the yunikorn-core rule kqctl lacks (xfail, strict): none at the moment.
KNOWN_DIFFERENCES: dict[str, str] = {}


def test_the_ported_files_have_their_cases() -> None:
    """No case disappears silently: how many each ported Go test file holds."""
    by_file: dict[str, int] = {}
    for case in CASES:
        by_file[case.split("/")[0]] = by_file.get(case.split("/")[0], 0) + 1
    assert by_file == {"preemption_test": 22, "partition_test": 3, "reservation_test": 2, "smoke_test": 8}
    assert set(KNOWN_DIFFERENCES) <= set(CASES)


def _params() -> list[Any]:
    return [pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[case]))
            if case in KNOWN_DIFFERENCES else case for case in CASES]


def _arguments(folder: Path, command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "kqctl"
    return [str(folder / word) if (folder / word).is_file() else word for word in words[1:]]


def differences(expected: dict[str, Any], pods: dict[str, dict[str, Any]]) -> list[str]:
    """How kqctl's pods differ from what the Go test asserts (nothing when they agree)."""
    found = []
    for key in expected.get("preempted", []):
        if pods[key]["state"] != "Preempted":
            found.append(f"{key}: the test preempts it, kqctl has it {pods[key]['state']}")
    for key in expected.get("not_preempted", []):
        if pods[key]["state"] == "Preempted":
            found.append(f"{key}: the test keeps it, kqctl preempts it")
    for key in expected.get("rejected", []):
        if pods[key]["state"] != "Rejected":
            found.append(f"{key}: the test rejects its application, kqctl has it {pods[key]['state']}")
    for key in expected.get("not_rejected", []):
        if pods[key]["state"] == "Rejected":
            found.append(f"{key}: the test accepts its application, kqctl rejects it")
    any_of = expected.get("preempted_any_of")
    if any_of and not any(pods[key]["state"] == "Preempted" for key in any_of):
        found.append(f"the test preempts one of {any_of}, kqctl none")
    ask = expected.get("ask")
    if ask:
        pod = pods[ask["pod"]]
        if pod["state"] != ask["state"]:
            found.append(f"{ask['pod']}: the test has it {ask['state']}, kqctl {pod['state']} ({pod['reason']})")
        elif ask.get("node") and pod["node"] != ask["node"]:
            found.append(f"{ask['pod']}: the test places it on {ask['node']}, kqctl on {pod['node']}")
        if ask.get("log") and ask["log"] not in (pod["reason"] or ""):
            found.append(f"{ask['pod']}: the test logs {ask['log']!r}, kqctl says {pod['reason']!r}")
        if ask.get("reserved") is False and pod["reservedNode"]:
            found.append(f"{ask['pod']}: the test reserves no node, kqctl reserves {pod['reservedNode']}")
    order = expected.get("allocation_order")
    if order:
        placed = sorted((key for key, pod in pods.items() if pod["state"] == "Allocated"),
                        key=lambda key: pods[key]["order"])
        if placed != order:
            found.append(f"the test places {order} in that order, kqctl {placed}")
    return found + _counts(expected, pods)


def _counts(expected: dict[str, Any], pods: dict[str, dict[str, Any]]) -> list[str]:
    """The scheduler tests' counts: allocations (bound or placed) in all, per application and per node, the node
    of the first allocations, reservations per node and per application."""
    found = []
    if "allocated_count" in expected:
        count = sum(pod["state"] in ("Allocated", "Running") for pod in pods.values())
        if count != expected["allocated_count"]:
            found.append(f"the test counts {expected['allocated_count']} allocations, kqctl {count}")
    placed = [pod for pod in pods.values() if pod["state"] in ("Allocated", "Running")]
    for key, field in (("allocated_per_app", "application"), ("allocated_per_node", "node")):
        for name, want in (expected.get(key) or {}).items():
            got = sum(pod[field] == name for pod in placed)
            if got != want:
                found.append(f"the test has {want} allocations for {field} {name}, kqctl {got}")
    first = expected.get("first_allocations_on_one_node")
    if first:
        nodes = {pod["node"] for pod in sorted((p for p in placed if p["state"] == "Allocated"),
                                               key=lambda pod: pod["order"])[:first]}
        if len(nodes) != 1:
            found.append(f"the test finds its first {first} allocations on one node, kqctl on {sorted(nodes)}")
    reserved = [pod for pod in pods.values() if pod["state"] == "Pending" and pod["reservedNode"]]
    for node, want in (expected.get("reserved_per_node") or {}).items():
        got = sum(pod["reservedNode"] == node for pod in reserved)
        if got != want:
            found.append(f"the test has {want} reservations on {node}, kqctl {got}")
    for app, want in (expected.get("reservations_per_app") or {}).items():
        got = sum(pod["application"] == app for pod in reserved)
        if got != want:
            found.append(f"the test has {want} reservations for {app}, kqctl {got}")
    return found


@pytest.mark.parametrize("case", _params())
def test_ported_case_matches_yunikorn_core(case: str) -> None:
    folder = DATA / case
    recorded = yaml.safe_load((folder / "expected.yaml").read_text())
    run = run_kqctl(*_arguments(folder, recorded["command"]))
    assert run.code in (0, 1), f"kqctl exited {run.code}: {run.err}"
    pods = {f"{pod['namespace']}/{pod['name']}": pod for pod in json.loads(run.out)["pods"]}
    assert differences(recorded["expected"], pods) == []


def test_a_wrong_outcome_is_reported() -> None:
    """The comparison itself: a victim the test expects but kqctl keeps is a difference."""
    pods = {"default/a": {"state": "Running", "node": "n", "reason": "", "reservedNode": None},
            "default/b": {"state": "Pending", "node": None, "reason": "x", "reservedNode": None}}
    expected = {"preempted": ["default/a"], "ask": {"pod": "default/b", "state": "Allocated"}}
    assert len(differences(expected, pods)) == 2


def test_a_wrong_allocation_order_is_reported() -> None:
    pods = {"default/a": {"state": "Allocated", "order": 2}, "default/b": {"state": "Allocated", "order": 1}}
    assert differences({"allocation_order": ["default/a", "default/b"]}, pods) != []
    assert differences({"allocation_order": ["default/b", "default/a"]}, pods) == []


def test_a_wrong_reservation_count_is_reported() -> None:
    pods = {"default/a": {"state": "Pending", "reservedNode": "node-1", "application": "app-1"},
            "default/b": {"state": "Running", "reservedNode": None, "application": "app-1"}}
    assert differences({"allocated_count": 1, "reserved_per_node": {"node-1": 1},
                        "reservations_per_app": {"app-1": 1}}, pods) == []
    assert len(differences({"allocated_count": 2, "reserved_per_node": {"node-2": 1},
                            "reservations_per_app": {"app-2": 1}}, pods)) == 3


def test_a_wrong_spread_is_reported() -> None:
    pods = {"default/a": {"state": "Allocated", "order": 1, "node": "n1", "application": "app-1"},
            "default/b": {"state": "Allocated", "order": 2, "node": "n2", "application": "app-1"}}
    assert differences({"allocated_per_app": {"app-1": 2}, "allocated_per_node": {"n1": 1, "n2": 1}}, pods) == []
    assert len(differences({"allocated_per_app": {"app-2": 1}, "first_allocations_on_one_node": 2}, pods)) == 2


def test_the_committed_cases_are_what_the_porting_script_writes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/port_yunikorn_unit_cases.py holds each case as the Go test sets it up: the files here must be its
    output, byte for byte (a hand edit of a case's files would be lost at the next run)."""
    spec = importlib.util.spec_from_file_location("port_yunikorn_unit_cases", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "OUT", tmp_path)
    module.main()
    written = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(str(path.relative_to(DATA)) for path in DATA.rglob("*")
                       if path.is_file() and path.name != "README.md")
    assert written == committed
    assert all((tmp_path / name).read_bytes() == (DATA / name).read_bytes() for name in written)
