"""VC-QUEUE-STATE-1: a PodGroup whose queue is not Open. proportion and capacity turn down enqueue's vote for it
(when it sets minResources) and every allocation of a pod with requests; backfill places best-effort pods without
asking the queue. The engine decides it once (``queue_state.refusal``) and every command gives that answer:
simulate's reason and neverFits, explain's gate, audit's VC-NEVER-1, replay's end state QueueClosed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kqctl.volcano.engine.queue_state import refusal
from tests.support import run_kqctl
from tests.volcano.builders import conf, group, node, pod, queue, run, snapshot

CONF = conf("enqueue, allocate, backfill", ["priority", "gang"], ["predicates", "proportion", "nodeorder"])
CAPACITY = conf("enqueue, allocate", ["priority", "gang"], ["predicates", "capacity", "nodeorder"])
NO_QUOTA_PLUGIN = conf("enqueue, allocate, backfill", ["priority", "gang"], ["predicates", "nodeorder"])
OVERCOMMIT_FIRST = conf("enqueue, allocate, backfill", ["priority", "gang", "overcommit"],
                        ["predicates", "proportion", "nodeorder"])
NO_ALLOCATABLE = conf("enqueue, allocate", ["priority", "gang"],
                      ["predicates", {"name": "proportion", "enabledAllocatable": False}, "nodeorder"])


def best_effort(name: str, group_name: str) -> dict[str, Any]:
    body = pod(name, group_name)
    body["spec"]["containers"][0].pop("resources")
    return body


def refused(configuration: dict[str, Any], state: str, *members: dict[str, Any], phase: str = "Pending",
            **group_spec: Any) -> str:
    snap = snapshot(configuration, node("a"), queue("q", state=state), group("g", "q", phase=phase, **group_spec),
                    *members)
    return refusal(snap, snap.pod_groups["ns/g"], phase, [p for p in snap.pods if p.group == "g"])


@pytest.mark.parametrize(("configuration", "state", "members", "spec", "expected"), [
    # enqueue's vote (minResources) and allocate (a pod with requests) both ask the queue
    (CONF, "Closed", [pod("p", "g")], {"min_resources": {"cpu": "1"}}, "queue q is Closed, not Open"),
    (CONF, "Closing", [pod("p", "g")], {}, "queue q is Closing, not Open"),
    (CONF, "Unknown", [pod("p", "g")], {}, "queue q is Unknown, not Open"),
    (CAPACITY, "Closed", [pod("p", "g")], {}, "queue q is Closed, not Open"),
    # a best-effort pod is backfill's, which asks no queue: enqueued unasked without minResources, then placed
    (CONF, "Closed", [best_effort("p", "g")], {}, ""),
    # ... but with minResources it waits for enqueue's vote, which the state turns down
    (CONF, "Closed", [best_effort("p", "g")], {"min_resources": {"cpu": "1"}}, "queue q is Closed, not Open"),
    # a gang that needs a pod with requests besides the best-effort one
    (CONF, "Closed", [best_effort("p", "g"), pod("r", "g")], {"min_member": 2}, "queue q is Closed, not Open"),
    # nothing reads the state: no quota plugin, or its allocatable hook turned off (no minResources to vote on)
    (NO_QUOTA_PLUGIN, "Closed", [pod("p", "g")], {"min_resources": {"cpu": "1"}}, ""),
    (NO_ALLOCATABLE, "Closed", [pod("p", "g")], {}, ""),
    (CONF, "Open", [pod("p", "g")], {"min_resources": {"cpu": "1"}}, ""),
    # an earlier tier's overcommit decides enqueue's vote alone: the state check is not reached
    (OVERCOMMIT_FIRST, "Closed", [best_effort("p", "g")], {"min_resources": {"cpu": "1"}}, ""),
    (OVERCOMMIT_FIRST, "Closed", [pod("p", "g")], {"min_resources": {"cpu": "1"}}, "queue q is Closed, not Open"),
    # allocate skips a job with fewer valid tasks than minMember (gang's JobValid) before asking the queue
    (CONF, "Closed", [pod("p", "g")], {"min_member": 2}, ""),
    # ... while enqueue asks the queue whatever the gang
    (CONF, "Closed", [pod("p", "g")], {"min_member": 2, "min_resources": {"cpu": "1"}}, "queue q is Closed, not Open"),
])
def test_vc_queue_state_1_the_engine_knows_when_a_queue_that_is_not_open_holds_a_podgroup_back(
        configuration: dict[str, Any], state: str, members: list[dict[str, Any]], spec: dict[str, Any],
        expected: str) -> None:
    assert refused(configuration, state, *members, **spec) == expected


@pytest.mark.parametrize("configuration", [CONF, NO_QUOTA_PLUGIN, OVERCOMMIT_FIRST])
def test_vc_queue_state_1_the_engine_s_answer_is_what_the_sessions_do(configuration: dict[str, Any]) -> None:
    objects = [configuration, node("a"), queue("q", state="Closed"),
               group("g", "q", phase="Pending", min_resources={"cpu": "1"}), pod("p", "g"),
               group("be", "q", phase="Pending", min_resources={"cpu": "1"}), best_effort("b", "be")]
    result = run(*objects)
    closed = configuration is not NO_QUOTA_PLUGIN
    assert (result.groups["ns/g"].phase != "Running") is closed
    assert (result.groups["ns/g"].never == "queue q is Closed, not Open") is closed
    # enqueued unasked when overcommit decides first, then backfilled: backfill never asks the queue
    assert (result.groups["ns/be"].phase == "Running") is (configuration is not CONF)
    assert (result.groups["ns/be"].never == "queue q is Closed, not Open") is (configuration is CONF)


# A Closed queue and a pod no node can hold: the queue is the first gate, and every command says so.
TOO_BIG = [CONF, node("a"), queue("q", state="Closed"), group("g", "q", phase="Pending"), pod("p", "g", cpu="64")]


@pytest.fixture()
def too_big(tmp_path: Path) -> Path:
    path = tmp_path / "closed.yaml"
    path.write_text(yaml.safe_dump_all(TOO_BIG), encoding="utf-8")
    return path


@pytest.mark.parametrize(("args", "expected"), [
    (("simulate",), "ns/g: queue q is Closed, not Open"),
    (("explain", "ns/g"), "queue-closed (queue state, VC-QUEUE-STATE-1): queue q is Closed, not Open"),
    (("audit",), "VC-NEVER-1 ns/g: can never run as configured: queue q is Closed, not Open"),
    (("replay", "--now", "2026-01-01T12:00:00Z"), "QueueClosed"),
])
def test_vc_queue_state_1_every_command_gives_the_closed_queue_as_the_reason(too_big: Path, args: tuple[str, ...],
                                                                            expected: str) -> None:
    result = run_kqctl(*args, str(too_big))
    assert result.code == 0, result.err
    assert expected in result.out
    assert "asks cpu 64" not in result.out  # its size is not what stops it first


def test_vc_queue_state_1_json_outputs_agree(too_big: Path) -> None:
    simulated = json.loads(run_kqctl("simulate", str(too_big), "-o", "json").out)["podGroups"]["ns/g"]
    explained = json.loads(run_kqctl("explain", "ns/g", str(too_big), "-o", "json").out)
    replayed = json.loads(run_kqctl("replay", str(too_big), "--now", "2026-01-01T12:00:00Z", "-o", "json").out)
    assert simulated["reason"] == {"gate": "queue-closed", "message": "queue q is Closed, not Open"}
    assert simulated["neverFits"] == explained["neverFits"] == "queue q is Closed, not Open"
    assert replayed["workloads"]["ns/g"]["state"] == "QueueClosed"
    assert run_kqctl("simulate", str(too_big), "--fail-on", "inadmissible").code == 1


def test_vc_queue_state_1_audit_names_the_closed_queue_even_when_min_resources_exceed_the_cluster(
        tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump_all([CONF, node("a"), queue("q", state="Closing"),
                                        group("g", "q", phase="Pending", min_resources={"cpu": "64"}),
                                        pod("p", "g", cpu="64")]), encoding="utf-8")
    out = run_kqctl("audit", str(path)).out
    assert "VC-AUDIT-NEVER-FITS ns/g" in out
    assert "VC-NEVER-1 ns/g: can never run as configured: queue q is Closing, not Open" in out


def test_vc_queue_state_1_a_best_effort_podgroup_is_not_held_back_by_its_queue(tmp_path: Path) -> None:
    """Backfill places best-effort pods without asking the queue: with no node to hold it, the nodes are the
    answer, not the Closing queue (QA edge/e1.yaml pg-closing)."""
    empty = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "empty"}}
    path = tmp_path / "be.yaml"
    path.write_text(yaml.safe_dump_all([CONF, empty, queue("q", state="Closing"), group("g", "q", phase="Pending"),
                                        best_effort("p", "g")]), encoding="utf-8")
    simulated = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)["podGroups"]["ns/g"]
    assert simulated["reason"] is None and "pod slots" in simulated["neverFits"]
    assert "QueueClosed" not in run_kqctl("replay", str(path), "--now", "2026-01-01T12:00:00Z").out

