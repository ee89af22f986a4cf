"""YuniKorn's own gang-scheduling (placeholder) unit tests, from yunikorn-core and the k8shim, ported by hand into
whole clusters under tests/conformance/data/yunikorn-ported/gang (its README.md says how), reproduced through the
real ``kqctl simulate``.

Each case's expected.yaml holds only what the Go test asserts: which real pod took which placeholder's place
(``replaced``, or one of several: ``replaced_any``) or took none (``not_replaced``), the state and node of a pod, what
its reason says, how many placeholders kqctl created per task group (as the shim does after a restart) and how many
placeholders end in each state, what a queue holds.
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

DATA = Path(__file__).resolve().parent / "data" / "yunikorn-ported" / "gang"
GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "port_yunikorn_gang_cases.py"
CASES = sorted(str(path.parent.relative_to(DATA)) for path in DATA.glob("*/*/expected.yaml"))


def _case_ids(cases: list[str]) -> list[str]:
    """The pytest ids: the Go test (with its subtest), and the case's folder where one test makes several cases."""
    tests = [yaml.safe_load((DATA / case / "expected.yaml").read_text())["source"]["test"].replace(" ", "_")
             for case in cases]
    return [test if tests.count(test) == 1 else f"{test}-{case.split('/')[-1]}"
            for test, case in zip(tests, cases, strict=True)]


def test_the_ported_files_have_their_cases() -> None:
    """No case disappears silently: how many each ported Go test file holds."""
    by_file: dict[str, int] = {}
    for case in CASES:
        by_file[case.split("/")[0]] = by_file.get(case.split("/")[0], 0) + 1
    assert by_file == {"partition_test": 8, "application_test": 2, "recovery_test": 1, "smoke_test": 1,
                       "shim_application_test": 13, "shim_placeholder_manager_test": 2, "shim_utils_test": 2,
                       "shim_gang_utils_test": 2}


