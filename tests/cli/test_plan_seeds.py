"""``kqctl plan --seeds N``: every candidate replayed under N random draws of the runtimes, the target met in
--confidence percent of them, the answer naming the seeds that prove it.

The seeds the answer names are checked one by one with the engine's own replay of that candidate and draw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest
from support import REPO, Run

from kqctl.k8s.quantity import parse_quantity
from kqctl.kueue.replay.plan import evaluate, make_problem, with_seed
from kqctl.replay.planning import Condition, Draw, Evaluation, Measure, over_draws, required_draws, share_interval

SAMPLE = str(REPO / "samples" / "cohort-borrowing")
NOW = "2026-01-01T00:00:00Z"
RUNTIME = "lognormal(20m,0.8)"
TARGET = "p95(time-to-admission) < 30m"
PLAN = ("plan", SAMPLE, "--for", "clusterqueue/team-a", "--target", TARGET, "--runtime", RUNTIME, "--now", NOW,
        "--jobs", "1")


def _plan(kqctl: Callable[..., Run], *extra: str) -> dict:
    run = kqctl(*PLAN, *extra, "-o", "json")
    assert run.code == 0, run.err
    return json.loads(run.out)


def _replay(values: dict[str, str], seed: int, runtime: str = RUNTIME, arrivals: str | None = None) -> Evaluation:
    """The engine's replay of one candidate (as plan's JSON names its quotas) under one draw."""
    from kqctl.cli.replay import ReplaySettings, replay_input
    from kqctl.k8s.quantity import parse_quantity, quota_value

    snapshot = replay_input([SAMPLE], None, False, None, None, NOW, 0, False, None, False, False, None, None, None)
    problem = make_problem(snapshot, TARGET, "clusterqueue/team-a")
    amounts = tuple(quota_value(r, parse_quantity(values[f"{f}/{r}"])) for f, r in problem.resources)
    options = ReplaySettings(runtime, "calibrated", "0s", 0, None, None, None, arrivals).options()
    return evaluate(snapshot, problem, amounts, with_seed(options, seed))


def test_the_answer_names_the_seeds_that_meet_it_and_each_one_does(kqctl: Callable[..., Run]) -> None:
    data = _plan(kqctl, "--seeds", "6", "--confidence", "80")
    at = data["proof"]["atAnswer"]
    draws = at["draws"]
    assert draws["seeds"] == [0, 1, 2, 3, 4, 5] and draws["required"] == 5  # 80% of 6, rounded up
    assert len(draws["metIn"]) >= 5 and at["met"]
    for seed in draws["metIn"]:
        assert _replay(data["answer"], seed).met, f"seed {seed} is named as meeting the target at the answer"
    below = data["proof"]["belowAnswer"]
    assert below is not None and not below["met"] and len(below["draws"]["metIn"]) < 5
    for seed in below["draws"]["missedIn"]:
        assert not _replay(below["nominalQuota"], seed).met, f"seed {seed} is named as missing the target below"


def test_draws_change_the_replays_and_a_stricter_confidence_never_asks_for_less(kqctl: Callable[..., Run]) -> None:
    lenient = _plan(kqctl, "--seeds", "6", "--confidence", "50")
    strict = _plan(kqctl, "--seeds", "6", "--confidence", "100")
    assert any(len({json.dumps(d["measures"]) for d in r["draws"]["replays"]}) > 1 for r in lenient["replays"]), \
        "some candidate's draws differ (else the test proves nothing)"
    assert any(parse_quantity(strict["answer"][k]) > parse_quantity(lenient["answer"][k]) for k in strict["answer"])
    assert all(parse_quantity(strict["answer"][k]) >= parse_quantity(lenient["answer"][k]) for k in strict["answer"])


def test_the_table_states_the_share_of_draws_and_the_seeds(kqctl: Callable[..., Run]) -> None:
    run = kqctl(*PLAN, "--seeds", "4")
    assert run.code == 0, run.err
    assert "met in 4 of 4 draws (4 needed; 95% interval for the share of draws meeting it: 51%-100%)" in run.out
    assert "Replays (" in run.out and "x 4 draws" in run.out
    assert "each candidate replayed under seeds 0 to 3 (the assumptions above say what is drawn" in run.out


def test_arrivals_drawn_alone_make_the_draws_and_each_named_seed_is_its_replay(kqctl: Callable[..., Run]) -> None:
    """--arrivals with a fixed runtime: the draws move the arrivals only; the seeds named are the engine's replays
    of that candidate under that draw (as ``kqctl replay --seed S --arrivals ...`` makes them)."""
    run = kqctl("plan", SAMPLE, "--for", "clusterqueue/team-a", "--target", TARGET, "--runtime", "45m", "--arrivals",
                "jitter(30m)", "--now", NOW, "--jobs", "1", "--seeds", "4", "--confidence", "75", "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert any(len({json.dumps(d["measures"]) for d in r["draws"]["replays"]}) > 1 for r in data["replays"]), \
        "some candidate's draws differ (else the test proves nothing)"
    at = data["proof"]["atAnswer"]
    for seed in at["draws"]["metIn"]:
        assert _replay(data["answer"], seed, "45m", "jitter(30m)").met, f"seed {seed} is named as meeting the target"
    for seed in at["draws"]["missedIn"]:
        assert not _replay(data["answer"], seed, "45m", "jitter(30m)").met, f"seed {seed} is named as missing it"


def test_seeds_start_at_the_seed_option(kqctl: Callable[..., Run]) -> None:
    data = _plan(kqctl, "--seeds", "2", "--seed", "7")
    assert data["proof"]["atAnswer"]["draws"]["seeds"] == [7, 8]


@pytest.mark.parametrize(("extra", "message"), [
    (("--seeds", "3", "--runtime", "30m"), "--seeds N draws the runtimes"),
    (("--seeds", "1"), "pass 2 or more draws"),
    (("--confidence", "90"), "--confidence applies with --seeds N"),
    (("--seeds", "3", "--confidence", "0"), "--confidence"),
])
def test_draws_without_anything_random_are_usage_errors(kqctl: Callable[..., Run], extra: tuple[str, ...],
                                                         message: str) -> None:
    run = kqctl(*PLAN, *extra)
    assert run.code == 2 and message in run.err, run.err


# --- Volcano and YuniKorn: the same draws, each scheduler's own replay ----------------------------------

SCHEDULER_PLANS = {
    "volcano": ("samples/volcano-two-teams", "queue/team-a", "weight", "p95(time-to-admission) < 20m"),
    "yunikorn": ("samples/yunikorn-priority", "queue/root.tenant1", "guaranteed", "p95(time-to-admission) < 10m"),
}
SCHEDULER_RUNTIMES = {"volcano": RUNTIME, "yunikorn": "lognormal(30m,0.8)"}  # long enough to need a quota


def _scheduler_plan(kqctl: Callable[..., Run], name: str, *extra: str) -> Run:
    sample, scope, field, target = SCHEDULER_PLANS[name]
    return kqctl("plan", str(REPO / sample), "--for", scope, "--field", field, "--target", target, "--runtime",
                 SCHEDULER_RUNTIMES[name], "--now", "2026-01-01T12:00:00Z", *extra)


def _scheduler_replay(name: str, values: tuple[int, ...], seed: int, runtime: str | None = None,
                      arrivals: str | None = None, traces: tuple[str, ...] = ()) -> Evaluation:
    """The scheduler's own replay of one candidate under one draw, built as the command builds it."""
    from kqctl.cli import timeline
    from kqctl.cli.replay import scheduler_inputs

    sample, scope, field, target = SCHEDULER_PLANS[name]
    loaded, product = scheduler_inputs([str(REPO / sample)], None, False, False, None, False, False, None, None,
                                       None, None, False)
    time = timeline.settings(runtime or SCHEDULER_RUNTIMES[name], "0s", None, 0, "2026-01-01T12:00:00Z", None,
                             arrivals)
    if product == "Volcano":
        from kqctl.volcano.replay import plan as plans

        snapshot = timeline.volcano_snapshot(loaded, None, list(traces), time.start)
        options = timeline.volcano_options(snapshot, time)
    else:
        from kqctl.yunikorn.replay import plan as plans  # type: ignore[no-redef]

        snapshot = timeline.yunikorn_snapshot(loaded, list(traces), time.start)
        options = timeline.yunikorn_options(time)
    problem = plans.make_problem(snapshot, target, scope, field)
    return plans.evaluate(snapshot, problem, values, plans.with_seed(options, seed))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(SCHEDULER_PLANS))
