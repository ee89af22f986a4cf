"""Incremental sessions (``session.run_cached(incremental=True)``, what a replay runs): each action visits only the
jobs it can act on (enqueue the Pending jobs its voters do not turn down, allocate the jobs with a task some node
takes and its queue lets in, backfill the jobs with best-effort tasks), the close only the jobs changed since the
last one, and proportion's water-filling is worked out when first read. The replays must be the same as with
every session in full (VC-R1..VC-R5), on random clusters with arrivals, completions and evictions, on Volcano's
random conformance sessions with runtimes, and on every sample."""

from __future__ import annotations

import copy
import gc
import random
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from kqctl.replay.durations import parse_distribution
from kqctl.volcano.api.resource import INFINITE, Resource
from kqctl.volcano.engine import proportion as proportion_module
from kqctl.volcano.engine.proportion import Proportion, Round, fill_in_integers
from kqctl.volcano.engine.queue_attr import QueueAttr, real_capability
from kqctl.volcano.engine.session import incremental_conf
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_timeline
from kqctl.volcano.replay.timeline import TimelineOptions
from tests.volcano.builders import conf, snapshot
from tests.volcano.test_replay import START, snapshot_of

REPO = Path(__file__).resolve().parents[2]

CONFS = {
    "chart": ("enqueue, allocate, backfill", ["priority", "gang", "conformance"],
              ["overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack"]),
    "reclaim": ("enqueue, allocate, reclaim, backfill", ["priority", "gang", "conformance"],
                ["overcommit", "drf", "predicates", "proportion", "nodeorder"]),
    "no-enqueue": ("allocate, backfill", ["priority", "gang"], ["drf", "predicates", "proportion", "binpack"]),
    "preempt": ("enqueue, allocate, preempt, backfill", ["priority", "gang", "conformance"],
                ["drf", "predicates", "proportion"]),
}


def _conf(name: str) -> str:
    actions, first, second = CONFS[name]
    tiers = "\n".join("- plugins:\n" + "".join(f"  - name: {plugin}\n" for plugin in tier) for tier in (first, second))
    return f'actions: "{actions}"\ntiers:\n{tiers}'


