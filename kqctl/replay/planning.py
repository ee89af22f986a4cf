"""Planning over replays, for any scheduler: targets, what a replay measures against them, and the search for
the smallest quota that meets them.

A target is a condition on the replay of the workloads in scope: ``p95(time-to-admission) < 30m``,
``mean(time-to-finish) <= 2h``, ``no workload inadmissible`` (every one of them gets in before the replay
ends), or several joined with ``and``. A workload that never gets in (or never finishes) counts as infinitely
long: a target is never met by leaving workloads out. Waiting counts from when the replay starts or the workload
arrives, whichever is later (the scheduler's replay sets each arrival so).

The search assumes that more quota never makes the target worse, which holds for the waits of a single queue
but is not guaranteed by any scheduler (more quota can change who preempts whom): the answer is therefore
always shown with the replay that meets the target at that quota and the replay one step below that misses it.
Evaluations are independent and can run in parallel (``evaluate_many``). Each scheduler says what a quota is
(Kueue's nominalQuota, Volcano's capability/deserved/weight, YuniKorn's guaranteed/max) and how a candidate is
applied; nothing here knows a scheduler.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Generic, Protocol, TypeVar

from kqctl.replay.durations import DurationError, format_duration, parse_duration
from kqctl.replay.run import WorkloadTimes
from kqctl.replay.statistics import percentile

Values = tuple[int, ...]  # one amount per planned resource, in the problem's order

STATISTICS = ("p50", "p90", "p95", "p99", "mean", "max")
METRICS = ("time-to-admission", "time-to-finish")
_CONDITION = re.compile(r"^\s*(p50|p90|p95|p99|mean|max)\s*\(\s*(time-to-admission|time-to-finish)\s*\)\s*(<=|<)\s*"
                        r"(\S+)\s*$")
_ALL_ADMITTED = re.compile(r"^\s*no\s+workload\s+(inadmissible|pending|waiting)\s*$")


class PlanError(ValueError):
    """A target that does not parse, or a queue or resource that is not there."""


@dataclass(frozen=True)
class Condition:
    statistic: str  # p50 ... max, or "all" for "no workload inadmissible"
    metric: str
    inclusive: bool
    limit: int  # ms

    def text(self) -> str:
        if self.statistic == "all":
            return "no workload inadmissible"
        return f"{self.statistic}({self.metric}) {'<=' if self.inclusive else '<'} {format_duration(self.limit)}"


def parse_target(text: str) -> tuple[Condition, ...]:
    conditions = []
    for part in re.split(r"\s+and\s+", text.strip()):
        if _ALL_ADMITTED.match(part):
            conditions.append(Condition("all", "time-to-admission", True, 0))
            continue
        match = _CONDITION.match(part)
        if match is None:
            raise PlanError(f"{part!r}: {_meant(part)}expected STAT(METRIC) < DURATION with STAT one of "
                            f"{', '.join(STATISTICS)} and METRIC one of {', '.join(METRICS)} (e.g. "
                            "'p95(time-to-admission) < 30m'), or 'no workload inadmissible'; join several with 'and'")
        statistic, metric, operator, limit = match.groups()
        try:
            conditions.append(Condition(statistic, metric, operator == "<=", parse_duration(limit)))
        except DurationError as exc:
            raise PlanError(f"{part!r}: {exc}") from None
    return tuple(conditions)


_LOOSE_CONDITION = re.compile(r"^\s*([\w.-]+)\s*\(\s*([\w.-]+)\s*\)\s*(.*)$")


def _meant(part: str) -> str:
    """For a condition in the right form with a misspelt statistic or metric (``p95(time-to-admision) < 1h``): the
    condition it is close to, as "did you mean ...? "; "" when it is not that close to one."""
    import difflib

    loose = _LOOSE_CONDITION.match(part)
    if loose is None:
        return ""
    statistic, metric, rest = loose.groups()
    close_statistic = difflib.get_close_matches(statistic.lower(), STATISTICS, n=1, cutoff=0.5)
    close_metric = difflib.get_close_matches(metric.lower(), METRICS, n=1)
    if not close_statistic or not close_metric:
        return ""
    return f"did you mean '{close_statistic[0]}({close_metric[0]}) {rest.strip()}'? "


@dataclass(frozen=True)
class Measure:
    condition: Condition
    value: int | Fraction | None  # ms (None: nothing measured, e.g. no workload admitted)
    met: bool
    workloads: int  # in scope
    not_admitted: int


def measure(condition: Condition, workloads: Sequence[WorkloadTimes]) -> Measure:
    # Still waiting at the end (never admitted, or evicted and not back): its wait never ended.
    missing = sum(1 for w in workloads if w.waiting or w.admitted is None)
    if condition.statistic == "all":
        return Measure(condition, None, missing == 0, len(workloads), missing)
    values = [(None if w.waiting else w.time_to_admission) if condition.metric == "time-to-admission"
              else w.time_to_finish for w in workloads]
    # A workload that never got in (or never finished) waited at least the whole replay: it counts as
    # infinitely long, so a target is never met by leaving workloads out.
    known = sorted(v for v in values if v is not None)
    if len(known) < len(values) or not known:
        return Measure(condition, None, False, len(workloads), missing)
    value: int | Fraction
    if condition.statistic == "mean":
        value = Fraction(sum(known), len(known))
    elif condition.statistic == "max":
        value = known[-1]
    else:
        value = percentile(known, int(condition.statistic[1:]))
    met = value <= condition.limit if condition.inclusive else value < condition.limit
    return Measure(condition, value, met, len(workloads), missing)


class Problem(Protocol):
    """What the search needs of a scheduler's planning problem."""

    @property
    def current(self) -> Values: ...

    @property
    def steps(self) -> Values: ...

    @property
    def target(self) -> tuple[Condition, ...]: ...


