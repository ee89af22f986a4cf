"""The quota audit: numbers per node (rule set Q) and each finding rule, failing and passing."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support import KUEUE_CONFORMANCE, REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.audit import (
    NAMESPACE_NOT_ADMITTED,
    NEVER_FITS,
    NO_BORROWING,
    UNFED_CLUSTERQUEUE,
    UNUSABLE_QUOTA,
    UNUSED_FLAVOR,
    AuditFinding,
    AuditNode,
    AuditReport,
    ResourceRow,
    audit,
)
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths, load_text

V1B2 = "kueue.x-k8s.io/v1beta2"
CONFORMANCE = KUEUE_CONFORMANCE


# --- object builders -----------------------------------------------------------------------------------


def flavor(name: str) -> dict[str, Any]:
    return {"apiVersion": V1B2, "kind": "ResourceFlavor", "metadata": {"name": name}}


def quota(name: str, nominal: str, borrowing: str | None = None, lending: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        result["borrowingLimit"] = borrowing
    if lending is not None:
        result["lendingLimit"] = lending
    return result


def groups(*flavors: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One resource group covering every resource the flavors list."""
    covered = list(dict.fromkeys(r["name"] for _, resources in flavors for r in resources))
    return [{"coveredResources": covered, "flavors": [{"name": f, "resources": rs} for f, rs in flavors]}]


