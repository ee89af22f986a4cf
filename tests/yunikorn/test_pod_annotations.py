"""YK-POD-ANNOTATION: YuniKorn pod annotations the shim cannot read (``GetTaskGroupsFromAnnotation``,
``GetUserFromPod``, ``GetSchedulingPolicyParam``) are logged and replaced by a default; the simulation does the
same, and validate warns at the annotation, naming the default."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from support import run_kqctl
from yunikorn_build import node, pod, text

from kqctl.yunikorn.load import scheduling_policy_problems, user_info

TASK_GROUPS = "yunikorn.apache.org/task-groups"
USER_INFO = "yunikorn.apache.org/user.info"
POLICY = "yunikorn.apache.org/schedulingPolicyParameters"
GANG = '[{"name": "g", "minMember": 1, "minResource": {"cpu": "1"}}]'


@pytest.mark.parametrize(("raw", "user", "groups", "problem"), [
    ('{"user": "alice", "groups": ["a"]}', "alice", ("a",), ""),
    ('{"User": "alice", "GROUPS": ["a"]}', "alice", ("a",), ""),          # encoding/json ignores case
    ('{"groups": ["a"]}', "nobody", ("a",), ""),                          # an empty user: nobody, groups kept
    ("null", "nobody", (), ""),
    ("garbage", "nobody", (), "is not JSON"),
    ('["alice"]', "nobody", (), "is not a JSON object"),
    ('{"user": 5, "groups": ["a"]}', "nobody", (), "user that is not a JSON string"),  # Unmarshal fails: no groups
    ('{"user": "alice", "groups": "a"}', "nobody", (), "groups that are not"),
    ('{"user": "alice", "groups": [1]}', "nobody", (), "groups that are not"),
])
def test_user_info_reads_as_get_user_from_pod(raw: str, user: str, groups: tuple[str, ...], problem: str) -> None:
    found_user, found_groups, why = user_info(raw)
    assert (found_user, found_groups) == (user, groups)
    assert (problem in why) if problem else why == ""


@pytest.mark.parametrize(("raw", "problems"), [
    ("placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard", []),
    ("", []),
    ("placeholderTimeoutInSeconds=soon", ["the shim uses 0"]),
    ("placeholderTimeoutInSeconds=-5", ["negative timeout"]),
    ("gangSchedulingStyle=hard", ["the shim uses Soft"]),               # the style is case-sensitive
    ("placeholderTimeout=30", ["does not know"]),
    ("placeholderTimeoutInSeconds:30 gangSchedulingStyle=Soft", ["the shim skips it"]),
])
def test_scheduling_policy_parameters_read_as_the_shim(raw: str, problems: list[str]) -> None:
    found = scheduling_policy_problems(raw)
    assert len(found) == len(problems)
    assert all(want in got for want, got in zip(problems, found, strict=True))


def _findings(tmp_path: Path, annotations: dict[str, str], *extra: dict[str, Any]) -> list[dict[str, Any]]:
    path = tmp_path / "pods.yaml"
    path.write_text(text([node("n1"), *extra, pod("p", queue="root.default", annotations=annotations)]))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out
    return [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["ruleId"] == "YK-POD-ANNOTATION"]


@pytest.mark.parametrize(("annotations", "warned", "says"), [
    ({TASK_GROUPS: "{bad json"}, [TASK_GROUPS], "is no gang"),
    ({TASK_GROUPS: '[{"name": "g", "minResource": {"cpu": "1"}}]'}, [TASK_GROUPS], "positive minMember"),
    ({USER_INFO: "garbage"}, [USER_INFO], "user is nobody"),
    ({POLICY: "placeholderTimeoutInSeconds=soon gangSchedulingStyle=Strict"}, [POLICY, POLICY], "the shim uses"),
    ({TASK_GROUPS: GANG, USER_INFO: '{"user": "alice"}', POLICY: "gangSchedulingStyle=Hard"}, [], ""),
])
def test_validate_warns_at_pod_annotations_the_shim_cannot_read(tmp_path: Path, annotations: dict[str, str],
                                                                warned: list[str], says: str) -> None:
    found = _findings(tmp_path, annotations)
    assert sorted(f["field"].split("[")[1].rstrip("]") for f in found) == sorted(warned)
    assert all(f["severity"] == "warning" and says in f["message"] and f["line"] for f in found)


def test_task_groups_are_not_read_when_gang_scheduling_is_disabled(tmp_path: Path) -> None:
    settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs",
                "namespace": "yunikorn"}, "data": {"service.disableGangScheduling": "true"}}
    assert _findings(tmp_path, {TASK_GROUPS: "{bad json"}, settings) == []


@pytest.mark.parametrize(("info", "allocated"), [
    ('{"user": "alice", "groups": ["admins"]}', True),
    ('{"user": 5, "groups": ["admins"]}', False),  # Unmarshal fails: nobody, and the groups are dropped too
])
def test_simulate_runs_a_pod_with_unreadable_user_info_as_nobody_without_groups(tmp_path: Path, info: str,
                                                                                allocated: bool) -> None:
    queues = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs",
              "namespace": "yunikorn"}, "data": {"queues.yaml": (
                  "partitions:\n- name: default\n  queues:\n  - name: root\n    queues:\n"
                  "    - name: team\n      submitacl: ' admins'\n")}}
    path = tmp_path / "pods.yaml"
    path.write_text(text([node("n1"), queues, pod("p", queue="root.team", annotations={
        USER_INFO: info})]))
    data = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    assert (data["pods"][0]["state"] == "Allocated") is allocated


TASK_GROUP = "yunikorn.apache.org/task-group-name"
TWO_GROUPS = json.dumps([{"name": "driver", "minMember": 1, "minResource": {"cpu": "1"}},
                         {"name": "workers", "minMember": 2, "minResource": {"cpu": "1"}}])


def _task_group_findings(tmp_path: Path, *documents: dict[str, Any]) -> list[dict[str, Any]]:
    path = tmp_path / "pods.yaml"
    path.write_text(text([node("n1"), *documents]))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out
    return [{**f, "pod": d["name"]} for d in json.loads(run.out)["documents"] for f in d["findings"]
            if f["ruleId"] == "YK-POD-TASK-GROUP"]


def test_validate_warns_yk_pod_task_group_at_a_group_the_application_does_not_declare(tmp_path: Path) -> None:
    found = _task_group_findings(
        tmp_path,
        pod("driver", app="spark", annotations={TASK_GROUPS: TWO_GROUPS, TASK_GROUP: "driver"}),
        pod("worker-1", app="spark", annotations={TASK_GROUP: "workers"}),
        pod("worker-2", app="spark", annotations={TASK_GROUP: "worker"}))  # a typo: no such group
    assert [(f["pod"], f["severity"], f["field"]) for f in found] == \
        [("worker-2", "warning", f"metadata.annotations[{TASK_GROUP}]")]
    assert found[0]["line"]
    message, hint = found[0]["message"], found[0]["hint"]
    assert "names task group worker, which application spark does not declare" in message
    assert "on pod default/driver: driver, workers" in message and "ordinary pod" in message
    assert "driver or workers" in hint


def test_validate_warns_yk_pod_task_group_when_the_application_declares_no_task_groups(tmp_path: Path) -> None:
    found = _task_group_findings(tmp_path, pod("lonely", app="solo", annotations={TASK_GROUP: "workers"}))
    assert [f["pod"] for f in found] == ["lonely"]
    assert "declares no task groups" in found[0]["message"] and "no gang" in found[0]["message"]


def test_yk_pod_task_group_reads_the_task_groups_the_simulation_takes(tmp_path: Path) -> None:
    # The later pod's annotation is not the application's: the first created pod that declares groups is.
    found = _task_group_findings(
        tmp_path,
        pod("first", app="a", annotations={TASK_GROUPS: GANG}),
        pod("second", app="a", age=timedelta(minutes=1), annotations={TASK_GROUPS: TWO_GROUPS,
                                                                       TASK_GROUP: "workers"}))
    assert [f["pod"] for f in found] == ["second"]
    assert "on pod default/first: g" in found[0]["message"]


def test_yk_pod_task_group_is_not_checked_with_gang_scheduling_disabled(tmp_path: Path) -> None:
    settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs",
                "namespace": "yunikorn"}, "data": {"service.disableGangScheduling": "true"}}
    assert _task_group_findings(tmp_path, settings, pod("p", app="a", annotations={TASK_GROUP: "workers"})) == []


def test_simulate_allocates_a_pod_of_an_undeclared_task_group_as_an_ordinary_pod(tmp_path: Path) -> None:
    # One answer (YK-POD-TASK-GROUP): validate says the core allocates it on its own; the simulation does.
    path = tmp_path / "pods.yaml"
    path.write_text(text([node("n1", cpu="8"), pod("driver", app="spark", annotations={TASK_GROUPS: TWO_GROUPS}),
                          pod("stray", app="spark", annotations={TASK_GROUP: "nope"})]))
    data = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    real = {p["name"]: p for p in data["pods"] if not p["placeholder"]}
    assert {name: p["state"] for name, p in real.items()} == {"driver": "Allocated", "stray": "Allocated"}
    assert real["stray"]["replaced"] is None  # no placeholder of its group to replace (YK-GANG-3)
    # the placeholders stay until their timeout: no real pod of their groups replaces them
    assert sorted(p["state"] for p in data["pods"] if p["placeholder"]) == ["Allocated"] * 3
