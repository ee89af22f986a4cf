"""Durations in virtual time (integer milliseconds), and runtime distributions drawn with a seed.

Durations are written as Go and Kubernetes write them (``45m``, ``1h30m``, ``1.5h``, ``200ms``,
``90s``); the value must be a whole number of milliseconds, the replay's resolution. A distribution
(``--runtime``) is a fixed duration or ``uniform(MIN,MAX)``, ``exponential(MEAN)`` or
``lognormal(MEDIAN,SIGMA)``; draws come from one ``random.Random(seed)`` in a fixed order, so the
same seed gives the same replay. Draws are rounded to whole milliseconds, never below 1 ms and
never above :data:`MAX_DURATION_MS` (100 years), the longest duration kqctl accepts anywhere: past
it a date would leave the calendar (year 9999) and a wait stops meaning anything.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from fractions import Fraction

MS_PER_UNIT: dict[str, Fraction] = {
    "ns": Fraction(1, 1_000_000),
    "us": Fraction(1, 1000),
    "µs": Fraction(1, 1000),
    "ms": Fraction(1),
    "s": Fraction(1000),
    "m": Fraction(60_000),
    "h": Fraction(3_600_000),
    "d": Fraction(86_400_000),
}
MAX_DURATION_MS = 100 * 365 * 86_400_000  # 100 years (of 365 days)
MAX_DURATION_TEXT = "100 years (876000h)"
MAX_SIGMA = 100  # lognormal's shape: far beyond any runtime spread, and exp() of it stays a finite float
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d)")


class DurationError(ValueError):
    """A duration or distribution that does not parse; the message says what was expected."""


def parse_duration(text: str) -> int:
    """``1h30m`` -> 5,400,000 (ms). A unit is required except for ``0``."""
    raw = text.strip()
    if raw in ("0", "0s"):
        return 0
    position, total = 0, Fraction(0)
    for match in _PART.finditer(raw):
        if match.start() != position:
            break
        total += Fraction(match.group(1)) * MS_PER_UNIT[match.group(2)]
        position = match.end()
    if position != len(raw) or not raw:
        raise DurationError(f"{text!r} is not a duration such as 45m, 1h30m, 90s or 200ms")
    if total.denominator != 1:
        raise DurationError(f"{text!r} is finer than a millisecond, the replay's resolution")
    if total > MAX_DURATION_MS:
        raise DurationError(f"{text!r} is longer than {MAX_DURATION_TEXT}, the longest duration kqctl replays")
    return int(total)


def format_duration(ms: int) -> str:
    """Milliseconds as a short human duration: ``1h2m``, ``4m30s``, ``12.5s``, ``250ms``."""
    if ms < 0:
        return "-" + format_duration(-ms)
    if ms < 1000:
        return f"{ms}ms"
    tenths_total = (ms + 50) // 100  # rounded to a tenth of a second
    if tenths_total < 600:
        seconds, tenths = divmod(tenths_total, 10)
        return f"{seconds}.{tenths}s" if tenths else f"{seconds}s"
    minutes, seconds = divmod((ms + 500) // 1000, 60)
    if minutes < 60:
        return f"{minutes}m{seconds}s" if seconds else f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes}m" if minutes else f"{hours}h"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h" if hours else f"{days}d"


@dataclass(frozen=True)
class Distribution:
    """Where runtimes come from when a workload does not say: fixed, uniform, exponential or lognormal."""

    kind: str  # fixed | uniform | exponential | lognormal
    first: int  # ms: the value, the minimum, the mean or the median
    second: int = 0  # ms: the maximum (uniform)
    sigma: Fraction = Fraction(0)  # lognormal shape

    def draw(self, rng: random.Random) -> int:
        if self.kind == "fixed":
            return self.first
        if self.kind == "uniform":
            return rng.randint(self.first, self.second)
        if self.kind == "exponential":
            return _bounded(rng.expovariate(1 / self.first))
        # In logarithms: a wide sigma must not overflow a float on its way to the bound.
        exponent = math.log(self.first) + rng.gauss(0.0, float(self.sigma))
        return MAX_DURATION_MS if exponent >= math.log(MAX_DURATION_MS) else _bounded(math.exp(exponent))

    def describe(self) -> str:
        if self.kind == "fixed":
            return format_duration(self.first)
        if self.kind == "uniform":
            return f"uniform({format_duration(self.first)},{format_duration(self.second)})"
        if self.kind == "exponential":
            return f"exponential(mean {format_duration(self.first)})"
        return f"lognormal(median {format_duration(self.first)}, sigma {float(self.sigma):g})"


_CALL = re.compile(r"^\s*(uniform|exponential|lognormal)\s*\((.*)\)\s*$")


def parse_distribution(text: str) -> Distribution:
    """``45m``, ``uniform(10m,1h)``, ``exponential(30m)`` or ``lognormal(20m,0.8)``."""
    match = _CALL.match(text)
    if match is None:
        if not _PART.match(text.strip()) and text.strip() not in ("0", ""):  # not even the start of a duration
            raise DurationError(f"{text!r} is not a duration (45m, 1h30m) nor a distribution: uniform(MIN,MAX), "
                                "exponential(MEAN) or lognormal(MEDIAN,SIGMA)")
        return Distribution("fixed", _positive(text))
    kind, args = match.group(1), [a.strip() for a in match.group(2).split(",")]
    expected = {"uniform": "uniform(MIN,MAX)", "exponential": "exponential(MEAN)",
                "lognormal": "lognormal(MEDIAN,SIGMA)"}[kind]
    if len(args) != (1 if kind == "exponential" else 2):
        raise DurationError(f"{text!r}: expected {expected}")
    if kind == "uniform":
        low, high = parse_duration(args[0]), parse_duration(args[1])
        if not 0 < low <= high:
            raise DurationError(f"{text!r}: expected 0 < MIN <= MAX")
        return Distribution(kind, low, high)
    if kind == "exponential":
        return Distribution(kind, _positive(args[0]))
    try:
        sigma = Fraction(args[1])
    except (ValueError, ZeroDivisionError):
        raise DurationError(f"{text!r}: SIGMA must be a number such as 0.5") from None
    if not 0 <= sigma <= MAX_SIGMA:
        raise DurationError(f"{text!r}: SIGMA must be from 0 to {MAX_SIGMA}")
    return Distribution(kind, _positive(args[0]), sigma=sigma)


def _bounded(ms: float) -> int:
    """A drawn runtime: whole ms, at least 1, at most MAX_DURATION_MS."""
    return max(1, min(MAX_DURATION_MS, round(ms)))


def _positive(text: str) -> int:
    value = parse_duration(text)
    if value <= 0:
        raise DurationError(f"{text!r}: a runtime must be longer than 0")
    return value
