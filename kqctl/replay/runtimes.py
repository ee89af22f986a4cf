"""How long a workload runs once it runs, for any scheduler: its ``kqctl.dev/runtime`` annotation, else a draw.

The annotation is kqctl's own (a duration such as ``45m``, whole milliseconds), written on whatever object
carries the workload (a Kueue Workload or its Job, a Volcano PodGroup, vcjob or pod, a YuniKorn pod). A
workload that declares none runs for a draw from ``--runtime`` (draws in the order asked, from one seeded
generator: the same seed gives the same replay); without ``--runtime`` it runs until the replay ends.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from kqctl.replay.durations import MAX_DURATION_MS, MAX_DURATION_TEXT, Distribution, DurationError, parse_duration

RUNTIME_ANNOTATION = "kqctl.dev/runtime"


class RuntimeAnnotationError(ValueError):
    """A runtime annotation that does not parse; the message says what was expected."""


def annotated_runtime(annotations: Mapping[str, str]) -> int | None:
    """The runtime (ms) the annotation declares, or None without one; a bad value raises
    :class:`RuntimeAnnotationError`."""
    raw = annotations.get(RUNTIME_ANNOTATION)
    if raw is None:
        return None
    try:
        value = parse_duration(raw)
    except DurationError as exc:
        raise RuntimeAnnotationError(f"annotation {RUNTIME_ANNOTATION}: {exc}") from None
    if value <= 0:
        raise RuntimeAnnotationError(f"annotation {RUNTIME_ANNOTATION}: {raw!r} must be longer than 0")
    return value


class RuntimeDraws:
    """Runtimes for workloads that declare none: drawn from the distribution (counted, for the report's notes)."""

    def __init__(self, distribution: Distribution | None, seed: int) -> None:
        self.distribution = distribution
        self.seed = seed
        self.rng = random.Random(seed)
        self.drawn = 0
        self.unknown = 0
        self.at_bound = 0  # draws cut to the longest duration kqctl replays

    def runtime(self, declared: int | None) -> int | None:
        if declared is not None:
            return declared
        if self.distribution is None:
            self.unknown += 1
            return None
        self.drawn += 1
        value = self.distribution.draw(self.rng)
        if value == MAX_DURATION_MS:
            self.at_bound += 1
        return value

    def notes(self, what: str) -> list[str]:
        """What was assumed, in words: ``what`` names the workloads (``PodGroup(s)``, ``pod(s)``)."""
        notes = []
        distribution = self.distribution
        if self.drawn and distribution is not None and distribution.kind == "fixed":
            notes.append(f"{self.drawn:,} {what} without a declared runtime (annotation {RUNTIME_ANNOTATION}) were "
                         f"assumed to run {distribution.describe()} (those running at the start: from the start)")
        elif self.drawn and distribution is not None:
            notes.append(f"{self.drawn:,} {what} without a declared runtime ran for a draw from "
                         f"{distribution.describe()} (seed {self.seed}; those running at the start: from the start)")
        if self.at_bound:
            notes.append(f"{self.at_bound:,} of those draws were longer than {MAX_DURATION_TEXT} and were cut to it")
        if self.unknown:
            notes.append(f"{self.unknown:,} {what} declare no runtime (annotation {RUNTIME_ANNOTATION}) and no "
                         "--runtime was given: once running they hold their resources until the replay ends")
        return notes

    def describe(self) -> str:
        return self.distribution.describe() if self.distribution is not None else \
            "none (workloads without one never finish)"
