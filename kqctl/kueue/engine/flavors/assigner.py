"""Flavor assignment (rule set FA): which flavor each resource of each pod set gets, and in which mode.

A pure function of the quota cache, one workload and its ClusterQueue. When a flavor only fits
after preemption, a *preemption oracle* (PRE-11) says whether victims exist; it is passed in so
this module does not depend on the preemption algorithms. Kueue's flavorassigner.go; its TAS
step (TAS-2, TAS-6) is in tas_assigner.py and the result types in assignment.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from kqctl.k8s.quantity import format_resource_value, sat_add, sat_sub
from kqctl.k8s.selectors import SelectorError, first_untolerated_taint, flavor_matches_pod, taint_text
from kqctl.kueue.api.models import FlavorResource, ResourceFlavor
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState
from kqctl.kueue.engine.flavors import tas_assigner
from kqctl.kueue.engine.flavors.assignment import (
    EXCEEDS_MAX_QUOTA,
    FIT,
    MODE_RANK,
    NO_FIT,
    NO_MATCHING_FLAVOR,
    PREEMPT,
    WAITING_FOR_QUOTA,
    Assignment,
    Attempt,
    FlavorChoice,
    Oracle,
    PodSetAssignment,
    Status,
    most_severe,
    resolve_no_fit_reason,
)
from kqctl.kueue.engine.tas_cache import TASCache, topology_request
from kqctl.kueue.engine.workloads import PodSetInfo, ScanMemory, WorkloadInfo, allowed_flavors, resource_order

# Internal preemption modes (FA-7), worst to best.
P_NO_FIT, P_NO_CANDIDATES, P_PREEMPT, P_RECLAIM, P_FIT = range(5)
_POSSIBILITY = {P_NO_CANDIDATES: "NoCandidates", P_PREEMPT: "Preempt", P_RECLAIM: "Reclaim"}
_FROM_POSSIBILITY = {v: k for k, v in _POSSIBILITY.items()}

UNLIMITED_LEVEL = 1 << 62


def public_mode(mode: int) -> str:
    return {P_NO_FIT: NO_FIT, P_FIT: FIT}.get(mode, PREEMPT)


@dataclass(frozen=True)
class Granular:
    """FA-7: a preemption mode with the borrowing level it needs."""

    mode: int
    level: int


WORST = Granular(P_NO_FIT, UNLIMITED_LEVEL)
BEST = Granular(P_FIT, 0)


def is_preferred(a: Granular, b: Granular, preference: str | None) -> bool:
    """FA-8: whether ``a`` is better than ``b`` under the ClusterQueue's fungibility preference."""
    if a.mode == P_NO_FIT:
        return False
    if b.mode == P_NO_FIT:
        return True
    a_none, b_none = a.mode == P_NO_CANDIDATES, b.mode == P_NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if preference == "PreemptionOverBorrowing":
        if a.level != b.level:
            return a.level < b.level
        return a.mode > b.mode
    if a.mode != b.mode:
        return a.mode > b.mode
    return a.level < b.level


def should_try_next_flavor(mode: Granular, when_can_borrow: str, when_can_preempt: str) -> bool:
    """FA-10: flavorFungibility decides whether the scan goes on after this flavor."""
    if mode.mode in (P_NO_FIT, P_NO_CANDIDATES):
        return True
    if mode.mode in (P_PREEMPT, P_RECLAIM) and when_can_preempt == "TryNextFlavor":
        return True
    return mode.level > 0 and when_can_borrow == "TryNextFlavor"



