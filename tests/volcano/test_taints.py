"""Volcano's predicates plugin with taints (TAINT-2, TAINT-5 through simulate) and the API server's default
tolerations (TAINT-4: no "not simulated" note for them)."""

from __future__ import annotations

from typing import Any

from tests.volcano.builders import binds, conf, group, node, pod, queue, run, snapshot

CONF = conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion"])


def tainted(name: str, *taints: dict[str, str], **extra: Any) -> dict[str, Any]:
    body = node(name, **extra)
    body.setdefault("spec", {})["taints"] = list(taints)
    return body


def test_taint_2_pod_is_not_bound_to_a_no_schedule_node() -> None:
    result = run(CONF, tainted("a-tainted", {"key": "gpu", "effect": "NoSchedule"}), queue("q"), group("g", "q"),
                 pod("p", "g"))
    assert binds(result) == {}
    assert "untolerated taint" in result.groups["ns/g"].reason[1]


def test_taint_2_pod_goes_to_the_untainted_node() -> None:
    result = run(CONF, tainted("a-tainted", {"key": "gpu", "effect": "NoExecute"}), node("b"), queue("q"),
                 group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "b"}


def test_taint_1_tolerating_pod_is_bound_to_the_tainted_node() -> None:
    tolerations = [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}]
    result = run(CONF, tainted("a-tainted", {"key": "gpu", "value": "yes", "effect": "NoSchedule"}), queue("q"),
                 group("g", "q"), pod("p", "g", tolerations=tolerations))
    assert binds(result) == {"ns/p": "a-tainted"}


def test_taint_3_prefer_no_schedule_does_not_filter() -> None:
    result = run(CONF, tainted("a", {"key": "spot", "effect": "PreferNoSchedule"}), queue("q"), group("g", "q"),
                 pod("p", "g"))
    assert binds(result) == {"ns/p": "a"}


def test_taint_2_without_the_predicates_plugin_taints_do_not_filter() -> None:
    result = run(conf("enqueue, allocate", ["gang"], ["proportion"]),
                 tainted("a", {"key": "gpu", "effect": "NoSchedule"}), queue("q"), group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "a"}


def test_taint_2_taint_toleration_enable_false_turns_the_filter_off() -> None:
    predicates = {"name": "predicates", "arguments": {"predicate.TaintTolerationEnable": False}}
    result = run(conf("enqueue, allocate", ["gang"], [predicates, "proportion"]),
                 tainted("a", {"key": "gpu", "effect": "NoSchedule"}), queue("q"), group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "a"}


def test_taint_5_cordoned_node_takes_a_pod_tolerating_unschedulable() -> None:
    tolerations = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    result = run(CONF, node("a", unschedulable=True), queue("q"), group("g", "q"), group("h", "q"),
                 pod("p", "g", tolerations=tolerations), pod("r", "h"))
    assert binds(result) == {"ns/p": "a"}


def test_taint_4_api_server_tolerations_and_taints_produce_no_not_simulated_note() -> None:
    defaults = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300}]
    snap = snapshot(CONF, tainted("a", {"key": "gpu", "effect": "NoSchedule"}), node("b"), queue("q"),
                    group("g", "q"), pod("p", "g", tolerations=defaults), pod("p2", "g"))
    assert not any("toleration" in line or "taint" in line for line in snap.limitations)
    assert snap.pods[0].tolerations == snap.pods[1].tolerations  # written or added by the API server alike


def test_taint_3_prefer_no_schedule_is_scored_so_no_note_says_otherwise() -> None:
    objects = (conf("enqueue, allocate", ["gang"], ["predicates", "proportion", "nodeorder"]),
               tainted("a", {"key": "spot", "effect": "PreferNoSchedule"}), node("b"), queue("q"),
               group("g", "q"), pod("p", "g"))
    assert not any("PreferNoSchedule" in line for line in snapshot(*objects).limitations)
    assert binds(run(*objects)) == {"ns/p": "b"}  # VC-SCORE-6
