"""LOAD-SKIPPED names what the chosen scheduler reads: with --scheduler yunikorn, YuniKorn's ConfigMaps by name,
Pods, Nodes, Namespaces..., never Kueue's list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_kqctl

OTHER_CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c5, namespace: yunikorn}\ndata: {a: b}\n"


@pytest.mark.parametrize("scheduler, named, not_named", [
    ("yunikorn", ["yunikorn-configs", "yunikorn-defaults", "queues.yaml", "Pods", "Nodes", "Namespaces"],
     ["Kueue", "Jobs"]),
    ("kueue", ["Kueue objects", "Jobs", "Pods"], ["yunikorn", "Volcano"]),
    ("volcano", ["Volcano objects", "volcano-scheduler-configmap", "Nodes"], ["Kueue", "yunikorn"]),
    (None, ["for Kueue:", "for Volcano:", "for YuniKorn:", "yunikorn-configs"], []),
])
def test_load_skipped_hint_lists_what_the_scheduler_reads(tmp_path: Path, scheduler: str | None, named: list[str],
                                                          not_named: list[str]) -> None:
    path = tmp_path / "c5.yaml"
    path.write_text(OTHER_CONFIG_MAP)
    args = ("--scheduler", scheduler) if scheduler else ()
    run = run_kqctl("validate", str(path), *args, "-o", "json")
    findings = [f for d in json.loads(run.out)["documents"] for f in d["findings"]]
    hint = next(f["hint"] for f in findings if f["ruleId"] == "LOAD-SKIPPED")
    assert all(word in hint for word in named), hint
    assert not any(word in hint for word in not_named), hint