P = TypeVar("P", bound=Problem)


@dataclass(frozen=True)
class QueuePlanProblem:
    """One queue's field to plan (Volcano's and YuniKorn's plans): the resources planned, today's values, the
    search steps and the target. A scheduler's subclass names the queue's kind in its own word (``KIND``)."""

    KIND: ClassVar[str] = "queue"

    queue: str
    field: str
    resources: tuple[str, ...]
    current: Values
    steps: Values
    target: tuple[Condition, ...]

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def name(self) -> str:
        return self.queue


@dataclass(frozen=True)
class Evaluation:
    """One candidate's replay: the quotas, each condition's measure, and the replay's own figures."""

    values: Values
    measures: tuple[Measure, ...]
    end: int
    workloads: int
    admitted: int
    assumptions: tuple[str, ...] = ()  # the replay's (runtimes assumed, throughput model)
    # plan --seeds: one replay per random draw; ``measures`` are then each condition's value at the confidence
    # rank across the draws (over_draws), and the candidate meets the target when ``required`` draws meet it.
    draws: tuple[Draw, ...] = ()
    required: int = 0
    # Why the scheduler, or the API server in front of it, refuses the candidate (its own checks, as validate makes
    # them): nothing was replayed, and it misses. "" for a candidate that was replayed.
    refused: str = ""

    @property
    def met(self) -> bool:
        if self.refused:
            return False
        if self.draws:
            return len(self.seeds_meeting) >= self.required
        return all(m.met for m in self.measures)

    @property
    def seeds_meeting(self) -> tuple[int, ...]:
        """The draws whose replay meets the whole target (every condition in the same replay)."""
        return tuple(d.seed for d in self.draws if d.evaluation.met)

    @property
    def seeds_missing(self) -> tuple[int, ...]:
        return tuple(d.seed for d in self.draws if not d.evaluation.met)


def refused_candidate(values: Values, target: Sequence[Condition], reason: str) -> Evaluation:
    """A candidate the scheduler (or the API server) refuses, for ``reason``: not replayed, every condition missed."""
    missed = tuple(Measure(condition, None, False, 0, 0) for condition in target)
    return Evaluation(values, missed, 0, 0, 0, refused=reason)


@dataclass(frozen=True)
class Draw:
    """One random draw of a candidate: the seed of its runtimes (``--runtime`` distributions) and its replay."""

    seed: int
    evaluation: Evaluation


