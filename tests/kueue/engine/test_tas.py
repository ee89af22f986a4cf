"""Topology-Aware Scheduling (rule set TAS, kqctl/kueue/engine/tas_cache.py).

The placement cases are ported from Kueue's own TestFindTopologyAssignments
(pkg/cache/scheduler/tas_cache_test.go at the reference commit): same nodes, levels, requests
and expected assignments or failure messages, with the Topology named "default" as there.
"""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.k8s.core import Fields
from kqctl.k8s.quantity import parse_quantity, resource_value
from kqctl.kueue.api.models import Node, ResourceFlavor, Taint, Topology, TopologyAssignment
from kqctl.kueue.engine import tas_cache
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.flavors import tas_assigner
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths

B, R, H = "cloud.com/topology-block", "cloud.com/topology-rack", tas_cache.HOSTNAME
THREE_LEVELS = (B, R, H)
TWO_LEVELS = (B, R)
ONE_LEVEL = (H,)


def node(name: str, labels: dict[str, str], cpu: str = "1", memory: str | None = None, pods: str = "10",
         taints: tuple[Taint, ...] = (), ready: bool = True, unschedulable: bool = False) -> Node:
    allocatable = {"cpu": resource_value("cpu", parse_quantity(cpu)), "pods": int(pods)}
    if memory is not None:
        allocatable["memory"] = resource_value("memory", parse_quantity(memory))
    return Node(name, labels, allocatable, taints, unschedulable, ready)


def brh(name: str, block: str, rack: str, host: str, **kwargs: Any) -> Node:
    return node(name, {B: block, R: rack, H: host}, **kwargs)


DEFAULT_NODES = [
    brh("b1-r1-x3", "b1", "r1", "x3", memory="1Gi"),
    brh("b1-r2-x5", "b1", "r2", "x5", memory="1Gi"),
    brh("b1-r2-x1", "b1", "r2", "x1", memory="1Gi"),
    brh("b1-r2-x6", "b1", "r2", "x6", memory="1Gi"),
    brh("b2-r2-x2", "b2", "r1", "x2", memory="1Gi"),
    brh("b2-r2-x4", "b2", "r2", "x4", cpu="2", memory="4Gi", pods="40"),
]
SCATTERED_NODES = [
    brh("b1-r1-x3", "b1", "r1", "x3", cpu="4", memory="1Gi"),
    brh("b1-r1-x5", "b1", "r1", "x5", memory="1Gi"),
    brh("b1-r1-x1", "b1", "r1", "x1", memory="1Gi"),
    brh("b2-r1-x6", "b2", "r1", "x6", cpu="2", memory="1Gi"),
    brh("b2-r1-x2", "b2", "r1", "x2", memory="1Gi"),
]
BINARY_TREE_NODES = [brh(f"{b}-{r}-{h}", b, r, h, memory="1Gi") for b, r, h in (
    ("b1", "r1", "x3"), ("b1", "r1", "x5"), ("b1", "r2", "x1"), ("b1", "r2", "x6"),
    ("b2", "r1", "x2"), ("b2", "r1", "x4"), ("b2", "r2", "x7"), ("b2", "r2", "x8"))]
MULTIPOD_NODES = [
    brh("b1-r1-x3", "b1", "r1", "x3", cpu="10", memory="1Gi"),
    brh("b1-r2-x5", "b1", "r2", "x5", cpu="10", memory="1Gi"),
    brh("b1-r2-x1", "b1", "r2", "x1", cpu="10", memory="1Gi"),
    brh("b1-r2-x6", "b1", "r2", "x6", cpu="10", memory="1Gi"),
    brh("b2-r1-x2", "b2", "r1", "x2", cpu="10", memory="1Gi"),
    brh("b2-r2-x4", "b2", "r2", "x4", cpu="20", memory="4Gi", pods="40"),
]


def topology_cache(nodes: list[Node], levels: tuple[str, ...], node_labels: dict[str, str] | None = None,
              tolerations: tuple[Any, ...] = ()) -> tas_cache.TASCache:
    flavor = ResourceFlavor("tas", node_labels or {}, (), tolerations, "default")
    return tas_cache.TASCache({"tas": flavor}, {"default": Topology("default", levels)}, {n.name: n for n in nodes})


def pod_set(name: str = "main", request: dict[str, Any] | None = None, count: int = 1,
            per_pod: dict[str, int] | None = None, spec: dict[str, Any] | None = None) -> tas_cache.PodSetRequest:
    return tas_cache.PodSetRequest(name, request, spec or {}, per_pod if per_pod is not None else {"cpu": 1000}, count,
                             "tas", request is None, None)


def place(cache: tas_cache.TASCache, *pod_sets: tas_cache.PodSetRequest,
          simulate_empty: bool = False) -> dict[str, Any]:
    results = tas_cache.find_assignments(cache, {"tas": list(pod_sets)}, simulate_empty)
    return {name: r.failure or _domains(r.assignment) for name, r in results.items()}


