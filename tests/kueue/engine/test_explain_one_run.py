"""explain reads its three states off one simulation, and gives the explanation three separate simulations give.

explain describes the inputs as given (the nomination the first cycle would make), the end of the first cycle (what
``simulate --cycles 1`` reports) and the steady state. It used to set up a simulation for each: on 50,000 workloads
a second of set-up. It now takes all three from the run to the steady state (the nomination before it starts, the
decision when the first cycle ends). The reference below is the three-simulation explain; both must give the same
Explanation, suggestions included, for every workload of every Kueue sample, for workloads of seeded random scenarios
and of generated snapshots with preemption in several trees.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine import explain as explain_module
from kqctl.kueue.engine.explain import (
    SUGGESTIONS_TRIED,
    Analysis,
    Explanation,
    _analyse,
    _decision,
    _decision_of,
    _queue_suggestions,
    defaults_behind,
    explain,
    suggestions,
)
from kqctl.kueue.engine.flavors.assignment import FIT
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.engine.verdict import verdict_of
from kqctl.kueue.engine.workloads import WorkloadMemo
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths, load_text
from tests.kueue.engine.random_scenarios import scenario

NOW = datetime(2026, 1, 1, 1, 0, tzinfo=timezone.utc)
OPTIONS = SimulationOptions(now=NOW)
KUEUE_SAMPLES = ["cohort-borrowing", "fair-sharing", "hierarchical-cohorts", "preemption", "replay",
                 "single-clusterqueue", "spot-gpu", "submit-jobs"]


def three_simulations(snapshot: Snapshot, key: str, options: SimulationOptions) -> Explanation:
    """explain as it was: the inputs as given, the first cycle and the steady state each from their own simulation."""
    options = dataclasses.replace(options, memo=options.memo or WorkloadMemo())
    now = Simulation(snapshot, options)
    outcome = now.outcomes[key]
    workload = outcome.workload
    next_cycle = _decision(snapshot, key, dataclasses.replace(options, cycles=1))
    steady = Simulation(snapshot, dataclasses.replace(options, cycles=None))
    steady.run_cycles()
    admitted = workload.admission is not None
    result = Explanation(key, outcome.local_queue, outcome.cluster_queue, workload.priority, admitted,
                         _analyse(now, outcome, reset_clock=True).analysis if not admitted else Analysis(),
                         next_cycle, _decision_of(steady, key),
                         defaults=defaults_behind(snapshot, key, outcome.cluster_queue))
    if result.gets_in:
        return result
    _, nomination = verdict_of(steady, key)
    analysed = _analyse(steady, steady.outcomes[key], reset_clock=False, nomination=nomination)
    result = dataclasses.replace(result, steady=analysed.analysis)
    if analysed.analysis.queue_problem is not None:
        return dataclasses.replace(result, suggestions=tuple(_queue_suggestions(snapshot, key, options)))
    assignment = analysed.assignment
    if assignment is not None and assignment.representative_mode() != FIT:
        state = steady.cache.cluster_queues[steady.outcomes[key].workload.cluster_queue or ""]
        found = suggestions(snapshot, key, options, state, assignment, analysed.targets, steady)
        result = dataclasses.replace(result, suggestions=tuple(found), suggestions_tried=SUGGESTIONS_TRIED)
    return result


def _sample(name: str) -> Snapshot:
    return build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / name)]), NOW)


@cache
def _random(seed: int) -> Snapshot:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": scenario(seed).documents})
    return build_snapshot(load_text(ALL_KINDS, text, f"random-{seed}.json"), NOW)


def _keys(snapshot: Snapshot) -> list[str]:
    return sorted(f"{w.namespace}/{w.name}" for w in snapshot.workloads)


@pytest.mark.parametrize("name", KUEUE_SAMPLES)
def test_every_workload_of_a_sample_is_explained_as_by_three_simulations(name: str) -> None:
    snapshot = _sample(name)
    for key in _keys(snapshot):
        assert explain(snapshot, key, OPTIONS) == three_simulations(snapshot, key, OPTIONS), f"{name}: {key}"


@pytest.mark.parametrize("seed", range(0, 150, 3))
def test_workloads_of_random_scenarios_are_explained_as_by_three_simulations(seed: int) -> None:
    snapshot = _random(seed)
    for key in _keys(snapshot)[seed % 2::2]:
        assert explain(snapshot, key, OPTIONS) == three_simulations(snapshot, key, OPTIONS), f"seed {seed}: {key}"


@pytest.mark.parametrize("gates", ["FlavorFungibilityPreserveScanProgress=true", "PartialAdmission=false"])
def test_feature_gates_read_by_the_first_cycle_give_the_same_explanation(gates: str) -> None:
    from kqctl.kueue.engine.features import FeatureGates

    options = dataclasses.replace(OPTIONS, gates=FeatureGates.parse(gates))
    for seed in range(1, 60, 8):
        snapshot = _random(seed)
        for key in _keys(snapshot)[::3]:
            assert explain(snapshot, key, options) == three_simulations(snapshot, key, options), f"{seed}: {key}"


@pytest.mark.parametrize("arguments", [
    dict(queueing_strategy="BestEffortFIFO"),
    dict(queueing_strategy="StrictFIFO", seed=3),
    dict(within_cluster_queue="LowerOrNewerEqualPriority", seed=5),
    dict(reclaim_within_cohort="LowerPriority", borrowing_limit=4, lending_limit=3, seed=7),
    dict(parent_cohorts=1, seed=9),
    dict(flavors=2, seed=11),
])
def test_generated_snapshots_with_preemption_are_explained_as_by_three_simulations(
        arguments: dict[str, object], tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate_preemption import Shape, generate

    generate(Shape(workloads=40, cohorts=2, queues_per_cohort=2, nominal_cpu=6, spread_ms=60_000, **arguments),
             tmp_path)
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(tmp_path)]), NOW)
    for key in _keys(snapshot)[::5]:
        assert explain(snapshot, key, OPTIONS) == three_simulations(snapshot, key, OPTIONS), key


def test_a_run_without_any_cycle_still_reports_the_first_cycle_as_a_one_cycle_run() -> None:
    # Nothing queued to pop (its LocalQueue is stopped): the run to the steady state makes no cycle, and the first
    # cycle's decision comes from a run of one cycle, as before.
    snapshot = build_snapshot(load_text(ALL_KINDS, _STOPPED, "stopped.yaml"), NOW)
    explained = explain(snapshot, "ns/w", OPTIONS)
    assert explained.next_cycle is not None
    assert explained == three_simulations(snapshot, "ns/w", OPTIONS)


def test_the_first_cycle_is_read_from_the_steady_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # The point of it all: one simulation set up, not three (and no run of one cycle when the steady run makes one).
    built: list[int] = []
    original = explain_module.Simulation.__init__

    def counting(self: Simulation, snapshot: Snapshot, options: SimulationOptions) -> None:
        built.append(len(snapshot.workloads))
        original(self, snapshot, options)

    monkeypatch.setattr(explain_module.Simulation, "__init__", counting)
    snapshot = _sample("single-clusterqueue")
    key = _keys(snapshot)[0]
    explained = explain(snapshot, key, OPTIONS)
    assert explained.gets_in, "a workload without suggestions: the only simulation is explain's own"
    assert built == [len(snapshot.workloads)]


_STOPPED = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq, stopPolicy: Hold}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns, creationTimestamp: "2025-12-31T00:00:00Z", uid: w}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""


def test_no_simulation_outlives_explain_without_the_garbage_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    # kqctl turns the collector off: a simulation kept alive by a reference cycle (the first-cycle hook in its own
    # options) would hold 50,000 workloads through the wait estimate's replay, and one per workload with -l.
    import gc
    import weakref

    made: list[weakref.ref[Simulation]] = []
    original = explain_module.Simulation.__init__

    def tracked(self: Simulation, snapshot: Snapshot, options: SimulationOptions) -> None:
        made.append(weakref.ref(self))
        original(self, snapshot, options)

    monkeypatch.setattr(explain_module.Simulation, "__init__", tracked)
    snapshot = _sample("cohort-borrowing")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for key in _keys(snapshot):
            explain(snapshot, key, OPTIONS)
        assert made and all(ref() is None for ref in made)
    finally:
        if enabled:
            gc.enable()


# --- the checks of completions and policies apart (kqctl explain runs them in a forked copy on large inputs) ---------


def _apart(snapshot: Snapshot, key: str, options: SimulationOptions = OPTIONS) -> bool:
    """Whether the workload's suggestions were checked (partly apart), with the same explanation as alone."""
    from kqctl.cli.forked import checks_apart

    alone = explain(snapshot, key, options)
    if not alone.suggestions_tried:
        return False  # no suggestion was checked: nothing ran apart
    assert explain(snapshot, key, options, checks_apart) == alone, key
    return True


