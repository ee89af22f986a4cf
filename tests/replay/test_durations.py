"""Durations are whole milliseconds; distributions draw the same values for the same seed."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from kqctl.replay.durations import (
    MAX_DURATION_MS,
    Distribution,
    DurationError,
    format_duration,
    parse_distribution,
    parse_duration,
)


@pytest.mark.parametrize("text,ms", [
    ("0", 0), ("0s", 0), ("200ms", 200), ("90s", 90_000), ("45m", 2_700_000), ("1h30m", 5_400_000),
    ("1.5h", 5_400_000), ("2d", 172_800_000), ("1500us", Fraction(3, 2)), (" 1m1s ", 61_000),
])
def test_parse_duration(text: str, ms: int | Fraction) -> None:
    if isinstance(ms, Fraction):
        with pytest.raises(DurationError, match="finer than a millisecond"):
            parse_duration(text)
    else:
        assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["", "45", "m", "1x", "1h 30m", "-5m", "1.2.3s"])
def test_bad_durations_say_what_is_expected(text: str) -> None:
    with pytest.raises(DurationError, match="not a duration such as 45m"):
        parse_duration(text)


@pytest.mark.parametrize("ms,text", [
    (0, "0ms"), (250, "250ms"), (12_500, "12.5s"), (59_999, "1m"), (60_000, "1m"), (270_000, "4m30s"),
    (3_720_000, "1h2m"), (90_000_000, "25h"), (200_000_000, "2d7h"),
])
def test_format_duration(ms: int, text: str) -> None:
    assert format_duration(ms) == text


def test_fixed_runtime_is_its_value() -> None:
    assert parse_distribution("45m") == Distribution("fixed", 2_700_000)
    assert parse_distribution("45m").draw(random.Random(1)) == 2_700_000


@pytest.mark.parametrize("text", ["uniform(10m,1h)", "exponential(30m)", "lognormal(20m,0.8)"])
def test_distributions_draw_the_same_values_for_the_same_seed(text: str) -> None:
    dist = parse_distribution(text)
    first = [dist.draw(random.Random(42)) for _ in range(3)]
    rng_a, rng_b = random.Random(5), random.Random(5)
    assert [dist.draw(rng_a) for _ in range(100)] == [dist.draw(rng_b) for _ in range(100)]
    assert all(isinstance(v, int) and v >= 1 for v in first)


def test_uniform_draws_stay_in_bounds() -> None:
    dist = parse_distribution("uniform(1s,2s)")
    rng = random.Random(0)
    assert all(1000 <= dist.draw(rng) <= 2000 for _ in range(1000))


@pytest.mark.parametrize("text,message", [
    ("uniform(1h,10m)", "MIN <= MAX"), ("uniform(1h)", "uniform\\(MIN,MAX\\)"), ("exponential(0s)", "longer than 0"),
    ("lognormal(20m,x)", "SIGMA must be a number"), ("lognormal(20m,-1)", "SIGMA must be from 0 to 100"),
    ("lognormal(20m,101)", "SIGMA must be from 0 to 100"),
    ("normal(3m)", r"nor a distribution: uniform\(MIN,MAX\), exponential\(MEAN\) or lognormal\(MEDIAN,SIGMA\)"),
    ("forever", "is not a duration .* nor a distribution"),
    ("uniform(1m,100000000h)", "longer than 100 years"), ("0", "longer"),
])
def test_bad_distributions(text: str, message: str) -> None:
    with pytest.raises(DurationError, match=message):
        parse_distribution(text)


@pytest.mark.parametrize("text", ["100000000h", "36501d", "876001h", "3153600000001ms"])
def test_durations_past_100_years_are_refused(text: str) -> None:
    with pytest.raises(DurationError, match=r"longer than 100 years \(876000h\)"):
        parse_duration(text)
    assert parse_duration("876000h") == MAX_DURATION_MS  # the bound itself is accepted


@pytest.mark.parametrize("text", ["lognormal(20m,50)", "lognormal(876000h,100)", "exponential(876000h)"])
def test_drawn_runtimes_never_pass_the_bound(text: str) -> None:
    rng = random.Random(0)
    draws = [parse_distribution(text).draw(rng) for _ in range(2000)]
    assert all(1 <= d <= MAX_DURATION_MS for d in draws) and MAX_DURATION_MS in draws
