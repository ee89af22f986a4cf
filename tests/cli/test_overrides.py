"""--set and --override through the commands: what-if without editing files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support import REPO, Run

Kq = Callable[..., Run]
SAMPLE = "samples/cohort-borrowing"
LLM = "team-a/job-llm-finetune-0d5b7"
MORE_QUOTA = ("--set", "cq/team-a.flavor.default-flavor.cpu.nominalQuota=40",
              "--set", "cq/team-a.flavor.default-flavor.memory.nominalQuota=160Gi")


def test_set_changes_the_simulation(kqctl: Kq) -> None:
    before = json.loads(kqctl("simulate", SAMPLE, "-o", "json").out)["workloads"][LLM]["decision"]
    after = json.loads(kqctl("simulate", SAMPLE, *MORE_QUOTA, "-o", "json").out)["workloads"][LLM]["decision"]
    assert (before, after) == ("Inadmissible", "Admitted")


def test_set_applies_to_explain_audit_and_validate(kqctl: Kq) -> None:
    assert "Steady state: Admitted" in kqctl("explain", LLM, SAMPLE, *MORE_QUOTA).out
    assert kqctl("audit", SAMPLE, *MORE_QUOTA).out.count("160Gi") >= 1
    bad = kqctl("validate", SAMPLE, "--set", "cq/team-a.flavor.default-flavor.cpu.nominalQuota=abc")
    assert bad.code == 1 and "nominalQuota" in bad.out


def test_a_bad_set_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("simulate", SAMPLE, "--set", "clusterqueue/team-x.spec.stopPolicy=Hold")
    assert run.code == 2 and "did you mean" in run.err


def test_override_lets_the_later_file_win(kqctl: Kq, write: Callable[..., str]) -> None:
    cluster = (REPO / SAMPLE / "cluster.yaml").read_text()
    bigger = write("bigger.yaml", cluster)
    Path(bigger).write_text(cluster.replace("nominalQuota: 20\n", "nominalQuota: 40\n", 1))
    duplicate = kqctl("simulate", SAMPLE, bigger)
    assert duplicate.code == 3 and "--override" in duplicate.err + duplicate.out
    run = kqctl("simulate", SAMPLE, bigger, "--override", "-o", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["clusterQueues"]["team-a"]["default-flavor/cpu"]["nominal"] == "40"


def test_a_misspelled_flavor_or_resource_in_the_short_form_gets_did_you_mean(kqctl: Kq) -> None:
    flavor = kqctl("simulate", SAMPLE, "--set", "clusterqueue/team-a.flavor.default.cpu.nominalQuota=40")
    assert flavor.code == 2 and "no flavor 'default' in its resourceGroups; did you mean default-flavor?" in flavor.err
    resource = kqctl("simulate", SAMPLE, "--set", "clusterqueue/team-a.flavor.default-flavor.cpus.nominalQuota=40")
    assert resource.code == 2 and "no resource 'cpus'; did you mean cpu?" in resource.err


def test_a_bad_value_from_set_is_blamed_on_the_set_not_only_on_the_file_line(kqctl: Kq) -> None:
    bad = ("--set", "cq/team-a.flavor.default-flavor.cpu.nominalQuota=abc")
    refused = kqctl("simulate", SAMPLE, *bad)
    assert refused.code == 3
    assert "--set 'cq/team-a.flavor.default-flavor.cpu.nominalQuota=abc': the API server would reject" in refused.err
    validated = kqctl("validate", SAMPLE, *bad)
    assert validated.code == 1 and "(the value comes from --set 'cq/team-a." in validated.out
    assert "--set" not in kqctl("validate", SAMPLE).out


def test_convert_applies_set_before_converting(kqctl: Kq) -> None:
    legacy = "samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml"
    run = kqctl("convert", legacy, "--set", "clusterqueue/legacy-batch.spec.stopPolicy=Hold")
    assert run.code in (0, 1), run.err
    assert "stopPolicy: Hold" in run.out and "stopPolicy" not in kqctl("convert", legacy).out
    assert kqctl("convert", legacy, "--set", "clusterqueue/nope.spec.stopPolicy=Hold").code == 2
