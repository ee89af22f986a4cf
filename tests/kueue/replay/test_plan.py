"""plan: targets, exact quota shares, the search (checked against a known threshold), the answer's proof."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest
from replay_support import CQ, WL, snapshot
from support import Run

from kqctl.kueue.replay.plan import (
    Condition,
    Evaluation,
    Measure,
    PlanError,
    PlanProblem,
    Values,
    apply,
    make_problem,
    measure,
    parse_target,
    search,
    share_out,
)
from kqctl.replay.protocol import WorkloadLabels
from kqctl.replay.run import WorkloadTimes


def test_targets_parse() -> None:
    assert parse_target("p95(time-to-admission) < 30m") == (Condition("p95", "time-to-admission", False, 1_800_000),)
    both = parse_target("mean(time-to-finish) <= 2h and no workload inadmissible")
    assert [c.text() for c in both] == ["mean(time-to-finish) <= 2h", "no workload inadmissible"]


@pytest.mark.parametrize("text", ["p95 < 30m", "p42(time-to-admission) < 1m", "p95(wait) < 1m",
                                  "p95(time-to-admission) > 1m", "p95(time-to-admission) < soon"])
def test_bad_targets_say_what_a_target_looks_like(text: str) -> None:
    with pytest.raises(PlanError, match="expected STAT\\(METRIC\\)|not a duration"):
        parse_target(text)


def times(key: str, wait: int | None) -> WorkloadTimes:
    return WorkloadTimes(key, WorkloadLabels("q", "q", 0, "c"), 0, 10, wait, wait, None if wait is None else wait + 10,
                         0, "Finished" if wait is not None else "Pending")


def test_a_workload_that_never_gets_in_makes_every_target_miss() -> None:
    p95 = parse_target("p95(time-to-admission) < 1h")[0]
    assert measure(p95, [times(f"w{i}", 1000) for i in range(99)]).met
    assert not measure(p95, [*(times(f"w{i}", 1000) for i in range(99)), times("stuck", None)]).met
    assert measure(parse_target("mean(time-to-admission) < 1s")[0], [times("a", 500), times("b", 1000)]).value \
        == Fraction(750)


@pytest.mark.parametrize("total,weights,shares", [
    (10, [1, 1], [5, 5]), (10, [1, 2], [3, 7]), (7, [0, 0, 0], [3, 2, 2]), (5, [16, 16], [3, 2]), (0, [3, 4], [0, 0]),
])
def test_a_cohort_total_is_shared_out_exactly(total: int, weights: list[int], shares: list[int]) -> None:
    assert share_out(total, weights) == shares and sum(share_out(total, weights)) == total


PLAN_SAMPLE = ("plan", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now", "2026-09-14T09:00:00Z",
               "--for", "clusterqueue/team-a", "--jobs", "1")

def problem(resources: int = 1) -> PlanProblem:
    return PlanProblem("ClusterQueue", "q", tuple(("f", f"r{i}") for i in range(resources)), ("q",),
                       (10,) * resources, (1,) * resources, parse_target("no workload inadmissible"))


def fake(threshold: Values, calls: list[list[Values]]) -> Callable[[list[Values]], list[Evaluation]]:
    """The target is met exactly when every value reaches its threshold."""
    def evaluate_many(candidates: list[Values]) -> list[Evaluation]:
        calls.append(candidates)
        return [Evaluation(c, (Measure(Condition("all", "", True, 0), None,
                                       all(v >= t for v, t in zip(c, threshold, strict=True)), 1, 0),), 0, 1, 1)
                for c in candidates]
    return evaluate_many


@pytest.mark.parametrize("parallel", [1, 2, 4])
@pytest.mark.parametrize("threshold", [0, 1, 37, 99, 100])
def test_the_search_finds_the_smallest_quota_and_its_proof(parallel: int, threshold: int) -> None:
    calls: list[list[Values]] = []
    result = search(problem(), fake((threshold,), calls), (100,), parallel)
    assert result.answer == (threshold,)
    at, below = result.proof()
    assert at is not None and at.met and at.values == (threshold,)
    assert threshold == 0 or (below is not None and below.values == (threshold - 1,) and not below.met)
    assert all(len(batch) <= parallel for batch in calls[1:])


def test_each_resource_is_lowered_on_its_own() -> None:
    result = search(problem(2), fake((30, 7), []), (100, 100), 2)
    assert result.answer == (30, 7)


@pytest.mark.parametrize("budget", [3, 4, 5])
def test_an_answer_found_within_a_budget_too_small_is_not_proven_and_says_within_what(budget: int) -> None:
    result = search(problem(), fake((37,), []), (100,), 1, budget)
    assert result.answer is not None and result.answer[0] >= 37 and not result.proven
    low = result.lowest[0]
    # Every level below ``low`` was replayed and missed; the true answer (37) lies within [low, answer].
    assert low <= 37 <= result.answer[0] and low > 0
    complete = search(problem(), fake((37,), []), (100,), 1)
    assert complete.proven and complete.answer == (37,) and complete.lowest == (37,)


def test_plan_says_when_the_budget_ran_out_and_prints_the_replays_assumptions(kqctl: Callable[..., Run]) -> None:
    args = (*PLAN_SAMPLE, "--target", "p95(time-to-admission) < 30m", "--budget", "4")
    result = kqctl(*args)
    assert result.code == 0, result.err
    assert "not proven smallest: --budget ran out after" in result.out and "known to lie within default/cpu" \
        in result.out
    assert "Assumed: controller throughput: API writes at 50/s" in result.out
    data = json.loads(kqctl(*args, "-o", "json").out)
    assert data["provenSmallest"] is False and set(data["knownWithin"]) == {"default/cpu", "default/memory"}
    assert any(note.startswith("controller throughput") for note in data["assumptions"])
    full = json.loads(kqctl(*args[:-2], "-o", "json").out)
    assert full["provenSmallest"] is True and full["knownWithin"] is None
    nort = kqctl("plan", "samples/cohort-borrowing", "--for", "clusterqueue/team-a", "--target",
                 "no workload inadmissible", "--jobs", "1")
    assert "declare no runtime (annotation kqctl.dev/runtime) and no --runtime was given" in nort.out


def test_a_target_not_met_at_the_cap_has_no_answer() -> None:
    result = search(problem(), fake((200,), []), (100,), 2)
    assert result.answer is None and result.proof() == (None, None)


def test_a_cohorts_quota_is_planned_over_its_cluster_queues() -> None:
    shot = snapshot([CQ("a", "4", cohort="co"), CQ("b", "12", cohort="co")], [WL("w", "a", "1")])
    plan = make_problem(shot, "no workload inadmissible", "cohort/co")
    assert plan.members == ("a", "b") and plan.current == (16_000,) and plan.steps == (1000,)
    changed = apply(shot, plan, (8_000,))
    assert [changed.cluster_queues[q].quotas[("default", "cpu")].nominal for q in ("a", "b")] == [2_000, 6_000]
    assert shot.cluster_queues["a"].quotas[("default", "cpu")].nominal == 4_000  # the input is not changed


def test_unknown_queues_and_resources_are_errors() -> None:
    shot = snapshot([CQ("a", "4")], [])
    with pytest.raises(PlanError, match="ClusterQueue 'nope' is not in the inputs"):
        make_problem(shot, "no workload inadmissible", "clusterqueue/nope")
    with pytest.raises(PlanError, match="choose from: default/cpu"):
        make_problem(shot, "no workload inadmissible", "clusterqueue/a", ["default/gpu"])
    with pytest.raises(PlanError, match="expected clusterqueue/NAME"):
        make_problem(shot, "no workload inadmissible", "queue/a")


def test_plan_through_the_command_in_parallel_processes(kqctl: Callable[..., Run]) -> None:
    args = ("plan", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now", "2026-09-14T09:00:00Z",
            "--for", "clusterqueue/team-a", "--target", "p95(time-to-admission) < 10m", "--jobs", "2")
    result = kqctl(*args)
    assert result.code == 0, result.err
    assert "Answer: nominalQuota default/cpu 30, default/memory 120Gi (today: default/cpu 16, default/memory 64Gi)." \
        in result.out
    assert "misses it at" in result.out
    data = json.loads(kqctl(*args, "-o", "json").out)
    assert data["answer"] == {"default/cpu": "30", "default/memory": "120Gi"}
    assert data["proof"]["atAnswer"]["met"] and not data["proof"]["belowAnswer"]["met"]
    unmet = kqctl(*args[:-4], "--target", "p50(time-to-admission) < 1ms", "--max", "cpu=20", "--budget", "4")
    assert unmet.code == 1 and "Not met at any quota up to" in unmet.out
    assert kqctl(*args[:6], "--for", "clusterqueue/nope", "--target", "no workload inadmissible").code == 2



def test_a_max_on_one_resource_leaves_the_others_at_their_default_cap(kqctl: Callable[..., Run]) -> None:
    # --max cpu=30 must not hold memory at today's 64Gi: cpu 26 with memory 104Gi meets the target.
    result = kqctl(*PLAN_SAMPLE, "--target", "p95(time-to-admission) < 30m", "--max", "cpu=30", "-o", "json")
    assert result.code == 0, result.out + result.err
    data = json.loads(result.out)
    assert data["answer"] == {"default/cpu": "26", "default/memory": "104Gi"}


@pytest.mark.parametrize("flag", ["--max", "--step"])
def test_max_and_step_for_a_resource_not_planned_are_usage_errors(kqctl: Callable[..., Run], flag: str) -> None:
    result = kqctl(*PLAN_SAMPLE, "--target", "no workload inadmissible", flag, "gpu=1")
    assert result.code == 2
    assert f"{flag} 'gpu=1': gpu is not a planned resource; planned: default/cpu, default/memory" in result.err
    only_cpu = kqctl(*PLAN_SAMPLE, "--target", "no workload inadmissible", "--resource", "default/cpu", flag,
                     "memory=1Gi")
    assert only_cpu.code == 2 and "memory is not a planned resource; planned: default/cpu" in only_cpu.err


@pytest.mark.parametrize("threshold", [1, 37, 99])
def test_a_smaller_budget_replays_the_first_candidates_of_a_larger_one(threshold: int) -> None:
    complete: list[list[Values]] = []
    search(problem(2), fake((threshold, 7), complete), (100, 100), budget=60)
    tried = [c for batch in complete for c in batch]
    for budget in range(2, len(tried)):
        cut: list[list[Values]] = []
        search(problem(2), fake((threshold, 7), cut), (100, 100), budget=budget)
        assert [c for batch in cut for c in batch] == tried[:budget]


def test_plan_json_is_the_same_whatever_jobs_and_a_budget_never_reached(kqctl: Callable[..., Run]) -> None:
    args = (*PLAN_SAMPLE[:-2], "--target", "p95(time-to-admission) < 30m", "-o", "json")
    outputs = {kqctl(*args, "--jobs", jobs, "--budget", budget).out for jobs in ("1", "2", "4")
               for budget in ("60", "200")}
    assert len(outputs) == 1 and json.loads(outputs.pop())["answer"]


@pytest.mark.parametrize(("text", "meant"), [
    ("p95(time-to-admision) < 1h", "did you mean 'p95(time-to-admission) < 1h'?"),
    ("P95(time_to_finish) <= 2h", "did you mean 'p95(time-to-finish) <= 2h'?"),
    ("q95(time-to-admission) < 30m", "did you mean 'p95(time-to-admission) < 30m'?"),
    ("p95(wait) < 1h", None),
    ("fast enough", None),
])
def test_a_misspelt_target_names_the_condition_it_is_close_to(text: str, meant: str | None) -> None:
    with pytest.raises(PlanError) as raised:
        parse_target(text)
    message = str(raised.value)
    assert "expected STAT(METRIC) < DURATION" in message
    assert (meant in message) if meant else ("did you mean" not in message), message
