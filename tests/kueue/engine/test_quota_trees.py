"""explain's checks on one quota tree (kqctl/kueue/engine/quota_trees.py) decide as checks on the whole snapshot.

The reference is explain with every check run on the whole snapshot (tree_scope switched off); the tree-scoped
explain must give the same Explanation, suggestions and all, for every waiting workload of seeded random scenarios
(Kueue's own generator's shapes, several cohorts) and of a generated snapshot with many trees.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine import explain as explain_module
from kqctl.kueue.engine.explain import explain
from kqctl.kueue.engine.quota_trees import tree_scope
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths, load_text
from tests.kueue.engine.random_scenarios import scenario

NOW = datetime(2026, 1, 1, 1, 0, tzinfo=timezone.utc)
OPTIONS = SimulationOptions(now=NOW)


def _waiting(snapshot: Snapshot) -> list[str]:
    sim = Simulation(snapshot, OPTIONS)
    sim.run_cycles()
    return sorted(k for k, o in sim.outcomes.items() if o.workload.admission is None)


def _both(snapshot: Snapshot, key: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    scoped = explain(snapshot, key, OPTIONS)
    with monkeypatch.context() as patch:
        patch.setattr(explain_module, "tree_scope", lambda steady, name: None)
        whole = explain(snapshot, key, OPTIONS)
    return scoped, whole


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_checks_on_the_workloads_tree_give_the_explanation_of_checks_on_the_whole(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, scenario(seed).text(), "random.yaml"), NOW)
    for key in _waiting(snapshot)[:4]:
        scoped, whole = _both(snapshot, key, monkeypatch)
        assert scoped == whole, f"seed {seed}, {key}"


def test_a_snapshot_of_many_trees_explains_the_same_on_one_tree(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate_preemption import Shape, generate

    generate(Shape(workloads=160, cohorts=3, queues_per_cohort=3, nominal_cpu=8, spread_ms=1), tmp_path)
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(tmp_path)]), NOW)
    waiting = _waiting(snapshot)
    assert len(waiting) > 40
    steady = Simulation(snapshot, OPTIONS)
    steady.run_cycles()
    assert tree_scope(steady, "cq-0-0") is not None, "the generated trees are independent"
    for key in waiting[::15]:
        scoped, whole = _both(snapshot, key, monkeypatch)
        assert scoped == whole, key


CROSSING = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  cohortName: one
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec:
  cohortName: two
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: LQ_TARGET}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns, creationTimestamp: "2025-12-31T00:00:00Z", uid: w}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m,
                lastTransitionTime: "2025-12-31T00:00:00Z"}]
  admission:
    clusterQueue: a
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: "1"}}]
"""


@pytest.mark.parametrize(("target", "separate"), [("a", True), ("b", False)])
def test_a_workload_holding_quota_in_one_tree_and_queued_to_another_joins_them(target: str, separate: bool) -> None:
    """Evicted, it would go back to its LocalQueue's ClusterQueue in the other tree: the trees are not separate."""
    snapshot = build_snapshot(load_text(ALL_KINDS, CROSSING.replace("LQ_TARGET", target), "crossing.yaml"), NOW)
    steady = Simulation(snapshot, OPTIONS)
    steady.run_cycles()
    assert (tree_scope(steady, "a") is not None) == separate


def test_topology_aware_flavors_join_every_tree() -> None:
    """TAS places pods on nodes that every tree's flavors may share: no run of one tree alone."""
    text = CROSSING.replace("LQ_TARGET", "a").replace("metadata: {name: f}\n",
                                                       "metadata: {name: f}\nspec: {topologyName: t}\n", 1)
    text += """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status: {allocatable: {cpu: "8", pods: "10"}}
"""
    snapshot = build_snapshot(load_text(ALL_KINDS, text, "tas.yaml"), NOW)
    steady = Simulation(snapshot, OPTIONS)
    steady.run_cycles()
    assert steady.cache.tas.flavors and tree_scope(steady, "a") is None
