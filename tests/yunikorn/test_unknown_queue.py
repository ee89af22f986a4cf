"""YK-PL-QUEUE: a pod naming a queue placement does not put its application in (a typo, a parent queue, a queue the
user may not submit to): validate warns with the engine's own reason and a did-you-mean, explain says so and offers the
relabelling it verified; explain --queue lists the applications placement rejected (YK-PL) instead of only "nothing
pending"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_kqctl
from yunikorn_build import configmap, node, pod, text

from kqctl.yunikorn.engine.placement import missing_queue

QUEUES = ["root.guaranteed", "root.besteffort", "root.team.batch"]


def _config(rules: str = "", acl: str | None = "'*'") -> str:
    return ("partitions:\n  - name: default\n" + rules + "    queues:\n      - name: root\n"
            + (f"        submitacl: {acl}\n" if acl is not None else "")
            + "        queues:\n          - name: guaranteed\n"
            "          - name: besteffort\n          - name: team\n            queues:\n"
            "              - name: batch\n")


@pytest.mark.parametrize(("requested", "path", "close"), [
    ("root.guarantee", "root.guarantee", ("root.guaranteed",)),
    ("guarantee", "root.guarantee", ("root.guaranteed",)),          # unqualified: under root
    ("ROOT.GUARANTEE", "root.guarantee", ("root.guaranteed",)),     # paths are case-insensitive
    ("team.bacth", "root.team_dot_bacth", ("root.team.batch",)),    # dots of an unqualified name are escaped
    ("root.nothing-like-it", "root.nothing-like-it", ()),
])
def test_yk_pl_queue_missing_queue_and_did_you_mean(requested: str, path: str, close: tuple[str, ...]) -> None:
    lookup = {q: q for q in [*QUEUES, "root", "root.team"]}.get
    missing = missing_queue(requested, lookup, QUEUES)  # type: ignore[arg-type]
    assert missing is not None and (missing.path, missing.close) == (path, close)


@pytest.mark.parametrize("requested", ["", "root.guaranteed", "GUARANTEED", "root.team.batch"])
def test_yk_pl_queue_existing_or_no_queue_is_not_missing(requested: str) -> None:
    lookup = {q: q for q in [*QUEUES, "root", "root.team"]}.get
    assert missing_queue(requested, lookup, QUEUES) is None  # type: ignore[arg-type]


VALIDATE_CASES = [
    # (id, placement rules, the pod's queue label, expected warning message part or None, did-you-mean)
    ("typo-rejected", "", "root.guarantee", "YuniKorn rejects its application", "root.guaranteed"),
    ("typo-unqualified", "", "guarante", "YuniKorn rejects its application", "root.guaranteed"),
    ("existing-leaf", "", "root.guaranteed", None, None),
    ("created-by-provided-rule", "    placementrules:\n      - name: provided\n        create: true\n",
     "root.guarantee", None, None),
    ("typo-placed-elsewhere-by-tag-rule",
     "    placementrules:\n      - name: provided\n      - name: tag\n        value: namespace\n        create: true\n",
     "root.guarante", "its application goes to root.default instead", "root.guaranteed"),
]


@pytest.mark.parametrize(("rules", "label", "message", "close"), [c[1:] for c in VALIDATE_CASES],
                         ids=[c[0] for c in VALIDATE_CASES])
def test_yk_pl_queue_validate_warns_about_a_queue_nobody_creates(tmp_path: Path, rules: str, label: str,
                                                                 message: str | None, close: str | None) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text([configmap(_config(rules)), node("n1"), pod("want", label, "w")]))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out
    found = [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["ruleId"] == "YK-PL-QUEUE"]
    if message is None:
        assert found == []
        return
    [finding] = found
    assert finding["severity"] == "warning" and message in finding["message"]
    assert finding["field"] == "metadata.labels.queue" and f"did you mean {close}?" in finding["hint"]


PROVIDED_CREATE = "    placementrules:\n      - name: provided\n        create: true\n"
TAG_ONLY = "    placementrules:\n      - name: tag\n        value: namespace\n        create: true\n"
REFUSED_CASES = [
    # (id, rules, root's submitacl (None: none), the pod's queue label, rule, message part, hint part)
    ("parent-queue", "", "'*'", "root.team", "YK-PL-QUEUE",
     "the pod asks for queue root.team, a parent queue (only a leaf takes applications): YuniKorn rejects",
     "name a leaf queue below it: root.team.batch"),
    ("parent-queue-create-does-not-help", PROVIDED_CREATE, "'*'", "root.team", "YK-PL-QUEUE", "a parent queue",
     "root.team.batch"),
    ("no-submit-acl-existing-queue", "", None, "root.guaranteed", "YK-PL-QUEUE",
     "the user nobody may not submit to root.guaranteed", "submitacl"),
    ("no-submit-acl-queue-to-create", PROVIDED_CREATE, None, "root.other", "YK-PL-QUEUE",
     "the user nobody may not submit to root (submitacl/adminacl up the tree): YuniKorn rejects",
     "no submitacl or adminacl on root or a queue above it"),
    ("empty-submit-acl-queue-to-create", PROVIDED_CREATE, "''", "root.other", "YK-PL-QUEUE",
     "may not submit to root", "submitacl: '*'"),
    ("existing-queue-no-rule-takes-the-label", TAG_ONLY, "'*'", "root.guaranteed", "YK-PL-QUEUE",
     "no placement rule takes the queue a pod names: its application goes to root.default instead",
     "a provided rule first"),
    ("no-queue-label-and-nothing-places-it", "", "'*'", "", "YK-PL-REJECTED",
     "YuniKorn rejects the pod's application w: failed to place application w", "name a queue"),
]


@pytest.mark.parametrize(("rules", "acl", "label", "rule", "message", "hint"), [c[1:] for c in REFUSED_CASES],
                         ids=[c[0] for c in REFUSED_CASES])
def test_yk_pl_validate_warns_where_placement_refuses_the_queue_with_the_engines_reason(
        tmp_path: Path, rules: str, acl: str | None, label: str, rule: str, message: str, hint: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text([configmap(_config(rules, acl)), node("n1"), pod("want", label, "w")]))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out
    found = [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["ruleId"].startswith("YK-PL")]
    [finding] = found
    assert finding["ruleId"] == rule and finding["severity"] == "warning"
    assert message in finding["message"] and hint in finding["hint"], finding
    assert "create: true" not in finding["hint"]  # never the hint when a rule creates, or creating would not help
    assert finding["field"] == ("metadata.labels.queue" if label else "")
    # one answer: simulate places the application where validate says
    simulated = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    [state] = [p["state"] for p in simulated["pods"] if p["name"] == "want"]
    assert (state == "Rejected") == ("YuniKorn rejects" in finding["message"])


@pytest.fixture
def typo(tmp_path: Path) -> Path:
    path = tmp_path / "typo.yaml"
    path.write_text(text([configmap(_config()), node("n1", cpu="2"), pod("want", "root.guarantee", "w")]))
    return path


def test_yk_pl_explain_says_the_queue_does_not_exist_and_verifies_the_relabelling(typo: Path) -> None:
    run = run_kqctl("explain", "default/want", str(typo))
    assert run.code == 0, run.err
    assert "queue root.guarantee does not exist (did you mean root.guaranteed?)" in run.out
    assert "name queue root.guaranteed in the pod's queue label" in run.out
    data = json.loads(run_kqctl("explain", "default/want", str(typo), "-o", "json").out)
    assert data["missingQueue"] == {"queue": "root.guarantee", "didYouMean": ["root.guaranteed"]}
    assert [s["outcome"] for s in data["suggestions"]][:1] == ["Allocated"]


def test_yk_pl_explain_queue_lists_applications_placement_rejected(tmp_path: Path) -> None:
    path = tmp_path / "acl.yaml"
    path.write_text(text([configmap(_config(acl="''")), node("n1"), pod("a-0", "root.team.batch", "a"),
                          pod("b-0", "root.besteffort", "b")]))
    run = run_kqctl("explain", "--queue", "root.team.batch", str(path))
    assert run.code == 0, run.err
    assert "Rejected applications that ask for root.team.batch" in run.out
    assert "the user nobody may not submit to root.team.batch" in run.out
    assert "b (default/b-0" not in run.out  # it asked for another queue
    data = json.loads(run_kqctl("explain", "--queue", "root", str(path), "-o", "json").out)
    assert [r["application"] for r in data["rejected"]] == ["a", "b"]


def test_explain_given_a_queue_path_as_the_pod_points_at_explain_queue() -> None:
    run = run_kqctl("explain", "root.tenant1", "samples/yunikorn-priority")
    assert run.code == 2
    assert "root.tenant1 is a queue: kqctl explain --queue root.tenant1" in run.err