def random_cluster(seed: int, conf_name: str) -> list[dict[str, Any]]:
    """A small cluster of every shape the sessions care about: nodes of a few sizes (one with GPUs), weighted
    queues (some with a capability or a guarantee), gangs with minResources, jobs without, best-effort pods,
    priorities, jobs running at the start and jobs arriving later."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": _conf(conf_name)}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 100},
    ]
    nodes = []
    for i in range(rng.randint(2, 5)):
        allocatable = {"cpu": str(rng.choice((4, 8, 16))), "memory": f"{rng.choice((16, 32))}Gi", "pods": "20"}
        if i == 0:
            allocatable["nvidia.com/gpu"] = "2"
        nodes.append(f"n{i}")
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                      "status": {"allocatable": allocatable, "conditions": [{"type": "Ready", "status": "True"}]}})
    queues = [f"q{i}" for i in range(rng.randint(1, 4))]
    for i, name in enumerate(queues):
        spec: dict[str, Any] = {"weight": rng.randint(1, 4)}
        if rng.random() < 0.3:
            spec["capability"] = {"cpu": str(rng.choice((6, 12, 24)))}
        if i == 0 and rng.random() < 0.5:
            spec["guarantee"] = {"resource": {"cpu": "2"}}
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
                      "spec": spec, "status": {"state": "Open"}})
    for g in range(rng.randint(6, 18)):
        name = f"job-{g:02d}"
        size = rng.randint(1, 4)
        minimum = rng.randint(1, size)
        cpu = rng.choice(("500m", "1", "2", "3", "6"))
        gpu = rng.random() < 0.1
        best_effort = rng.random() < 0.1
        running = rng.random() < 0.3 and not gpu and not best_effort
        requests = {} if best_effort else {"cpu": cpu, "memory": f"{rng.choice((1, 2, 4))}Gi",
                                           **({"nvidia.com/gpu": "1"} if gpu else {})}
        metadata: dict[str, Any] = {"namespace": "default", "name": name}
        if not running and rng.random() < 0.4:
            metadata["creationTimestamp"] = f"2026-01-01T00:{rng.randint(1, 40):02d}:00Z"
        spec = {"queue": rng.choice(queues), "minMember": minimum}
        if requests and rng.random() < 0.7:
            spec["minResources"] = {"cpu": str(int(float(cpu.rstrip("m")) / (1000 if cpu.endswith("m") else 1)
                                                   * minimum * 1000)) + "m"}
        if rng.random() < 0.2:
            spec["priorityClassName"] = "high"
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": metadata,
                      "spec": spec, "status": {"phase": "Running" if running else "Pending"}})
        node_name = rng.choice(nodes) if running else ""
        for p in range(size):
            resources: dict[str, Any] = {"requests": requests} if requests else {}
            if gpu:
                resources["limits"] = {"nvidia.com/gpu": "1"}
            pod_spec: dict[str, Any] = {"schedulerName": "volcano",
                                        "containers": [{"name": "main", "image": "x", "resources": resources}]}
            if running:
                pod_spec["nodeName"] = node_name
            pod_meta: dict[str, Any] = {"namespace": "default", "name": f"{name}-w-{p}",
                                        "annotations": {"scheduling.k8s.io/group-name": name},
                                        "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                                             "name": name, "uid": name, "controller": True}]}
            if "creationTimestamp" in metadata:
                pod_meta["creationTimestamp"] = metadata["creationTimestamp"]
            items.append({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": pod_spec,
                          "status": {"phase": "Running" if running else "Pending"}})
    return items


def both_ways(objects: list[dict[str, Any]], runtime: str, seed: int = 0) -> None:
    """The replay with incremental sessions equals the replay with every session in full: every PodGroup's
    times and state, the evictions, the usage over time, the sessions run."""
    reports = []
    for incremental in (True, False):
        options = TimelineOptions(START, 1000, parse_distribution(runtime), seed, incremental=incremental)
        report, timeline = replay_timeline(snapshot_of(objects), VolcanoReplayOptions(options))
        reports.append((report, timeline.sessions, timeline.placements(), timeline.phases))
    assert reports[0] == reports[1]


@pytest.mark.parametrize("conf_name", sorted(CONFS))
@pytest.mark.parametrize("seed", range(6))
def test_vc_r1_incremental_sessions_replay_random_clusters_as_full_sessions_do(seed: int, conf_name: str) -> None:
    both_ways(random_cluster(seed, conf_name), "lognormal(10m,0.8)", seed)


RANDOM = sorted((REPO / "tests" / "conformance" / "data" / "volcano" / "random").glob("*/scenario.yaml"))


@pytest.mark.parametrize("path", RANDOM[::8], ids=[p.parent.name for p in RANDOM[::8]])
def test_vc_r3_incremental_sessions_replay_random_volcano_sessions_with_runtimes_as_full_sessions_do(
        path: Path) -> None:
    objects = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    both_ways(objects, "lognormal(5m,0.8)")


SAMPLES = sorted(p for p in (REPO / "samples").glob("volcano-*") if p.name != "volcano-broken")


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_vc_r3_incremental_sessions_replay_every_sample_as_full_sessions_do(sample: Path) -> None:
    text = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted(sample.glob("*.yaml")))
    both_ways([d for d in yaml.safe_load_all(text) if d is not None], "lognormal(20m,0.8)")


def test_incremental_sessions_are_only_taken_by_quiet_sessions_of_known_queue_orders() -> None:
    """simulate, explain and audit read the reasons every job's session wrote: their sessions stay full; so do
    configurations whose queue order was not checked against the shortcut (capacity, drf's hierarchy)."""
    chart = snapshot(conf("enqueue, allocate", ["priority", "gang", "drf", "proportion"]))
    assert incremental_conf(chart.conf)
    assert not incremental_conf(snapshot(conf("enqueue, allocate", ["gang", "capacity"])).conf)
    assert not incremental_conf(snapshot(conf("enqueue, allocate", ["gang", {"name": "drf", "enableHierarchy": True}]))
                                .conf)


def _random_queues(seed: int) -> tuple[Resource, dict[str, QueueAttr]]:
    """A cluster total and queues of every kind the water-filling meets: weights (0 too), capabilities (unlimited
    cpu or memory, a GPU cap or none), guarantees, requests with or without GPUs or anything at all."""
    rng = random.Random(seed)
    total = Resource(rng.randint(0, 4000), rng.randint(0, 10**6), {"pods": rng.randint(0, 500)})
    if rng.random() < 0.8:
        total.scalars["nvidia.com/gpu"] = rng.randint(0, 16000)
    guarantees = [Resource(rng.choice((0, 0, rng.randint(0, 500))), 0,
                           {"nvidia.com/gpu": rng.randint(0, 4000)} if rng.random() < 0.2 else {})
                  for _ in range(rng.choice((1, 2, 3, 5, 8, 12)))]
    total_guarantee = Resource()
    for guarantee in guarantees:
        total_guarantee.add(guarantee)
    attrs = {}
    for i, guarantee in enumerate(guarantees):
        capability = None
        if rng.random() < 0.4:
            capability = Resource(rng.choice((rng.randint(0, 3000), INFINITE)), rng.choice((rng.randint(0, 10**6),
                                                                                               INFINITE)),
                                  {"nvidia.com/gpu": rng.randint(0, 8000)} if rng.random() < 0.5 else {})
        request = Resource(rng.randint(0, 2000), rng.randint(0, 6 * 10**5), {"pods": rng.randint(0, 200)})
        if rng.random() < 0.3:
            request.scalars["nvidia.com/gpu"] = rng.choice((0, 1000, rng.randint(0, 9000)))
        if rng.random() < 0.1:
            request = Resource()
        attr = QueueAttr(f"q{i:02d}", rng.choice((0, 1, 1, 2, 3, 4)), capability=capability, guarantee=guarantee,
                         real_capability=real_capability(total, total_guarantee, guarantee, capability))
        attr.request = request
        attr.allocated = Resource(rng.randint(0, request.cpu), rng.randint(0, request.memory))
        attrs[attr.name] = attr
    return total, attrs


class _TooManyRounds(Exception):
    pass


def _filled_by_fractions(monkeypatch: pytest.MonkeyPatch, total: Resource, attrs: dict[str, QueueAttr],
                         limit: int) -> Proportion:
    """proportion's own water-filling (``_fill``, in fractions) of ``attrs``; a fill past ``limit`` rounds (one that
    would not end) raises _TooManyRounds."""
    made = 0

    def counted(*args: Any) -> Round:
        nonlocal made
        made += 1
        if made > limit:
            raise _TooManyRounds
        return Round(*args)

    monkeypatch.setattr(proportion_module, "Round", counted)
    plugin = Proportion.__new__(Proportion)
    plugin.ssn, plugin.attrs, plugin.rounds = SimpleNamespace(total=total), attrs, []  # type: ignore[assignment]
    plugin._fill()
    return plugin


def test_vc_p1_water_filling_in_integers_gives_the_deserved_and_shares_of_the_fractions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An incremental session's water-filling (``fill_in_integers``) against proportion's own (``_fill``, in
    fractions) on random queues: the same queues take part, each with the same deserved amounts and share. (Every
    fill ends within 60 rounds since the equalities are judged in float64, as Volcano's are.)"""
    for seed in range(400):
        total, attrs = _random_queues(seed)
        by_fractions = copy.deepcopy(attrs)
        plugin = _filled_by_fractions(monkeypatch, total, by_fractions, 60)
        assert fill_in_integers(total, attrs) == {name for r in plugin.rounds for name in r.deserved}, seed
        for name, attr in attrs.items():
            expected = by_fractions[name]
            dims = ("cpu", "memory", "pods", "nvidia.com/gpu")
            assert {d: attr.deserved.get(d) for d in dims} == {d: expected.deserved.get(d) for d in dims}, seed
            assert attr.share == expected.share, seed


def test_vc_p1_water_filling_in_integers_leaves_other_amounts_to_the_fractions() -> None:
    """An amount that is not a whole number of at least 0 (here a fractional request) is left to ``_fill``."""
    total, attrs = _random_queues(1)
    next(iter(attrs.values())).request.cpu = Fraction(1, 3)
    assert fill_in_integers(total, attrs) is None


def test_vc_r1_finished_incremental_sessions_keep_no_plugin_alive() -> None:
    """kqctl runs with the cyclic garbage collector off (cli/app.py): a replay's finished sessions let go of their
    plugins (``Session.release``), which would otherwise stay in their cycle with the session to the end."""
    gc.collect()
    gc.disable()
    try:
        options = TimelineOptions(START, 1000, parse_distribution("lognormal(10m,0.8)"), 0)
        _, timeline = replay_timeline(snapshot_of(random_cluster(0, "chart")), VolcanoReplayOptions(options))
        assert timeline.sessions > 3
        assert not [o for o in gc.get_objects() if isinstance(o, Proportion)]
    finally:
        gc.enable()


@pytest.mark.parametrize("seed", [5, 30, 61, 83, 191, 298])
def test_vc_water_filling_ends_where_float64_stops_seeing_the_change(seed: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Volcano's water-filling ends when a round leaves every queue's deserved, or what is left, equal as float64
    vectors (proportion.go: reflect.DeepEqual). With a leftover no queue can take (GPUs nobody requests) and a queue
    capped in one dimension, the exact amounts change by ever smaller steps forever: these queue sets looped past
    5,000 rounds before the equalities were judged in float64."""
    total, attrs = _random_queues(seed)
    integers = copy.deepcopy(attrs)
    plugin = _filled_by_fractions(monkeypatch, total, attrs, 500)
    assert len(plugin.rounds) < 100
    assert fill_in_integers(total, integers) == {name for r in plugin.rounds for name in r.deserved}
    for name, attr in integers.items():
        assert attr.deserved == attrs[name].deserved and attr.share == attrs[name].share


def _deserved_and_shares(attrs: dict[str, QueueAttr]) -> dict[str, tuple[dict[str, Any], Any]]:
    dims = ("cpu", "memory", "pods", "nvidia.com/gpu")
    return {name: ({d: attr.deserved.get(d) for d in dims}, attr.share) for name, attr in attrs.items()}


def test_vc_p1_water_filling_in_integers_with_kept_rows_gives_what_a_fresh_fill_gives() -> None:
    """The rows ``fill_in_integers`` keeps per queue (``rows``) are reused only while the queue's vectors are the same
    objects and its weight the same: filling again with them, and after a queue's request, weight or real capability
    was replaced, gives what a fill without kept rows gives."""
    for seed in range(150):
        total, attrs = _random_queues(seed)
        rows: dict[str, tuple[Any, ...]] = {}
        rng = random.Random(seed)
        for step in range(4):
            fresh = copy.deepcopy(attrs)
            assert fill_in_integers(total, attrs, rows) == fill_in_integers(total, fresh), (seed, step)
            assert _deserved_and_shares(attrs) == _deserved_and_shares(fresh), (seed, step)
            changed = attrs[rng.choice(sorted(attrs))]
            what = rng.choice(("request", "weight", "real_capability", "nothing"))
            if what == "request":
                changed.request = Resource(rng.randint(0, 2000), rng.randint(0, 6 * 10**5), {"pods": 3})
            elif what == "weight":
                changed.weight = rng.choice((0, 1, 2, 5))
            elif what == "real_capability":
                changed.real_capability = Resource(rng.randint(0, 3000), rng.randint(0, 10**6))


def test_vc_p1_the_queue_heap_on_keys_gives_queue_orders_order() -> None:
    """Allocate's queue heap on keys (``_ByShare``: higher priority, smaller share, then ``order_key``) gives the
    queues in the order ``PriorityQueue(ssn.queue_less)`` does with proportion's ``queue_order`` as the only queue
    order, queues going back in with a new share as they are served; ties on priority and share included."""
    from datetime import UTC, datetime

    from kqctl.volcano.api.models import Queue
    from kqctl.volcano.engine.allocate import _ByShare
    from kqctl.volcano.engine.framework import PriorityQueue, QueueInfo

    for seed in range(60):
        rng = random.Random(seed)
        stub = SimpleNamespace(filled=True, attrs={})
        queues = []
        for i in range(rng.randint(1, 25)):
            created = datetime(2026, 1, 1, rng.choice((0, 0, 1, 2)), tzinfo=UTC) if rng.random() < 0.7 else None
            info = QueueInfo(Queue(f"q{rng.randint(0, 99):02d}-{i}", priority=rng.choice((0, 0, 1, 5)),
                                   creation=created))
            stub.attrs[info.name] = QueueAttr(info.name, share=rng.choice((0, 0.5, 1.0, rng.random())))
            queues.append(info)

        def less(left: QueueInfo, right: QueueInfo, stub: Any = stub) -> bool:
            compared = Proportion.queue_order(stub, left, right)
            return compared < 0 if compared != 0 else left.order_key() < right.order_key()

        keyed, plain = _ByShare(stub), PriorityQueue(less)  # type: ignore[arg-type]
        for info in queues:
            keyed.push(info)
            plain.push(info)
        for _ in range(3 * len(queues)):
            if plain.empty():
                break
            left, right = keyed.pop(), plain.pop()
            assert left is right, seed
            if rng.random() < 0.6:  # served: its share moves, and it goes back in
                stub.attrs[left.name].share = rng.choice((stub.attrs[left.name].share, rng.random()))
                keyed.push(left)
                plain.push(left)
        assert keyed.empty() == plain.empty()