def _domains(assignment: TopologyAssignment | None) -> list[tuple[tuple[str, ...], int]]:
    assert assignment is not None
    return [(d.values, d.count) for d in assignment.domains]


def one(values: str, count: int) -> tuple[tuple[str, ...], int]:
    return tuple(values.split("/")), count


# (name, nodes, levels, topology request, per-pod requests, count, expected domains or failure)
PLACEMENTS: list[tuple[str, list[Node], tuple[str, ...], dict[str, Any] | None, dict[str, int], int, Any]] = [
    ("minimize the number of used racks before optimizing the number of nodes", [
        node("b1-r1-x3", {B: "b1", R: "r1", H: "x3"}, cpu="2"),
        node("b1-r2-x5", {B: "b1", R: "r2", H: "x5"}, cpu="2", pods="20"),
        node("b1-r3-x1", {B: "b1", R: "r3", H: "x1"}),
        node("b1-r3-x6", {B: "b1", R: "r3", H: "x6"}),
        node("b1-r3-x2", {B: "b1", R: "r3", H: "x2"}),
        node("b1-r3-x4", {B: "b1", R: "r3", H: "x4"})],
     THREE_LEVELS, {"required": B}, {"cpu": 1000}, 4, [one("x1", 1), one("x2", 1), one("x4", 1), one("x6", 1)]),
    ("choose the node that can accommodate all Pods", [
        node("b1-r1-x3", {B: "b1", R: "r1", H: "x3"}, cpu="2"),
        node("b1-r1-x5", {B: "b1", R: "r1", H: "x5"}),
        node("b1-r1-x1", {B: "b1", R: "r1", H: "x1"})],
     THREE_LEVELS, {"required": B}, {"cpu": 1000}, 2, [one("x3", 2)]),
    ("implied: 6 pods scattered across the whole datacenter", SCATTERED_NODES, THREE_LEVELS, None, {"cpu": 1000}, 6,
     [one("x1", 1), one("x3", 1), one("x5", 1), one("x2", 1), one("x6", 2)]),
    ("unconstrained: 6 pods scattered across the whole datacenter", SCATTERED_NODES, THREE_LEVELS,
     {"unconstrained": True}, {"cpu": 1000}, 6,
     [one("x1", 1), one("x3", 1), one("x5", 1), one("x2", 1), one("x6", 2)]),
    ("unconstrained: a single pod fits into each host", DEFAULT_NODES, THREE_LEVELS, {"unconstrained": True},
     {"cpu": 1000}, 1, [one("x3", 1)]),
    ("block required: 4 pods fit into one host each", BINARY_TREE_NODES, THREE_LEVELS, {"required": B},
     {"cpu": 1000}, 4, [one("x3", 1), one("x5", 1), one("x1", 1), one("x6", 1)]),
    ("host required: single Pod fits in the host", DEFAULT_NODES, THREE_LEVELS, {"required": H}, {"cpu": 1000}, 1,
     [one("x3", 1)]),
    ("rack required: single Pod fits in a rack", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"cpu": 1000}, 1,
     [one("b1/r1", 1)]),
    ("rack required: multiple Pods fit in a rack", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"cpu": 1000}, 3,
     [one("b1/r2", 3)]),
    ("block preferred: Pods fit in 2 blocks", [
        node("b1", {B: "b1"}, cpu="2", pods="20"), node("b2", {B: "b2"}), node("b3", {B: "b3"}, cpu="4", pods="40")],
     (B,), {"preferred": B}, {"cpu": 1000}, 5, [one("b2", 1), one("b3", 4)]),
    ("rack required: multiple Pods fit in some racks", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"cpu": 1000}, 2,
     [one("b2/r2", 2)]),
    ("rack required: too many pods to fit in any rack", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"cpu": 1000}, 4,
     'topology "default" allows to fit only 3 out of 4 pod(s)'),
    ("block required: single Pod fits in a block and a single rack", DEFAULT_NODES, TWO_LEVELS, {"required": B},
     {"cpu": 1000}, 1, [one("b2/r1", 1)]),
    ("block required: Pods fit in a block spread across two racks", DEFAULT_NODES, TWO_LEVELS, {"required": B},
     {"cpu": 1000}, 4, [one("b1/r1", 1), one("b1/r2", 3)]),
    ("block required: single Pod which cannot be split", DEFAULT_NODES, TWO_LEVELS, {"required": B}, {"cpu": 4000},
     1, 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4'),
    ("block required: too many Pods to fit requested", DEFAULT_NODES, TWO_LEVELS, {"required": B}, {"cpu": 1000}, 5,
     'topology "default" allows to fit only 4 out of 5 pod(s)'),
    ("rack required: single Pod requiring memory", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"memory": 1024}, 4,
     [one("b1/r1", 4)]),
    ("rack preferred: but only block can accommodate the workload", DEFAULT_NODES, TWO_LEVELS, {"preferred": R},
     {"cpu": 1000}, 4, [one("b1/r1", 1), one("b1/r2", 3)]),
    ("rack preferred: but only multiple blocks can accommodate the workload", DEFAULT_NODES, TWO_LEVELS,
     {"preferred": R}, {"cpu": 1000}, 6, [one("b1/r1", 1), one("b1/r2", 3), one("b2/r2", 2)]),
    ("block preferred: but only multiple blocks can accommodate the workload", DEFAULT_NODES, TWO_LEVELS,
     {"preferred": B}, {"cpu": 1000}, 6, [one("b1/r1", 1), one("b1/r2", 3), one("b2/r2", 2)]),
    ("block preferred: but the workload cannot be accommodated in entire topology", DEFAULT_NODES, TWO_LEVELS,
     {"preferred": B}, {"cpu": 1000}, 10, 'topology "default" allows to fit only 7 out of 10 pod(s)'),
    ("only nodes with matching levels are considered: no host label on node",
     [node("b1-r1-x3", {B: "b1", R: "r1"}, memory="1Gi")], THREE_LEVELS, {"required": R}, {"cpu": 1000}, 1,
     "no topology domains at level: cloud.com/topology-rack"),
    ("no assignment as node is not ready", [node("x3", {"zone": "zone-a", H: "x3"}, ready=False)], ONE_LEVEL,
     {"required": H}, {"cpu": 1000}, 1, "no topology domains at level: kubernetes.io/hostname"),
    ("no assignment as node is unschedulable", [node("x3", {"zone": "zone-a", H: "x3"}, unschedulable=True)],
     ONE_LEVEL, {"required": H}, {"cpu": 1000}, 1, "no topology domains at level: kubernetes.io/hostname"),
    ("skip node which has untolerated taint", [
        node("x3", {"zone": "zone-a", H: "x3"}, taints=(Taint("example.com/gpu", "present", "NoSchedule"),))],
     ONE_LEVEL, {"required": H}, {"cpu": 1000}, 1, 'topology "default" doesn\'t allow to fit any of 1 pod(s).'
     ' Total nodes: 1; excluded: taint "example.com/gpu=present:NoSchedule": 1'),
    ("resource exclusion picks most restrictive resource", [node("dual-shortage", {H: "dual-shortage"}, cpu="500m")],
     ONE_LEVEL, {"required": H}, {"cpu": 1000, "example.com/gpu": 1}, 1,
     'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1'),
    ("no assignment as node does not have enough allocatable pods", [node("x3", {H: "x3"}, pods="0")], ONE_LEVEL,
     {"required": H}, {"cpu": 300}, 1,
     'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1'),
    # slices
    ("block required for podset; host required for slices", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="3"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="3"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="3")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 6,
     [one("x1", 2), one("x3", 2), one("x5", 2)]),
    ("host slices: prioritize more free slice capacity first and then tight fit", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="6"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="5"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="4"), brh("b1-r1-x6", "b1", "r1", "x6", cpu="2")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 12,
     [one("x1", 4), one("x3", 6), one("x6", 2)]),
    ("host slices: select domains with tight fit", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="3"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="2"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="2")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 4,
     [one("x1", 2), one("x5", 2)]),
    ("block required for podset; rack required for slices", [brh(f"{b}-{r}-{h}", b, r, h) for b, r, h in (
        ("b1", "r1", "x3"), ("b1", "r1", "x5"), ("b1", "r2", "x1"), ("b1", "r2", "x6"), ("b1", "r2", "x2"),
        ("b2", "r1", "x4"), ("b2", "r1", "x7"))],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 2}, {"cpu": 1000}, 4,
     [one("x3", 1), one("x5", 1), one("x1", 1), one("x2", 1)]),
    ("block preferred for podset; rack required for slices", DEFAULT_NODES, THREE_LEVELS,
     {"preferred": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 2}, {"cpu": 1000}, 4,
     [one("x1", 1), one("x5", 1), one("x4", 2)]),
    ("host slices: optimize last domain", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="4"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="3"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="2")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 6,
     [one("x1", 2), one("x3", 4)]),
    ("block preferred; host slices; 2 blocks with unbalanced subdomains", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="3"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="3"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="3"), brh("b2-r1-x6", "b2", "r1", "x6", cpu="6")],
     THREE_LEVELS, {"preferred": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 3}, {"cpu": 1000}, 12,
     [one("x1", 3), one("x3", 3), one("x6", 6)]),
    ("rack slices: podset fits in a block, but slices do not fit in racks", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="2"), brh("b1-r2-x5", "b1", "r2", "x5", cpu="2"),
        brh("b1-r3-x1", "b1", "r3", "x1", cpu="2")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 3}, {"cpu": 1000}, 6,
     'topology "default" doesn\'t allow to fit any of 2 slice(s)'),
    ("rack slices: only 1 out of 2 slices fit the topology", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="3"), brh("b1-r2-x5", "b1", "r2", "x5"),
        brh("b1-r3-x1", "b1", "r3", "x1"), brh("b1-r4-x6", "b1", "r4", "x6")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 3}, {"cpu": 1000}, 6,
     'topology "default" allows to fit only 1 out of 2 slice(s)'),
    ("rack slices: podset fits in both blocks, but slices fit in only one block", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="2"), brh("b1-r2-x5", "b1", "r2", "x5", cpu="2"),
        brh("b1-r3-x1", "b1", "r3", "x1", cpu="2"), brh("b2-r4-x6", "b2", "r4", "x6", cpu="3"),
        brh("b2-r5-x2", "b2", "r5", "x2", cpu="3")],
     THREE_LEVELS, {"required": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 3}, {"cpu": 1000}, 6,
     [one("x6", 3), one("x2", 3)]),
    ("slice required topology level cannot be above the main required topology level", DEFAULT_NODES, THREE_LEVELS,
     {"required": H, "podSetSliceRequiredTopology": B, "podSetSliceSize": 1}, {"cpu": 1000}, 1,
     "podset slice topology cloud.com/topology-block is above the podset topology kubernetes.io/hostname"),
    ("slice size is required when slice topology is requested", DEFAULT_NODES, THREE_LEVELS,
     {"required": B, "podSetSliceRequiredTopology": H}, {"cpu": 1000}, 1,
     "slice topology requested, but slice size not provided"),
    ("cannot request not existing slice topology", DEFAULT_NODES, THREE_LEVELS,
     {"required": B, "podSetSliceRequiredTopology": "not-existing-topology-level", "podSetSliceSize": 1},
     {"cpu": 1000}, 1, "no requested topology level for slices: not-existing-topology-level"),
    ("no topology for podset; host required for slices", [
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="3"), brh("b1-r1-x5", "b1", "r1", "x5", cpu="3"),
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="3")],
     THREE_LEVELS, {"podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 6,
     [one("x1", 2), one("x3", 2), one("x5", 2)]),
    ("no topology for podset; host required for slices; multiple blocks", SCATTERED_NODES, THREE_LEVELS,
     {"podSetSliceRequiredTopology": H, "podSetSliceSize": 2}, {"cpu": 1000}, 6, [one("x3", 4), one("x6", 2)]),
    ("no topology for podset; rack required for slices; multiple blocks", DEFAULT_NODES, THREE_LEVELS,
     {"podSetSliceRequiredTopology": R, "podSetSliceSize": 2}, {"cpu": 1000}, 4,
     [one("x1", 1), one("x5", 1), one("x4", 2)]),
    # multi-layer slices (TASMultiLayerTopology, beta)
    ("multi-layer: block required; rack slices of 4; host slices of 2", [
        brh("b1-r1-x1", "b1", "r1", "x1"), brh("b1-r1-x2", "b1", "r1", "x2", cpu="4"),
        brh("b1-r2-x3", "b1", "r2", "x3", cpu="3"), brh("b1-r2-x4", "b1", "r2", "x4", cpu="4")],
     THREE_LEVELS, {"required": B, "podsetSliceRequiredTopologyConstraints": [
         {"topology": R, "size": 4}, {"topology": H, "size": 2}]}, {"cpu": 1000}, 8,
     [one("x2", 4), one("x3", 2), one("x4", 2)]),
    ("multi-layer: host slice rounding makes rack slice impossible", [
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="3"), brh("b1-r1-x2", "b1", "r1", "x2", cpu="3"),
        brh("b1-r1-x3", "b1", "r1", "x3", cpu="0")],
     THREE_LEVELS, {"required": B, "podsetSliceRequiredTopologyConstraints": [
         {"topology": R, "size": 6}, {"topology": H, "size": 2}]}, {"cpu": 1000}, 6,
     'topology "default" doesn\'t allow to fit; 0/1 slice(s) fit on level cloud.com/topology-rack; 2/3 slice(s)'
     ' fit on level kubernetes.io/hostname. Total nodes: 3; excluded: resource "cpu": 1'),
    ("multi-layer: small host kills rack slices despite enough total capacity", [
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="7"), brh("b1-r1-x2", "b1", "r1", "x2", cpu="4"),
        brh("b1-r2-x3", "b1", "r2", "x3", cpu="7"), brh("b1-r2-x4", "b1", "r2", "x4", cpu="3")],
     THREE_LEVELS, {"required": B, "podsetSliceRequiredTopologyConstraints": [
         {"topology": R, "size": 8}, {"topology": H, "size": 4}]}, {"cpu": 1000}, 16,
     'topology "default" doesn\'t allow to fit; 1/2 slice(s) fit on level cloud.com/topology-rack; 3/4 slice(s)'
     ' fit on level kubernetes.io/hostname'),
    ("multi-layer: enough hostname slices but not enough rack slices", [
        brh("b1-r1-x1", "b1", "r1", "x1", cpu="4"), brh("b1-r2-x2", "b1", "r2", "x2", cpu="4"),
        brh("b1-r3-x3", "b1", "r3", "x3", cpu="4")],
     THREE_LEVELS, {"required": B, "podsetSliceRequiredTopologyConstraints": [
         {"topology": R, "size": 6}, {"topology": H, "size": 2}]}, {"cpu": 1000}, 12,
     'topology "default" doesn\'t allow to fit; 0/2 slice(s) fit on level cloud.com/topology-rack; 6/6 slice(s)'
     ' fit on level kubernetes.io/hostname'),
    ("non-hostname-leaf topology", DEFAULT_NODES, TWO_LEVELS, {"required": R}, {"cpu": 1000}, 1, [one("b1/r1", 1)]),
]


