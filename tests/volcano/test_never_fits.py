"""VC-NEVER-1: which PodGroups can never run as configured, decided once by the engine (``GroupOutcome.never``)
and read by ``simulate --fail-on inadmissible`` and ``simulate -o json`` (``neverFits``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import Run
from tests.volcano.builders import conf, group, node, pod, queue, run

CONF = conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", "nodeorder"])


def tainted(name: str, effect: str) -> dict[str, Any]:
    body = node(name)
    body["spec"] = {"taints": [{"key": "gpu", "effect": effect}]}
    return body


def small(name: str) -> dict[str, Any]:
    body = node(name)
    body["metadata"]["labels"] = {"pool": "small"}
    return body


@pytest.mark.parametrize(("objects", "expected"), [
    ([node("a"), queue("q"), group("g", "q"), pod("p", "g", cpu="64")],
     "pod ns/p asks cpu 64 and the largest node that passes its predicates has 8"),
    ([node("a", memory="8Gi"), node("b", memory="16Gi"), queue("q"), group("g", "q"), pod("p", "g", memory="20Gi")],
     "pod ns/p asks memory 20Gi and the largest node that passes its predicates has 16Gi"),
    ([tainted("a", "NoSchedule"), queue("q"), group("g", "q"), pod("p", "g")],
     "no node passes the predicates of pod ns/p"),
    ([small("a"), node("big", cpu="64"), queue("q"), group("g", "q"),
      pod("p", "g", cpu="32", nodeSelector={"pool": "small"})],
     "pod ns/p asks cpu 32 and the largest node that passes its predicates has 8"),
    ([node("a"), queue("q"), group("g", "q", min_member=2), pod("p", "g"), pod("r", "g", cpu="16")],
     "only 1 of its pods can ever fit a node (minMember 2): pod ns/r asks cpu 16"),
    ([node("a", cpu="64"), queue("q", capability={"cpu": "4"}), group("g", "q", min_resources={"cpu": "6"}),
      pod("p", "g", cpu="6")],
     "its minResources ask cpu 6 and its queue can ever hold 4"),
    ([node("a"), group("g", "nowhere"), pod("p", "g")], "its queue nowhere does not exist"),
])
def test_vc_never_1_the_engine_says_why_a_podgroup_can_never_run(objects: list[Any], expected: str) -> None:
    outcome = run(CONF, *objects).groups["ns/g"]
    assert expected in outcome.never, outcome.never


@pytest.mark.parametrize("objects", [
    # busy now, fits an empty node: waiting helps
    [node("a", cpu="2"), queue("q"), group("run", "q", phase="Running"), pod("x", "run", cpu="2", node_name="a"),
     group("g", "q"), pod("p", "g", cpu="2")],
    # the taint is only PreferNoSchedule: it never filters (TAINT-3)
    [tainted("a", "PreferNoSchedule"), queue("q"), group("g", "q", phase="Pending"), pod("p", "g", cpu="8")],
    # no nodes in the input: kqctl cannot tell, so it does not say never
    [queue("q"), group("g", "q"), pod("p", "g", cpu="64")],
])
def test_vc_never_1_waiting_or_unknown_nodes_are_not_never(objects: list[Any]) -> None:
    assert run(CONF, *objects).groups["ns/g"].never == ""


def test_vc_never_1_without_the_predicates_plugin_taints_do_not_make_it_never() -> None:
    plain = conf("enqueue, allocate", ["gang"], ["proportion"])
    assert run(plain, tainted("a", "NoSchedule"), queue("q"), group("g", "q"), pod("p", "g")).groups["ns/g"].never \
        == ""


def test_simulate_fail_on_inadmissible_and_json_read_the_engines_answer(
        kqctl: Callable[..., Run], write: Callable[[str, str], str], tmp_path: Path) -> None:
    objects = [CONF, node("a", cpu="4"), queue("q"), group("run", "q", phase="Running"),
               pod("x", "run", cpu="4", node_name="a"), group("busy", "q"), pod("b", "busy", cpu="2"),
               group("huge", "q"), pod("h", "huge", cpu="6")]
    path = write("input.yaml", yaml.safe_dump_all(objects))
    document = json.loads(kqctl("simulate", path, "-o", "json").out)
    assert document["podGroups"]["ns/busy"]["neverFits"] is None
    assert document["podGroups"]["ns/huge"]["neverFits"] == \
        "pod ns/h asks cpu 6 and the largest node that passes its predicates has 4"
    failed = kqctl("simulate", path, "--fail-on", "inadmissible")
    assert failed.code == 1
    assert "ns/huge" in failed.err and "ns/busy" not in failed.err
    assert kqctl("simulate", path, "--fail-on", "inadmissible", "-l", "nothing=here").code == 0
    assert kqctl("simulate", path, "--fail-on", "pending").code == 1


# --- the never-fits reason everywhere (QA: a PodGroup without minResources whose pod asks more than its queue can
# ever hold was not reported; one with neverFits but no gate showed REASON "-" and explain said nothing) ----------

NO_MIN_RESOURCES = [node("a", cpu="16"), queue("small", capability={"cpu": "2", "memory": "4Gi"}),
                    group("big", "small", phase="Pending"), pod("big-0", "big", cpu="4")]


@pytest.mark.parametrize(("objects", "expected"), [
    (NO_MIN_RESOURCES, "its pod asks cpu 4 and its queue can ever hold 2"),
    ([node("a", cpu="16"), queue("small", capability={"cpu": "3"}), group("g", "small", min_member=2, phase="Pending"),
      pod("p", "g", cpu="2"), pod("r", "g", cpu="2"), pod("s", "g", cpu="5")],
     "its 2 smallest pods (minMember) ask cpu 4 and its queue can ever hold 3"),
])
def test_vc_never_1_a_gang_above_the_queue_s_real_capability_never_runs_without_min_resources(
        objects: list[Any], expected: str) -> None:
    never = run(CONF, *objects).groups[f"ns/{objects[2]['metadata']['name']}"].never
    assert expected in never, never


def test_vc_never_1_a_gang_that_fits_the_capability_is_not_reported() -> None:
    objects = [node("a", cpu="16"), queue("small", capability={"cpu": "4"}), group("g", "small", min_member=1),
               pod("p", "g", cpu="2"), pod("r", "g", cpu="5")]
    assert run(CONF, *objects).groups["ns/g"].never == ""


@pytest.mark.parametrize(("args", "expected"), [
    (("simulate",), "; can never run: its pod asks cpu 4"),
    (("explain", "ns/big"), "never fits (VC-NEVER-1): it can never run as configured: its pod asks cpu 4"),
    (("audit",), "VC-NEVER-1 ns/big: can never run as configured: its pod asks cpu 4"),
])
def test_vc_never_1_every_command_shows_the_never_fits_reason(tmp_path: Path, args: tuple[str, ...],
                                                              expected: str) -> None:
    from tests.support import run_kqctl

    path = tmp_path / "nf.yaml"
    objects = [dict(o) for o in NO_MIN_RESOURCES]
    objects[2] = group("big", "small", phase="Inqueue")  # enqueue lets it in (no minResources); allocate never does
    path.write_text(yaml.safe_dump_all([CONF, *objects]), encoding="utf-8")
    result = run_kqctl(*args, str(path))
    assert result.code == 0, result.err
    assert expected in result.out
    if args == ("explain", "ns/big"):
        data = json.loads(run_kqctl(*args, str(path), "-o", "json").out)
        simulated = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)["podGroups"]["ns/big"]
        assert data["neverFits"] == simulated["neverFits"] and data["neverFits"]


def test_vc_never_1_a_never_fits_reason_without_a_gate_shows_in_simulate_and_explain(tmp_path: Path) -> None:
    """No gate said no in the last session (no node has a pod slot), yet it can never run (QA edge/e1.yaml
    pg-closing: simulate -o json had neverFits, the table REASON "-" and explain nothing)."""
    from tests.support import run_kqctl

    path = tmp_path / "slots.yaml"
    best_effort = pod("p", "g")
    best_effort["spec"]["containers"][0].pop("resources")
    path.write_text(yaml.safe_dump_all([CONF, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "empty"}},
                                        queue("q", state="Closing"), group("g", "q", phase="Pending"), best_effort]),
                    encoding="utf-8")
    never = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)["podGroups"]["ns/g"]["neverFits"]
    assert never and "pod slots" in never
    table = run_kqctl("simulate", str(path)).out
    assert "never-fits" in table and f"ns/g: can never run: {never}" in table
    assert never in run_kqctl("explain", "ns/g", str(path)).out
    assert never in run_kqctl("audit", str(path)).out


BACKFILL = conf("enqueue, allocate, backfill", ["priority", "gang"], ["predicates", "proportion", "nodeorder"])


def best_effort(name: str, group_name: str) -> dict[str, Any]:
    return pod(name, group_name, cpu="0", memory="0")


@pytest.mark.parametrize(("configuration", "members", "min_member", "never"), [
    # VC-BACKFILL-1: allocate skips best-effort pods; without backfill nothing places them
    (CONF, [best_effort("p", "g"), best_effort("r", "g")], 2,
     "2 of its pods ask for no resources (best-effort): Volcano's allocate action skips them and only backfill places "
     "them, which the scheduler configuration does not run (actions: enqueue, allocate); minMember 2 needs them"),
    (CONF, [pod("p", "g"), best_effort("r", "g")], 2, "1 of its pods asks for no resources"),
    (CONF, [pod("p", "g"), best_effort("r", "g")], 1, ""),  # the gang runs on the pod allocate places
    (BACKFILL, [best_effort("p", "g"), best_effort("r", "g")], 2, ""),
])
def test_vc_backfill_1_best_effort_pods_a_gang_needs_never_run_without_backfill(
        configuration: dict[str, Any], members: list[Any], min_member: int, never: str) -> None:
    result = run(configuration, node("a"), queue("q"), group("g", "q", min_member=min_member), *members)
    outcome = result.groups["ns/g"]
    assert (never in outcome.never) if never else outcome.never == "", outcome.never
    assert (outcome.phase == "Running") == (configuration is BACKFILL or min_member == 1)


def test_vc_backfill_1_every_command_says_a_best_effort_gang_never_runs_without_backfill(tmp_path: Path) -> None:
    from tests.support import run_kqctl

    path = tmp_path / "no-backfill.yaml"
    path.write_text(yaml.safe_dump_all([CONF, node("a"), queue("q"), group("g", "q", min_member=2),
                                        best_effort("p", "g"), best_effort("r", "g")]), encoding="utf-8")
    never = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)["podGroups"]["ns/g"]["neverFits"]
    assert "only backfill places them" in never
    assert "never-fits" in run_kqctl("simulate", str(path)).out
    explained = run_kqctl("explain", "ns/g", str(path)).out
    assert never in explained and "may be waiting for resources" not in explained  # it is not waiting for anything
    assert never in run_kqctl("audit", str(path)).out


@pytest.mark.parametrize(("configuration", "reason"), [
    (CONF, "1 of its pods asks for no resources (best-effort): Volcano's allocate action skips it and only backfill "
           "places it, which the scheduler configuration does not run (actions: enqueue, allocate): r stays Pending"),
    (BACKFILL, None),  # backfill binds it once the gang is ready
])
def test_vc_backfill_1_best_effort_pods_of_a_running_gang_stay_pending_without_backfill(
        configuration: dict[str, Any], reason: str | None) -> None:
    result = run(configuration, node("a"), queue("q"), group("g", "q", min_member=1), pod("p", "g"),
                 best_effort("r", "g"))
    outcome = result.groups["ns/g"]
    assert outcome.phase == "Running" and outcome.never == ""
    assert outcome.reason == (("backfill", reason) if reason else None)
    assert bool(outcome.pods["ns/r"]) == (reason is None)


def test_vc_backfill_1_every_command_says_why_best_effort_pods_of_a_running_gang_stay_pending(tmp_path: Path) -> None:
    from tests.support import run_kqctl

    path = tmp_path / "no-backfill.yaml"
    path.write_text(yaml.safe_dump_all([CONF, node("a"), queue("q"), group("g", "q", min_member=1), pod("p", "g"),
                                        best_effort("r", "g")]), encoding="utf-8")
    reason = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)["podGroups"]["ns/g"]["reason"]
    assert reason["gate"] == "backfill" and reason["message"].endswith("r stays Pending")
    table = run_kqctl("simulate", str(path), env={"COLUMNS": "400"}).out
    assert f"ns/g: {reason['message']}" in table
    # the PodGroup runs: its line is under its own heading, not "Why not running"
    assert "Running, with pods left Pending:\n  ns/g: " in table and "Why not running" not in table
    explained = run_kqctl("explain", "ns/g", str(path), env={"COLUMNS": "400"}).out
    assert f"backfill (best-effort pods, VC-BACKFILL-1): {reason['message']}" in explained
    assert "may be waiting for resources" not in explained
