"""The YuniKorn branch of every command, through the real entry point (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support import REPO, run_kqctl

PRIORITY = "samples/yunikorn-priority"
TENANTS = "samples/yunikorn-multi-tenant"
BROKEN = "samples/yunikorn-broken"
NOW = ("--now", "2026-01-01T12:00:00Z")


def test_validate_samples() -> None:
    assert run_kqctl("validate", PRIORITY).code == 0
    assert run_kqctl("validate", TENANTS).code == 0
    broken = run_kqctl("validate", BROKEN, "-o", "json")
    assert broken.code == 1
    rules = {f["ruleId"] for d in json.loads(broken.out)["documents"] for f in d["findings"]}
    assert {"YK-DECODE", "YK-V6", "YK-V7", "YK-V8", "YK-V9", "YK-V10", "YK-V15", "YK-V17", "YK-V18", "YK-V20",
            "YK-V21", "YK-V22", "YK-V23", "YK-V24", "YK-V25", "YK-V27C", "YK-CONFIGMAP"} <= rules


def test_validate_yaml_reports_effective_settings() -> None:
    run = run_kqctl("validate", f"{PRIORITY}/yunikorn-configs.yaml", "-o", "yaml")
    effective = yaml.safe_load(run.out)["documents"][0]["effective"]
    assert effective["validateConf"] == {"allowed": True, "reason": None}
    queues = {q["path"]: q for q in effective["partitions"][0]["queues"]}
    leaf = queues["root.tenant1.b"]
    assert leaf["properties"]["priority.offset"] == -5 and leaf["sources"]["priority.offset"] == "own"
    assert leaf["properties"]["priority.policy"] == "default"
    assert queues["root.tenant1"]["guaranteed"] == {"memory": 8 * 2**30, "vcore": 4000}


def test_validate_sarif_and_github_formats_work_for_yunikorn() -> None:
    assert "YK-V7" in run_kqctl("validate", f"{BROKEN}/queues.yaml", "-o", "sarif").out
    assert "::error file=samples/yunikorn-broken/queues.yaml,line=16" in run_kqctl(
        "validate", f"{BROKEN}/queues.yaml", "-o", "github").out


def test_simulate_table_and_json() -> None:
    table = run_kqctl("simulate", TENANTS, *NOW)
    assert table.code == 0
    assert "Why not allocated:" in table.out and "maxapplications is 2" in table.out
    data = json.loads(run_kqctl("simulate", TENANTS, *NOW, "-o", "json").out)
    assert data["scheduler"] == "yunikorn"
    assert data["summary"]["running"] == 5
    pods = {p["name"]: p for p in data["pods"]}
    assert pods["giant-0"]["state"] == "Pending" and pods["trainer-0"]["state"] == "Allocated"
    assert pods["trainer-0"]["request"] == {"memory": 8 * 2**30, "pods": 1, "vcore": 2000}


def test_simulate_filters_and_fail_on() -> None:
    run = run_kqctl("simulate", TENANTS, *NOW, "-n", "nightly", "-o", "name")
    assert run.out.splitlines() == sorted(run.out.splitlines(), key=str) or run.out
    assert all(line.startswith("pod/") for line in run.out.splitlines())
    failing = run_kqctl("simulate", TENANTS, *NOW, "--fail-on", "pending")
    assert failing.code == 1 and "pod(s) end pending" in failing.err


def test_simulate_rejects_kueue_only_flags() -> None:
    run = run_kqctl("simulate", PRIORITY, "--feature-gates", "PartialAdmission=false")
    assert run.code == 2 and "apply to Kueue only" in run.err


def test_explain_queue_json() -> None:
    run = run_kqctl("explain", "--queue", "root.tenant1.a", PRIORITY, "-o", "json")
    data = json.loads(run.out)
    assert [c["reported"] for c in data["chain"]] == [1000, 10, 5]
    root_level = data["levels"][0]
    assert [e["name"] for e in root_level["order"]] == ["system", "tenant1", "tenant2"]
    # tenant1 and tenant2 both report 10 and use nothing: the larger pending request goes first, so no tie
    assert root_level["order"][1]["tieWithNext"] is False


def test_explain_queue_typo_suggests() -> None:
    run = run_kqctl("explain", "--queue", "root.tenant1.aa", PRIORITY)
    assert run.code == 2 and "did you mean root.tenant1.a" in run.err


def test_explain_pod_with_verified_suggestions() -> None:
    run = run_kqctl("explain", "team1/a-job-0", PRIORITY, *NOW, "-o", "json")
    data = json.loads(run.out)
    assert data["state"] == "Pending" and data["placement"]["queue"] == "root.tenant1.a"
    assert any(not row["fits"] and row["queue"] == "root" for row in data["headroom"])
    assert data["suggestions"] and all(s["verified"] for s in data["suggestions"])
    text = run_kqctl("explain", "team1/a-job-0", PRIORITY, *NOW)
    assert "Queue headroom up the path" in text.out and "What would let it run" in text.out


def test_explain_unknown_pod() -> None:
    run = run_kqctl("explain", "team1/a-job-9", PRIORITY)
    assert run.code == 2 and "did you mean" in run.err


@pytest.mark.parametrize("flags,named", [(["-l", "x=y"], "-l selects"), (["-n", "default"], "-n selects"),
                                         (["-l", "x=y", "-A"], "-l and -A select")])
def test_explain_queue_refuses_workload_selection_instead_of_ignoring_it(flags: list[str], named: str) -> None:
    run = run_kqctl("explain", "--queue", "root", *flags, PRIORITY)
    assert run.code == 2 and f"--queue explains one queue: {named} workloads" in run.err


def test_explain_queue_needs_yunikorn_input() -> None:
    run = run_kqctl("explain", "--queue", "root.a", "samples/single-clusterqueue")
    assert run.code == 2 and "--queue explains a YuniKorn queue" in run.err


def test_audit_formats_and_plot(tmp_path: Path) -> None:
    table = run_kqctl("audit", TENANTS, "--plot", str(tmp_path / "q.svg"))
    assert table.code == 0 and "analytics" in table.out
    assert "<svg" in (tmp_path / "q.svg").read_text()
    data = json.loads(run_kqctl("audit", TENANTS, "-o", "json").out)
    assert {q["path"] for q in data["queues"]} >= {"root.batch", "root.ml.training"}
    assert "| `root.batch` |" in run_kqctl("audit", TENANTS, "-o", "markdown").out


def test_convert_to_kueue_validates_as_kueue(tmp_path: Path) -> None:
    run = run_kqctl("convert", "-f", f"{TENANTS}/yunikorn-configs.yaml", "--to", "kueue")
    assert run.code == 0 and "not carried over" in run.err
    out = tmp_path / "kueue.yaml"
    out.write_text(run.out)
    assert run_kqctl("validate", str(out)).code == 0
    kinds = [d["kind"] for d in yaml.safe_load_all(run.out)]
    # only root.batch is a configured leaf: analytics and ml are parents whose leaves are created per namespace
    assert kinds.count("ClusterQueue") == 1 and kinds.count("Cohort") == 3


def test_convert_to_kueue_without_a_yunikorn_config() -> None:
    run = run_kqctl("convert", "samples/single-clusterqueue", "--to", "kueue")
    assert run.code == 3 and "no YuniKorn queues.yaml" in run.err


def test_an_invalid_configuration_stops_simulate_with_yunikorns_error() -> None:
    run = run_kqctl("simulate", f"{BROKEN}/queues.yaml", "--scheduler", "yunikorn")
    # validate's finding, as validate words it: YuniKorn's strict decode refuses an unknown key
    assert run.code == 3 and "YK-DECODE" in run.err and "field maxApplications not found" in run.err


def test_scheduler_yunikorn_reads_pods_without_a_config() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "apps"},
           "spec": {"schedulerName": "yunikorn", "containers": [{"name": "c"}]}}
    # (a node named n would be the boolean false to kubectl's YAML reading: the API server refuses that name)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    run = run_kqctl("simulate", "-", "-o", "json", stdin=yaml.safe_dump_all([pod, node]).encode())
    data = json.loads(run.out)
    assert data["scheduler"] == "yunikorn" and data["pods"][0]["queue"] == "root.apps"


@pytest.mark.parametrize("columns", ["80", "200"])
def test_tables_never_cut_names(columns: str) -> None:
    run = run_kqctl("simulate", TENANTS, *NOW, env={"COLUMNS": columns})
    assert "root.analytics.dashboards (dynamic)" in run.out and "nightly/compaction-0" in run.out


def test_samples_readme_lists_the_yunikorn_samples() -> None:
    text = (REPO / "samples" / "README.md").read_text()
    assert all(name in text for name in ("yunikorn-priority", "yunikorn-multi-tenant", "yunikorn-broken"))


def test_explain_a_pod_of_a_dynamic_queue_suggests_its_namespace_quota() -> None:
    """A dynamic queue is not in the config: its limits come from the namespace annotation, and so does the fix."""
    run = run_kqctl("explain", "dashboards/render-2", TENANTS, *NOW, "-o", "json")
    assert run.code == 0
    suggestions = json.loads(run.out)["suggestions"]
    assert any("namespace.quota annotation of namespace dashboards" in s["change"] and s["verified"]
               for s in suggestions), suggestions


def test_explain_order_lists_are_aligned() -> None:
    lines = run_kqctl("explain", "--queue", "root.tenant1.a", PRIORITY).out.splitlines()
    rows = [line for line in lines if line.startswith("    ") and "priority" in line and ". " in line]
    assert len({line.index("priority") for line in rows[:3]}) == 1, rows


@pytest.mark.parametrize("command", ["validate", "simulate", "audit"])
def test_yunikorn_namespace_without_a_cluster_is_a_usage_error(command: str) -> None:
    run = run_kqctl(command, PRIORITY, "--yunikorn-namespace", "yk")
    assert run.code == 2 and "--yunikorn-namespace only applies with --from-cluster" in run.err


def test_readme_yunikorn_outputs_are_real() -> None:
    """Every `$ kqctl ...` example of the README's YuniKorn section prints exactly what the README shows."""
    import re
    import shlex

    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## YuniKorn"):readme.index("## Layout")]
    blocks = re.findall(r"```text\n\$ kqctl (.*?)\n(.*?)```", section, re.S)
    assert len(blocks) >= 4
    for command, shown in blocks:
        run = run_kqctl(*shlex.split(command))
        assert run.out == shown, command


