"""The topology cache of Topology-Aware Scheduling (rule set TAS): Kueue's TAS cache and flavor snapshots.

§0.3 keeps TAS out of kqctl v1's scope, but a pod set that asks for a topology changes which
flavor it gets: Kueue's flavor assigner places its pods on the Nodes of the chosen TAS flavor
and turns a quota ``Fit`` into ``Preempt`` (or ``NoFit``) when they do not fit there. This
module holds the topology side of that (which flavors are TAS flavors, their domain trees, node
usage and the placement search); the step of flavor assignment that uses it (TAS-2, TAS-6) is
flavors/tas_assigner.py, as in Kueue the cache never depends on the flavor assigner:

* TAS-1 which flavors are TAS flavors: a ResourceFlavor with ``topologyName`` whose Topology
  exists (Kueue's TAS cache); a ClusterQueue is *TAS-only* when every flavor of its resource
  groups has a ``topologyName`` (``clusterQueue.isTASOnly``), and a pod set then requests TAS
  implicitly (``isTASImplied``);
* TAS-2 ``checkPodSetAndFlavorMatchForTAS`` (in flavors/tas_assigner.py): a TAS pod set only takes
  TAS flavors having the requested level, a non-TAS pod set never takes a TAS flavor;
* TAS-3 the domain tree of a flavor (``newTopologyTree``): its Nodes that are Ready, schedulable
  and carry the flavor's node labels and every level label; a leaf's capacity is its Nodes'
  allocatable;
* TAS-4 usage (``TASFlavorCache.usage``): every admitted pod placed on a leaf holds its pod
  requests plus one ``pods``; for topologies whose lowest level is the hostname the usage of all
  TAS flavors adds up per node (``TASHandleOverlappingFlavors``);
* TAS-5 placement of one pod set (``findTopologyAssignment``): nodes filtered by taints, node
  selector and required affinity, pods counted per leaf and summed up the tree, then the level
  that fits (required / preferred / unconstrained, BestFit or LeastFreeCapacity under
  ``TASProfileMixed``, slices of ``podSetSliceSize`` pods) and the descent to the leaves, with
  Kueue's failure messages;
* TAS-6 ``FindTopologyAssignmentsForWorkload`` and the TAS part of ``ClusterQueueSnapshot.Fits``
  here; the TAS block at the end of ``assignFlavors`` and ``ComputeTASNetUsage`` in
  flavors/tas_assigner.py; ``updateAssignmentForTAS`` in the cycle, which places a nominated workload
  again when an earlier admission of the cycle took its nodes only with the gate
  TASRecomputeAssignmentWithinSchedulingCycle (default on);
* TAS-7 preemption (preemption/targets.py ``workload_fits``, Kueue's ``workloadFits``): a set of victims is
  enough only when, besides the quota, the preemptor's TAS pod sets can then be placed on the nodes as the
  victims taken out so far leave them (the preemptor's ``WorkloadsTopologyRequests``).

The other TAS gates but TopologyAwareScheduling keep Kueue's defaults (TASProfileMixed,
TASMultiLayerTopology, TASHandleOverlappingFlavors on; TASBalancedPlacement,
TASRespectNodeAffinityPreferred off). Not modelled: a leader and its workers (two pod sets of one
``podSetGroupName``) are placed one after the other, not together;
capacity used by Pods Kueue does not manage; the second scheduling pass (topology requests
delayed by MultiKueue or ProvisioningRequest checks, failed-node replacement); PodSetUpdates of
admission checks; elastic workload slices; and within one cycle, usage on a node shared by
several TAS flavors is seen by all of them at once (Kueue's per-flavor snapshots see it from the
next cycle).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kqctl.k8s.names import go_quote
from kqctl.k8s.pods import Resources, pod_requests, read_pod_resources
from kqctl.k8s.quantity import sat_add, sat_sub
from kqctl.k8s.selectors import first_untolerated_taint
from kqctl.kueue.api.models import ClusterQueue, Node, ResourceFlavor, Topology, TopologyAssignment, TopologyDomain
from kqctl.kueue.engine.workloads import PodSetInfo, WorkloadInfo

HOSTNAME = "kubernetes.io/hostname"
PODS = "pods"
MAX_INT32 = (1 << 31) - 1

# Kueue's defaults at the reference commit for the TAS gates kqctl does not take (§0.2).
PROFILE_MIXED = True  # TASProfileMixed (beta): unconstrained requests use LeastFreeCapacity

# ``ClusterQueueSnapshot.Fits`` outcomes (FitsCheck).
FITS_OK = "Ok"
FITS_NO_QUOTA = "NoQuota"
FITS_NO_TAS = "NoTAS"



# --- TAS-1: requests -----------------------------------------------------------------------------------


def topology_request(workload: WorkloadInfo, pod_set: PodSetInfo) -> Mapping[str, Any] | None:
    raw = workload.model.pod_sets[pod_set.index].topology_request
    return raw if isinstance(raw, Mapping) else None


def slice_constraints(request: Mapping[str, Any] | None) -> list[tuple[str, int]]:
    """``tas.PodSetSliceRequiredTopologyConstraints``: the multi-layer list, else the legacy pair."""
    if request is None:
        return []
    layers = request.get("podsetSliceRequiredTopologyConstraints")
    if isinstance(layers, list) and layers:
        return [(str(layer.get("topology", "")), _int(layer.get("size"))) for layer in layers
                if isinstance(layer, Mapping)]
    level = request.get("podSetSliceRequiredTopology")
    if not isinstance(level, str):
        return []
    return [(level, _int(request.get("podSetSliceSize")))]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def explicitly_requests_tas(request: Mapping[str, Any] | None) -> bool:
    """``workload.IsExplicitlyRequestingTAS`` for one pod set (``podSetGroupName`` alone is not TAS)."""
    if request is None:
        return False
    keys = ("unconstrained", "required", "preferred", "podSetSliceRequiredTopology", "podSetSliceSize")
    return any(request.get(key) is not None for key in keys) or bool(
        request.get("podsetSliceRequiredTopologyConstraints"))


def workload_requests_tas(workload: WorkloadInfo) -> bool:
    return any(explicitly_requests_tas(topology_request(workload, ps)) for ps in workload.pod_sets)


def is_tas_only(cq: ClusterQueue, flavors: Mapping[str, ResourceFlavor]) -> bool:
    """TAS-1 ``clusterQueue.isTASOnly``: every flavor of every resource group has a topologyName."""
    for name in cq.flavors:
        flavor = flavors.get(name)
        if flavor is None or flavor.topology_name is None:
            return False
    return True


def is_tas_implied(request: Mapping[str, Any] | None, tas_only: bool) -> bool:
    return not explicitly_requests_tas(request) and tas_only


def is_tas_requested(request: Mapping[str, Any] | None, tas_only: bool) -> bool:
    return explicitly_requests_tas(request) or is_tas_implied(request, tas_only)


def _level_key(request: Mapping[str, Any] | None, levels: Sequence[str]) -> str | None:
    """``TASFlavorSnapshot.levelKey``: required, preferred, slice-only (highest), unconstrained (lowest)."""
    if request is None:
        return None
    for key in ("required", "preferred"):
        if isinstance(request.get(key), str):
            return str(request[key])
    if _slice_only(request):
        return levels[0]
    if request.get("unconstrained") is True:
        return levels[-1]
    return None


def _slice_only(request: Mapping[str, Any] | None) -> bool:
    if request is None or request.get("required") is not None or request.get("preferred") is not None:
        return False
    return bool(slice_constraints(request))


# --- TAS-3: the domain tree of a flavor ---------------------------------------------------------------


@dataclass(eq=False)
class Domain:
    """A topology domain (``domain``/``leafDomain``) with the scratch counts of one placement."""

    id: str
    values: tuple[str, ...]
    parent: Domain | None = None
    children: list[Domain] = field(default_factory=list)
    node: Node | None = None  # leaves of a topology whose lowest level is the hostname
    capacity: dict[str, int] = field(default_factory=dict)  # leaves: the Nodes' allocatable
    pod_count: int = 0
    slice_count: int = 0


def domain_id(values: Iterable[str]) -> str:
    """``tas.DomainID``: the level values joined by commas."""
    return ",".join(values)


@dataclass(eq=False)
class TASFlavor:
    """One TAS flavor: its Topology's levels and the tree of its Nodes (``TASFlavorCache``)."""

    name: str
    topology: str
    levels: tuple[str, ...]
    tolerations: tuple[Any, ...]
    leaves: dict[str, Domain] = field(default_factory=dict)
    per_level: list[dict[str, Domain]] = field(default_factory=list)
    roots: dict[str, Domain] = field(default_factory=dict)

    @property
    def lowest_is_node(self) -> bool:
        return bool(self.levels) and self.levels[-1] == HOSTNAME

    def usage_key(self, domain: str) -> tuple[str, str]:
        """TAS-4: hostname leaves share usage across flavors (TASHandleOverlappingFlavors)."""
        return ("", domain) if self.lowest_is_node else (self.name, domain)

    def domains(self) -> Iterable[Domain]:
        for level in self.per_level:
            yield from level.values()

    @classmethod
    def build(cls, flavor: ResourceFlavor, topology: Topology, nodes: Iterable[Node]) -> TASFlavor:
        """TAS-3 ``nodesCache.find`` + ``newTopologyTree`` (nodes in name order)."""
        result = cls(flavor.name, topology.name, topology.levels, flavor.tolerations,
                     per_level=[{} for _ in topology.levels])
        if not topology.levels:
            return result
        for node in sorted(nodes, key=lambda n: n.name):
            if node.unschedulable or not node.ready:
                continue  # nodesCache.sync drops them (SchedulerLibraryIntegration is off)
            if not _node_matches_flavor(node, flavor.node_labels, topology.levels):
                continue
            result._add_node(node)
        for leaf in result.leaves.values():
            result.per_level[len(leaf.values) - 1][leaf.id] = leaf
            result._link(leaf)
        return result

    def _add_node(self, node: Node) -> None:
        values = tuple(node.labels.get(level, "") for level in self.levels)
        leaf_id = node.labels.get(HOSTNAME, "") if self.lowest_is_node else domain_id(values)
        leaf = self.leaves.get(leaf_id)
        if leaf is None:
            leaf = self.leaves[leaf_id] = Domain(leaf_id, values, node=node if self.lowest_is_node else None)
        for resource, value in node.allocatable.items():
            leaf.capacity[resource] = sat_add(leaf.capacity.get(resource, 0), value)

    def _link(self, domain: Domain) -> None:
        if len(domain.values) == 1:
            self.roots[domain.id] = domain
            return
        parent_values = domain.values[:-1]
        parent_id = domain_id(parent_values)
        level = self.per_level[len(parent_values) - 1]
        parent = level.get(parent_id)
        if parent is None:
            parent = level[parent_id] = Domain(parent_id, parent_values)
            self._link(parent)
        domain.parent = parent
        parent.children.append(domain)

    def has_level(self, request: Mapping[str, Any] | None) -> bool:
        """``TASFlavorSnapshot.HasLevel``: the requested level, the slice level and every layer exist."""
        if not self.levels:
            return False
        main = _level_key(request, self.levels)
        if main is None:
            return False
        layers = slice_constraints(request)
        slice_level = layers[0][0] if layers else self.levels[-1]
        return all(level in self.levels for level in (main, slice_level, *(topology for topology, _ in layers)))


