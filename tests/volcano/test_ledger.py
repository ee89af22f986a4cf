"""The sums a session's plugins open with, kept in the cache between sessions (kqctl/volcano/engine/ledger.py): after
every replay event (VC-R2 arrivals, VC-R3 completions, VC-R4 evictions and re-created pods) they equal the sums
proportion, overcommit and drf (VC-DRF-1) work out afresh over every job and node, dimensions included."""

from __future__ import annotations

from typing import Any

from kqctl.replay.durations import parse_distribution
from kqctl.replay.protocol import CycleReport, Reporter
from kqctl.replay.run import replay as run_replay
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.changes import finish_group
from kqctl.volcano.engine.framework import Plugin, Session
from kqctl.volcano.engine.ledger import ResourceSum
from kqctl.volcano.engine.overcommit import reserved
from kqctl.volcano.engine.proportion import Proportion
from kqctl.volcano.engine.queue_attr import QueueAttr, add_job_usage
from kqctl.volcano.engine.session import Cache, build_cache
from kqctl.volcano.engine.simulation import initial_world
from kqctl.volcano.replay.report import VolcanoReplayOptions, replay_snapshot
from kqctl.volcano.replay.timeline import TimelineOptions, VolcanoTimeline
from tests.volcano.builders import conf, group, pod, snapshot
from tests.volcano.builders import node as plain_node
from tests.volcano.test_replay import START, bare_group, configmap, node, queue, snapshot_of, times, vcjob

CONF = """actions: "enqueue, allocate, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def same(left: Resource, right: Resource) -> bool:
    """Equal amounts and the same dimensions (Resource's == reads a missing scalar as 0)."""
    return left == right and set(left.scalars) == set(right.scalars)


def gpu_job(name: str, queue_name: str, at: str, runtime: str) -> dict[str, Any]:
    job = vcjob(name, queue_name, 1, 1, at=at, runtime=runtime)
    requests = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]
    requests["nvidia.com/gpu"] = "1"
    return job


def cluster() -> list[dict[str, Any]]:
    """Two queues on two nodes (one with GPUs): a job holding the first node is reclaimed from (RestartJob, so its
    pods are made again), a GPU job comes and goes, bare pods are deleted for good, jobs arrive and finish."""
    gpu_node = node("n2")
    gpu_node["status"]["allocatable"]["nvidia.com/gpu"] = "2"
    return [configmap(CONF), node("n1"), gpu_node, queue("a"), queue("b"),
            vcjob("big", "a", 6, 1, runtime="1h", policies=[{"event": "PodEvicted", "action": "RestartJob"}]),
            *bare_group("bare", "a", 2, bound_to="n1"),
            gpu_job("gpu", "b", "00:05:00", "20m"),
            vcjob("late", "b", 2, 2, at="00:10:00", runtime="30m"),
            vcjob("later", "a", 3, 3, at="00:40:00", runtime="15m")]


class CheckedTimeline(VolcanoTimeline):
    """After every session, the cache's ledgers brought up to date (as the next session's opening does) and
    compared with the sums worked out afresh."""

    checks = 0

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        report = super().cycle(now, reporter)
        self.check()
        return report

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        answer = super().complete(key, now, reporter)
        self.check()
        return answer

    def check(self) -> None:
        cache = self.cache
        nodes = cache.node_ledger()
        changed = nodes.open()  # what run_cached does as the next session opens
        if cache.node_chooser is not None:
            cache.node_chooser.stale |= changed
        used = Resource()
        for node_info in nodes.node_list:
            used.add(node_info.used)
            assert node_info.scored.requested == node_info.on_node.requested  # kube-scheduler's view renewed
        assert same(nodes.used, used)
        ledger = cache.job_ledger()
        ledger.open()
        fresh: dict[str, QueueAttr] = {}
        inqueue = Resource()
        for key in sorted(cache.jobs):
            job = cache.jobs[key]
            add_job_usage(fresh.setdefault(job.queue, QueueAttr(job.queue)), job)
            inqueue.add(reserved(job))
            assert same(ledger.drf_allocated[key], job.allocated)
        assert set(ledger.drf_allocated) == set(cache.jobs)
        assert sorted(ledger.queues) == sorted(fresh)
        for name, attr in fresh.items():
            kept = ledger.queues[name]
            for part, shared in zip(("allocated", "request", "inqueue", "elastic"), kept.values(), strict=True):
                assert same(getattr(kept, part).value(), getattr(attr, part)), (name, part)
                assert same(shared, getattr(attr, part)), (name, part)  # (no session changed the shared sums)
        assert same(ledger.inqueue.value(), inqueue)
        placing: dict[str, set[str]] = {}  # allocate's jobs: a pending task, not Pending
        for key, job in cache.jobs.items():
            if job.by_status.get("Pending") and not job.is_pending():
                placing.setdefault(job.queue, set()).add(key)
        assert ledger.placing == placing
        by_shape: dict[int, dict[str, list[Any]]] = {}  # allocate's shapes by shape: the same entries
        for name, table in ledger.shapes.items():
            for shape, entry in table.items():
                by_shape.setdefault(shape, {})[name] = entry
        assert ledger.holders == by_shape
        assert all(entry is ledger.shapes[name][shape] for shape, held in ledger.holders.items()
                   for name, entry in held.items())
        for keys in (set(cache.jobs), set(list(cache.jobs)[::3]), {"gone/job", *list(cache.jobs)[:1]}):
            assert cache.in_order(keys) == [job for job in cache.jobs.values() if job.key in keys]
        type(self).checks += 1


