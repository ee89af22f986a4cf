"""plan never answers with a value the scheduler (or the API server in front of it) refuses: each candidate goes through
the same checks as the inputs (Kueue's VAL-CQ-23, Volcano's queue webhook VC-Q3/VC-Q4, YuniKorn's configuration
checks); a refused candidate is not replayed, misses, and the plan says why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import run_kqctl

from kqctl.replay.planning import (
    Condition,
    Draw,
    Evaluation,
    Measure,
    QueuePlanProblem,
    Values,
    over_draws,
    parse_target,
    refused_candidate,
    search,
)

NOW = ("--now", "2026-01-01T12:00:00Z")
TARGET = parse_target("no workload inadmissible")


def test_a_refused_candidate_misses_with_its_reason_over_draws_too() -> None:
    refused = refused_candidate((3,), TARGET, "too small (RULE-1)")
    assert not refused.met and refused.refused == "too small (RULE-1)" and refused.workloads == 0
    assert not over_draws([Draw(0, refused), Draw(1, refused)], 50).met
    assert over_draws([Draw(0, refused), Draw(1, refused)], 50).refused == "too small (RULE-1)"


@pytest.mark.parametrize("floor", [0, 5, 40, 100])
def test_the_search_answers_the_smallest_candidate_not_refused(floor: int) -> None:
    """Candidates below ``floor`` are refused, every other one meets the target: the answer is the floor."""
    problem = QueuePlanProblem("q", "capability", ("cpu",), (50,), (1,), TARGET)

    def evaluate_many(candidates: list[Values]) -> list[Evaluation]:
        return [refused_candidate(c, TARGET, "below the floor") if c[0] < floor
                else Evaluation(c, (Measure(Condition("all", "", True, 0), None, True, 1, 0),), 0, 1, 1)
                for c in candidates]

    result = search(problem, evaluate_many, (100,))
    assert result.answer == (floor,)
    _, below = result.proof()
    assert floor == 0 or (below is not None and below.refused == "below the floor")


# --- Kueue: a lendingLimit is a floor for the nominal quota (VAL-CQ-23) --------------------------------------------


def _kueue_with_lending_limit(tmp_path: Path) -> Path:
    copy = tmp_path / "replay"
    shutil.copytree("samples/replay", copy)
    cluster = copy / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8")
    line = '- {name: cpu, nominalQuota: "16", borrowingLimit: "8"}'
    assert line in text
    cluster.write_text(text.replace(line, '- {name: cpu, nominalQuota: "16", borrowingLimit: "8", lendingLimit: "14"}',
                                    1), encoding="utf-8")
    return copy


def test_kueue_plan_never_answers_below_a_lending_limit_and_says_why(tmp_path: Path) -> None:
    inputs = _kueue_with_lending_limit(tmp_path)
    args = ("plan", str(inputs), "--trace", str(inputs / "arrivals.csv"), "--now", "2026-09-14T09:00:00Z",
            "--for", "clusterqueue/team-a", "--resource", "default/cpu", "--target", "p95(time-to-admission) < 5h",
            "--runtime", "1h", "--jobs", "1")
    run = run_kqctl(*args, "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["answer"] == {"default/cpu": "14"}  # without the lendingLimit the answer is 12
    below = data["proof"]["belowAnswer"]
    assert below["nominalQuota"] == {"default/cpu": "13"} and not below["met"]
    assert below["refused"] == ("the API server refuses ClusterQueue team-a: lendingLimit 14 of default/cpu must be "
                                "less than or equal to the nominalQuota (13) (VAL-CQ-23)")
    assert all(r["refused"] is None for r in data["replays"] if r["met"])
    # the answer is one the same checks accept: simulate takes it as a --set
    applied = run_kqctl("simulate", str(inputs), "--set",
                        "clusterqueue/team-a.flavor.default.cpu.nominalQuota=14")
    assert applied.code == 0, applied.err
    assert run_kqctl("simulate", str(inputs), "--set",
                     "clusterqueue/team-a.flavor.default.cpu.nominalQuota=13").code == 3
    table = run_kqctl(*args)
    assert "misses it at default/cpu 13: not replayed: the API server refuses ClusterQueue team-a" in table.out
    assert "refused" in table.out


# --- Volcano: the queue webhook, and a capability of 0 (no limit) -------------------------------------------------


def test_volcano_plan_answers_a_capability_the_webhook_accepts() -> None:
    args = ("plan", "samples/volcano-hierarchy", "--for", "queue/ops", "--field", "capability", "--runtime", "30m",
            *NOW, "--target", "p95(time-to-admission) < 20m", "--jobs", "1")
    data = json.loads(run_kqctl(*args, "-o", "json").out)
    answer = data["answer"]
    assert answer is not None
    refused = [r for r in data["replays"] if r["refused"]]
    assert refused and all("(VC-Q4)" in r["refused"] and not r["met"] for r in refused)
    sets = [f"--set=queue/ops.spec.capability.{name}={value.replace(' ', '')}" for name, value in answer.items()]
    applied = run_kqctl("simulate", "samples/volcano-hierarchy", *sets)
    assert applied.code == 0, applied.err


def test_volcano_plan_never_answers_a_capability_of_0() -> None:
    run = run_kqctl("plan", "samples/volcano-two-teams", "--for", "queue/team-b", "--field", "capability",
                    "--runtime", "30m", *NOW, "--target", "no workload inadmissible", "--jobs", "1", "-o", "json")
    data = json.loads(run.out)
    assert data["answer"]["cpu"] != "0"
    zero = [r for r in data["replays"] if r["capability"]["cpu"] == "0"]
    assert zero and all("VC-LINT-ZERO-CAPABILITY" in r["refused"] for r in zero)


def test_a_plan_whose_every_candidate_is_refused_says_so_instead_of_raising_the_cap() -> None:
    # team-a sets no deserved: Volcano refuses any guarantee above it (VC-Q3)
    run = run_kqctl("plan", "samples/volcano-two-teams", "--for", "queue/team-a", "--field", "guarantee",
                    "--runtime", "30m", *NOW, "--target", "p95(time-to-admission) < 20m", "--jobs", "1")
    assert run.code == 1
    assert "Not met: every guarantee tried up to" in run.out and "is refused, none was replayed" in run.out
    assert "raise it with --max" not in run.out and "(VC-Q3)" in run.out


# --- YuniKorn: resources by YuniKorn's names ----------------------------------------------------------------------


def test_yunikorn_plan_reads_cpu_as_vcore_and_refuses_an_unknown_resource() -> None:
    base = ("plan", "samples/yunikorn-priority", "--for", "queue/root.tenant1", "--field", "max", *NOW,
            "--target", "p95(time-to-admission) < 10m", "--jobs", "1", "--runtime", "30m")
    as_cpu = json.loads(run_kqctl(*base, "--resource", "cpu", "-o", "json").out)
    as_vcore = json.loads(run_kqctl(*base, "--resource", "vcore", "-o", "json").out)
    assert as_cpu == as_vcore and set(as_cpu["current"]) == {"vcore"}
    typo = run_kqctl(*base, "--resource", "vcor")
    assert typo.code == 2 and "did you mean vcore?" in typo.err