def _node_matches_flavor(node: Node, node_labels: Mapping[str, str], levels: Sequence[str]) -> bool:
    """``tas.NodeMatchesFlavor``."""
    return all(node.labels.get(k) == v for k, v in node_labels.items()) and all(lvl in node.labels for lvl in levels)


# --- TAS-4: usage ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DomainUsage:
    """``workload.TopologyDomainRequests`` of one TAS flavor: ``count`` pods on one leaf."""

    flavor: str
    domain: str
    per_pod: Mapping[str, int]
    count: int

    def total(self) -> dict[str, int]:
        """Requests of all its pods, plus one ``pods`` per pod (``updateTASUsage``)."""
        result = scale(self.per_pod, self.count)
        result[PODS] = sat_add(result.get(PODS, 0), self.count)
        return result


TASUsage = tuple[DomainUsage, ...]


def scale(per_pod: Mapping[str, int], count: int) -> dict[str, int]:
    return {name: value * count for name, value in per_pod.items()}


def add_into(target: dict[str, int], amounts: Mapping[str, int], sign: int = 1) -> None:
    for name, value in amounts.items():
        target[name] = sat_add(target.get(name, 0), value) if sign > 0 else sat_sub(target.get(name, 0), value)


def single_pod_requests(pod_spec: Mapping[str, Any]) -> Resources:
    """``resources.NewRequestsFromPodSpec``: the pod's requests, without LimitRanges or transformations."""
    return pod_requests(read_pod_resources(pod_spec))


