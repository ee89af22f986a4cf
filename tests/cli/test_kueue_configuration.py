"""VAL-CFG-*: a Kueue Configuration its controller-manager would refuse is refused by every command, located, with
the message validate gives (one answer), never simulated with the typo silently ignored."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = REPO / "samples" / "fair-sharing"

TYPO = """\
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharin:
  enable: true
resources:
  quotaCheckStrategy: Bogus
"""
LOCATED = ('typo.yaml:3 (document 1): Configuration <unnamed>: fairSharin: unknown field (Kueue\'s manager decodes '
           "its Configuration strictly)")


def test_val_cfg_1_validate_refuses_the_typo_located(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "typo.yaml").write_text(TYPO, encoding="utf-8")
    run = kqctl("validate", str(tmp_path / "typo.yaml"))
    assert run.code == 1, run.out + run.err
    assert "typo.yaml:3  ✖ error  VAL-CFG-1  Configuration/<unnamed>  fairSharin: unknown field" in run.out
    assert "did you mean fairSharing?" in run.out
    # v1beta1 has no quotaCheckStrategy: a second unknown field, on its own line
    assert "typo.yaml:6  ✖ error  VAL-CFG-1  Configuration/<unnamed>  resources.quotaCheckStrategy: unknown" in run.out


def test_val_cfg_6_validate_reports_a_rule_of_kueues_validation(kqctl: Kq, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
                    "  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n", encoding="utf-8")
    run = kqctl("validate", str(path), "-o", "json")
    assert run.code == 1
    assert '"VAL-CFG-6"' in run.out and "fairSharing" in run.out


@pytest.mark.parametrize("as_given", [False, True])
def test_val_cfg_1_simulate_refuses_a_snapshot_holding_the_typo(kqctl: Kq, tmp_path: Path, as_given: bool) -> None:
    snapshot = tmp_path / "typo.yaml"  # one snapshot file: the cluster, the workloads and the Configuration
    snapshot.write_text("---\n".join([(SAMPLE / "cluster.yaml").read_text(encoding="utf-8"),
                                      (SAMPLE / "workloads.yaml").read_text(encoding="utf-8")]) + "---\n" + TYPO,
                        encoding="utf-8")
    lines = snapshot.read_text(encoding="utf-8").splitlines()
    line = lines.index("fairSharin:") + 1
    documents = [d for d in yaml.safe_load_all(snapshot.read_text(encoding="utf-8")) if d]
    run = kqctl("simulate", str(snapshot), *(["--as-given"] if as_given else []))
    assert run.code == 3, run.out + run.err
    assert "Traceback" not in run.err
    # the Configuration is the snapshot's last document
    assert f"typo.yaml:{line} (document {len(documents)}): Configuration <unnamed>: fairSharin: unknown field" \
        in run.err
    assert "(VAL-CFG-1; did you mean fairSharing?; kqctl validate shows every problem)" in run.err


@pytest.mark.parametrize("command", ["simulate", "audit", "replay", "explain"])
def test_every_command_gives_the_same_located_refusal(kqctl: Kq, tmp_path: Path, command: str) -> None:
    (tmp_path / "typo.yaml").write_text(TYPO, encoding="utf-8")
    inputs = [str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), str(tmp_path / "typo.yaml")]
    run = kqctl(command, *(["ns/name"] if command == "explain" else []), *inputs)
    assert run.code == 3, run.out + run.err
    assert LOCATED in run.err and "Traceback" not in run.err


def test_diff_refuses_it_on_either_side(kqctl: Kq, tmp_path: Path) -> None:
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
        for name in ("cluster.yaml", "workloads.yaml", "kueue-config.yaml"):
            (tmp_path / side / name).write_text((SAMPLE / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "after" / "kueue-config.yaml").write_text(TYPO, encoding="utf-8")
    run = kqctl("diff", str(tmp_path / "before"), str(tmp_path / "after"))
    assert run.code == 3, run.out + run.err
    assert "kueue-config.yaml:3 (document 1): Configuration <unnamed>: fairSharin: unknown field" in run.err


def test_plan_refuses_it(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "typo.yaml").write_text(TYPO, encoding="utf-8")
    run = kqctl("plan", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), str(tmp_path / "typo.yaml"),
                "--for", "clusterqueue/adhoc-sql", "--target", "no workload inadmissible", "--runtime", "1h")
    assert run.code == 3, run.out + run.err
    assert LOCATED in run.err


def test_fs_1_v1beta2_enable_is_refused_not_honoured(kqctl: Kq, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  enable: false\n"
                    "  preemptionStrategies: [LessThanOrEqualToFinalShare]\n", encoding="utf-8")
    run = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(path))
    assert run.code == 3
    assert "fairSharing.enable: unknown field" in run.err and "preemptionStrategies" in run.err


def test_the_fair_sharing_sample_configuration_still_passes(kqctl: Kq) -> None:
    assert kqctl("validate", str(SAMPLE / "kueue-config.yaml")).code == 0


@pytest.mark.parametrize("as_given", [False, True])
def test_a_duplicate_field_is_refused_as_the_strict_decoder_refuses_it(kqctl: Kq, tmp_path: Path,
                                                                       as_given: bool) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
                    "  preemptionStrategies: [LessThanInitialShare]\nfairSharing:\n"
                    "  preemptionStrategies: [LessThanOrEqualToFinalShare]\n", encoding="utf-8")
    assert kqctl("validate", str(path)).code == 1
    run = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(path), *(["--as-given"] if as_given else []))
    assert run.code == 3
    assert 'config.yaml:3 (document 1): Configuration <unnamed>: fairSharing: duplicate field "fairSharing"' in run.err


def test_validate_json_locates_the_finding(kqctl: Kq, tmp_path: Path) -> None:
    (tmp_path / "typo.yaml").write_text(TYPO, encoding="utf-8")
    (document,) = json.loads(kqctl("validate", str(tmp_path / "typo.yaml"), "-o", "json").out)["documents"]
    assert document["kind"] == "Configuration" and document["valid"] is False
    assert [(f["ruleId"], f["field"], f["line"]) for f in document["findings"]] == [
        ("VAL-CFG-1", "fairSharin", 3), ("VAL-CFG-1", "resources.quotaCheckStrategy", 6)]


def test_validate_kueue_version_decodes_the_configuration_with_that_releases_types(kqctl: Kq, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n"
                    "  quotaCheckStrategy: IgnoreUndeclared\n", encoding="utf-8")
    assert kqctl("validate", str(path)).code == 0
    run = kqctl("validate", str(path), "--kueue-version", "v0.17.8")
    assert run.code == 1
    assert "VAL-CFG-1" in run.out and "resources.quotaCheckStrategy: unknown field" in run.out
