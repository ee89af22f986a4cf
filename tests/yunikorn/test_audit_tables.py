"""YuniKorn's audit reads as a tree and names a queue above its max (YK-AUDIT-OVER-MAX); its simulate table keeps
``/`` for vcore/memory only (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

from support import REPO, run_kqctl
from yunikorn_build import configmap, node, pod, text

TENANTS = str(REPO / "samples" / "yunikorn-multi-tenant")


def _over_max(quota_preemption: bool) -> str:
    preemption = "    preemption: {quotapreemptionenabled: true}\n" if quota_preemption else ""
    return f"""partitions:
  - name: default
{preemption}    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: team
            properties: {{quota.preemption.delay: 30s}}
            resources: {{max: {{vcore: 2, memory: 4Gi}}}}
"""


def _audit(tmp_path: Path, config: str) -> dict[str, object]:
    path = tmp_path / "cluster.yaml"
    bound = [pod(f"p{i}", "root.team", "app", cpu="1", memory="1Gi", node_name="n1") for i in range(3)]
    path.write_text(text([configmap(config), node("n1", cpu="8", memory="32Gi"), *bound]))
    run = run_kqctl("audit", str(path), "-o", "json")
    assert run.code == 0, run.err
    return json.loads(run.out)  # type: ignore[no-any-return]


def test_yk_audit_over_max_names_a_queue_holding_more_than_its_max(tmp_path: Path) -> None:
    findings = [f for f in _audit(tmp_path, _over_max(False))["findings"] if f["ruleId"] == "YK-AUDIT-OVER-MAX"]
    assert [f["queue"] for f in findings] == ["root.team"] and findings[0]["severity"] == "warning"
    assert "vcore 3 of max 2" in findings[0]["message"] and "does not preempt" in findings[0]["message"]


def test_yk_audit_over_max_says_when_quota_preemption_takes_it_back(tmp_path: Path) -> None:
    findings = [f for f in _audit(tmp_path, _over_max(True))["findings"] if f["ruleId"] == "YK-AUDIT-OVER-MAX"]
    assert "quota preemption takes it back under max after 30s" in findings[0]["message"]


def test_yk_audit_over_max_on_the_sample_and_in_the_table() -> None:
    out = run_kqctl("audit", TENANTS).out
    assert "  warning YK-AUDIT-OVER-MAX root.batch: holds more than its max (memory 40Gi of max 32Gi, vcore 10 of " \
           "max 8)" in out


def test_audit_table_draws_the_queue_tree_with_glyphs_for_siblings() -> None:
    lines = run_kqctl("audit", TENANTS).out.splitlines()
    rows = lines[1:lines.index("")]
    names = [line.split(" vcore ")[0].rstrip() for line in rows if " vcore " in line]
    assert names == ["root", "├─ analytics", "│  ├─ dashboards (dynamic)", "│  └─ reports (dynamic)", "├─ batch",
                     "└─ ml", "   └─ training (dynamic)"]
    # YuniKorn's own word in the 80-column table (simulate's PENDING); the markdown table names it in full
    assert lines[0].split()[-1] == "PENDING"
    assert "| allocated | pending demand |" in run_kqctl("audit", TENANTS, "-o", "markdown").out


def test_simulate_table_uses_slash_only_for_vcore_and_memory() -> None:
    out = run_kqctl("simulate", TENANTS, "--now", "2026-01-01T12:00:00Z", "-o", "wide").out  # RUNNING APPS: wide
    batch = next(line for line in out.splitlines() if line.startswith("root.batch "))
    assert batch.endswith("2 (max 2)   -") and batch.count("/") == 3  # max, allocated, pending: vcore/memory each
