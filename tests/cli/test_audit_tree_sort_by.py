"""Volcano's and YuniKorn's audit tables honour --sort-by as Kueue's quota table does: siblings ordered by the
column level by level, each subtree moving with its parent, each queue's rows ordered too; a key that names no
column is a usage error with the closest header. YuniKorn's findings sort by severity, rule or object as Kueue's do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import run_kqctl
from typer.testing import CliRunner

_LABEL = re.compile(r"^(?:[│ ]*(?:├─|└─) )?(\S+)")


def _label_rows(out: str) -> list[tuple[str, str]]:
    """(queue, resource) of each queue's first row, top to bottom: the row that names the queue (at the top level
    with no glyphs before it, below with a branch)."""
    lines = out.splitlines()
    at = lines[0].index("RESOURCE")
    found = []
    for line in lines[1:]:
        if not line.strip():
            break
        if line.startswith((" ", "│")) and "├─" not in line and "└─" not in line:
            continue  # a queue's later row
        match = _LABEL.match(line)
        assert match is not None, line
        found.append((match.group(1), line[at:].split()[0]))
    return found


def _queues(out: str) -> list[str]:
    return [name for name, _ in _label_rows(out)]


def _first_resources(out: str) -> set[str]:
    return {resource for _, resource in _label_rows(out)}


@pytest.mark.parametrize(("sample", "key", "expected"), [
    ("yunikorn-multi-tenant", None, ["root", "analytics", "dashboards", "reports", "batch", "ml", "training"]),
    ("yunikorn-multi-tenant", "allocated", ["root", "analytics", "dashboards", "reports", "ml", "training", "batch"]),
    ("yunikorn-multi-tenant", "pending", ["root", "batch", "analytics", "dashboards", "reports", "ml", "training"]),
    ("yunikorn-multi-tenant", "QUEUE", ["root", "analytics", "dashboards", "reports", "batch", "ml", "training"]),
    ("yunikorn-multi-tenant", "effective_max", ["root", "batch", "analytics", "dashboards", "reports", "ml",
                                                "training"]),
    ("volcano-hierarchy", None, ["default", "eng", "eng-ml", "eng-web", "ops"]),
    ("volcano-hierarchy", "pending-demand", ["default", "ops", "eng", "eng-web", "eng-ml"]),
    ("volcano-hierarchy", "queue", ["default", "eng", "eng-ml", "eng-web", "ops"]),
])
def test_audit_sort_by_orders_siblings_and_keeps_each_subtree_under_its_parent(sample: str, key: str | None,
                                                                              expected: list[str]) -> None:
    run = run_kqctl("audit", f"samples/{sample}", "-o", "wide", *(("--sort-by", key) if key else ()))
    assert run.code == 0, run.err
    assert _queues(run.out) == expected


def test_audit_sort_by_orders_each_queues_rows_by_the_column() -> None:
    assert _first_resources(run_kqctl("audit", "samples/yunikorn-multi-tenant").out) == {"vcore"}
    assert _first_resources(run_kqctl("audit", "samples/yunikorn-multi-tenant", "--sort-by", "resource").out) == \
        {"memory"}


@pytest.mark.parametrize(("sample", "key", "close"), [
    ("yunikorn-multi-tenant", "alocated", "did you mean allocated?"),
    ("volcano-hierarchy", "pending", "did you mean pending-demand?"),
    ("volcano-hierarchy", "nothing-like-it", "choose one of: queue, state, weight"),
    ("cohort-borrowing", "utl", "no such column of the audit table (did you mean util?); choose one of:"),  # Kueue
])
def test_audit_sort_by_an_unknown_column_is_a_usage_error(sample: str, key: str, close: str) -> None:
    run = run_kqctl("audit", f"samples/{sample}", "--sort-by", key)
    assert run.code == 2
    assert close in run.err and not run.out


_FENCED_QUEUES = """partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: a
            properties: {priority.policy: fence, priority.offset: "1"}
          - name: b
            properties: {priority.policy: fence, priority.offset: "2"}
            resources: {max: {cpu: "4"}}
"""
_LOST_POD_AND_NODE = """apiVersion: v1
kind: Pod
metadata: {name: lost, namespace: default, labels: {queue: root.nowhere}}
spec:
  schedulerName: yunikorn
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _finding_lines(out: str) -> list[tuple[str, str, str]]:
    """(severity, rule, queue) of each finding line, top to bottom."""
    lines = out.split("\nFindings:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [(severity, rule, queue.rstrip(":")) for severity, rule, queue, *_ in (line.split() for line in lines)]


@pytest.mark.parametrize(("key", "expected"), [
    (None, [("info", "YK-AUDIT-FENCED-BEHIND", "root.a"), ("warning", "YK-V24", "root.b"),
            ("info", "YK-AUDIT-NO-GUARANTEE", "root"), ("warning", "YK-AUDIT-REJECTED", "root")]),
    ("severity", [("warning", "YK-V24", "root.b"), ("warning", "YK-AUDIT-REJECTED", "root"),
                  ("info", "YK-AUDIT-FENCED-BEHIND", "root.a"), ("info", "YK-AUDIT-NO-GUARANTEE", "root")]),
    ("Rule", [("info", "YK-AUDIT-FENCED-BEHIND", "root.a"), ("info", "YK-AUDIT-NO-GUARANTEE", "root"),
              ("warning", "YK-AUDIT-REJECTED", "root"), ("warning", "YK-V24", "root.b")]),
    ("object", [("info", "YK-AUDIT-NO-GUARANTEE", "root"), ("warning", "YK-AUDIT-REJECTED", "root"),
                ("info", "YK-AUDIT-FENCED-BEHIND", "root.a"), ("warning", "YK-V24", "root.b")]),
])
def test_yunikorn_audit_sort_by_severity_rule_or_object_orders_the_findings_as_kueue(
        tmp_path: Path, key: str | None, expected: list[tuple[str, str, str]]) -> None:
    from kqctl.cli.app import app

    (tmp_path / "queues.yaml").write_text(_FENCED_QUEUES)
    (tmp_path / "cluster.yaml").write_text(_LOST_POD_AND_NODE)
    result = CliRunner().invoke(app, ["audit", str(tmp_path), *(("--sort-by", key) if key else ())])
    assert result.exit_code == 0, result.output
    assert _finding_lines(result.stdout) == expected
    # the quota table keeps its tree order: the key names a field of the findings, not a column
    assert _queues(result.stdout) == ["root", "a", "b"]


def test_yunikorn_audit_sort_by_a_near_miss_names_the_finding_keys_too() -> None:
    run = run_kqctl("audit", "samples/yunikorn-multi-tenant", "--sort-by", "sevrity")
    assert run.code == 2 and not run.out
    assert "did you mean severity?" in run.err and "share, severity, rule, object" in run.err
