"""VC-POD-PG: a pod of the volcano scheduler whose annotation scheduling.k8s.io/group-name names a PodGroup that does
not exist. The podgroup controller makes none for it and the scheduler's cache skips its job (``Snapshot``: "The
scheduling spec of Job ... is nil, ignore it."), so it stays Pending. validate says so (a warning, an error with
--closed) and every command gives the one answer simulate has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support import run_kqctl
from tests.volcano.builders import group, node, pod, queue, run

ORPHAN = [queue("q1"), node("n1", cpu="4"), pod("p-orphan", "nosuchpg")]


@pytest.fixture()
def orphan(tmp_path: Path) -> Path:
    path = tmp_path / "orphan.yaml"
    path.write_text(yaml.safe_dump_all(ORPHAN), encoding="utf-8")
    return path


def test_vc_pod_pg_the_engine_keeps_the_pods_of_a_missing_podgroup_pending_and_says_why() -> None:
    outcome = run(*ORPHAN).groups["ns/nosuchpg"]
    assert outcome.absent and outcome.ignored
    assert dict(outcome.pods) == {"ns/p-orphan": ""}
    assert outcome.reason is not None and outcome.reason[0] == "podgroup-missing"
    assert "is nil, ignore it" in outcome.reason[1]
    assert "does not exist" in outcome.never


@pytest.mark.parametrize(("objects", "missing"), [
    # a vcjob's PodGroup is named after the job: its pods' annotation names one that exists
    ([queue("q1"), {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"namespace": "ns",
                                                                                          "name": "j"},
                    "spec": {"queue": "q1", "tasks": [{"name": "t", "replicas": 1, "template": {"spec": {
                        "containers": [{"name": "c", "image": "x"}]}}}]}}, pod("extra", "j")], False),
    ([queue("q1"), group("g", "q1"), pod("p", "g")], False),
    ([queue("q1"), group("g", "q1", ns="other"), pod("p", "g")], True),  # another namespace's PodGroup
    ([queue("q1"), pod("p", "nosuchpg")], True),
])
def test_vc_pod_pg_only_a_podgroup_nothing_makes_is_missing(objects: list[dict[str, object]], missing: bool) -> None:
    assert any(outcome.absent for outcome in run(*objects).groups.values()) is missing


@pytest.mark.parametrize(("closed", "code", "severity"), [((), 0, "warning"), (("--closed",), 1, "error")])
def test_vc_pod_pg_validate_locates_the_annotation(orphan: Path, closed: tuple[str, ...], code: int,
                                                   severity: str) -> None:
    result = run_kqctl("validate", *closed, str(orphan), "-o", "json")
    assert result.code == code, result.err
    findings = [(doc["kind"], f) for doc in json.loads(result.out)["documents"] for f in doc["findings"]
                if f["ruleId"] == "VC-POD-PG"]
    assert len(findings) == 1
    kind, finding = findings[0]
    assert kind == "Pod" and finding["severity"] == severity
    assert finding["field"] == "metadata.annotations[scheduling.k8s.io/group-name]"
    assert "ns/nosuchpg" in finding["message"]
    assert f"orphan.yaml:{_annotation_line(orphan)}" in run_kqctl("validate", *closed, str(orphan)).out


def _annotation_line(path: Path) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if "group-name" in line)


@pytest.mark.parametrize(("args", "expected"), [
    (("explain", "p-orphan"), "podgroup-missing (the scheduler's cache)"),
    (("explain", "ns/p-orphan"), "create PodGroup ns/nosuchpg (queue default, minMember 1)"),
    (("simulate",), "ns/nosuchpg   -       Pending"),
    (("audit",), "VC-POD-PG ns/nosuchpg"),
    (("replay", "--now", "2026-01-01T12:00:00Z"), "PodGroupMissing"),
])
def test_vc_pod_pg_every_command_says_what_happens_to_the_pod(orphan: Path, args: tuple[str, ...],
                                                               expected: str) -> None:
    result = run_kqctl(*args, str(orphan))
    assert result.code == 0, result.err
    assert expected in result.out


def test_vc_pod_pg_is_inadmissible_for_fail_on(orphan: Path) -> None:
    result = run_kqctl("simulate", str(orphan), "--fail-on", "inadmissible")
    assert result.code == 1 and "ns/nosuchpg" in result.err
    data = json.loads(run_kqctl("simulate", str(orphan), "-o", "json").out)["podGroups"]["ns/nosuchpg"]
    explained = json.loads(run_kqctl("explain", "p-orphan", str(orphan), "-o", "json").out)
    assert data["reason"] == {"gate": "podgroup-missing", "message": explained["reason"]["message"]}
