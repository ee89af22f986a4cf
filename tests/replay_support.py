"""Small Kueue clusters written inline, for replay tests: ClusterQueues, LocalQueues, Workloads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_text

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def stamp(offset_ms: int) -> str:
    moment = START + timedelta(milliseconds=offset_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class CQ:
    name: str
    cpu: str
    cohort: str | None = None
    strategy: str = "BestEffortFIFO"
    within: str = "Never"
    reclaim: str = "Never"
    borrowing_limit: str | None = None


@dataclass(frozen=True)
class WL:
    name: str
    cq: str
    cpu: str
    created_ms: int = 0
    priority: int = 0
    runtime: str | None = None
    admitted_ms: int | None = None  # already running at the start (admitted then)
    requeue_at_ms: int | None = None  # status.requeueState.requeueAt (back-off)


def manifests(queues: list[CQ], workloads: list[WL]) -> str:
    docs = ["apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}",
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}"]
    for q in queues:
        cohort = f"\n  cohortName: {q.cohort}" if q.cohort else ""
        limit = f", borrowingLimit: \"{q.borrowing_limit}\"" if q.borrowing_limit else ""
        docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {q.name}}}
spec:{cohort}
  namespaceSelector: {{}}
  queueingStrategy: {q.strategy}
  preemption: {{reclaimWithinCohort: {q.reclaim}, withinClusterQueue: {q.within}}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{name: cpu, nominalQuota: "{q.cpu}"{limit}}}]""")
        docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {q.name}, namespace: ns}}
spec: {{clusterQueue: {q.name}}}""")
    for w in workloads:
        docs.append(_workload(w))
    return "\n---\n".join(docs) + "\n"


def _workload(w: WL) -> str:
    annotations = f"\n  annotations: {{kqctl.dev/runtime: \"{w.runtime}\"}}" if w.runtime else ""
    status = ""
    if w.admitted_ms is not None:
        since = stamp(w.admitted_ms)
        status = f"""
status:
  admission:
    clusterQueue: {w.cq}
    podSetAssignments:
    - {{name: main, count: 1, flavors: {{cpu: default}}, resourceUsage: {{cpu: "{w.cpu}"}}}}
  conditions:
  - {{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "{since}"}}
  - {{type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "{since}"}}"""
    elif w.requeue_at_ms is not None:
        status = f"""
status:
  requeueState: {{count: 1, requeueAt: "{stamp(w.requeue_at_ms)}"}}"""
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: {w.name}
  namespace: ns
  uid: uid-{w.name}
  creationTimestamp: "{stamp(w.created_ms)}"{annotations}
spec:
  queueName: {w.cq}
  priority: {w.priority}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: "{w.cpu}"}}}}{status}"""


def snapshot(queues: list[CQ], workloads: list[WL]) -> Snapshot:
    return build_snapshot(load_text(ALL_KINDS, manifests(queues, workloads), "inline.yaml"), START)
