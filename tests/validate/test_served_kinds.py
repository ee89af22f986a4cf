"""validate answers what the API server answers about kinds and versions: a served version that is not the
storage one is fine, a legacy one is an error whose hint is a command that works, and the Kueue kinds kqctl
validates but does not simulate (MultiKueue, provisioning) are read without a "skipped" warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.kueue.validate.test_crossobject_malformed_fields import MULTIKUEUE_AND_PROVISIONING
from tests.support import REPO, run_kqctl

SERVED_V1BETA1 = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: 1}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueCluster
metadata: {name: m}
spec:
  kubeConfig: {locationType: Secret, location: s}
"""


def _findings(run_out: str) -> list[dict[str, Any]]:
    return [f for doc in json.loads(run_out)["documents"] for f in doc["findings"]]


def test_a_served_version_that_is_not_the_storage_version_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "v1beta1.yaml"
    path.write_text(SERVED_V1BETA1)
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0
    assert not [f for f in _findings(run.out) if f["severity"] in ("error", "warning")]


def test_the_legacy_version_hint_is_a_convert_command_that_works_from_stdin() -> None:
    legacy = (REPO / "samples" / "legacy-v1alpha1" / "kueue-v0.1-v1alpha1.yaml").read_bytes()
    run = run_kqctl("validate", "-", "-o", "json", stdin=legacy)
    hints = {f["hint"] for f in _findings(run.out) if f["ruleId"] == "LEG-VERSION"}
    assert hints == {"convert it: kqctl convert -f - --to v1beta2"}
    converted = run_kqctl("convert", "-f", "-", "--to", "v1beta2", stdin=legacy)
    assert converted.code == 0 and "kueue.x-k8s.io/v1beta2" in converted.out


def test_multikueue_and_provisioning_kinds_are_read_without_a_skipped_warning(tmp_path: Path) -> None:
    path = tmp_path / "mk.yaml"
    path.write_text(MULTIKUEUE_AND_PROVISIONING)
    validate = run_kqctl("validate", str(path), "-o", "json")
    assert not [f for f in _findings(validate.out) if f["ruleId"].startswith("LOAD-")]
    # --strict turns a skipped kind into an error (exit 3): these are kinds kqctl reads.
    simulate = run_kqctl("simulate", "--strict", str(path))
    assert simulate.code == 0, simulate.err
    assert "not a kind kqctl reads" not in simulate.out + simulate.err


def test_a_miscased_or_plural_core_kind_is_no_matches_for_kind_and_other_kinds_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "core.yaml"
    path.write_text("apiVersion: v1\nkind: pod\nmetadata: {name: p, namespace: ns}\n---\n"
                    "apiVersion: batch/v1\nkind: Jobs\nmetadata: {name: j, namespace: ns}\n---\n"
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n")
    run = run_kqctl("validate", str(path), "-o", "json")
    found = [(f["ruleId"], f["message"], f["hint"]) for f in _findings(run.out)]
    assert found == [
        ("LOAD-NO-MATCH", 'no matches for kind "pod" in version "v1"', "did you mean Pod?"),
        ("LOAD-NO-MATCH", 'no matches for kind "Jobs" in version "batch/v1"', "did you mean Job?"),
        ("LOAD-SKIPPED", "Deployment (apps/v1) is not a kind kqctl reads; skipped", found[2][2]),
    ]
    assert run.code == 1
