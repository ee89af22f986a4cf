"""Volcano in virtual time (VC-R1..VC-R5): sessions every schedule period, arrivals, gang start and completion,
evictions as the job controller's policies say, livelocks; the end state checked against simulate's."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO
from volcano_cases import scenario_objects

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from kqctl.replay.report import TimelineReport
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.simulation import simulate
from kqctl.volcano.load import build_snapshot
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_snapshot, replay_timeline
from kqctl.volcano.replay.timeline import TimelineOptions, VolcanoTimeline

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
RECLAIM_CONF = """actions: "enqueue, allocate, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def configmap(conf: str = RECLAIM_CONF) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
            "data": {"volcano-scheduler.conf": conf}}


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def queue(name: str, weight: int = 1, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": weight, **spec}, "status": {"state": "Open"}}


def vcjob(name: str, queue_name: str, replicas: int, minimum: int, at: str = "00:00:00", cpu: str = "1",
          runtime: str | None = None, policies: list[dict[str, str]] | None = None,
          max_retry: int | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "ns", "creationTimestamp": f"2026-01-01T{at}Z"}
    if runtime is not None:
        metadata["annotations"] = {"kqctl.dev/runtime": runtime}
    spec: dict[str, Any] = {"queue": queue_name, "minAvailable": minimum, "schedulerName": "volcano",
                            "tasks": [{"name": "w", "replicas": replicas, "template": {"spec": {"containers": [
                                {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu,
                                                                                       "memory": "1Gi"}}}]}}}]}
    if policies is not None:
        spec["policies"] = policies
    if max_retry is not None:
        spec["maxRetry"] = max_retry
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": metadata, "spec": spec}


def bare_group(name: str, queue_name: str, pods: int, at: str = "00:00:00", owner: bool = False,
               bound_to: str = "") -> list[dict[str, Any]]:
    """A PodGroup written by hand and its pods (``owner``: a ReplicaSet controls them; ``bound_to``: running)."""
    created = f"2026-01-01T{at}Z"
    objects: list[dict[str, Any]] = [{
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "ns", "creationTimestamp": created},
        "spec": {"queue": queue_name, "minMember": 1}, "status": {"phase": "Running" if bound_to else "Pending"}}]
    for i in range(pods):
        meta: dict[str, Any] = {"name": f"{name}-{i}", "namespace": "ns", "creationTimestamp": created,
                                "annotations": {"scheduling.k8s.io/group-name": name}}
        if owner:
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": "u1",
                                        "controller": True}]
        spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [
            {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
        if bound_to:
            spec["nodeName"] = bound_to
        objects.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                        "status": {"phase": "Running" if bound_to else "Pending"}})
    return objects


def snapshot_of(objects: list[dict[str, Any]]) -> Snapshot:
    return build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(objects, sort_keys=False), "cluster.yaml"))


def replay(objects: list[dict[str, Any]], runtime: str | None = "1h", period: int = 1000,
           seed: int = 0) -> TimelineReport:
    options = TimelineOptions(START, period, parse_distribution(runtime) if runtime else None, seed)
    return replay_snapshot(snapshot_of(objects), VolcanoReplayOptions(options))


def times(report: TimelineReport) -> dict[str, tuple[int | None, int | None, int | None, int]]:
    return {w.key: (w.arrival, w.admitted, w.finished, w.evictions) for w in report.workloads}


# --- VC-R1: sessions every schedule period ------------------------------------------------------------------------


def test_vc_r1_an_arrival_between_sessions_is_seen_by_the_next_one() -> None:
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j", "a", 1, 1, at="00:00:00.300")]
    assert times(replay(cluster))["ns/j"] == (300, 1000, 3_601_000, 0)


def test_vc_r1_the_schedule_period_spaces_the_sessions() -> None:
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j", "a", 1, 1, at="00:00:00.300")]
    assert times(replay(cluster, period=5000))["ns/j"][1] == 5000


