"""kubeconform's habits on validate: --skip, --ignore-missing-kinds, -o text, -o tap, --summary/--no-summary.

A Helm render holds Deployments and Services beside the queue objects: without these flags each is a LOAD-SKIPPED
warning and ``--fail-on warning`` fails CI."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from support import run_kqctl

RENDER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
"""
BROKEN = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: Bad_Name, namespace: team-a}
spec: {clusterQueue: cq}
"""


@pytest.fixture
def render(tmp_path: Path) -> Path:
    path = tmp_path / "render.yaml"
    path.write_text(RENDER)
    return path


def rules(run_out: str) -> list[str]:
    return [f["ruleId"] for d in json.loads(run_out)["documents"] for f in d["findings"]]


def test_a_helm_render_fails_warning_ci_today_and_validates_cleanly_with_ignore_missing_kinds(render: Path) -> None:
    assert run_kqctl("validate", str(render), "--fail-on", "warning").code == 1
    run = run_kqctl("validate", str(render), "--fail-on", "warning", "--ignore-missing-kinds", "-o", "json")
    assert run.code == 0, run.out
    data = json.loads(run.out)
    assert rules(run.out) == []
    assert [d.get("skipped") for d in data["documents"]] == [
        "--ignore-missing-kinds: a kind kqctl does not validate"] * 2 + [None, None]
    assert data["summary"]["skipped"] == 2 and data["summary"]["valid"] == 2


def test_skip_names_kinds_in_any_case_or_with_their_api_version(render: Path) -> None:
    run = run_kqctl("validate", str(render), "--skip", "deployment,v1/Service", "--fail-on", "warning", "-o", "json")
    assert run.code == 0, run.out
    assert [d.get("skipped") for d in json.loads(run.out)["documents"]] == ["--skip", "--skip", None, None]
    assert run_kqctl("validate", str(render), "--skip", "apps/v2/Deployment", "--fail-on", "warning").code == 1


def test_a_skipped_queue_is_still_referred_to_but_never_reported_on(tmp_path: Path, render: Path) -> None:
    # The LocalQueue's ClusterQueue exists (skipped, not missing): no XO-LQ-CQ; the skipped one has no finding.
    broken = tmp_path / "broken.yaml"
    broken.write_text(BROKEN.replace("metadata: {name: Bad_Name, namespace: team-a}",
                                     "metadata: {name: Bad_Name, namespace: team-a}"))
    run = run_kqctl("validate", str(render), str(broken), "--ignore-missing-kinds", "--skip", "ClusterQueue",
                    "-o", "json")
    documents = json.loads(run.out)["documents"]
    assert [f["ruleId"] for f in documents[3]["findings"]] == []  # lq -> cq: cq exists, skipped
    skipped = run_kqctl("validate", str(broken), "--skip", "LocalQueue", "-o", "json")
    assert skipped.code == 0 and rules(skipped.out) == []


def test_text_prints_one_line_per_object_and_kubeconforms_summary(render: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(BROKEN)
    run = run_kqctl("validate", str(render), str(broken), "--ignore-missing-kinds", "-o", "text")
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[0] == f"{render}:1 - Deployment web skipped (--ignore-missing-kinds: a kind kqctl does not validate)"
    assert lines[2] == f"{render}:11 - ClusterQueue cq is valid"
    assert lines[4].startswith(f"{broken}:1 - LocalQueue team-a/Bad_Name is invalid: error ")
    assert lines[-1] == ("Summary: 5 resources found in 2 files - Valid: 2, Invalid: 1, Errors: 1, Warnings: 0, "
                         "Skipped: 2")
    assert len(lines) == 6
    quiet = run_kqctl("validate", str(render), "--ignore-missing-kinds", "-o", "text", "--no-summary")
    assert not quiet.out.splitlines()[-1].startswith("Summary:")


def test_tap_is_tap_version_13_with_a_plan_and_fails_at_fail_on(render: Path, tmp_path: Path) -> None:
    run = run_kqctl("validate", str(render), "--skip", "Deployment", "-o", "tap")
    lines = run.out.splitlines()
    assert lines[0] == "TAP version 13" and lines[-1] == "1..4"
    assert lines[1] == f"ok 1 - {render}:1 (Deployment web) # SKIP --skip"
    assert lines[2].startswith(f"ok 2 - {render}:6 (Service web) # warning LOAD-SKIPPED kind: ")
    assert lines[-2].startswith("# Summary: 4 resources found in 1 file")
    failing = run_kqctl("validate", str(render), "--skip", "Deployment", "-o", "tap", "--fail-on", "warning")
    assert failing.code == 1
    assert failing.out.splitlines()[2].startswith(f"not ok 2 - {render}:6 (Service web) - warning LOAD-SKIPPED")
    assert run_kqctl("validate", str(render), "-o", "tap", "--no-summary").out.splitlines()[-2].startswith("ok 4")


def test_no_summary_drops_the_table_and_github_count_lines(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(BROKEN)
    table = run_kqctl("validate", str(broken), "--no-summary")
    assert "1 document" not in table.out and "LocalQueue team-a/Bad_Name" in table.out
    github = run_kqctl("validate", str(broken), "-o", "github", "--no-summary").out.splitlines()
    assert all(line.startswith("::") for line in github)


def test_ignore_missing_kinds_with_strict_is_a_usage_error(render: Path) -> None:
    assert run_kqctl("validate", str(render), "--ignore-missing-kinds", "--strict").code == 2


def test_the_parallel_split_skips_the_same_way(tmp_path: Path) -> None:
    for i in range(3):
        text = RENDER.replace("name: web", f"name: web-{i}").replace("name: cq", f"name: cq-{i}")
        (tmp_path / f"part-{i}.yaml").write_text(text.replace("name: lq", f"name: lq{i}")
                                                 .replace("clusterQueue: cq", f"clusterQueue: cq-{i}"))
    args = ("validate", "-R", str(tmp_path), "--ignore-missing-kinds", "--skip", "ClusterQueue", "-o", "json")
    serial = run_kqctl(*args, "-j", "1")
    with mock.patch("kqctl.validate.parallel.PARALLEL_MIN_BYTES", 0):
        parallel = run_kqctl(*args, "-j", "2")
    assert serial.code == parallel.code == 0, serial.out + parallel.out
    assert json.loads(serial.out) == json.loads(parallel.out)
    assert json.loads(serial.out)["summary"]["skipped"] == 9
