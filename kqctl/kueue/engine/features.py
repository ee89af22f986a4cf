"""Kueue's feature gates, with Kueue's defaults at the reference commit.

Every gate Kueue defines is accepted (feature_gates.py, generated from Kueue's source by
scripts/generate_feature_gates.py), so a command line copied from a Kueue deployment works. Only
the gates in ``ADMISSION_GATES`` change what kqctl's engine decides; the others (metrics,
integrations, MultiKueue, node replacement, ...) are accepted and have no effect offline.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from kqctl.kueue.engine.feature_gates import KUEUE_FEATURE_GATES

# The gates whose value the engine reads (each is looked up by name where it applies).
ADMISSION_GATES: frozenset[str] = frozenset({
    "AdmissionFairSharing",
    "ConcurrentAdmission",
    "ElasticJobsViaWorkloadSlices",
    "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing",
    "FlavorFungibility",
    "FlavorFungibilityPreserveScanProgress",
    "MultiKueueOrchestratedPreemption",
    "PartialAdmission",
    "PriorityBoost",
    "PrioritizePreemptorWorkloads",
    "PrioritySortingWithinCohort",
    "QuotaCheckStrategy",
    "ReclaimablePods",
    "RecomputeAssignmentUponPreemptionTargetsOverlap",
    "SchedulingEquivalenceHashing",
    "TASRecomputeAssignmentWithinSchedulingCycle",
    "TopologyAwareScheduling",
    "UnadmittedWorkloadsObservability",
    "VectorizedResourceRequests",
    "WorkloadPriorityClassDefaulting",
    "WorkloadRequestUseMergePatch",
})

DEFAULTS: dict[str, bool] = {name: spec[0] for name, spec in KUEUE_FEATURE_GATES.items()}


class FeatureGateError(ValueError):
    pass


@dataclass(frozen=True)
class FeatureGates:
    overrides: Mapping[str, bool] = field(default_factory=dict)
    # Every gate's value, the overrides over Kueue's defaults, merged once: the engine asks some gates at every head
    # of every cycle (hundreds of thousands of times in a replay).
    _values: dict[str, bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_values", {**DEFAULTS, **self.overrides})

    def enabled(self, name: str) -> bool:
        return self._values.get(name, False)

    def over(self, configured: Mapping[str, bool]) -> FeatureGates:
        """These gates set over those of a Kueue Configuration's ``featureGates``, gate by gate. Kueue's manager
        takes its gates from the flag or from the file, never both (it refuses to start with both); kqctl's
        ``--feature-gates`` is a what-if on top of the file."""
        if not configured:
            return self
        return FeatureGates({**configured, **self.overrides})

    @classmethod
    def parse(cls, text: str | None) -> FeatureGates:
        """``Name=true,Other=false`` as Kueue's --feature-gates flag takes it."""
        overrides: dict[str, bool] = {}
        for item in (text or "").split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, value = (part.strip() for part in item.partition("="))
            if not sep or value.lower() not in ("true", "false"):
                raise FeatureGateError(f"invalid feature gate {item!r}: expected Name=true or Name=false")
            enabled = value.lower() == "true"
            _check_known(name)
            default, _, locked = KUEUE_FEATURE_GATES[name]
            if locked and enabled != default:
                # Kueue refuses to start with a locked gate changed; so does kqctl.
                raise FeatureGateError(f"cannot set feature gate {name} to {value.lower()}, "
                                       f"feature is locked to {str(default).lower()}")
            overrides[name] = enabled
        return cls(overrides)


def _check_known(name: str) -> None:
    if name in KUEUE_FEATURE_GATES:
        return
    close = difflib.get_close_matches(name, KUEUE_FEATURE_GATES, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise FeatureGateError(f"unknown feature gate {name!r} (not one of the {len(KUEUE_FEATURE_GATES)} gates "
                           f"Kueue defines){hint}")


def has_effect(name: str) -> bool:
    """Whether a gate changes kqctl's admission decisions (all other gates are accepted and ignored)."""
    return name in ADMISSION_GATES