def test_vc_r1_no_session_runs_while_nothing_changes() -> None:
    """Two jobs, one hour apart: a session when each arrives and finishes (and the one after that sees no change),
    not 7,200 sessions."""
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j1", "a", 1, 1), vcjob("j2", "a", 1, 1, at="01:00:00")]
    report = replay(cluster)
    assert report.cycles <= 10
    assert times(report)["ns/j2"][1] == 3_600_000


# --- VC-R2 and VC-R3: arrivals, gang start, completion --------------------------------------------------------


def test_vc_r2_a_podgroup_created_later_joins_the_cluster_then() -> None:
    cluster = [configmap(), node("n1"), queue("a"), vcjob("early", "a", 2, 2), vcjob("later", "a", 2, 2, at="00:05:00")]
    found = times(replay(cluster))
    assert found["ns/early"] == (0, 0, 3_600_000, 0)
    assert found["ns/later"] == (300_000, 300_000, 3_900_000, 0)


def test_vc_r3_a_gang_waits_until_a_finished_job_frees_its_node() -> None:
    """j2 needs 3 cpus at once on a 4-cpu node that j1 (2 cpus, 30m) and j0 (2 cpus, 1h) fill: it starts when j1
    ends, not before (minMember 3: two free pods are not enough)."""
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j0", "a", 2, 2, runtime="1h"),
               vcjob("j1", "a", 2, 2, runtime="30m"), vcjob("j2", "a", 3, 3, at="00:00:01", runtime="10m")]
    found = times(replay(cluster, runtime=None))
    assert found["ns/j1"][2] == 1_800_000
    assert found["ns/j2"][1] == 3_600_000  # j1's 2 cpus alone are not 3: it waits for j0 too
    assert found["ns/j2"][2] == 3_600_000 + 600_000


def test_vc_r3_a_runtime_annotation_on_the_vcjob_wins_over_the_distribution() -> None:
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j", "a", 1, 1, runtime="7m")]
    assert times(replay(cluster, runtime="1h"))["ns/j"][2] == 420_000


def test_vc_r3_a_podgroup_running_at_the_start_runs_its_runtime_from_the_start_and_is_not_a_wait() -> None:
    cluster = [configmap(), node("n1"), queue("a"), *bare_group("old", "a", 2, bound_to="n1")]
    report = replay(cluster, runtime="20m")
    old = report.workload("ns/old")
    assert old is not None and (old.arrival, old.finished) == (None, 1_200_000)
    assert report.running_at_start == 1 and report.overall.workloads == 0


# --- VC-R4: evictions and the controllers -----------------------------------------------------------------------


