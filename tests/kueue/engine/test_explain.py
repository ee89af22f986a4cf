"""explain: queue-level causes, position, preemption verdicts and verified suggestions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.explain import UnknownWorkload, admitted_after, explain, resolve_key, with_nominal_increases
from kqctl.kueue.engine.simulation import SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_text

NOW = SimulationOptions(now=datetime(2026, 1, 1, tzinfo=timezone.utc))

BASE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  queueingStrategy: STRATEGY
  PREEMPTION
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
"""
WL = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "2025-12-31T00:00:0{second}Z", uid: {name}}}
spec:
  queueName: {queue}
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
"""
ADMITTED = """status:
  conditions: [{{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m,
                lastTransitionTime: "2025-12-31T00:00:00Z"}}]
  admission:
    clusterQueue: cq
    podSetAssignments: [{{name: main, count: 1, flavors: {{cpu: f}}, resourceUsage: {{cpu: "{cpu}"}}}}]
"""


def snapshot(*workloads: str, strategy: str = "BestEffortFIFO", preemption: str = "") -> Snapshot:
    text = BASE.replace("STRATEGY", strategy).replace("PREEMPTION", preemption) + "".join(workloads)
    return build_snapshot(load_text(ALL_KINDS, text))


def wl(name: str, cpu: str, priority: int = 0, second: int = 0, queue: str = "lq", admitted: bool = False) -> str:
    text = WL.format(name=name, cpu=cpu, priority=priority, second=second, queue=queue)
    return text + (ADMITTED.format(cpu=cpu) if admitted else "")


def test_missing_local_queue_is_the_reason_before_any_flavor() -> None:
    explanation = explain(snapshot(wl("w", "1", queue="nope")), "ns/w", NOW)
    assert explanation.now.queue_problem == ("Misconfigured", "LocalQueue nope doesn't exist")
    assert explanation.now.assignment is None


def test_fitting_workload_has_a_fit_assignment_and_no_suggestions() -> None:
    explanation = explain(snapshot(wl("w", "1")), "ns/w", NOW)
    assert explanation.now.assignment is not None and explanation.now.assignment.mode == "Fit"
    assert explanation.next_cycle is not None and explanation.next_cycle.state == "Admitted"
    assert explanation.suggestions == ()


def test_quota_arithmetic_is_shown_per_flavor_and_resource() -> None:
    explanation = explain(snapshot(wl("big", "3", admitted=True), wl("w", "2")), "ns/w", NOW)
    [report] = explanation.now.flavors
    [check] = report.checks
    assert (check.requested, check.nominal, check.usage, check.available, check.potential) == (2000, 4000, 3000,
                                                                                                 1000, 4000)
    assert report.reasons == ("insufficient unused quota for cpu in flavor f, 1 more needed",)


def test_workloads_ahead_are_named_with_why_and_strict_fifo_blocks() -> None:
    explanation = explain(snapshot(wl("first", "3", priority=5), wl("w", "1")), "ns/w", NOW)
    assert [(a.key, a.why) for a in explanation.now.ahead] == [("ns/first", "higher priority (5 > 0)")]
    assert explanation.now.blocked_by is None
    strict = explain(snapshot(wl("first", "3", priority=5), wl("w", "1"), strategy="StrictFIFO"), "ns/w", NOW)
    assert strict.now.blocked_by == "ns/first"


def test_preemption_verdicts_name_the_policy_that_forbids_them() -> None:
    explanation = explain(snapshot(wl("low", "4", admitted=True), wl("w", "2", priority=10)), "ns/w", NOW)
    verdicts = [(c.key, c.verdict) for c in explanation.now.candidates]
    assert verdicts == [("ns/low", "not allowed: withinClusterQueue is Never")]


def test_suggestions_are_each_verified_by_running_the_engine_again() -> None:
    snap = snapshot(wl("low", "3", admitted=True), wl("w", "2", priority=10))
    explanation = explain(snap, "ns/w", NOW)
    kinds = {s.kind: s for s in explanation.suggestions}
    assert kinds["nominal-quota"].details["increase"] == {"cpu": "1"}
    assert kinds["completion"].details["workload"] == "ns/low"
    assert "withinClusterQueue: LowerPriority" in kinds["policy"].summary
    assert all(s.verified for s in explanation.suggestions)


def test_the_smallest_quota_increase_is_really_the_smallest() -> None:
    snap = snapshot(wl("low", "3", admitted=True), wl("w", "2"))
    assert admitted_after(with_nominal_increases(snap, "cq", "f", {"cpu": 1000}), "ns/w", NOW)
    assert not admitted_after(with_nominal_increases(snap, "cq", "f", {"cpu": 999}), "ns/w", NOW)


def test_a_workload_larger_than_the_whole_quota_only_gets_a_quota_suggestion() -> None:
    explanation = explain(snapshot(wl("w", "100")), "ns/w", NOW)
    assert [s.kind for s in explanation.suggestions] == ["nominal-quota"]


def test_resolve_key_accepts_a_job_name_and_rejects_unknown_ones() -> None:
    snap = snapshot(wl("job-train-1a2b3", "1"))
    assert resolve_key(snap, "ns/train") == "ns/job-train-1a2b3"
    with pytest.raises(UnknownWorkload):
        resolve_key(snap, "ns/nothing")


def test_sim_8_a_run_cut_short_by_the_cycle_limit_is_not_called_the_steady_state() -> None:
    import dataclasses
    import io

    from kqctl.kueue.render.explain import render_explanation

    workloads = [wl(f"w{i}", f"{1000 + i}m", second=i) for i in range(6)]
    explanation = explain(snapshot(*workloads), "ns/w5", dataclasses.replace(NOW, max_cycles=2))
    assert explanation.steady_state is not None and explanation.steady_state.cut_short is not None
    out = io.StringIO()
    render_explanation(explanation, "table", out, color="never")
    assert "Steady state" not in out.getvalue().split("\n")[1] and "End of the run: Pending" in out.getvalue()
    assert "before reaching a steady state" in out.getvalue()
    steady = explain(snapshot(*workloads), "ns/w5", NOW)
    assert steady.steady_state is not None and steady.steady_state.cut_short is None


def test_the_preemption_list_shows_the_first_ten_and_counts_the_rest() -> None:
    import io

    from kqctl.kueue.render.explain import render_explanation

    holders = [wl(f"h{i:02d}", "100m", second=0, admitted=True) for i in range(30)]
    explanation = explain(snapshot(*holders, wl("w", "2", priority=0, second=1)), "ns/w", NOW)
    out = io.StringIO()
    render_explanation(explanation, "table", out, color="never")
    text = out.getvalue()
    assert explanation.steady is not None and len(explanation.steady.candidates) == 30
    assert "ns/h09 in cq" in text and "ns/h10 in cq" not in text and "and 20 more" in text
