"""Arrivals drawn at random (``--arrivals``), for any scheduler: how a capacity study asks "and if they came at
other times?".

A trace or a snapshot says when each workload arrives. ``--arrivals`` replaces those times by a draw, seeded by
``--seed`` (``plan --seeds N``: one draw per seed), so the same seed gives the same replay:

* ``jitter(D)``: each arrival moves by a whole number of milliseconds drawn uniformly from -D to +D; an arrival is
  never moved to or before the start of the replay (it stays an arrival: at the earliest 1 ms after the start);
* ``poisson``: the same arrivals, in the same order, over the same span (the first to the last arrival), at the times
  of a Poisson process: given how many arrive in a span, a Poisson process's arrival times are that many uniform draws
  over the span, sorted. The volume and the mix stay the trace's, the timing is random.

Only arrivals move: workloads present at the start stay as they are. What arrives is each scheduler's unit (a Kueue
Workload, a Volcano PodGroup with its pods, a YuniKorn application with its pods: the application's pods move
together). The draws use their own random stream, so drawing arrivals leaves the runtimes' draws as they were.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kqctl.replay.durations import MAX_DURATION_MS, DurationError, format_duration, parse_duration

JITTER, POISSON = "jitter", "poisson"
_JITTER = re.compile(r"^\s*jitter\s*\((.*)\)\s*$")
EXPECTED = "jitter(DURATION) (each arrival moved by up to DURATION either way, e.g. jitter(10m)) or poisson"


@dataclass(frozen=True)
class ArrivalDraw:
    """How arrival times are drawn: ``jitter`` (by up to ``spread`` ms either way) or ``poisson``."""

    kind: str
    spread: int = 0  # ms, jitter only

    def describe(self) -> str:
        if self.kind == JITTER:
            return f"jitter(±{format_duration(self.spread)})"
        return "poisson over the same span"

    def times(self, arrivals: Sequence[int], seed: int) -> list[int]:
        """New arrival times (ms after the start) for ``arrivals`` (ms after the start, each above 0), given in the
        order they arrive (time, then the unit's key): the draws follow that order, so they are reproducible."""
        rng = random.Random(f"arrivals:{seed}")  # a stream of its own: the runtimes' draws stay as they were
        if self.kind == JITTER:
            return [min(MAX_DURATION_MS, max(1, at + rng.randint(-self.spread, self.spread))) for at in arrivals]
        if len(arrivals) < 2:
            return list(arrivals)
        # The arrivals come in the order they arrive: the n-th of the sorted draws is the n-th arrival's.
        return sorted(rng.randint(arrivals[0], arrivals[-1]) for _ in arrivals)


def parse_arrivals(text: str) -> ArrivalDraw:
    """``jitter(10m)`` or ``poisson``; raises :class:`DurationError` with what was expected."""
    raw = text.strip()
    if raw.lower() == POISSON:
        return ArrivalDraw(POISSON)
    match = _JITTER.match(raw)
    if match is None:
        raise DurationError(f"{text!r}: expected {EXPECTED}")
    try:
        spread = parse_duration(match.group(1))
    except DurationError as exc:
        raise DurationError(f"{text!r}: {exc}") from None
    if spread <= 0:
        raise DurationError(f"{text!r}: the jitter must be longer than 0")
    return ArrivalDraw(JITTER, spread)


def shifts(units: Sequence[tuple[str, int]], draw: ArrivalDraw, seed: int) -> dict[str, int]:
    """How far (ms) each arriving unit moves: ``units`` are (key, ms after the start, above 0), in any order."""
    ordered = sorted(units, key=lambda unit: (unit[1], unit[0]))
    moved = draw.times([at for _, at in ordered], seed)
    return {key: new - at for (key, at), new in zip(ordered, moved, strict=True)}


def note(moved: int, draw: ArrivalDraw, seed: int, what: str) -> str:
    """The report's assumption: ``what`` names the units (``Workload(s)``, ``PodGroup(s)``, ``application(s)``)."""
    if not moved:
        return f"--arrivals {draw.describe()}: nothing arrives during the replay, so no arrival time was drawn"
    return f"the arrival times of {moved:,} {what} were drawn: {draw.describe()} (seed {seed}; --arrivals)"
