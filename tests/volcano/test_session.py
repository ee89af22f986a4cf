"""Gang, overcommit, job order, node fit and node order, backfill, and the session loop (phases, steady state)."""

from __future__ import annotations

from tests.volcano.builders import binds, conf, group, node, pod, queue, run, session

DEFAULT_TIERS = (["priority", "gang", "conformance"], ["overcommit", "drf", "predicates", "proportion", "nodeorder"])


def test_gang_nothing_is_bound_when_fewer_than_minmember_fit() -> None:
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1", cpu="2"), queue("q"),
                 group("g", "q", min_member=3, phase="Inqueue"),
                 *[pod(f"p-{i}", "g", cpu="1", memory="0") for i in range(3)])
    assert binds(result) == {}
    gate, message = result.reasons["ns/g"]
    assert gate in ("gang", "no-node")
    # two of the three were allocated before the statement was undone: gang counts them as schedulable
    # (their last transaction), so one is unschedulable
    assert result.gang["ns/g"].startswith("1/3 tasks in gang unschedulable: pod group is not ready")


def test_gang_job_valid_needs_minmember_valid_tasks() -> None:
    result = session(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1"), queue("q"),
                     group("g", "q", min_member=3), pod("a", "g"), pod("b", "g"))
    assert result.reasons["ns/g"] == ("job-invalid", "Not enough valid tasks for gang-scheduling, valid: 2, min: 3")


def test_overcommit_gate_counts_inqueue_jobs_against_total_times_the_factor() -> None:
    # 4 cores x 1.2 = 4.8: the first 3-core job is enqueued, the second would make 6 > 4.8.
    result = session(conf("enqueue", ["overcommit"]), node("n1", cpu="4"), queue("q"),
                     group("g1", "q", phase="Pending", min_resources={"cpu": "3"}), pod("a", "g1", cpu="3"),
                     group("g2", "q", phase="Pending", min_resources={"cpu": "3"}), pod("b", "g2", cpu="3"))
    assert result.phases == {"ns/g1": "Inqueue", "ns/g2": "Pending"}
    assert result.reasons["ns/g2"] == ("overcommit", "resource in cluster is overused: overused cpu")


def test_overcommit_factor_argument() -> None:
    tier = [{"name": "overcommit", "arguments": {"overcommit-factor": 2.0}}]
    result = session(conf("enqueue", tier), node("n1", cpu="4"), queue("q"),
                     group("g1", "q", phase="Pending", min_resources={"cpu": "3"}), pod("a", "g1", cpu="3"),
                     group("g2", "q", phase="Pending", min_resources={"cpu": "3"}), pod("b", "g2", cpu="3"))
    assert result.phases == {"ns/g1": "Inqueue", "ns/g2": "Inqueue"}


def test_priority_job_order_higher_priorityclass_first() -> None:
    low = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 1}
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 100}
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), low, high, node("n1", cpu="1"), queue("q"),
                 group("a-low", "q", priorityClassName="low"), pod("a", "a-low", cpu="1", memory="0"),
                 group("b-high", "q", priorityClassName="high"), pod("b", "b-high", cpu="1", memory="0"))
    assert binds(result) == {"ns/b": "n1"}


def test_node_fit_counts_pods_against_the_node_pods_capacity() -> None:
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1", pods="1"), queue("q"),
                 group("g", "q"), pod("a", "g", cpu="100m", memory="0"), pod("b", "g", cpu="100m", memory="0"))
    assert len(binds(result)) == 1
    gate, message = result.reasons["ns/g"]
    assert (gate, message) == ("no-node", "b: 0/1 nodes are unavailable: 1 Insufficient pods.")


def test_predicates_a_cordoned_node_takes_no_pod() -> None:
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1", unschedulable=True), node("n2"),
                 queue("q"), group("g", "q"), pod("a", "g"))
    assert binds(result) == {"ns/a": "n2"}


def test_nodeorder_least_requested_spreads_binpack_packs() -> None:
    objects = [node("n1"), node("n2"), queue("q"), group("run", "q", phase="Running"),
               pod("old", "run", cpu="4", memory="16Gi", node_name="n1"), group("g", "q"), pod("new", "g")]
    spread = run(conf("enqueue, allocate", ["priority", "gang"], ["proportion", "nodeorder"]), *objects)
    packed = run(conf("enqueue, allocate", ["priority", "gang"],
                      ["proportion", {"name": "nodeorder", "arguments": {"leastrequested.weight": 0,
                                                                         "balancedresource.weight": 0}},
                       {"name": "binpack", "arguments": {"binpack.weight": 10}}]), *objects)
    assert binds(spread) == {"ns/new": "n2"} and binds(packed) == {"ns/new": "n1"}


def test_equal_nodes_the_first_by_name_wins() -> None:
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("b-node"), node("a-node"), queue("q"),
                 group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "a-node"}


def test_backfill_places_best_effort_pods_without_quota() -> None:
    result = run(conf("enqueue, allocate, backfill", *DEFAULT_TIERS), node("n1"), queue("q", capability={"cpu": "1"}),
                 group("g", "q", phase="Inqueue"), pod("be", "g", cpu="0", memory="0"))
    assert binds(result) == {"ns/be": "n1"}


def test_phases_pending_inqueue_running_across_sessions() -> None:
    objects = [conf("enqueue, allocate", *DEFAULT_TIERS), node("n1"), queue("q"),
               group("g", "q", phase="Pending", min_resources={"cpu": "1"}), pod("p", "g")]
    first = run(*objects, sessions=1)
    assert first.phases["ns/g"] == "Inqueue" and binds(first) == {"ns/p": "n1"}  # bound, not yet running
    assert run(*objects).phases["ns/g"] == "Running"


def test_a_podgroup_whose_queue_is_missing_is_ignored() -> None:
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1"), group("g", "nowhere"), pod("p", "g"))
    outcome = result.groups["ns/g"]
    assert outcome.ignored and binds(result) == {}
    assert outcome.reason == ("queue-missing", "The Queue <nowhere> of Job <ns/g> does not exist, ignore it.")


def test_without_enqueue_allocate_admits_pending_jobs_itself() -> None:
    result = run(conf("allocate", *DEFAULT_TIERS), node("n1"), queue("q"), group("g", "q", phase="Pending"),
                 pod("p", "g"))
    assert binds(result) == {"ns/p": "n1"}


def test_pods_of_other_schedulers_use_node_resources() -> None:
    other = pod("other", "none", cpu="7", memory="0", node_name="n1")
    other["spec"]["schedulerName"] = "default-scheduler"
    del other["metadata"]["annotations"]
    result = run(conf("enqueue, allocate", *DEFAULT_TIERS), node("n1"), queue("q"), other,
                 group("g", "q"), pod("p", "g", cpu="2", memory="0"))
    assert binds(result) == {}
