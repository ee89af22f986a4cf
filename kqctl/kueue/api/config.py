"""The parts of Kueue's Configuration (config.kueue.x-k8s.io) that change admission decisions (§0.2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kqctl.k8s.core import Fields

DEFAULT_PREEMPTION_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


@dataclass(frozen=True)
class AdmissionFairSharingConfig:
    usage_half_life_seconds: float
    usage_sampling_interval_seconds: float
    resource_weights: Mapping[str, float] = field(hash=False)


@dataclass(frozen=True)
class KueueConfig:
    """Defaults are Kueue's at the reference commit: fair sharing off, BlockUndeclared."""

    fair_sharing: bool = False
    preemption_strategies: tuple[str, ...] = DEFAULT_PREEMPTION_STRATEGIES
    admission_fair_sharing: AdmissionFairSharingConfig | None = None
    quota_check_strategy: str = "BlockUndeclared"
    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    # featureGates: the manager sets its gates from here when its --feature-gates flag is not given
    # (LoadAndValidateFeatureGates); (name, enabled) pairs, validated (VAL-CFG-14) before they are read
    feature_gates: tuple[tuple[str, bool], ...] = ()

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> KueueConfig:
        fields = Fields(body)
        fair = fields.opt_child("fairSharing")
        resources = fields.child("resources")
        # FS-1: in v1beta2 the section's presence turns fair sharing on (it has no `enable`: VAL-CFG-1 refuses one);
        # v1beta1 had `enable`, false unless set (config/v1beta1 FairSharing.Enable, a plain bool)
        v1beta1 = str(body.get("apiVersion", "")).endswith("/v1beta1")
        enabled = fair is not None and (fair.boolean("enable", False) if v1beta1 else True)
        strategies = fair.strings("preemptionStrategies") if fair is not None else ()
        return cls(
            fair_sharing=enabled,
            preemption_strategies=strategies or DEFAULT_PREEMPTION_STRATEGIES,
            admission_fair_sharing=_admission_fair_sharing(fields.opt_child("admissionFairSharing")),
            quota_check_strategy=resources.string("quotaCheckStrategy") or "BlockUndeclared",
            exclude_resource_prefixes=resources.strings("excludeResourcePrefixes"),
            transformations=tuple(item.obj for item in resources.items("transformations")),
            feature_gates=_feature_gates(body.get("featureGates")),
        )


def _feature_gates(gates: object) -> tuple[tuple[str, bool], ...]:
    if not isinstance(gates, Mapping):
        return ()
    return tuple(sorted((str(name), value) for name, value in gates.items() if isinstance(value, bool)))


def _admission_fair_sharing(fields: Fields | None) -> AdmissionFairSharingConfig | None:
    if fields is None:
        return None
    weights = fields.child("resourceWeights")
    return AdmissionFairSharingConfig(
        duration_seconds(fields.string("usageHalfLifeTime")),
        duration_seconds(fields.string("usageSamplingInterval"), default=300.0),
        {name: float(value) for name, value in weights.obj.items()} if isinstance(weights.obj, Mapping) else {},
    )


def duration_seconds(text: str, default: float = 0.0) -> float:
    """A Go duration such as ``168h``, ``5m`` or ``1h30m`` in seconds."""
    if not text:
        return default
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    total, number = 0.0, ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isdigit() or ch == ".":
            number += ch
            i += 1
            continue
        unit = "ms" if text.startswith("ms", i) else ch
        total += float(number or 0) * units.get(unit, 0.0)
        number = ""
        i += len(unit)
    return total
