"""The proportion plugin: weighted water-filling (the worked examples A-C), real capability, and the gates P2-P6."""

from __future__ import annotations

from fractions import Fraction

from tests.volcano.builders import binds, conf, group, node, pod, queue, run, session

ENQUEUE_ONLY = conf("enqueue", ["proportion"])


def _three_queues(**b_spec: object) -> list[dict[str, object]]:
    """Example A of the worked examples: 12 cores; A (weight 1) asks 1, B (2) asks 20, C (3) asks 6."""
    c_spec = b_spec.pop("c", {})
    return [ENQUEUE_ONLY, node("n1", cpu="12", memory="64Gi"),
            queue("a", 1), queue("b", 2, **b_spec), queue("c", 3, **c_spec),  # type: ignore[arg-type]
            group("ga", "a", phase="Pending"), pod("pa", "ga", cpu="1", memory="0"),
            group("gb", "b", phase="Pending"), pod("pb", "gb", cpu="20", memory="0"),
            group("gc", "c", phase="Pending"), pod("pc", "gc", cpu="6", memory="0")]


def _deserved_cpu(*objects: dict[str, object]) -> dict[str, Fraction]:
    result = session(*objects)  # type: ignore[arg-type]
    return {name: Fraction(attr.deserved.cpu) for name, attr in result.quota.items()}


def test_p_water_filling_example_a_weights_and_request_caps() -> None:
    assert _deserved_cpu(*_three_queues()) == {"a": 1000, "b": 5000, "c": 6000}


def test_p_water_filling_example_b_capability_leaves_a_core_undistributed() -> None:
    assert _deserved_cpu(*_three_queues(capability={"cpu": "4"})) == {"a": 1000, "b": 4000, "c": 6000}


def test_p_water_filling_example_c_guarantee_is_a_floor_above_request() -> None:
    c = {"guarantee": {"resource": {"cpu": "8"}}, "deserved": {"cpu": "8"}}
    deserved = _deserved_cpu(*_three_queues(capability={"cpu": "4"}, c=c))
    assert deserved == {"a": 1000, "b": 4000, "c": 8000}  # the sum (13) is above the cluster (12)


def test_p_water_filling_rounds_are_recorded() -> None:
    result = session(*_three_queues())  # type: ignore[arg-type]
    assert [r.total_weight for r in result.rounds][:2] == [6, 2]
    assert set(result.rounds[0].met) == {"a", "c"}


def test_p_real_capability_subtracts_other_queues_guarantees() -> None:
    objects = [*_three_queues(c={"guarantee": {"resource": {"cpu": "8"}}, "deserved": {"cpu": "8"}})]
    result = session(*objects)  # type: ignore[arg-type]
    assert result.quota["a"].real_capability.cpu == 4000  # 12 - 8
    assert result.quota["c"].real_capability.cpu == 12000  # 12 - 8 + its own 8


def test_p4_enqueue_rejects_what_exceeds_real_capability_with_volcanos_event() -> None:
    result = run(conf("enqueue, allocate", ["proportion"]), node("n1", cpu="4", memory="8Gi"),
                 queue("q", capability={"cpu": "2", "memory": "4Gi"}),
                 group("g", "q", phase="Pending", min_resources={"cpu": "3", "memory": "1Gi"}),
                 pod("p", "g", cpu="3", memory="1Gi"))
    assert binds(result) == {}
    assert result.reasons["ns/g"] == ("queue-quota", "queue resource quota insufficient: insufficient cpu")


def test_p3_allocatable_caps_allocation_at_deserved() -> None:
    # Two queues of equal weight share 4 cores: each deserves 2 of them while both ask for 3.
    result = run(conf("enqueue, allocate", ["proportion"]), node("n1", cpu="4", memory="16Gi"),
                 queue("q1"), queue("q2"),
                 group("g1", "q1", min_member=1), *[pod(f"a{i}", "g1", cpu="1", memory="0") for i in range(3)],
                 group("g2", "q2", min_member=1), *[pod(f"b{i}", "g2", cpu="1", memory="0") for i in range(3)])
    placed = binds(result)
    assert sum(p.startswith("ns/a") for p in placed) == 2 and sum(p.startswith("ns/b") for p in placed) == 2


def test_p2_overused_queue_is_skipped() -> None:
    result = session(conf("enqueue, allocate", ["proportion"]), node("n1", cpu="4", memory="8Gi"),
                     queue("q"), group("run", "q", phase="Running"), pod("r", "run", cpu="2", memory="1Gi",
                                                                         node_name="n1"),
                     group("g", "q", min_resources={"cpu": "1"}), pod("p", "g", cpu="1", memory="1Gi"))
    # The queue asks 3 cores: it deserves them all (nobody else asks), so it is not overused.
    assert result.binds == [("ns/p", "n1")]


def test_p6_reclaim_takes_back_what_a_queue_runs_above_deserved() -> None:
    objects = [conf("enqueue, allocate, reclaim", ["priority", "gang", "conformance"], ["proportion"]),
               node("n1", cpu="4", memory="16Gi"), queue("greedy"), queue("late"),
               group("big", "greedy", min_member=1, phase="Running"),
               *[pod(f"big-{i}", "big", cpu="1", memory="0", node_name="n1") for i in range(4)],
               group("new", "late", min_member=2, phase="Pending", min_resources={"cpu": "2"}),
               pod("new-0", "new", cpu="1", memory="0"), pod("new-1", "new", cpu="1", memory="0")]
    result = run(*objects)  # type: ignore[arg-type]
    # Session 1: nothing is idle, so reclaim evicts two of greedy's pods (gang keeps its minMember; within a job
    # the victims go in reverse task order) and pipelines the new pods; session 2 binds them.
    assert [(e.session, e.pod, e.by) for e in result.evictions] == [(1, "ns/big-2", "ns/new-0"),
                                                                    (1, "ns/big-1", "ns/new-1")]
    assert binds(result) == {"ns/new-0": "n1", "ns/new-1": "n1"}
    assert result.stop_reason == "steady state"


def test_without_reclaim_a_queue_over_deserved_keeps_what_it_runs() -> None:
    objects = [conf("enqueue, allocate", ["priority", "gang"], ["proportion"]), node("n1", cpu="4", memory="16Gi"),
               queue("greedy"), queue("late"), group("big", "greedy", phase="Running"),
               *[pod(f"big-{i}", "big", cpu="1", memory="0", node_name="n1") for i in range(4)],
               group("new", "late", phase="Pending", min_resources={"cpu": "1"}), pod("new-0", "new", cpu="1",
                                                                                     memory="0")]
    result = run(*objects)  # type: ignore[arg-type]
    assert result.evictions == () and binds(result) == {}
    assert result.reasons["ns/new"][0] == "no-node"