class TASCache:
    """TAS flavors and the node usage of admitted workloads, updated with the quota cache."""

    def __init__(self, flavors: Mapping[str, ResourceFlavor], topologies: Mapping[str, Topology],
                 nodes: Mapping[str, Node], enabled: bool = True) -> None:
        self.enabled = enabled
        self.flavors: dict[str, TASFlavor] = {}
        if enabled:
            for name in sorted(flavors):
                flavor = flavors[name]
                topology = topologies.get(flavor.topology_name) if flavor.topology_name is not None else None
                if topology is not None:
                    self.flavors[name] = TASFlavor.build(flavor, topology, nodes.values())
        self.usage: dict[tuple[str, str], dict[str, int]] = {}
        # Per workload key: the TAS usage its admission holds, and its topology assignments by pod set.
        self.placements: dict[str, TASUsage] = {}
        self.assignments: dict[str, dict[str, TopologyAssignment]] = {}
        self._held: dict[str, TASUsage] = {}

    # --- admitted workloads (clusterQueue.updateWorkloadTASUsage) ------------------------------------

    def add_workload(self, workload: WorkloadInfo) -> None:
        if not self.enabled:
            return
        if workload.key not in self.placements:
            self.placements[workload.key], self.assignments[workload.key] = self._from_model(workload)
        self.remove_workload(workload)  # TASFlavorCache.addUsage self-heals a double add
        usage = self.placements[workload.key]
        if usage:
            self._held[workload.key] = usage
            self.add_usage(usage)

    def remove_workload(self, workload: WorkloadInfo) -> None:
        usage = self._held.pop(workload.key, ())
        self.remove_usage(usage)

    def admit(self, workload: WorkloadInfo, usage: TASUsage, placements: Mapping[str, TopologyAssignment]) -> None:
        """A workload admitted by the simulation holds the node usage of its topology assignments (TAS-4)."""
        if not self.enabled:
            return
        self.placements[workload.key] = usage
        self.assignments[workload.key] = dict(placements)
        self.add_workload(workload)

    def _from_model(self, workload: WorkloadInfo) -> tuple[TASUsage, dict[str, TopologyAssignment]]:
        """``workload.Info.TASUsage`` of an admission read from the snapshot."""
        admission = workload.model.admission
        if admission is None:
            return (), {}
        specs = {ps.name: ps.template for ps in workload.model.pod_sets}
        usage: list[DomainUsage] = []
        assignments: dict[str, TopologyAssignment] = {}
        for psa in admission.pod_set_assignments:
            if psa.topology_assignment is None:
                continue
            assignments[psa.name] = psa.topology_assignment
            template = specs.get(psa.name)
            spec = template.get("spec") if isinstance(template, Mapping) else None
            per_pod = single_pod_requests(spec if isinstance(spec, Mapping) else {})
            for flavor in sorted(set(psa.flavors.values())):
                if flavor in self.flavors:
                    usage.extend(DomainUsage(flavor, domain_id(d.values), per_pod, d.count)
                                 for d in psa.topology_assignment.domains)
        return tuple(usage), assignments

    # --- usage ------------------------------------------------------------------------------------------

    def add_usage(self, usage: Iterable[DomainUsage], sign: int = 1) -> None:
        for item in usage:
            flavor = self.flavors.get(item.flavor)
            if flavor is None:
                continue
            add_into(self.usage.setdefault(flavor.usage_key(item.domain), {}), item.total(), sign)

    def remove_usage(self, usage: Iterable[DomainUsage]) -> None:
        self.add_usage(usage, -1)

    def remaining(self, flavor: TASFlavor, leaf: Domain, simulate_empty: bool = False) -> dict[str, int]:
        """A leaf's free capacity; ``simulate_empty`` ignores TAS usage (``remainingCapacityForLeaf``)."""
        remaining = dict(leaf.capacity)
        if not simulate_empty:
            add_into(remaining, self.usage.get(flavor.usage_key(leaf.id), {}), -1)
        return remaining

    def fits(self, usage: Iterable[DomainUsage]) -> bool:
        """TAS part of ``ClusterQueueSnapshot.Fits`` (``TASFlavorSnapshot.Fits``)."""
        for item in usage:
            flavor = self.flavors.get(item.flavor)
            if flavor is None:
                continue
            leaf = flavor.leaves.get(item.domain)
            if leaf is None:
                return False
            if count_in(item.per_pod, self.remaining(flavor, leaf))[0] < item.count:
                return False
        return True

    # --- per ClusterQueue ------------------------------------------------------------------------------

    def cq_flavors(self, cq: ClusterQueue) -> dict[str, TASFlavor]:
        """``ClusterQueueSnapshot.TASFlavors``: the TAS flavors the ClusterQueue uses."""
        return {name: self.flavors[name] for name in dict.fromkeys(cq.flavors) if name in self.flavors}


