"""The capacity plugin: flat (C1-C5 with the worked example) and hierarchical (real capability down the tree,
inherited capabilities, a job in a non-leaf queue refusing the whole session)."""

from __future__ import annotations

import pytest

from tests.volcano.builders import binds, conf, group, node, pod, queue, run, session

FLAT = conf("enqueue, allocate", ["priority", "gang"], ["capacity"])
HIERARCHY = conf("enqueue, allocate", ["priority", "gang"], [{"name": "capacity", "enableHierarchy": True}])


def _worked_example(x_pods: int) -> list[dict[str, object]]:
    """10 cores; X deserved 4, capability 8; Y deserved 6, capability 10, guarantee 2."""
    return [FLAT, node("n1", cpu="10", memory="64Gi"),
            queue("qx", deserved={"cpu": "4"}, capability={"cpu": "8"}),
            queue("qy", deserved={"cpu": "6"}, capability={"cpu": "10"}, guarantee={"resource": {"cpu": "2"}}),
            group("gx", "qx", min_member=1, phase="Inqueue"),
            *[pod(f"x-{i}", "gx", cpu="1", memory="0") for i in range(x_pods)],
            group("gy", "qy", min_member=1, phase="Inqueue"), pod("y-0", "gy", cpu="0", memory="1Gi")]


def test_c_flat_real_capability_and_deserved_of_the_worked_example() -> None:
    result = session(*_worked_example(1))  # type: ignore[arg-type]
    x, y = result.quota["qx"], result.quota["qy"]
    assert (x.real_capability.cpu, y.real_capability.cpu) == (8000, 10000)
    assert (x.deserved.cpu, y.deserved.cpu) == (4000, 6000)


def test_c2_deserved_is_not_a_cap_a_queue_runs_up_to_its_real_capability() -> None:
    result = run(*_worked_example(9))  # type: ignore[arg-type]
    assert sum(pod.startswith("ns/x-") for pod in binds(result)) == 8


def test_c1_share_is_1_for_a_best_effort_queue() -> None:
    result = session(FLAT, node("n1"), queue("be"), group("g", "be"), pod("p", "g"))
    assert result.quota["be"].share == 1 and result.quota["be"].best_effort_share


def test_c3_enqueue_checks_minresources_against_real_capability() -> None:
    result = run(FLAT, node("n1", cpu="4"), queue("q", capability={"cpu": "2"}),
                 group("g", "q", phase="Pending", min_resources={"cpu": "3"}), pod("p", "g", cpu="3"))
    assert binds(result) == {}
    assert result.reasons["ns/g"] == ("queue-quota", "queue resource quota insufficient: insufficient cpu")


def test_closed_queue_refuses_enqueue() -> None:
    result = run(FLAT, node("n1"), queue("q", state="Closed"), group("g", "q", phase="Pending",
                                                                     min_resources={"cpu": "1"}), pod("p", "g"))
    assert binds(result) == {} and result.reasons["ns/g"][0] == "queue-closed"


def _tree(*leaf_pods: dict[str, object]) -> list[dict[str, object]]:
    return [HIERARCHY, node("n1", cpu="16", memory="64Gi"),
            queue("eng", capability={"cpu": "8", "memory": "0"}, guarantee={"resource": {"cpu": "4"}},
                  deserved={"cpu": "4"}),
            queue("eng-a", parent="eng", deserved={"cpu": "2"}, guarantee={"resource": {"cpu": "2"}}),
            queue("eng-b", parent="eng"),
            queue("ops", deserved={"cpu": "4"}),
            *leaf_pods]  # type: ignore[list-item]


def test_c_hierarchy_real_capability_flows_down_and_capabilities_are_inherited() -> None:
    result = session(*_tree(group("g", "eng-b"), pod("p", "g")))  # type: ignore[arg-type]
    attrs = result.quota
    # root: unlimited; eng: min(inf - 4 + 4, 8) = 8; eng-a: min(8 - 2 + 2, inherited 8) = 8; eng-b: 8 - 2 = 6
    assert attrs["eng"].real_capability.cpu == 8000
    assert (attrs["eng-a"].real_capability.cpu, attrs["eng-b"].real_capability.cpu) == (8000, 6000)
    assert attrs["eng-b"].capability is not None and attrs["eng-b"].capability.cpu == 8000  # inherited
    assert attrs["root"].deserved.cpu == 8000  # the children's deserved summed