class QuotaReads(Protocol):
    """What the assigner reads of the quota cache: a QuotaCache, or assignment_memo's RecordingCache of one."""

    @property
    def flavors(self) -> Mapping[str, ResourceFlavor]: ...

    @property
    def tas(self) -> TASCache: ...

    @property
    def snapshot(self) -> Snapshot: ...

    def available(self, state: ClusterQueueState, fr: FlavorResource) -> int: ...

    def fits_available(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> bool: ...

    def potential(self, state: ClusterQueueState, fr: FlavorResource) -> int: ...

    def borrowing_level(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> tuple[int, bool]: ...


@dataclass
class FlavorAssigner:
    """FA-1..FA-15 for one workload in one ClusterQueue against the current cache."""

    workload: WorkloadInfo
    cq: ClusterQueueState
    cache: QuotaReads
    oracle: Oracle
    fair_sharing: bool = False
    ignore_undeclared: bool = False
    memory: ScanMemory | None = None
    nomination: Mapping[str, Mapping[str, str]] | None = None
    concurrent_admission: bool = False
    topology_aware: bool = False  # the TopologyAwareScheduling gate (TAS-2, TAS-6)
    # TAS-6's block can place something: a pod set asks for a topology or the ClusterQueue is TAS-only (TAS-1, TAS-2).
    # Otherwise the block finds no pod set to place and leaves the assignment as it is (no topology, no node usage):
    # the scheduler skips it for the many heads of a cluster without topologies.
    places_topology: bool = True

    def assign(self, counts: list[int] | None = None) -> Assignment:
        assignment = Assignment()
        groups: dict[str, list[tuple[PodSetInfo, dict[str, int], int]]] = {}
        for i, pod_set in enumerate(self.workload.pod_sets):
            count, requests = self._requests(pod_set, counts[i] if counts is not None else None)
            groups.setdefault(pod_set.group, []).append((pod_set, requests, count))
        for members in groups.values():
            if not self._assign_group(members, assignment):
                assignment.no_fit_reason = resolve_no_fit_reason(assignment, self.cq.model.resource_groups)
                return assignment
        if self.topology_aware and self.places_topology and assignment.representative_mode() != NO_FIT:
            # TAS-6: the TopologyAwareScheduling block at the end of assignFlavors.
            checks = {name: check.controller_name for name, check in self.cache.snapshot.admission_checks.items()}
            tas_assigner.assign_topology(self.cache.tas, self.cq.model, self.cache.flavors, self.workload, assignment,
                                         checks)
        if assignment.representative_mode() == NO_FIT:
            assignment.no_fit_reason = resolve_no_fit_reason(assignment, self.cq.model.resource_groups)
        return assignment

    def _requests(self, pod_set: PodSetInfo, count: int | None) -> tuple[int, dict[str, int]]:
        """A pod set's totals for this attempt: ScaledTo semantics, plus ``pods`` when covered (REQ-11)."""
        if count is None or pod_set.count == 0:
            count = pod_set.count
        requests = pod_set.total_for(count)
        if self.cq.covers("pods"):
            requests["pods"] = count
        return count, requests

    def _assign_group(self, members: list[tuple[PodSetInfo, dict[str, int], int]], assignment: Assignment) -> bool:
        """FA-15: members of a pod-set group share one assignment; False when the group fails."""
        summed: dict[str, int] = {}
        for _, requests, _ in members:
            for resource, value in requests.items():
                summed[resource] = sat_add(summed.get(resource, 0), value)
        indices = [pod_set.index for pod_set, _, _ in members]
        considered: dict[str, Attempt] = {}
        group_flavors: dict[str, FlavorChoice] | None = {}
        group_status = Status()
        for resource in resource_order(summed):
            if not self.cq.covers(resource) and (summed[resource] == 0 or self.ignore_undeclared):
                continue  # REQ-12
            assert group_flavors is not None
            if resource in group_flavors:
                continue
            flavors, status, attempts = self._find_flavor(indices, members, summed, resource, assignment.usage)
            _merge_attempts_for_resource(considered, attempts, resource, self.cq)
            if (status is not None and status.error is not None) or (not flavors and summed):
                group_flavors, group_status = None, status or Status()
                break
            group_flavors.update(flavors or {})
            if status is not None:
                group_status.add(status)
        final_attempts = sorted(considered.values(), key=lambda a: a.flavor)
        failed = False
        for pod_set, requests, count in members:
            own = {res: c for res, c in (group_flavors or {}).items() if res in requests} if requests else {}
            ps_assignment = PodSetAssignment(pod_set.name, pod_set.index, own, group_status, requests, count,
                                             final_attempts)
            assignment.append(requests, ps_assignment)
            if group_status.error is not None or (requests and not own):
                failed = True
        return not failed

    def _find_flavor(self, indices: list[int], members: list[tuple[PodSetInfo, dict[str, int], int]],
                     requests: dict[str, int], resource: str, assigned: dict[FlavorResource, int],
                     ) -> tuple[dict[str, FlavorChoice] | None, Status | None, list[Attempt]]:
        """FA-4..FA-10 for the resource group covering ``resource``."""
        group = self.cq.group_for(resource)
        if group is None:
            return None, Status([f"resource {resource} unavailable in ClusterQueue"]), []
        status = Status()
        covered = {r: v for r, v in requests.items() if r in group.covered}
        best: dict[str, FlavorChoice] | None = None
        best_mode = WORST
        attempts: list[Attempt] = []
        attempted = -1
        index = self.memory.next_index(indices[0], resource) if self.memory is not None else 0
        fungibility = self.cq.model.flavor_fungibility
        while index < len(group.flavors):
            attempted = index
            flavor = group.flavors[index]
            index += 1
            if self._skipped_by_nomination(flavor, members, resource):
                status.reasons.append(f"skipping flavor {flavor} as it is not found in the nomination mapping"
                                      f" for resource {resource}")
                continue
            if self.concurrent_admission and not self._allowed_for_variant(flavor):
                status.reasons.append(f"skipping flavor {flavor} due to WorkloadAllowedResourceFlavorAnnotation"
                                      " annotation")
                continue
            eligibility = self._check_flavor(flavor, members, group.covered)
            if not eligibility.is_fit:
                status.reasons.extend(eligibility.reasons)
                attempts.append(Attempt(flavor, NO_FIT, reasons=list(eligibility.reasons),
                                        no_fit_reason=NO_MATCHING_FLAVOR))
                if eligibility.error is not None:
                    status.error = eligibility.error
                    return None, status, attempts
                continue
            choices, mode, attempt = self._try_flavor(flavor, covered, assigned, status)
            attempts.append(attempt)
            if not should_try_next_flavor(mode, fungibility.when_can_borrow, fungibility.when_can_preempt):
                best, best_mode = choices, mode
                break
            if is_preferred(mode, best_mode, fungibility.preference):
                best, best_mode = choices, mode
        last = len(group.flavors) - 1
        for choice in (best or {}).values():
            choice.tried_index = -1 if attempted == last else attempted
        if best_mode.mode == P_FIT:
            return best, None, attempts
        return best, status, attempts

    def _try_flavor(self, flavor: str, requests: dict[str, int], assigned: dict[FlavorResource, int],
                    status: Status) -> tuple[dict[str, FlavorChoice], Granular, Attempt]:
        """FA-6, FA-9: every requested resource of the group on this flavor; the worst mode represents it."""
        choices: dict[str, FlavorChoice] = {}
        representative = BEST
        max_borrow = 0
        reasons: list[str] = []
        no_fit_reason = ""
        preference = self.cq.model.flavor_fungibility.preference
        for resource in resource_order(requests):
            fr = (flavor, resource)
            mode, borrow, quota_status = self._fits_quota(fr, assigned.get(fr, 0), requests[resource])
            if quota_status is not None:
                reasons.extend(quota_status.reasons)
                status.add(quota_status)
                no_fit_reason = most_severe(no_fit_reason, quota_status.no_fit_reason)
            max_borrow = max(max_borrow, borrow)
            granular = Granular(mode, borrow)
            if is_preferred(representative, granular, preference):
                representative = granular
            if representative.mode == P_NO_FIT:
                continue
            choices[resource] = FlavorChoice(flavor, public_mode(mode), borrow)
        attempt = Attempt(flavor, public_mode(representative.mode), max_borrow,
                          _POSSIBILITY.get(representative.mode), sorted(reasons), no_fit_reason)
        return choices, representative, attempt

    def _fits_quota(self, fr: FlavorResource, assumed: int, request: int) -> tuple[int, int, Status | None]:
        """FA-6: NoFit above potential, Fit within available, else ask the preemption oracle."""
        flavor, resource = fr
        capacity = self.cache.potential(self.cq, fr)
        value = sat_add(assumed, request)
        if value > capacity:
            message = (f"insufficient quota for {resource} in flavor {flavor}, previously considered podsets requests"
                       f" ({format_resource_value(resource, assumed, quota_side=True)}) + current podset request"
                       f" ({format_resource_value(resource, request)}) > maximum capacity"
                       f" ({format_resource_value(resource, capacity, quota_side=True)})")
            return P_NO_FIT, 0, Status([message], no_fit_reason=EXCEEDS_MAX_QUOTA)
        level, may_reclaim = self.cache.borrowing_level(self.cq, fr, value)
        # Whether it fits, not what is available: a fit does not depend on the figure (assignment_memo reuses it
        # while usage moves); only the shortfall's message reads the figure.
        if self.cache.fits_available(self.cq, fr, value):
            return P_FIT, level, None
        short = sat_sub(value, self.cache.available(self.cq, fr))
        missing = format_resource_value(resource, short, quota_side=True)
        status = Status([f"insufficient unused quota for {resource} in flavor {flavor}, {missing} more needed"],
                        no_fit_reason=WAITING_FOR_QUOTA, missing={fr: short})
        if self.cq.nominal(fr) >= value or may_reclaim or self._can_preempt_while_borrowing():
            possibility, level_after = self.oracle(fr, value)
            status.no_fit_reason = ""
            return _FROM_POSSIBILITY[possibility], level_after, status
        return P_NO_FIT, level, status

    def _can_preempt_while_borrowing(self) -> bool:
        """FA-6.4; DEF-4: a present but empty borrowWithinCohort policy counts as allowed."""
        preemption = self.cq.model.preemption
        borrow = preemption.borrow_within_cohort
        if borrow is not None and borrow.policy != "Never":
            return True
        return self.fair_sharing and preemption.reclaim_within_cohort != "Never"

    def _skipped_by_nomination(self, flavor: str, members: list[tuple[PodSetInfo, dict[str, int], int]],
                               resource: str) -> bool:
        """CYC-10: a recomputation only considers the flavors the workload was nominated with."""
        if not self.nomination:
            return False
        return all(self.nomination.get(ps.name, {}).get(resource) != flavor for ps, _, _ in members)

    def _allowed_for_variant(self, flavor: str) -> bool:
        allowed = allowed_flavors(self.workload)
        return allowed is None or flavor in allowed

    def eligibility(self, name: str, pod_sets: list[PodSetInfo], covered: tuple[str, ...] = ()) -> Status:
        """FA-5 for these pod sets on one flavor, whatever quota is used: TAS match, taints, node selection."""
        return self._check_flavor(name, [(pod_set, {}, pod_set.count) for pod_set in pod_sets], covered)

    def _check_flavor(self, name: str, members: list[tuple[PodSetInfo, dict[str, int], int]],
                      covered: tuple[str, ...] = ()) -> Status:
        """FA-5: TAS match (TAS-2), taints and node selection, for every pod set of the group."""
        flavor = self.cache.flavors.get(name)
        if flavor is None:
            return Status([f"flavor {name} not found"])
        for pod_set, _, _ in members:
            spec = pod_set.pod_spec
            if self.topology_aware:
                mismatch = tas_assigner.flavor_mismatch(self.cache.tas, self.cq.model, self.cache.flavors,
                                                        topology_request(self.workload, pod_set), spec, flavor,
                                                        covered)
                if mismatch is not None:
                    return Status([mismatch])
            listed = spec.get("tolerations")  # any JSON value in a snapshot no API server checked
            tolerations = [t for t in listed if isinstance(t, Mapping)] if isinstance(listed, list) else []
            taint = first_untolerated_taint(flavor.node_taints, [*tolerations, *flavor.tolerations])
            if taint is not None:
                return Status([f"untolerated taint {taint_text(taint)} in flavor {name}"])
            try:
                matches = flavor_matches_pod(spec, flavor.node_labels)
            except SelectorError as exc:
                return Status(error=str(exc))
            if not matches:
                return Status([f"flavor {name} doesn't match node affinity"])
        return Status()



def _merge_attempts_for_resource(considered: dict[str, Attempt], attempts: list[Attempt], resource: str,
                                 cq: ClusterQueueState) -> None:
    """CYC-18: attempts merged per flavor over the resources evaluated on it."""
    for attempt in attempts:
        existing = considered.get(attempt.flavor)
        if existing is None:
            considered[attempt.flavor] = Attempt(attempt.flavor, attempt.mode, attempt.borrow, attempt.possibility,
                                                 sorted(set(attempt.reasons)), attempt.no_fit_reason)
            continue
        possibility = existing.possibility
        if attempt.possibility is not None and (possibility is None or _rank_possibility(attempt.possibility)
                                                < _rank_possibility(possibility)):
            possibility = attempt.possibility
        considered[attempt.flavor] = Attempt(
            attempt.flavor, min(existing.mode, attempt.mode, key=MODE_RANK.__getitem__),
            max(existing.borrow, attempt.borrow), possibility, sorted(set(existing.reasons) | set(attempt.reasons)),
            most_severe(existing.no_fit_reason, attempt.no_fit_reason))
    if not attempts:
        return
    group = cq.group_for(resource)
    present = {a.flavor for a in attempts}
    for flavor, attempt in list(considered.items()):
        if group is not None and flavor in group.flavors and flavor not in present:
            message = f"flavor {flavor} does not provide resource {resource}"
            considered[flavor] = Attempt(flavor, NO_FIT, attempt.borrow, attempt.possibility,
                                         sorted(set(attempt.reasons) | {message}), NO_MATCHING_FLAVOR)


def _rank_possibility(possibility: str) -> int:
    return _FROM_POSSIBILITY[possibility]


