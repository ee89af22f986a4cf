"""The Kueue Configuration's featureGates are the gates every command simulates with (Kueue's manager takes them
from the file when its --feature-gates flag is not given); kqctl's --feature-gates is a what-if over them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from support import REPO, Run

Kq = Callable[..., Run]
NOW = ("--now", "2026-09-14T08:00:00Z")
PARTIAL = "default/job-hyperparam-sweep-c47b0"  # 8 pods of which 4 fit: admitted in part only with PartialAdmission
CONFIGURATION = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates:
  PartialAdmission: false
"""


def snapshot_with_configuration(tmp_path: Path) -> str:
    target = tmp_path / "snapshot"
    shutil.copytree(REPO / "samples" / "single-clusterqueue", target)
    (target / "kueue-config.yaml").write_text(CONFIGURATION, encoding="utf-8")
    return str(target)


def decision(kqctl: Kq, *args: str) -> str:
    run = kqctl("simulate", *args, *NOW, "-o", "json")
    assert run.code == 0, run.err
    return str(json.loads(run.out)["workloads"][PARTIAL]["decisionText"])


def test_a_gate_the_configuration_turns_off_is_off_in_simulate_explain_and_replay(kqctl: Kq, tmp_path: Path) -> None:
    path = snapshot_with_configuration(tmp_path)
    assert decision(kqctl, str(REPO / "samples" / "single-clusterqueue")) == "Admitted (4/8 pods)"
    assert decision(kqctl, path).startswith("Inadmissible")
    explained = kqctl("explain", PARTIAL, path, *NOW)
    assert explained.code == 0 and "Steady state: Inadmissible" in explained.out
    arrival_and_admission = []
    for snapshot in (str(REPO / "samples" / "single-clusterqueue"), path):
        run = kqctl("replay", snapshot, *NOW, "--runtime", "10m", "-o", "json")
        entry = json.loads(run.out)["workloads"][PARTIAL]
        arrival_and_admission.append((entry["arrivalMs"], entry["firstAdmittedMs"]))
    (arrived, partly), (arrived_too, whole) = arrival_and_admission
    assert arrived == arrived_too and partly - arrived < 1000  # 4 of its pods at once
    assert whole - arrived >= 60_000  # all 8, once enough has finished


def test_feature_gates_flag_is_a_what_if_over_the_configuration(kqctl: Kq, tmp_path: Path) -> None:
    path = snapshot_with_configuration(tmp_path)
    assert decision(kqctl, path, "--feature-gates", "PartialAdmission=true") == "Admitted (4/8 pods)"