def test_volcano_and_yunikorn_plans_name_the_seeds_that_prove_the_answer(kqctl: Callable[..., Run],
                                                                         name: str) -> None:
    run = _scheduler_plan(kqctl, name, "--seeds", "4", "--confidence", "75", "--jobs", "1", "-o", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    at = data["proof"]["atAnswer"]
    assert at["draws"]["seeds"] == [0, 1, 2, 3] and at["draws"]["required"] == 3 and len(at["draws"]["metIn"]) >= 3
    values = {json.dumps(r["draws"]["replays"]) for r in data["replays"]}
    assert any(len({json.dumps(d["measures"]) for d in r["draws"]["replays"]}) > 1 for r in data["replays"]), \
        "some candidate's draws differ (else the test proves nothing)"
    assert len(values) > 1
    answer = _values(name, at)
    for seed in at["draws"]["metIn"]:
        assert _scheduler_replay(name, answer, seed).met, f"seed {seed} is named as meeting the target"
    below = data["proof"]["belowAnswer"]
    assert below is not None and len(below["draws"]["metIn"]) < 3
    for seed in below["draws"]["missedIn"]:
        assert not _scheduler_replay(name, _values(name, below), seed).met, f"seed {seed} is named as missing"


def _values(name: str, evaluation: dict) -> tuple[int, ...]:
    """A replay's planned values as the scheduler counts them (JSON gives its exact quantities)."""
    if name == "volcano":
        return (int(evaluation["weight"]["weight"]),)
    from kqctl.yunikorn.api.resources import parse_config_value

    amounts = evaluation["guaranteed"]
    return tuple(parse_config_value(r, amount) for r, amount in amounts.items())  # in the plan's order


@pytest.mark.parametrize("name", sorted(SCHEDULER_PLANS))
def test_volcano_and_yunikorn_draws_answer_the_same_in_one_process_or_several(kqctl: Callable[..., Run],
                                                                              name: str) -> None:
    one = _scheduler_plan(kqctl, name, "--seeds", "3", "--budget", "8", "--jobs", "1", "-o", "json")
    two = _scheduler_plan(kqctl, name, "--seeds", "3", "--budget", "8", "--jobs", "2", "-o", "json")
    assert one.code == two.code == 0, one.err + two.err
    assert json.loads(one.out) == json.loads(two.out)


@pytest.mark.parametrize("name", sorted(SCHEDULER_PLANS))
def test_volcano_and_yunikorn_arrivals_drawn_alone_make_the_draws(kqctl: Callable[..., Run], name: str) -> None:
    """A fixed runtime and --arrivals over the sample's trace: the draws move the arrivals, and each named seed is
    the scheduler's replay of that candidate under that draw."""
    sample, scope, field, target = SCHEDULER_PLANS[name]
    trace = str(REPO / sample / "arrivals.csv")
    run = kqctl("plan", str(REPO / sample), "--for", scope, "--field", field, "--target", target, "--runtime", "30m",
                "--trace", trace, "--arrivals", "jitter(15m)", "--now", "2026-01-01T12:00:00Z", "--seeds", "4",
                "--confidence", "75", "--jobs", "1", "-o", "json")
    assert run.code in (0, 1), run.err
    data = json.loads(run.out)
    assert any(len({json.dumps(d["measures"]) for d in r["draws"]["replays"]}) > 1 for r in data["replays"]), \
        "some candidate's draws differ (else the test proves nothing)"
    checked = 0
    for replay in data["replays"]:
        values = _values(name, replay)
        for seed, draw in zip(replay["draws"]["seeds"], replay["draws"]["replays"], strict=True):
            again = _scheduler_replay(name, values, seed, "30m", "jitter(15m)", (trace,))
            assert again.met == draw["met"], f"seed {seed} at {values}"
            checked += 1
    assert checked >= 8


def test_volcano_and_yunikorn_tables_state_the_share_of_draws(kqctl: Callable[..., Run]) -> None:
    run = _scheduler_plan(kqctl, "volcano", "--seeds", "4", "--jobs", "1")
    assert run.code == 0, run.err
    assert "met in 4 of 4 draws (4 needed; 95% interval for the share of draws meeting it: 51%-100%)" in run.out
    assert "candidates x 4 draws" in run.out and "missed (" in run.out
    assert "each candidate replayed under seeds 0 to 3 (the assumptions above say what is drawn" in run.out


@pytest.mark.parametrize("name", sorted(SCHEDULER_PLANS))
def test_volcano_and_yunikorn_draws_need_a_random_runtime(kqctl: Callable[..., Run], name: str) -> None:
    sample, scope, field, target = SCHEDULER_PLANS[name]
    run = kqctl("plan", str(REPO / sample), "--for", scope, "--field", field, "--target", target, "--runtime", "30m",
                "--seeds", "3")
    assert run.code == 2 and "--seeds N draws the runtimes" in run.err, run.err


# --- the arithmetic of draws (kqctl/replay/planning.py) ----------------------------------------------------

@pytest.mark.parametrize(("seeds", "confidence", "required"), [
    (10, 95, 10), (20, 95, 19), (10, 50, 5), (6, 80, 5), (3, 1, 1), (100, 95, 95),
])
def test_required_draws_round_the_confidence_up(seeds: int, confidence: int, required: int) -> None:
    assert required_draws(seeds, confidence) == required


CONDITION = Condition("p95", "time-to-admission", inclusive=False, limit=1_800_000)


def _draw(seed: int, value: int | None) -> Draw:
    met = value is not None and value < CONDITION.limit
    measure = Measure(CONDITION, value, met, 10, 0 if value is not None else 1)
    return Draw(seed, Evaluation((4,), (measure,), 3_600_000, 10, 10 if value is not None else 9))


def test_a_candidate_meets_the_target_when_enough_draws_do_and_reads_the_value_at_that_rank() -> None:
    draws = [_draw(0, 600_000), _draw(1, 2_400_000), _draw(2, 1_200_000), _draw(3, None)]
    two = over_draws(draws, 50)  # 2 of 4
    assert two.met and two.required == 2 and two.seeds_meeting == (0, 2) and two.seeds_missing == (1, 3)
    assert two.measures[0].value == 1_200_000 and two.measures[0].met
    three = over_draws(draws, 75)  # 3 of 4: the third best is a miss
    assert not three.met and three.measures[0].value == 2_400_000 and not three.measures[0].met
    every = over_draws(draws, 100)  # a draw that never got a workload in is the worst
    assert not every.met and every.measures[0].value is None and every.admitted == 9


@pytest.mark.parametrize(("met", "draws", "interval"), [(10, 10, (72, 100)), (0, 10, (0, 28)), (5, 10, (23, 77))])
def test_the_share_interval_is_wilsons(met: int, draws: int, interval: tuple[int, int]) -> None:
    assert share_interval(met, draws) == interval


def test_a_condition_value_may_be_a_mean() -> None:
    condition = Condition("mean", "time-to-admission", inclusive=True, limit=60_000)
    measures = [Measure(condition, Fraction(1, 3), True, 3, 0), Measure(condition, Fraction(90_000), False, 3, 0)]
    draws = [Draw(s, Evaluation((1,), (m,), 0, 3, 3)) for s, m in enumerate(measures)]
    assert over_draws(draws, 50).measures[0].value == Fraction(1, 3)
