"""YK-AUDIT-NEVER-FITS: audit names exactly the pending pods simulate calls inadmissible (can never get in as
configured), from the same computed answer (inadmissible.NeverFits): a max up the path, a user limit, or no node
big enough."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from support import REPO, run_kqctl
from yunikorn_build import node, pod, snapshot
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.engine.audit import audit
from kqctl.yunikorn.engine.simulation import simulate
from kqctl.yunikorn.load import build_snapshot

TENANTS = "samples/yunikorn-multi-tenant"
QUEUES = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
          "        queues:\n          - name: a\n            resources:\n              max: {vcore: 20}\n")

CASES = [
    # (id, nodes' cpu, the pod's cpu, the reason's words or None)
    ("larger-than-any-node", ["8", "8"], "12", "it asks vcore 12 and the largest node has 8"),
    ("larger-than-the-queue-max", ["16", "16"], "21", "the max of root.a is 20"),
    ("fits", ["8"], "2", None),
]


@pytest.mark.parametrize(("nodes", "cpu", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_yk_audit_never_fits_names_the_pod_with_simulates_reason(nodes: list[str], cpu: str,
                                                                 words: str | None) -> None:
    built = snapshot(QUEUES, *[node(f"n{i}", cpu=c, memory="64Gi") for i, c in enumerate(nodes)],
                     pod("p", "root.a", "app", cpu=cpu))
    found = [f for f in audit(copy.deepcopy(built)).findings if f.rule == "YK-AUDIT-NEVER-FITS"]
    [outcome] = simulate(built).pods
    assert bool(found) == bool(outcome.inadmissible) == (words is not None)
    if words is not None:
        assert [(f.queue, f.message) for f in found] == [
            ("root.a", f"default/p can never get in as configured: {outcome.inadmissible}")]
        assert words in outcome.inadmissible


def _sample(name: str) -> str:
    return "---\n".join(p.read_text() for p in sorted((REPO / "samples" / name).glob("*.yaml")))


@pytest.mark.parametrize("source", ["sample:yunikorn-multi-tenant", "sample:yunikorn-priority",
                                    *(f"generated:{seed}" for seed in range(0, 60, 4))])
def test_audit_flags_exactly_the_pods_simulate_calls_inadmissible(source: str) -> None:
    kind, _, name = source.partition(":")
    body = _sample(name) if kind == "sample" else yaml.safe_dump_all(cluster(int(name)))
    built = build_snapshot(load_text(ALL_KINDS, body, "in.yaml"), NOW)
    flagged = {f.message.split(" ", 1)[0] for f in audit(copy.deepcopy(built)).findings
               if f.rule == "YK-AUDIT-NEVER-FITS"}
    never = {f"{p.namespace}/{p.name}" for p in simulate(built).pods if p.inadmissible}
    assert flagged == never


def test_audit_of_the_multi_tenant_sample_reports_the_giant_pod_in_table_and_json() -> None:
    table = run_kqctl("audit", TENANTS)
    assert "YK-AUDIT-NEVER-FITS root.ml.training: training/giant-0 can never get in as configured: it asks vcore " \
        "12 and the largest node has 8" in table.out
    data = json.loads(run_kqctl("audit", TENANTS, "-o", "json").out)
    assert any(f["ruleId"] == "YK-AUDIT-NEVER-FITS" and "training/giant-0" in f["message"] for f in data["findings"])
    assert run_kqctl("simulate", TENANTS, "--fail-on", "inadmissible").code == 1