def test_c_hierarchy_usage_rolls_up_and_allocation_is_checked_at_every_ancestor() -> None:
    pods = [group("g", "eng-b", min_member=1), *[pod(f"p{i}", "g", cpu="1", memory="0") for i in range(10)]]
    result = run(*_tree(*pods))  # type: ignore[arg-type]
    assert len(binds(result)) == 6  # eng-b's real capability: eng's 8 minus eng-a's guarantee 2


def test_tree_nonleaf_a_job_in_a_queue_with_children_stops_the_whole_session() -> None:
    pods = [group("g", "eng-b"), pod("p", "g"), group("bad", "eng"), pod("q", "bad")]
    result = run(*_tree(*pods))  # type: ignore[arg-type]
    assert binds(result) == {}
    assert result.hierarchy_broken == "The Queue <eng> of Job <ns/bad> is not leaf queue"
    assert result.reasons["ns/g"][0] == "hierarchy"


def test_tree_missing_parent_stops_the_whole_session() -> None:
    result = run(HIERARCHY, node("n1"), queue("orphan", parent="nowhere"), queue("q"), group("g", "q"),
                 pod("p", "g"))
    assert binds(result) == {} and "invalid parent queue nowhere" in result.hierarchy_broken


RECLAIM = conf("enqueue, allocate, reclaim", ["priority", "gang", "conformance"],
               ["overcommit", "drf", "predicates", "capacity", "nodeorder"])


def _reclaim_example(y_cpu: str, **x_spec: object) -> list[dict[str, object]]:
    """§6.4: 10 cores; X (deserved 4, capability 8) runs 8 one-core PodGroups; Y (deserved 6, capability 10,
    guarantee 2) submits one task of ``y_cpu`` cores."""
    x = {"deserved": {"cpu": "4"}, "capability": {"cpu": "8"}, **x_spec}
    running = [obj for i in range(8) for obj in (group(f"x{i}", "qx", phase="Running", min_resources={"cpu": "1"}),
                                                  pod(f"x{i}", f"x{i}", cpu="1", memory="0", node_name="n1"))]
    return [RECLAIM, node("n1", cpu="10", memory="100Gi"), queue("qx", **x),
            queue("qy", deserved={"cpu": "6"}, capability={"cpu": "10"}, guarantee={"resource": {"cpu": "2"}}),
            *running, group("y0", "qy", phase="Pending", min_resources={"cpu": y_cpu}),
            pod("y0", "y0", cpu=y_cpu, memory="0")]


@pytest.mark.parametrize("y_cpu,x_spec,evicted,y_runs", [
    ("3", {}, 1, True),  # the worked example: 2 idle, one of X's pods above its deserved 4 makes room
    ("4", {}, 2, True),
    ("2", {}, 0, True),  # fits the idle cores: nothing to reclaim
    ("7", {}, 0, False),  # C4: futureUsed 7 > Y's deserved 6 on cpu, so Y may not reclaim
    ("3", {"reclaimable": False}, 0, False),  # C5: only reclaimable queues give victims
    ("3", {"deserved": {"cpu": "8"}}, 0, False),  # C5c: X's allocated 8 does not exceed its deserved 8
])
def test_c4_c5_capacity_reclaim_of_the_worked_example(y_cpu: str, x_spec: dict[str, object], evicted: int,
                                                       y_runs: bool) -> None:
    result = run(*_reclaim_example(y_cpu, **x_spec))  # type: ignore[arg-type]
    assert len(result.evictions) == evicted
    assert all(e.pod.startswith("ns/x") and e.by == "ns/y0" for e in result.evictions)
    assert ("ns/y0" in binds(result)) == y_runs


# gang for JobStarving only (its reclaimable vote would keep a one-pod gang's only pod)
GANG_STARVING = {"name": "gang", "enableReclaimable": False, "enablePreemptable": False}