def count_in(requests: Mapping[str, int], capacity: Mapping[str, int]) -> tuple[int, str]:
    """``CountInWithLimitingResource``: how many times ``requests`` fit, and the limiting resource."""
    best: int | None = None
    limiting = ""
    for name in sorted(requests):
        value = requests[name]
        count = MAX_INT32 if value == 0 else max(0, min(_go_div(capacity.get(name, 0), value), MAX_INT32))
        if best is None or count < best:
            best, limiting = count, name
    return (best or 0), limiting


def _go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


# --- TAS-5: placing one pod set -------------------------------------------------------------------------


@dataclass
class PodSetRequest:
    """``TASPodSetRequests``: one pod set to place on one TAS flavor."""

    name: str
    request: Mapping[str, Any] | None
    pod_spec: Mapping[str, Any]
    per_pod: Resources
    count: int
    flavor: str
    implied: bool
    group: str | None


@dataclass
class ExclusionStats:
    """``tasExclusionStats``: why nodes could not take a single pod."""

    total_nodes: int = 0
    node_selector: int = 0
    affinity: int = 0
    topology_domain: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def has_exclusions(self) -> bool:
        return bool(self.node_selector or self.affinity or self.taints or self.topology_domain or self.resources)

    def reasons(self) -> str:
        parts: list[str] = []
        if self.node_selector:
            parts.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            parts.append(f"affinity: {self.affinity}")
        if self.topology_domain:
            parts.append(f"topologyDomain: {self.topology_domain}")
        parts.extend(f"taint {go_quote(t)}: {n}" for t, n in sorted(self.taints.items()))
        parts.extend(f"resource {go_quote(r)}: {n}" for r, n in sorted(self.resources.items()))
        return ", ".join(sorted(parts))


