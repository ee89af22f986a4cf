"""Volcano audit (quota report and findings, every format, the chart) and convert --to kueue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kqctl.volcano.engine.audit import audit
from tests.support import run_kqctl
from tests.volcano.builders import conf, group, node, pod, queue, snapshot


def _report_objects() -> list[dict[str, object]]:
    return [conf("enqueue, allocate", ["priority", "gang"], ["proportion"]), node("n1", cpu="8", memory="32Gi"),
            queue("eng", guarantee={"resource": {"cpu": "4"}}, deserved={"cpu": "4"}),
            queue("eng-ml", parent="eng", capability={"cpu": "0", "vendor.com/fpga": "1"}),
            queue("ops"), group("big", "ops", min_resources={"cpu": "100"}), pod("p", "big", cpu="100")]


def test_audit_findings_that_cost_money() -> None:
    report = audit(snapshot(*_report_objects()))  # type: ignore[arg-type]
    rules = {(f.rule_id, f.subject) for f in report.findings}
    assert {("VC-AUDIT-IDLE-GUARANTEE", "eng"), ("VC-AUDIT-ZERO-CAPABILITY", "eng-ml"),
            ("VC-AUDIT-CAPABILITY-RESOURCE", "eng-ml"), ("VC-AUDIT-DESERVED-IGNORED", "eng"),
            ("VC-AUDIT-NEVER-FITS", "ns/big")} <= rules


def test_audit_rows_are_in_tree_order() -> None:
    report = audit(snapshot(*_report_objects()))  # type: ignore[arg-type]
    assert [(row.report.name, row.depth) for row in report.rows] == [("default", 0), ("eng", 0), ("eng-ml", 1),
                                                                    ("ops", 0)]


@pytest.mark.parametrize("fmt", ["table", "json", "yaml", "markdown", "name"])
def test_audit_formats(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(_report_objects()), encoding="utf-8")
    run = run_kqctl("audit", str(path), "-o", fmt)
    assert run.code == 0, run.err
    if fmt == "json":
        assert json.loads(run.out)["queues"]["eng-ml"]["depth"] == 1
    if fmt == "table":
        assert "\n└─ eng-ml " in run.out and "VC-AUDIT-IDLE-GUARANTEE" in run.out  # eng's only child


def test_audit_plot_svg(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(_report_objects()), encoding="utf-8")
    chart = tmp_path / "quota.svg"
    assert run_kqctl("audit", str(path), "--plot", str(chart)).code == 0
    assert "<svg" in chart.read_text(encoding="utf-8")
    assert run_kqctl("audit", str(path), "--plot", str(tmp_path / "x.gif")).code == 2


def test_convert_to_kueue_keeps_the_intent_and_reports_what_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text(yaml.safe_dump_all([
        queue("research", weight=2, capability={"cpu": "64"}, deserved={"cpu": "32"},
              guarantee={"resource": {"cpu": "8"}}),
        queue("nlp", parent="research", reclaimable=False, priority=10, deserved={"cpu": "16"}),
        group("job", "nlp")]), encoding="utf-8")
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(run.out)}
    cohort = objects[("Cohort", "research")]["spec"]
    cpu = cohort["resourceGroups"][0]["flavors"][0]["resources"][0]
    assert cpu == {"name": "cpu", "nominalQuota": "32", "borrowingLimit": "32", "lendingLimit": "24"}
    assert objects[("ClusterQueue", "nlp")]["spec"]["cohortName"] == "research"
    assert objects[("LocalQueue", "nlp")]["spec"] == {"clusterQueue": "nlp"}
    for rule in ("VC-CONV-WEIGHT", "VC-CONV-RECLAIMABLE", "VC-CONV-PRIORITY", "VC-CONV-PARENT-QUOTA"):
        assert rule in run.err
    assert run_kqctl("validate", "-", stdin=run.out.encode()).code == 0


@pytest.mark.parametrize("nodes,root", [
    (2, {"cpu": "12", "memory": "64Gi"}),  # 16 cpu and 64Gi less team-a's deserved 4 cpu (team-b: a weight only)
    (0, None),
])
def test_vc_conv_capacity_the_root_cohort_holds_the_nodes_beyond_the_nominal_quotas(
        tmp_path: Path, nodes: int, root: dict[str, str] | None) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([
        queue("team-a", deserved={"cpu": "4"}), queue("team-b", weight=3),
        *[node(f"n{i}", cpu="8", memory="32Gi") for i in range(nodes)]]), encoding="utf-8")
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(run.out)}
    spec = objects[("Cohort", "root")]["spec"]
    if root is None:
        assert "resourceGroups" not in spec and "VC-CONV-CAPACITY: no Node in the input" in run.err
        return
    quotas = {r["name"]: r["nominalQuota"] for r in spec["resourceGroups"][0]["flavors"][0]["resources"]}
    assert quotas == root and "VC-CONV-CAPACITY" not in run.err
    checked = run_kqctl("validate", "-", "-o", "json", stdin=run.out.encode())
    # team-b (a weight only, nominal 0) borrows from the root: nothing says it can never be admitted
    assert checked.code == 0 and "XO-CQ-ZERO-QUOTA" not in checked.out


def test_convert_to_kueue_needs_queues(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump(group("g", "q")), encoding="utf-8")
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 2 and "holds none" in run.err


@pytest.mark.parametrize("other_guarantee,starved", [
    ("8", True),  # the other queue guarantees the whole cluster: real capability 0
    ("4", False),
])
def test_vc_audit_starved_when_others_guarantee_everything(other_guarantee: str, starved: bool) -> None:
    report = audit(snapshot(
        conf("enqueue, allocate", ["priority", "gang"], ["proportion"]), node("n1", cpu="8", memory="32Gi"),
        queue("hoarder", guarantee={"resource": {"cpu": other_guarantee}}, deserved={"cpu": other_guarantee}),
        queue("poor"), group("g", "poor", phase="Pending", min_resources={"cpu": "1"}), pod("p", "g", cpu="1")))
    assert (("VC-AUDIT-STARVED", "poor") in {(f.rule_id, f.subject) for f in report.findings}) == starved


@pytest.mark.parametrize("spec,rule", [
    ({"dequeueStrategy": "traverse"}, "VC-CONV-DEQUEUE"),
    ({"affinity": {"nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["g1"]}}},
     "VC-CONV-AFFINITY"),
    ({"extendClusters": [{"name": "c1", "weight": 1}]}, "VC-CONV-CLUSTERS"),
    ({"type": "batch"}, "VC-CONV-TYPE"),
    ({"capability": {"cpu": "8"}}, "VC-CONV-NO-DESERVED"),
    ({"weight": 3}, "VC-CONV-WEIGHT"),
    ({"deserved": {"cpu": "4"}}, None),  # carries over: nothing lost
])
def test_vc_conv_what_does_not_carry_over_to_kueue(tmp_path: Path, spec: dict[str, object],
                                                   rule: str | None) -> None:
    path = tmp_path / "queues.yaml"
    # (with a Node: the cluster's capacity is known, VC-CONV-CAPACITY has nothing to say)
    path.write_text(yaml.safe_dump_all([queue("q", **spec), node("n1")]), encoding="utf-8")  # type: ignore[arg-type]
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    found = sorted({word for line in run.err.splitlines() for word in line.split() if word.startswith("VC-CONV-")})
    assert found == ([f"{rule}:"] if rule else [])


@pytest.mark.parametrize("queues,broken", [
    ([queue("a", parent="b"), queue("b", parent="a")], ["a", "b"]),
    ([queue("c", parent="a"), queue("a", parent="b"), queue("b", parent="a")], ["a", "b"]),  # c only leads in
    ([queue("a", parent="a")], ["a"]),
    ([queue("a", parent="b"), queue("b")], []),
    ([queue("a", parent="elsewhere")], []),  # a missing parent still makes a Cohort (Kueue creates it implicitly)
])
def test_vc_conv_tree_refuses_queues_that_form_no_tree(tmp_path: Path, queues: list[dict[str, object]],
                                                       broken: list[str]) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text(yaml.safe_dump_all(queues), encoding="utf-8")
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    if run_kqctl("validate", str(path)).code == 1:
        # Volcano's webhook refuses these queues: convert refuses them as every command does (exit 3, validate's
        # finding), before any conversion.
        assert run.code == 3 and run.out == "" and "kqctl validate shows every problem" in run.err, run.err
        return
    refused = sorted(line.split("Queue ")[1].split(":")[0] for line in run.err.splitlines() if "VC-CONV-TREE" in line)
    assert refused == broken
    assert run.code == (1 if broken else 0), run.err
    assert (run.out == "") == bool(broken)  # nothing half-converted on stdout


def test_vc_audit_idle_guarantee_never_fires_on_a_queue_with_pending_work() -> None:
    from kqctl.volcano.engine.audit import audit
    from tests.volcano.builders import conf, group, node, pod, queue, snapshot

    tiers = (["priority", "gang"], ["predicates", "capacity"])
    guaranteed = {"deserved": {"cpu": "4"}, "guarantee": {"resource": {"cpu": "4"}}}
    objects = [conf("enqueue, allocate", *tiers), node("n1", cpu="16"),
               queue("busy", **guaranteed), group("g", "busy", phase="Pending"), pod("g-0", "g", cpu="1"),
               queue("idle", **guaranteed)]
    found = {(f.rule_id, f.subject) for f in audit(snapshot(*objects)).findings}
    assert ("VC-AUDIT-IDLE-GUARANTEE", "idle") in found
    assert ("VC-AUDIT-IDLE-GUARANTEE", "busy") not in found


def test_audit_table_draws_siblings_with_their_own_glyphs_and_names_a_queue_once() -> None:
    out = run_kqctl("audit", "samples/volcano-hierarchy").out.splitlines()
    labels = [line.split("  ")[0] for line in out[1:out.index("")]]
    assert labels == ["default", "", "eng", "", "├─ eng-ml", "│", "└─ eng-web", "", "ops", ""]
    assert "PENDING DEMAND" in out[0]


def test_audit_json_has_the_pending_demand_the_table_shows() -> None:
    queues = json.loads(run_kqctl("audit", "samples/volcano-hierarchy", "-o", "json").out)["queues"]
    assert queues["eng"]["pendingDemand"] == {"cpu": "28", "memory": "88Gi"}
    table = run_kqctl("audit", "samples/volcano-hierarchy").out
    eng = next(line for line in table.splitlines() if line.startswith("eng "))
    assert eng.split()[-2] == "28"


def test_audit_findings_read_as_every_scheduler_prints_them(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(_report_objects()), encoding="utf-8")
    out = run_kqctl("audit", str(path)).out
    assert "\nFindings:\n  warning VC-AUDIT-IDLE-GUARANTEE eng: guarantees 4 cpu and uses 0" in out
    assert "  info VC-AUDIT-DESERVED-IGNORED eng: deserved is ignored" in out
    assert "4 queue(s), proportion: 4 warning(s), 1 info(s); configuration:" in out


def test_audit_markdown_names_the_queue_on_every_row() -> None:
    out = run_kqctl("audit", "samples/volcano-hierarchy", "-o", "markdown").out
    assert "| eng/eng-ml | Open | 1 | memory | 96Gi |" in out and "├─" not in out


@pytest.mark.parametrize(("actions", "tiers", "within", "reclaim", "note"), [
    ("enqueue, allocate, preempt, reclaim", [["priority", "gang"], ["proportion"]], "LowerPriority", "Any",
     "Kueue evicts whole lower-priority workloads"),
    ("enqueue, allocate, preempt", [["gang"], ["proportion"]], "Never", "Never", "without the priority plugin"),
    ("enqueue, allocate, reclaim", [["priority", "gang"], ["proportion"]], "Never", "Any", None),
])
def test_vc_conv_preempt_maps_in_queue_preemption_by_priority(tmp_path: Path, actions: str, tiers: list[list[str]],
                                                              within: str, reclaim: str, note: str | None) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text(yaml.safe_dump_all([conf(actions, *tiers), queue("team", deserved={"cpu": "8"})]),
                    encoding="utf-8")
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    cluster_queue = next(o for o in yaml.safe_load_all(run.out) if o["kind"] == "ClusterQueue")
    assert cluster_queue["spec"]["preemption"] == {"reclaimWithinCohort": reclaim, "withinClusterQueue": within}
    assert ("VC-CONV-PREEMPT" in run.err) == (note is not None)
    if note is not None:
        assert note in run.err.replace("\n", " ")
    assert run_kqctl("validate", "-", stdin=run.out.encode()).code == 0
