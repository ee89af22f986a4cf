"""``kqctl simulate`` end to end on the shipped samples and on bad input."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
Write = Callable[[str, "str | bytes"], str]
PREEMPTION = str(REPO / "samples" / "preemption")
LIVELOCK = str(REPO / "tests" / "data" / "fair-sharing-livelock.yaml")
NOW = ["--now", "2026-01-01T00:00:00Z"]


def test_table_output_shows_queues_workloads_and_decisions(kqctl: Kq) -> None:
    run = kqctl("simulate", PREEMPTION, *NOW)
    assert run.code == 0, run.err
    assert run.out.startswith("CLUSTERQUEUE ") and "\nWORKLOAD " in run.out
    assert "Admitted" in run.out and "Preempted" in run.out


def test_json_output_has_the_conformance_keys(kqctl: Kq) -> None:
    data = json.loads(kqctl("simulate", PREEMPTION, "-o", "json", *NOW).out)
    assert {"admitted", "newlyAdmitted", "preempted", "pending", "inadmissible", "workloads"} <= set(data)


def test_one_cycle_only_issues_the_preemption_while_steady_state_admits_the_preemptor(kqctl: Kq) -> None:
    one = json.loads(kqctl("simulate", PREEMPTION, "--cycles", "1", "-o", "json", *NOW).out)
    steady = json.loads(kqctl("simulate", PREEMPTION, "-o", "json", *NOW).out)
    preemptor = "payments-prod/job-fraud-model-retrain-3c4d5"
    assert one["preempted"] and preemptor not in one["admitted"]
    assert one["workloads"][preemptor]["reason"] == "WaitingForPreemptedWorkloads"
    assert preemptor in steady["admitted"] and steady["workloads"][preemptor]["admittedInCycle"] == 2
    assert steady["stopReason"] == "steady"


def test_same_input_gives_byte_identical_output(kqctl: Kq) -> None:
    first = kqctl("simulate", PREEMPTION, "-o", "json", *NOW).out
    second = kqctl("simulate", PREEMPTION, "-o", "json", *NOW).out
    assert first == second


def test_namespace_filter_limits_the_workloads_shown(kqctl: Kq) -> None:
    data = json.loads(kqctl("simulate", PREEMPTION, "-o", "json", "-n", "fraud-research", *NOW).out)
    assert data["workloads"] and all(key.startswith("fraud-research/") for key in data["workloads"])


def test_invalid_yaml_exits_3_with_location(kqctl: Kq, write: Write) -> None:
    run = kqctl("simulate", write("bad.yaml", "kind: [\n"))
    assert run.code == 3
    assert "bad.yaml:" in run.err and "Traceback" not in run.err


def test_object_kueue_cannot_decode_exits_3_with_field(kqctl: Kq, write: Write) -> None:
    path = write("cq.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\n"
                            "spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
                            "    - name: f\n      resources:\n      - {name: cpu, nominalQuota: 1.2.3}\n")
    run = kqctl("simulate", path)
    assert run.code == 3
    assert "cq.yaml:10" in run.err and "nominalQuota" in run.err


def test_unknown_feature_gate_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("simulate", PREEMPTION, "--feature-gates", "NoSuchGate=true")
    assert run.code == 2 and "unknown feature gate" in run.err


def test_bad_now_is_a_usage_error(kqctl: Kq) -> None:
    assert kqctl("simulate", PREEMPTION, "--now", "yesterday").code == 2


def test_every_sample_simulates(kqctl: Kq) -> None:
    for sample in ("single-clusterqueue", "cohort-borrowing", "spot-gpu", "preemption", "fair-sharing",
                   "hierarchical-cohorts"):
        run = kqctl("simulate", str(REPO / "samples" / sample), *NOW)
        assert run.code == 0, f"{sample}: {run.err}"


def test_label_selector_filter_limits_the_workloads_shown(kqctl: Kq) -> None:
    data = json.loads(kqctl("simulate", PREEMPTION, "-o", "json", "-l", "no-such-label=x", *NOW).out)
    assert data["workloads"] == {} and data["admitted"] == {}


def test_malformed_label_selector_is_a_usage_error(kqctl: Kq) -> None:
    assert kqctl("simulate", PREEMPTION, "-l", "a in (b", *NOW).code == 2


def test_submitted_jobs_become_workloads_in_the_what_if(kqctl: Kq) -> None:
    """REQ-1..3: "if I submit these Jobs now, which would start, on which flavor, and whom would they preempt?"."""
    cluster, jobs = str(REPO / "samples" / "cohort-borrowing"), str(REPO / "samples" / "submit-jobs")
    data = json.loads(kqctl("simulate", cluster, jobs, "-o", "json", *NOW).out)
    assert data["workloads"]["team-a/job-ablation-study-13c6a"]["decision"] == "Admitted"
    partial = data["admitted"]["team-a/job-ablation-study-13c6a"]["podSetAssignments"][0]
    assert partial["count"] == 2  # job-min-parallelism: partially admitted
    assert data["workloads"]["team-b/job-embedding-backfill-cff1f"]["decision"] == "Inadmissible"


CHECKED = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: kueue.x-k8s.io/provisioning-request}
status:
  conditions: [{type: Active, status: "True", reason: Active, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy: {admissionChecks: [{name: prov}]}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
"""