@pytest.mark.parametrize("case", PLACEMENTS, ids=lambda c: c[0])
def test_placement_matches_kueue(case: tuple[Any, ...]) -> None:
    _, nodes, levels, request, per_pod, count, expected = case
    assert place(topology_cache(nodes, levels), pod_set(request=request, per_pod=per_pod, count=count)) == \
        {"main": expected}


def test_only_nodes_with_the_flavor_labels_are_considered() -> None:
    nodes = [node("x3", {"zone": "zone-a", H: "x3"}, memory="1Gi")]
    assert place(topology_cache(nodes, ONE_LEVEL, {"zone": "zone-b"}), pod_set(request={"required": H})) == {
        "main": "no topology domains at level: kubernetes.io/hostname"}
    assert place(topology_cache(nodes, ONE_LEVEL, {"zone": "zone-a"}), pod_set(request={"required": H})) == {
        "main": [one("x3", 1)]}


def test_exclusion_stats_name_every_reason() -> None:
    nodes = [node("x1", {H: "x1"}, taints=(Taint("key", "value", "NoSchedule"),)),
             node("x2", {H: "x2", "zone": "zone-b"}),
             node("x3", {H: "x3", "zone": "zone-b"}, cpu="2"),
             node("x4", {H: "x4", "zone": "zone-a"}, cpu="100m")]
    request = pod_set(request={"required": H}, spec={"nodeSelector": {"zone": "zone-a"}})
    assert place(topology_cache(nodes, ONE_LEVEL), request) == {"main": (
        'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: nodeSelector: 2,'
        ' resource "cpu": 1, taint "key=value:NoSchedule": 1')}


