"""Percentiles by nearest rank, exact means, exact areas under usage over time."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kqctl.replay.statistics import Sample, StepSeries, integral, maximum, percentile, time_weighted_mean, value_at


@pytest.mark.parametrize("p,expected", [(1, 1), (50, 50), (95, 95), (99, 99), (100, 100)])
def test_nearest_rank_percentile_of_one_to_a_hundred(p: int, expected: int) -> None:
    assert percentile(list(range(1, 101)), p) == expected


def test_percentile_is_always_a_value_of_the_sample() -> None:
    values = [10, 20, 30, 40]
    assert [percentile(values, p) for p in (25, 26, 50, 51, 95)] == [10, 20, 20, 30, 40]


def test_percentile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1], 0)


def test_sample_mean_is_exact() -> None:
    sample = Sample.of([1, 2, 2])
    assert sample is not None and sample.mean == Fraction(5, 3) and sample.maximum == 2
    assert Sample.of([]) is None


def test_step_series_keeps_one_point_per_change() -> None:
    series = StepSeries(0)
    series.add(10, 5)
    series.add(10, 3)  # two changes in one millisecond: the last holds
    series.add(20, -8)
    series.set(30, 0)  # no change
    assert series.points() == ((0, 0), (10, 8), (20, 0))
    with pytest.raises(ValueError):
        series.set(5, 1)


def test_integral_and_mean_are_exact() -> None:
    points = ((0, 0), (10, 3), (40, 1))
    assert integral(points, 0, 50) == 3 * 30 + 1 * 10
    assert integral(points, 20, 45) == 3 * 20 + 1 * 5
    assert time_weighted_mean(points, 0, 30) == Fraction(60, 30)
    assert value_at(points, 39) == 3 and value_at(points, 40) == 1
    assert maximum(points) == 3