def test_explain_with_a_selector_explains_every_waiting_pod_that_matches() -> None:
    run = run_kqctl("explain", "-l", "applicationId=a-job", PRIORITY, *NOW, "-o", "json")
    assert run.code == 0 and [e["pod"] for e in json.loads(run.out)] == [f"team1/a-job-{i}" for i in range(3)]
    none = run_kqctl("explain", "-l", "applicationId=sys-job", PRIORITY, *NOW)  # allocated: nothing to explain
    assert none.code == 0 and none.out == "" and "no pod matches" in none.err


LABEL_AS_BOOLEAN = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default, labels: {queue: y, applicationId: a1}}
spec: {schedulerName: yunikorn, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.mark.parametrize("command", ["simulate", "explain", "audit"])
def test_schema_type_a_label_yaml_reads_as_a_boolean_is_refused_by_every_command_as_validate_refuses_it(
        tmp_path: Path, command: str) -> None:
    # `queue: y` is a boolean to YAML 1.1 (as kubectl reads it): the API server refuses the Pod. simulate used to
    # place it as root.true (or reject its application) and exit 0.
    path = tmp_path / "pods.yaml"
    path.write_text(LABEL_AS_BOOLEAN)
    validated = run_kqctl("validate", str(path), "-o", "json")
    [finding] = [f for d in json.loads(validated.out)["documents"] for f in d["findings"] if f["severity"] == "error"]
    assert validated.code == 1 and finding["ruleId"] == "SCHEMA-TYPE" and finding["field"] == "metadata.labels.queue"
    run = run_kqctl(command, *(["default/p1"] if command == "explain" else []), str(path))
    assert run.code == 3 and run.out == ""
    # The gate's refusal: validate's finding, its message and then its rule.
    assert f"{path}:8 (document 2): Pod default/p1" in run.err and f"{finding['message']} (SCHEMA-TYPE" in run.err


def test_yk_v20_queue_building_stops_at_the_first_failure_as_the_broken_samples_comment_says(tmp_path: Path) -> None:
    """The broken ConfigMap sample: root's ACL fails queue building first; the child template's vcore: 1.5 is named
    only once the ACL is fixed (YuniKorn stops at the first queue it cannot build)."""
    sample = (REPO / BROKEN / "yunikorn-configs.yaml").read_text()

    def v20(text: str) -> list[str]:
        path = tmp_path / "cm.yaml"
        path.write_text(text)
        run = run_kqctl("validate", str(path), "-o", "json")
        documents = json.loads(run.out)["documents"]
        return [f["message"] for d in documents for f in d["findings"] if f["ruleId"] == "YK-V20"]

    [first] = v20(sample)
    assert "multiple spaces found in ACL: 'admins  ops'" in first and "quantity" not in first
    [then] = v20(sample.replace("admins  ops", "admins ops"))
    assert then.endswith("invalid quantity")
