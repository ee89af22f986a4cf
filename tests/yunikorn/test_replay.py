"""YuniKorn in virtual time (YK-R1..YK-R4): the core's cycles and time-gated asks, the shim's loop and its application
states, completions, preemption victims and their controllers; the state at the start checked against simulate's."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO
from yunikorn_build import start_state_matches_simulate
from yunikorn_random import cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.replay.durations import parse_distribution
from kqctl.replay.report import TimelineReport
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.load import build_snapshot
from kqctl.yunikorn.replay.report import YuniKornReplayOptions, replay_snapshot
from kqctl.yunikorn.replay.timeline import TimelineOptions

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def configs(queues: list[dict[str, Any]], extra: dict[str, str] | None = None) -> dict[str, Any]:
    config = {"partitions": [{"name": "default", "queues": [{"name": "root", "submitacl": "*", "queues": queues}]}]}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn"},
            "data": {"queues.yaml": yaml.safe_dump(config, sort_keys=False), **(extra or {})}}


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "20"}}}


def pod(name: str, app: str, queue: str, cpu: str = "1", at_ms: int = 0, bound: str = "", priority: int = 0,
        runtime: str | None = None, owner: bool = False) -> dict[str, Any]:
    created = START + timedelta(milliseconds=at_ms)
    meta: dict[str, Any] = {"name": name, "namespace": "default",
                            "creationTimestamp": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                            "labels": {"applicationId": app, "queue": queue}}
    if runtime is not None:
        meta["annotations"] = {"kqctl.dev/runtime": runtime}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": app, "uid": "u",
                                    "controller": True}]
    spec: dict[str, Any] = {"schedulerName": "yunikorn", "priority": priority,
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    if bound:
        spec["nodeName"] = bound
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running" if bound else "Pending"}}


def snapshot_of(objects: list[dict[str, Any]] | str, now: datetime = START) -> Snapshot:
    text = objects if isinstance(objects, str) else yaml.safe_dump_all(objects, sort_keys=False)
    return build_snapshot(load_text(ALL_KINDS, text, "cluster.yaml"), now)


def replay(objects: list[dict[str, Any]], runtime: str | None = "1h", until: int | None = None,
           seed: int = 0) -> TimelineReport:
    options = YuniKornReplayOptions(TimelineOptions(parse_distribution(runtime) if runtime else None, seed), until)
    return replay_snapshot(snapshot_of(objects), options)


def pods(report: TimelineReport) -> dict[str, tuple[int | None, int | None, int | None, int, str]]:
    return {w.key: (w.arrival, w.admitted, w.finished, w.evictions, w.state) for w in report.pods}


# --- YK-R2: the shim's loop ---------------------------------------------------------------------------------------


def test_yk_r2_a_new_application_s_pod_waits_for_the_shim_s_run_and_two_more() -> None:
    cluster_ = [configs([{"name": "a"}]), node("n1"), pod("p", "app", "root.a", at_ms=500)]
    assert pods(replay(cluster_))["default/p"][:2] == (500, 3000)


def test_yk_r2_a_pod_of_an_application_the_core_knows_goes_with_the_next_run() -> None:
    cluster_ = [configs([{"name": "a"}]), node("n1"), pod("p0", "app", "root.a", bound="n1"),
                pod("p1", "app", "root.a", at_ms=500)]
    assert pods(replay(cluster_))["default/p1"][:2] == (500, 1000)


def test_yk_r2_the_scheduling_interval_comes_from_the_configmaps() -> None:
    cluster_ = [configs([{"name": "a"}], {"service.schedulingInterval": "5s"}), node("n1"),
                pod("p", "app", "root.a", at_ms=500)]
    assert pods(replay(cluster_))["default/p"][:2] == (500, 15_000)


# --- YK-R1: the core's cycles, and time-gated asks -------------------------------------------------------------


def test_yk_r1_an_ask_reserves_a_node_only_once_it_is_2s_old() -> None:
    """Two 2-core nodes, each half used: the cluster has the 2 cores p asks for, no node has them."""
    cluster_ = [configs([{"name": "a"}]), node("n1", "2"), node("n2", "2"),
                pod("x1", "old", "root.a", bound="n1"), pod("x2", "old", "root.a", bound="n2"),
                pod("p", "app", "root.a", cpu="2")]
    assert pods(replay(cluster_, until=1_000))["default/p"][4] == "Pending"
    assert pods(replay(cluster_, until=2_500))["default/p"][4] == "Reserved"


def preemption_cluster(delay: str | None = None, owner: bool = False) -> list[dict[str, Any]]:
    """root.a is guaranteed 2 cores and uses nothing; root.b runs 4 pods on the only (4-core) node; a's pod arrives
    at the start and can only get in by preempting."""
    a: dict[str, Any] = {"name": "a", "resources": {"guaranteed": {"vcore": "2", "memory": "4Gi"}}}
    if delay is not None:
        a["properties"] = {"preemption.delay": delay}
    victims = [pod(f"b{i}", "bapp", "root.b", bound="n1", runtime="10h", owner=owner) for i in range(4)]
    return [configs([a, {"name": "b"}]), node("n1"), *victims, pod("p", "aapp", "root.a", cpu="2", runtime="1h")]


def test_yk_r1_preemption_waits_for_the_queue_s_preemption_delay() -> None:
    found = pods(replay(preemption_cluster(), runtime=None))
    assert found["default/p"][1] == 30_000  # preemption.delay's default, 30s
    assert sum(1 for key, times in found.items() if key.startswith("default/b") and times[3]) == 2


def test_yk_r1_a_shorter_preemption_delay_preempts_sooner() -> None:
    assert pods(replay(preemption_cluster("10s"), runtime=None))["default/p"][1] == 10_000


# --- YK-R3: completions ---------------------------------------------------------------------------------------------


def test_yk_r3_a_finished_pod_releases_its_allocation_for_the_next_one() -> None:
    cluster_ = [configs([{"name": "a"}]), node("n1"), pod("first", "a1", "root.a", cpu="4", runtime="10m"),
                pod("second", "a2", "root.a", cpu="4", runtime="5m", at_ms=1)]
    found = pods(replay(cluster_, runtime=None))
    assert found["default/first"][1:3] == (0, 600_000)
    assert found["default/second"][1:3] == (600_000, 900_000)


def test_yk_r3_a_completing_application_frees_its_place_under_maxapplications() -> None:
    cluster_ = [configs([{"name": "a", "maxapplications": 1}]), node("n1"),
                pod("first", "a1", "root.a", runtime="10m"), pod("second", "a2", "root.a", runtime="10m", at_ms=1)]
    found = pods(replay(cluster_, runtime=None))
    assert found["default/second"][1] == 600_000  # a2 runs once a1 is Completing, not before
    apps = {w.key: (w.admitted, w.finished) for w in replay(cluster_, runtime=None).workloads}
    assert apps == {"a1": (0, 600_000), "a2": (600_000, 1_200_000)}


# --- YK-R4: preemption victims and their controllers -------------------------------------------------------------


def test_yk_r4_a_preempted_bare_pod_is_not_made_again() -> None:
    report = replay(preemption_cluster(), runtime=None)
    victims = [e for e in report.evictions]
    assert len(victims) == 2 and {e.outcome for e in victims} == {"deleted: a bare pod is not made again"}
    assert {pods(report)[e.pod][4] for e in victims} == {"Deleted"}


def test_yk_r4_a_preempted_pod_with_a_controller_is_made_again_and_runs_when_there_is_room() -> None:
    report = replay(preemption_cluster(owner=True), runtime=None)
    victims = [e.pod for e in report.evictions]
    assert len(victims) == 2 and all(e.outcome == "made again by its Job, pending" for e in report.evictions)
    found = pods(report)
    for key in victims:
        arrival, admitted, _, evictions, _ = found[key]
        assert evictions == 1 and admitted is not None and admitted >= 30_000 + 3_600_000  # after p's hour


# --- determinism -------------------------------------------------------------------------------------------------


def test_a_replay_is_a_pure_function_of_its_inputs_and_seed() -> None:
    text = yaml.safe_dump_all(cluster(3), sort_keys=False)
    options = YuniKornReplayOptions(TimelineOptions(parse_distribution("lognormal(20m,0.8)"), 5))
    first = replay_snapshot(build_snapshot(load_text(ALL_KINDS, text, "c.yaml"), START), options)
    again = replay_snapshot(build_snapshot(load_text(ALL_KINDS, text, "c.yaml"), START), options)
    assert pods(first) == pods(again) and first.usage == again.usage


# --- the state at the start equals simulate's (nothing finishing, nothing arriving, no time passing) ---------------


SAMPLES = sorted(p for p in (REPO / "samples").glob("yunikorn-*") if p.name != "yunikorn-broken")


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_the_replay_of_every_yunikorn_sample_starts_where_simulate_ends(sample: Path) -> None:
    text = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted(sample.glob("*.yaml")))
    start_state_matches_simulate(text, datetime(2026, 1, 1, 12, tzinfo=timezone.utc))


@pytest.mark.parametrize("seed", range(40))
def test_the_replay_of_random_yunikorn_clusters_starts_where_simulate_ends(seed: int) -> None:
    from yunikorn_random import NOW

    start_state_matches_simulate(yaml.safe_dump_all(cluster(seed), sort_keys=False), NOW)


CORE_RANDOM = sorted((REPO / "tests" / "conformance" / "data" / "yunikorn" / "random").glob("*/expected.json"))


@pytest.mark.parametrize("expected", CORE_RANDOM, ids=[p.parent.name for p in CORE_RANDOM])
def test_the_replay_of_yunikorn_core_s_random_clusters_starts_where_simulate_ends(expected: Path) -> None:
    """The clusters yunikorn-core decided (tests/conformance/data/yunikorn/random), at their recorded time."""
    import json

    folder = expected.parent
    now = datetime.fromisoformat(json.loads(expected.read_text(encoding="utf-8"))["now"].replace("Z", "+00:00"))
    files = [folder / name for name in ("yunikorn-configs.yaml", "cluster.yaml", "pods.yaml")]
    text = "\n---\n".join(path.read_text(encoding="utf-8") for path in files if path.exists())
    start_state_matches_simulate(text, now)
