"""Kueue feature gates that change scheduling decisions, with Kueue's defaults at the reference commit (§0.2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULTS: dict[str, bool] = {
    "AdmissionFairSharing": True,
    "ConcurrentAdmission": False,
    "ElasticJobsViaWorkloadSlices": True,
    "FairSharingPreemptWithinNominal": True,
    "FairSharingPrioritizeNonBorrowing": True,
    "FlavorFungibility": True,
    "FlavorFungibilityPreserveScanProgress": True,
    "MultiKueueOrchestratedPreemption": False,
    "PartialAdmission": True,
    "PriorityBoost": False,
    "PrioritizePreemptorWorkloads": False,
    "PrioritySortingWithinCohort": True,
    "QuotaCheckStrategy": True,
    "ReclaimablePods": True,
    "RecomputeAssignmentUponPreemptionTargetsOverlap": True,
    "SchedulingEquivalenceHashing": True,
    "TopologyAwareScheduling": True,
    "UnadmittedWorkloadsObservability": True,
    "VectorizedResourceRequests": True,
    "WorkloadPriorityClassDefaulting": True,
    "WorkloadRequestUseMergePatch": False,
}


class FeatureGateError(ValueError):
    pass


@dataclass(frozen=True)
class FeatureGates:
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, name: str) -> bool:
        return self.overrides.get(name, DEFAULTS.get(name, False))

    @classmethod
    def parse(cls, text: str | None) -> FeatureGates:
        """``Name=true,Other=false`` as Kueue's --feature-gates flag takes it."""
        overrides: dict[str, bool] = {}
        for item in (text or "").split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, value = item.partition("=")
            if not sep or value.strip().lower() not in ("true", "false"):
                raise FeatureGateError(f"invalid feature gate {item!r}: expected Name=true or Name=false")
            if name.strip() not in DEFAULTS:
                known = ", ".join(sorted(DEFAULTS))
                raise FeatureGateError(f"unknown feature gate {name.strip()!r}; known gates: {known}")
            overrides[name.strip()] = value.strip().lower() == "true"
        return cls(overrides)
