"""Node scores (VC-SCORE-1..5): nodeorder's kube-scheduler plugins as Kubernetes v1.36 computes them, binpack,
and how the session adds them."""

from __future__ import annotations

import pytest

from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine.nodeorder import (
    balance,
    balanced_score,
    binpack_score,
    least_allocated,
    most_allocated,
)
from kqctl.volcano.load import scoring_request
from tests.volcano.builders import binds, conf, group, node, pod, queue, run

GI = 1024**3


@pytest.mark.parametrize(("requested", "allocatable", "score"), [
    ((2000, 4 * GI), (16000, 64 * GI), 90),  # cpu 87 (87.5 truncated), memory 93 (93.75): (87*50 + 93*50) / 100
    ((16000, 0), (16000, 64 * GI), 50),  # a full resource scores 0, an idle one 100
    ((17000, 0), (16000, 64 * GI), 50),  # over capacity is 0, not negative
    ((1000, GI), (4000, 0), 75),  # a resource the node has none of is left out of the mean
    ((0, 0), (0, 0), 0),
])
def test_vc_score_1_least_allocated(requested: tuple[int, int], allocatable: tuple[int, int], score: int) -> None:
    assert least_allocated(requested, allocatable) == score


@pytest.mark.parametrize(("spec", "expected"), [
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}, (1000, GI)),
    ({"containers": [{"name": "a"}]}, (100, 200 * 1024**2)),  # no requests: kube-scheduler's defaults
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "0"}}}]}, (0, 200 * 1024**2)),  # 0 is named
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}, {"name": "b"}]},
     (1100, 400 * 1024**2)),  # per container, not per pod
    ({"containers": [{"name": "a", "resources": {"limits": {"cpu": "2"}}}]}, (2000, 200 * 1024**2)),  # limits
    ({"initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
      "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}, (3000, 200 * 1024**2)),
])
def test_vc_score_1_non_zero_requests_are_per_container(spec: dict[str, object], expected: tuple[int, int]) -> None:
    assert scoring_request(spec) == expected


@pytest.mark.parametrize(("requested", "allocatable", "score"), [
    ((4000, 8 * GI), (16000, 64 * GI), 18),  # (25 + 12) / 2
    ((20000, 0), (16000, 64 * GI), 50),  # over capacity counts as full
    ((1000, 0), (4000, 0), 25),  # a resource the node has none of is left out
])
def test_vc_score_2_most_allocated(requested: tuple[int, int], allocatable: tuple[int, int], score: int) -> None:
    assert most_allocated(requested, allocatable) == score


@pytest.mark.parametrize(("requested", "allocatable", "score"), [
    ((0, 0), (16000, 64 * GI), 100),
    ((2000, 4 * GI), (16000, 64 * GI), 96),  # fractions 0.125 and 0.0625: std 0.03125
    ((8000, 0), (8000, 64 * GI), 50),  # full against idle: std 0.5
    ((9000, 0), (8000, 64 * GI), 50),  # a fraction above 1 counts as 1
    ((3000, 5000, 4000), (3500, 40000, 8000), 70),  # three resources: the population standard deviation
])
def test_vc_score_3_balance(requested: tuple[int, ...], allocatable: tuple[int, ...], score: int) -> None:
    assert balance(requested, allocatable) == score


@pytest.mark.parametrize(("with_pod", "without", "allocatable", "score"), [
    ((2000, 4 * GI), (0, 0), (16000, 64 * GI), 73),  # balance 96 with, 100 without: 50 + (50 - 4) // 2
    ((4000, 8 * GI), (2000, 4 * GI), (16000, 64 * GI), 73),  # 93 with, 96 without
    ((4000, 32 * GI), (4000, 32 * GI), (16000, 64 * GI), 75),  # no change: 75
    ((8000, 0), (0, 0), (8000, 64 * GI), 50),  # perfectly balanced to perfectly unbalanced: 50
    ((8000, 64 * GI), (8000, 0), (8000, 64 * GI), 100),  # the other way round: 100
])
def test_vc_score_3_balanced_allocation_weighs_the_balance_with_and_without_the_pod(
        with_pod: tuple[int, ...], without: tuple[int, ...], allocatable: tuple[int, ...], score: int) -> None:
    assert balanced_score(with_pod, without, allocatable) == score


