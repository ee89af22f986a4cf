"""Exact statistics over virtual time: percentiles, means and time-weighted usage.

Percentiles use the nearest-rank definition (the smallest value with at least p% of the sample at
or below it), so every reported figure is a value some workload really had. Means are Fractions;
they are rounded only when shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

PERCENTILES = (50, 95, 99)

Points = tuple[tuple[int, int], ...]  # a step function: (ms, value) pairs, ascending in time


def percentile(ordered: Sequence[int], p: int) -> int:
    """Nearest rank over an ascending sample: rank = ceil(p/100 * n) (p in 1..100)."""
    if not ordered:
        raise ValueError("percentile of an empty sample")
    if not 0 < p <= 100:
        raise ValueError(f"percentile {p} is not in 1..100")
    rank = -(-p * len(ordered) // 100)
    return ordered[rank - 1]


@dataclass(frozen=True)
class Sample:
    """A sample of durations (ms): how many, mean, P50/P95/P99 and maximum; ``never`` more that never ended.

    A wait that never ended (a workload never admitted) is longer than any other: it counts in the ranks as the
    longest, so a percentile that falls on one is None ("never"), as is the maximum. The mean is over the ones that
    ended (0 when none did); ``never`` says how many did not.
    """

    count: int
    mean: Fraction
    p50: int | None
    p95: int | None
    p99: int | None
    maximum: int | None
    never: int = 0

    @classmethod
    def of(cls, values: Iterable[int], never: int = 0) -> Sample | None:
        ordered = sorted(values)
        if not ordered and not never:
            return None
        ranked = [*ordered, *([None] * never)]
        mean = Fraction(sum(ordered), len(ordered)) if ordered else Fraction(0)
        return cls(len(ordered), mean, _ranked(ranked, 50), _ranked(ranked, 95), _ranked(ranked, 99), ranked[-1],
                   never)

    def at(self, p: int) -> int | None:
        """The P50, P95 or P99 of the sample (the percentiles every report shows); None: never."""
        return {50: self.p50, 95: self.p95, 99: self.p99, 100: self.maximum}[p]


def _ranked(ordered: Sequence[int | None], p: int) -> int | None:
    """Nearest rank over values ascending, the never-ending ones (None) last."""
    rank = -(-p * len(ordered) // 100)
    return ordered[rank - 1]


class StepSeries:
    """A value that changes at points in time and holds in between (quota usage over time)."""

    def __init__(self, start: int, value: int = 0) -> None:
        self.times: list[int] = [start]
        self.values: list[int] = [value]

    def set(self, at: int, value: int) -> None:
        """From ``at`` on the value is ``value`` (several changes at one millisecond keep the last)."""
        if at < self.times[-1]:
            raise ValueError(f"usage change at {at} ms, before the last one at {self.times[-1]} ms")
        if value == self.values[-1]:
            return
        if at == self.times[-1]:
            self.values[-1] = value
            if len(self.values) > 1 and self.values[-2] == value:
                self.times.pop()
                self.values.pop()
            return
        self.times.append(at)
        self.values.append(value)

    def add(self, at: int, delta: int) -> None:
        self.set(at, self.values[-1] + delta)

    @property
    def current(self) -> int:
        return self.values[-1]

    def points(self) -> Points:
        return tuple(zip(self.times, self.values, strict=True))


def integral(points: Points, start: int, end: int) -> int:
    """The exact area under a step function over [start, end) (value x ms)."""
    total = 0
    for i, (at, value) in enumerate(points):
        following = points[i + 1][0] if i + 1 < len(points) else end
        low, high = max(at, start), min(following, end)
        if high > low:
            total += value * (high - low)
    return total


def time_weighted_mean(points: Points, start: int, end: int) -> Fraction:
    """The mean of a step function over [start, end), weighted by time."""
    if end <= start:
        return Fraction(value_at(points, start))
    return Fraction(integral(points, start, end), end - start)


def value_at(points: Points, at: int) -> int:
    value = points[0][1] if points else 0
    for time, v in points:
        if time > at:
            break
        value = v
    return value


def maximum(points: Points) -> int:
    return max((v for _, v in points), default=0)
