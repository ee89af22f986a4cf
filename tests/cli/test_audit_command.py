"""``kqctl audit`` end to end: every sample and one conformance snapshot per suite, each format, plots, errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from support import KUEUE_CONFORMANCE, REPO, Run

Kq = Callable[..., Run]
Write = Callable[[str, "str | bytes"], str]
SAMPLES = ("single-clusterqueue", "cohort-borrowing", "spot-gpu", "preemption", "fair-sharing",
           "hierarchical-cohorts")
HIERARCHICAL = str(REPO / "samples" / "hierarchical-cohorts")
BROKEN = REPO / "samples" / "broken"
CONFORMANCE = KUEUE_CONFORMANCE


def sample(name: str) -> str:
    return str(REPO / "samples" / name)


def one_snapshot_per_suite() -> list[str]:
    return [str(min(suite.glob("*/snapshot.yaml"))) for suite in sorted(CONFORMANCE.iterdir())
            if any(suite.glob("*/snapshot.yaml"))]


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_audits_with_exit_0(kqctl: Kq, name: str) -> None:
    run = kqctl("audit", "-R", sample(name))
    assert run.code == 0, run.err
    assert run.out.startswith("COHORT/CLUSTERQUEUE ") and "ClusterQueue(s)" in run.out


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_machine_formats_are_byte_identical_across_runs(kqctl: Kq, name: str, fmt: str) -> None:
    first = kqctl("audit", "-R", sample(name), "-o", fmt)
    second = kqctl("audit", "-R", sample(name), "-o", fmt)
    assert first.code == 0, first.err
    assert first.out == second.out


def test_legacy_objects_are_refused_as_validate_refuses_them_and_audited_as_given(kqctl: Kq) -> None:
    legacy = sample("legacy-v1alpha1")
    refused = kqctl("audit", "-R", legacy)
    assert refused.code == 3 and "LEG-VERSION" in refused.err
    assert kqctl("audit", "-R", legacy, "--as-given").code == 0


@pytest.mark.parametrize("path", one_snapshot_per_suite(), ids=lambda p: Path(p).parent.parent.name)
def test_one_conformance_snapshot_per_suite_audits(kqctl: Kq, path: str) -> None:
    run = kqctl("audit", path, "-o", "json", "--as-given")  # Kueue's unit-test objects, undefaulted (DEF-4)
    assert run.code == 0, run.err
    assert json.loads(run.out)["nodes"]


def test_table_draws_the_cohort_tree(kqctl: Kq) -> None:
    out = kqctl("audit", HIERARCHICAL).out
    assert "company/" in out and "├─ data/" in out and "│  └─ data-training" in out and "└─ engineering/" in out
    assert "\nCLUSTERQUEUE " in out


def test_json_has_the_tree_the_numbers_and_the_findings(kqctl: Kq) -> None:
    data = json.loads(kqctl("audit", HIERARCHICAL, "-o", "json").out)
    assert list(data) == ["summary", "nodes", "findings"]
    assert data["summary"] == {"clusterQueues": 4, "cohorts": 3, "resourceFlavors": 1, "warnings": 0, "infos": 0}
    nodes = {n["path"]: n for n in data["nodes"]}
    training = nodes["/company/data/data-training"]
    cpu = next(r for r in training["resources"] if r["resource"] == "cpu")
    assert (cpu["nominalQuota"], cpu["borrowingLimit"], cpu["maxBorrowable"]) == ("32", "16", "16")
    assert (cpu["usage"], cpu["borrowed"], cpu["utilisation"]) == ("36", "4", 1.125)
    assert nodes["/company"]["kind"] == "Cohort" and nodes["/company"]["children"] == ["data", "engineering"]
    assert training["pendingDemand"] == {"cpu": "8", "memory": "32Gi"}


def test_yaml_carries_the_same_data_as_json(kqctl: Kq) -> None:
    as_yaml = yaml.safe_load(kqctl("audit", HIERARCHICAL, "-o", "yaml").out)
    as_json = json.loads(kqctl("audit", HIERARCHICAL, "-o", "json").out)
    assert as_yaml == as_json


def test_markdown_is_github_tables(kqctl: Kq) -> None:
    out = kqctl("audit", HIERARCHICAL, "-o", "markdown").out
    assert out.startswith("# Quota audit\n")
    assert "| Path | Kind | Flavor | Resource | Nominal |" in out
    assert "| `/company/data/data-training` | ClusterQueue | default-flavor | cpu | 32 | 16 |" in out
    assert "## Findings\n\nNone.\n" in out


def test_findings_appear_in_every_format(kqctl: Kq) -> None:
    paths = [str(BROKEN / "00-base.yaml"), str(BROKEN / "50-cross-object.yaml")]
    data = json.loads(kqctl("audit", *paths, "-o", "json").out)
    assert {f["ruleId"] for f in data["findings"]} >= {"AUDIT-NEVER-FITS", "AUDIT-UNUSED-FLAVOR"}
    table = kqctl("audit", *paths)
    assert table.code == 0 and "warning AUDIT-NEVER-FITS Workload/payments/job-too-big-5a6b7" in table.out
    assert "`AUDIT-NAMESPACE-NOT-ADMITTED` `Namespace/sandbox`" in kqctl("audit", *paths, "-o", "markdown").out


def test_plot_with_another_suffix_is_a_usage_error(kqctl: Kq, tmp_path: Path) -> None:
    run = kqctl("audit", HIERARCHICAL, "--plot", str(tmp_path / "quota.pdf"))
    assert run.code == 2 and ".svg or .png" in run.err


def test_unknown_output_format_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("audit", HIERARCHICAL, "-o", "html")
    assert run.code == 2 and "table, wide, json, yaml, markdown" in run.err


def test_no_input_is_a_usage_error(kqctl: Kq) -> None:
    assert kqctl("audit").code == 2


def test_invalid_yaml_exits_3_with_location(kqctl: Kq, write: Write) -> None:
    run = kqctl("audit", write("bad.yaml", "kind: [\n"))
    assert run.code == 3
    assert "bad.yaml:" in run.err and "Traceback" not in run.err


def test_the_broken_sample_is_an_input_error_like_simulate(kqctl: Kq) -> None:
    run = kqctl("audit", "-R", str(BROKEN))
    assert run.code == 3 and "samples/broken/" in run.err


HUGE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: huge, namespace: default, creationTimestamp: "2026-09-14T09:03:00Z"}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 8
    minCount: 2
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "9223372036854775807", memory: 2Gi}}
"""


