"""Random differential tests: generated scenarios (tests/kueue/engine/random_scenarios.py) must satisfy the
invariants of Kueue's admission, and so must the decisions the real Kueue recorded.

Each invariant is a test named after it, citing the rules it checks (see `kqctl rules`). Quotas are
compared per ClusterQueue, flavor and resource, recomputed here from the admitted workloads rather
than read from the engine's own accounting.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime, timezone
from functools import cache
from typing import Any

import pytest
import yaml

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.k8s.quantity import parse_quantity, resource_value
from kqctl.kueue.api.versions import convert
from kqctl.kueue.engine.results import SimulationResult
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.render.simulation import contract
from kqctl.load.objects import load_text
from tests.conformance_cases import cases
from tests.kueue.engine.random_scenarios import scenario

SEEDS = range(120)
NOW = datetime(2026, 1, 1, 1, 0, tzinfo=timezone.utc)
STEADY = SimulationOptions(now=NOW)
ONE_CYCLE = SimulationOptions(now=NOW, cycles=1)

FR = tuple[str, str]


def _run(text: str, options: SimulationOptions) -> tuple[Simulation, SimulationResult]:
    """The frozen result, and the simulation whose quota tree the invariants are checked against."""
    sim = Simulation(build_snapshot(load_text(ALL_KINDS, text, "random.yaml"), NOW), options)
    return sim, sim.run()


@cache
def _steady(seed: int) -> tuple[Simulation, SimulationResult]:
    return _run(scenario(seed).text(), STEADY)


def _amount(resource: str, text: Any) -> int:
    return resource_value(resource, parse_quantity(text))


def _usage_from_admissions(data: dict[str, Any]) -> dict[str, dict[FR, int]]:
    """Per ClusterQueue and (flavor, resource): the sum of what its admitted workloads were assigned."""
    usage: dict[str, dict[FR, int]] = {}
    for admission in data["admitted"].values():
        per_queue = usage.setdefault(admission["clusterQueue"], {})
        for pod_set in admission["podSetAssignments"]:
            for resource, text in pod_set["resourceUsage"].items():
                flavor = pod_set["flavors"].get(resource)
                if flavor is not None:
                    key = (flavor, resource)
                    per_queue[key] = per_queue.get(key, 0) + _amount(resource, text)
    return usage


def _results() -> Iterator[tuple[int, Simulation, dict[str, Any]]]:
    for seed in SEEDS:
        sim, result = _steady(seed)
        yield seed, sim, contract(result)


def test_no_cluster_queue_uses_more_than_nominal_plus_borrowing_limit_q2_q5() -> None:
    for seed, sim, data in _results():
        for name, usage in _usage_from_admissions(data).items():
            node = sim.cache.cluster_queues[name].node
            for fr, used in usage.items():
                limits = node.limits(fr)
                if limits.borrowing_limit is not None:
                    assert used <= limits.nominal + limits.borrowing_limit, (seed, name, fr)


def test_a_cohort_tree_never_uses_more_than_its_quota_q1_q5() -> None:
    for seed, sim, data in _results():
        usage = _usage_from_admissions(data)
        roots: dict[str, dict[FR, int]] = {}
        for name, per_fr in usage.items():
            root = sim.cache.root_of(sim.cache.cluster_queues[name])
            for fr, used in per_fr.items():
                roots.setdefault(root.name, {})[fr] = roots.get(root.name, {}).get(fr, 0) + used
        for root_name, per_fr in roots.items():
            root = next(r for r in _roots(sim) if r.name == root_name)
            for fr, used in per_fr.items():
                assert used <= _total_nominal(root, fr), (seed, root_name, fr, used)


def _roots(sim: Simulation) -> list[Any]:
    return [sim.cache.root_of(state) for state in sim.cache.cluster_queues.values()]


def _total_nominal(node: Any, fr: FR) -> int:
    """All nominal quota in a tree (a node's `subtree` counts only what its children may lend, Q-1)."""
    own = node.limits(fr).nominal if fr in node.quotas else 0
    return own + sum(_total_nominal(child, fr) for child in node.children)


def test_lending_limits_hold_what_others_may_borrow_q1() -> None:
    # In a flat cohort, a ClusterQueue's usage beyond its non-lendable part comes from the others'
    # lendable quota: sum of (usage - (nominal - lendable)) over members <= sum of lendable.
    for seed, sim, data in _results():
        usage = _usage_from_admissions(data)
        by_cohort: dict[str, list[str]] = {}
        for name, state in sim.cache.cluster_queues.items():
            parent = state.model.cohort
            if parent:
                by_cohort.setdefault(parent, []).append(name)
        for cohort, members in by_cohort.items():
            root = sim.cache.root_of(sim.cache.cluster_queues[members[0]])
            if root.name != cohort or any(child.is_cohort for child in root.children) or root.quotas:
                continue  # hierarchical or quota-holding cohorts: the tree check above covers them
            for fr in {fr for m in members for fr in usage.get(m, {})}:
                over, pool = 0, 0
                for member in members:
                    limits = sim.cache.cluster_queues[member].node.limits(fr)
                    lendable = limits.nominal if limits.lending_limit is None else min(limits.lending_limit,
                                                                                        limits.nominal)
                    over += max(0, usage.get(member, {}).get(fr, 0) - (limits.nominal - lendable))
                    pool += lendable
                assert over <= pool, (seed, cohort, fr)


def test_usage_accounting_matches_the_admitted_workloads_q7() -> None:
    for seed, sim, data in _results():
        expected = _usage_from_admissions(data)
        for name, state in sim.cache.cluster_queues.items():
            if not state.active:
                continue
            for fr in state.node.quotas:
                assert state.usage(fr) == expected.get(name, {}).get(fr, 0), (seed, name, fr)


def test_each_workload_ends_in_exactly_one_state_cyc() -> None:
    for seed, _, data in _results():
        admitted = set(data["admitted"]) | set(data["admittedInInactiveClusterQueues"])
        queued = {k for keys in [*data["pending"].values(), *data["inadmissible"].values()] for k in keys}
        assert not admitted & queued, seed
        assert admitted | queued <= set(data["workloads"]), seed
        assert set(data["workloads"]) - admitted - queued == {
            k for k, w in data["workloads"].items() if w["decision"] == "NotQueued"}, seed


def test_victims_only_where_a_preemption_policy_allows_them_pre2() -> None:
    for seed, sim, data in _results():
        for key, entry in data["workloads"].items():
            preemptor_cq = entry["clusterQueue"]
            policy = sim.cache.cluster_queues[preemptor_cq].model.preemption
            for victim in entry["victims"]:
                victim_entry = data["workloads"][victim]
                if victim_entry["clusterQueue"] == preemptor_cq:
                    assert policy.within_cluster_queue != "Never", (seed, key, victim)
                    assert victim_entry["priority"] <= entry["priority"], (seed, key, victim)
                else:
                    borrow = policy.borrow_within_cohort.policy if policy.borrow_within_cohort else "Never"
                    assert policy.reclaim_within_cohort != "Never" or borrow != "Never", (seed, key, victim)


def test_inactive_cluster_queues_admit_nothing_new_xo1() -> None:
    for seed, sim, data in _results():
        for key, entry in data["workloads"].items():
            state = sim.cache.cluster_queues.get(entry["clusterQueue"] or "")
            if state is not None and not state.active:
                assert entry["admittedInCycle"] is None, (seed, key)


def test_same_input_same_result_and_document_order_does_not_matter_cyc2() -> None:
    for seed in range(0, 120, 4):
        built = scenario(seed)
        first = json.dumps(contract(_steady(seed)[1]), sort_keys=True, default=str)
        again = json.dumps(contract(_run(built.text(), STEADY)[1]), sort_keys=True, default=str)
        assert first == again, seed
        order = list(range(len(built.documents)))
        random.Random(seed).shuffle(order)
        shuffled = contract(_run(built.text(order), STEADY)[1])
        assert _decisions(shuffled) == _decisions(contract(_steady(seed)[1])), seed


def _decisions(data: dict[str, Any]) -> dict[str, Any]:
    return {k: (w["decision"], w["admission"]) for k, w in data["workloads"].items()}


def test_v1beta1_and_v1beta2_inputs_give_the_same_decisions_api1_api2() -> None:
    for seed in range(0, 120, 4):
        documents = scenario(seed).documents
        v1beta1 = [convert(doc, "v1beta1").body for doc in documents]
        old = contract(_run(yaml.safe_dump_all(v1beta1, sort_keys=False), STEADY)[1])
        assert _decisions(old) == _decisions(contract(_steady(seed)[1])), seed


def test_one_cycle_respects_the_same_quota_invariants_q5() -> None:
    for seed in range(0, 120, 3):
        sim, result = _run(scenario(seed).text(), ONE_CYCLE)
        data = contract(result)
        for name, usage in _usage_from_admissions(data).items():
            node = sim.cache.cluster_queues[name].node
            for fr, used in usage.items():
                limits = node.limits(fr)
                if limits.borrowing_limit is not None:
                    assert used <= limits.nominal + limits.borrowing_limit, (seed, name, fr)


# --- the same invariants hold for the real Kueue's recorded decisions ---------------------------------------

RECORDED = [c for c in cases("schedule", "fair-sharing", "random", "concurrent-admission")
            if c.expected.get("admitted") is not None]


@pytest.mark.parametrize("case", RECORDED, ids=[str(c) for c in RECORDED])
def test_recorded_decisions_satisfy_the_borrowing_limit_invariant(case: Any) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, case.snapshot.read_text(), str(case.snapshot)), NOW)
    sim = Simulation(snapshot, SimulationOptions(now=NOW, cycles=1))  # only for the quota tree
    usage = _usage_from_admissions({"admitted": case.expected["admitted"]})
    for name, per_fr in usage.items():
        state = sim.cache.cluster_queues.get(name)
        if state is None:
            continue
        for fr, used in per_fr.items():
            limits = state.node.limits(fr)
            if limits.borrowing_limit is not None:
                assert used <= limits.nominal + limits.borrowing_limit, (name, fr)
