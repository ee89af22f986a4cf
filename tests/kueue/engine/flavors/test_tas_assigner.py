"""The TAS step of flavor assignment (kqctl/kueue/engine/flavors/tas_assigner.py, TAS-6).

A quota ``Fit`` whose pods find no room on the nodes becomes ``Preempt`` when they would fit on
the empty cluster, ``NoFit`` (TopologyPlacementFailed) when they never would. TAS-2 (which flavors
may serve a pod set) is tested in test_tas.py with the topology cache.
"""

from __future__ import annotations

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.flavors.assigner import FlavorAssigner
from kqctl.kueue.engine.flavors.assignment import Assignment
from kqctl.kueue.engine.flavors.tas_assigner import ERR_NO_TAS_FLAVOR, only_tas_flavor
from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
from kqctl.kueue.engine.tas_cache import PlacementError
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_text
from tests.kueue.engine.test_tas import CLUSTER, workload


def no_candidates(fr: FlavorResource, amount: int) -> tuple[str, int]:
    return "NoCandidates", 0


def assign(text: str, name: str = "new") -> Assignment:
    sim = Simulation(build_snapshot(load_text(ALL_KINDS, CLUSTER + text, "tas.yaml")),
                     SimulationOptions(gates=FeatureGates({"TopologyAwareScheduling": True})))
    info = sim.outcomes[f"default/{name}"].workload
    return FlavorAssigner(info, sim.cache.cluster_queues["cq"], sim.cache, no_candidates,
                          topology_aware=True).assign()


def test_tas_6_a_quota_fit_with_room_on_a_node_keeps_fit_and_gets_its_placement() -> None:
    result = assign(workload("running", "2", 0, admitted_on="a") + workload("new", "2", 1))
    [pod_set] = result.pod_sets
    assert result.representative_mode() == "Fit"
    assert pod_set.topology is not None and [d.values for d in pod_set.topology.domains] == [("b",)]
    assert [(u.flavor, u.domain, u.count) for u in result.tas_usage] == [("tas", "b", 1)]


def test_tas_6_a_quota_fit_without_room_now_but_room_on_the_empty_cluster_is_preempt() -> None:
    result = assign(workload("on-a", "2", 0, admitted_on="a") + workload("on-b", "2", 0, admitted_on="b")
                    + workload("new", "2", 1))
    assert result.representative_mode() == "Preempt" and result.pod_sets[0].topology is None
    assert "doesn't allow to fit any of 1 pod(s)" in result.message()


def test_tas_6_pods_that_fit_no_node_even_empty_are_no_fit_topology_placement_failed() -> None:
    result = assign(workload("new", "3", 1))
    [attempt] = result.pod_sets[0].attempts
    assert (result.representative_mode(), result.no_fit_reason) == ("NoFit", "TopologyPlacementFailed")
    assert (attempt.mode, attempt.no_fit_reason) == ("NoFit", "TopologyPlacementFailed")


@pytest.mark.parametrize(("assigned", "answer"), [
    ({"tas"}, "tas"),
    ({"tas", "plain"}, "tas"),
    (set(), ERR_NO_TAS_FLAVOR),
    ({"tas", "other-tas"}, "more than one TAS flavor assigned: other-tas, tas"),
])
def test_tas_6_a_pod_set_takes_exactly_one_tas_flavor(assigned: set[str], answer: str) -> None:
    cq_flavors = {"tas": object(), "other-tas": object()}
    try:
        got = only_tas_flavor(assigned, cq_flavors)  # type: ignore[arg-type]
    except PlacementError as error:
        got = str(error)
    assert got == answer
