"""How long a workload runs once admitted: its annotation, Kueue's performance label, or a distribution.

In order: the ``kqctl.dev/runtime`` annotation (kqctl's own, on a Workload or on the Job it comes
from; a duration such as ``45m``), then ``kueue.x-k8s.io/performance-scheduler-running-ms`` (the
label Kueue's performance runner reads, in milliseconds), then a draw from ``--runtime``. Without
any of them a workload holds its quota until the replay ends.
"""

from __future__ import annotations

from kqctl.kueue.api.models import Workload
from kqctl.replay.durations import MAX_DURATION_MS, MAX_DURATION_TEXT
from kqctl.replay.runtimes import RUNTIME_ANNOTATION, RuntimeAnnotationError, RuntimeDraws, annotated_runtime

PERFORMANCE_RUNTIME_LABEL = "kueue.x-k8s.io/performance-scheduler-running-ms"

__all__ = ["PERFORMANCE_RUNTIME_LABEL", "RUNTIME_ANNOTATION", "RuntimeDeclarationError", "RuntimeSource",
           "declared_runtime"]


class RuntimeDeclarationError(ValueError):
    """A runtime annotation or label that does not parse; ``workload`` says where."""

    def __init__(self, workload: Workload, message: str) -> None:
        self.workload = workload
        super().__init__(f"Workload {workload.key}: {message}")


def declared_runtime(workload: Workload) -> int | None:
    """The runtime the workload itself declares (ms), or None."""
    try:
        annotated = annotated_runtime(workload.annotations)
    except RuntimeAnnotationError as exc:
        raise RuntimeDeclarationError(workload, str(exc)) from None
    if annotated is not None:
        return annotated
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


class RuntimeSource(RuntimeDraws):
    """Runtimes for a set of workloads: declared ones first (annotation, then Kueue's performance label), else drawn
    (in the order asked, with the seed; counted for the report's notes)."""

    def runtime_of(self, workload: Workload) -> int | None:
        return self.runtime(declared_runtime(workload))