def test_vc_r2_r3_r4_the_kept_sums_equal_fresh_sums_after_every_session_and_completion() -> None:
    snapshot = snapshot_of(cluster())
    options = TimelineOptions(START, 1000, parse_distribution("10m"), 0)
    CheckedTimeline.checks = 0
    checked = run_replay(CheckedTimeline(snapshot, options))
    assert CheckedTimeline.checks > 5
    plain = replay_snapshot(snapshot_of(cluster()), VolcanoReplayOptions(options))
    assert any(e.outcome.startswith("RestartJob") for e in plain.evictions)  # the scenario has evictions
    assert {w.key: (w.admitted, w.finished, w.evictions) for w in checked.workloads} == \
        {k: v[1:] for k, v in times(plain).items()}  # checking (and opening early) changes nothing


def test_resource_sum_drops_a_dimension_no_member_holds_any_more() -> None:
    total = ResourceSum()
    gpu = Resource(1000, 10, {"nvidia.com/gpu": 1000})
    plain = Resource(500, 5)
    total.add(gpu)
    total.add(plain)
    assert same(total.value(), Resource(1500, 15, {"nvidia.com/gpu": 1000}))
    total.remove(gpu)
    assert same(total.value(), Resource(500, 5))  # a fresh sum of what is left has no GPU dimension
    zero_gpu = Resource(0, 0, {"nvidia.com/gpu": 0})
    total.add(zero_gpu)
    assert same(total.value(), Resource(500, 5, {"nvidia.com/gpu": 0}))  # a member holding it at 0 keeps it


# --- proportion's water-filling kept while its inputs stay the same ---------------------------------------------


def _proportion(snap: Snapshot, cache: Cache, kept: bool) -> Proportion:
    ssn = Session(snap.conf, cache.queues, cache.jobs, cache.nodes)
    if kept:
        ssn.job_sums = cache.job_ledger()
        ssn.job_sums.open()
    option = snap.conf.plugin("proportion")
    assert option is not None
    return Proportion(ssn, Plugin(option))


def _outcome(plugin: Proportion) -> tuple[object, ...]:
    return (sorted((name, attr.deserved.as_dict(), attr.share) for name, attr in plugin.attrs.items()),
            [(r.remaining.as_dict(), r.total_weight, {k: v.as_dict() for k, v in r.deserved.items()}, r.met)
             for r in plugin.rounds])


def test_p_water_filling_reused_while_requests_are_the_same_and_redone_when_one_changes() -> None:
    """Example A (weights 1/2/3 on 12 cores, requests 1/20/6, b running 2 of its pods): the water-filling an earlier
    session left is the fresh one while no request changed; a job gone (VC-R3) changes b's request and the rounds."""
    snap = snapshot(conf("enqueue", ["proportion"]), plain_node("n1", cpu="12", memory="64Gi"),
                    queue("a", 1), queue("b", 2), queue("c", 3),
                    group("ga", "a", phase="Pending"), pod("pa", "ga", cpu="1", memory="0"),
                    group("gb", "b", phase="Running"), pod("pb", "gb", cpu="10", memory="0", node_name="n1"),
                    group("gb2", "b", phase="Pending"), pod("pb2", "gb2", cpu="10", memory="0"),
                    group("gc", "c", phase="Pending"), pod("pc", "gc", cpu="6", memory="0"))
    cache = build_cache(snap, initial_world(snap))
    fresh = _outcome(_proportion(snap, cache, kept=False))
    assert _outcome(_proportion(snap, cache, kept=True)) == fresh
    memo = cache.job_ledger().water_fill
    assert memo is not None
    assert _outcome(_proportion(snap, cache, kept=True)) == fresh and cache.job_ledger().water_fill is memo  # reused
    finish_group(cache, "ns/gb2")
    changed = _outcome(_proportion(snap, cache, kept=True))
    assert changed == _outcome(_proportion(snap, cache, kept=False)) and changed != fresh
