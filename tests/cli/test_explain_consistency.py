"""explain never contradicts itself: the headline is the steady state, the arithmetic is for that
state, a workload that does not get in always gets "what would make it fit" with amounts, one that
gets in gets no suggestions, "Preempt" is not offered when the ClusterQueue never preempts, and no
words stutter. Also: did-you-mean, Jobs without a Workload, -n and -l."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
NOW = ("--now", "2026-09-14T08:00:00Z")
SAMPLES = ["cohort-borrowing", "preemption", "single-clusterqueue", "spot-gpu", "fair-sharing",
           "hierarchical-cohorts"]
STUTTER = re.compile(r"\b(\w+(?: \w+)?)[ :]+\1\b:")


def _workloads(kqctl: Kq, sample: str) -> dict[str, dict[str, object]]:
    return json.loads(kqctl("simulate", f"samples/{sample}", *NOW, "-o", "json").out)["workloads"]


@pytest.mark.parametrize("sample", SAMPLES)
def test_explain_agrees_with_simulate_and_with_itself(kqctl: Kq, sample: str) -> None:
    for key, entry in _workloads(kqctl, sample).items():
        run = kqctl("explain", key, f"samples/{sample}", *NOW)
        assert run.code == 0, run.err
        lines = run.out.splitlines()
        assert lines[1].startswith("├── Steady state: ") or lines[1].startswith("└── Steady state: ")
        assert entry["decisionText"].split(" (")[0] in lines[1], (key, lines[1], entry["decisionText"])
        admitted = entry["admission"] is not None
        assert ("What would make it fit" in run.out) != admitted, (key, run.out)
        assert ("Flavor assignment in the steady state" in run.out) <= (not admitted)
        assert not STUTTER.search(run.out), STUTTER.search(run.out)
        assert "not tried not tried" not in run.out


def test_every_suggestion_has_its_amounts(kqctl: Kq) -> None:
    out = kqctl("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", *NOW).out
    suggestions = out.split("What would make it fit", 1)[1].splitlines()[1:]
    assert suggestions and all(re.search(r"\d", line) for line in suggestions), suggestions
    assert "freeing" in out and "cpu by 10 (to 30), memory by 40Gi (to 120Gi)" in out


def test_preempt_is_not_offered_when_every_policy_is_never(kqctl: Kq) -> None:
    # cohort-borrowing: withinClusterQueue and reclaimWithinCohort are Never in both ClusterQueues.
    out = kqctl("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", *NOW).out
    arithmetic = out.split("Flavor assignment in the steady state: ", 1)[1].splitlines()[0]
    assert not arithmetic.startswith("Preempt") and "every preemption policy of its ClusterQueue is Never" in out


def test_arithmetic_is_that_of_the_steady_state(kqctl: Kq) -> None:
    # In the steady state team-a holds 26 cpu (hparam-sweep got in by borrowing), not the 18 of the inputs.
    out = kqctl("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", *NOW).out
    assert "cpu: needs 14 (this pod set 14); nominal 20, used 26" in out
    assert "10 more needed" in out  # the steady state's own message, as in the headline


def test_json_keeps_the_nomination_now_and_adds_the_steady_state(kqctl: Kq) -> None:
    data = json.loads(kqctl("explain", "team-a/job-llm-finetune-0d5b7", "samples/cohort-borrowing", *NOW,
                            "-o", "json").out)
    assert data["representativeMode"] == "Preempt"  # Kueue's flavor assigner, now (the recorded contract)
    steady = data["steadyStateAnalysis"]
    assert steady["preemptionAllowed"] is False and steady["flavorChecks"]


def test_unknown_name_gets_did_you_mean(kqctl: Kq) -> None:
    run = kqctl("explain", "job-fraud-model-retrain", "samples/preemption", *NOW)
    assert run.code == 2 and "did you mean payments-prod/job-fraud-model-retrain-3c4d5?" in run.err


def test_a_misspelled_namespace_gets_did_you_mean_not_give_namespace(kqctl: Kq) -> None:
    run = kqctl("explain", "defualt/job-train-resnet-5d0e7", "samples/single-clusterqueue", *NOW)
    assert run.code == 2 and "did you mean default/job-train-resnet-5d0e7?" in run.err
    assert "give namespace/name" not in run.err
    far = kqctl("explain", "defualt/nothing-like-it", "samples/single-clusterqueue", *NOW)
    assert far.code == 2 and "(workloads are in namespace(s) default)" in far.err


def test_a_job_kueue_makes_no_workload_for_says_why(kqctl: Kq) -> None:
    run = kqctl("explain", "team-a/ablation-study", "samples/submit-jobs", *NOW)
    assert run.code == 0
    assert "Job team-a/ablation-study: Kueue creates no Workload for it" in run.out
    assert "WorkloadPriorityClass 'research-standard' not found" in run.out


def test_namespace_flag_and_selector(kqctl: Kq) -> None:
    one = kqctl("explain", "-n", "team-a", "job-llm-finetune-0d5b7", "samples/cohort-borrowing", *NOW)
    assert one.code == 0 and one.out.startswith("team-a/job-llm-finetune-0d5b7 ")
    many = json.loads(kqctl("explain", "-l", "kueue.x-k8s.io/job-uid", "samples/cohort-borrowing", *NOW,
                            "-o", "json").out)
    assert [e["workload"] for e in many] == ["team-a/job-llm-finetune-0d5b7"]
    bad = kqctl("explain", "-l", "a b", "samples/cohort-borrowing")
    assert bad.code == 2 and "invalid label selector" in bad.err
    assert kqctl("explain", "samples/cohort-borrowing").code in (2, 3)


# Every Kueue sample (the Volcano and YuniKorn ones have their own explain), broken/ through its two files
# that simulate.
KUEUE_SAMPLES = [[f"samples/{d.name}"] for d in sorted((REPO / "samples").iterdir())
                 if d.is_dir() and not d.name.startswith(("volcano", "yunikorn")) and d.name not in ("broken",
                                                                                                     "legacy-v1alpha1")]
KUEUE_SAMPLES.append(["samples/broken/00-base.yaml", "samples/broken/50-cross-object.yaml"])
KUEUE_SAMPLES.append(["samples/legacy-v1alpha1", "--as-given"])  # no API server serves v1alpha1: read as written
NEEDED = re.compile(r"insufficient unused quota for \S+ in flavor \S+, \S+ more needed")


@pytest.mark.parametrize("inputs", KUEUE_SAMPLES, ids=[" ".join(i) for i in KUEUE_SAMPLES])
def test_explain_of_every_pending_workload_describes_one_steady_state(kqctl: Kq, inputs: list[str]) -> None:
    workloads = json.loads(kqctl("simulate", *inputs, *NOW, "-o", "json").out)["workloads"]
    for key, entry in workloads.items():
        run = kqctl("explain", key, *inputs, *NOW)
        assert run.code == 0, (key, run.err)
        lines = run.out.splitlines()
        assert entry["decisionText"] in lines[1], (key, lines[1], entry["decisionText"])  # "(4/8 pods)" too
        if entry["admission"] is not None:
            continue
        headline = lines[2] if lines[2].startswith("│") else ""
        arithmetic = run.out.split("Flavor assignment in the steady state", 1)
        if len(arithmetic) == 2:
            shortfalls = set(NEEDED.findall(arithmetic[1]))
            assert set(NEEDED.findall(headline)) <= shortfalls, (key, headline, shortfalls)
        assert "notqueued" not in run.out and "fix what keeps it out of the queue" not in run.out, run.out
        if "Not considered for admission" in run.out:
            fixes = run.out.split("What would make it fit", 1)[1]
            assert re.search(r"create LocalQueue|point LocalQueue|stopPolicy: None|existing LocalQueue", fixes), fixes


def test_headline_and_arithmetic_name_the_same_shortfall_and_a_smaller_raise_says_why(kqctl: Kq) -> None:
    # single-clusterqueue: hyperparam-sweep is admitted with 4 of its 8 pods before train-resnet is tried again,
    # so in the steady state train-resnet lacks 6 cpu and 600Mi, not the 2 cpu of an earlier attempt.
    run = kqctl("explain", "default/job-train-resnet-5d0e7", "samples/single-clusterqueue", *NOW, "--no-estimate")
    headline = run.out.splitlines()[2]
    assert "cpu in flavor default-flavor, 6 more needed" in headline and "600Mi more needed" in headline
    assert "2 more needed" not in run.out
    # Written into the ClusterQueue and simulated from the start, 2 more cpu get it in before hyperparam-sweep takes
    # the rest: the suggestion is that smaller raise, and says why it is below the shortfall.
    assert ("cpu by 2 (to 11) (less than the cpu and memory it lacks in the steady state: with the raise in the "
            "manifests it is admitted before the workloads that take that quota now)") in run.out


def test_a_missing_local_queue_is_named_with_the_change_that_gets_it_in(kqctl: Kq) -> None:
    run = kqctl("explain", "payments/job-wrong-queue-a1b2c", "samples/broken/00-base.yaml",
                "samples/broken/50-cross-object.yaml", *NOW)
    assert run.code == 0
    assert "Wait estimate: never while it is not queued (Misconfigured: LocalQueue main-queue doesn't exist)" \
        in run.out
    assert "create LocalQueue main-queue in namespace payments with spec.clusterQueue: payments: it then gets in" \
        in run.out
    assert "submit it to the existing LocalQueue main of namespace payments instead" in run.out


def test_repo_samples_exist() -> None:
    assert all((REPO / "samples" / s).is_dir() for s in SAMPLES)


@pytest.mark.parametrize("sample,notes", [
    ("cohort-borrowing", ["kqctl: note: -n team-z: no workload in namespace 'team-z'; did you mean team-b? "
                          "(workloads are in: team-a, team-b)",
                          "kqctl: no workload matches that is not admitted in the steady state"]),
    ("volcano-two-teams", ["kqctl: note: -n team-z: no PodGroup in namespace 'team-z'; did you mean team-b? "
                           "(PodGroups are in: team-a, team-b)"]),
    ("yunikorn-multi-tenant", ["kqctl: note: -n team-z: no pod in namespace 'team-z' (pods are in: dashboards, "
                               "nightly, reports, training)",
                               "kqctl: no pod matches that is pending or rejected at the end of the simulation"]),
])
@pytest.mark.parametrize("output", ["table", "json"])
def test_explain_selector_in_an_empty_namespace_notes_it_on_stderr_only(
        kqctl: Kq, sample: str, notes: list[str], output: str) -> None:
    # As kubectl's "No resources found": exit 0, notes on stderr; stdout is empty (table) or an empty list (json).
    now = () if sample.startswith("volcano") else NOW  # Volcano's simulation has no clock
    run = kqctl("explain", "-l", "x!=y", "-n", "team-z", f"samples/{sample}", *now, "-o", output)
    assert run.code == 0, run.err
    assert all(note in run.err for note in notes), run.err
    assert run.out == ("" if output == "table" else "[]\n")


def test_explain_headline_is_simulates_verdict_for_a_workload_preempted_out_of_the_gpu_it_borrowed(kqctl: Kq) -> None:
    # spot-gpu: its last attempt resumed the cpu/memory scan at spot (FA-4) and never reached the GPU group; the
    # answer both commands give is its next attempt's: the GPU group.
    key = "recsys-inference/job-llm-distill-e25d8"
    simulated = _workloads(kqctl, "spot-gpu")[key]
    explained = json.loads(kqctl("explain", key, "samples/spot-gpu", *NOW, "-o", "json").out)["steadyState"]
    assert (explained["reason"], explained["message"]) == (simulated["reason"], simulated["message"])
    assert "flavor t4 doesn't match node affinity" in simulated["message"]
    assert simulated["missing"] == explained["missing"] == {"a100/nvidia.com/gpu": "4"}


def test_a_preemption_allowed_but_not_made_says_why(kqctl: Kq) -> None:
    # replay: reclaiming team-a's borrowed quota would leave finetune-llama still borrowing, and team-b has no
    # borrowWithinCohort (DEF-1: the API server stores policy Never): Kueue makes no preemption (PRE-8). The estimate
    # does not say "it fits now".
    run = kqctl("explain", "team-b/job-finetune-llama-cb6db", "samples/replay", "--now", "2026-09-14T09:00:00Z")
    assert "Steady state: Inadmissible" in run.out and "it fits now" not in run.out
    assert ("none is preempted: with the 2 allowed candidates gone it would still have to borrow (cpu 24 of nominal "
            "16 in flavor default, memory 96Gi of nominal 64Gi in flavor default), and Kueue preempts in the cohort "
            "for a workload that borrows only under borrowWithinCohort (policy Never on ClusterQueue team-b)"
            ) in run.out


def test_a_workload_that_ends_preempted_gets_a_reason_and_a_wait_estimate(kqctl: Kq) -> None:
    run = kqctl("explain", "fraud-research/job-ablation-dropout-0a1b2", "samples/preemption", *NOW)
    steady = run.out.splitlines()[1]
    assert "Steady state: Preempted (inadmissible)" in steady and steady.endswith("— WaitingForQuota")
    assert "Wait estimate: at the current rate this workload is admitted in about" in run.out


def test_a_quota_suggestion_written_into_the_cluster_queue_gets_the_workload_in(kqctl: Kq) -> None:
    # fair-sharing: the smallest raise in the units the ClusterQueue is written in (whole cores, Gi), checked by
    # simulating the changed manifests from the start; a raise one unit smaller on either resource is not enough.
    key = "bi/job-exec-dashboard-6d2c0"
    out = kqctl("explain", key, "samples/fair-sharing", *NOW, "--no-estimate").out
    assert "raise nominalQuota in flavor default-flavor of ClusterQueue bi-dashboards: cpu by 2 (to 12), memory by " \
           "5Gi (to 45Gi)" in out
    quota = "clusterqueue/bi-dashboards.flavor.default-flavor.{}.nominalQuota={}"
    for cpu, memory, admitted in (("12", "45Gi", True), ("11", "45Gi", False), ("12", "44Gi", False)):
        data = json.loads(kqctl("simulate", "samples/fair-sharing", *NOW, "-o", "json", "--set",
                                quota.format("cpu", cpu), "--set", quota.format("memory", memory)).out)
        assert (data["workloads"][key]["admission"] is not None) == admitted, (cpu, memory)


@pytest.mark.parametrize("resource, nominal, step", [
    ("cpu", 10_000, 1000), ("cpu", 10_500, 100), ("cpu", 0, 1000), ("cpu", 1, 1),
    ("memory", 40 * 1024**3, 1024**3), ("memory", 1536 * 1024**2, 1024**2), ("memory", 1000, 1),
    ("nvidia.com/gpu", 8, 1), ("pods", 10, 1),
])
def test_quota_suggestions_are_searched_in_the_units_the_quota_is_written_in(resource: str, nominal: int,
                                                                             step: int) -> None:
    from kqctl.kueue.engine.explain import quota_step

    assert quota_step(resource, nominal) == step