def test_a_tolerated_taint_and_a_required_affinity_let_the_node_in() -> None:
    nodes = [node("x3", {"zone": "zone-a", H: "x3"}, taints=(Taint("example.com/gpu", "present", "NoSchedule"),)),
             node("x4", {"zone": "zone-b", H: "x4"})]
    spec = {"tolerations": [{"key": "example.com/gpu", "value": "present", "operator": "Equal"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["zone-a"]}]}]}}}}
    assert place(topology_cache(nodes, ONE_LEVEL), pod_set(request={"required": H}, spec=spec)) == {
        "main": [one("x3", 1)]}


def test_pod_sets_of_one_workload_account_for_each_other() -> None:
    cache = topology_cache([node("x1", {H: "x1"}, cpu="2", pods="1")], ONE_LEVEL)
    assert place(cache, pod_set("one", {"required": H}), pod_set("two", {"required": H})) == {
        "one": [one("x1", 1)],
        "two": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1'}
    cache = topology_cache(MULTIPOD_NODES, TWO_LEVELS)
    assert place(cache, pod_set("podset1", {"required": R}, count=2),
                 pod_set("podset2", {"required": R}, per_pod={"memory": 1024})) == {
        "podset1": [one("b1/r1", 2)], "podset2": [one("b1/r1", 1)]}
    cache = topology_cache(MULTIPOD_NODES, THREE_LEVELS)
    assert place(cache, pod_set("podset1", {"required": B}, count=8),
                 pod_set("podset2", {"unconstrained": True}, count=2)) == {
        "podset1": [one("x2", 8)], "podset2": [one("x2", 2)]}


def test_usage_of_other_flavors_on_the_same_hostname_counts() -> None:
    """TASHandleOverlappingFlavors: 'sibling-flavor usage on the shared hostname reduces remaining capacity'."""
    nodes = [node("b1-x1", {B: "b1", H: "x1"}), node("b1-x2", {B: "b1", H: "x2"})]
    flavors = {name: ResourceFlavor(name, {}, (), (), "default") for name in ("tas", "sibling")}
    cache = tas_cache.TASCache(flavors, {"default": Topology("default", (B, H))}, {n.name: n for n in nodes})
    cache.add_usage([tas_cache.DomainUsage("sibling", "x1", {"cpu": 1000}, 1)])
    assert place(cache, pod_set(request={"required": H})) == {"main": [one("x2", 1)]}
    assert place(cache, pod_set(request={"required": B}, count=2), simulate_empty=True) == {
        "main": [one("x1", 1), one("x2", 1)]}


def test_usage_of_a_non_hostname_topology_stays_with_its_flavor() -> None:
    nodes = [node(name, {B: b, R: r}) for name, b, r in (
        ("b1-r1", "b1", "r1"), ("b1-r2", "b1", "r2"), ("b2-r1", "b2", "r1"), ("b2-r2", "b2", "r2"))]
    cache = topology_cache(nodes, TWO_LEVELS)
    cache.add_usage([tas_cache.DomainUsage("tas", "b1,r1", {"cpu": 1000}, 1),
                     tas_cache.DomainUsage("tas", "b1,r2", {"cpu": 1000}, 1)])
    assert place(cache, pod_set(request={"required": R})) == {"main": [one("b2/r1", 1)]}
    assert cache.fits([tas_cache.DomainUsage("tas", "b2,r2", {"cpu": 1000}, 1)])
    assert not cache.fits([tas_cache.DomainUsage("tas", "b1,r1", {"cpu": 1000}, 1)])
    assert not cache.fits([tas_cache.DomainUsage("tas", "b9,r9", {"cpu": 1000}, 1)])


def test_count_in_mirrors_kueue() -> None:
    assert tas_cache.count_in({"cpu": 1000, "pods": 1}, {"cpu": 2500, "pods": 10}) == (2, "cpu")
    assert tas_cache.count_in({"cpu": 0, "pods": 1}, {"pods": 3}) == (3, "pods")
    assert tas_cache.count_in({"cpu": 1000, "example.com/gpu": 1}, {"cpu": 500}) == (0, "cpu")
    assert tas_cache.count_in({"cpu": 1000}, {"cpu": -2000}) == (0, "cpu")
    assert tas_cache.count_in({}, {"cpu": 1000}) == (0, "")


# --- the API model ----------------------------------------------------------------------------------------


def test_topology_assignment_compact_encoding_is_decoded() -> None:
    raw = {"levels": [B, H], "slices": [
        {"domainCount": 2, "valuesPerLevel": [{"universal": "b1"},
                                              {"individual": {"prefix": "node-", "suffix": "-a", "roots": ["1", "2"]}}],
         "podCounts": {"individual": [3, 1]}},
        {"domainCount": 1, "valuesPerLevel": [{"universal": "b2"}, {"individual": {"roots": ["x"]}}],
         "podCounts": {"universal": 2}}]}
    decoded = TopologyAssignment.from_v1beta2(Fields(raw))
    assert decoded.levels == (B, H)
    assert [(d.values, d.count) for d in decoded.domains] == [
        (("b1", "node-1-a"), 3), (("b1", "node-2-a"), 1), (("b2", "x"), 2)]


def test_explicit_and_implied_requests() -> None:
    assert tas_cache.explicitly_requests_tas({"required": H})
    assert tas_cache.explicitly_requests_tas({"unconstrained": False})
    assert tas_cache.explicitly_requests_tas({"podSetSliceSize": 2})
    assert not tas_cache.explicitly_requests_tas({"podSetGroupName": "g"})
    assert not tas_cache.explicitly_requests_tas(None)
    assert tas_cache.is_tas_implied(None, tas_only=True) and not tas_cache.is_tas_implied(None, tas_only=False)


def test_flavor_eligibility_messages() -> None:
    """TAS-2 checkPodSetAndFlavorMatchForTAS."""
    from kqctl.kueue.api.models import ClusterQueue

    nodes = [node("x1", {H: "x1", "pool": "tas"})]
    tas_flavor = ResourceFlavor("tas", {"pool": "tas"}, (), (), "default")
    plain = ResourceFlavor("plain", {}, (), (), None)
    other = ResourceFlavor("other", {}, (), (), "missing")
    flavors = {f.name: f for f in (tas_flavor, plain, other)}
    cache = tas_cache.TASCache(flavors, {"default": Topology("default", (B, H))}, {n.name: n for n in nodes})
    quota = [{"name": "cpu", "nominalQuota": 1}]
    cq = ClusterQueue.from_v1beta2({"metadata": {"name": "cq"}, "spec": {"resourceGroups": [
        {"coveredResources": ["cpu"], "flavors": [{"name": "plain", "resources": quota},
                                                  {"name": "tas", "resources": quota}]}]}})
    spec = {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}

    def mismatch(request: dict[str, Any] | None, flavor: ResourceFlavor) -> str | None:
        return tas_assigner.flavor_mismatch(cache, cq, flavors, request, spec, flavor, ("cpu",))

    assert mismatch({"required": H}, tas_flavor) is None
    assert mismatch({"required": "missing-level"}, tas_flavor) == 'Flavor "tas" does not contain the requested level'
    assert mismatch({"unconstrained": False}, tas_flavor) == 'Flavor "tas" does not contain the requested level'
    assert mismatch({"required": H}, plain) == 'Flavor "plain" does not support TopologyAwareScheduling'
    assert mismatch({"required": H}, other) == 'Flavor "other" information missing in TAS cache'
    assert mismatch(None, tas_flavor) == 'Flavor "tas" supports only TopologyAwareScheduling'
    assert mismatch(None, plain) is None
    assert tas_assigner.flavor_mismatch(cache, cq, flavors, {"required": H}, spec, plain, ("memory",)) is None


# --- through the engine ------------------------------------------------------------------------------------

CLUSTER = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: tas}, topologyName: hosts}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: hosts}
spec: {levels: [{nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: tas, resources: [{name: cpu, nominalQuota: "10"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a, pool: tas}}
status:
  allocatable: {cpu: "2", pods: "10"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b, pool: tas}}
status:
  allocatable: {cpu: "2", pods: "10"}
  conditions: [{type: Ready, status: "True"}]
"""


def workload(name: str, cpu: str, minute: int, request: str = "required: kubernetes.io/hostname",
             admitted_on: str | None = None) -> str:
    text = f"""
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-01-01T00:{minute:02d}:00Z"}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    topologyRequest: {{{request}}}
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
"""
    if admitted_on is not None:
        text += f"""status:
  conditions: [{{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m,
                lastTransitionTime: "2026-01-01T00:00:00Z"}}]
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 1
      flavors: {{cpu: tas}}
      resourceUsage: {{cpu: "{cpu}"}}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices: [{{domainCount: 1, valuesPerLevel: [{{universal: {admitted_on}}}], podCounts: {{universal: 1}}}}]
"""
    return text


def simulation(tmp_path: Any, text: str, **gates: bool) -> Simulation:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER + text)
    return Simulation(build_snapshot(load_paths(ALL_KINDS, [str(path)])), SimulationOptions(gates=FeatureGates(gates)))


def test_admitted_pods_hold_their_node_in_later_cycles(tmp_path: Any) -> None:
    sim = simulation(tmp_path, workload("first", "2", 1) + workload("second", "2", 2) + workload("third", "2", 3))
    result = sim.run()
    admitted = {k: sim.cache.tas.assignments[k]["main"] for k, w in result.workloads.items() if w.admitted_in}
    assert {k: [d.values for d in a.domains] for k, a in admitted.items()} == {
        "default/first": [("a",)], "default/second": [("b",)]}
    third = sim.outcomes["default/third"].last_entry
    assert third is not None and (third.mode, third.requeue_reason) == ("Preempt", "PreemptionNoCandidates")
    assert third.message == ('couldn\'t assign flavors to pod set main: topology "hosts" doesn\'t allow to fit any of'
                             ' 1 pod(s). Total nodes: 2; excluded: resource "cpu": 2')


def test_an_admission_from_the_snapshot_holds_its_node(tmp_path: Any) -> None:
    sim = simulation(tmp_path, workload("running", "2", 0, admitted_on="a") + workload("new", "1", 1))
    result = sim.run()
    assert sim.cache.tas.assignments["default/new"]["main"].domains[0].values == ("b",)
    assert result.workloads["default/new"].admitted_in == 1


def test_preempting_a_workload_frees_its_node(tmp_path: Any) -> None:
    sim = simulation(tmp_path, workload("running", "2", 0, admitted_on="a"))
    running = sim.outcomes["default/running"].workload
    assert sim.cache.tas.usage[("", "a")] == {"cpu": 2000, "pods": 1}
    sim.cache.remove_workload(running)
    assert sim.cache.tas.usage[("", "a")] == {"cpu": 0, "pods": 0}
    sim.cache.add_workload(running)
    assert sim.cache.tas.usage[("", "a")] == {"cpu": 2000, "pods": 1}


def test_without_the_gate_topology_is_ignored(tmp_path: Any) -> None:
    sim = simulation(tmp_path, workload("big", "3", 1), TopologyAwareScheduling=False)
    result = sim.run()
    assert result.workloads["default/big"].admitted_in == 1
    assert not sim.cache.tas.flavors


def test_a_pod_larger_than_any_node_is_no_fit_even_on_an_empty_cluster(tmp_path: Any) -> None:
    sim = simulation(tmp_path, workload("big", "3", 1))
    sim.run()
    entry = sim.outcomes["default/big"].last_entry
    assert entry is not None and (entry.mode, entry.reason) == ("NoFit", "TopologyPlacementFailed")


def test_a_tas_only_cluster_queue_places_every_pod_set(tmp_path: Any) -> None:
    """TAS-1 isTASImplied: no topology request, yet placed (unconstrained, LeastFreeCapacity)."""
    sim = simulation(tmp_path, workload("running", "1", 0, admitted_on="b")
                     + workload("plain", "1", 1, request="podSetGroupName: g"))
    result = sim.run()
    assert result.workloads["default/plain"].admitted_in == 1
    assert sim.cache.tas.assignments["default/plain"]["main"].domains[0].values == ("b",)


def test_a_non_tas_pod_set_does_not_take_a_tas_flavor(tmp_path: Any) -> None:
    text = CLUSTER.replace("flavors: [{name: tas,", "flavors: [{name: plain, resources: [{name: cpu, nominalQuota:"
                           ' "0"}]}, {name: tas,')
    text += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: plain}\n"
    path = tmp_path / "cluster.yaml"
    path.write_text(text + workload("plain", "1", 1, request="podSetGroupName: g"))
    sim = Simulation(build_snapshot(load_paths(ALL_KINDS, [str(path)])), SimulationOptions())
    sim.run()
    entry = sim.outcomes["default/plain"].last_entry
    assert entry is not None and entry.mode == "NoFit"
    assert entry.message == ("couldn't assign flavors to pod set main: Flavor \"tas\" supports only"
                             " TopologyAwareScheduling, insufficient quota for cpu in flavor plain, previously"
                             " considered podsets requests (0) + current podset request (1) > maximum capacity (0)")


def test_a_missing_topology_makes_the_cluster_queue_inactive(tmp_path: Any) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.replace("topologyName: hosts", "topologyName: nowhere") + workload("w", "1", 1))
    sim = Simulation(build_snapshot(load_paths(ALL_KINDS, [str(path)])), SimulationOptions())
    state = sim.cache.cluster_queues["cq"]
    assert (state.active, state.inactive_reason) == (False, "TopologyNotFound")
    assert state.inactive_message == 'Can\'t admit new workloads: there is no Topology "nowhere" for TAS flavor "tas".'


def test_without_scan_progress_quota_churn_pins_the_workload_to_the_first_flavor() -> None:
    """Kueue's 'gate disabled' case of TestScheduleForPreserveFlavorScanProgress (not recorded as a case)."""
    from conformance_cases import cases

    case = cases("preserve-flavor-scan-progress")[0]  # gate-enabled, with churn
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(case.snapshot)]))

    def churn(sim: Simulation, cycle: int) -> None:
        quota = resource_value("cpu", parse_quantity("5" if cycle % 2 == 0 else "4"))
        sim.cache.update_nominal_quota("tas-cq", ("tas-flavor-2", "cpu"), quota)
        sim.requeue_inadmissible()

    gates = FeatureGates({"FlavorFungibilityPreserveScanProgress": False})
    result = Simulation(snapshot, SimulationOptions(cycles=4, fair_sharing=True, gates=gates,
                                                    between_cycles=churn)).run()
    assert result.workloads["default/pending"].admission is None
    assert result.workloads["default/blocker"].admission is not None


