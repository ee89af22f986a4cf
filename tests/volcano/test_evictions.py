"""Reclaim and preempt as Volcano's actions do them (VC-RECLAIM-1, VC-PREEMPT-1..4), the victims vote
(VC-VICTIMS-1), the nominated node (VC-NOMINATE-1) and gang's exception for pods being deleted (VC-GANG-1)."""

from __future__ import annotations

from typing import Any

from kqctl.volcano.engine import priority
from kqctl.volcano.engine.framework import ABSTAIN, PERMIT, _victims
from kqctl.volcano.engine.session import run_session
from kqctl.volcano.engine.simulation import initial_world
from tests.volcano.builders import binds, conf, group, node, pod, queue, run, session, snapshot

TIERS = (["priority", "gang", "conformance"], ["overcommit", "drf", "predicates", "proportion", "nodeorder"])
CLASSES = ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000})


def test_vc_reclaim_1_a_task_that_fits_beside_a_reclaimable_queues_pod_is_pipelined_not_bound() -> None:
    # n1 has 2 free cores beside q1's running pod; reclaim runs before allocate. Nothing needs evicting, yet
    # reclaim pipelines the task on n1 (ValidateVictims accepts no victims), and allocate no longer binds it.
    objects = [node("n1", cpu="4"), queue("q1", reclaimable=True), queue("q2"),
               group("running", "q1", phase="Running"), pod("r", "running", cpu="2", memory="1Gi", node_name="n1"),
               group("waiting", "q2"), pod("w", "waiting", cpu="1", memory="1Gi")]
    reclaim_first = session(conf("enqueue, reclaim, allocate", *TIERS), *objects)
    assert reclaim_first.pipelined == [("ns/w", "n1")] and reclaim_first.binds == [] and reclaim_first.evictions == []
    allocate_first = session(conf("enqueue, allocate, reclaim", *TIERS), *objects)
    assert allocate_first.binds == [("ns/w", "n1")] and allocate_first.pipelined == []


def _full_node(*extra: Any) -> list[Any]:
    """n1 (4 cores) full with q1's 4 one-core pods (minMember 2: two can go); q2 waits with a 2-pod gang."""
    return [node("n1", cpu="4"), queue("q1", reclaimable=True), queue("q2"),
            group("running", "q1", min_member=2, phase="Running"),
            *[pod(f"r{i}", "running", cpu="1", memory="0", node_name="n1") for i in range(4)],
            group("waiting", "q2", min_member=2), *extra]


def test_vc_nominate_1_a_committed_pipeline_with_evictions_nominates_its_node() -> None:
    result = session(conf("enqueue, reclaim", *TIERS), *_full_node(pod("w0", "waiting", cpu="1", memory="0"),
                                                                   pod("w1", "waiting", cpu="1", memory="0")))
    assert len(result.evictions) == 2 and result.pipelined == [("ns/w0", "n1"), ("ns/w1", "n1")]
    assert result.nominated == [("ns/w0", "n1"), ("ns/w1", "n1")]


def test_vc_nominate_1_an_undone_pipeline_with_evictions_still_nominates_its_node() -> None:
    # The gang needs 2 pods of 3 cores: the first is pipelined after evicting two of q1's pods, the second finds
    # no more victims (gang keeps q1's minMember 2), so the statement is undone, evictions included. The pod's
    # last transaction (pipelined with evictions) still writes its nominated node as the session closes.
    result = session(conf("enqueue, reclaim", *TIERS), *_full_node(pod("w0", "waiting", cpu="2", memory="0"),
                                                                   pod("w1", "waiting", cpu="2", memory="0")))
    assert result.evictions == [] and result.pipelined == []
    assert result.nominated == [("ns/w0", "n1")]


def test_vc_nominate_1_no_nomination_inside_the_session_that_wrote_it() -> None:
    # Volcano reads status.nominatedNodeName, which is written only when the session closes: a later allocate in
    # the same session scores the nodes as usual.
    snap = snapshot(conf("enqueue, reclaim, allocate", *TIERS), *_full_node(
        pod("w0", "waiting", cpu="2", memory="0"), pod("w1", "waiting", cpu="2", memory="0")), node("n2", cpu="8"))
    result = run_session(snap, initial_world(snap))
    assert dict(result.binds) == {"ns/w0": "n2", "ns/w1": "n2"}