@pytest.mark.parametrize(("request_", "used", "weights", "weight", "score"), [
    ({"cpu": 2000, "memory": 4 * GI}, {"cpu": 2000, "memory": 4 * GI}, {"cpu": 1, "memory": 1}, 1, 18.75),
    ({"cpu": 2000, "memory": 4 * GI}, {}, {"cpu": 1, "memory": 1}, 10, 93.75),
    ({"cpu": 2000, "memory": 4 * GI}, {}, {"cpu": 3, "memory": 1}, 1, 10.9375),  # (0.125*3 + 0.0625) / 4
    ({"cpu": 20000}, {}, {"cpu": 1, "memory": 1}, 1, 0.0),  # would not fit: 0
    ({"cpu": 2000, "nvidia.com/gpu": 1000}, {}, {"cpu": 1, "memory": 1}, 1, 12.5),  # unweighted gpu left out
    ({"cpu": 2000, "nvidia.com/gpu": 1000}, {}, {"cpu": 1, "memory": 1, "nvidia.com/gpu": 2}, 1,
     4.166666666666666),  # 0.125 / 3 x 100 in float64, as Go rounds it
])
def test_vc_score_4_binpack(request_: dict[str, int], used: dict[str, int], weights: dict[str, int], weight: int,
                            score: float) -> None:
    allocatable = Resource.of({"cpu": 16000, "memory": 64 * GI})  # no gpu on the node: its weight still counts
    assert binpack_score(Resource.of(request_), Resource.of(used), allocatable, weights, weight) == score


TIERS = (["priority", "gang"], ["predicates", "proportion", "nodeorder"])


def test_vc_score_5_the_pods_allocated_in_the_session_count_in_the_next_score() -> None:
    # Two equal nodes: the first pod takes n1 (equal scores: the first by name), the second sees n1 fuller.
    result = run(conf("enqueue, allocate", *TIERS), node("n1"), node("n2"), queue("q"), group("g", "q"),
                 pod("a", "g", cpu="2", memory="4Gi"), pod("b", "g", cpu="2", memory="4Gi"), sessions=1)
    assert binds(result) == {"ns/a": "n1", "ns/b": "n2"}


def test_vc_score_5_without_the_predicates_plugin_scores_see_the_nodes_as_the_session_opened() -> None:
    # Volcano's predicates plugin keeps kube-scheduler's NodeInfo up to date; without it both nodes still score
    # as empty for the second pod, and the tie goes to n1 again.
    result = run(conf("enqueue, allocate", ["priority", "gang"], ["proportion", "nodeorder"]), node("n1"),
                 node("n2"), queue("q"), group("g", "q"), pod("a", "g", cpu="2", memory="4Gi"),
                 pod("b", "g", cpu="2", memory="4Gi"), sessions=1)
    assert binds(result) == {"ns/a": "n1", "ns/b": "n1"}


def test_vc_score_5_binpack_and_nodeorder_add_up() -> None:
    # n1 holds 2 cores and 4Gi: nodeorder prefers the empty n2 by 9 (least requested 90 vs 81, balanced 73 on
    # both), binpack prefers n1 by 9.375 (18.75 vs 9.375): n1 wins by 0.375.
    objects = [node("n1", cpu="16", memory="64Gi"), node("n2", cpu="16", memory="64Gi"), queue("q"),
               group("run", "q", phase="Running"), pod("old", "run", cpu="2", memory="4Gi", node_name="n1"),
               group("g", "q"), pod("new", "g", cpu="2", memory="4Gi")]
    both = run(conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", "nodeorder", "binpack"]),
               *objects, sessions=1)
    alone = run(conf("enqueue, allocate", *TIERS), *objects, sessions=1)
    assert binds(both) == {"ns/new": "n1"} and binds(alone) == {"ns/new": "n2"}
