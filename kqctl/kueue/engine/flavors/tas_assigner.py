"""The TAS step of flavor assignment (rule set TAS, TAS-2 and TAS-6): Kueue's tas_flavorassigner.go.

Flavor assignment asks two things of Topology-Aware Scheduling: whether a flavor can serve a pod
set at all (TAS-2, while flavors are scanned) and, once flavors are chosen, where the pods of the
TAS pod sets go (TAS-6, the block at the end of ``assignFlavors``), which may turn a quota ``Fit``
into ``Preempt`` or ``NoFit``. The topology itself (domains, node usage, the placement search) is
the topology cache's (tas_cache.py), which knows nothing of assignments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kqctl.k8s.names import go_quote
from kqctl.kueue.api.models import (
    MULTIKUEUE_CONTROLLER,
    PROVISIONING_CONTROLLER,
    ClusterQueue,
    ResourceFlavor,
)
from kqctl.kueue.engine.flavors.assignment import (
    FIT,
    NO_FIT,
    PREEMPT,
    TOPOLOGY_PLACEMENT_FAILED,
    Assignment,
    PodSetAssignment,
)
from kqctl.kueue.engine.tas_cache import (
    DomainUsage,
    PlacementError,
    PodSetRequest,
    PodSetResult,
    TASCache,
    TASFlavor,
    TASUsage,
    domain_id,
    find_assignments,
    first_failure,
    is_tas_implied,
    is_tas_only,
    is_tas_requested,
    single_pod_requests,
    topology_request,
)
from kqctl.kueue.engine.workloads import PodSetInfo, WorkloadInfo

# TAS errors of a pod set (flavorassigner/errors.go).
ERR_NO_TAS_CACHE = "workload requires Topology, but there is no TAS cache information"
ERR_NO_TAS_FLAVOR = "no TAS flavor assigned"


# --- TAS-2: flavor eligibility ---------------------------------------------------------------------------


def flavor_mismatch(cache: TASCache, cq: ClusterQueue, flavors: Mapping[str, ResourceFlavor],
                    request: Mapping[str, Any] | None, pod_spec: Mapping[str, Any], flavor: ResourceFlavor,
                    covered: Iterable[str]) -> str | None:
    """TAS-2 ``checkPodSetAndFlavorMatchForTAS``: why ``flavor`` cannot serve this pod set, if it cannot."""
    tas_only = is_tas_only(cq, flavors)
    if is_tas_requested(request, tas_only):
        if is_tas_implied(request, tas_only):
            return None
        if flavor.topology_name is None:
            if not set(single_pod_requests(pod_spec)) & set(covered):
                return None
            return f"Flavor {go_quote(flavor.name)} does not support TopologyAwareScheduling"
        snapshot = cache.flavors.get(flavor.name)
        if snapshot is None:
            return f"Flavor {go_quote(flavor.name)} information missing in TAS cache"
        if not snapshot.has_level(request):
            return f"Flavor {go_quote(flavor.name)} does not contain the requested level"
        return None
    if flavor.topology_name is not None:
        return f"Flavor {go_quote(flavor.name)} supports only TopologyAwareScheduling"
    return None



# --- TAS-6: flavor assignment and the scheduler ----------------------------------------------------------


def workload_requests(cache: TASCache, cq: ClusterQueue, flavors: Mapping[str, ResourceFlavor],
                      workload: WorkloadInfo, assignment: Assignment,
                      admission_checks: Mapping[str, str]) -> dict[str, list[PodSetRequest]]:
    """``WorkloadsTopologyRequests``: the TAS pod sets of the assignment by flavor (errors end a pod set)."""
    tas_only = is_tas_only(cq, flavors)
    cq_flavors = cache.cq_flavors(cq)
    by_flavor: dict[str, list[PodSetRequest]] = {}
    for pod_set in workload.pod_sets:
        request = topology_request(workload, pod_set)
        if not is_tas_requested(request, tas_only):
            continue
        ps = _by_name(assignment, pod_set.name)
        if ps is None or ps.status.error is not None or ps.count == 0:
            continue
        if ps.topology is not None:
            continue  # computed already
        try:
            found = _pod_set_request(ps, pod_set, request, tas_only, cq, cq_flavors, admission_checks)
        except PlacementError as exc:
            ps.status.error = str(exc)  # Assignment.psError
            assignment.mode_override = None
            continue
        if found is not None:
            by_flavor.setdefault(found.flavor, []).append(found)
    return by_flavor


def _pod_set_request(ps: PodSetAssignment, pod_set: PodSetInfo, request: Mapping[str, Any] | None,
                     tas_only: bool, cq: ClusterQueue, cq_flavors: Mapping[str, TASFlavor],
                     admission_checks: Mapping[str, str]) -> PodSetRequest | None:
    """``podSetTopologyRequest``; None when the topology is assigned later (MultiKueue, ProvisioningRequest)."""
    if not cq_flavors:
        raise PlacementError(ERR_NO_TAS_CACHE)
    flavor = only_tas_flavor({c.flavor for c in ps.flavors.values()}, cq_flavors)
    delayed = [name for name, applies in cq.admission_checks.items()
               if admission_checks.get(name) == MULTIKUEUE_CONTROLLER
               or (admission_checks.get(name) == PROVISIONING_CONTROLLER and flavor in applies)]
    if delayed:
        return None  # DelayedTopologyRequest: the second scheduling pass is not modelled
    group = request.get("podSetGroupName") if request is not None else None
    return PodSetRequest(pod_set.name, request, pod_set.pod_spec, single_pod_requests(pod_set.pod_spec), ps.count,
                         flavor, is_tas_implied(request, tas_only), group if isinstance(group, str) else None)


def only_tas_flavor(assigned: Iterable[str], cq_flavors: Mapping[str, TASFlavor]) -> str:
    """``onlyTASFlavor``: the one TAS flavor among a pod set's flavors."""
    found = sorted({name for name in assigned if name in cq_flavors})
    if not found:
        raise PlacementError(ERR_NO_TAS_FLAVOR)
    if len(found) > 1:
        raise PlacementError(f"more than one TAS flavor assigned: {', '.join(found)}")
    return found[0]