@pytest.mark.parametrize("name", ["cohort-borrowing", "fair-sharing", "preemption", "replay", "single-clusterqueue",
                                  "spot-gpu"])
def test_checks_run_apart_give_the_same_explanation_for_every_sample_workload(name: str) -> None:
    snapshot = _sample(name)
    assert [_apart(snapshot, key) for key in _keys(snapshot)].count(True) >= 1


@pytest.mark.parametrize("seed", range(1, 150, 10))
def test_checks_run_apart_give_the_same_explanation_in_random_scenarios(seed: int) -> None:
    snapshot = _random(seed)
    checked = [_apart(snapshot, key) for key in _keys(snapshot)[::3]]
    assert checked


def test_checks_run_apart_give_the_same_explanation_in_generated_preemption_snapshots(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate_preemption import Shape, generate

    generate(Shape(workloads=40, cohorts=2, queues_per_cohort=2, nominal_cpu=6, spread_ms=60_000,
                   within_cluster_queue="LowerPriority", seed=5), tmp_path)
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(tmp_path)]), NOW)
    assert [_apart(snapshot, key) for key in _keys(snapshot)[::4]].count(True) >= 1


def test_a_copy_that_fails_leaves_the_checks_to_this_process() -> None:
    import os

    from kqctl.cli.forked import checks_apart

    here = os.getpid()

    def check() -> list[object]:
        if os.getpid() != here:
            raise RuntimeError("only in the copy")
        return ["checked here"]

    pending = checks_apart(check)  # type: ignore[arg-type]
    assert pending.result() == ["checked here"]