SECOND_QUEUE = """
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq2}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: tas, resources: [{name: cpu, nominalQuota: "10"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq2, namespace: default}
spec: {clusterQueue: cq2}
"""


@pytest.mark.parametrize("recompute", [True, False])
def test_a_placement_taken_earlier_in_the_cycle_is_recomputed_only_with_tas_recompute(
        tmp_path: Any, recompute: bool) -> None:
    """TAS-6: two heads nominated to the same node in one cycle; the second one's placement no longer fits once the
    first is admitted. With TASRecomputeAssignmentWithinSchedulingCycle Kueue places it again (the other node),
    without it the nomination's placement stands and the workload waits for the next cycle."""
    second = workload("second", "2", 2).replace("queueName: lq", "queueName: lq2")
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER + SECOND_QUEUE + workload("first", "2", 1) + second)
    gates = FeatureGates({"TASRecomputeAssignmentWithinSchedulingCycle": recompute})
    sim = Simulation(build_snapshot(load_paths(ALL_KINDS, [str(path)])), SimulationOptions(cycles=1, gates=gates))
    result = sim.run()
    assert result.workloads["default/first"].admitted_in == 1
    assert (result.workloads["default/second"].admitted_in == 1) is recompute
    if recompute:
        placed = [sim.cache.tas.assignments[k]["main"].domains[0].values for k in ("default/first", "default/second")]
        assert sorted(placed) == [("a",), ("b",)]