def reclaim_cluster(victim: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Queue a runs ``victim`` over the whole 4-cpu node; queue b's job (2 pods, gang 2) arrives at 10m: reclaim
    evicts two of a's pods for it (a is above its deserved half)."""
    return [configmap(), node("n1"), queue("a"), queue("b"), *victim,
            vcjob("late", "b", 2, 2, at="00:10:00", runtime="1h")]


def test_vc_r4_syncjob_makes_the_evicted_pods_again_and_the_job_keeps_running_above_its_min() -> None:
    report = replay(reclaim_cluster([vcjob("big", "a", 4, 1, runtime="1h")]))
    assert [(e.at, e.workload) for e in report.evictions] == [(600_000, "ns/big")] * 2
    assert all(e.outcome.startswith("SyncJob") for e in report.evictions)
    found = times(report)
    assert found["ns/big"] == (0, 0, 3_600_000, 0)  # one pod still runs: minAvailable 1 holds
    assert found["ns/late"][1] == 601_000  # the session after the reclaim binds it


def test_vc_r4_restartjob_kills_and_restarts_the_job_whose_runtime_starts_over() -> None:
    big = vcjob("big", "a", 4, 1, runtime="1h", policies=[{"event": "PodEvicted", "action": "RestartJob"}])
    report = replay(reclaim_cluster([big]))
    assert report.evictions[0].outcome.startswith("RestartJob: the job restarted (retry 1 of 3)")
    workload = report.workload("ns/big")
    assert workload is not None and workload.evictions == 1
    assert workload.first_admitted == 0 and workload.admitted is not None and workload.admitted > 600_000
    assert workload.finished == workload.admitted + 3_600_000


def test_vc_r4_a_restart_at_max_retry_fails_the_job() -> None:
    big = vcjob("big", "a", 4, 1, runtime="1h", policies=[{"events": ["PodEvicted"], "action": "RestartJob"}],
                max_retry=1)
    report = replay(reclaim_cluster([big]))
    assert report.evictions[0].outcome.startswith("RestartJob: the job failed after 1 restarts")
    workload = report.workload("ns/big")
    assert workload is not None and workload.state == "Failed" and workload.finished is None


def test_vc_r4_a_task_policy_comes_before_the_job_policy() -> None:
    big = vcjob("big", "a", 4, 1, runtime="1h", policies=[{"event": "PodEvicted", "action": "RestartJob"}])
    big["spec"]["tasks"][0]["policies"] = [{"event": "*", "action": "AbortJob"}]
    report = replay(reclaim_cluster([big]))
    assert report.evictions[0].outcome.startswith("AbortJob")
    workload = report.workload("ns/big")
    assert workload is not None and workload.state == "Aborted"


def test_vc_r4_an_evicted_bare_pod_is_gone_for_good() -> None:
    options = VolcanoReplayOptions(TimelineOptions(START, runtime=parse_distribution("1h")), until=1_200_000)
    report, timeline = replay_timeline(snapshot_of(reclaim_cluster(bare_group("bare", "a", 4, bound_to="n1"))),
                                       options)
    assert {e.outcome for e in report.evictions} == {"deleted: a bare pod is not made again"}
    evicted = {e.pod for e in report.evictions}
    left = set(timeline.cache.jobs["ns/bare"].tasks)
    assert len(evicted) == 2 and len(left) == 2 and not evicted & left  # two left, none made again
    assert any("2 evicted bare pod(s) were deleted" in note for note in report.assumptions)


def test_vc_r4_a_pod_its_controller_owns_is_made_again() -> None:
    report = replay(reclaim_cluster(bare_group("owned", "a", 4, owner=True, bound_to="n1")))
    assert {e.outcome for e in report.evictions} == {"made again by its controller"}


# --- determinism and event order ---------------------------------------------------------------------------


def test_a_replay_is_a_pure_function_of_its_inputs_and_seed() -> None:
    cluster = [configmap(), node("n1"), node("n2"), queue("a"), queue("b"),
               *(vcjob(f"j{i}", "ab"[i % 2], 2, 2, at=f"00:0{i}:00") for i in range(8))]
    first = replay(cluster, runtime="lognormal(20m,0.8)", seed=7)
    again = replay(cluster, runtime="lognormal(20m,0.8)", seed=7)
    other = replay(cluster, runtime="lognormal(20m,0.8)", seed=8)
    assert times(first) == times(again) and first.usage == again.usage
    assert times(first) != times(other)


def test_a_completion_and_an_arrival_at_one_tick_are_both_seen_by_that_tick_s_session() -> None:
    """j0 fills the node and ends at 10m exactly (a tick); j1 arrives then: the session at 10m sees both."""
    cluster = [configmap(), node("n1"), queue("a"), vcjob("j0", "a", 4, 4, runtime="10m"),
               vcjob("j1", "a", 4, 4, at="00:10:00", runtime="10m")]
    assert times(replay(cluster, runtime=None))["ns/j1"][1] == 600_000


# --- the end state equals simulate's steady state (nothing finishing, nothing arriving) ------------------------


AFTER_EVERYTHING = datetime(2030, 1, 1, tzinfo=timezone.utc)  # every object of the inputs exists by then


def owned(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pod under a controller (the samples' and scenarios' pods are written as bare pods for brevity; their
    evictions would delete them, in simulate as in replay)."""
    for item in objects:
        meta = item.get("metadata") if isinstance(item, dict) else None
        if item.get("kind") == "Pod" and isinstance(meta, dict) and not meta.get("ownerReferences"):
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "rs",
                                        "controller": True}]
    return objects


def end_state_matches_simulate(objects: list[dict[str, Any]] | str, own: bool = True) -> None:
    """Nothing arrives (the replay starts after every creation time) and nothing finishes (no runtime). ``own``:
    every bare pod is first put under a controller."""
    if isinstance(objects, str):
        objects = [d for d in yaml.safe_load_all(objects) if d is not None]
    text = yaml.safe_dump_all(owned(objects) if own else objects, sort_keys=False)
    loaded = load_text(ALL_KINDS, text, "cluster.yaml")
    result = simulate(build_snapshot(loaded))
    options = VolcanoReplayOptions(TimelineOptions(AFTER_EVERYTHING))
    report, timeline = replay_timeline(build_snapshot(loaded), options)
    assert report.overall.workloads == len([w for w in report.workloads if w.arrival is not None])
    expected = {pod: node or "" for group in result.groups.values() if not group.ignored
                for pod, node in group.pods.items()}
    assert _placements(timeline) == expected
    phases = {key: group.phase for key, group in result.groups.items() if not group.ignored}
    assert {key: timeline.phases.get(key) for key in phases} == phases
    assert result.stop_reason in ("steady state", "livelock")


def _placements(timeline: VolcanoTimeline) -> dict[str, str]:
    return {pod: node for pod, node in timeline.placements().items()}


SAMPLES = sorted(p for p in (REPO / "samples").glob("volcano-*") if p.name != "volcano-broken")


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_the_replay_of_every_volcano_sample_ends_where_simulate_does(sample: Path) -> None:
    text = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted(sample.glob("*.yaml")))
    end_state_matches_simulate(text)


SCENARIOS = sorted((REPO / "tests" / "conformance" / "data" / "volcano").glob("*/*.yaml"))
SCENARIOS = [p for p in SCENARIOS if "nodes" in (yaml.safe_load(p.read_text(encoding="utf-8")) or {})]
# Volcano's random sessions (generated inputs: queues, jobs, pods, nodes and configurations of every shape).
RANDOM = sorted((REPO / "tests" / "conformance" / "data" / "volcano" / "random").glob("*/scenario.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[f"{p.parent.name}/{p.stem}" for p in SCENARIOS])
def test_the_replay_of_every_volcano_scenario_ends_where_simulate_does(path: Path) -> None:
    end_state_matches_simulate(scenario_objects(yaml.safe_load(path.read_text(encoding="utf-8"))))


@pytest.mark.parametrize("path", RANDOM, ids=[p.parent.name for p in RANDOM])
def test_the_replay_of_every_random_volcano_session_ends_where_simulate_does(path: Path) -> None:
    end_state_matches_simulate(path.read_text(encoding="utf-8"))


def test_the_reclaim_cluster_ends_where_simulate_does() -> None:
    """Sessions with reclaim's evictions (and nothing finishing, nothing arriving later: both jobs at the start)."""
    big = vcjob("big", "a", 4, 1)
    late = vcjob("late", "b", 2, 2)
    end_state_matches_simulate([configmap(), node("n1"), queue("a"), queue("b"), big, late])


def _running_bare(name: str, queue_name: str, cpu: str, owner: bool) -> list[dict[str, Any]]:
    objects = bare_group(name, queue_name, 1, owner=owner, bound_to="n1")
    objects[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    return objects


def _waiting(name: str, queue_name: str, cpu: str) -> list[dict[str, Any]]:
    objects = bare_group(name, queue_name, 1)
    objects[0]["status"]["phase"] = "Inqueue"
    objects[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    return objects


@pytest.mark.parametrize("owner", [False, True], ids=["bare pods: deleted for good", "owned pods: made again"])
@pytest.mark.parametrize("policy", [None, "RestartTask", "AbortJob"])
def test_vc_r4_evictions_end_where_simulate_does(owner: bool, policy: str | None) -> None:
    """Reclaim evicts queue a's pods (bare or under a controller, and a vcjob's with its PodEvicted policy) for queue
    b's: simulate and replay apply the same controller answer, so they end alike (QA: simulate showed evicted bare
    pods Inqueue again, replay Deleted)."""
    job = vcjob("big", "a", 2, 1, cpu="1", policies=[{"event": "PodEvicted", "action": policy}] if policy else None)
    job["metadata"]["creationTimestamp"] = "2025-12-31T00:00:00Z"
    cluster = [configmap(), node("n1", cpu="8"), queue("a"), queue("b"), job,
               *_running_bare("a-run-0", "a", "2", owner), *_running_bare("a-run-1", "a", "2", owner),
               *_running_bare("a-run-2", "a", "2", owner), *_waiting("b-wait", "b", "4")]
    result = simulate(snapshot_of(cluster))
    assert result.evictions, "the case must evict"
    end_state_matches_simulate(cluster, own=False)


def test_an_evicted_bare_pod_s_podgroup_ends_deleted_in_simulate() -> None:
    cluster = [configmap(), node("n1", cpu="4"), queue("a"), queue("b"), *_running_bare("a-run", "a", "4", False),
               *_waiting("b-wait", "b", "2")]
    outcome = simulate(snapshot_of(cluster)).groups["ns/a-run"]
    assert (outcome.phase, dict(outcome.pods), outcome.reason) == (
        "Deleted", {}, ("evicted", "its pods were evicted and are gone (deleted: a bare pod is not made again)"))


def test_evictions_of_podgroups_running_at_the_start_are_counted() -> None:
    """recl/owned.yaml of the QA pass: reclaim evicts two owned pods of queue a, running at the start, for b's."""
    cluster = [configmap(), node("n1", cpu="4"), queue("a"), queue("b"), *_running_bare("a-run", "a", "4", True),
               *_waiting("b-wait", "b", "2")]
    report = replay(cluster, runtime=None)
    assert len(report.evictions) == 1 and report.overall.evictions == 1
    assert {row.name: row.evictions for row in report.by_queue} == {"a": 1, "b": 0}
    assert {row.name: row.evictions for row in report.by_priority} == {"0": 1}


def _at(points: Any, when: int) -> int:
    value = 0
    for at, amount in points:
        if at <= when:
            value = amount
    return value


@pytest.mark.parametrize("resource", ["cpu", "memory"])
def test_a_parent_queue_s_usage_over_time_is_its_children_s_sum_under_hierarchical_capacity(resource: str) -> None:
    """samples/volcano-hierarchy (QA: eng showed 0 while eng-ml and eng-web ran; simulate sums them as Volcano's
    hierarchical capacity does)."""
    text = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "samples" / "volcano-hierarchy")
                                                                     .glob("*.yaml")))
    snapshot = build_snapshot(load_text(ALL_KINDS, text, "cluster.yaml"))
    options = TimelineOptions(START, runtime=parse_distribution("30m"))
    _, timeline = replay_timeline(snapshot, VolcanoReplayOptions(options))
    tracks = {track.name: track.points for track in timeline.usage() if track.resource == resource}
    children = [name for name, q in snapshot.queues.items() if q.parent_name == "eng"]
    assert children and "eng" in tracks
    moments = sorted({at for name in ("eng", *children) for at, _ in tracks.get(name, ())})
    assert max(_at(tracks["eng"], t) for t in moments) > 0
    for moment in moments:
        assert _at(tracks["eng"], moment) == sum(_at(tracks.get(name, ()), moment) for name in children)
    simulated = {r.name: r.allocated.get(resource) for r in simulate(snapshot).queues}
    assert simulated["eng"] == sum(simulated[name] for name in children)


def test_a_parent_queue_s_usage_is_its_own_without_hierarchy() -> None:
    """Under proportion the tree is not read: a parent holds only its own pods, in simulate as in replay."""
    cluster = [configmap(), node("n1"), queue("eng"), queue("ml", parent="eng"),
               *bare_group("j", "ml", 1, owner=True, bound_to="n1")]
    _, timeline = replay_timeline(snapshot_of(cluster), VolcanoReplayOptions(TimelineOptions(START)))
    assert {t.name for t in timeline.usage() if t.resource == "cpu" and _at(t.points, 0)} == {"ml"}


def test_the_json_report_names_the_rules_it_follows() -> None:
    from kqctl.render.replay import report_data
    from kqctl.volcano.render.replay import UNITS

    data = report_data(replay([configmap(), node("n1"), queue("a"), vcjob("j", "a", 1, 1)]), UNITS)
    assert data["model"]["rules"] == ["VC-R1", "VC-R2", "VC-R3", "VC-R4", "VC-R5"]
    assert json.loads(json.dumps(data))["workloads"]["ns/j"]["timeToStartMs"] == 0


# --- VC-R5: a livelock stops the sessions until something arrives or finishes ------------------------------------

LIVELOCK = REPO / "tests" / "data" / "volcano-reclaim-livelock.json"  # benchmarks/generate_volcano.py 15 5 60 seed 2,
# with reclaim configured and every pod owned by a ReplicaSet (so evicted pods come back as simulate has them)


def test_vc_r5_a_livelock_stops_the_sessions_where_simulate_stops() -> None:
    end_state_matches_simulate(LIVELOCK.read_text(encoding="utf-8"))
    loaded = load_text(ALL_KINDS, LIVELOCK.read_text(encoding="utf-8"), "cluster.json")
    report, timeline = replay_timeline(build_snapshot(loaded), VolcanoReplayOptions(TimelineOptions(AFTER_EVERYTHING)))
    assert timeline.livelocks == 1 and timeline.sessions == simulate(build_snapshot(loaded)).sessions
    assert report.end == (timeline.sessions - 1) * 1000  # one session a second, then none
    assert any("livelock" in note for note in report.assumptions)


def test_vc_r5_completions_start_the_sessions_again_after_a_livelock() -> None:
    loaded = load_text(ALL_KINDS, LIVELOCK.read_text(encoding="utf-8"), "cluster.json")
    options = VolcanoReplayOptions(TimelineOptions(START, runtime=parse_distribution("30m")))
    report = replay_snapshot(build_snapshot(loaded), options)
    assert all(w.state == "Finished" for w in report.workloads)


def test_usage_ceiling_counts_only_ready_nodes_as_the_sessions_do() -> None:
    """A NotReady node is not in the scheduler's cache: the cluster a queue without deserved is measured against is
    the Ready nodes' (8 cpu here, not 72)."""
    down = node("down", cpu="64")
    down["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    objects = [configmap(), node("n1"), node("n2"), down, queue("open"), vcjob("d", "open", 1, 1)]
    usage = {u.name: u for u in replay(objects).usage if u.resource == "cpu"}
    assert (usage["open"].nominal, usage["open"].ceiling) == (0, 8000)


def test_usage_is_measured_against_deserved_else_the_capability_else_the_cluster() -> None:
    """The usage table's nominal amount is the Queue's deserved only; without one its usage is a share of what it
    can at most get: its capability (never above the cluster), else the whole cluster (two nodes of 4 cpu)."""
    objects = [configmap(), node("n1"), node("n2"),
               queue("given", deserved={"cpu": "2"}), queue("capped", capability={"cpu": "3"}),
               queue("huge", capability={"cpu": "100"}), queue("open"),
               *(vcjob(name, queue_name, 1, 1) for name, queue_name in (("a", "given"), ("b", "capped"), ("c", "huge"),
                                                                         ("d", "open")))]
    usage = {u.name: u for u in replay(objects).usage if u.resource == "cpu"}
    assert (usage["given"].nominal, usage["given"].ceiling) == (2000, 0)
    assert (usage["capped"].nominal, usage["capped"].ceiling) == (0, 3000)  # not shown as a deserved amount
    assert (usage["huge"].nominal, usage["huge"].ceiling) == (0, 8000)
    assert (usage["open"].nominal, usage["open"].ceiling) == (0, 8000)