def test_huge_requests_read_the_same_in_human_units_in_validate_audit_and_explain(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text((REPO / "samples" / "single-clusterqueue" / "cluster.yaml").read_text())
    (tmp_path / "huge.yaml").write_text(HUGE)
    validated = kqctl("validate", str(tmp_path)).out
    audited = kqctl("audit", str(tmp_path)).out
    explained = kqctl("explain", "default/huge", str(tmp_path), "--no-estimate").out
    # 8 pods of 2^63-1 cpu saturate Kueue's int64 total; at minCount 2 that is a quarter of it: 2.3P cores.
    assert "needs 2.3P cpu" in validated and "needs 2.3P cpu" in audited
    assert "cpu: needs 9.2P (this pod set 9.2P)" in explained and "cpu by 2.3P" in explained
    for out in (validated, audited, explained.split("Flavor assignment", 1)[1]):
        assert not re.search(r"\d{13}", out.replace("9223372036854775807m", "")), out  # Kueue's own message kept
        assert "needs unlimited" not in out


def test_audit_wide_adds_cohort_status_and_local_queue_names(kqctl: Kq) -> None:
    narrow = kqctl("audit", "samples/cohort-borrowing").out
    wide = kqctl("audit", "samples/cohort-borrowing", "-o", "wide").out
    queue_header = next(line for line in narrow.splitlines() if line.startswith("CLUSTERQUEUE "))
    assert "LOCALQUEUE NAMES" not in narrow and "COHORT" not in queue_header
    assert "LOCALQUEUE NAMES" in wide and "team-a/team-a-queue" in wide and "research" in wide


def test_audit_sort_by_orders_the_clusterqueue_table_or_the_findings(kqctl: Kq) -> None:
    by_pending = kqctl("audit", "samples/cohort-borrowing", "--sort-by", "pending-workloads").out
    rows = [line.split()[0] for line in by_pending.split("\nCLUSTERQUEUE ", 1)[1].splitlines()[1:3]]
    assert rows == ["team-b", "team-a"]  # 1 pending, then 2
    bad = kqctl("audit", "samples/cohort-borrowing", "--sort-by", "nope")
    assert bad.code == 2 and "choose one of:" in bad.err and "rule" in bad.err
    assert "util" in bad.err and "borrow-limit" in bad.err  # the quota table's columns too


def _quota_rows(out: str) -> list[tuple[str, str, str]]:
    """(node, resource, cell of the column asked for) per row of the quota table; a node's later rows name it too."""
    lines = out.split("\n\n")[0].splitlines()
    header = lines[0]
    rows, node = [], ""
    for line in lines[1:]:
        if line.startswith("UTIL ="):
            break
        name = line[:header.index("FLAVOR")].strip(" │├└─")
        node = name or node
        rows.append((node, *line[header.index("FLAVOR"):].split()[1:2], line.split()[-1]))
    return rows


@pytest.mark.parametrize("key, nodes", [
    # Siblings ordered by their lowest UTIL, each subtree under its root: the tree stays a tree.
    ("util", ["company/", "engineering/", "eng-builds", "eng-ci", "data/", "data-notebooks", "data-training"]),
    ("utilisation", ["company/", "engineering/", "eng-builds", "eng-ci", "data/", "data-notebooks", "data-training"]),
    ("used", ["company/", "engineering/", "eng-builds", "eng-ci", "data/", "data-notebooks", "data-training"]),
    ("nominal", ["company/", "data/", "data-notebooks", "data-training", "engineering/", "eng-builds", "eng-ci"]),
    ("borrow-limit", ["company/", "engineering/", "eng-builds", "eng-ci", "data/", "data-training",
                      "data-notebooks"]),  # no limit reads as none: last
    ("cohort/clusterqueue", ["company/", "data/", "data-notebooks", "data-training", "engineering/", "eng-builds",
                             "eng-ci"]),
])
def test_audit_sort_by_a_quota_column_orders_siblings_and_keeps_the_tree(kqctl: Kq, key: str,
                                                                          nodes: list[str]) -> None:
    run = kqctl("audit", "samples/hierarchical-cohorts", "--sort-by", key)
    assert run.code == 0, run.err
    rows = _quota_rows(run.out)
    assert list(dict.fromkeys(node for node, _, _ in rows)) == nodes
    unsorted = kqctl("audit", "samples/hierarchical-cohorts").out
    assert sorted(run.out.splitlines()[len(rows) + 1:]) == sorted(unsorted.splitlines()[len(rows) + 1:])
    glyphs = [line[:3] for line in run.out.splitlines()[1:len(rows) + 1] if line[:1] in "├└"]
    assert glyphs == ["├─ ", "└─ "]  # company/'s two children, the last one closing the tree


def test_audit_sort_by_a_quota_column_orders_a_nodes_rows_by_it(kqctl: Kq) -> None:
    rows = _quota_rows(kqctl("audit", "samples/spot-gpu", "--sort-by", "util").out)
    for node in dict.fromkeys(node for node, _, _ in rows):
        utils = [float(util.rstrip("%")) for name, _, util in rows if name == node and util != "-"]
        assert utils == sorted(utils), node


def test_audit_limits_findings_and_summarises_the_rest_by_rule(kqctl: Kq, tmp_path: Path) -> None:
    cluster = (REPO / "samples" / "single-clusterqueue" / "cluster.yaml").read_text()
    never = "".join(HUGE.replace("name: huge", f"name: huge-{i:03d}") + "---\n" for i in range(150))
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "never.yaml").write_text(never)
    limited = kqctl("audit", str(tmp_path), "--limit", "20").out
    assert limited.count("AUDIT-NEVER-FITS Workload/") == 20
    assert "... 130 more findings not shown (AUDIT-NEVER-FITS 130; first 20 of 150;" in limited
    assert kqctl("audit", str(tmp_path), "--show-all").out.count("AUDIT-NEVER-FITS Workload/") == 150
    assert len(json.loads(kqctl("audit", str(tmp_path), "--limit", "20", "-o", "json").out)["findings"]) == 150