class PlacementError(Exception):
    """A pod set that cannot be placed; the message is Kueue's failure reason."""


@dataclass
class Placer:
    """``TASFlavorSnapshot.findTopologyAssignment`` for one pod set without a leader."""

    cache: TASCache
    flavor: TASFlavor
    request: PodSetRequest
    assumed: Mapping[str, Mapping[str, int]]
    simulate_empty: bool
    stats: ExclusionStats = field(default_factory=ExclusionStats)
    count: int = 0
    slice_size: int = 1
    slice_level: int = 0
    sizes_at_level: dict[int, int] = field(default_factory=dict)
    layers: list[tuple[str, int]] = field(default_factory=list)
    required: bool = False
    unconstrained: bool = False

    @property
    def least_free(self) -> bool:
        return self.unconstrained and PROFILE_MIXED

    def place(self) -> TopologyAssignment:
        levels = self.flavor.levels
        request = self.request.request
        if not levels:
            raise PlacementError("topology level not specified")
        self.count = self.request.count
        self.layers = slice_constraints(request)
        self.slice_size = self.layers[0][1] if self.layers else 1
        if self.layers and self.slice_size <= 0:
            raise PlacementError("slice topology requested, but slice size not provided")
        self.required = request is not None and request.get("required") is not None
        self.unconstrained = (request is not None and request.get("unconstrained") is True) or \
            self.request.implied or _slice_only(request)
        key = _level_key(request, levels)
        if key is None and self.request.implied:
            key = levels[-1]  # levelKeyWithImpliedFallback
        if key is None:
            raise PlacementError("topology level not specified")
        if key not in levels:
            raise PlacementError(f"no requested topology level: {key}")
        requested_level = levels.index(key)
        slice_key = self.layers[0][0] if self.layers else levels[-1]
        if slice_key not in levels:
            raise PlacementError(f"no requested topology level for slices: {slice_key}")
        self.slice_level = levels.index(slice_key)
        if requested_level > self.slice_level:
            raise PlacementError(f"podset slice topology {slice_key} is above the podset topology {key}")
        self.sizes_at_level = self._sizes_at_level()
        self._fill_in_counts()
        fit_level, fit = self._find_level(requested_level)
        return self._descend(fit_level, fit)

    def _sizes_at_level(self) -> dict[int, int]:
        """``buildSliceSizeAtLevel``: inner slice layers (TASMultiLayerTopology)."""
        result: dict[int, int] = {}
        levels = self.flavor.levels
        previous_size, previous_level = self.slice_size, self.slice_level
        for topology, size in self.layers[1:]:
            if topology not in levels:
                raise PlacementError(f"no requested topology level for additional slice layer: {topology}")
            level = levels.index(topology)
            if level <= previous_level:
                raise PlacementError(f"additional slice layer topology {topology} must be at a lower level than"
                                     f" {levels[previous_level]}")
            if size <= 0 or previous_size % size != 0:
                raise PlacementError(f"additional slice layer size {size} must evenly divide parent layer size"
                                     f" {previous_size}")
            for lvl in range(previous_level + 1, level + 1):
                result[lvl] = size
            previous_size, previous_level = size, level
        return result

    # phase 1: pods (and slices) that fit in every domain

    def _fill_in_counts(self) -> None:
        for domain in self.flavor.domains():
            domain.pod_count = domain.slice_count = 0
        requests = dict(self.request.per_pod)
        requests[PODS] = sat_add(requests.get(PODS, 0), 1)  # resources.OnePodRequest
        for leaf in self._matching_leaves():
            remaining = self.cache.remaining(self.flavor, leaf, self.simulate_empty)
            add_into(remaining, self.assumed.get(leaf.id, {}), -1)
            leaf.pod_count, limiting = count_in(requests, remaining)
            if leaf.pod_count == 0 and limiting:
                self.stats.resources[limiting] = self.stats.resources.get(limiting, 0) + 1
        for root in self.flavor.roots.values():
            self._fill_helper(root, 0)

    def _matching_leaves(self) -> list[Domain]:
        """``getMatchingLeaves`` / the default simulator's ``FindFeasibleNodes``."""
        leaves = list(self.flavor.leaves.values())
        self.stats.total_nodes += len(leaves)
        if not self.flavor.lowest_is_node:
            return leaves
        spec = self.request.pod_spec
        tolerations = [t for t in (spec.get("tolerations") or []) if isinstance(t, Mapping)]
        tolerations.extend(self.flavor.tolerations)
        raw_selector = spec.get("nodeSelector")
        selector: Mapping[str, Any] = raw_selector if isinstance(raw_selector, Mapping) else {}
        terms = _required_affinity(spec)
        result: list[Domain] = []
        for leaf in leaves:
            node = leaf.node
            if node is None:
                result.append(leaf)
                continue
            taint = first_untolerated_taint(node.taints, tolerations)
            if taint is not None:
                text = taint_string(taint.key, taint.value, taint.effect)
                self.stats.taints[text] = self.stats.taints.get(text, 0) + 1
                continue
            if not all(node.labels.get(k) == v for k, v in selector.items()):
                self.stats.node_selector += 1
                continue
            if terms is not None and not _affinity_matches(terms, node):
                self.stats.affinity += 1
                continue
            result.append(leaf)
        return result

    def _fill_helper(self, domain: Domain, level: int) -> None:
        """``fillInCountsHelper`` without leaders."""
        if not domain.children:
            if level == self.slice_level:
                domain.slice_count = domain.pod_count // self.slice_size
            return
        inner = self.sizes_at_level.get(level + 1)
        pods = slices = 0
        for child in domain.children:
            self._fill_helper(child, level + 1)
            pods += (child.pod_count // inner) * inner if inner else child.pod_count
            slices += child.slice_count
        domain.pod_count = pods
        domain.slice_count = pods // self.slice_size if level == self.slice_level else slices

    # phase 2a: the level that fits

    def _find_level(self, level: int) -> tuple[int, list[Domain]]:
        """``findLevelWithFitDomains`` without leaders."""
        domains = list(self.flavor.per_level[level].values())
        if not domains:
            raise PlacementError(f"no topology domains at level: {self.flavor.levels[level]}")
        ordered = self._sorted(domains)
        top = ordered[0]
        needed = self.count // self.slice_size
        if not self.least_free and top.slice_count >= needed:
            top = _best_fit(ordered, needed, slices=True)
        if self.least_free:
            for candidate in ordered:
                if candidate.slice_count >= needed:
                    return level, [candidate]
            if self.required:
                raise PlacementError(self._not_fit(level, ordered[-1].pod_count, needed))
        if top.slice_count >= needed:
            return level, [top]
        if self.required:
            raise PlacementError(self._not_fit(level, top.slice_count, needed))
        if level > 0 and not self.unconstrained:
            return self._find_level(level - 1)
        results: list[Domain] = []
        remaining = needed
        ordered = self._sorted(ordered)
        for i, domain in enumerate(ordered):
            if remaining <= 0:
                break
            if not self.least_free and domain.slice_count >= remaining:
                domain = _best_fit(ordered[i:], remaining, slices=True)
            results.append(domain)
            remaining -= domain.slice_count
        if remaining > 0:
            raise PlacementError(self._not_fit(level, needed - remaining, needed))
        return level, results

    def _not_fit(self, level: int, fit: int, total: int) -> str:
        """``notFitMessage`` / ``multiLayerNotFitMessage``."""
        name = go_quote(self.flavor.topology)
        if self.sizes_at_level:
            text = f"topology {name} doesn't allow to fit" + self._layer_counts(level)
        else:
            unit = "pod" if self.slice_size == 1 else "slice"
            text = (f"topology {name} doesn't allow to fit any of {total} {unit}(s)" if fit == 0 else
                    f"topology {name} allows to fit only {fit} out of {total} {unit}(s)")
        if self.stats.has_exclusions():
            text += f". Total nodes: {self.stats.total_nodes}; excluded: {self.stats.reasons()}"
        return text

    def _layer_counts(self, level: int) -> str:
        domains = self.flavor.per_level[level].values()
        best = min(domains, key=lambda d: (-d.slice_count, d.id), default=None)
        if best is None:
            return ""
        parts = []
        for topology, size in self.layers:
            if topology in self.flavor.levels:
                fit = _slices_in_subtree(best, level, self.flavor.levels.index(topology), size)
                parts.append(f"; {fit}/{self.count // size} slice(s) fit on level {topology}")
        return "".join(parts)

    # phase 2b: down to the leaves

    def _descend(self, fit_level: int, fit: list[Domain]) -> TopologyAssignment:
        last = len(self.flavor.levels) - 1
        current = self._to_minimum(fit, self.count, self.slice_size, slices=True)
        level = fit_level
        while level < min(last, self.slice_level):
            lower = self._sorted([child for domain in current for child in domain.children])
            current = self._to_minimum(lower, self.count, self.slice_size, slices=True)
            level += 1
        while level < last:
            size = self.sizes_at_level.get(level + 1, 1)
            following: list[Domain] = []
            for domain in current:
                lower = self._sorted(domain.children)
                if size > 1:
                    for child in lower:
                        child.slice_count = child.pod_count // size
                following.extend(self._to_minimum(lower, domain.pod_count, size, slices=size > 1))
            current = following
            level += 1
        return self._build(current)

    def _to_minimum(self, domains: list[Domain], count: int, slice_size: int, slices: bool) -> list[Domain]:
        """``updateCountsToMinimumGeneric`` without leaders; [] when the counts do not add up."""
        result: list[Domain] = []
        remaining = count // slice_size if slices else count
        for i, domain in enumerate(domains):
            have = domain.slice_count if slices else domain.pod_count
            if not self.least_free and have >= remaining:
                domain = _best_fit(domains[i:], remaining, slices)
                have = domain.slice_count if slices else domain.pod_count
            result.append(domain)
            if have >= remaining:
                domain.pod_count = remaining * slice_size if slices else remaining
                if slices:
                    domain.slice_count = remaining
                return result
            if slices:
                domain.pod_count = have * slice_size
            remaining -= have
        return []

    def _build(self, domains: list[Domain]) -> TopologyAssignment:
        """``buildAssignment``: leaves in level-value order; hostname-only values when it is the lowest level."""
        ordered = sorted(domains, key=functools.cmp_to_key(self._compare_values))
        start = len(self.flavor.levels) - 1 if self.flavor.lowest_is_node else 0
        return TopologyAssignment(self.flavor.levels[start:], tuple(
            TopologyDomain(d.values[start:], d.pod_count) for d in ordered if d.pod_count > 0))

    def _sorted(self, domains: list[Domain]) -> list[Domain]:
        """``sortedDomains``: slices (descending, ascending for LeastFreeCapacity), pods ascending, values."""
        def compare(a: Domain, b: Domain) -> int:
            if a.slice_count != b.slice_count:
                order = _sign(a.slice_count - b.slice_count)
                return order if self.least_free else -order
            if a.pod_count != b.pod_count:
                return _sign(a.pod_count - b.pod_count)
            return self._compare_values(a, b)
        return sorted(domains, key=functools.cmp_to_key(compare))

    def _compare_values(self, a: Domain, b: Domain) -> int:
        if self.flavor.lowest_is_node and a.parent is b.parent:
            return _compare(a.values[-1:], b.values[-1:])
        return _compare(a.values, b.values)


def _best_fit(domains: list[Domain], needed: int, slices: bool) -> Domain:
    """``findBestFitDomainBy``: the first domain with the smallest count that is still enough."""
    best: Domain | None = None
    best_count = MAX_INT32
    for domain in domains:
        count = domain.slice_count if slices else domain.pod_count
        if needed <= count < best_count:
            best, best_count = domain, count
    return best if best is not None else domains[0]


def _slices_in_subtree(domain: Domain, level: int, target: int, size: int) -> int:
    if level == target:
        return domain.pod_count // size
    return sum(_slices_in_subtree(child, level + 1, target, size) for child in domain.children)


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _compare(a: Sequence[str], b: Sequence[str]) -> int:
    """``slices.CompareFunc`` with ``strings.Compare``."""
    return -1 if tuple(a) < tuple(b) else (1 if tuple(a) > tuple(b) else 0)


def taint_string(key: str, value: str, effect: str) -> str:
    """``Taint.ToString``."""
    return f"{key}:{effect}" if not value else f"{key}={value}:{effect}"


def _required_affinity(spec: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(node_affinity, Mapping) else None
    if not isinstance(required, Mapping):
        return None
    terms = required.get("nodeSelectorTerms")
    return [t for t in terms if isinstance(t, Mapping)] if isinstance(terms, list) else []


def _affinity_matches(terms: list[Mapping[str, Any]], node: Node) -> bool:
    """``nodeaffinity.NodeSelector.Match``: any term whose expressions and fields all match."""
    for term in terms:
        expressions = [e for e in term.get("matchExpressions") or [] if isinstance(e, Mapping)]
        fields = [e for e in term.get("matchFields") or [] if isinstance(e, Mapping)]
        if not expressions and not fields:
            continue  # an empty term matches no node
        if all(_expression_matches(e, node.labels) for e in expressions) and \
                all(_expression_matches(e, {"metadata.name": node.name}) for e in fields):
            return True
    return False


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(expression.get("key", ""))
    operator = expression.get("operator")
    values = [str(v) for v in expression.get("values") or []]
    if operator in ("In", "NotIn"):
        found = key in labels and labels[key] in values
        return found if operator == "In" else not found
    if operator in ("Exists", "DoesNotExist"):
        return (key in labels) == (operator == "Exists")
    if operator in ("Gt", "Lt") and len(values) == 1 and key in labels:
        try:
            have, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


# --- TAS-5: the placements of a workload -------------------------------------------------------------


@dataclass
class PodSetResult:
    """``tasPodSetAssignmentResult``."""

    assignment: TopologyAssignment | None
    failure: str
    flavor: str


def find_assignments(cache: TASCache, requests: Mapping[str, list[PodSetRequest]],
                     simulate_empty: bool = False) -> dict[str, PodSetResult]:
    """``FindTopologyAssignmentsForWorkload``: flavors in name order, pod sets in request order."""
    results: dict[str, PodSetResult] = {}
    shared: dict[str, dict[str, int]] = {}  # hostname leaves: assumed usage across flavors
    for name in sorted(requests):
        flavor = cache.flavors[name]
        assumed = shared if flavor.lowest_is_node else {}
        results.update(_find_for_flavor(cache, flavor, requests[name], assumed, simulate_empty))
    return results


def _find_for_flavor(cache: TASCache, flavor: TASFlavor, requests: list[PodSetRequest],
                     assumed: dict[str, dict[str, int]], simulate_empty: bool) -> dict[str, PodSetResult]:
    """``FindTopologyAssignmentsForFlavor``; the pod sets of a group are placed one after the other."""
    results: dict[str, PodSetResult] = {}
    for request in requests:
        try:
            placed = Placer(cache, flavor, request, assumed, simulate_empty).place()
        except PlacementError as exc:
            results[request.name] = PodSetResult(None, str(exc), flavor.name)
            return results
        results[request.name] = PodSetResult(placed, "", flavor.name)
        for domain in placed.domains:
            usage = scale(request.per_pod, domain.count)
            usage[PODS] = sat_add(usage.get(PODS, 0), domain.count)
            add_into(assumed.setdefault(domain_id(domain.values), {}), usage)
    return results


def first_failure(results: Mapping[str, PodSetResult]) -> tuple[str, PodSetResult] | None:
    """``TASAssignmentsResult.Failure`` (Go picks any; kqctl the first placed, §0.4)."""
    return next(((name, r) for name, r in results.items() if r.failure), None)
