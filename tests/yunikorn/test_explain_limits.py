"""explain for a pod held by a user or group limit (YK-G2): human units, a verified suggestion raising the limit;
the reason recorded when YuniKorn last tried the pod and the headroom at the end are labelled as such (YK-G3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_kqctl
from yunikorn_build import configmap, node, pod, text

LIMITS = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            limits:
              - limit: one-core
                {who}
                maxresources: {{vcore: 1, memory: 4Gi}}
"""
ALICE = {"yunikorn.apache.org/user.info": json.dumps({"user": "alice", "groups": ["ml"]})}


@pytest.mark.parametrize(("who", "kind", "name"), [
    ("users: [alice]", "user", "alice"),
    ("groups: [ml]", "group", "ml"),
    ("users: ['*']", "user", "alice"),
])
def test_g2_explain_prints_limits_in_human_units_and_verifies_raising_them(tmp_path: Path, who: str, kind: str,
                                                                           name: str) -> None:
    path = tmp_path / "limits.yaml"
    pods = [pod(f"p{i}", "root.a", "app", cpu="1", memory="1Gi", annotations=ALICE) for i in range(2)]
    path.write_text(text([configmap(LIMITS.format(who=who)), node("n1"), *pods]))
    run = run_kqctl("explain", "default/p1", str(path))
    assert run.code == 0, run.err
    assert f"  {kind} {name} at root.a (one-core): max vcore 1, memory 4Gi, used vcore 1, memory 1Gi, pods 1, " \
        "left vcore 0, memory 3Gi" in run.out
    assert "map[" not in run.out
    data = json.loads(run_kqctl("explain", "default/p1", str(path), "-o", "json").out)
    [limit] = data["userLimits"]["limits"]
    assert (limit["kind"], limit["name"], limit["maxResources"]) == (kind, name, {"memory": 4 * 2**30, "vcore": 1000})
    [suggestion] = [s for s in data["suggestions"] if "maxresources" in s["change"]]
    assert suggestion["change"] == (f"raise the maxresources of {kind} {name}'s limit one-core on root.a to vcore 2 "
                                    "(root.a vcore: it allows 1)")
    assert suggestion["verified"] and suggestion["outcome"] == "Allocated"


def test_g3_explain_labels_the_last_try_and_the_end_state() -> None:
    run = run_kqctl("explain", "training/giant-0", "samples/yunikorn-multi-tenant", "--now", "2026-01-01T12:00:00Z")
    assert run.code == 0, run.err
    assert "  when last tried: Not enough queue quota (" in run.out
    assert "Queue headroom up the path at the end of the simulation" in run.out
