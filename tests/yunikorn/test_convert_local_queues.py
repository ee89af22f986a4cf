"""convert --to kueue: which LocalQueues are written (a tag rule on the namespace, or the input's pods naming a
configured leaf) and namespaces Kubernetes would refuse reported as not carried over."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support import run_kqctl
from yunikorn_build import configmap, node, pod, text

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


# --- the cluster's capacity: YuniKorn's root queue holds every node's allocatable -----------------------------------

CAPACITY_CONFIG = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
                   "        queues:\n          - name: small\n            resources:\n"
                   "              guaranteed: {vcore: 2, memory: 4Gi}\n              max: {vcore: 6, memory: 12Gi}\n"
                   "          - name: burst\n            resources:\n              max: {vcore: 4}\n")


def _converted(tmp_path: Path, nodes: int) -> tuple[list[dict[str, object]], str]:
    path = tmp_path / "in.yaml"
    path.write_text(text([configmap(CAPACITY_CONFIG), *[node(f"n{i}", cpu="8", memory="16Gi") for i in range(nodes)]]))
    run = run_kqctl("convert", str(path), "--to", "kueue")
    assert run.code == 0, run.err
    return list(yaml.safe_load_all(run.out)), run.err


def test_the_root_cohort_holds_the_nodes_capacity_beyond_the_leaves_guaranteed(tmp_path: Path) -> None:
    documents, _ = _converted(tmp_path, 2)
    root = next(d for d in documents if d["kind"] == "Cohort" and d["metadata"]["name"] == "root")
    quotas = {r["name"]: r["nominalQuota"] for r in root["spec"]["resourceGroups"][0]["flavors"][0]["resources"]}
    assert quotas == {"cpu": "14", "memory": "28Gi"}  # 16 cores and 32Gi, less small's guaranteed 2 and 4Gi
    out = tmp_path / "kueue.yaml"
    out.write_text(yaml.safe_dump_all(documents))
    checked = run_kqctl("validate", str(out), "-o", "json")
    # burst (max only) can borrow from the root: no "nothing can ever be admitted" nor "no lender" any more
    assert checked.code == 0 and "XO-CQ-ZERO-QUOTA" not in checked.out and "XO-CQ-NO-LENDER" not in checked.out


def test_without_nodes_the_conversion_says_the_root_has_no_quota(tmp_path: Path) -> None:
    documents, err = _converted(tmp_path, 0)
    root = next(d for d in documents if d["kind"] == "Cohort" and d["metadata"]["name"] == "root")
    assert "resourceGroups" not in root["spec"]
    assert "not carried over: root: the cluster's capacity" in err and "no Node in the inputs" in err
