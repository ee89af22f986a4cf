"""samples/README.md never drifts from what kqctl prints: every sentence of its "What to expect" lists is a claim
below, checked against kqctl's own output on the sample (-o json where there is one), run in-process through typer's
CliRunner; so is every result its ```sh comments state. As test_readme_examples.py does for README.md, each claim
is read from the file with its figures as ``{name}``, so editing a sentence is enough to be checked again, and
test_every_sentence_of_what_to_expect_is_a_claim fails on a sentence no claim reads."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO, Run
from typer.testing import CliRunner

from kqctl.errors import KqctlError
from kqctl.k8s.quantity import Quantity, parse_quantity

SAMPLES = REPO / "samples"
README = SAMPLES / "README.md"
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
RULE = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$")
# A "What to expect" item: "- **sample**: text", its later lines indented (a table or a block inside it too).
BULLET = re.compile(r"^- \*\*(?P<sample>[\w-]+)\*\*: (?P<text>.*?)(?=^- \*\*|^\S|\Z)", re.M | re.S)
# The markdown table inside an item, in a claim: {rows}.
ROWS = r"(?P<rows>(?:^[ \t]*\|[^\n]*\|[ \t]*(?:\n|\Z))+)"


@cache
def kqctl(*args: str) -> Run:
    """``kqctl ARGS`` from the repository root through typer's CliRunner; a KqctlError ends it with its exit code and
    message, as main() does. Cached: a claim's check runs the commands other claims ran."""
    from kqctl.cli.app import app

    previous = os.getcwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1"})
    finally:
        os.chdir(previous)
    error = result.exception
    if isinstance(error, KqctlError):
        return Run(error.exit_code, result.stdout, str(error))
    if error is not None and not isinstance(error, SystemExit):
        raise error
    return Run(result.exit_code, result.stdout, result.stderr)


def _json(*args: str) -> Any:
    run = kqctl(*args, "-o", "json")
    assert run.code in (0, 1), run.err
    return json.loads(run.out)


def _number(text: str) -> int:
    return NUMBER_WORDS.get(text.lower()) or int(text)


def _q(text: str | int) -> Quantity:
    return parse_quantity(str(text))


def _milli(text: str | int) -> int:
    return _q(text).milli_value()


@dataclass(frozen=True)
class Finding:
    file: str  # relative to the sample
    object: str  # Kind/namespace/name
    rule: str
    severity: str
    field: str
    message: str
    hint: str
    line: int | None


def _validate(sample: str, *flags: str) -> tuple[int, list[Finding]]:
    run = kqctl("validate", f"samples/{sample}", *flags, "-o", "json")
    assert run.code in (0, 1), run.err
    findings = [Finding(document["file"].split(f"samples/{sample}/", 1)[-1],
                        "/".join(part for part in (document["kind"], document["namespace"], document["name"]) if part),
                        finding["ruleId"], finding["severity"], finding["field"], finding["message"],
                        finding["hint"] or "", finding["line"])
                for document in json.loads(run.out)["documents"] for finding in document["findings"]]
    return run.code, findings


def _rules(findings: list[Finding], *severities: str) -> dict[str, set[str]]:
    """The rules of the findings of these severities (all without), file by file."""
    found: dict[str, set[str]] = {}
    for finding in findings:
        if not severities or finding.severity in severities:
            found.setdefault(finding.file, set()).add(finding.rule)
    return found


def _one(names: Any, short: str) -> str:
    """The one key of ``names`` that ``short`` names: a Workload as the README writes it, without the hash Kueue
    adds (``team-a/job-hparam-sweep``, or ``job-train-resnet`` without its namespace), or a whole name."""
    found = [name for name in names if name == short or name.startswith(f"{short}-")
             or name.split("/")[-1] == short or name.split("/")[-1].startswith(f"{short}-")]
    assert len(found) == 1, (short, found)
    return found[0]


def _documents(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text(encoding="utf-8")) if document]


# --- the claims ---------------------------------------------------------------------------------------------------
# A claim is a passage of one sample's item, ``{name}`` standing for a figure and a space for any run of spaces or
# line breaks, and the check that kqctl's output says so. check(sample, figures, tmp_path).

Check = Callable[[str, dict[str, str], Path], None]


@dataclass(frozen=True)
class Claim:
    sample: str
    passage: str
    check: Check


CLAIMS: list[Claim] = []