def test_checks_apart_are_ended_when_explain_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from kqctl.cli import forked

    started: list[tuple[forked._Checks, int]] = []

    def apart(check: object) -> forked._Checks:
        pending = forked.checks_apart(check)  # type: ignore[arg-type]
        started.append((pending, pending.copy.pid))
        return pending

    def failing(*args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(explain_module, "_quota_suggestions", failing)
    snapshot = _sample("preemption")
    for key in _keys(snapshot):
        try:
            explain(snapshot, key, OPTIONS, apart)
        except KeyboardInterrupt:
            break
    assert started, "some workload of the sample has suggestions to check"
    pending, pid = started[-1]
    assert pending.copy.pid == 0  # waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # ended and reaped: no copy left behind


# --- workloads written alike share their pod-set arithmetic and shape (WorkloadMemo) --------------------------------


def _each_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from kqctl.kueue.engine.workloads import DerivedParts

    monkeypatch.setattr(WorkloadMemo, "_alike_parts", lambda self, model, limit_ranges, config: DerivedParts())


def _shared_and_own(monkeypatch: pytest.MonkeyPatch, snapshot: Snapshot, keys: list[str]) -> None:
    shared = [explain(snapshot, key, OPTIONS) for key in keys]
    _each_its_own(monkeypatch)
    own = [explain(snapshot, key, OPTIONS) for key in keys]
    monkeypatch.undo()
    assert shared == own


@pytest.mark.parametrize("name", KUEUE_SAMPLES)
def test_workloads_written_alike_share_their_parts_without_changing_an_explanation(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    snapshot = _sample(name)
    _shared_and_own(monkeypatch, snapshot, _keys(snapshot))


@cache
def _twinned(seed: int) -> Snapshot:
    """A random scenario where every Workload has a twin written alike (shared parts) and one a priority higher."""
    import copy

    documents = scenario(seed).documents
    twins = []
    for document in documents:
        if document.get("kind") != "Workload":
            continue
        for suffix, bump in (("twin", 0), ("higher", 1)):
            twin = copy.deepcopy(document)
            twin["metadata"]["name"] += f"-{suffix}"
            twin["metadata"]["uid"] = twin["metadata"].get("uid", twin["metadata"]["name"]) + f"-{suffix}"
            twin["spec"]["priority"] = (twin["spec"].get("priority") or 0) + bump
            twins.append(twin)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [*documents, *twins]})
    return build_snapshot(load_text(ALL_KINDS, text, f"twinned-{seed}.json"), NOW)


@pytest.mark.parametrize("seed", range(2, 120, 30))
def test_shared_parts_change_no_explanation_of_random_scenarios(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    snapshot = _twinned(seed)
    _shared_and_own(monkeypatch, snapshot, _keys(snapshot)[seed % 7::7])


def test_shared_parts_change_no_explanation_of_a_generated_snapshot(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate_preemption import Shape, generate

    generate(Shape(workloads=30, cohorts=2, queues_per_cohort=2, nominal_cpu=6, spread_ms=60_000, flavors=2,
                   within_cluster_queue="LowerPriority", seed=13), tmp_path)
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(tmp_path)]), NOW)
    _shared_and_own(monkeypatch, snapshot, _keys(snapshot)[::5])


