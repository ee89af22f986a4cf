"""How every scheduler's plan shows ``--seeds`` draws: the share of draws meeting the target, its 95% interval,
and the seeds that prove it (text and data). The measures themselves stay each scheduler's words (Kueue's
workloads are "admitted", Volcano's and YuniKorn's "started"), passed in as ``measure_text``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kqctl.replay.planning import Evaluation, Measure, PlanResult, share_interval


def draws_data(evaluation: Evaluation, replay_data: Callable[[Evaluation], dict[str, Any]]) -> dict[str, Any]:
    """-o json/yaml: the draws of one candidate, each draw's replay given by ``replay_data``."""
    low, high = share_interval(len(evaluation.seeds_meeting), len(evaluation.draws))
    return {"seeds": [d.seed for d in evaluation.draws], "required": evaluation.required,
            "metIn": list(evaluation.seeds_meeting), "missedIn": list(evaluation.seeds_missing),
            "shareMeeting95": {"fromPercent": low, "toPercent": high},
            "replays": [replay_data(d.evaluation) for d in evaluation.draws]}


def draws_text(evaluation: Evaluation) -> str:
    """How many draws met the target, the 95% interval for that share, and the seeds that prove it."""
    met, missed = evaluation.seeds_meeting, evaluation.seeds_missing
    count = len(evaluation.draws)
    low, high = share_interval(len(met), count)
    text = (f"met in {len(met)} of {count} draws ({evaluation.required} needed; 95% interval for the share of draws "
            f"meeting it: {low}%-{high}%)")
    if met:
        text += f"; met with seeds {_seeds(met)}"
    if missed:
        text += f"; missed with seeds {_seeds(missed)}"
    return text


def measured_text(evaluation: Evaluation, measure_text: Callable[[Measure], str]) -> str:
    """A candidate's measures; over draws, each condition's value at the confidence rank (``over_draws``); for a
    candidate the scheduler refuses, why."""
    if evaluation.refused:
        return f"not replayed: {evaluation.refused}"
    if not evaluation.draws:
        return "; ".join(measure_text(m) for m in evaluation.measures)
    share = f"{evaluation.required} of {len(evaluation.draws)} draws"
    return "; ".join(f"{measure_text(m)} or less in {share}" if m.value is not None
                     else f"{measure_text(m)} in the best {share}" for m in evaluation.measures)


def verdict_text(evaluation: Evaluation) -> str:
    """The Target column: met or missed (refused: not replayed), and over draws how many met it."""
    if evaluation.refused:
        return "refused"
    verdict = "met" if evaluation.met else "missed"
    if evaluation.draws:
        verdict += f" ({len(evaluation.seeds_meeting)}/{len(evaluation.draws)} draws)"
    return verdict


def not_met_text(result: PlanResult[Any], what: str, cap: str) -> str:
    """The headline of a plan without an answer: raising the cap helps, unless the scheduler refused every
    candidate (then what it refuses them for must change first, which the refusals below name)."""
    if result.evaluations and all(e.refused for e in result.evaluations):
        return (f"Not met: every {what} tried up to {cap} is refused, none was replayed; the refusals below say "
                "what must change first.")
    return f"Not met at any {what} up to {cap} (raise it with --max)."


def replays_heading(result: PlanResult[Any], workers: int) -> str:
    draws = draw_count(result)
    count = f"{len(result.evaluations)} candidates x {draws} draws" if draws else f"{len(result.evaluations)}"
    return f"Replays ({count}, {workers} in parallel):"


def drawn_line(result: PlanResult[Any]) -> str | None:
    """Which seeds the draws came from, or None without --seeds (what was drawn, runtimes or arrivals, the
    assumptions say: they are the first seed's replay's)."""
    if not draw_count(result):
        return None
    seeds = [d.seed for d in result.evaluations[0].draws]
    return (f"Drawn: each candidate replayed under seeds {seeds[0]} to {seeds[-1]} (the assumptions above say what "
            "is drawn, for the first)")


def draw_count(result: PlanResult[Any]) -> int:
    return max((len(e.draws) for e in result.evaluations), default=0)


def _seeds(seeds: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in seeds)
