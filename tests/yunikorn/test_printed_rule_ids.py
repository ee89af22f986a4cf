"""Every rule ID YuniKorn's explain, simulate and audit print resolves with ``kqctl rules`` (YK-E1-E4 preemption
preconditions, YK-P1/P2 priorities, YK-G4-G7 quota gating among them)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from support import run_kqctl
from yunikorn_build import configmap, node, pod, text

ID = re.compile(r"\bYK-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")
CONFIG = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
          "        queues:\n          - name: a\n            resources:\n              guaranteed: {vcore: 2}\n"
          "          - name: b\n")


@pytest.fixture
def young(tmp_path: Path) -> Path:
    """A pod younger than preemption.delay (YK-E3) asking for a resource no node has (YK-G4)."""
    path = tmp_path / "young.yaml"
    hog = [pod(f"hog-{i}", "root.b", "hogs", cpu="1", node_name="n1") for i in range(2)]
    want = pod("want", "root.a", "w", cpu="1", age=timedelta(seconds=5))
    gpu = pod("gpu", "root.a", "g", cpu="0", age=timedelta(seconds=5))
    gpu["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    # an extended resource's limit is required, and equal to the request (VAL-POD-3: the API server's rule)
    gpu["spec"]["containers"][0]["resources"].setdefault("limits", {})["nvidia.com/gpu"] = "1"
    path.write_text(text([configmap(CONFIG), node("n1", cpu="2"), *hog, want, gpu]))
    return path


@pytest.mark.parametrize(("args", "expected"), [
    (("explain", "default/want"), {"YK-E3", "YK-P1", "YK-P2", "YK-G5", "YK-PL"}),
    (("explain", "default/gpu"), {"YK-G4"}),
    (("simulate", "-o", "wide"), set()),
])
def test_yk_e3_g4_p1_p2_every_printed_id_resolves(young: Path, args: tuple[str, ...], expected: set[str]) -> None:
    run = run_kqctl(*args, str(young), "--now", "2026-05-01T12:00:00Z")
    assert run.code in (0, 1), run.err
    printed = set(ID.findall(run.out))
    assert expected <= printed, printed
    for rule_id in printed:
        assert run_kqctl("rules", rule_id).code == 0, rule_id


def test_yk_audit_every_printed_id_resolves(young: Path) -> None:
    run = run_kqctl("audit", str(young))
    assert run.code in (0, 1), run.err
    for rule_id in set(ID.findall(run.out)):
        assert run_kqctl("rules", rule_id).code == 0, rule_id
