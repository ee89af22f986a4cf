"""YK-G6: the namespace annotations as the shim reads them (``GetNamespaceQuotaFromAnnotation``,
``GetNamespaceGuaranteedFromAnnotation``, ``GetNamespaceMaxAppsFromAnnotation``): one that does not parse is logged
and ignored, which validate reports as a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_kqctl
from yunikorn_build import node, pod, text

from kqctl.yunikorn.load import annotation_max_apps, annotation_resources

QUOTA = "yunikorn.apache.org/namespace.quota"
MAX_APPS = "yunikorn.apache.org/namespace.maxApps"


@pytest.mark.parametrize(("value", "expected", "problem"), [
    ('{"cpu": "2", "memory": "1Gi"}', {"vcore": 2000, "memory": 2**30}, ""),
    ('{"nvidia.com/gpu": "1"}', {"nvidia.com/gpu": 1}, ""),
    ("", None, ""),
    ("{bad", None, "is not JSON"),
    ('{"cpu": 2}', None, "is not a JSON object of quoted quantities"),   # map[string]string: numbers fail
    ("[1]", None, "is not a JSON object of quoted quantities"),
    ('{"cpu": "2", "memory": "lots"}', None, "which is not a quantity"),  # one bad entry drops them all
])
def test_g6_quota_annotation_parses_as_the_shim(value: str, expected: dict[str, int] | None, problem: str) -> None:
    found, why = annotation_resources(value)
    assert found == expected
    assert (problem in why) if problem else why == ""


@pytest.mark.parametrize(("value", "expected", "problem"), [
    ("3", 3, ""), ("+3", 3, ""), ("0", 0, ""), ("", 0, ""),
    ("-3", 0, "is negative"), ("3.5", 0, "is not a whole number"), (" 3", 0, "is not a whole number"),
])
def test_g6_max_apps_annotation_parses_as_atoi(value: str, expected: int, problem: str) -> None:
    assert annotation_max_apps(value) == (expected, problem)


def _namespace(annotations: dict[str, str]) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x", "annotations": annotations}}


@pytest.mark.parametrize(("annotations", "warned"), [
    ({QUOTA: "{bad", MAX_APPS: "-3"}, [QUOTA, MAX_APPS]),
    ({QUOTA: '{"cpu": "1"}', MAX_APPS: "2"}, []),
])
def test_g6_validate_warns_about_annotations_the_shim_ignores(tmp_path: Path, annotations: dict[str, str],
                                                              warned: list[str]) -> None:
    path = tmp_path / "ns.yaml"
    path.write_text(text([node("n1"), _namespace(annotations), pod("p", namespace="x")]))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out
    found = [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["ruleId"] == "YK-G6"]
    assert sorted(f["field"].split("[")[1].rstrip("]") for f in found) == sorted(warned)
    assert all(f["severity"] == "warning" and "ignores it" in f["message"] for f in found)


def test_g6_a_broken_quota_is_ignored_and_hides_the_deprecated_max_cpu(tmp_path: Path) -> None:
    path = tmp_path / "ns.yaml"
    path.write_text(text([node("n1"), _namespace({QUOTA: "{bad", "yunikorn.apache.org/namespace.max.cpu": "1"}),
                          pod("p", namespace="x", cpu="2")]))
    data = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    assert data["pods"][0]["state"] == "Allocated"  # neither the broken quota nor max.cpu 1 limits root.x
