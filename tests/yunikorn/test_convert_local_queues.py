"""convert --to kueue: which LocalQueues are written (a tag rule on the namespace, or the input's pods naming a
configured leaf) and namespaces Kubernetes would refuse reported as not carried over."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support import run_kqctl
from yunikorn_build import configmap, pod, text

TAG = "    placementrules:\n      - name: tag\n        value: namespace\n"
PROVIDED = "    placementrules:\n      - name: provided\n"


def _config(rules: str) -> str:
    return ("partitions:\n  - name: default\n" + rules + "    queues:\n      - name: root\n        submitacl: '*'\n"
            "        queues:\n          - name: team-a\n          - name: Team_B\n          - name: ml\n"
            "            queues:\n              - name: train\n")


CASES = [
    # (id, placement rules, pods as (namespace, queue label), LocalQueues (namespace, name, clusterQueue), loss)
    ("tag-rule-leaves", TAG, [], {("team-a", "team-a", "root-team-a")}, "namespace 'team_b'"),
    ("pods-name-leaves", PROVIDED, [("research", "root.ml.train"), ("research", "ml.train"), ("ops", "TEAM-A"),
                                    ("ops", "root.ml"), ("ops", "root.missing")],
     {("research", "train", "root-ml-train"), ("ops", "team-a", "root-team-a")}, None),
    ("both", TAG, [("research", "root.ml.train")],
     {("team-a", "team-a", "root-team-a"), ("research", "train", "root-ml-train")}, "namespace 'team_b'"),
    ("no-pods-no-tag-rule", PROVIDED, [], set(), None),
]


@pytest.mark.parametrize(("rules", "pods", "expected", "loss"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_convert_to_kueue_writes_local_queues(tmp_path: Path, rules: str, pods: list[tuple[str, str]],
                                              expected: set[tuple[str, str, str]], loss: str | None) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text([configmap(_config(rules)),
                          *[pod(f"p{i}", queue, f"app{i}", namespace=ns) for i, (ns, queue) in enumerate(pods)]]))
    run = run_kqctl("convert", "-f", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    local = {(d["metadata"]["namespace"], d["metadata"]["name"], d["spec"]["clusterQueue"])
             for d in yaml.safe_load_all(run.out) if d and d["kind"] == "LocalQueue"}
    assert local == expected
    cluster_queues = {d["metadata"]["name"] for d in yaml.safe_load_all(run.out) if d and d["kind"] == "ClusterQueue"}
    assert {cq for _, _, cq in local} <= cluster_queues
    if loss:
        assert f"not carried over: root.team_b: the tag rule would serve {loss}" in run.err
    assert "team_b" not in {ns for ns, _, _ in local}
