"""``--arrivals``: the arrivals' times drawn with the seed (kqctl/replay/arrival_draws.py), for every scheduler."""

from __future__ import annotations

import pytest

from kqctl.replay.arrival_draws import JITTER, POISSON, ArrivalDraw, parse_arrivals, shifts
from kqctl.replay.durations import MAX_DURATION_MS, DurationError

TIMES = [5 * 60_000, 10 * 60_000, 10 * 60_000, 20 * 60_000, 35 * 60_000, 50 * 60_000, 2 * 3_600_000]


@pytest.mark.parametrize(("text", "expected"), [
    ("jitter(10m)", ArrivalDraw(JITTER, 600_000)),
    (" jitter( 1h30m ) ", ArrivalDraw(JITTER, 5_400_000)),
    ("poisson", ArrivalDraw(POISSON)),
    ("Poisson", ArrivalDraw(POISSON)),
])
def test_arrival_draws_parse(text: str, expected: ArrivalDraw) -> None:
    assert parse_arrivals(text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("jitter", "expected jitter(DURATION)"),
    ("jitter()", "is not a duration"),
    ("jitter(0s)", "must be longer than 0"),
    ("jitter(10)", "is not a duration"),
    ("uniform(1m,2m)", "expected jitter(DURATION)"),
    ("poison", "or poisson"),
])
def test_arrival_draws_that_do_not_parse_say_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(DurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_arrivals(text)


@pytest.mark.parametrize("seed", [0, 1, 7, 123])
def test_jitter_moves_each_arrival_by_at_most_its_spread_and_never_to_the_start(seed: int) -> None:
    draw = ArrivalDraw(JITTER, 15 * 60_000)
    moved = draw.times(TIMES, seed)
    assert len(moved) == len(TIMES)
    for before, after in zip(TIMES, moved, strict=True):
        assert after >= 1 and (after == 1 or abs(after - before) <= draw.spread)
    assert moved != TIMES


def test_jitter_is_cut_at_one_millisecond_after_the_start_and_at_the_longest_duration() -> None:
    assert ArrivalDraw(JITTER, 3_600_000).times([1] * 50, 3).count(1) > 0
    assert max(ArrivalDraw(JITTER, 3_600_000).times([MAX_DURATION_MS] * 50, 3)) == MAX_DURATION_MS


@pytest.mark.parametrize("draw", [ArrivalDraw(JITTER, 600_000), ArrivalDraw(POISSON)])
def test_the_same_seed_draws_the_same_times_and_another_seed_other_ones(draw: ArrivalDraw) -> None:
    assert draw.times(TIMES, 4) == draw.times(TIMES, 4)
    assert draw.times(TIMES, 4) != draw.times(TIMES, 5)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_poisson_keeps_the_count_the_order_and_the_span(seed: int) -> None:
    moved = ArrivalDraw(POISSON).times(TIMES, seed)
    assert len(moved) == len(TIMES)
    assert moved == sorted(moved)  # the n-th to arrive still arrives n-th (TIMES is in arrival order)
    assert min(TIMES) <= min(moved) and max(moved) <= max(TIMES)
    assert moved != TIMES


def test_poisson_leaves_a_single_arrival_where_it_is() -> None:
    assert ArrivalDraw(POISSON).times([90_000], 3) == [90_000]


def test_the_draws_follow_the_arrival_order_whatever_order_the_units_come_in() -> None:
    units = [(f"w{i}", at) for i, at in enumerate(TIMES)]
    for draw in (ArrivalDraw(JITTER, 600_000), ArrivalDraw(POISSON)):
        assert shifts(units, draw, 9) == shifts(list(reversed(units)), draw, 9)
        moved = shifts(units, draw, 9)
        assert set(moved) == {key for key, _ in units}
        # units at the same time are told apart by their key, not by where they came in
        assert shifts([("b", 600_000), ("a", 600_000)], draw, 9) == shifts([("a", 600_000), ("b", 600_000)], draw, 9)