def cluster_queue(name: str, resources: list[dict[str, Any]], cohort: str | None = None, flavor_name: str = "f",
                  selector: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"namespaceSelector": {} if selector is None else selector,
                            "resourceGroups": groups((flavor_name, resources)), **spec}
    if cohort:
        body["cohortName"] = cohort
    return {"apiVersion": V1B2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def cohort(name: str, resources: list[dict[str, Any]] | None = None, parent: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if resources:
        spec["resourceGroups"] = groups(("f", resources))
    return {"apiVersion": V1B2, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def local_queue(namespace: str, name: str, target: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": V1B2, "kind": "LocalQueue", "metadata": {"namespace": namespace, "name": name},
            "spec": {"clusterQueue": target, **spec}}


def namespace(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def workload(name: str, queue: str, requests: dict[str, str], count: int = 1, admitted_in: str | None = None,
             min_count: int | None = None, ns: str = "default") -> dict[str, Any]:
    pod_set: dict[str, Any] = {"name": "main", "count": count, "template": {"spec": {"containers": [
        {"name": "c", "resources": {"requests": requests}}]}}}
    if min_count is not None:
        pod_set["minCount"] = min_count
    result: dict[str, Any] = {"apiVersion": V1B2, "kind": "Workload", "metadata": {"namespace": ns, "name": name},
                              "spec": {"queueName": queue, "podSets": [pod_set]}}
    if admitted_in is not None:
        assert count == 1, "admitted test workloads have one pod: resourceUsage is then the request"
        result["status"] = {
            "admission": {"clusterQueue": admitted_in, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {r: "f" for r in requests}, "resourceUsage": requests}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    return result


def run(*objects: dict[str, Any]) -> AuditReport:
    text = "\n---\n".join(json.dumps(o) for o in objects)
    return audit(build_snapshot(load_text(ALL_KINDS, text)))


def node(report: AuditReport, name: str) -> AuditNode:
    return next(n for n in report.nodes if n.name == name)


def row(report: AuditReport, name: str, resource: str = "cpu", flavor_name: str = "f") -> ResourceRow:
    return next(r for r in node(report, name).resources if (r.flavor, r.resource) == (flavor_name, resource))


def findings(report: AuditReport, rule: str) -> list[AuditFinding]:
    return [f for f in report.findings if f.rule_id == rule]


# --- §3.2 worked example --------------------------------------------------------------------------------


def worked_example(*extra: dict[str, Any]) -> AuditReport:
    """Semantics §3.2 with a=1, b=3, c=5 cores admitted, and LocalQueues feeding every ClusterQueue."""
    return run(
        flavor("f"),
        cohort("root", [quota("cpu", "4")]),
        cohort("team", [quota("cpu", "2", borrowing="3", lending="1")], parent="root"),
        cluster_queue("a", [quota("cpu", "6", lending="2")], cohort="team"),
        cluster_queue("b", [quota("cpu", "4")], cohort="team"),
        cluster_queue("c", [quota("cpu", "5", borrowing="0")], cohort="root"),
        *(local_queue("default", q, q) for q in "abc"),
        workload("wa", "a", {"cpu": "1"}, admitted_in="a"),
        workload("wb", "b", {"cpu": "3"}, admitted_in="b"),
        workload("wc", "c", {"cpu": "5"}, admitted_in="c"),
        *extra,
    )


def test_worked_example_nodes_come_as_a_tree_in_depth_first_order() -> None:
    report = worked_example()
    assert [(n.kind, n.path, n.depth) for n in report.nodes] == [
        ("Cohort", "/root", 0), ("Cohort", "/root/team", 1), ("ClusterQueue", "/root/team/a", 2),
        ("ClusterQueue", "/root/team/b", 2), ("ClusterQueue", "/root/c", 1)]
    assert node(report, "root").children == ("team", "c")


def test_worked_example_q1_q2_subtree_and_guaranteed_quota() -> None:
    report = worked_example()
    assert [(row(report, n).subtree_quota, row(report, n).guaranteed) for n in ("a", "b", "team", "c", "root")] == [
        (6000, 4000), (4000, 0), (8000, 7000), (5000, 0), (10000, 0)]


def test_worked_example_q6_max_borrowable_is_potential_minus_own_capacity() -> None:
    report = worked_example()
    # potential a=15, b=11, c=5 (§3.2); team = min(7 + 10, 8 + 3) = 11; root has nothing above it.
    assert [row(report, n).max_borrowable for n in ("a", "b", "c", "team", "root")] == [9000, 7000, 0, 3000, 0]


def test_worked_example_lendable_is_what_the_parent_sees() -> None:
    report = worked_example()
    assert [row(report, n).lendable for n in ("a", "b", "c", "team", "root")] == [2000, 4000, 5000, 1000, 0]


def test_worked_example_q3_q4_usage_and_q5_available_after_admissions() -> None:
    report = worked_example()
    assert [row(report, n).usage for n in ("a", "b", "c", "team", "root")] == [1000, 3000, 5000, 3000, 5000]
    assert [row(report, n).available for n in ("a", "b", "c")] == [11000, 8000, 0]
    assert row(report, "team").available is None  # Q-5 is asked of ClusterQueues only


def test_worked_example_utilisation_is_usage_over_capacity() -> None:
    report = worked_example()
    assert row(report, "a").utilisation == Fraction(1, 6)
    assert row(report, "c").utilisation == 1
    assert row(report, "root").utilisation == Fraction(1, 2)


def test_worked_example_limits_are_reported_as_given() -> None:
    report = worked_example()
    team = row(report, "team")
    assert (team.nominal, team.borrowing_limit, team.lending_limit) == (2000, 3000, 1000)
    assert (row(report, "b").borrowing_limit, row(report, "b").lending_limit) == (None, None)


def test_worked_example_is_clean_and_counts_workloads() -> None:
    report = worked_example()
    assert report.findings == ()
    assert node(report, "a").admitted_workloads == 1 and node(report, "a").local_queues == ("default/a",)


# --- flat cohorts (§3.3) --------------------------------------------------------------------------------


def flat(*extra: dict[str, Any], x_lending: str | None = None) -> AuditReport:
    return run(
        flavor("f"),
        cluster_queue("x", [quota("cpu", "10", borrowing="5", lending=x_lending)], cohort="co"),
        cluster_queue("y", [quota("cpu", "20")], cohort="co"),
        local_queue("default", "x", "x"), local_queue("default", "y", "y"),
        *extra,
    )


def test_flat_cohort_max_borrowable_follows_the_shortcut() -> None:
    report = flat()
    # potential(x) = min(Σ nominal, nominal + borrowingLimit) = min(30, 15); potential(y) = 30.
    assert row(report, "x").max_borrowable == 5000 and row(report, "y").max_borrowable == 10000
    assert row(report, "co").subtree_quota == 30000 and row(report, "co").nominal == 0


def test_flat_cohort_with_lending_limit_lends_only_the_limit() -> None:
    report = flat(x_lending="4")
    assert row(report, "x").lendable == 4000 and row(report, "x").guaranteed == 6000
    assert row(report, "y").max_borrowable == 4000
    assert row(report, "co").subtree_quota == 24000


def test_borrowed_is_usage_above_nominal_and_stored_in_the_cohort() -> None:
    report = flat(workload("big", "x", {"cpu": "12"}, admitted_in="x"))
    assert row(report, "x").borrowed == 2000 and row(report, "x").utilisation == Fraction(6, 5)
    assert row(report, "co").usage == 12000 and row(report, "co").borrowed == 0
    assert row(report, "y").available == 18000  # min(30 - 12, 20 + unlimited): everything left in the cohort


def test_pending_demand_sums_queued_workloads_per_resource() -> None:
    report = flat(workload("p1", "x", {"cpu": "1500m", "memory": "1Gi"}, count=2),
                  workload("p2", "x", {"cpu": "1"}))
    x = node(report, "x")
    assert x.pending_workloads == 2
    assert [(d.resource, d.amount) for d in x.pending] == [("cpu", 4000), ("memory", 2 * 1024**3)]
    assert node(report, "y").pending == ()


def test_audit_is_deterministic() -> None:
    assert worked_example() == worked_example()


# --- AUDIT-UNUSABLE-QUOTA ------------------------------------------------------------------------------


def test_cohort_quota_no_clusterqueue_lists_is_unusable() -> None:
    report = run(flavor("f"), flavor("g"),
                 cohort("co", [quota("cpu", "8")]),
                 cluster_queue("x", [quota("cpu", "4")], cohort="co", flavor_name="g"),
                 local_queue("default", "x", "x"))
    [finding] = findings(report, UNUSABLE_QUOTA)
    assert finding.object == "Cohort/co" and finding.severity == "warning"
    assert "8 of f/cpu" in finding.message and "XO-5" in finding.message


def test_cohort_quota_is_usable_once_a_clusterqueue_lists_the_flavor_even_with_zero_nominal() -> None:
    report = run(flavor("f"),
                 cohort("co", [quota("cpu", "8")]),
                 cluster_queue("x", [quota("cpu", "0")], cohort="co"),
                 local_queue("default", "x", "x"))
    assert findings(report, UNUSABLE_QUOTA) == []
    assert row(report, "x").max_borrowable == 8000


def test_private_quota_of_a_stopped_clusterqueue_is_unusable() -> None:
    report = run(flavor("f"),
                 cluster_queue("x", [quota("cpu", "10", lending="4")], cohort="co", stopPolicy="Hold"),
                 cluster_queue("y", [quota("cpu", "2")], cohort="co"),
                 local_queue("default", "y", "y"))
    [finding] = findings(report, UNUSABLE_QUOTA)
    assert finding.object == "ClusterQueue/x" and finding.message.startswith("6 of f/cpu")
    assert "inactive: Stopped" in finding.message
    assert row(report, "y").max_borrowable == 4000  # the lent part stays usable by the cohort (XO-1)


def test_private_quota_of_an_active_clusterqueue_is_usable() -> None:
    report = run(flavor("f"),
                 cluster_queue("x", [quota("cpu", "10", lending="4")], cohort="co"),
                 cluster_queue("y", [quota("cpu", "2")], cohort="co"),
                 local_queue("default", "x", "x"), local_queue("default", "y", "y"))
    assert findings(report, UNUSABLE_QUOTA) == []


def test_quota_of_a_clusterqueue_without_cohort_and_namespace_selector_is_unusable() -> None:
    body = cluster_queue("x", [quota("cpu", "4"), quota("memory", "1Gi")])
    del body["spec"]["namespaceSelector"]  # DEF-2: nil matches no namespace
    [finding] = findings(run(flavor("f"), body), UNUSABLE_QUOTA)
    assert finding.message.startswith("4 f/cpu, 1Gi f/memory in ClusterQueue x can never be used")
    assert "no namespaceSelector" in finding.message


def test_flavor_that_cannot_provide_a_resource_of_its_group_wastes_the_others() -> None:
    report = run(flavor("f"), cluster_queue("x", [quota("cpu", "10"), quota("memory", "0")]),
                 local_queue("default", "x", "x"))
    [finding] = findings(report, UNUSABLE_QUOTA)
    assert "has 10 cpu but can never provide any memory" in finding.message


def test_flavor_that_can_borrow_the_other_resource_of_its_group_is_fine() -> None:
    report = run(flavor("f"),
                 cluster_queue("x", [quota("cpu", "10"), quota("memory", "0")], cohort="co"),
                 cluster_queue("y", [quota("cpu", "0"), quota("memory", "4Gi")], cohort="co"),
                 local_queue("default", "x", "x"), local_queue("default", "y", "y"))
    assert findings(report, UNUSABLE_QUOTA) == []


# --- AUDIT-NEVER-FITS ----------------------------------------------------------------------------------


def test_workload_larger_than_potential_never_fits() -> None:
    [finding] = findings(flat(workload("huge", "x", {"cpu": "16"})), NEVER_FITS)
    assert finding.object == "Workload/default/huge"
    assert "needs 16 cpu" in finding.message and "(15 with everything borrowed)" in finding.message


def test_workload_that_fits_by_borrowing_is_not_reported() -> None:
    assert findings(flat(workload("borrower", "x", {"cpu": "15"})), NEVER_FITS) == []


def test_workload_requesting_an_uncovered_resource_never_fits() -> None:
    [finding] = findings(flat(workload("gpu", "x", {"cpu": "1", "nvidia.com/gpu": "1"})), NEVER_FITS)
    assert "nvidia.com/gpu" in finding.message and "XO-5" in finding.message


def test_partial_admission_lets_a_workload_shrink_to_min_count() -> None:
    report = flat(workload("sweep", "x", {"cpu": "4"}, count=5, min_count=2),
                  workload("rigid", "x", {"cpu": "4"}, count=5))
    assert [f.object for f in findings(report, NEVER_FITS)] == ["Workload/default/rigid"]


def test_no_flavor_providing_all_resources_of_a_group_together_never_fits() -> None:
    report = run(flavor("a"), flavor("b"),
                 {"apiVersion": V1B2, "kind": "ClusterQueue", "metadata": {"name": "x"}, "spec": {
                     "namespaceSelector": {},
                     "resourceGroups": groups(("a", [quota("cpu", "8"), quota("memory", "1Gi")]),
                                              ("b", [quota("cpu", "1"), quota("memory", "8Gi")]))}},
                 local_queue("default", "x", "x"),
                 workload("w", "x", {"cpu": "4", "memory": "4Gi"}))
    [finding] = findings(report, NEVER_FITS)
    assert "no flavor can ever provide them together" in finding.message


# --- AUDIT-NO-BORROWING --------------------------------------------------------------------------------


def test_cohort_whose_members_all_have_zero_borrowing_limit_cannot_borrow() -> None:
    report = run(flavor("f"),
                 cluster_queue("x", [quota("cpu", "4", borrowing="0")], cohort="co"),
                 cluster_queue("y", [quota("cpu", "4", borrowing="0")], cohort="co"),
                 local_queue("default", "x", "x"), local_queue("default", "y", "y"))
    [finding] = findings(report, NO_BORROWING)
    assert finding.object == "Cohort/co" and finding.severity == "info"
    assert "borrowingLimit is 0" in finding.message


def test_cohort_whose_members_lend_nothing_cannot_borrow() -> None:
    report = run(flavor("f"),
                 cluster_queue("x", [quota("cpu", "4", lending="0")], cohort="co"),
                 cluster_queue("y", [quota("cpu", "4", lending="0")], cohort="co"),
                 local_queue("default", "x", "x"), local_queue("default", "y", "y"))
    [finding] = findings(report, NO_BORROWING)
    assert "nothing in the cohort is lent" in finding.message


def test_cohort_where_one_member_can_borrow_is_fine() -> None:
    assert findings(flat(), NO_BORROWING) == []


def test_only_the_highest_cohort_without_borrowing_is_reported() -> None:
    report = run(flavor("f"), cohort("top"), cohort("mid", parent="top"),
                 cluster_queue("x", [quota("cpu", "4")], cohort="mid"),
                 local_queue("default", "x", "x"))
    assert [f.object for f in findings(report, NO_BORROWING)] == ["Cohort/top"]


# --- AUDIT-UNUSED-FLAVOR -------------------------------------------------------------------------------


def test_flavor_no_clusterqueue_lists_is_unused() -> None:
    report = run(flavor("f"), flavor("spare"), cluster_queue("x", [quota("cpu", "4")]),
                 local_queue("default", "x", "x"))
    [finding] = findings(report, UNUSED_FLAVOR)
    assert finding.object == "ResourceFlavor/spare" and finding.severity == "info"


def test_flavors_listed_by_clusterqueues_are_used() -> None:
    assert findings(flat(), UNUSED_FLAVOR) == []


# --- AUDIT-UNFED-CLUSTERQUEUE --------------------------------------------------------------------------


def test_clusterqueue_without_local_queue_is_unfed() -> None:
    [finding] = findings(run(flavor("f"), cluster_queue("x", [quota("cpu", "4")])), UNFED_CLUSTERQUEUE)
    assert finding.object == "ClusterQueue/x" and "no LocalQueue points to" in finding.message


def test_clusterqueue_fed_only_by_a_stopped_local_queue_is_unfed() -> None:
    report = run(flavor("f"), cluster_queue("x", [quota("cpu", "4")]),
                 local_queue("default", "x", "x", stopPolicy="Hold"))
    [finding] = findings(report, UNFED_CLUSTERQUEUE)
    assert "default/x" in finding.message


def test_clusterqueue_with_a_running_local_queue_is_fed() -> None:
    assert findings(flat(), UNFED_CLUSTERQUEUE) == []


# --- AUDIT-NAMESPACE-NOT-ADMITTED ----------------------------------------------------------------------


def selective(*extra: dict[str, Any]) -> AuditReport:
    return run(flavor("f"), namespace("team-a", team="a"), namespace("sandbox", team="sandbox"),
               cluster_queue("x", [quota("cpu", "4")], selector={"matchLabels": {"team": "a"}}),
               local_queue("team-a", "main", "x"), *extra)


def test_local_queue_in_a_namespace_its_clusterqueue_does_not_select() -> None:
    [finding] = findings(selective(local_queue("sandbox", "main", "x")), NAMESPACE_NOT_ADMITTED)
    assert finding.object == "Namespace/sandbox" and "XO-6" in finding.message
    assert "workload namespace doesn't match ClusterQueue selector" in finding.message


def test_local_queue_in_a_selected_namespace_is_admitted() -> None:
    assert findings(selective(), NAMESPACE_NOT_ADMITTED) == []


def test_local_queue_in_a_namespace_missing_from_the_inputs_is_not_admitted() -> None:
    [finding] = findings(selective(local_queue("ghost", "main", "x")), NAMESPACE_NOT_ADMITTED)
    assert 'workload namespace "ghost" does not exist' in finding.message


def test_clusterqueue_without_namespace_selector_admits_no_namespace() -> None:
    body = cluster_queue("x", [quota("cpu", "4")])
    del body["spec"]["namespaceSelector"]
    report = run(flavor("f"), body, local_queue("default", "main", "x"))
    [finding] = findings(report, NAMESPACE_NOT_ADMITTED)
    assert "DEF-2" in finding.message


# --- real inputs ---------------------------------------------------------------------------------------

SAMPLES = ("single-clusterqueue", "cohort-borrowing", "spot-gpu", "preemption", "fair-sharing",
           "hierarchical-cohorts", "legacy-v1alpha1")


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_valid_sample_audits_without_warnings(sample: str) -> None:
    report = audit(build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / sample)], recursive=True)))
    assert report.cluster_queues
    assert [f for f in report.findings if f.severity == "warning"] == []


def test_the_broken_sample_triggers_every_rule() -> None:
    paths = [str(REPO / "samples" / "broken" / name) for name in ("00-base.yaml", "50-cross-object.yaml")]
    report = audit(build_snapshot(load_paths(ALL_KINDS, paths)))
    assert {f.rule_id for f in report.findings} == {UNUSABLE_QUOTA, NEVER_FITS, NO_BORROWING, UNUSED_FLAVOR,
                                                     UNFED_CLUSTERQUEUE, NAMESPACE_NOT_ADMITTED}


def _conformance_snapshots() -> list[Path]:
    return sorted(CONFORMANCE.glob("*/*/snapshot.yaml"))


def test_every_conformance_snapshot_audits() -> None:
    snapshots = _conformance_snapshots()
    assert snapshots
    for path in snapshots:
        report = audit(build_snapshot(load_paths(ALL_KINDS, [str(path)])))
        assert report.nodes, path
