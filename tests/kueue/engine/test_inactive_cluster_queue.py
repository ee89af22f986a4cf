"""XO-1 / XO-3: a ClusterQueue Kueue leaves out of its scheduling snapshot keeps its workloads running,
lends its unused quota to the cohort, but its workloads are neither in Kueue's `admitted` view nor
preemption candidates for other ClusterQueues."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.outcomes import HELD_INACTIVE
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.render.simulation import contract
from kqctl.load.objects import load_text

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
SINCE = 'lastTransitionTime: "2025-12-31T00:00:00Z"'


def manifests(stop_policy: str) -> str:
    def cq(name: str, stop: str, within: str) -> str:
        return f"""
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  cohortName: co
  namespaceSelector: {{}}
  stopPolicy: {stop}
  preemption: {{reclaimWithinCohort: Any, withinClusterQueue: {within}}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{name: cpu, nominalQuota: "4"}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq-{name}, namespace: ns}}
spec: {{clusterQueue: {name}}}
---"""

    def workload(name: str, queue: str, cpu: str, priority: int, admitted_in: str | None) -> str:
        status = "" if admitted_in is None else f"""
status:
  admission:
    clusterQueue: {admitted_in}
    podSetAssignments:
    - {{name: main, count: 1, flavors: {{cpu: default}}, resourceUsage: {{cpu: "{cpu}"}}}}
  conditions:
  - {{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, {SINCE}}}
  - {{type: Admitted, status: "True", reason: Admitted, message: m, {SINCE}}}"""
        return f"""
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "2025-12-31T00:00:00Z"}}
spec:
  queueName: {queue}
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: "{cpu}"}}}}{status}
---"""

    return "\n".join([
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---",
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---",
        cq("held", stop_policy, "Never"),
        cq("busy", "None", "Never"),
        # `held` lends 2 of its 4 cpu to `busy`'s running workload ...
        workload("running-held", "lq-held", "2", 0, "held"),
        workload("borrower", "lq-busy", "6", 0, "busy"),
        # ... and `held` cannot reclaim them while it is stopped.
        workload("waiting", "lq-held", "2", 100, None),
    ])


def run(stop_policy: str) -> tuple[dict, dict]:
    snapshot = build_snapshot(load_text(ALL_KINDS, manifests(stop_policy), "inline.yaml"), NOW)
    result = simulate(snapshot, SimulationOptions(cycles=1, now=NOW))
    return contract(result), {key: workload.state for key, workload in result.workloads.items()}


@pytest.mark.parametrize("stop_policy", ["Hold", "HoldAndDrain"])
def test_xo_1_stopped_cluster_queue_workloads_are_outside_kueues_admitted_view(stop_policy: str) -> None:
    data, decisions = run(stop_policy)
    assert "ns/running-held" not in data["admitted"]
    assert data["admittedInInactiveClusterQueues"] == ["ns/running-held"]
    assert decisions["ns/running-held"] == HELD_INACTIVE
    # its borrowed-from quota is still counted: the active sibling's workload stays admitted
    assert "ns/borrower" in data["admitted"]


def test_xo_1_active_cluster_queue_workloads_are_in_the_admitted_view() -> None:
    data, decisions = run("None")
    assert "ns/running-held" in data["admitted"]
    assert data["admittedInInactiveClusterQueues"] == []
    assert decisions["ns/running-held"] == "Admitted"
