"""The fair-sharing admission tournament (kqctl/kueue/engine/fair_sharing_tournament.py, FS-4)."""

from __future__ import annotations

from typing import Any

from kqctl.kueue.engine.entry import Entry
from kqctl.kueue.engine.fair_sharing_tournament import tournament
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import cluster_queue, cohort, flavor, local_queue, simulation, workload

EARLY, LATE = "2025-12-31T00:00:00Z", "2025-12-31T01:00:00Z"


def order(sim: Simulation, *names: str) -> list[str]:
    """The order the tournament yields the named pending workloads (each its ClusterQueue's head)."""
    entries = []
    for name in names:
        info = sim.outcomes[f"ns/{name}"].workload
        state = sim.cache.cluster_queues[info.cluster_queue or ""]
        assignment, targets = sim.scheduler.get_assignments(info, state)
        entry = Entry(info, state.name, state)
        entry.assignment, entry.targets = assignment, targets
        entries.append(entry)
    return [e.workload.model.name for e in tournament(sim.cache, entries)]


def three_queues(*documents: dict[str, Any]) -> Simulation:
    queues = [cluster_queue(n, {"default": {"cpu": "4"}}, cohort="co") for n in "abc"]
    return simulation(flavor("default"), cohort("co"), *queues, *(local_queue(f"lq-{n}", n) for n in "abc"),
                      *documents, fair_sharing=True)


def test_fs_4_the_entry_whose_queue_would_share_least_goes_first_not_the_oldest() -> None:
    # Spec §8.3 example: a already uses 6; a2 (2 cpu, older) would put a at 333, b2 (5 cpu) b at 83.
    sim = three_queues(workload("a1", "lq-a", cpu="6", admitted_in="a"),
                       workload("a2", "lq-a", cpu="2", created=EARLY), workload("b2", "lq-b", cpu="5", created=LATE))
    assert order(sim, "a2", "b2") == ["b2", "a2"]


def test_fs_4_an_entry_whose_queue_borrows_nothing_it_requests_beats_a_lower_share() -> None:
    # a already borrows 3 spot (share 187.5 with or without its entry) but a2 asks for on-demand only,
    # within a's quota; b2 borrows 1 on-demand (share 62.5). Not borrowing what it requests wins.
    flavors = {"on-demand": {"cpu": "4"}, "spot": {"cpu": "0"}}
    sim = simulation(flavor("on-demand"), flavor("spot"), cohort("co"),
                     cluster_queue("a", flavors, cohort="co"), cluster_queue("b", flavors, cohort="co"),
                     cluster_queue("c", {"on-demand": {"cpu": "0"}, "spot": {"cpu": "8"}}, cohort="co"),
                     local_queue("lq-a", "a"), local_queue("lq-b", "b"),
                     workload("a1", "lq-a", cpu="3", admitted_in="a", admitted_flavor="spot"),
                     workload("a2", "lq-a", cpu="2", created=LATE), workload("b2", "lq-b", cpu="5", created=EARLY),
                     fair_sharing=True)
    assert order(sim, "a2", "b2") == ["a2", "b2"]


def test_fs_4_on_equal_shares_higher_priority_then_earlier_wins() -> None:
    sim = three_queues(workload("a2", "lq-a", cpu="1", created=EARLY, priority=0),
                       workload("b2", "lq-b", cpu="1", created=LATE, priority=5),
                       workload("c2", "lq-c", cpu="1", created=EARLY, priority=5))
    assert order(sim, "a2", "b2", "c2") == ["c2", "b2", "a2"]


def test_fs_4_entries_of_different_trees_come_root_by_root_in_name_order() -> None:
    sim = simulation(flavor("default"), cluster_queue("zeta", {"default": {"cpu": "4"}}),
                     cluster_queue("alpha", {"default": {"cpu": "4"}}), local_queue("lq-z", "zeta"),
                     local_queue("lq-a", "alpha"), workload("z", "lq-z"), workload("a", "lq-a"), fair_sharing=True)
    assert order(sim, "z", "a") == ["a", "z"]