def test_models_written_alike_share_one_set_of_parts_and_others_do_not() -> None:
    snapshot = _twinned(3)
    memo = WorkloadMemo()
    parts = {w.key: memo.parts(w, snapshot.limit_ranges, snapshot.config) for w in snapshot.workloads}
    for first in snapshot.workloads:
        for second in snapshot.workloads:
            alike = (first.namespace, first.priority or 0, repr(first.pod_sets)) == \
                (second.namespace, second.priority or 0, repr(second.pod_sets)) and \
                not (first.admission or second.admission or first.reclaimable_pods or second.reclaimable_pods)
            assert (parts[first.key] is parts[second.key]) is (alike or first is second)
    assert len({id(p) for p in parts.values()}) < len(parts)  # some are shared


def _simulated(snapshot: Snapshot) -> object:
    from kqctl.kueue.engine.simulation import simulate

    return simulate(snapshot, OPTIONS)


@pytest.mark.parametrize("seed", range(5, 200, 13))
def test_simulate_shares_the_parts_of_workloads_written_alike_without_changing_its_result(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    snapshot = _twinned(seed)
    shared = _simulated(snapshot)
    _each_its_own(monkeypatch)
    assert _simulated(snapshot) == shared


@pytest.mark.parametrize("name", KUEUE_SAMPLES)
def test_simulate_of_a_sample_is_the_same_with_parts_shared_or_not(monkeypatch: pytest.MonkeyPatch,
                                                                    name: str) -> None:
    snapshot = _sample(name)
    shared = _simulated(snapshot)
    _each_its_own(monkeypatch)
    assert _simulated(snapshot) == shared


def test_pod_sets_shared_by_models_are_written_out_once() -> None:
    """Models decoded from bodies written alike share their pod-set tuple (kqctl.kueue.load.WorkloadsAhead): the memo
    writes it out (repr) once, and a tuple equal to it but of another model still finds the same parts."""
    snapshot = _twinned(3)
    model = snapshot.workloads[-1]
    same_sets = dataclasses.replace(model, name="other")
    copied = tuple(dataclasses.replace(pod_set) for pod_set in model.pod_sets)
    equal_sets = dataclasses.replace(model, name="third", pod_sets=copied)
    memo = WorkloadMemo()
    parts = [memo.parts(m, snapshot.limit_ranges, snapshot.config) for m in (model, same_sets, equal_sets)]
    assert parts[0] is parts[1] is parts[2]
    assert len(memo._written) == 2  # the shared tuple once, the equal one once


# --- the completion checks on copies of one steady state (explain._SharedSteady) -------------------------------------


def _failing_every(nth: int) -> explain_module.Apart:
    """checks_apart whose every ``nth`` copy fails (1: every one), leaving its check to this process."""
    import os

    from kqctl.cli.forked import checks_apart

    here = os.getpid()
    started = [0]

    def apart(check):  # type: ignore[no-untyped-def]
        started[0] += 1
        fails = started[0] % nth == 0

        def in_copy():  # type: ignore[no-untyped-def]
            if fails and os.getpid() != here:
                raise RuntimeError("this copy fails")
            return check()

        return checks_apart(in_copy)

    return apart  # type: ignore[return-value]


@pytest.mark.parametrize("nth", [1, 2, 3])
@pytest.mark.parametrize("name", ["cohort-borrowing", "preemption", "replay", "spot-gpu"])
def test_completion_checks_made_here_when_a_copy_fails_give_the_same_explanation(name: str, nth: int) -> None:
    # A check made here spends the shared steady state: the checks after it run to the steady state on their own.
    snapshot = _sample(name)
    checked = 0
    for key in _keys(snapshot):
        alone = explain(snapshot, key, OPTIONS)
        if alone.suggestions_tried:
            checked += 1
            assert explain(snapshot, key, OPTIONS, _failing_every(nth)) == alone, key
    assert checked


@pytest.mark.parametrize("seed", range(3, 150, 20))
def test_completion_checks_on_copies_of_one_steady_state_in_random_scenarios(seed: int) -> None:
    snapshot = _random(seed)
    for key in _keys(snapshot)[::3]:
        alone = explain(snapshot, key, OPTIONS)
        assert explain(snapshot, key, OPTIONS, _failing_every(2)) == alone, key
