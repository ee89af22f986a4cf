"""Admission fair sharing (FS-11): LocalQueues that used less go first within a ClusterQueue.

A LocalQueue's score is its decayed usage (from its status) plus the entry penalties of the
workloads admitted since, weighted per resource and divided by the LocalQueue's weight.
Amounts are in natural units (cores, bytes), as Kueue's ``AsApproximateFloat64`` gives them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kqctl.kueue.api.config import AdmissionFairSharingConfig
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.workloads import WorkloadInfo


def natural(resource: str, value: int) -> float:
    """Canonical integers (QTY-5) back to natural units: cpu milli-cores to cores."""
    return value / 1000.0 if resource == "cpu" else float(value)


@dataclass
class UsageLedger:
    config: AdmissionFairSharingConfig
    weights: dict[str, float]  # LocalQueue key -> weight
    consumed: dict[str, dict[str, float]]  # LocalQueue key -> resource -> amount
    penalties: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot, config: AdmissionFairSharingConfig,
                      initial: Mapping[str, Mapping[str, Fraction]] | None = None) -> UsageLedger:
        consumed = {key: {r: float(v) for r, v in lq.consumed_resources.items()}
                    for key, lq in snapshot.local_queues.items() if lq.consumed_resources}
        for key, usage in (initial or {}).items():
            consumed[key] = {r: float(v) for r, v in usage.items()}
        weights = {key: lq.fair_weight for key, lq in snapshot.local_queues.items()}
        return cls(config, weights, consumed)

    def alpha(self) -> float:
        half_life = self.config.usage_half_life_seconds
        if half_life == 0:
            return 0.0
        return 1.0 - math.pow(0.5, self.config.usage_sampling_interval_seconds / half_life)

    def score(self, lq_key: str) -> float:
        """CalculateUsage: weighted consumed plus pending penalties over the LocalQueue's weight."""
        totals = dict(self.consumed.get(lq_key, {}))
        for resource, value in self.penalties.get(lq_key, {}).items():
            totals[resource] = totals.get(resource, 0.0) + value
        usage = sum(self.config.resource_weights.get(r, 1.0) * totals[r] for r in sorted(totals))
        weight = self.weights.get(lq_key, 1.0)
        return math.inf if weight <= 0 else usage / weight

    def workload_score(self, workload: WorkloadInfo) -> float:
        return self.score(lq_key(workload))

    def add_penalty(self, workload: WorkloadInfo) -> None:
        """An admission adds total requests x alpha to its LocalQueue until the next usage sample."""
        alpha = self.alpha()
        penalty = self.penalties.setdefault(lq_key(workload), {})
        for pod_set in workload.pod_sets:
            for resource, value in pod_set.total.items():
                penalty[resource] = penalty.get(resource, 0.0) + natural(resource, value) * alpha


def lq_key(workload: WorkloadInfo) -> str:
    return f"{workload.namespace}/{workload.model.queue_name}"