def _ancestor_tree(level: object, leaf_a: dict[str, str] | None, parent_a: dict[str, str]) -> list[dict[str, object]]:
    """VC-CAPACITY-ANCESTOR-1: root > grand-a > parent-a > queue-a and root > grand-b > parent-b > queue-b on one
    2-core node; queue-b runs a 2-core pod, queue-a's 2-core pod waits. queue-b and parent-b deserve 1 core,
    grand-b 3, grand-a 4."""
    capacity = {"name": "capacity", "enableHierarchy": True, "arguments": {"ancestorReclaimLevel": level}}
    tree = [queue("root"), queue("grand-a", parent="root", deserved={"cpu": "4"}),
            queue("parent-a", parent="grand-a", deserved=parent_a),
            queue("queue-a", parent="parent-a", **({"deserved": leaf_a} if leaf_a else {})),
            queue("grand-b", parent="root", deserved={"cpu": "3"}),
            queue("parent-b", parent="grand-b", deserved={"cpu": "1"}),
            queue("queue-b", parent="parent-b", deserved={"cpu": "1"})]
    return [conf("enqueue, reclaim, allocate", [capacity, "predicates", GANG_STARVING]),
            node("n1", cpu="2", memory="2Gi"), *tree, group("victim", "queue-b", phase="Running"),
            pod("v", "victim", cpu="2", memory="0", node_name="n1"),
            group("reclaimer", "queue-a", phase="Inqueue"), pod("r", "reclaimer", cpu="2", memory="0")]


@pytest.mark.parametrize("level,evicted", [(0, 0), (1, 1), ("1", 0), (-1, 0)])
def test_capacity_ancestor_reclaim_level_lets_a_queue_reclaim_under_its_parents_deserved(level: object,
                                                                                          evicted: int) -> None:
    # queue-a deserves 1 core and asks 2: on its own it may not reclaim; parent-a deserves 2, so within level 1 it
    # may. Only a whole number counts (Go's GetInt), and a negative one is 0.
    result = run(*_ancestor_tree(level, {"cpu": "1"}, {"cpu": "2"}))  # type: ignore[arg-type]
    assert [e.pod for e in result.evictions] == ["ns/v"] * evicted


@pytest.mark.parametrize("level,evicted", [(1, 1), (2, 0)])
def test_capacity_ancestor_reclaim_level_spares_a_victim_whose_ancestor_is_within_deserved(level: int,
                                                                                            evicted: int) -> None:
    # queue-b and parent-b run 2 cores over their deserved 1; grand-b deserves 3, so at level 2 the victim's
    # grandparent is within its deserved and the victim is spared.
    result = run(*_ancestor_tree(level, {"cpu": "2"}, {"cpu": "2"}))  # type: ignore[arg-type]
    assert [e.pod for e in result.evictions] == ["ns/v"] * evicted


@pytest.mark.parametrize("leaf_a,evicted", [(None, 0), ({"cpu": "2"}, 1)])
def test_capacity_ancestor_reclaim_level_spares_a_sibling_when_neither_leaf_deserves_anything(
        leaf_a: dict[str, str] | None, evicted: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # siblings under one parent (deserved 4): queue-a may reclaim through the parent either way, but when it
    # deserves nothing it asks for and the victim's queue deserves nothing the victim uses, there is no contention
    # to settle and the victim is spared.
    from kqctl.volcano.engine.capacity import Capacity

    verdicts: list[bool] = []
    preemptive = Capacity.preemptive
    monkeypatch.setattr(Capacity, "preemptive", lambda self, q, t: verdicts.append(preemptive(self, q, t)) or
                        verdicts[-1])
    capacity = {"name": "capacity", "enableHierarchy": True, "arguments": {"ancestorReclaimLevel": 1}}
    result = run(conf("enqueue, reclaim, allocate", [capacity, "predicates", GANG_STARVING]),
                 node("n1", cpu="2", memory="2Gi"), queue("root"),
                 queue("parent", parent="root", deserved={"cpu": "4"}),
                 queue("queue-a", parent="parent", **({"deserved": leaf_a} if leaf_a else {})),
                 queue("queue-b", parent="parent"), group("victim", "queue-b", phase="Running"),
                 pod("v", "victim", cpu="2", memory="0", node_name="n1"),
                 group("reclaimer", "queue-a", phase="Inqueue"), pod("r", "reclaimer", cpu="2", memory="0"),
                 sessions=1)
    assert verdicts and all(verdicts)
    assert [e.pod for e in result.evictions] == ["ns/v"] * evicted
