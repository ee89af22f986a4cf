"""The result of flavor assignment (rule set FA): modes, reasons and the Assignment of a workload.

Kueue keeps these types in its flavorassigner package beside the assigner; here they have a
module of their own so that the TAS step (tas_assigner.py), preemption (PRE-2 reads the
preemptor's usage from an Assignment) and the cycle can share them without importing the
assigner itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kqctl.k8s.quantity import sat_add
from kqctl.kueue.api.models import FlavorResource, ResourceGroup, TopologyAssignment
from kqctl.kueue.engine.tas_cache import TASUsage
from kqctl.kueue.engine.workloads import WorkloadInfo

# Public modes (FA-7), worst to best.
NO_FIT = "NoFit"
PREEMPT = "Preempt"
DEFERRED_FIT = "DeferredFit"
FIT = "Fit"
MODE_RANK = {NO_FIT: 0, PREEMPT: 1, DEFERRED_FIT: 2, FIT: 3}

# FA-14: condition reasons of a workload that does not fit, by severity.
TOPOLOGY_PLACEMENT_FAILED = "TopologyPlacementFailed"
NO_MATCHING_FLAVOR = "NoMatchingFlavor"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
WAITING_FOR_QUOTA = "WaitingForQuota"
SEVERITY = {TOPOLOGY_PLACEMENT_FAILED: 1, WAITING_FOR_QUOTA: 2, EXCEEDS_MAX_QUOTA: 3, NO_MATCHING_FLAVOR: 4}

# PRE-11: (flavor, resource), amount -> (possibility, borrowing level after the preemptions).
# Kueue's PreemptionOracle: the assigner asks it, preemption implements it.
Oracle = Callable[[FlavorResource, int], tuple[str, int]]


def most_severe(a: str, b: str) -> str:
    return a if SEVERITY.get(a, 0) >= SEVERITY.get(b, 0) else b


@dataclass
class FlavorChoice:
    flavor: str
    mode: str
    borrow: int
    tried_index: int = 0


@dataclass
class Attempt:
    """One flavor tried for a pod set (merged over its resources), for messages and events."""

    flavor: str
    mode: str
    borrow: int = 0
    possibility: str | None = None
    reasons: list[str] = field(default_factory=list)
    no_fit_reason: str = ""


@dataclass
class Status:
    reasons: list[str] = field(default_factory=list)
    error: str | None = None
    no_fit_reason: str = ""
    # The "<n> more needed" of each "insufficient unused quota" reason, as a number: the unused quota the
    # (flavor, resource) lacks, counting what earlier pod sets were assigned there (the amount users are shown).
    missing: dict[FlavorResource, int] = field(default_factory=dict)

    def add(self, other: Status) -> None:
        """Take over another status's reasons and missing amounts (the larger amount of a (flavor, resource))."""
        self.reasons.extend(other.reasons)
        for fr, amount in other.missing.items():
            self.missing[fr] = max(amount, self.missing.get(fr, 0))

    @property
    def is_fit(self) -> bool:
        return self.error is None and not self.reasons

    def message(self) -> str:
        return self.error if self.error is not None else ", ".join(sorted(self.reasons))