def _deleting(body: dict[str, Any]) -> dict[str, Any]:
    body["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return body


def test_vc_gang_1_a_podgroup_whose_missing_pods_are_being_deleted_keeps_its_phase() -> None:
    objects = [conf("enqueue, allocate", *TIERS), node("n1"), queue("q"),
               group("g", "q", min_member=2, phase="Running")]
    deleting = session(*objects, pod("a", "g", node_name="n1"), _deleting(pod("b", "g", node_name="n1")))
    assert deleting.phases["ns/g"] == "Running" and "ns/g" not in deleting.gang
    # Without a pod being deleted, a running PodGroup below minMember is Unknown (gang's Unschedulable condition).
    short = session(*objects, pod("a", "g", node_name="n1"), pod("b", "g", phase="Failed"))
    assert short.phases["ns/g"] == "Unknown"


def _victim_vote(chosen: list[str]) -> Any:
    return lambda evictor, candidates: ([c for c in candidates if c in chosen], PERMIT)


def test_vc_victims_1_voters_intersect_within_a_tier_and_the_first_deciding_tier_wins() -> None:
    candidates: list[Any] = ["a", "b", "c"]
    assert _victims([[_victim_vote(["a", "b"]), _victim_vote(["b", "c"])]], None, candidates) == ["b"]
    assert _victims([[_victim_vote(["a"])], [_victim_vote(["c"])]], None, candidates) == ["a"]
    # A voter with no victims leaves its tier undecided: the next tier decides.
    assert _victims([[_victim_vote([]), _victim_vote(["a"])], [_victim_vote(["c"])]], None, candidates) == ["c"]
    # An abstaining voter does not count.
    assert _victims([[lambda e, c: ([], ABSTAIN), _victim_vote(["a"])]], None, candidates) == ["a"]
    # Go's nil slice: an empty intersection decides nothing, so the next voter of the tier starts afresh.
    assert _victims([[_victim_vote(["a"]), _victim_vote(["b"]), _victim_vote(["c"])]], None, candidates) == ["c"]
    assert _victims([[_victim_vote(["a"]), _victim_vote(["b"])]], None, candidates) == []


PREEMPT = conf("enqueue, allocate, preempt", *TIERS)


def test_vc_preempt_1_a_higher_priority_job_evicts_a_lower_one_of_its_queue() -> None:
    result = session(PREEMPT, *CLASSES, node("n1", cpu="4"), queue("q"),
                     group("low", "q", min_member=1, phase="Running", priorityClassName="low"),
                     *[pod(f"l{i}", "low", cpu="1", memory="0", node_name="n1") for i in range(4)],
                     group("high", "q", min_member=2, priorityClassName="high"),
                     *[pod(f"h{i}", "high", cpu="1", memory="0") for i in range(2)])
    # gang lets 3 of the 4 go (minMember 1), the first three it is shown; they are evicted in reverse task order
    assert [pod for pod, _ in result.evictions] == ["ns/l2", "ns/l1"]
    assert result.pipelined == [("ns/h0", "n1"), ("ns/h1", "n1")]


def test_vc_preempt_1_only_within_the_queue() -> None:
    result = session(PREEMPT, *CLASSES, node("n1", cpu="4"), queue("q"), queue("other"),
                     group("low", "other", min_member=1, phase="Running", priorityClassName="low"),
                     *[pod(f"l{i}", "low", cpu="1", memory="0", node_name="n1") for i in range(4)],
                     group("high", "q", min_member=2, priorityClassName="high"),
                     *[pod(f"h{i}", "high", cpu="1", memory="0") for i in range(2)])
    assert result.evictions == [] and result.pipelined == []


def test_vc_preempt_2_within_a_job_a_task_that_fits_is_pipelined_on_its_own() -> None:
    # A gang of 3 where only 2 fit: allocate binds nothing; preempt's task-level pass pipelines each task that
    # fits a node as it is (nothing to evict) and commits it alone, whatever the gang.
    result = session(PREEMPT, node("n1", cpu="2"), queue("q"), group("g", "q", min_member=3),
                     *[pod(f"p{i}", "g", cpu="1", memory="0") for i in range(3)])
    assert result.binds == [] and result.pipelined == [("ns/p0", "n1"), ("ns/p1", "n1")]


def test_vc_preempt_3_priority_victims() -> None:
    class Job:
        def __init__(self, value: int) -> None:
            self.priority = value

    class Task:
        def __init__(self, job: Job, value: int) -> None:
            self.job, self.priority = job, value

    mine, lower, equal = Job(100), Job(10), Job(100)
    preemptor = Task(mine, 5)
    others = [Task(lower, 99), Task(equal, 1)]
    same_job = [Task(mine, 4), Task(mine, 5)]
    victims, vote = priority.preemptable(preemptor, [*others, *same_job])  # type: ignore[arg-type]
    assert vote == PERMIT and victims == [others[0], same_job[0]]


def test_vc_preempt_4_preemption_policy_never_preempts_nobody() -> None:
    never = pod("h0", "high", cpu="1", memory="0", preemptionPolicy="Never")
    result = session(PREEMPT, *CLASSES, node("n1", cpu="1"), queue("q"),
                     group("low", "q", min_member=1, phase="Running", priorityClassName="low"),
                     pod("l0", "low", cpu="1", memory="0", node_name="n1"), pod("l1", "low", cpu="1", memory="0",
                                                                                node_name="n1"),
                     group("high", "q", min_member=1, priorityClassName="high"), never)
    assert result.evictions == []


def test_vc_preempt_4_the_best_scored_node_is_tried_first() -> None:
    # Both nodes are full and either can make room; nodeorder scores the roomier n2 higher (least requested on
    # memory), so the victim comes from n2 although n1 comes first by name.
    result = run(PREEMPT, *CLASSES, node("n1", cpu="2", memory="4Gi"), node("n2", cpu="4", memory="64Gi"),
                 queue("q"), group("low", "q", min_member=1, phase="Running", priorityClassName="low"),
                 *[pod(f"a{i}", "low", cpu="1", memory="1Gi", node_name="n1") for i in range(2)],
                 *[pod(f"b{i}", "low", cpu="1", memory="1Gi", node_name="n2") for i in range(4)],
                 group("high", "q", min_member=1, priorityClassName="high"), pod("h", "high", cpu="1", memory="1Gi"),
                 sessions=1)
    assert [e.pod for e in result.evictions] == ["ns/b3"] and dict(result.pipelined) == {"ns/h": "n2"}
    assert binds(result) == {}


def test_simulate_shows_the_pods_left_pipelined(kqctl: Any, write: Any) -> None:
    import json

    import yaml

    objects = [conf("enqueue, reclaim, allocate", *TIERS), node("n1", cpu="4"), queue("q1", reclaimable=True),
               queue("q2"), group("running", "q1", phase="Running"),
               pod("r", "running", cpu="2", memory="1Gi", node_name="n1"), group("waiting", "q2"),
               pod("w", "waiting", cpu="1", memory="1Gi")]
    path = write("cluster.yaml", yaml.safe_dump_all(objects))
    data = json.loads(kqctl("simulate", path, "--cycles", "1", "-o", "json").out)
    assert data["pipelined"] == {"ns/w": "n1"} and data["podGroups"]["ns/waiting"]["pipelined"] == {"ns/w": "n1"}
    table = kqctl("simulate", path, "--cycles", "1").out
    assert "Pipelined (a node is reserved for them in the next session; not bound yet):\n  ns/w -> n1\n" in table
    assert "0 pod(s) bound, 1 pipelined, 0 evicted" in table
    assert "w=-(pipelined to n1)" in kqctl("simulate", path, "--cycles", "1", "-o", "wide").out


def _best_effort(name: str, group_name: str) -> dict[str, Any]:
    body = pod(name, group_name)
    del body["spec"]["containers"][0]["resources"]
    return body


def test_vc_backfill_1_best_effort_pods_are_bound_only_once_their_gang_is_ready() -> None:
    # A gang of 2: one pod asks for more than the node has, the other asks for nothing. backfill allocates the
    # best-effort pod, but the job is not ready (1 of 2), so nothing is bound; pending best-effort pods count as
    # ready, so a gang of best-effort pods alone is bound as soon as they are allocated.
    tiers = (["priority", "gang"], ["predicates", "proportion", "nodeorder"])
    objects = [conf("enqueue, allocate, backfill", *tiers), node("n1", cpu="2", pods="3"), queue("q")]
    mixed = session(*objects, group("g", "q", min_member=2), pod("big", "g", cpu="4"), _best_effort("small", "g"))
    assert mixed.binds == []
    alone = session(*objects, group("g", "q", min_member=3), *[_best_effort(f"p{i}", "g") for i in range(3)])
    assert sorted(pod for pod, _ in alone.binds) == ["ns/p0", "ns/p1", "ns/p2"]


def test_vc_drf_1_a_pipelined_task_counts_in_its_jobs_share() -> None:
    from kqctl.volcano.engine.framework import Session, Statement
    from kqctl.volcano.engine.session import _open_plugins, build_cache

    snap = snapshot(conf("allocate", ["drf"]), node("n1"), queue("q"), group("a", "q"), pod("a0", "a", cpu="2"),
                    group("b", "q"), pod("b0", "b", cpu="1"))
    cache = build_cache(snap, initial_world(snap))
    ssn = Session(snap.conf, cache.queues, cache.jobs, cache.nodes)
    _open_plugins(ssn, snap.conf)
    a, b = ssn.jobs["ns/a"], ssn.jobs["ns/b"]
    assert ssn.job_less(a, b)  # both hold nothing: by name
    statement = Statement(ssn)
    statement.pipeline(a.tasks["ns/a0"], ssn.nodes["n1"])
    assert ssn.job_less(b, a)  # drf counts a's pipelined task: a now holds more
    statement.discard()
    assert ssn.job_less(a, b)


def test_vc_preempt_4_topology_aware_preemption_is_said_not_simulated() -> None:
    text = ("actions: enqueue, allocate, preempt\nconfigurations:\n- name: preempt\n  arguments:\n"
            "    enableTopologyAwarePreemption: true\ntiers:\n- plugins:\n  - name: gang\n")
    configmap = {"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
                 "data": {"volcano-scheduler.conf": text}}
    assert any("enableTopologyAwarePreemption" in line for line in run(configmap, node("n1")).limitations)
