"""Volcano explain: the gate that stopped a PodGroup, the arithmetic, the water-filling, verified suggestions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kqctl.volcano.engine.explain import UnknownPodGroup, explain, resolve
from tests.support import run_kqctl
from tests.volcano.builders import conf, group, node, pod, queue, snapshot

TIERS = (["priority", "gang", "conformance"], ["overcommit", "drf", "predicates", "proportion", "nodeorder"])


def _quota_case() -> list[dict[str, object]]:
    return [conf("enqueue, allocate", *TIERS), node("n1", cpu="8", memory="16Gi"),
            queue("small", capability={"cpu": "2"}),
            group("big", "small", phase="Pending", min_resources={"cpu": "3"}), pod("big-0", "big", cpu="3")]


def test_the_queue_quota_gate_with_its_numbers_and_a_verified_capability_raise() -> None:
    found = explain(snapshot(*_quota_case()), "ns/big")  # type: ignore[arg-type]
    assert [n.gate for n in found.notes] == ["queue-quota"]
    assert found.notes[0].message == "queue resource quota insufficient: insufficient cpu"
    assert found.real_capability is not None and found.real_capability.result.cpu == 2000
    helping = [s.change for s in found.suggestions if s.helps]
    assert "raise queue small's capability to cpu 3" in helping


def test_resolving_by_vcjob_pod_or_bare_name() -> None:
    snap = snapshot(*_quota_case())  # type: ignore[arg-type]
    assert resolve(snap, "ns/big-0") == ("ns/big", "Pod ns/big-0")
    assert resolve(snap, "big") == ("ns/big", "")


def test_an_unknown_name_suggests_close_ones() -> None:
    snap = snapshot(*_quota_case())  # type: ignore[arg-type]
    try:
        resolve(snap, "bgi")
    except UnknownPodGroup as exc:
        assert "did you mean ns/big?" in str(exc)
    else:
        raise AssertionError("expected UnknownPodGroup")


def test_gang_not_satisfiable_suggests_a_smaller_minmember() -> None:
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1", cpu="2"), queue("q"),
                    group("g", "q", min_member=3), *[pod(f"g-{i}", "g", cpu="1", memory="0") for i in range(3)])
    found = explain(snap, "ns/g")
    assert not found.running and found.gang_message is not None
    assert any(s.change == "lower ns/g's minMember from 3 to 2" and s.helps for s in found.suggestions)


def test_a_closed_queue_suggests_opening_it() -> None:
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1"), queue("q", state="Closed"),
                    group("g", "q", phase="Pending", min_resources={"cpu": "1"}), pod("p", "g"))
    found = explain(snap, "ns/g")
    assert found.notes[0].gate == "queue-closed"
    assert found.suggestions[0].change.startswith("open queue q") and found.suggestions[0].helps


def test_proportion_rounds_are_part_of_the_explanation() -> None:
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1", cpu="4"), queue("a"), queue("b", weight=3),
                    group("ga", "a"), *[pod(f"a-{i}", "ga", cpu="1", memory="0") for i in range(4)],
                    group("gb", "b"), *[pod(f"b-{i}", "gb", cpu="1", memory="0") for i in range(4)])
    found = explain(snap, "ns/ga")
    assert found.rounds and found.rounds[0].total_weight == 4
    assert found.rounds[0].deserved["a"].cpu == 1000 and found.rounds[0].deserved["b"].cpu == 3000


def test_lowering_min_resources_goes_down_to_what_the_gate_leaves() -> None:
    # The queue holds 2 cores; the PodGroup claims 3 at enqueue but its one pod asks 1: minResources up to 2 pass.
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1", cpu="8", memory="16Gi"),
                    queue("small", capability={"cpu": "2"}),
                    group("over", "small", phase="Pending", min_resources={"cpu": "3"}), pod("over-0", "over", cpu="1"))
    found = explain(snap, "ns/over")
    lowered = [s for s in found.suggestions if "minResources" in s.change]
    assert [(s.change, s.helps) for s in lowered] == [("lower ns/over's minResources to cpu 2", True)]


def test_hierarchical_capacity_explains_from_the_parent_and_names_the_ancestor_that_said_no() -> None:
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_paths
    from kqctl.volcano.load import build_snapshot
    from tests.support import REPO

    snap = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / "volcano-hierarchy")], recursive=True))
    found = explain(snap, "web/render")
    assert found.notes[0].gate == "queue-quota" and found.notes[0].detail["queue"] == "eng"
    real = found.real_capability
    assert real is not None and real.parent == "eng"
    assert (real.total.cpu, real.others_guarantee.cpu, real.result.cpu) == (24000, 4000, 20000)
    assert any(s.change == "raise queue eng's capability to cpu 28" and s.helps for s in found.suggestions)


def test_many_queues_show_only_the_podgroups_own_column_of_the_water_filling() -> None:
    from kqctl.volcano.render.explain import ROUND_COLUMNS, text

    names = [f"q{i}" for i in range(ROUND_COLUMNS + 1)]
    objects = [conf("enqueue, allocate", *TIERS), node("n1", cpu="2")]
    for name in names:
        objects += [queue(name), group(f"g-{name}", name), pod(f"p-{name}", f"g-{name}", cpu="1", memory="0")]
    found = explain(snapshot(*objects), "ns/g-q6", with_suggestions=False)  # type: ignore[arg-type]
    rendered = text(found)
    assert f"{len(names)} queues, only q6 shown" in rendered
    header = next(line for line in rendered.splitlines() if line.strip().startswith("ROUND"))
    assert "q6" in header and "q5" not in header and "QUEUES" in header  # queue names as written


def _vcjob(name: str, queue_name: str) -> dict[str, object]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"queue": queue_name, "minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {
                "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}


def test_vc_pg_queue_missing_queue_offers_the_close_queue_before_creating_it() -> None:
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1"), queue("research"), queue("ops"),
                    _vcjob("sweep", "reseach"), group("g", "reserch", phase="Pending", min_resources={"cpu": "1"}),
                    pod("g-0", "g"))
    for key, field in (("ns/sweep", "spec.queue of Job ns/sweep"), ("ns/g", "spec.queue of PodGroup ns/g")):
        found = explain(snap, key)
        assert found.outcome.reason is not None and found.outcome.reason[0] == "queue-missing"
        changes = [(s.change, s.helps) for s in found.suggestions]
        # The typo first (and verified: it runs), then creating the queue as misspelt.
        assert changes[0] == (f"did you mean queue research? set {field} to research", True)
        assert changes[-1][0].startswith("create queue ")


def test_vc_pg_queue_missing_queue_without_a_close_name_only_offers_creating_it() -> None:
    snap = snapshot(conf("enqueue, allocate", *TIERS), node("n1"), queue("research"),
                    group("g", "zzz", phase="Pending", min_resources={"cpu": "1"}), pod("g-0", "g"))
    assert [s.change for s in explain(snap, "ns/g").suggestions] == ["create queue zzz"]


HIERARCHY = (["priority", "gang"], ["predicates", {"name": "capacity", "enableHierarchy": True}])


def test_explain_drops_a_suggestion_that_cannot_help_a_siblings_guarantee_under_an_ancestors_cap() -> None:
    objects = [conf("enqueue, allocate", *HIERARCHY), node("n1", cpu="16", memory="64Gi"),
               queue("parent", capability={"cpu": "4"}, deserved={"cpu": "4"}),
               queue("a", parent="parent"),
               queue("b", parent="parent", deserved={"cpu": "1"}, guarantee={"resource": {"cpu": "1"}}),
               group("big", "a", phase="Pending", min_resources={"cpu": "5"}), pod("big-0", "big", cpu="5")]
    found = explain(snapshot(*objects), "ns/big")
    changes = [s.change for s in found.suggestions]
    assert not any("guarantee" in change for change in changes)
    assert all(s.helps for s in found.suggestions)
    # a inherits parent's 4 cpu, less b's guarantee: parent needs 6 cpu for a 5-cpu job (searched, not 5).
    assert "raise queue parent's capability to cpu 6" in changes


def test_explain_capability_raise_is_whole_devices_and_verified() -> None:
    gpu = {"nvidia.com/gpu": "4"}
    objects = [conf("enqueue, allocate", *TIERS), node("n1", cpu="16", memory="64Gi", scalars=gpu),
               queue("q", capability={"cpu": "16", "nvidia.com/gpu": "1500m"}),
               group("g", "q", phase="Pending", min_resources={"cpu": "1", "nvidia.com/gpu": "2"}),
               pod("g-0", "g", scalars={"nvidia.com/gpu": "2"})]
    found = explain(snapshot(*objects), "ns/g")
    raised = [s.change for s in found.suggestions if "capability" in s.change]
    assert raised == ["raise queue q's capability to nvidia.com/gpu 2"]


def test_explain_gets_in_once_a_running_podgroup_finishes() -> None:
    objects = [conf("enqueue, allocate", *TIERS), node("n1", cpu="4", memory="16Gi"), queue("q"),
               group("runs", "q", phase="Running", min_resources={"cpu": "3"}), pod("runs-0", "runs", "3", "1Gi", "n1"),
               group("small", "q", phase="Running", min_resources={"cpu": "1"}),
               pod("small-0", "small", "1", "1Gi", "n1"),
               group("waits", "q", phase="Inqueue", min_resources={"cpu": "3"}), pod("waits-0", "waits", "3", "1Gi")]
    found = explain(snapshot(*objects), "ns/waits")
    completions = [s.change for s in found.suggestions if s.change.startswith("it gets in once")]
    # small's 1 cpu is not enough; runs' 3 cpu is.
    assert completions == ["it gets in once ns/runs (queue q) finishes, freeing cpu 3, memory 1Gi"]


@pytest.mark.parametrize("name", ["team-a/team-a-job-2", "team-a/team-a-job-5"])
def test_explain_json_lists_each_gate_answer_once_as_the_table_does(name: str) -> None:
    sample = str(Path(__file__).resolve().parents[2] / "samples" / "volcano-two-teams")
    data = json.loads(run_kqctl("explain", name, sample, "-o", "json").out)
    said = [(gate["gate"], gate["message"]) for gate in data["gates"]]
    assert said and len(said) == len(set(said)), said
    table = run_kqctl("explain", name, sample).out
    assert all(table.count(f"{gate} (") == 1 for gate, _ in said), table
