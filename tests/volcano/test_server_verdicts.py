"""validate says what the API server says, with Volcano's webhooks and (--vap) the chart's policy installed;
and Volcano's loader and engine stay fast and bounded on inputs that are valid but extreme."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kqctl.volcano.load import replicas_kept
from tests.support import run_kqctl
from tests.volcano.builders import conf, node, queue, run, snapshot


def _raw(tmp_path: Path, text: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    import json

    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_kqctl("validate", str(path), "-o", "json", *extra)
    data = json.loads(result.out)
    return result.code, [{"rule": f["ruleId"], "severity": f["severity"], "path": f["field"], "hint": f["hint"],
                          "message": f["message"]} for o in data["documents"] for f in o["findings"]]


QUEUE = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\nspec:\n"


def test_vc_vap_quantity_type_integer_capability_compared_with_deserved_is_refused(tmp_path: Path) -> None:
    code, findings = _raw(tmp_path, QUEUE + "  capability: {cpu: 10}\n  deserved: {cpu: 4}\n", "--vap")
    assert code == 1
    found = [f for f in findings if f["rule"] == "VC-VAP-QUANTITY-TYPE"]
    assert found and found[0]["severity"] == "error" and found[0]["path"] == "spec.capability.cpu"
    assert "quantity()" in found[0]["hint"] and "failurePolicy is Fail" in found[0]["hint"]


def test_vc_vap_quantity_type_unquoted_exponent_is_an_integer_too(tmp_path: Path) -> None:
    code, findings = _raw(tmp_path, QUEUE + "  capability: {cpu: 1e3}\n  deserved: {cpu: \"4\"}\n", "--vap")
    assert code == 1 and [f["rule"] for f in findings if f["severity"] == "error"] == ["VC-VAP-QUANTITY-TYPE"]


def test_vc_vap_quantity_type_only_where_the_policy_compares(tmp_path: Path) -> None:
    # capability alone is never handed to quantity(): the server accepts it.
    code, findings = _raw(tmp_path, QUEUE + "  capability: {cpu: 10}\n  deserved: {memory: \"1Gi\"}\n", "--vap")
    assert code == 0 and not [f for f in findings if f["severity"] == "error"]
    # without --vap (the chart's default) only the webhook judges, and it reads numbers fine
    code, _ = _raw(tmp_path, QUEUE + "  capability: {cpu: 10}\n  deserved: {cpu: 4}\n")
    assert code == 0


def test_vc_vap_capability_false_beats_an_evaluation_error(tmp_path: Path) -> None:
    text = QUEUE + "  capability: {cpu: 10, memory: \"1Gi\"}\n  deserved: {cpu: 4, memory: \"2Gi\"}\n"
    code, findings = _raw(tmp_path, text, "--vap")
    assert code == 1 and "VC-VAP-CAPABILITY" in [f["rule"] for f in findings]


def test_vc_vap_guarantee_with_integer_quantities_is_refused(tmp_path: Path) -> None:
    text = QUEUE + "  deserved: {cpu: 4}\n  guarantee: {resource: {cpu: 2}}\n"
    code, findings = _raw(tmp_path, text, "--vap")
    assert code == 1 and [f["rule"] for f in findings if f["severity"] == "error"] == ["VC-VAP-QUANTITY-TYPE"]


def test_schema_type_number_beyond_int64_is_not_an_integer(tmp_path: Path) -> None:
    code, findings = _raw(tmp_path, QUEUE + "  capability: {cpu: 1e20}\n")
    assert code == 1
    assert [(f["rule"], f["path"]) for f in findings if f["severity"] == "error"] == [
        ("SCHEMA-TYPE", "spec.capability.cpu")]
    assert 'must be of type integer,string: "number"' in findings[0]["message"]


def test_podgroup_status_is_kept_and_checked_on_create(tmp_path: Path) -> None:
    text = ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: default}\n"
            "spec: {minMember: 1}\nstatus: {phase: Bogus}\n")
    code, findings = _raw(tmp_path, text)
    assert code == 1
    assert [(f["rule"], f["severity"], f["path"]) for f in findings] == [("SCHEMA-ENUM", "error", "status.phase")]


def test_queue_status_is_still_dropped_on_create(tmp_path: Path) -> None:
    code, findings = _raw(tmp_path, QUEUE + "  weight: 1\nstatus: {allocated: {cpu: lots}}\n")
    assert code == 0 and all(f["severity"] == "info" for f in findings)


def test_vcjob_replicas_are_bounded_by_what_the_cluster_could_ever_hold() -> None:
    cluster = {"cpu": 800_000, "pods": 11_000}  # 100 nodes of 8 cpu and 110 pods
    assert replicas_kept(2_000_000_000, {"cpu": 1000, "pods": 1}, cluster) == 11_001
    assert replicas_kept(2_000_000_000, {"cpu": 10, "pods": 1}, cluster) == 80_001
    assert replicas_kept(2_000_000_000, {"cpu": 1000}, {}) == 10_000  # ordinary jobs are never cut
    assert replicas_kept(5, {"cpu": 1000}, cluster) == 5
    assert replicas_kept(-1, {"cpu": 1000}, {}) == 0
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "big", "namespace": "ns"},
           "spec": {"tasks": [{"name": "t", "replicas": 2_000_000_000, "template": {"spec": {"containers": [
               {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
    snap = snapshot(node("node-1", cpu="8", pods="110"), job)
    assert len(snap.pods) == 10_000
    assert snap.pod_groups["ns/big"].min_member == 2_000_000_000
    assert any("2,000,000,000 replicas" in note for note in snap.notes)


def _chain(length: int) -> list[dict[str, Any]]:
    return [queue(f"q{i}", parent=f"q{i - 1}") if i else queue("q0") for i in range(length)]


def test_hierarchical_capacity_links_a_chain_of_3000_queues() -> None:
    from tests.volcano.builders import group, pod

    objects = [conf("enqueue, allocate", ["gang"], [{"name": "capacity", "enableHierarchy": True}, "predicates"]),
               node("node-1"), *_chain(3000), group("g", "q2999"), pod("p", "g")]
    result = run(*objects)
    assert result.hierarchy_broken == ""
    assert result.groups["ns/g"].phase == "Running"


def test_validate_and_audit_take_a_chain_of_3000_queues_in_any_order(tmp_path: Path) -> None:
    path = tmp_path / "chain.yaml"
    path.write_text(yaml.safe_dump_all(list(reversed(_chain(3000)))), encoding="utf-8")
    validated = run_kqctl("validate", str(path))
    assert validated.code == 1 and "VC-H2" in validated.out  # deeper than max-queue-depth 5
    audited = run_kqctl("audit", str(path))
    # The gate: audit refuses what validate rejects, with validate's finding (after the same checks over 3000 queues).
    assert audited.code == 3 and "VC-H2" in audited.err and "maximum allowed depth of 5" in audited.err, audited.err
