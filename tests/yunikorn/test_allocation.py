"""The allocation cycle, rule by rule (spec: G1-G6 quota gating, YK-S1/S2 order, node sort policies,
reservations, R5 zero-only maps)."""

from __future__ import annotations

import pytest
from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine.simulation import simulate

ROOT = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"


def _tree(queues: str, extra: str = "") -> str:
    return ("partitions:\n  - name: default\n" + extra + "    queues:\n      - name: root\n        submitacl: '*'\n"
            "        queues:\n" + queues)


def _states(result) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {p.key: (p.state, p.node) for p in result.pods}


def test_g3_queue_headroom_stops_what_exceeds_max() -> None:
    config = _tree("          - name: a\n            resources:\n              max: {vcore: 2}\n")
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "app", cpu="1"),
                               pod("p2", "root.a", "app", cpu="1"), pod("p3", "root.a", "app", cpu="1")))
    states = _states(result)
    assert [states[k][0] for k in ("default/p1", "default/p2", "default/p3")] == ["Allocated", "Allocated", "Pending"]
    reason = next(p.reason for p in result.pods if p.name == "p3")
    assert reason.startswith("Not enough queue quota (root.a: vcore 0 left of 2, 1 asked)")


def test_g3_root_headroom_is_the_cluster() -> None:
    result = simulate(snapshot(ROOT.replace("submitacl: '*'\n", "submitacl: '*'\n        queues: [{name: a}]\n"),
                               node("n1", cpu="2"), pod("p1", "root.a", "app", cpu="2"), pod("p2", "root.a", "app")))
    assert _states(result)["default/p2"][0] == "Pending"
    assert "root (the cluster)" in next(p.reason for p in result.pods if p.name == "p2")


def test_g1_maxapplications_keeps_new_applications_waiting() -> None:
    config = _tree("          - name: a\n            maxapplications: 1\n")
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "first"), pod("p2", "root.a", "second")))
    assert _states(result)["default/p2"][0] == "Pending"
    assert "maxapplications is 1" in next(p.reason for p in result.pods if p.name == "p2")


def test_g2_user_limit() -> None:
    config = _tree("          - name: a\n            limits:\n              - limit: one-core\n"
                   "                users: [alice]\n                maxresources: {vcore: 1}\n")
    alice = {"yunikorn.apache.org/user.info": '{"user": "alice", "groups": []}'}
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "a1", annotations=alice),
                               pod("p2", "root.a", "a1", annotations=alice)))
    assert sorted(p.state for p in result.pods) == ["Allocated", "Pending"]
    assert any(p.reason == "Not enough user quota" for p in result.pods)


def test_g5_guaranteed_does_not_gate() -> None:
    config = _tree("          - name: a\n            resources:\n              guaranteed: {vcore: 1}\n")
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "app"), pod("p2", "root.a", "app")))
    assert {p.state for p in result.pods} == {"Allocated"}


@pytest.mark.parametrize("policy,expected", [("fair", "n2"), ("binpacking", "n1")])
def test_node_sort_policy(policy: str, expected: str) -> None:
    config = _tree("          - name: a\n", f"    nodesortpolicy: {{type: {policy}}}\n")
    result = simulate(snapshot(config, node("n1"), node("n2"), pod("bound", "root.a", "old", node_name="n1"),
                               pod("new", "root.a", "new", age=__import__("datetime").timedelta(minutes=1))))
    assert _states(result)["default/new"] == ("Allocated", expected)


def test_reservation_keeps_a_node_for_a_pod_that_does_not_fit_yet() -> None:
    config = _tree("          - name: a\n")
    result = simulate(snapshot(config, node("n1", cpu="2"), node("n2", cpu="2"),
                               pod("f1", "root.a", "f", cpu="1", node_name="n1"),
                               pod("f2", "root.a", "f", cpu="1", node_name="n2"),
                               pod("big", "root.a", "b", cpu="2"), pod("small1", "root.a", "s", cpu="1"),
                               pod("small2", "root.a", "s", cpu="1")))
    states = _states(result)
    # the cluster has room for big (2 cores) but no node has: big reserves one; only one small pod gets the other
    assert states["default/big"] == ("Pending", "")
    reserved = next(p.reserved_node for p in result.pods if p.name == "big")
    assert reserved in ("n1", "n2")
    assert sorted(states[k][0] for k in ("default/small1", "default/small2")) == ["Allocated", "Pending"]
    assert [e.kind for e in result.events] == ["reserved", "allocated", "reserved"]  # small2 reserves the other


def test_r5_zero_only_max_is_no_limit() -> None:
    config = _tree("          - name: a\n            resources:\n              max: {vcore: 0}\n")
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "app")))
    assert _states(result)["default/p1"][0] == "Allocated"


def test_r5_zero_next_to_a_positive_value_blocks() -> None:
    config = _tree("          - name: a\n            resources:\n              max: {vcore: 0, memory: 1Gi}\n")
    result = simulate(snapshot(config, node("n1"), pod("p1", "root.a", "app")))
    assert _states(result)["default/p1"][0] == "Pending"


def test_s1_higher_priority_queue_first_then_fair_share() -> None:
    config = _tree("          - name: low\n          - name: high\n            properties: {priority.offset: \"10\"}\n")
    result = simulate(snapshot(config, node("n1", cpu="1"), pod("l", "root.low", "l1"), pod("h", "root.high", "h1")))
    assert _states(result)["default/h"][0] == "Allocated"
    assert _states(result)["default/l"][0] == "Pending"


def test_s2_fifo_takes_the_oldest_application_first() -> None:
    from datetime import timedelta

    config = _tree("          - name: a\n")
    result = simulate(snapshot(config, node("n1", cpu="1"), pod("young", "root.a", "y", age=timedelta(minutes=1)),
                               pod("old", "root.a", "o", age=timedelta(minutes=9))))
    assert _states(result)["default/old"][0] == "Allocated"


def test_pods_of_other_schedulers_occupy_their_node() -> None:
    other = pod("other", cpu="4", node_name="n1")
    other["spec"]["schedulerName"] = "default-scheduler"
    result = simulate(snapshot(_tree("          - name: a\n"), node("n1"), other, pod("p", "root.a", "app")))
    assert _states(result)["default/p"][0] == "Pending"
    assert "no node fits" in next(p.reason for p in result.pods if p.name == "p")


def test_node_selector_and_taints_are_respected() -> None:
    tainted = node("n1", spec={"taints": [{"key": "gpu", "effect": "NoSchedule"}]})
    labelled = node("n2", metadata={"name": "n2", "labels": {"zone": "b"}})
    result = simulate(snapshot(_tree("          - name: a\n"), tainted, labelled,
                               pod("p", "root.a", "app", nodeSelector={"zone": "b"})))
    assert _states(result)["default/p"] == ("Allocated", "n2")
