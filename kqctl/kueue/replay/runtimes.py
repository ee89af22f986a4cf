"""How long a workload runs once admitted: its annotation, Kueue's performance label, or a distribution.

In order: the ``kqctl.dev/runtime`` annotation (kqctl's own, on a Workload or on the Job it comes
from; a duration such as ``45m``), then ``kueue.x-k8s.io/performance-scheduler-running-ms`` (the
label Kueue's performance runner reads, in milliseconds), then a draw from ``--runtime``. Without
any of them a workload holds its quota until the replay ends.
"""

from __future__ import annotations

import random

from kqctl.kueue.api.models import Workload
from kqctl.replay.durations import MAX_DURATION_MS, MAX_DURATION_TEXT, Distribution, DurationError, parse_duration

RUNTIME_ANNOTATION = "kqctl.dev/runtime"
PERFORMANCE_RUNTIME_LABEL = "kueue.x-k8s.io/performance-scheduler-running-ms"


class RuntimeDeclarationError(ValueError):
    """A runtime annotation or label that does not parse; ``workload`` says where."""

    def __init__(self, workload: Workload, message: str) -> None:
        self.workload = workload
        super().__init__(f"Workload {workload.key}: {message}")


def declared_runtime(workload: Workload) -> int | None:
    """The runtime the workload itself declares (ms), or None."""
    raw = workload.annotations.get(RUNTIME_ANNOTATION)
    if raw is not None:
        try:
            value = parse_duration(raw)
        except DurationError as exc:
            raise RuntimeDeclarationError(workload, f"annotation {RUNTIME_ANNOTATION}: {exc}") from None
        if value <= 0:
            raise RuntimeDeclarationError(workload, f"annotation {RUNTIME_ANNOTATION}: {raw!r} must be longer than 0")
        return value
    label = workload.labels.get(PERFORMANCE_RUNTIME_LABEL)
    if label is not None:
        if not label.isdigit():
            message = f"label {PERFORMANCE_RUNTIME_LABEL}: {label!r} is not a number of ms"
            raise RuntimeDeclarationError(workload, message)
        if int(label) > MAX_DURATION_MS:
            raise RuntimeDeclarationError(workload, f"label {PERFORMANCE_RUNTIME_LABEL}: {label} ms is longer than "
                                                    f"{MAX_DURATION_TEXT}")
        return int(label)
    return None


class RuntimeSource:
    """Runtimes for a set of workloads: declared ones first, else drawn (in the order asked, with the seed)."""

    def __init__(self, distribution: Distribution | None, seed: int) -> None:
        self.distribution = distribution
        self.rng = random.Random(seed)
        self.drawn = 0
        self.unknown = 0
        self.at_bound = 0  # draws cut to the longest duration kqctl replays

    def runtime(self, workload: Workload) -> int | None:
        declared = declared_runtime(workload)
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
