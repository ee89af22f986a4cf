"""audit reports each rule at the severity the catalogue (and validate) gives it: YK-V24 is a warning there too
(YuniKorn accepts any resource name: the limit is kept and limits nothing)."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_kqctl
from yunikorn_build import configmap, node, pod, text

from kqctl import catalogue

CONFIG = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: p
            resources: {max: {memory: 4Gi}}
            queues:
              - name: a
                resources: {guaranteed: {vcore: 3}}
              - name: b
                resources: {guaranteed: {vcore: 3}}
          - name: c
            resources: {max: {cpu: 2, memory: 1Gi}}
          - name: z
            resources: {max: {vcore: 0}}
"""


def test_yk_v24_audit_and_validate_severities_match_the_catalogue(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(text([configmap(CONFIG), node("n1"), pod("p", "root.c", "app")]))
    findings = json.loads(run_kqctl("audit", str(path), "-o", "json").out)["findings"]
    seen = {f["ruleId"]: f["severity"] for f in findings}
    assert {"YK-V24", "YK-V25"} <= set(seen), seen
    for rule_id, severity in seen.items():
        assert severity == catalogue.CATALOGUE[rule_id].severity, rule_id
    validated = json.loads(run_kqctl("validate", str(path), "-o", "json").out)
    v24 = {f["severity"] for d in validated["documents"] for f in d["findings"] if f["ruleId"] == "YK-V24"}
    assert v24 == {seen["YK-V24"]} == {"warning"}
    table = run_kqctl("audit", str(path)).out
    assert "  warning YK-V24 root.c: max cpu limits nothing" in table


def test_yk_v24_audit_reports_near_misses_of_vcore_and_memory_as_validate_does(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(text([configmap(CONFIG.replace("{max: {cpu: 2, memory: 1Gi}}", "{max: {Memory: 1Gi}}")),
                          node("n1"), pod("p", "root.c", "app")]))
    findings = json.loads(run_kqctl("audit", str(path), "-o", "json").out)["findings"]
    v24 = [(f["severity"], f["message"]) for f in findings if f["ruleId"] == "YK-V24"]
    assert v24 == [("warning", "max Memory limits nothing: pods ask for memory")], findings