def claim(sample: str, passage: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        CLAIMS.append(Claim(sample, passage, check))
        return check

    return register


@claim("single-clusterqueue", "no findings.")
@claim("fair-sharing", "no findings.")
@claim("hierarchical-cohorts", "no findings.")
@claim("volcano-two-teams", "no findings.")
@claim("volcano-hierarchy", "no findings.")
@claim("yunikorn-priority", "no findings.")
@claim("yunikorn-gang", "no findings.")
@claim("yunikorn-multi-tenant", "no findings.")
def _no_findings(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 0 and findings == []


@claim("spot-gpu", "exit 0 (`XO-CO-IMPLICIT` info).")
@claim("preemption", "exit 0 (`XO-CO-IMPLICIT` info).")
def _implicit_cohort_info_only(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 0 and findings
    assert {(finding.rule, finding.severity) for finding in findings} == {("XO-CO-IMPLICIT", "info")}


# single-clusterqueue

@claim("single-clusterqueue", "The Workloads ask for {cpus} CPUs against {nominal};")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    (queue,) = _json("audit", f"samples/{sample}")["nodes"]
    assert queue["admittedWorkloads"] == 0 and queue["pendingWorkloads"] == 5  # "The Workloads": all of them
    assert _q(queue["pendingDemand"]["cpu"]) == _q(stated["cpus"])
    assert {row["nominalQuota"] for row in queue["resources"] if row["resource"] == "cpu"} == {stated["nominal"]}


@claim("single-clusterqueue", "simulation admits in queue order and lets a later Workload pass one that does not fit "
                              "(`BestEffortFIFO`):")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    (queue,) = [d for d in _documents(SAMPLES / sample / "cluster.yaml") if d["kind"] == "ClusterQueue"]
    assert queue["spec"]["queueingStrategy"] == "BestEffortFIFO"
    created = {f"{d['metadata']['namespace']}/{d['metadata']['name']}": d["metadata"]["creationTimestamp"]
               for d in _documents(SAMPLES / sample / "workloads.yaml")}
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    admitted = sorted((w["admittedInCycle"], created[name]) for name, w in workloads.items() if w["admittedInCycle"])
    assert [when for _, when in admitted] == sorted(when for _, when in admitted)  # queue order
    waiting = [created[name] for name, w in workloads.items() if w["decision"] == "Inadmissible"]
    assert any(when < passed for when in waiting for _, passed in admitted)


@claim("single-clusterqueue", "`job-train-resnet` ({cpus} CPUs) waits while `job-hyperparam-sweep` (`minCount: {min}`) "
                              "is admitted with {count} of its {pods} pods, on the CPUs that are left.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _json("simulate", f"samples/{sample}")
    workloads = simulated["workloads"]
    resnet, sweep = _one(workloads, "job-train-resnet"), _one(workloads, "job-hyperparam-sweep")
    assert workloads[resnet]["decision"] == "Inadmissible"
    (asked,) = _json("explain", resnet, f"samples/{sample}")["podSets"]
    assert _q(asked["requests"]["cpu"]) == _q(stated["cpus"])
    (declared,) = [d for d in _documents(SAMPLES / sample / "workloads.yaml")
                   if f"default/{d['metadata']['name']}" == sweep]
    assert declared["spec"]["podSets"][0]["minCount"] == int(stated["min"])
    assert declared["spec"]["podSets"][0]["count"] == int(stated["pods"])
    assert workloads[sweep]["decisionText"] == f"Admitted ({stated['count']}/{stated['pods']} pods)"
    assert workloads[sweep]["admission"]["podSetAssignments"][0]["count"] == int(stated["count"])
    cpu = simulated["clusterQueues"]["cluster-queue"]["default-flavor/cpu"]
    assert cpu["used"] == cpu["nominal"]  # it took what was left


# cohort-borrowing

@claim("cohort-borrowing", "exit 0; only an `XO-CO-IMPLICIT` info (cohort `research` has no Cohort object, which is "
                           "normal).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 0 and findings
    assert {(finding.rule, finding.severity) for finding in findings} == {("XO-CO-IMPLICIT", "info")}
    assert all("Cohort 'research' has no object in the inputs" in finding.message for finding in findings)


@claim("cohort-borrowing", "`team-a/job-hparam-sweep` fits by borrowing {cpus} CPUs from team-b")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _json("simulate", f"samples/{sample}")
    sweep = simulated["workloads"][_one(simulated["workloads"], "team-a/job-hparam-sweep")]
    assert sweep["decision"] == "Admitted" and sweep["borrowed"]["default-flavor/cpu"] == stated["cpus"]
    assert simulated["clusterQueues"]["team-b"]["default-flavor/cpu"]["lent"] == stated["cpus"]


@claim("cohort-borrowing", "({cpus} CPUs are available to team-a: see the comment in `workloads.yaml`);")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    team_a = next(node for node in _json("audit", f"samples/{sample}")["nodes"] if node["name"] == "team-a")
    assert next(row["available"] for row in team_a["resources"] if row["resource"] == "cpu") == stated["cpus"]
    assert f"= {stated['cpus']} CPUs >= " in (SAMPLES / sample / "workloads.yaml").read_text(encoding="utf-8")


@claim("cohort-borrowing", "`team-a/job-llm-finetune` exceeds team-a's nominal + borrowingLimit while team-a's "
                           "current jobs run;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    name = _one(workloads, "team-a/job-llm-finetune")
    assert workloads[name]["decision"] == "Inadmissible" and workloads[name]["neverAdmitted"] is None
    explained = _json("explain", name, f"samples/{sample}")
    (cpu,) = [row for check in explained["flavorChecks"] for row in check["resources"] if row["resource"] == "cpu"]
    most = _milli(cpu["nominalQuota"]) + _milli(cpu["borrowingLimit"])
    assert _milli(cpu["usage"]) + _milli(cpu["needed"]) > most >= _milli(cpu["needed"])  # fits once they end
    assert any(s["kind"] == "completion" and s["workload"].startswith("team-a/") for s in explained["suggestions"])


@claim("cohort-borrowing", "`team-b/job-model-eval` fits within team-b's own quota.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    evaluation = workloads[_one(workloads, "team-b/job-model-eval")]
    assert evaluation["decision"] == "Admitted" and evaluation["borrowed"] == {}


# spot-gpu

SPOT_TABLE = re.compile(r"^#   (?P<workload>job-[\w-]+)-…\s+(?P<admitted>\(adm\.\))?\s+(?P<spot>yes|no)\s+"
                        r"(?P<selector>\S+)\s+(?P<cpu>\S+) / (?P<gpu>\S+)(?: \((?P<note>[^)]*)\))?$", re.M)


@claim("spot-gpu", "The table at the top of `workloads.yaml` lists the flavors each Workload should get, and why "
                   "(taints, selectors, flavor order, fungibility);")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    text = (SAMPLES / sample / "workloads.yaml").read_text(encoding="utf-8")
    rows = list(SPOT_TABLE.finditer(text))
    declared = {d["metadata"]["name"]: d for d in _documents(SAMPLES / sample / "workloads.yaml")}
    assert len(rows) == len(declared) == 7
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    for row in rows:
        name = _one(workloads, row["workload"])
        cycle = workloads[name]["admittedInCycle"]
        assert (cycle is None) == bool(row["admitted"]), name  # (adm.): admitted in the snapshot
        # the flavors it gets when it is admitted (job-llm-distill loses them later: a claim of its own)
        at_admission = _json("simulate", f"samples/{sample}", *(("--cycles", str(cycle)) if cycle else ()))
        got = at_admission["workloads"][name]
        (flavors,) = [assignment["flavors"] for assignment in got["admission"]["podSetAssignments"]]
        assert (flavors["cpu"], flavors["memory"], flavors.get("nvidia.com/gpu", "-")) == \
            (row["cpu"], row["cpu"], row["gpu"]), name
        if row["note"] == "borrowed":
            assert _milli(got["borrowed"][f"{row['gpu']}/nvidia.com/gpu"]) > 0, name
        elif row["note"]:
            many, what = re.fullmatch(r"borrows (\d+) (\w+)s", row["note"]).groups()  # type: ignore[union-attr]
            assert row["gpu"] == what.lower() and got["borrowed"] == {f"{row['gpu']}/nvidia.com/gpu": many}, name
        # and why: the toleration and the GPU selector the table names are the pod template's
        template = declared[name.split("/")[1]]["spec"]["podSets"][0]["template"]["spec"]
        tolerates = any(t.get("value") == "spot" or (t.get("operator") == "Exists" and "capacity-type" in t["key"])
                        for t in template.get("tolerations", []))
        assert tolerates == (row["spot"] == "yes"), name
        steering = json.dumps([template.get("nodeSelector"), template.get("affinity")])
        assert (row["selector"] == "-" and "gpu.product" not in steering) or row["selector"] in steering, name


@claim("spot-gpu", "`job-llm-distill` gets its borrowed A100s, then loses them when `job-llm-finetune` reclaims them.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    distill, finetune = _one(workloads, "job-llm-distill"), _one(workloads, "job-llm-finetune")
    assert workloads[distill]["decision"] == "Preempted" and workloads[distill]["preemptedBy"] == finetune
    assert workloads[distill]["preemptionReason"] == "InCohortReclamation"
    assert workloads[distill]["admittedInCycle"] < workloads[distill]["preemptedInCycle"]


# preemption

@claim("preemption", "`job-fraud-model-retrain` ({cpus} CPUs, {free} free) must preempt;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    production = next(node for node in _json("audit", f"samples/{sample}")["nodes"] if node["name"] == "production")
    assert production["pendingWorkloads"] == 1 and production["pendingDemand"]["cpu"] == stated["cpus"]
    assert next(row["available"] for row in production["resources"] if row["resource"] == "cpu") == stated["free"]
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    retrain = workloads[_one(workloads, "job-fraud-model-retrain")]
    assert retrain["decision"] == "Admitted" and retrain["victims"]


@claim("preemption", "by Kueue's preemption rules the victims are `job-ablation-dropout` (reclaim while borrowing) and "
                     "`job-feature-backfill` (within the ClusterQueue).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    retrain = _one(workloads, "job-fraud-model-retrain")
    reasons = {"job-ablation-dropout": "InCohortReclaimWhileBorrowing", "job-feature-backfill": "InClusterQueue"}
    assert sorted(workloads[retrain]["victims"]) == sorted(_one(workloads, victim) for victim in reasons)
    for victim, reason in reasons.items():
        evicted = workloads[_one(workloads, victim)]
        assert (evicted["preemptedBy"], evicted["preemptionReason"]) == (retrain, reason), victim


# fair-sharing

@claim("fair-sharing", "`kueue-config.yaml` is not a cluster object: it is what the `kueue-manager-config` ConfigMap "
                       "holds.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    (document,) = [d for d in _json("validate", f"samples/{sample}")["documents"]
                   if d["file"].endswith("/kueue-config.yaml")]
    assert document["kind"] == "Configuration" and document["apiVersion"].startswith("config.kueue.x-k8s.io/")
    assert "kueue-manager-config ConfigMap" in (SAMPLES / sample / "kueue-config.yaml").read_text(encoding="utf-8")


@claim("fair-sharing", "In `config.kueue.x-k8s.io/v1beta2` the presence of the `fairSharing` section enables fair "
                       "sharing (v1beta1 used `fairSharing: {enable: true}`; v1beta2 removed `enable`).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    # v1beta2 has no `enable`: Kueue's manager refuses one (VAL-CFG-1), and so does kqctl.
    objects = f"samples/{sample}/cluster.yaml", f"samples/{sample}/workloads.yaml"
    config = yaml.safe_load((SAMPLES / sample / "kueue-config.yaml").read_text(encoding="utf-8"))
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2" and "fairSharing" in config
    assert _json("simulate", f"samples/{sample}")["fairSharing"] is True
    assert _json("simulate", *objects)["fairSharing"] is False  # no Configuration: off
    without = tmp / "without.yaml"
    without.write_text(yaml.safe_dump({k: v for k, v in config.items() if k != "fairSharing"}), encoding="utf-8")
    assert _json("simulate", *objects, str(without))["fairSharing"] is False
    with_enable = tmp / "v1beta2-enable.yaml"
    with_enable.write_text(yaml.safe_dump({**config, "fairSharing": {**config["fairSharing"], "enable": True}}),
                           encoding="utf-8")
    assert kqctl("simulate", *objects, str(with_enable)).code == 3
    for enable in (True, False):
        older = tmp / f"v1beta1-{enable}.yaml"
        older.write_text(yaml.safe_dump({**config, "apiVersion": "config.kueue.x-k8s.io/v1beta1",
                                         "fairSharing": {"enable": enable}}), encoding="utf-8")
        assert _json("simulate", *objects, str(older))["fairSharing"] is enable


# hierarchical-cohorts

@claim("hierarchical-cohorts", "`eng-ci/job-e2e-suite` and `data-training/job-ranker-sweep` borrow from the root "
                               "cohort `company` (borrowing level {level}).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    workloads = _json("simulate", f"samples/{sample}")["workloads"]
    parents = {node["name"]: node["parent"] for node in _json("audit", f"samples/{sample}")["nodes"]}
    for short in ("eng-ci/job-e2e-suite", "data-training/job-ranker-sweep"):
        name = _one(workloads, short)
        assert workloads[name]["decision"] == "Admitted" and workloads[name]["borrowed"], name
        assert _json("explain", name, f"samples/{sample}")["borrowing"] == int(stated["level"]), name
        above = [parents[workloads[name]["clusterQueue"]]]
        while parents[above[-1]] is not None:
            above.append(parents[above[-1]])
        assert len(above) == int(stated["level"]) and above[-1] == "company", name


# legacy-v1alpha1

@claim("legacy-v1alpha1", "`LEG-VERSION` errors (no Kueue serves v1alpha1;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 1
    assert {finding.rule for finding in findings if finding.severity == "error"} == {"LEG-VERSION"}
    v1alpha1 = sum(1 for path in sorted((SAMPLES / sample).glob("*.yaml")) for d in _documents(path)
                   if d["apiVersion"] == "kueue.x-k8s.io/v1alpha1")
    leg = [finding for finding in findings if finding.rule == "LEG-VERSION"]
    assert len({finding.object for finding in leg}) == len(leg) == v1alpha1
    assert all("no supported Kueue serves it" in finding.message for finding in leg)


@claim("legacy-v1alpha1", "each object is also validated as its v1beta2 conversion,")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    _, findings = _validate(sample)
    assert all("kqctl checks its v1beta2 conversion too" in f.message for f in findings if f.rule == "LEG-VERSION")
    # a borrowingLimit exists only in the conversion (a v1alpha1 `max`): its finding is the conversion's
    assert any(f.rule == "XO-CQ-NO-LENDER" and f.field.endswith(".borrowingLimit") for f in findings)


@claim("legacy-v1alpha1", "and simulate, explain and audit refuse it as validate does unless `--as-given`),")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    for command in (("simulate",), ("audit",), ("explain", "legacy-team/sample-job-7f3kq")):
        refused = kqctl(*command, f"samples/{sample}")
        assert refused.code == 3 and "(LEG-VERSION;" in refused.err, command
        assert kqctl(*command, f"samples/{sample}", "--as-given").code == 0, command


@claim("legacy-v1alpha1", "`LEG-3` warnings (cpu and memory now share one flavor),")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    leg3 = [finding for finding in _validate(sample)[1] if finding.rule == "LEG-3"]
    assert leg3 and {finding.severity for finding in leg3} == {"warning"}
    assert all("cpu, memory now form one resource group and always get the same flavor" in f.message for f in leg3)


@claim("legacy-v1alpha1", "`XO-CQ-NO-LENDER` warnings (`legacy-batch`'s old `max` became a borrowingLimit, and nobody "
                          "in cohort `legacy-pool` has spot quota to lend)")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    lenders = [finding for finding in _validate(sample)[1] if finding.rule == "XO-CQ-NO-LENDER"]
    assert lenders and {(f.severity, f.object) for f in lenders} == {("warning", "ClusterQueue/legacy-batch")}
    assert all("no other member of cohort legacy-pool has spot/" in finding.message for finding in lenders)
    (batch,) = [d for d in _documents(SAMPLES / sample / "kueue-v0.1-v1alpha1.yaml")
                if d["kind"] == "ClusterQueue" and d["metadata"]["name"] == "legacy-batch"]
    assert {flavor["name"] for resource in batch["spec"]["resources"] for flavor in resource["flavors"]
            if "max" in flavor["quota"]} == {"spot"}


@claim("legacy-v1alpha1", "and, for `legacy-interactive`, the dropped `max` of a ClusterQueue without cohort "
                          "(`CONV-DROPPED`).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    findings = _validate(sample)[1]
    (dropped,) = [finding for finding in findings if finding.rule == "CONV-DROPPED"]
    assert (dropped.severity, dropped.object) == ("warning", "ClusterQueue/legacy-interactive")
    assert dropped.field.endswith(".quota.max") and "the ClusterQueue has no cohort" in dropped.message
    # and the item names every warning
    assert {f.rule for f in findings if f.severity == "warning"} == {"LEG-3", "XO-CQ-NO-LENDER", "CONV-DROPPED"}


@claim("legacy-v1alpha1", "`convert` prints v1beta2 objects.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    run = kqctl("convert", "-R", f"samples/{sample}")
    assert run.code == 0, run.err
    versions = {document["apiVersion"] for document in yaml.safe_load_all(run.out) if document}
    assert {version for version in versions if "kueue" in version} == {"kueue.x-k8s.io/v1beta2"}


# broken

@claim("broken", "exit code 1.")
@claim("yunikorn-broken", "exit code 1, {errors} errors and {warnings} warnings.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    run = kqctl("validate", f"samples/{sample}")
    assert run.code == 1
    if stated:
        assert f": {stated['errors']} errors, {stated['warnings']} warnings" in run.out.splitlines()[-2]


@claim("broken", "Every broken object has a comment naming the finding it must produce; list them with: ```sh "
                 r"grep -rnE '^\s*# expect [A-Z]' samples/broken/ ```")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    grep = re.compile(r"^\s*# expect (?P<rule>[A-Z][A-Z0-9-]+)")  # the command's extended regular expression
    findings = _validate(sample)[1]
    for path in sorted((SAMPLES / sample).glob("*.yaml")):
        lines = path.read_text(encoding="utf-8").splitlines()
        named = {m["rule"]: number for number, line in enumerate(lines, 1) if (m := grep.match(line))}
        mine = [finding for finding in findings if finding.file == path.name and finding.severity != "info"]
        assert set(named) <= {finding.rule for finding in mine}, path.name
        # each object with a finding (its lines: from the --- before it to the next) has a comment naming one of
        # its rules, or follows the object whose comment does (the two Cohorts of a cycle)
        starts = [0] + [number for number, line in enumerate(lines, 1) if line == "---"] + [len(lines) + 1]
        chunk = {number: max(s for s in starts if s < number) for number in range(1, len(lines) + 1)}
        for finding in mine:
            assert finding.line is not None
            here = chunk[finding.line]
            before = max((s for s in starts if s < here), default=here)
            assert any(chunk[named[rule]] in (here, before) for rule in named
                       if rule in {f.rule for f in mine if f.line and chunk[f.line] == here}), (path.name, finding)


def _table_names_the_findings(sample: str, rows: str, *severities: str) -> list[Finding]:
    """A sample's table of files and findings: a row per file of the sample, each naming the rules validate finds
    there (of these severities; all without). Returns validate's findings for the claim's other checks."""
    table = _table(rows)
    findings = _validate(sample)[1]
    files = sorted(path.name for path in (SAMPLES / sample).glob("*.yaml"))
    assert sorted(table) == files
    got = _rules(findings, *severities)
    for file in files:
        assert _rule_ids(table[file]) == got.get(file, set()), file
    return findings


def _table(rows: str) -> dict[str, str]:
    """A two-column markdown table: file -> its second cell."""
    cells = [[part.strip() for part in line.strip().strip("|").split("|")] for line in rows.strip().splitlines()]
    assert cells[0] == ["file", "findings"] and set(cells[1][0]) == {"-"}, cells[:2]
    return {file.strip("`"): cell for file, cell in cells[2:]}


def _rule_ids(text: str) -> set[str]:
    """The rule IDs ``text`` names (a table cell's code spans, or a comma-separated list), abbreviations expanded:
    `CEL-VAL-CQ-11`, `-12` names CEL-VAL-CQ-12, `CEL-VAL-RF-4` … `-8` the five of them, and VC-VAP-CAPABILITY,
    -GUARANTEE names VC-VAP-GUARANTEE. Other code spans (a file, a flag) name no rule."""
    rules: list[str] = []
    tokens = re.findall(r"`([^`]+)`|(…)", text) if "`" in text else [(word, "") for word in re.split(r",\s*", text)]
    through = False
    for span, ellipsis in tokens:
        if ellipsis:
            through = True
        elif RULE.match(span):
            rules.append(span)
        elif re.fullmatch(r"-[A-Z0-9]+", span):
            prefix, last = rules[-1].rsplit("-", 1)
            first = int(last) + 1 if through else int(span[1:]) if span[1:].isdigit() else 0
            rules.extend([f"{prefix}-{n}" for n in range(first, int(span[1:]) + 1)] if span[1:].isdigit()
                         else [f"{prefix}{span}"])
            through = False
    return set(rules)


@claim("broken", "{rows}")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    findings = _table_names_the_findings(sample, stated["rows"], "error", "warning")
    # what the cells say besides rule IDs
    (quantity,) = [finding for finding in findings if finding.file == "40-bad-quantity.yaml"]
    assert "1.2.3" in (SAMPLES / sample / quantity.file).read_text(encoding="utf-8").splitlines()[quantity.line - 1]
    (duplicate,) = [finding for finding in findings if finding.rule == "LOAD-DUPLICATE"]
    assert duplicate.object == "LocalQueue/payments/main" and "samples/broken/00-base.yaml:" in duplicate.message
    (pods,) = [f for f in findings if f.file == "30-webhook.yaml" and f.rule == "XO-WL-UNCOVERED"]
    assert "requests pods," in pods.message
    assert [f.object for f in findings if f.file == "30-webhook.yaml" and f.rule == "VAL-WL-5"] == [pods.object]
    skipped = [finding for finding in findings if finding.rule == "LOAD-SKIPPED"]
    assert [(f.object.split("/")[0], f.severity) for f in skipped] == [("ConfigMap", "warning")]
    (typo,) = [finding for finding in findings if finding.file == "80-manager-config.yaml"]
    assert typo.object == "ConfigMap/kueue-system/kueue-manager-config" and typo.field.endswith(".fairSharin")
    lines = (SAMPLES / sample / typo.file).read_text(encoding="utf-8").splitlines()
    assert lines[typo.line - 1].strip() == "fairSharin:"  # the line inside the embedded text
    strict = [finding for finding in _validate(sample, "--strict")[1] if finding.rule == "LOAD-SKIPPED"]
    assert {finding.severity for finding in strict} == {"error"}


@claim("broken", "`10-schema.yaml`, `30-webhook.yaml` and `50-cross-object.yaml` also get `XO-CO-IMPLICIT` infos (a "
                 "cohort with no Cohort object).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    findings = _validate(sample)[1]
    assert _rules(findings, "info") == {name: {"XO-CO-IMPLICIT"} for name in
                                        ("10-schema.yaml", "30-webhook.yaml", "50-cross-object.yaml")}
    assert all("has no object in the inputs" in finding.message for finding in findings if finding.severity == "info")


@claim("broken", "References to objects that are not in the inputs (a missing flavor, ClusterQueue, LocalQueue or "
                 "priority class) are warnings by default, since the inputs may be a partial export, and errors with "
                 "`--closed`.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    references = {"XO-CQ-FLAVOR", "XO-LQ-CQ", "XO-WL-LQ", "XO-WL-PRIORITY"}
    for flags, severity in (((), "warning"), (("--closed",), "error")):
        found = {(f.rule, f.severity) for f in _validate(sample, *flags)[1] if f.rule in references}
        assert found == {(rule, severity) for rule in references}, flags


@claim("broken", "`kqctl rules ID` (or docs/rules.md) explains every rule ID.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    rules = {f.rule for flags in ((), ("--closed",), ("--strict",)) for f in _validate(sample, *flags)[1]}
    catalogue = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in sorted(rules):
        explained = kqctl("rules", rule)
        assert explained.code == 0 and rule in explained.out, rule
        assert f"\n| {rule.removeprefix('CEL-')} |" in catalogue, rule  # CEL-<ID>: the CEL rule enforcing <ID>


# volcano-seed

@claim("volcano-seed", "one warning, `VC-LINT-DESERVED-IGNORED` (the chart's configuration runs proportion, which "
                       "ignores `deserved`).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 0 and [(f.rule, f.severity) for f in findings] == [("VC-LINT-DESERVED-IGNORED", "warning")]
    simulated = _json("simulate", f"samples/{sample}")
    assert simulated["quotaPlugin"] == "proportion" and "Helm chart" in simulated["configuration"]["source"]
    (queue,) = [d for d in _documents(SAMPLES / sample / "cluster.yaml") if d["kind"] == "Queue"]
    written, used = queue["spec"]["deserved"], simulated["queues"][queue["metadata"]["name"]]["deserved"]
    assert _q(written["cpu"]) != _q(used["cpu"])  # proportion's own share, not the spec's


@claim("volcano-seed", "`research/sweep` runs on the {nodes} nodes;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    sweep = _json("simulate", f"samples/{sample}")["podGroups"]["research/sweep"]
    nodes = [d for d in _json("validate", f"samples/{sample}")["documents"] if d["kind"] == "Node"]
    assert sweep["phase"] == "Running" and len(set(sweep["bound"].values())) == len(nodes) == _number(stated["nodes"])


@claim("volcano-seed", "`research/tune-llm` stays Pending at enqueue: the queue's real capability ({cap} cores) is "
                       "less than what runs ({runs}) plus what it asks ({asks}).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    group = _json("simulate", f"samples/{sample}")["podGroups"]["research/tune-llm"]
    assert group["phase"] == "Pending" and group["reason"]["gate"] == "queue-quota"  # never Inqueue: enqueue stops it
    (gate,) = _json("explain", "research/tune-llm", f"samples/{sample}")["gates"]
    detail = gate["detail"]
    assert (detail["queue"], detail["limitName"]) == ("research", "realCapability")
    assert (detail["limit"]["cpu"], detail["allocated"]["cpu"], detail["minResources"]["cpu"]) == \
        (stated["cap"], stated["runs"], stated["asks"])
    assert int(stated["cap"]) < int(stated["runs"]) + int(stated["asks"])


# volcano-two-teams

@claim("volcano-two-teams", "{running} PodGroups run ({a} of team-a, {b} of team-b);")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    groups = _json("simulate", f"samples/{sample}")["podGroups"]
    running = [group["queue"] for group in groups.values() if group["phase"] == "Running"]
    assert len(running) == _number(stated["running"])
    assert (running.count("team-a"), running.count("team-b")) == (int(stated["a"]), int(stated["b"]))


@claim("volcano-two-teams", "the comments at the top of `workloads.yaml` explain why team-b's last {last} stay Pending "
                            "below its deserved share.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _json("simulate", f"samples/{sample}")
    team_b = sorted((name, group) for name, group in simulated["podGroups"].items() if group["queue"] == "team-b")
    last = _number(stated["last"])
    assert [group["phase"] for _, group in team_b[-last:]] == ["Pending"] * last
    assert all(group["phase"] == "Running" for _, group in team_b[:-last])
    queue = simulated["queues"]["team-b"]
    assert _q(queue["allocated"]["cpu"]) < _q(queue["deserved"]["cpu"])
    header = (SAMPLES / sample / "workloads.yaml").read_text(encoding="utf-8").split("\napiVersion:")[0]
    assert f"team-b's last {stated['last']} stay Pending although team-b is below its deserved share" in header


# volcano-hierarchy

@claim("volcano-hierarchy", "`ml/train-a`, `ml/train-b` and `ops/backup` run;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    groups = _json("simulate", f"samples/{sample}")["podGroups"]
    assert {name for name, group in groups.items() if group["phase"] == "Running"} == \
        {"ml/train-a", "ml/train-b", "ops/backup"}


def _quota_gate(sample: str, group: str) -> dict[str, Any]:
    assert _json("simulate", f"samples/{sample}")["podGroups"][group]["reason"]["gate"] == "queue-quota", group
    (gate,) = _json("explain", group, f"samples/{sample}")["gates"]
    assert gate["detail"]["limitName"] == "realCapability"
    return gate["detail"]  # type: ignore[no-any-return]


@claim("volcano-hierarchy", "`ops/reindex` exceeds `ops`'s capability of {cap} cores,")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    detail = _quota_gate(sample, "ops/reindex")
    ops = _json("simulate", f"samples/{sample}")["queues"]["ops"]
    assert detail["queue"] == "ops" and detail["limit"]["cpu"] == ops["capability"]["cpu"] == stated["cap"]
    assert int(detail["allocated"]["cpu"]) + int(detail["minResources"]["cpu"]) > int(stated["cap"])


@claim("volcano-hierarchy", "`web/render` ({asks} cores) exceeds what `eng`'s {eng} leave after `eng-ml`'s use "
                            "({used}): hierarchical capacity checks every queue up to root.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    detail = _quota_gate(sample, "web/render")
    simulated = _json("simulate", f"samples/{sample}")
    queues = simulated["queues"]
    assert simulated["podGroups"]["web/render"]["queue"] == "eng-web" and queues["eng-web"]["parent"] == "eng"
    assert (detail["queue"], detail["minResources"]["cpu"], detail["limit"]["cpu"]) == \
        ("eng", stated["asks"], stated["eng"])  # stopped at the parent
    assert detail["allocated"]["cpu"] == queues["eng-ml"]["allocated"]["cpu"] == stated["used"]
    assert int(stated["asks"]) > int(stated["eng"]) - int(stated["used"])
    assert _q(queues["eng-web"]["realCapability"]["cpu"]) >= _q(stated["asks"])  # its own queue would let it in


# volcano-broken

@claim("volcano-broken", "exit code 1; every `# expect` rule appears in its file and nothing else:")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    code, findings = _validate(sample)
    assert code == 1
    expected = {path.name: set(re.findall(r"#\s*expect\s+([A-Z][A-Z0-9-]+)", path.read_text(encoding="utf-8")))
                for path in sorted((SAMPLES / sample).glob("*.yaml"))}
    assert _rules(findings) == {name: rules for name, rules in expected.items() if rules}


@claim("volcano-broken", "{rows}")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    findings = _table_names_the_findings(sample, stated["rows"])
    # 00-base.yaml's guarantees, with 60-lints.yaml's hoarder, take every core
    totals = [f for f in findings if f.rule == "VC-LINT-GUARANTEE-TOTAL"]
    assert {f.file for f in totals} == {"00-base.yaml", "60-lints.yaml"}
    assert "Queue/hoarder" in {f.object for f in totals}
    assert all(re.search(r"add up to cpu (\S+) of \1 in the cluster", f.message) for f in totals)
    # 40-workloads.yaml: "(warnings: a queue outside the input; a queue whose status says Closed)"
    queues = {f.rule: f for f in findings if f.rule in ("VC-PG-QUEUE", "VC-PG-QUEUE-STATE")}
    assert {f.severity for f in queues.values()} == {"warning"}
    assert "not found" in queues["VC-PG-QUEUE"].message and "is `Closed`" in queues["VC-PG-QUEUE-STATE"].message


AGAINST = ("--against", "samples/volcano-broken/cluster", "--prune",
           "--scheduler-conf", "samples/volcano-broken/cluster/volcano-scheduler.conf",
           "--webhook-flag", "enable-queue-allocated-pods-check=true")


@claim("volcano-broken", "With `--against samples/volcano-broken/cluster --prune` (and the cluster's hierarchical "
                         "`--scheduler-conf`, and `--webhook-flag enable-queue-allocated-pods-check=true`), "
                         "`80-against.yaml` gets `VC-Q5`, `VC-H3`, `VC-H6`, `VC-H7` and `VC-TREE-NONLEAF`,")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    assert "enableHierarchy: true" in (SAMPLES / sample / "cluster" / "volcano-scheduler.conf").read_text("utf-8")
    assert _rules(_validate(sample, *AGAINST)[1])["80-against.yaml"] == \
        {"VC-Q5", "VC-H3", "VC-H6", "VC-H7", "VC-TREE-NONLEAF"}


@claim("volcano-broken", "`cluster/queues.yaml` gets `VC-D1`, `VC-D2`, `VC-D3`,")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    assert _rules(_validate(sample, *AGAINST)[1])["cluster/queues.yaml"] == {"VC-D1", "VC-D2", "VC-D3"}


@claim("volcano-broken", "`40-workloads.yaml`'s `VC-PG-QUEUE` becomes an error (the queue is in neither),")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    (lost,) = [f for f in _validate(sample, *AGAINST)[1] if f.rule == "VC-PG-QUEUE"]
    assert (lost.file, lost.severity) == ("40-workloads.yaml", "error") and "not found" in lost.message


@claim("volcano-broken", "and `50-scheduler-conf.yaml` is not read (the `--scheduler-conf` file is).")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    assert "50-scheduler-conf.yaml" in _rules(_validate(sample)[1])  # read alone,
    assert "50-scheduler-conf.yaml" not in _rules(_validate(sample, *AGAINST)[1])  # not with --scheduler-conf


# yunikorn-priority

def _yunikorn_properties(sample: str) -> dict[str, dict[str, Any]]:
    (document,) = [d for d in _json("validate", f"samples/{sample}")["documents"] if d.get("effective")]
    (partition,) = document["effective"]["partitions"]
    return {queue["path"]: queue["properties"] for queue in partition["queues"]}


@claim("yunikorn-priority", "`system` (offset {offset}) goes first;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    assert _yunikorn_properties(sample)["root.system"]["priority.offset"] == int(stated["offset"])
    simulated = _json("simulate", f"samples/{sample}")
    system = sum(1 for pod in simulated["pods"] if pod["queue"] == "root.system")
    first = [event["queue"] for event in simulated["events"] if event["kind"] == "allocated"][:system]
    assert system and first == ["root.system"] * system


def _explain_a_job(sample: str) -> Any:
    return _json("explain", "team1/a-job-0", f"samples/{sample}")


@claim("yunikorn-priority", "`tenant1` is fenced, so it reports its offset {offset} to root whatever is pending below "
                            "it, and ties with `tenant2` on priority:")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    explained = _explain_a_job(sample)
    tenant1 = next(queue for queue in explained["chain"] if queue["path"] == "root.tenant1")
    assert (tenant1["policy"], tenant1["offset"], tenant1["reported"]) == ("fence", int(stated["offset"]),
                                                                             int(stated["offset"]))
    assert tenant1["raw"] != tenant1["reported"]  # whatever is pending below
    root = next(level for level in explained["levels"] if level["parent"] == "root")
    priorities = {entry["name"]: entry["priority"] for entry in root["order"]}
    assert priorities["tenant1"] == priorities["tenant2"] == int(stated["offset"])


@claim("yunikorn-priority", "fair share, then the larger pending request, decides between them.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    root = next(level for level in _explain_a_job(sample)["levels"] if level["parent"] == "root")
    first, second = (entry for entry in root["order"] if entry["name"] in ("tenant1", "tenant2"))
    assert first["fairShare"] <= second["fairShare"]
    if first["fairShare"] == second["fairShare"]:
        assert first["pending"]["vcore"] > second["pending"]["vcore"]


@claim("yunikorn-priority", "Inside `tenant1`, `a` (fenced, offset {a}) and `b` (offset {b}) compete;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    properties = _yunikorn_properties(sample)
    assert (properties["root.tenant1.a"]["priority.policy"], properties["root.tenant1.a"]["priority.offset"]) == \
        ("fence", int(stated["a"]))
    assert (properties["root.tenant1.b"]["priority.policy"], properties["root.tenant1.b"]["priority.offset"]) == \
        ("default", int(stated["b"]))
    queues = {pod["queue"] for pod in _json("simulate", f"samples/{sample}")["pods"]}
    assert {"root.tenant1.a", "root.tenant1.b"} <= queues  # both ask


@claim("yunikorn-priority", "the cluster fills up before `a`'s pods get a turn.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _json("simulate", f"samples/{sample}")
    pods = [pod for pod in simulated["pods"] if pod["queue"] == "root.tenant1.a"]
    assert pods and all(pod["state"] == "Pending" and "root (the cluster): vcore 0 left" in pod["reason"]
                        for pod in pods)
    root = next(queue for queue in simulated["queues"] if queue["path"] == "root")
    assert root["allocated"]["vcore"] == simulated["cluster"]["vcore"]


@claim("yunikorn-priority", "`kqctl explain team1/a-job-0` shows why, and what would change it.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    explained = _explain_a_job(sample)
    assert explained["state"] == "Pending" and explained["reason"]
    assert explained["suggestions"] and all(s["verified"] and s["outcome"] == "Allocated"
                                            for s in explained["suggestions"])


# yunikorn-gang (YK-GANG-1..4)

def _gang_pods(sample: str) -> dict[str, Any]:
    return {f"{pod['namespace']}/{pod['name']}": pod for pod in _json("simulate", f"samples/{sample}")["pods"]}


@claim("yunikorn-gang", "`spark-pi`'s {placeholders} placeholders are allocated and its real pods replace them, each "
                        "on its placeholder's node;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    pods = _gang_pods(sample)
    placeholders = {key: pod for key, pod in pods.items() if pod["placeholder"] and pod["application"] == "spark-pi"}
    real = [pod for pod in pods.values() if not pod["placeholder"] and pod["application"] == "spark-pi"]
    assert len(placeholders) == _number(stated["placeholders"]) == len(real)
    assert all(pod["state"] == "Replaced" for pod in placeholders.values())
    assert all(pod["state"] == "Allocated" and pod["replaced"] in placeholders for pod in real)
    events = {event["pod"]: event for event in _json("simulate", f"samples/{sample}")["events"]}
    for pod in real:  # the node its placeholder had when it was allocated
        assert events[pod["replaced"]]["node"] == pod["node"]


@claim("yunikorn-gang", "only {allocated} of `spark-etl`'s {needed} placeholders fit under `root.spark`'s max, so its "
                        "real pods wait while that placeholder holds its node.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    pods = [pod for pod in _gang_pods(sample).values() if pod["application"] == "spark-etl"]
    placeholders = [pod for pod in pods if pod["placeholder"]]
    assert len(placeholders) == _number(stated["needed"])
    assert sum(pod["state"] == "Allocated" for pod in placeholders) == _number(stated["allocated"])
    assert all(pod["reason"].startswith("Not enough queue quota (root.spark:") for pod in placeholders
               if pod["state"] == "Pending")
    assert all(pod["state"] == "Pending" and "waiting for its gang's placeholders" in pod["reason"]
               for pod in pods if not pod["placeholder"])


@claim("yunikorn-gang", "`kqctl explain spark/spark-etl-exec-1` names the placeholder the gang waits for and the max "
                        "that would let it in.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    explained = _json("explain", "spark/spark-etl-exec-1", f"samples/{sample}")
    assert explained["gang"]["blocker"] == "spark/tg-spark-etl-executor-1"
    assert [s["change"].startswith("raise the max of root.spark") and s["verified"]
            for s in explained["suggestions"]] == [True]


# yunikorn-multi-tenant

def _tenants(sample: str) -> Any:
    return _json("simulate", f"samples/{sample}")


@claim("yunikorn-multi-tenant", "`batch` runs {running} applications, its `maxapplications`, so its other applications "
                                "wait;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _tenants(sample)
    batch = next(queue for queue in simulated["queues"] if queue["path"] == "root.batch")
    assert batch["runningApps"] == batch["maxApplications"] == _number(stated["running"]) < batch["applications"]
    pods = [pod for pod in simulated["pods"] if pod["queue"] == "root.batch"]
    running = {pod["application"] for pod in pods if pod["state"] == "Running"}
    others = [pod for pod in pods if pod["application"] not in running]
    assert len(running) == _number(stated["running"]) and others
    assert all(pod["state"] == "Pending" and pod["reason"].startswith("waiting to run: queue root.batch runs")
               for pod in others)


@claim("yunikorn-multi-tenant", "`dashboards` is full (its namespace quota);")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _tenants(sample)
    queue = next(queue for queue in simulated["queues"] if queue["path"].endswith(".dashboards"))
    (namespace,) = [d for d in _documents(SAMPLES / sample / "cluster.yaml")
                    if d["kind"] == "Namespace" and d["metadata"]["name"] == "dashboards"]
    quota = json.loads(namespace["metadata"]["annotations"]["yunikorn.apache.org/namespace.quota"])
    assert queue["max"] == {"vcore": _milli(quota["cpu"]), "memory": _milli(quota["memory"]) // 1000}
    assert {name: queue["allocated"][name] for name in queue["max"]} == queue["max"]
    waiting = [pod for pod in simulated["pods"] if pod["queue"] == queue["path"] and pod["state"] == "Pending"]
    assert waiting and all(pod["reason"].startswith("Not enough queue quota") for pod in waiting)


@claim("yunikorn-multi-tenant", "`reports/weekly-1` and `-2` reserve nodes;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    pods = {f"{pod['namespace']}/{pod['name']}": pod for pod in _tenants(sample)["pods"]}
    reserved = [pods[name]["reservedNode"] for name in ("reports/weekly-1", "reports/weekly-2")]
    assert all(reserved) and len(set(reserved)) == 2


@claim("yunikorn-multi-tenant", "`training/giant-0` asks for more than `ml` has left, and more than any node has: it "
                                "can never run.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    simulated = _tenants(sample)
    (giant,) = [pod for pod in simulated["pods"] if (pod["namespace"], pod["name"]) == ("training", "giant-0")]
    ml = next(queue for queue in simulated["queues"] if queue["path"] == "root.ml")
    assert giant["state"] == "Pending" and giant["request"]["vcore"] > ml["max"]["vcore"] - ml["allocated"]["vcore"]
    biggest = max(_milli(node["status"]["allocatable"]["cpu"])
                  for node in _documents(SAMPLES / sample / "cluster.yaml") if node["kind"] == "Node")
    assert giant["request"]["vcore"] > biggest  # vcore is in millicores
    assert giant["neverFits"] and "the largest node has" in giant["neverFits"] and "inadmissible" in giant["failOn"]


# yunikorn-broken

@claim("yunikorn-broken", "YuniKorn's webhook names the first error only;")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    firsts = [f for f in _validate(sample)[1] if "YuniKorn's first error" in f.hint]
    assert [(f.file, f.severity) for f in firsts] == [("queues.yaml", "error")]


@claim("yunikorn-broken", "`kqctl` lists every one with its rule ID (`kqctl rules YK-V7` explains one),")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    findings = [finding for finding in _validate(sample)[1] if finding.file == "queues.yaml"]
    lines = (SAMPLES / sample / "queues.yaml").read_text(encoding="utf-8").splitlines()
    commented = {"YK-DECODE" if m[1] == "decode" else f"YK-{m[1]}": number
                 for number, line in enumerate(lines, 1) if (m := re.search(r"  # (V\d+|decode): ", line))}
    assert sorted(finding.rule for finding in findings) == sorted(commented)  # one each
    for finding in findings:  # on the commented line, or the line before it (V10: guaranteed above the max)
        assert finding.line in (commented[finding.rule], commented[finding.rule] - 1), finding
    explained = kqctl("rules", "YK-V7")
    assert explained.code == 0 and "YK-V7" in explained.out


@claim("yunikorn-broken", "the hint of the one the webhook names saying \"YuniKorn's first error\" and the others' "
                          "naming it.")
def _(sample: str, stated: dict[str, str], tmp: Path) -> None:
    errors = [f for f in _validate(sample)[1] if f.file == "queues.yaml" and f.severity == "error"]
    (first,) = [f for f in errors if "YuniKorn's first error" in f.hint]
    assert all(f"this one once {first.rule} at {first.field} " in f.hint for f in errors if f is not first)


# --- reading the claims from samples/README.md ---------------------------------------------------------------------

def _bullets() -> dict[str, str]:
    """Each "What to expect" item's text, by sample."""
    text = README.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for section in text.split("\nWhat to expect:\n")[1:]:
        section = section.lstrip("\n")
        end = re.search(r"^(?!- \*\*)\S", section, re.M)  # the first line that is not in an item
        for item in BULLET.finditer(section[:end.start()] if end else section):
            assert item["sample"] not in found, item["sample"]
            found[item["sample"]] = item["text"]
    return found


def _pattern(passage: str) -> re.Pattern[str]:
    """``passage`` as a pattern: ``{name}`` is a figure (``{rows}`` a table), a space any run of blanks."""
    pattern = ""
    for part in re.split(r"(\{\w+\})", passage):
        if re.fullmatch(r"\{\w+\}", part):
            pattern += ROWS if part == "{rows}" else rf"(?P<{part[1:-1]}>-?[\w.%]+)"
        else:
            pattern += r"\s+".join(re.escape(word) for word in part.split(" "))
    return re.compile(pattern, re.M)


def _stated(item: Claim) -> dict[str, str]:
    found = list(_pattern(item.passage).finditer(_bullets()[item.sample]))
    assert len(found) == 1, f"samples/README.md's {item.sample} item should say this once: {item.passage!r}"
    return found[0].groupdict()


def test_every_what_to_expect_item_is_a_sample_with_claims() -> None:
    items = set(_bullets())
    assert len(items) == 16 and items == {item.sample for item in CLAIMS}
    assert all((SAMPLES / sample).is_dir() for sample in items)


def test_every_sentence_of_what_to_expect_is_a_claim() -> None:
    """Each item, its claims cut out, is left with spaces and punctuation only: a new sentence needs its check."""
    for sample, text in _bullets().items():
        for item in CLAIMS:
            if item.sample == sample:
                text = _pattern(item.passage).sub(" ", text, count=1)
        assert not re.sub(r"[\s.,;:()]", "", text), f"{sample}: not checked: {text.strip()!r}"


@pytest.mark.parametrize("item", CLAIMS, ids=[f"{item.sample}: {item.passage[:60]}" for item in CLAIMS])
def test_what_to_expect_says_what_kqctl_does(item: Claim, tmp_path: Path) -> None:
    item.check(item.sample, _stated(item), tmp_path)


# --- the results the ```sh comments state ---------------------------------------------------------------------------

SH_COMMENT = re.compile(r"^(?P<command>kqctl (?:[^#\n]|\\\n)*?)\s+# (?P<comment>[^\n]*)$", re.M)


def _sh_comments() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```$", text, re.S | re.M)
    return [(" ".join(match["command"].replace("\\\n", " ").split()), match["comment"])
            for block in blocks for match in SH_COMMENT.finditer(block)]


def test_the_sh_comments_with_a_result_are_found() -> None:
    assert len([comment for _, comment in _sh_comments() if comment.startswith("exit")]) == 3


@pytest.mark.parametrize(("command", "comment"), [(c, m) for c, m in _sh_comments() if m.startswith("exit")],
                         ids=[f"{c}  # {m}" for c, m in _sh_comments() if m.startswith("exit")])
def test_every_exit_code_and_count_in_an_sh_comment_is_what_the_command_gives(command: str, comment: str) -> None:
    stated = re.fullmatch(r"exits? (?P<code>\d)(?:: (?P<errors>\d+) errors, (?P<warnings>\d+) warnings)?", comment)
    assert stated, f"`{command}  # {comment}`: a result this test cannot check yet"
    run = kqctl(*shlex.split(command)[1:])
    assert run.code == int(stated["code"]), run.err
    if stated["errors"]:
        assert f": {stated['errors']} errors, {stated['warnings']} warnings" in run.out.splitlines()[-2], run.out


def test_the_vap_comment_names_what_vap_adds() -> None:
    ((command, comment),) = [(c, m) for c, m in _sh_comments() if m.startswith("plus ")]
    assert command.endswith(" --vap")
    named = _rule_ids(comment[len("plus "):])
    without = {f.rule for f in _validate("volcano-broken")[1]}
    assert {f.rule for f in _validate("volcano-broken", "--vap")[1]} - without == named


def test_the_fair_sharing_comment_is_what_simulate_does() -> None:
    ((command, comment),) = [(c, m) for c, m in _sh_comments() if "fair-sharing" in c]
    assert comment == "its kueue-config.yaml switches fair sharing on" and "--fair-sharing" not in command.split()
    assert _json(*shlex.split(command)[1:])["fairSharing"] is True
    assert _json(*shlex.split(command)[1:], "--no-fair-sharing")["fairSharing"] is False