def required_draws(seeds: int, confidence: int) -> int:
    """How many of ``seeds`` draws must meet the target for it to be met in ``confidence`` percent of them."""
    return max(1, -(-seeds * confidence // 100))


def over_draws(draws: Sequence[Draw], confidence: int) -> Evaluation:
    """A candidate's evaluation over its random draws (all of the same quotas).

    It meets the target when at least ``confidence`` percent of the draws meet all of it. Each condition's value is
    the one met in that share of the draws: with 10 draws at 95%, the largest of the ten (a draw that never got a
    workload in counts as infinitely long); so "p95(time-to-admission) = 28m" reads "p95 wait at most 28m in 95% of
    the draws".
    """
    first = draws[0].evaluation
    required = required_draws(len(draws), confidence)
    measures = tuple(_at_rank([d.evaluation.measures[i] for d in draws], required)
                     for i in range(len(first.measures)))
    return Evaluation(first.values, measures, max(d.evaluation.end for d in draws), first.workloads,
                      min(d.evaluation.admitted for d in draws), first.assumptions, tuple(draws), required,
                      first.refused)


def _at_rank(measures: list[Measure], rank: int) -> Measure:
    """The ``rank``-th best of one condition's measures: smallest value first, one with no value (a workload never
    got in) after every value, fewer workloads left out first. It meets the condition exactly when ``rank`` of the
    measures do."""
    return sorted(measures, key=lambda m: (m.value is None, m.value if m.value is not None else 0,
                                           m.not_admitted))[rank - 1]


def share_interval(met: int, draws: int, z: float = 1.96) -> tuple[int, int]:
    """A 95% interval (Wilson's score interval) for the share of all possible draws that meet the target, given
    ``met`` of ``draws`` did; in whole percents, rounded outwards. Only shown: nothing is decided by it."""
    if draws == 0:
        return 0, 100
    share = met / draws
    denominator = 1 + z * z / draws
    centre = (share + z * z / (2 * draws)) / denominator
    half = z * math.sqrt(share * (1 - share) / draws + z * z / (4 * draws * draws)) / denominator
    return max(0, math.floor((centre - half) * 100)), min(100, math.ceil((centre + half) * 100))


# --- the search -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanResult(Generic[P]):
    problem: P
    answer: Values | None  # None: not met at any quota tried, up to the cap
    evaluations: tuple[Evaluation, ...]  # in the order they were run
    cap: Values
    # False when --budget ran out before the search closed in: the answer meets the target but is not proven the
    # smallest; per resource, the smallest quota not yet known to miss (along the search) up to the answer.
    proven: bool = True
    lowest: Values = ()

    @property
    def assumptions(self) -> tuple[str, ...]:
        """What the replays assumed (the same for every candidate: runtimes and throughput do not depend on quota)."""
        at = next((e for e in self.evaluations if e.values == self.answer), None)
        chosen = at or (self.evaluations[-1] if self.evaluations else None)
        return chosen.assumptions if chosen is not None else ()

    def proof(self) -> tuple[Evaluation | None, Evaluation | None]:
        """The replay at the answer (meets the target) and the nearest one below it that misses."""
        if self.answer is None:
            return None, None
        at = next((e for e in self.evaluations if e.values == self.answer), None)
        below = [e for e in self.evaluations if not e.met and all(v <= a for v, a in zip(e.values, self.answer,
                                                                                        strict=True))]
        return at, max(below, key=lambda e: sum(e.values), default=None)


Evaluator = Callable[[list[Values]], list[Evaluation]]

# Candidates evaluated per round of the search: fixed, so that the candidates tried, the answer and everything
# -o json shows are the same whatever the number of processes replaying them (--jobs): more quota can make a
# target worse (it is not guaranteed monotone), so a search that looked at other levels could answer otherwise.
# Two per round keeps both cores of a 2-core machine busy.
SEARCH_WIDTH = 2


def search(problem: P, evaluate_many: Evaluator, cap: Values, parallel: int = SEARCH_WIDTH,
           budget: int = 60) -> PlanResult[P]:
    """The smallest quotas meeting the target, in two phases.

    1. All planned resources together, as multiples of their steps scaled by one factor: a (width+1)-ary
       search over the number of steps of the first resource (the others follow in proportion to the cap).
    2. With several resources, each one alone, lowered as far as it goes with the others fixed.

    ``parallel`` is the number of candidates per round (SEARCH_WIDTH by default, whatever the processes); the
    candidates are tried in one fixed order, and ``budget`` only cuts that order short: the replays of a smaller
    budget are the first ones of a larger budget's.
    """
    done: dict[Values, Evaluation] = {}

    def run(candidates: list[Values]) -> None:
        todo = [c for c in dict.fromkeys(candidates) if c not in done][:max(0, budget - len(done))]
        for result in evaluate_many(todo) if todo else []:
            done[result.values] = result

    levels = max(1, max(-(-c // s) for c, s in zip(cap, problem.steps, strict=True)))

    def joint(level: int) -> Values:
        return tuple(round_up(c * level // levels, s) for c, s in zip(cap, problem.steps, strict=True))

    today = max(problem.current[i] * levels // cap[i] if cap[i] else 0 for i in range(len(cap)))
    bracket = _bisect(joint, 0, levels, run, done, parallel, budget, start=today)
    if bracket is None:
        return PlanResult(problem, None, tuple(done.values()), cap)
    failed, best = bracket
    answer = joint(best)
    proven = best - failed <= 1
    lowest = list(joint(failed + 1))
    for index in range(len(problem.steps) if len(problem.steps) > 1 else 0):
        def alone(units: int, i: int = index, base: Values = answer) -> Values:
            return tuple(units * problem.steps[i] if j == i else v for j, v in enumerate(base))

        top = answer[index] // problem.steps[index]
        found = _bisect(alone, 0, top, run, done, parallel, budget)
        if found is not None:
            missed, met = found
            answer = alone(met)
            lowest[index] = (missed + 1) * problem.steps[index]
            proven = proven and met - missed <= 1
    lowest = [min(low, a) for low, a in zip(lowest, answer, strict=True)]
    return PlanResult(problem, answer, tuple(done.values()), cap, proven, tuple(lowest))


def _bisect(point: Callable[[int], Values], low: int, high: int, run: Callable[[list[Values]], None],
            done: dict[Values, Evaluation], parallel: int, budget: int,
            start: int | None = None) -> tuple[int, int] | None:
    """(the highest level known to miss or ``low - 1``, the smallest level found in [low, high] that meets the
    target); None if ``high`` does not. The two are adjacent unless ``budget`` replays ran out first.

    From ``start`` (today's quota) the level doubles until the target is met (the answer is usually near
    today's quota, far below the cap), then each round evaluates ``parallel`` levels at once, splitting the
    open interval evenly.
    """
    bracket = _gallop(point, low, high, run, done, parallel, start if start is not None else high)
    if bracket is None:
        return None
    failed, met = bracket  # invariant: level ``met`` meets the target; every level <= ``failed`` misses
    while met - failed > 1 and len(done) < budget:
        gap = met - failed
        picks = sorted({failed + max(1, gap * k // (parallel + 1)) for k in range(1, parallel + 1)} - {met})
        run([point(level) for level in picks])
        picks = [level for level in picks if point(level) in done]  # the budget may have cut the round short
        for level in picks:
            if done[point(level)].met:
                met = min(met, level)
        failed = max([failed, *(lv for lv in picks if lv < met and not done[point(lv)].met)])
    return failed, met


def _gallop(point: Callable[[int], Values], low: int, high: int, run: Callable[[list[Values]], None],
            done: dict[Values, Evaluation], parallel: int, start: int) -> tuple[int, int] | None:
    """(a level that misses or low - 1, the first level found that meets) climbing from ``start`` by doubling."""
    levels = []
    level = min(max(start, low, 1), high)
    while level < high:
        levels.append(level)
        level *= 2
    levels.append(high)
    failed = low - 1
    for first in range(0, len(levels), parallel):
        batch = levels[first:first + parallel]
        run([point(lv) for lv in batch])
        for lv in batch:
            if point(lv) not in done:
                return None  # the budget ran out before any level met the target
            if done[point(lv)].met:
                return failed, lv
            failed = lv
    return None


def round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def share_out(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (equally if all are 0), exactly: largest remainder first."""
    if not weights:
        return []
    if sum(weights) == 0:
        weights = [1] * len(weights)
    whole = sum(weights)
    base = [total * w // whole for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[: total - sum(base)]:
        base[i] += 1
    return base