def test_quota_reserved_waits_for_admission_checks(kqctl: Kq, write: Write) -> None:
    """AC-2, CYC-8.8: the scheduler only reserves quota; the checks decide the admission."""
    data = json.loads(kqctl("simulate", write("checks.yaml", CHECKED), "-o", "json", *NOW).out)
    assert "ns/w" in data["admitted"]  # it holds quota
    assert data["workloads"]["ns/w"]["decision"] == "QuotaReserved"
    assert data["workloads"]["ns/w"]["decisionText"] == "Quota reserved (waiting for checks: prov)"


def test_livelock_shows_the_latest_preemption_of_a_readmitted_victim(kqctl: Kq) -> None:
    """SIM-8: w0 is preempted, readmitted and preempted again; the report tells the last round."""
    run = kqctl("simulate", LIVELOCK, "--fair-sharing", "-o", "json", *NOW)
    data = json.loads(run.out)
    victim = data["workloads"]["ns/w0"]
    assert data["stopReason"] == "livelock"
    assert victim["preemptedInCycle"] > victim["admittedInCycle"]
    assert victim["decision"].startswith("Preempted") and victim["reason"] == "Preempted"
    assert "Fair Sharing" in victim["message"]


def test_cluster_queue_summary_shows_what_a_lender_lends(kqctl: Kq) -> None:
    sample = str(REPO / "samples" / "cohort-borrowing")
    table = kqctl("simulate", sample, *NOW, "-o", "wide").out
    assert " LENT " in table and "LENT: kqctl's attribution" in table
    queues = json.loads(kqctl("simulate", sample, "-o", "json", *NOW).out)["clusterQueues"]
    assert queues["team-a"]["default-flavor/cpu"] == {"nominal": "20", "used": "26", "borrowed": "6", "lent": "0"}
    assert queues["team-b"]["default-flavor/cpu"]["lent"] == "6"
    assert queues["team-b"]["default-flavor/memory"]["lent"] == "24Gi"


@pytest.mark.parametrize("args,note", [
    (("-n", "team-z"), "kqctl: note: -n team-z: no workload in namespace 'team-z'; did you mean team-b? (workloads "
                       "are in: team-a, team-b)\n"),
    (("-n", "team-b", "-l", "x=y"), "kqctl: note: -l x=y: no workload in namespace team-b matches\n"),
    (("-l", "x=y"), "kqctl: note: -l x=y: no workload matches\n"),
    (("-n", "team-a"), ""),
])
@pytest.mark.parametrize("output", ["table", "json", "yaml", "name"])
def test_kueue_simulate_says_why_nothing_is_shown_on_stderr_only(
        kqctl: Kq, args: tuple[str, ...], note: str, output: str) -> None:
    # As kubectl's "No resources found in NAMESPACE namespace.": exit 0, the note on stderr and nowhere in stdout,
    # which stays the (empty) result a pipe parses.
    run = kqctl("simulate", "samples/cohort-borrowing", *args, "-o", output, *NOW)
    assert run.code == 0 and run.err == note, run.err
    assert "note" not in run.out and "No workload" not in run.out
    if output == "json":
        data = json.loads(run.out)
        assert (data["workloads"] == {}) == bool(note) and "team-a" in data["clusterQueues"]
    if output == "name":
        assert (run.out == "") == bool(note)


@pytest.mark.parametrize("sample,namespace,note", [
    ("volcano-two-teams", "team-z",
     "kqctl: note: -n team-z: no PodGroup in namespace 'team-z'; did you mean team-b? (PodGroups are in: team-a, "
     "team-b)"),
    ("yunikorn-multi-tenant", "trainin",
     "kqctl: note: -n trainin: no pod in namespace 'trainin'; did you mean training? (pods are in: dashboards, "
     "nightly, reports, training)"),
])
def test_a_namespace_without_volcano_or_yunikorn_work_gets_a_did_you_mean_note_not_an_error(
        kqctl: Kq, sample: str, namespace: str, note: str) -> None:
    # As kubectl's "No resources found": exit 0, the note on stderr, JSON on stdout still parses.
    run = kqctl("simulate", str(REPO / "samples" / sample), "-n", namespace, "-o", "json")
    assert run.code == 0 and note in run.err, run.err
    json.loads(run.out)


@pytest.mark.parametrize("sample,what,namespace", [("volcano-two-teams", "PodGroup", "team-a"),
                                                   ("yunikorn-multi-tenant", "pod", "training")])
@pytest.mark.parametrize("output", ["table", "json"])
def test_a_selector_matching_no_volcano_or_yunikorn_work_says_so_on_stderr_only(
        kqctl: Kq, sample: str, what: str, namespace: str, output: str) -> None:
    # As Kueue's (above): an empty table that looks like an answer gets kubectl's "No resources found" note.
    path = str(REPO / "samples" / sample)
    run = kqctl("simulate", path, "-l", "x=y", "-o", output)
    assert run.code == 0 and run.err.endswith(f"kqctl: note: -l x=y: no {what} matches\n"), run.err
    assert "note: -l" not in run.out
    in_namespace = kqctl("simulate", path, "-n", namespace, "-l", "x=y", "-o", output)
    assert f"kqctl: note: -l x=y: no {what} in namespace {namespace} matches\n" in in_namespace.err
    assert "note: -l" not in kqctl("simulate", path, "-l", "x!=y", "-o", output).err