def _by_name(assignment: Assignment, name: str) -> PodSetAssignment | None:
    return next((ps for ps in assignment.pod_sets if ps.name == name), None)


def net_usage(cache: TASCache, assignment: Assignment, workload: WorkloadInfo) -> TASUsage:
    """``ComputeTASNetUsage`` for a workload without an admission: every pod of every placed pod set."""
    usage: list[DomainUsage] = []
    specs = {ps.name: ps.pod_spec for ps in workload.pod_sets}
    for ps in assignment.pod_sets:
        if ps.topology is None or ps.name not in specs:
            continue
        try:
            flavor = only_tas_flavor({c.flavor for c in ps.flavors.values()}, cache.flavors)
        except PlacementError:
            continue
        per_pod = single_pod_requests(specs[ps.name])
        usage.extend(DomainUsage(flavor, domain_id(d.values), per_pod, d.count)
                     for d in ps.topology.domains if d.count > 0)
    return tuple(usage)


def update_for_result(cache: TASCache, assignment: Assignment, workload: WorkloadInfo,
                      results: Mapping[str, PodSetResult]) -> None:
    """``Assignment.UpdateForTASResult``."""
    for name, result in results.items():
        ps = _by_name(assignment, name)
        if ps is not None:
            ps.topology = result.assignment
    assignment.tas_usage = net_usage(cache, assignment, workload)


def set_mode(assignment: Assignment, ps: PodSetAssignment, mode: str) -> None:
    """``Assignment.updateMode``: every flavor of the pod set, and the representative mode."""
    for choice in ps.flavors.values():
        choice.mode = mode
    assignment.mode_override = mode


def assign_topology(cache: TASCache, cq: ClusterQueue, flavors: Mapping[str, ResourceFlavor],
                    workload: WorkloadInfo, assignment: Assignment, admission_checks: Mapping[str, str]) -> None:
    """TAS-6: the TAS block at the end of ``assignFlavors`` (the assignment is not NoFit)."""
    requests = workload_requests(cache, cq, flavors, workload, assignment, admission_checks)
    if assignment.representative_mode() == FIT:
        results = find_assignments(cache, requests)
        failure = first_failure(results)
        if failure is None:
            update_for_result(cache, assignment, workload, results)
        else:
            ps = _by_name(assignment, failure[0])
            assert ps is not None
            ps.status.reasons.append(failure[1].failure)
            set_mode(assignment, ps, PREEMPT)
    if assignment.representative_mode() == PREEMPT:
        results = find_assignments(cache, requests, simulate_empty=True)
        failure = first_failure(results)
        if failure is None:
            for pod_sets in requests.values():
                for request in pod_sets:
                    ps = _by_name(assignment, request.name)
                    if ps is not None:
                        set_mode(assignment, ps, PREEMPT)
            return
        ps = _by_name(assignment, failure[0])
        assert ps is not None
        for attempt in ps.attempts:  # markFlavorAttempt
            if attempt.flavor == failure[1].flavor:
                attempt.mode, attempt.no_fit_reason = NO_FIT, TOPOLOGY_PLACEMENT_FAILED
                break
        set_mode(assignment, ps, NO_FIT)
