"""simulate --fail-on: a non-zero exit for CI when a workload ends in a state it names, with one meaning for every
scheduler (README, "--fail-on"): pending = not running at the end for any reason, inadmissible = can never get in
as configured, preempted = evicted during the run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import REPO, Run

from kqctl.cli.fail_on import Ending

Kq = Callable[..., Run]
Write = Callable[[str, "str | bytes"], str]


def sample(name: str) -> str:
    return str(REPO / "samples" / name)


@pytest.mark.parametrize("running, never, evicted, states", [
    (True, False, False, set()),
    (False, False, False, {"pending"}),
    (False, True, False, {"pending", "inadmissible"}),
    (True, False, True, {"preempted"}),  # evicted, then admitted again
    (False, False, True, {"pending", "preempted"}),
    (True, True, False, set()),  # running: whatever else was said, it got in
])
def test_the_three_states_are_defined_on_running_never_and_evicted_alone(running: bool, never: bool, evicted: bool,
                                                                           states: set[str]) -> None:
    assert Ending("ns/w", running, never, evicted).states() == states


@pytest.mark.parametrize("name, flags, code, named", [
    ("preemption", ["--cycles", "1", "--fail-on", "preempted"], 1, "fraud-research/job-ablation-dropout-0a1b2"),
    ("preemption", ["--cycles", "1", "--fail-on", "inadmissible"], 0, None),
    # Steady state: the victims wait for quota to come back: pending, not inadmissible (they could get in).
    ("preemption", ["--fail-on", "inadmissible"], 0, None),
    ("preemption", ["--fail-on", "pending"], 1, "fraud-research/job-ablation-dropout-0a1b2"),
    ("preemption", ["--fail-on", "preempted"], 1, "2 workload(s)"),
    ("single-clusterqueue", ["--fail-on", "inadmissible"], 0, None),  # WaitingForQuota: it fits an empty queue
    ("single-clusterqueue", ["--fail-on", "preempted", "--fail-on", "pending"], 1, "2 workload(s)"),
    ("submit-jobs", ["--fail-on", "inadmissible"], 1, "team-a/job-eval-nightly-87b27"),  # its LocalQueue is missing
])
def test_fail_on_exits_1_only_when_a_workload_ends_in_a_named_state(kqctl: Kq, name: str, flags: list[str],
                                                                      code: int, named: str | None) -> None:
    run = kqctl("simulate", sample(name), *flags)
    assert run.code == code, run.err
    assert run.out.startswith("CLUSTERQUEUE ")  # the report is still printed
    if named is not None:
        assert named in run.err and "--fail-on" in run.err


TOO_BIG = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
""" + "".join(f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "2025-12-31T00:00:0{i}Z"}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
""" for i, (name, cpu) in enumerate((("fits", "3"), ("waits", "3"), ("too-big", "5"))))


@pytest.mark.parametrize("state, failing", [
    ("inadmissible", ["ns/too-big"]),  # 5 cpu in a ClusterQueue of 4: never
    ("pending", ["ns/too-big", "ns/waits"]),  # waits for "fits" to finish: pending only
    ("preempted", []),
])
def test_kueue_inadmissible_means_it_can_never_get_in_and_pending_means_not_running(kqctl: Kq, write: Write,
                                                                                     state: str,
                                                                                     failing: list[str]) -> None:
    run = kqctl("simulate", write("q.yaml", TOO_BIG), "--fail-on", state, "--now", "2026-01-01T00:00:00Z")
    assert run.code == (1 if failing else 0), run.err
    if failing:
        assert f"{len(failing)} workload(s) end {state} (--fail-on): {', '.join(failing)}" in run.err


def test_volcano_a_pending_podgroup_is_pending_and_one_in_a_closed_queue_is_inadmissible(kqctl: Kq) -> None:
    # volcano-hierarchy: web/render and ops/reindex wait for queue quota (phase Pending): pending, not inadmissible.
    assert kqctl("simulate", sample("volcano-hierarchy"), "--fail-on", "inadmissible").code == 0
    run = kqctl("simulate", sample("volcano-hierarchy"), "--fail-on", "pending")
    assert run.code == 1 and "2 PodGroup(s) end pending (--fail-on): ops/reindex, web/render" in run.err
    closed = kqctl("simulate", sample("volcano-two-teams"), "--set", "queue/team-b.status.state=Closed",
                   "--fail-on", "inadmissible")
    assert closed.code == 1 and "6 PodGroup(s) end inadmissible" in closed.err and "team-b/team-b-job-0" in closed.err


def test_an_unknown_fail_on_state_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("simulate", sample("preemption"), "--fail-on", "admitted")
    assert run.code == 2 and "choose from: inadmissible, pending, preempted" in run.err
    assert "did you mean" not in run.err


def test_a_misspelt_fail_on_state_says_which_state_it_is_close_to(kqctl: Kq) -> None:
    run = kqctl("simulate", sample("preemption"), "--fail-on", "pendng,preempted")
    assert run.code == 2
    assert "unknown --fail-on state(s) pendng; did you mean pending? choose from: inadmissible" in run.err, run.err


@pytest.mark.parametrize("name, state, quiet, failing, named", [
    ("cohort-borrowing", "pending", "team-b", "team-a", "team-a/job-llm-finetune-0d5b7"),
    ("volcano-hierarchy", "pending", "ml", "web", "web/render"),  # never enqueued: Pending
    ("yunikorn-priority", "pending", "kube-ops", "team1", "team1/"),
])
def test_fail_on_asks_about_the_namespace_shown_in_every_scheduler(kqctl: Kq, name: str, state: str, quiet: str,
                                                                    failing: str, named: str) -> None:
    # A CI job for one team fails on that team's work only: --fail-on follows -n (and -l) as the table does.
    assert kqctl("simulate", sample(name), "-n", quiet, "--fail-on", state).code == 0
    run = kqctl("simulate", sample(name), "-n", failing, "--fail-on", state)
    assert run.code == 1 and named in run.err and "--fail-on" in run.err
