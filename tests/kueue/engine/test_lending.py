"""Borrowed and lent: kqctl's attributions of a cohort's borrowing (kqctl.kueue.engine.lending; Q-1, Q-2, Q-7)."""

from __future__ import annotations

from datetime import datetime, timezone

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.lending import borrowed_by_workload, lent_by_cluster_queue
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_text

NOW = SimulationOptions(now=datetime(2026, 1, 1, tzinfo=timezone.utc))
FLAVOR = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
"""
QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  namespaceSelector: {{}}
  {cohort}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: f, resources: [{{name: cpu, nominalQuota: "{nominal}"{lending}}}]}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {name}, namespace: ns}}
spec: {{clusterQueue: {name}}}
"""
WORKLOAD = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, uid: {name}}}
spec:
  queueName: {queue}
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
"""
COHORT_WITH_QUOTA = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: pool}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]
"""


def queue(name: str, nominal: str, cohort: str | None = "pool", lending: str | None = None) -> str:
    return QUEUE.format(name=name, nominal=nominal, cohort=f"cohortName: {cohort}" if cohort else "",
                        lending=f', lendingLimit: "{lending}"' if lending else "")


def workload(name: str, queue_name: str, cpu: str) -> str:
    return WORKLOAD.format(name=name, queue=queue_name, cpu=cpu)


def lent(*documents: str) -> dict[str, dict[tuple[str, str], int]]:
    sim = Simulation(build_snapshot(load_text(ALL_KINDS, FLAVOR + "".join(documents))), NOW)
    sim.run_cycles()
    return lent_by_cluster_queue(sim.cache)


def test_a_single_lender_lends_exactly_what_the_borrower_borrows() -> None:
    assert lent(queue("a", "0"), queue("b", "6"), workload("w", "a", "4")) == {"b": {("f", "cpu"): 4000}}


def test_borrowing_is_shared_among_lenders_in_proportion_to_their_unused_quota() -> None:
    documents = [queue("a", "0"), queue("b", "6"), queue("c", "2")]
    assert lent(*documents, workload("w", "a", "4")) == {"b": {("f", "cpu"): 3000}, "c": {("f", "cpu"): 1000}}


def test_rounding_leftovers_go_to_the_largest_remainder_and_the_total_is_kept() -> None:
    # 5 of 8 free: b's share is 3.75 and c's 1.25, in milli-cpu 3750 and 1250 exactly; with 5m the
    # shares 3.75m and 1.25m round down to 3m and 1m and the last milli-unit goes to b.
    documents = [queue("a", "0"), queue("b", "6"), queue("c", "2")]
    assert lent(*documents, workload("w", "a", "5m")) == {"b": {("f", "cpu"): 4}, "c": {("f", "cpu"): 1}}


def test_what_a_lender_uses_itself_is_not_lent() -> None:
    documents = [queue("a", "0"), queue("b", "6"), workload("own", "b", "5"), workload("w", "a", "1")]
    assert lent(*documents) == {"b": {("f", "cpu"): 1000}}


def test_lending_limit_caps_the_offer_of_a_lender() -> None:
    # b keeps 8 of its 10 private, so only 2 can be lent and a workload of 3 stays pending.
    documents = [queue("a", "0"), queue("b", "10", lending="2"), workload("w", "a", "3"), workload("v", "a", "2")]
    assert lent(*documents) == {"b": {("f", "cpu"): 2000}}


def test_a_cohorts_own_quota_takes_its_share_of_the_lending() -> None:
    documents = [COHORT_WITH_QUOTA, queue("a", "0"), queue("b", "4"), workload("w", "a", "4")]
    assert lent(*documents) == {"b": {("f", "cpu"): 2000}}


def test_a_queue_without_a_cohort_lends_nothing() -> None:
    assert lent(queue("solo", "4", cohort=None), workload("w", "solo", "1")) == {}


def borrowed(*documents: str) -> dict[str, dict[tuple[str, str], int]]:
    """borrowed_by_workload on the end state, admission order: by workload name (the test's own order)."""
    sim = Simulation(build_snapshot(load_text(ALL_KINDS, FLAVOR + "".join(documents))), NOW)
    sim.run_cycles()
    return borrowed_by_workload(sim.cache, lambda w: (w.model.name,))


def test_q_7_a_queues_borrowing_is_charged_to_its_latest_admissions_first() -> None:
    # a (nominal 1) holds 4 cpu in three workloads: it borrows 3, charged to w3 (2) then w2 (1).
    documents = [queue("a", "1"), queue("b", "6"), workload("w1", "a", "1"), workload("w2", "a", "1"),
                 workload("w3", "a", "2")]
    assert borrowed(*documents) == {"ns/w3": {("f", "cpu"): 2000}, "ns/w2": {("f", "cpu"): 1000}}


def test_q_7_a_queue_within_its_nominal_quota_charges_nobody() -> None:
    assert borrowed(queue("a", "4"), queue("b", "4"), workload("w", "a", "3")) == {}
