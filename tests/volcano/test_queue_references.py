"""vcjobs and PodGroups against their queue (§2.4): VC-JOB-QUEUE, VC-JOB-QUEUE-STATE, VC-JOB-ROOT, VC-JOB-LEAF,
VC-PG-QUEUE, VC-PG-QUEUE-STATE, through ``kqctl validate`` with and without --closed and --against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import run_kqctl
from tests.volcano.builders import group, node, queue

Obj = dict[str, Any]


def vcjob(name: str, queue_name: str | None) -> Obj:
    spec: Obj = {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}
    if queue_name is not None:
        spec["queue"] = queue_name
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name, "namespace": "ns"},
            "spec": spec}


def findings(tmp_path: Path, objects: list[Obj], *args: str, old: list[Obj] | None = None) -> list[dict[str, Any]]:
    """Every finding of ``kqctl validate`` on the objects, with the document's name."""
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    if old is not None:
        before = tmp_path / "old.yaml"
        before.write_text(yaml.safe_dump_all(old), encoding="utf-8")
        args = (*args, "--against", str(before))
    run = run_kqctl("validate", str(path), "-o", "json", *args)
    assert run.code in (0, 1), run.err
    return [{"name": d["name"], **f} for d in json.loads(run.out)["documents"] for f in d["findings"]]


def rule_severities(found: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return sorted((f["name"], f["ruleId"], f["severity"]) for f in found if f["ruleId"].startswith(("VC-JOB",
                                                                                                    "VC-PG")))


@pytest.mark.parametrize("args,severity", [
    ((), "warning"),  # the queue may exist in the cluster
    (("--closed",), "error"),  # the inputs are the whole world
])
def test_vc_pg_queue_and_vc_job_queue_missing_queue_is_a_warning_unless_closed(
        tmp_path: Path, args: tuple[str, ...], severity: str) -> None:
    found = findings(tmp_path, [group("pg", "team-a"), vcjob("vj", "team-a")], *args)
    assert rule_severities(found) == [("pg", "VC-PG-QUEUE", severity), ("vj", "VC-JOB-QUEUE", severity)]


def test_vc_pg_queue_missing_from_against_state_is_an_error(tmp_path: Path) -> None:
    # --against gives the cluster's queues: one in neither the input nor that state does not exist.
    found = findings(tmp_path, [group("pg", "team-a")], old=[queue("team-b")])
    assert rule_severities(found) == [("pg", "VC-PG-QUEUE", "error")]


def test_vc_pg_queue_refused_queue_of_the_input_is_an_error(tmp_path: Path) -> None:
    refused = queue("team-a", guarantee={"resource": {"cpu": "2"}})  # VC-Q3: no deserved
    found = findings(tmp_path, [refused, group("pg", "team-a")])
    assert [f for f in rule_severities(found)] == [("pg", "VC-PG-QUEUE", "error")]
    assert "is in the input but is refused itself" in next(f["hint"] for f in found if f["ruleId"] == "VC-PG-QUEUE")


@pytest.mark.parametrize("objects,rule,suggested", [
    ([queue("research"), group("pg", "reserch")], "VC-PG-QUEUE", "research"),
    ([queue("research"), vcjob("vj", "reseach")], "VC-JOB-QUEUE", "research"),
    ([queue("research"), group("pg", "ops")], "VC-PG-QUEUE", None),  # nothing close: no guess
])
def test_vc_pg_queue_and_vc_job_queue_offer_the_close_queue_name(tmp_path: Path, objects: list[Obj], rule: str,
                                                                   suggested: str | None) -> None:
    for args in ((), ("--closed",)):
        hint = next(f["hint"] or "" for f in findings(tmp_path, objects, *args) if f["ruleId"] == rule)
        assert ("did you mean" in hint) == (suggested is not None)
        if suggested is not None:
            assert f"did you mean {suggested}?" in hint


@pytest.mark.parametrize("old", [
    [queue("team", weight=1)],  # a snapshot without the built-in queues
    [queue("team", weight=1), queue("root", reclaimable=False), queue("default")],  # one that lists them
])
def test_vc_pg_queue_against_keeps_the_built_in_root_and_default_queues(tmp_path: Path, old: list[Obj]) -> None:
    no_queue = group("pg", "default")
    del no_queue["spec"]["queue"]  # PodGroups without a queue are in default
    found = findings(tmp_path, [queue("team", weight=2), no_queue, vcjob("vj", "root")], old=old)
    assert rule_severities(found) == [("vj", "VC-JOB-ROOT", "error")]


def test_vc_job_root_in_plain_validate(tmp_path: Path) -> None:
    found = findings(tmp_path, [vcjob("vj", "root")])
    assert [(f["ruleId"], f["message"]) for f in found] == [("VC-JOB-ROOT", "can not submit job to root queue")]


def test_vc_job_leaf_and_queue_default(tmp_path: Path) -> None:
    found = findings(tmp_path, [queue("p"), queue("c", parent="p"), vcjob("vj", "p"), vcjob("plain", None)])
    assert rule_severities(found) == [("vj", "VC-JOB-LEAF", "error")]


@pytest.mark.parametrize("state,severity", [("Closed", "error"), ("Closing", "error"), ("Open", None)])
def test_vc_job_queue_state_and_vc_pg_queue_state_against_a_cluster_state(tmp_path: Path, state: str,
                                                                            severity: str | None) -> None:
    # The state comes from the cluster (--against): the webhook refuses submissions to a queue that is not Open.
    old = [queue("q", state=state)]
    found = findings(tmp_path, [group("pg", "q"), vcjob("vj", "q")], old=old)
    expected = [] if severity is None else [("pg", "VC-PG-QUEUE-STATE", severity),
                                            ("vj", "VC-JOB-QUEUE-STATE", severity)]
    assert rule_severities(found) == expected
    if severity is not None:
        messages = {f["ruleId"]: f["message"] for f in found}
        assert messages["VC-JOB-QUEUE-STATE"] == (f"can only submit job to queue with state `Open`, queue `q` "
                                                  f"status is `{state}`")
        assert messages["VC-PG-QUEUE-STATE"] == (f"can only submit PodGroup to queue with state `Open`, queue `q` "
                                                 f"status is `{state}`.")


def test_vc_pg_queue_state_written_in_the_input_is_a_warning(tmp_path: Path) -> None:
    # Created, the queue starts Open (the API server drops status); as a cluster snapshot it is Closed and
    # simulate reports queue-closed: validate warns rather than staying silent.
    found = findings(tmp_path, [node("n1"), queue("q", state="Closed"), group("pg", "q"), vcjob("vj", "q")])
    assert rule_severities(found) == [("pg", "VC-PG-QUEUE-STATE", "warning"),
                                      ("vj", "VC-JOB-QUEUE-STATE", "warning")]
    simulated = run_kqctl("simulate", str(tmp_path / "in.yaml"), "-o", "json")
    assert json.loads(simulated.out)["podGroups"]["ns/vj"]["reason"]["gate"] == "queue-closed"