def _arguments(folder: Path, command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "kqctl"
    return [str(folder / word) if (folder / word).is_file() else word for word in words[1:]]


def _input_pods(folder: Path) -> set[str]:
    return {f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
            for pod in yaml.safe_load_all((folder / "pods.yaml").read_text()) if pod}


def differences(expected: dict[str, Any], pods: dict[str, dict[str, Any]], queues: dict[str, dict[str, Any]],
                given: set[str]) -> list[str]:
    """How kqctl's pods (and queues) differ from what the Go test asserts (nothing when they agree). ``given``: the
    pods of the case's pods.yaml (any other placeholder in kqctl's output is one it created)."""
    found: list[str] = []

    def pod(key: str) -> dict[str, Any] | None:
        if key not in pods:
            found.append(f"{key}: not in kqctl's output")
            return None
        return pods[key]

    for real, placeholder in (expected.get("replaced") or {}).items():
        found += _replacement(real, [placeholder], pod(real), pods)
    for real, placeholders in (expected.get("replaced_any") or {}).items():
        found += _replacement(real, placeholders, pod(real), pods)
    for key in expected.get("not_replaced") or []:
        got = pod(key)
        if got is not None and got.get("replaced"):
            found.append(f"{key}: the test replaces no placeholder with it, kqctl replaces {got['replaced']}")
    for key, state in (expected.get("states") or {}).items():
        got = pod(key)
        if got is not None and got["state"] != state:
            found.append(f"{key}: the test has it {state}, kqctl {got['state']} ({got.get('reason')})")
    for key, flag in (expected.get("placeholder") or {}).items():
        got = pod(key)
        if got is not None and bool(got.get("placeholder")) != flag:
            found.append(f"{key}: the shim takes it for {'a' if flag else 'no'} placeholder, kqctl "
                         f"{'does not' if flag else 'does'}")
    for key in expected.get("not_failed") or []:
        got = pod(key)
        if got is not None and got["state"] == "Failed":
            found.append(f"{key}: the test does not fail its application, kqctl fails it ({got.get('reason')})")
    for key, node in (expected.get("nodes") or {}).items():
        got = pod(key)
        if got is not None and got["node"] != node:
            found.append(f"{key}: the test places it on {node}, kqctl on {got['node']}")
    for key, text in (expected.get("reason_contains") or {}).items():
        got = pod(key)
        if got is not None and text not in (got.get("reason") or ""):
            found.append(f"{key}: the test's reason is {text!r}, kqctl says {got.get('reason')!r}")
    return found + _placeholders(expected, pods, given) + _totals(expected, pods, queues)


def _replacement(real: str, placeholders: list[str], got: dict[str, Any] | None,
                 pods: dict[str, dict[str, Any]]) -> list[str]:
    """The real pod is allocated in the place of one of ``placeholders``, and that placeholder is Replaced."""
    if got is None:
        return []
    if got["state"] != "Allocated" or got.get("replaced") not in placeholders:
        return [f"{real}: the test has it replace {' or '.join(placeholders)}, kqctl has it {got['state']} "
                f"replacing {got.get('replaced')} ({got.get('reason')})"]
    taken = pods.get(got["replaced"])
    if taken is None or taken["state"] != "Replaced":
        return [f"{got['replaced']}: replaced by {real}, but kqctl has it "
                f"{taken['state'] if taken else 'missing from its output'}"]
    return []


def _placeholders(expected: dict[str, Any], pods: dict[str, dict[str, Any]], given: set[str]) -> list[str]:
    """The placeholders kqctl created per task group (those in its output but not in pods.yaml), their names, and
    how many placeholders (given or created) end in each state."""
    found = []
    created: dict[str, list[str]] = {}
    for key, pod in pods.items():
        if pod.get("placeholder") and key not in given:
            created.setdefault(pod.get("taskGroup") or "", []).append(pod["name"])
    for group, want in (expected.get("placeholders_created") or {}).items():
        got = len(created.get(group, []))
        if got != want:
            found.append(f"the test creates {want} placeholders for task group {group}, kqctl {got}")
    for group, prefix in (expected.get("placeholder_name_prefix") or {}).items():
        wrong = sorted(name for name in created.get(group, []) if not name.startswith(prefix))
        if wrong:
            found.append(f"the test names task group {group}'s placeholders {prefix}..., kqctl {wrong}")
    want_states = expected.get("placeholder_states")
    if want_states is not None:
        got_states: dict[str, int] = {}
        for pod in pods.values():
            if pod.get("placeholder"):
                got_states[pod["state"]] = got_states.get(pod["state"], 0) + 1
        if got_states != want_states:
            found.append(f"the test's placeholders end {want_states}, kqctl's {got_states}")
    return found


def _totals(expected: dict[str, Any], pods: dict[str, dict[str, Any]], queues: dict[str, dict[str, Any]]) -> list[str]:
    """Allocations in all (kqctl's Allocated and Running pods, placeholders included) and what queues hold."""
    found = []
    if "allocated_count" in expected:
        count = sum(pod["state"] in ("Allocated", "Running") for pod in pods.values())
        if count != expected["allocated_count"]:
            found.append(f"the test counts {expected['allocated_count']} allocations, kqctl {count}")
    for path, resources in (expected.get("queue_allocated") or {}).items():
        allocated = (queues.get(path) or {}).get("allocated") or {}
        for name, want in resources.items():
            if allocated.get(name, 0) != want:
                found.append(f"{path}: the test has {name} {want} allocated, kqctl {allocated.get(name, 0)}")
    for path, want in (expected.get("queue_running_apps") or {}).items():
        got = (queues.get(path) or {}).get("runningApps")
        if got != want:
            found.append(f"{path}: the test has {want} running applications, kqctl {got}")
    for path in expected.get("queue_pending_empty") or []:
        pending = {name: value for name, value in ((queues.get(path) or {}).get("pending") or {}).items() if value}
        if pending:
            found.append(f"{path}: the test has nothing pending, kqctl {pending}")
    return found


@pytest.mark.parametrize("case", CASES, ids=_case_ids(CASES))
def test_ported_gang_case_matches_yunikorn(case: str) -> None:
    folder = DATA / case
    recorded = yaml.safe_load((folder / "expected.yaml").read_text())
    run = run_kqctl(*_arguments(folder, recorded["command"]))
    assert run.code in (0, 1), f"kqctl exited {run.code}: {run.err}"
    output = json.loads(run.out)
    pods = {f"{pod['namespace']}/{pod['name']}": pod for pod in output["pods"]}
    queues = {queue["path"]: queue for queue in output["queues"]}
    assert differences(recorded["expected"], pods, queues, _input_pods(folder)) == []


def _pod(name: str, state: str, **fields: Any) -> dict[str, Any]:
    return {"namespace": "default", "name": name, "state": state, "node": fields.pop("node", None),
            "reason": fields.pop("reason", ""), "placeholder": fields.pop("placeholder", False),
            "taskGroup": fields.pop("taskGroup", None), "replaced": fields.pop("replaced", None), **fields}


def test_a_wrong_replacement_is_reported() -> None:
    pods = {"default/real": _pod("real", "Allocated", node="n1", replaced="default/ph-2"),
            "default/ph-1": _pod("ph-1", "Allocated", node="n1", placeholder=True, taskGroup="g"),
            "default/ph-2": _pod("ph-2", "Replaced", node="n1", placeholder=True, taskGroup="g")}
    assert differences({"replaced": {"default/real": "default/ph-2"}}, pods, {}, set(pods)) == []
    assert differences({"replaced_any": {"default/real": ["default/ph-1", "default/ph-2"]}}, pods, {}, set(pods)) == []
    assert len(differences({"replaced": {"default/real": "default/ph-1"}}, pods, {}, set(pods))) == 1
    assert len(differences({"not_replaced": ["default/real"]}, pods, {}, set(pods))) == 1
    pods["default/ph-2"]["state"] = "Allocated"  # the placeholder a real pod took must be Replaced
    assert len(differences({"replaced": {"default/real": "default/ph-2"}}, pods, {}, set(pods))) == 1


def test_wrong_states_nodes_and_reasons_are_reported() -> None:
    pods = {"default/a": _pod("a", "Pending", reason="waiting for the placeholders"),
            "default/b": _pod("b", "Failed", reason="timed out")}
    assert differences({"states": {"default/a": "Pending"}, "reason_contains": {"default/a": "placeholder"},
                        "placeholder": {"default/a": False}}, pods, {}, set(pods)) == []
    assert len(differences({"placeholder": {"default/a": True}}, pods, {}, set(pods))) == 1
    assert len(differences({"states": {"default/a": "Allocated"}, "nodes": {"default/a": "n1"},
                            "reason_contains": {"default/a": "incompatible"}, "not_failed": ["default/b"],
                            "replaced": {"default/c": "default/a"}},
                           pods, {}, set(pods))) == 5


def test_wrong_placeholder_counts_are_reported() -> None:
    pods = {"default/real": _pod("real", "Pending"),
            "default/given": _pod("given", "Allocated", placeholder=True, taskGroup="g"),
            "default/tg-app-g-1": _pod("tg-app-g-1", "Allocated", placeholder=True, taskGroup="g"),
            "default/other-1": _pod("other-1", "Pending", placeholder=True, taskGroup="h")}
    given = {"default/real", "default/given"}
    expected = {"placeholders_created": {"g": 1, "h": 1}, "placeholder_name_prefix": {"g": "tg-app-g-"},
                "placeholder_states": {"Allocated": 2, "Pending": 1}}
    assert differences(expected, pods, {}, given) == []
    wrong = {"placeholders_created": {"g": 2, "x": 1}, "placeholder_name_prefix": {"h": "tg-app-h-"},
             "placeholder_states": {"Allocated": 3}}
    assert len(differences(wrong, pods, {}, given)) == 4


def test_wrong_queue_usage_is_reported() -> None:
    pods = {"default/a": _pod("a", "Allocated", node="n1"), "default/b": _pod("b", "Running", node="n1")}
    queues = {"root.leaf": {"allocated": {"memory": 10, "pods": 2}, "pending": {"memory": 0}, "runningApps": 1},
              "root": {"allocated": {"memory": 10, "pods": 2}, "pending": {"vcore": 5}, "runningApps": 1}}
    assert differences({"allocated_count": 2, "queue_allocated": {"root.leaf": {"memory": 10, "vcore": 0}},
                        "queue_pending_empty": ["root.leaf"], "queue_running_apps": {"root": 1}},
                       pods, queues, set(pods)) == []
    assert len(differences({"allocated_count": 1, "queue_allocated": {"root.leaf": {"memory": 20}},
                            "queue_pending_empty": ["root"], "queue_running_apps": {"root.leaf": 0}},
                           pods, queues, set(pods))) == 4


def test_the_committed_cases_are_what_the_porting_script_writes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/port_yunikorn_gang_cases.py holds each case as the Go test sets it up: the files here must be its
    output, byte for byte (a hand edit of a case's files would be lost at the next run)."""
    spec = importlib.util.spec_from_file_location("port_yunikorn_gang_cases", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    module.write_all(tmp_path)
    written = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(str(path.relative_to(DATA)) for path in DATA.rglob("*")
                       if path.is_file() and path.name != "README.md")
    assert written == committed
    assert all((tmp_path / name).read_bytes() == (DATA / name).read_bytes() for name in written)
