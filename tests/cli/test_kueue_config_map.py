"""Kueue's manager Configuration in the ConfigMap Kueue's manifests and Helm chart deploy it in
(kueue-manager-config, key controller_manager_config.yaml): validate checks it, located at the line inside the
ConfigMap's file; every command reads it as the bare file (fair sharing...) and refuses it as validate does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = REPO / "samples" / "fair-sharing"
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kueue-manager-config\n  namespace: kueue-system\ndata:\n" \
       "  controller_manager_config.yaml: |\n"


def as_config_map(configuration: str) -> str:
    return HEAD + "".join(f"    {line}\n" for line in configuration.splitlines())


def bare_sample() -> str:
    return (SAMPLE / "kueue-config.yaml").read_text(encoding="utf-8")


TYPO = as_config_map(bare_sample().replace("fairSharing:", "fairSharin:"))


def write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return str(tmp_path / name)


def line_of(text: str, wanted: str) -> int:
    return [line.strip() for line in text.splitlines()].index(wanted) + 1


def test_validate_locates_a_typo_in_the_embedded_configuration(kqctl: Kq, tmp_path: Path) -> None:
    run = kqctl("validate", write(tmp_path, "cm.yaml", TYPO))
    assert run.code == 1, run.out + run.err
    line = line_of(TYPO, "fairSharin:")
    assert f"cm.yaml:{line}  ✖ error  VAL-CFG-1  ConfigMap/kueue-system/kueue-manager-config  " \
           "data[controller_manager_config.yaml].fairSharin: unknown field" in run.out
    assert "did you mean fairSharing?" in run.out


def test_validate_passes_the_sample_configuration_in_its_configmap(kqctl: Kq, tmp_path: Path) -> None:
    run = kqctl("validate", write(tmp_path, "cm.yaml", as_config_map(bare_sample())))
    assert run.code == 0 and "LOAD-SKIPPED" not in run.out + run.err


def test_a_value_that_is_not_yaml_is_a_located_error(kqctl: Kq, tmp_path: Path) -> None:
    text = as_config_map("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: [a\n  b: c")
    run = kqctl("validate", write(tmp_path, "cm.yaml", text), "-o", "json")
    assert run.code == 1
    (document,) = json.loads(run.out)["documents"]
    (finding,) = document["findings"]
    assert finding["ruleId"] == "VAL-CFG-18" and "not YAML" in finding["message"]
    assert 7 < finding["line"] <= len(text.splitlines())  # inside the embedded text


def _simulated(kqctl: Kq, *inputs: str) -> dict[str, object]:
    """The whole answer (fairSharing: whether it was simulated with fair sharing, every workload's decision)."""
    run = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), *inputs, "-o", "json")
    assert run.code == 0, run.err
    return json.loads(run.out)  # type: ignore[no-any-return]


def test_simulate_reads_fair_sharing_from_the_configmap_as_from_the_bare_file(kqctl: Kq, tmp_path: Path) -> None:
    in_config_map = _simulated(kqctl, write(tmp_path, "cm.yaml", as_config_map(bare_sample())))
    bare = _simulated(kqctl, str(SAMPLE / "kueue-config.yaml"))
    assert in_config_map == bare
    assert in_config_map["fairSharing"] is True and _simulated(kqctl)["fairSharing"] is False
    text = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"),
                 str(tmp_path / "cm.yaml")).out
    assert "fair sharing ordering" in text


@pytest.mark.parametrize("as_given", [False, True])
def test_simulate_refuses_a_bad_one_located(kqctl: Kq, tmp_path: Path, as_given: bool) -> None:
    path = write(tmp_path, "cm.yaml", TYPO)
    run = kqctl("simulate", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), path,
                *(["--as-given"] if as_given else []))
    assert run.code == 3, run.out + run.err
    assert f"cm.yaml:{line_of(TYPO, 'fairSharin:')} (document 1): ConfigMap kueue-system/kueue-manager-config: " \
           "data[controller_manager_config.yaml].fairSharin: unknown field" in run.err
    assert "(VAL-CFG-1; did you mean fairSharing?; kqctl validate shows every problem)" in run.err


@pytest.mark.parametrize("command", ["audit", "replay", "explain"])
def test_every_command_refuses_it(kqctl: Kq, tmp_path: Path, command: str) -> None:
    path = write(tmp_path, "cm.yaml", TYPO)
    run = kqctl(command, *(["ns/name"] if command == "explain" else []), str(SAMPLE / "cluster.yaml"),
                str(SAMPLE / "workloads.yaml"), path)
    assert run.code == 3, run.out + run.err
    assert "ConfigMap kueue-system/kueue-manager-config: data[controller_manager_config.yaml].fairSharin" in run.err


def test_diff_reads_it_on_either_side(kqctl: Kq, tmp_path: Path) -> None:
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
        for name in ("cluster.yaml", "workloads.yaml"):
            write(tmp_path / side, name, (SAMPLE / name).read_text(encoding="utf-8"))
    write(tmp_path / "after", "cm.yaml", as_config_map(bare_sample()))
    run = kqctl("diff", str(tmp_path / "before"), str(tmp_path / "after"))
    assert run.code in (0, 1), run.err
    assert run.out.strip()
    write(tmp_path / "after", "cm.yaml", TYPO)
    run = kqctl("diff", str(tmp_path / "before"), str(tmp_path / "after"))
    assert run.code == 3 and "cm.yaml:" in run.err and "fairSharin: unknown field" in run.err


def test_plan_refuses_it(kqctl: Kq, tmp_path: Path) -> None:
    run = kqctl("plan", str(SAMPLE / "cluster.yaml"), str(SAMPLE / "workloads.yaml"), write(tmp_path, "cm.yaml", TYPO),
                "--for", "clusterqueue/adhoc-sql", "--target", "no workload inadmissible", "--runtime", "1h")
    assert run.code == 3, run.out + run.err
    assert "fairSharin: unknown field" in run.err


@pytest.mark.parametrize("as_given", [False, True])
@pytest.mark.parametrize("second", ["bare", "configmap"])
def test_val_cfg_19_two_configurations_are_an_error_naming_both(kqctl: Kq, tmp_path: Path, second: str,
                                                                as_given: bool) -> None:
    first = write(tmp_path, "cm.yaml", as_config_map(bare_sample()))
    renamed = as_config_map(bare_sample()).replace("name: kueue-manager-config", "name: x-manager-config")
    other = str(SAMPLE / "kueue-config.yaml") if second == "bare" else write(tmp_path, "cm2.yaml", renamed)
    checked = kqctl("validate", first, other)
    assert checked.code == 1 and "VAL-CFG-19" in checked.out
    run = kqctl("simulate", str(SAMPLE / "cluster.yaml"), first, other, *(["--as-given"] if as_given else []))
    assert run.code == 3, run.out + run.err
    assert f"{Path(other).name}:" in run.err  # the second, located
    assert "a second Kueue manager Configuration: ConfigMap kueue-system/kueue-manager-config at " in run.err
    assert "cm.yaml:1 is one too, and Kueue's manager reads one (VAL-CFG-19" in run.err


def test_another_operators_manager_config_is_skipped(kqctl: Kq, tmp_path: Path) -> None:
    text = HEAD.replace("kueue-manager-config", "jobset-manager-config") + \
        "    apiVersion: config.jobset.x-k8s.io/v1alpha1\n    kind: Configuration\n"
    run = kqctl("validate", write(tmp_path, "cm.yaml", text))
    assert run.code == 0 and "LOAD-SKIPPED" in run.out