@dataclass
class PodSetAssignment:
    name: str
    index: int
    flavors: dict[str, FlavorChoice]
    status: Status
    requests: dict[str, int]  # totals for this attempt, ``pods`` included when covered
    count: int
    attempts: list[Attempt] = field(default_factory=list)
    topology: TopologyAssignment | None = None  # TAS-6: where its pods go (PodSetAssignment.TopologyAssignment)

    def mode(self) -> str:
        if self.status.is_fit:
            return FIT
        if self.status.error is not None or not self.flavors:
            return NO_FIT
        return min((c.mode for c in self.flavors.values()), key=MODE_RANK.__getitem__)


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    borrowing: int = 0
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    last_tried: list[dict[str, int]] = field(default_factory=list)
    no_fit_reason: str = ""
    mode_override: str | None = None
    tas_usage: TASUsage = ()  # TAS-6: Usage.TAS, the node usage of its topology assignments
    # A nomination from scratch: no nomination mapping (CYC-10) and every resource group scanned from its first flavor
    # (no flavor-scan memory in effect, FA-4). Such an answer depends only on the workload and the quota tree.
    from_first_flavors: bool = False
    # Its FA-13 message, once worked out for an answer the assignment memo keeps (a kept answer is never changed
    # again, and every equal head it answers shows that message).
    kept_message: str | None = field(default=None, compare=False, repr=False)
    kept_mode: str | None = field(default=None, compare=False, repr=False)  # and its representative mode

    def representative_mode(self) -> str:
        if not self.pod_sets:
            return NO_FIT
        if self.mode_override is not None:
            return self.mode_override
        if self.kept_mode is not None:
            return self.kept_mode
        return min((ps.mode() for ps in self.pod_sets), key=MODE_RANK.__getitem__)

    def message(self) -> str:
        """FA-13: the reasons of every pod set that does not fit."""
        parts: list[str] = []
        for ps in self.pod_sets:
            if ps.status.is_fit:
                continue
            if ps.status.error is not None:
                return f"failed to assign flavors to pod set {ps.name}: {ps.status.error}"
            parts.append(f"couldn't assign flavors to pod set {ps.name}: {ps.status.message()}")
        return "; ".join(parts)

    def flavors_needing_preemption(self) -> set[FlavorResource]:
        return {(c.flavor, res) for ps in self.pod_sets for res, c in ps.flavors.items() if c.mode == PREEMPT}

    def resource_flavors(self) -> dict[str, dict[str, str]]:
        return {ps.name: {res: c.flavor for res, c in ps.flavors.items()} for ps in self.pod_sets}

    def append(self, requests: Mapping[str, int], assignment: PodSetAssignment) -> None:
        self.pod_sets.append(assignment)
        tried: dict[str, int] = {}
        for resource, choice in assignment.flavors.items():
            self.borrowing = max(self.borrowing, choice.borrow)
            fr = (choice.flavor, resource)
            self.usage[fr] = sat_add(self.usage.get(fr, 0), requests.get(resource, 0))
            tried[resource] = choice.tried_index
        self.last_tried.append(tried)

    def topology_assignments(self) -> dict[str, TopologyAssignment]:
        """TAS-6: where the pods of each placed pod set go, by pod set name."""
        return {ps.name: ps.topology for ps in self.pod_sets if ps.topology is not None}


def total_requests_for(workload: WorkloadInfo, assignment: Assignment) -> dict[FlavorResource, int]:
    """PRE-2: the preemptor's usage on every assigned flavor (``pods`` not included, zeros skipped)."""
    usage: dict[FlavorResource, int] = {}
    for pod_set, ps_assignment in zip(workload.pod_sets, assignment.pod_sets, strict=False):
        for resource, value in pod_set.total_for(ps_assignment.count).items():
            choice = ps_assignment.flavors.get(resource)
            if value == 0 or choice is None:
                continue
            fr = (choice.flavor, resource)
            usage[fr] = sat_add(usage.get(fr, 0), value)
    return usage


def resolve_no_fit_reason(assignment: Assignment, groups: tuple[ResourceGroup, ...]) -> str:
    """FA-14: least severe reason per resource group, most severe across groups and pod sets."""
    if assignment.representative_mode() != NO_FIT:
        return ""
    overall = ""
    for ps in assignment.pod_sets:
        if ps.mode() != NO_FIT:
            continue
        if not ps.attempts:
            overall = most_severe(overall, NO_MATCHING_FLAVOR)
            continue
        per_group: dict[int, str] = {}
        for i, attempt in enumerate(ps.attempts):
            if attempt.mode != NO_FIT:
                continue
            groups_of = _groups_with_flavor(groups, attempt.flavor) or [-1 - i]
            for group in groups_of:
                existing = per_group.get(group)
                if existing is None or SEVERITY.get(attempt.no_fit_reason, 0) < SEVERITY.get(existing, 0):
                    per_group[group] = attempt.no_fit_reason
        pod_set_reason = ""
        for reason in per_group.values():
            pod_set_reason = most_severe(pod_set_reason, reason)
        overall = most_severe(overall, pod_set_reason)
    return overall


def _groups_with_flavor(groups: tuple[ResourceGroup, ...], flavor: str) -> list[int]:
    return [i for i, group in enumerate(groups) if flavor in group.flavors]


def format_attempts(assignment: Assignment) -> str:
    """CYC-18 "Flavors considered": non-trivial attempts per pod set."""
    parts: list[str] = []
    for ps in assignment.pod_sets:
        texts = [_attempt_text(a) for a in ps.attempts if not (a.mode == FIT and a.borrow == 0)]
        if texts:
            parts.append(f"{ps.name}: {', '.join(texts)}")
    return " | ".join(parts)


def _attempt_text(attempt: Attempt) -> str:
    text = f"preemptionMode={attempt.possibility}" if attempt.possibility is not None else attempt.mode
    if attempt.borrow > 0:
        text += f";borrow={attempt.borrow}"
    if attempt.reasons:
        text += ";" + ";".join(attempt.reasons)
    return f"{attempt.flavor}({text})"