# --- what the table says (issue 18) -----------------------------------------------------------------------------


def test_cohort_rows_show_the_base_util_divides_by(kqctl: Kq) -> None:
    out = kqctl("audit", HIERARCHICAL, "-o", "wide", env={"COLUMNS": "200"}).out  # SUBTREE QUOTA: -o wide
    header = out.splitlines()[0].split()
    assert header[:1] == ["COHORT/CLUSTERQUEUE"] and "NODE" not in header
    company = next(line for line in out.splitlines() if line.startswith("company/")).split()
    nominal, subtree, used, util = company[3], company[-4], company[-3], company[-1]
    assert (nominal, subtree, used, util) == ("16", "72", "34", "47.2%")  # 34 / 72, not 34 / 16
    assert "UTIL = USED / SUBTREE QUOTA" in out and "(their SUBTREE QUOTA minus LENDS).\n" in out  # piped: one line
    default = kqctl("audit", HIERARCHICAL, env={"COLUMNS": "80"}, tty=True).out
    assert "SUBTREE QUOTA" not in default.splitlines()[0] and "-o wide shows SUBTREE QUOTA and LENDS." in default
    note = default.split("UTIL = ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(note) > 1 and all(len(line) <= 80 for line in note)  # on a terminal, wrapped to it


def test_cohort_usage_adds_up_from_what_members_use_beyond_what_they_keep(kqctl: Kq) -> None:
    data = json.loads(kqctl("audit", sample("cohort-borrowing"), "-o", "json").out)
    rows = {(n["name"], r["resource"]): r for n in data["nodes"] for r in n["resources"]}
    keeps = {cq: int(rows[(cq, "cpu")]["subtreeQuota"]) - int(rows[(cq, "cpu")]["lendable"])
             for cq in ("team-a", "team-b")}
    beyond = sum(max(0, int(rows[(cq, "cpu")]["usage"]) - keeps[cq]) for cq in keeps)
    assert int(rows[("research", "cpu")]["usage"]) == beyond == 3  # team-a 18 - 15 kept, team-b 4 - 5 kept
    assert rows[("research", "cpu")]["utilisation"] == 0.15  # 3 of its subtree quota 20


def test_pending_columns_say_they_count_workloads_and_are_in_json(kqctl: Kq) -> None:
    out = kqctl("audit", sample("cohort-borrowing"), "-o", "wide").out
    header = next(line for line in out.splitlines() if line.startswith("CLUSTERQUEUE "))
    assert "ADMITTED WORKLOADS" in header and "PENDING WORKLOADS" in header and "PENDING DEMAND" in header
    team_a = next(line for line in out.splitlines() if line.startswith("team-a "))
    nodes = {n["name"]: n for n in json.loads(kqctl("audit", sample("cohort-borrowing"), "-o", "json").out)["nodes"]}
    admitted, pending = str(nodes["team-a"]["admittedWorkloads"]), str(nodes["team-a"]["pendingWorkloads"])
    assert team_a.split()[3:6] == ["1", admitted, pending]  # after COHORT and STATUS
    # The default view (80 columns) says both counts in one cell, in words
    narrow = kqctl("audit", sample("cohort-borrowing")).out
    assert "WORKLOADS" in next(line for line in narrow.splitlines() if line.startswith("CLUSTERQUEUE "))
    assert f"   1   {admitted} admitted, {pending} pending   " in narrow
    markdown = kqctl("audit", sample("cohort-borrowing"), "-o", "markdown").out
    assert "| ClusterQueue | LocalQueues | Admitted workloads | Pending workloads | Pending demand |" in markdown


def test_amounts_read_in_one_human_style(kqctl: Kq) -> None:
    out = kqctl("audit", sample("single-clusterqueue")).out
    assert "cpu 19.5, memory 45.6Gi" in out  # pending demand: three significant digits, never 46694Mi


def test_an_input_without_queues_says_so_instead_of_an_empty_table(kqctl: Kq) -> None:
    out = kqctl("audit", sample("submit-jobs")).out
    assert out.startswith("No ClusterQueue or Cohort in the input") and "COHORT/CLUSTERQUEUE" not in out


# --- audit -n: the queues a namespace uses, for every scheduler -------------------------------------------------


def _first_column(out: str) -> list[str]:
    table = out.split("\n\n")[0].splitlines()[1:]
    rows = [line for line in table if not line.startswith("UTIL =")]  # Kueue's note under its quota table
    return [line.replace("├─ ", "").replace("└─ ", "").replace("│", "").split()[0]
            for line in rows if line[:1] != " " or line.strip().startswith(("├─", "└─"))]


@pytest.mark.parametrize(("sample", "namespace", "queues", "absent"), [
    ("cohort-borrowing", "team-b", ["research/", "team-b"], "team-a"),  # the ClusterQueue its LocalQueue feeds
    ("volcano-hierarchy", "ml", ["eng", "eng-ml"], "ops"),  # its PodGroups' queue and the parent above it
    ("yunikorn-multi-tenant", "training", ["root", "ml", "training"], "analytics"),  # its pods' queue and above
])
def test_audit_namespace_keeps_the_queues_the_namespace_uses_and_their_ancestors(
        kqctl: Callable[..., Run], sample: str, namespace: str, queues: list[str], absent: str) -> None:
    run = kqctl("audit", f"samples/{sample}", "-n", namespace)
    assert run.code == 0, run.err
    assert _first_column(run.out) == queues
    assert absent not in run.out.split("\n\n")[0]
    document = json.loads(kqctl("audit", f"samples/{sample}", "-n", namespace, "-o", "json").out)
    listed = document.get("queues") or document["nodes"]
    names = list(listed) if isinstance(listed, dict) else [q["name"] if "kind" in q else q["path"] for q in listed]
    assert [name.rsplit(".", 1)[-1] for name in names] == [q.rstrip("/") for q in queues]  # -o json alike


def test_audit_namespace_without_anything_says_so_with_a_did_you_mean(kqctl: Callable[..., Run]) -> None:
    run = kqctl("audit", "samples/cohort-borrowing", "-n", "tem-b")
    assert run.code == 0
    assert "no LocalQueue in namespace 'tem-b'; did you mean team-b?" in run.err


@pytest.mark.parametrize("args, said", [
    # The input has quota; the filter kept none of it: say so, never that the input has none.
    (("samples/cohort-borrowing", "-n", "team-c"), "No ClusterQueue or Cohort left by -n team-c: no LocalQueue in "
     "namespace 'team-c' feeds one of the input's 3 ClusterQueue(s) and cohort(s)."),
    (("samples/hierarchical-cohorts", "-n", "nowhere"), "No ClusterQueue or Cohort left by -n nowhere: no LocalQueue "
     "in namespace 'nowhere' feeds one of the input's 7 ClusterQueue(s) and cohort(s)."),
    # No quota in the input at all, with or without -n.
    (("samples/submit-jobs",), "No ClusterQueue or Cohort in the input: there is no quota to audit."),
    (("samples/submit-jobs", "-n", "default"), "No ClusterQueue or Cohort in the input: there is no quota to audit."),
])
def test_audit_with_nothing_to_show_says_whether_the_input_or_the_filter_left_nothing(
        kqctl: Callable[..., Run], args: tuple[str, ...], said: str) -> None:
    run = kqctl("audit", *args)
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == said


def test_simulate_pending_column_says_it_counts_workloads(kqctl: Callable[..., Run]) -> None:
    header = kqctl("simulate", "samples/cohort-borrowing", "-o", "wide").out.splitlines()[0]
    assert "PENDING WORKLOADS" in header


@pytest.mark.parametrize(("sample", "sets", "rows", "findings", "rule"), [
    ("volcano-two-teams", ("--set", "queue/team-a.status.state=Closed", "--set", "queue/team-b.status.state=Closed"),
     "quota rows", 12, "VC-NEVER-1"),
    ("yunikorn-multi-tenant", (), "quota rows", 2, "YK-AUDIT-NEVER-FITS"),
])
def test_volcano_and_yunikorn_audit_show_at_most_limit_rows_and_findings_as_kueues(
        kqctl: Kq, sample: str, sets: tuple[str, ...], rows: str, findings: int, rule: str) -> None:
    # --limit N: at most N rows per table and N findings, the rest counted (the help's promise, Kueue's behaviour).
    path = str(REPO / "samples" / sample)
    full = kqctl("audit", path, *sets, "--show-all")
    limited = kqctl("audit", path, *sets, "--limit", "1")
    assert full.code == limited.code == 0, limited.err
    assert f"more {rows} not shown (first 1 of" in limited.out and "not shown" not in full.out
    assert f"... {findings - 1:,} more findings not shown ({rule} " in limited.out, limited.out
    shown = limited.out.split("\nFindings:\n")[1].split("\n\n")[0].splitlines()
    assert len(shown) >= 2 and shown[-1].lstrip().startswith("... ")  # one finding (maybe wrapped), then the count
    assert limited.out.splitlines()[-2:] == full.out.splitlines()[-2:]  # the summary still counts every finding