def test_preemption_takes_victims_until_the_preemptor_fits_on_the_nodes(tmp_path: Any) -> None:
    """TAS-7: quota alone would be freed by the lowest-priority victim (on node a), but node a would still hold
    another pod; Kueue's workloadFits also places the preemptor, so the victim set grows until a node is free (b),
    and the minimal set then keeps only the victim on b."""
    cluster = CLUSTER.replace('nominalQuota: "10"', 'nominalQuota: "5"').replace(
        "spec:\n  namespaceSelector: {}", "spec:\n  preemption: {withinClusterQueue: LowerPriority}\n"
        "  namespaceSelector: {}")

    def with_priority(text: str, priority: int) -> str:
        return text.replace("  queueName: lq\n", f"  queueName: lq\n  priority: {priority}\n")

    running = [with_priority(workload(name, "1", 0, admitted_on=node), priority)
               for name, node, priority in (("low-1", "a", 1), ("low-2", "b", 2), ("low-3", "a", 3))]
    path = tmp_path / "cluster.yaml"
    path.write_text(cluster + "".join(running) + with_priority(workload("big", "2", 1), 10))
    sim = Simulation(build_snapshot(load_paths(ALL_KINDS, [str(path)])), SimulationOptions(cycles=1))
    result = sim.run()
    assert [k for k, w in sorted(result.workloads.items()) if w.preempted_in == 1] == ["default/low-2"]
