"""audit's table: plain columns at any width, tree lines kept, human units, one line per finding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support import REPO, Run

Kq = Callable[..., Run]


def test_quota_tree_rows_are_one_line_each_even_at_80_columns(kqctl: Kq) -> None:
    out = kqctl("audit", "samples/hierarchical-cohorts", env={"COLUMNS": "80"}, tty=True).out.splitlines()
    rows = out[1:next(i for i, line in enumerate(out) if line.startswith("UTIL = "))]
    assert all(len(row.split()) >= 5 and len(row) <= 80 for row in rows)  # nothing folded onto a second line
    assert rows[3].startswith("│  ") and "memory" in rows[3]  # a node's second row keeps the tree line


def test_findings_are_one_line_with_their_hint(kqctl: Kq, write: Callable[..., str]) -> None:
    cluster = (REPO / "samples" / "cohort-borrowing" / "cluster.yaml").read_text()
    write("cluster.yaml", cluster)
    path = write("huge.yaml", """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: huge, namespace: team-b}
spec:
  queueName: team-b-queue
  podSets:
  - name: main
    count: 100
    template:
      spec:
        containers:
        - {name: c, image: x, resources: {requests: {cpu: "1"}}}
""")
    out = kqctl("audit", str(Path(path).parent)).out
    findings = out.split("Findings:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert findings and all(line.startswith("  warning AUDIT-") or line.startswith("  info AUDIT-")
                            for line in findings)
    assert any("AUDIT-NEVER-FITS Workload/team-b/huge" in line and "(hint: " in line for line in findings)


def test_audit_name_and_no_headers(kqctl: Kq) -> None:
    assert kqctl("audit", "samples/cohort-borrowing", "-o", "name").out.splitlines() == [
        "clusterqueue.kueue.x-k8s.io/team-a", "clusterqueue.kueue.x-k8s.io/team-b"]
    rows = kqctl("audit", "samples/cohort-borrowing", "--no-headers").out.splitlines()
    assert rows[0].startswith("research/") and not any(row.startswith(("NODE ", "CLUSTERQUEUE ")) for row in rows)
