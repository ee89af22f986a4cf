"""A preemptor, its ClusterQueue and the quota cache, from manifests, for the preemption unit tests."""

from __future__ import annotations

from typing import Any

from kqctl.kueue.engine.preemption.targets import PreemptionContext, Target
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import flavor, local_queue, simulation, workload

CPU = ("default", "cpu")


def scenario(*documents: dict[str, Any], pending: dict[str, Any] | None = None, **options: Any) -> Simulation:
    """The documents plus LocalQueues lq-<cq> for ClusterQueues a and b, and the pending workload ``pending``."""
    queues = [local_queue(f"lq-{d['metadata']['name']}", d["metadata"]["name"])
              for d in documents if d["kind"] == "ClusterQueue"]
    extra = [pending] if pending is not None else []
    return simulation(flavor("default"), *documents, *queues, *extra, **options)


def context(sim: Simulation, name: str, cpu: int) -> PreemptionContext:
    """The pending workload ``ns/name`` needing ``cpu`` milli-cpu of the default flavor in its ClusterQueue."""
    outcome = sim.outcomes[f"ns/{name}"]
    assert outcome.workload.cluster_queue is not None
    return PreemptionContext(outcome.workload, sim.cache.cluster_queues[outcome.workload.cluster_queue], {CPU},
                             {CPU: cpu})


def victims(targets: list[Target]) -> list[tuple[str, str]]:
    return sorted((t.workload.model.name, t.reason) for t in targets)


def running(name: str, cluster_queue: str, cpu: str, priority: int = 0, **fields: Any) -> dict[str, Any]:
    return workload(name, f"lq-{cluster_queue}", cpu=cpu, priority=priority, admitted_in=cluster_queue, **fields)


def waiting(name: str, cluster_queue: str, cpu: str, priority: int = 0) -> dict[str, Any]:
    return workload(name, f"lq-{cluster_queue}", cpu=cpu, priority=priority)
