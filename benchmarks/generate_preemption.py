"""Generate a preemption-heavy Kueue snapshot, for the replay benchmark of issue 21.

    python benchmarks/generate_preemption.py --out /tmp/kueue-preempt-10k
    python benchmarks/generate_preemption.py --out /tmp/kueue-preempt-50k --workloads 50000

The shape the issue names: 50 ClusterQueues in 5 cohorts (10 per cohort), every one with
``reclaimWithinCohort: Any`` and ``withinClusterQueue: LowerPriority``; 10,000 Workloads (by
default) of one pod requesting 1-8 cpu at three priorities (low 100, medium 500, high 1000), each
declaring ``kqctl.dev/runtime: 30m``. One ResourceFlavor ``rf``; one Namespace and one LocalQueue per
ClusterQueue (same name).

What makes it preemption-heavy:

* Every ClusterQueue's ``nominalQuota`` is 40 cpu with no ``borrowingLimit``: a busy ClusterQueue
  borrows its whole cohort's idle quota, which its siblings then reclaim (``reclaimWithinCohort: Any``).
* Workloads are spread unevenly over the ClusterQueues (a seeded weight per ClusterQueue, 1 to 4):
  some ClusterQueues borrow, others reclaim.
* Creation times are spread over ``--spread`` (default 6 h), starting an hour before the snapshot's
  clock (2026-01-01T00:00:00Z, kqctl's default ``--now``): a sixth of the workloads are pending at
  the start, the rest arrive during the replay while the cohorts are full, and an arriving
  higher-priority workload preempts a lower one of its ClusterQueue (``withinClusterQueue:
  LowerPriority``). Over the spread the cohorts are asked for about twice what their quota can run.

``queueingStrategy`` is written explicitly (``--queueing-strategy``, default ``BestEffortFIFO``,
what the API server stores when it is left out), so the scenario does not depend on kqctl's
defaulting. The same options and seed always produce byte-identical files.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import _chunks, generator_main, to_yaml  # noqa: E402  (benchmarks/ is not a package)

API = "kueue.x-k8s.io/v1beta2"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)  # kqctl's default clock
FLAVOR = "rf"
RUNTIME_ANNOTATION = "kqctl.dev/runtime"
PRIORITIES = (("low", 100), ("medium", 500), ("high", 1000))
PRIORITY_WEIGHTS = (6, 3, 1)  # low work is the most common: the high ones preempt it


@dataclass(frozen=True)
class Shape:
    workloads: int = 10_000
    cohorts: int = 5
    queues_per_cohort: int = 10
    nominal_cpu: int = 40
    spread_ms: int = 6 * 3_600_000
    runtime: str = "30m"
    queueing_strategy: str = "BestEffortFIFO"
    seed: int = 42
    # Variants for the equivalence checks (scripts/replay_equivalence.py): other policies and limits.
    within_cluster_queue: str = "LowerPriority"
    reclaim_within_cohort: str = "Any"
    borrowing_limit: int | None = None
    lending_limit: int | None = None
    parent_cohorts: int = 0  # >0: the cohorts are children of this many parent Cohorts (a hierarchy)
    flavors: int = 1  # >1: the cpu quota is split over this many flavors rf-0, rf-1, ... tried in order

    def check(self) -> None:
        if min(self.cohorts, self.queues_per_cohort, self.spread_ms, self.flavors) < 1 or self.workloads < 0:
            raise ValueError("--cohorts, --queues-per-cohort, --spread and --flavors must be at least 1, "
                             "--workloads >= 0")
        if self.queueing_strategy not in ("BestEffortFIFO", "StrictFIFO"):
            raise ValueError("--queueing-strategy: BestEffortFIFO or StrictFIFO")
        per_flavor = self.nominal_cpu // self.flavors
        if self.lending_limit is not None and not 0 <= self.lending_limit <= per_flavor:
            # Kueue refuses such a ClusterQueue (VAL-CQ-23): the snapshot would not load
            raise ValueError(f"--lending-limit {self.lending_limit} must be between 0 and each flavor's nominalQuota "
                             f"({per_flavor}: --nominal-cpu {self.nominal_cpu} over {self.flavors} flavor(s))")
        if self.borrowing_limit is not None and self.borrowing_limit < 0:
            raise ValueError(f"--borrowing-limit {self.borrowing_limit} must be at least 0")


def queue_name(cohort: int, index: int) -> str:
    return f"cq-{cohort}-{index}"


def cluster_queue(shape: Shape, cohort: int, index: int) -> dict:
    flavors = []
    for name in flavor_names(shape):
        cpu: dict[str, str] = {"name": "cpu", "nominalQuota": str(shape.nominal_cpu // shape.flavors)}
        if shape.borrowing_limit is not None:
            cpu["borrowingLimit"] = str(shape.borrowing_limit)
        if shape.lending_limit is not None:
            cpu["lendingLimit"] = str(shape.lending_limit)
        flavors.append({"name": name, "resources": [cpu]})
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": queue_name(cohort, index)},
        "spec": {
            "cohortName": f"cohort-{cohort}",
            "namespaceSelector": {},
            "queueingStrategy": shape.queueing_strategy,
            "resourceGroups": [{"coveredResources": ["cpu"], "flavors": flavors}],
            "preemption": {"reclaimWithinCohort": shape.reclaim_within_cohort,
                           "withinClusterQueue": shape.within_cluster_queue},
        },
    }


def flavor_names(shape: Shape) -> list[str]:
    return [FLAVOR] if shape.flavors == 1 else [f"{FLAVOR}-{i}" for i in range(shape.flavors)]


def cohorts(shape: Shape) -> Iterator[dict]:
    """With parent cohorts: each cohort a child of one of them, and the parents themselves (no quota of their own)."""
    if not shape.parent_cohorts:
        return
    for c in range(shape.cohorts):
        yield {"apiVersion": API, "kind": "Cohort", "metadata": {"name": f"cohort-{c}"},
               "spec": {"parentName": f"parent-{c % shape.parent_cohorts}"}}
    for p in range(shape.parent_cohorts):
        yield {"apiVersion": API, "kind": "Cohort", "metadata": {"name": f"parent-{p}"}, "spec": {}}


def tenant(name: str) -> Iterator[dict]:
    yield {"apiVersion": "v1", "kind": "Namespace",
           "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}
    yield {"apiVersion": API, "kind": "LocalQueue", "metadata": {"namespace": name, "name": name},
           "spec": {"clusterQueue": name}}


def priority_classes() -> Iterator[dict]:
    for name, value in PRIORITIES:
        yield {"apiVersion": API, "kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}


def _uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def workload_docs(shape: Shape, rng: random.Random) -> Iterator[dict]:
    names = [queue_name(c, i) for c in range(shape.cohorts) for i in range(shape.queues_per_cohort)]
    weights = [rng.randint(1, 4) for _ in names]
    first = NOW - timedelta(hours=1)
    for n in range(shape.workloads):
        namespace = rng.choices(names, weights)[0]
        priority_class, priority = rng.choices(PRIORITIES, PRIORITY_WEIGHTS)[0]
        cpu = rng.randint(1, 8)
        created = first + timedelta(milliseconds=rng.randrange(shape.spread_ms))
        yield {
            "apiVersion": API,
            "kind": "Workload",
            "metadata": {"name": f"job-{n:06d}", "namespace": namespace, "uid": _uid(rng),
                         "creationTimestamp": _ts(created), "annotations": {RUNTIME_ANNOTATION: shape.runtime}},
            "spec": {
                "queueName": namespace,
                "priority": priority,
                "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                     "name": priority_class},
                "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}}],
            },
        }


def documents(shape: Shape) -> Iterator[tuple[str, Iterable[dict]]]:
    """The snapshot's documents, by file prefix."""
    shape.check()
    rng = random.Random(shape.seed)
    cluster = [*({"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {}}
                 for name in flavor_names(shape)),
               *priority_classes(),
               *cohorts(shape),
               *(cluster_queue(shape, c, i) for c in range(shape.cohorts) for i in range(shape.queues_per_cohort))]
    yield "00-cluster", cluster
    yield "01-tenants", [doc for c in range(shape.cohorts) for i in range(shape.queues_per_cohort)
                         for doc in tenant(queue_name(c, i))]
    yield "workloads", workload_docs(shape, rng)


def generate(shape: Shape, out: Path, per_file: int = 5000) -> Counter:
    """Write the snapshot into ``out``; returns the number of documents per kind."""
    out.mkdir(parents=True, exist_ok=True)
    kinds: Counter = Counter()
    for prefix, docs in documents(shape):
        for n, chunk in enumerate(_chunks(docs, per_file), start=1):
            (out / f"{prefix}-{n:03d}.yaml").write_text(to_yaml(chunk), encoding="utf-8")
            kinds.update(doc["kind"] for doc in chunk)
    return kinds


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workloads", type=int, default=10_000, help="Workloads in all (default 10,000)")
    parser.add_argument("--cohorts", type=int, default=5)
    parser.add_argument("--queues-per-cohort", type=int, default=10)
    parser.add_argument("--nominal-cpu", type=int, default=40, help="each ClusterQueue's nominalQuota (cpu)")
    parser.add_argument("--spread-hours", type=float, default=6.0, help="creation times are spread over this")
    parser.add_argument("--runtime", default="30m", help="every Workload's kqctl.dev/runtime annotation")
    parser.add_argument("--queueing-strategy", default="BestEffortFIFO", choices=("BestEffortFIFO", "StrictFIFO"))
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--within-cluster-queue", default="LowerPriority",
                        choices=("Never", "LowerPriority", "LowerOrNewerEqualPriority"))
    parser.add_argument("--reclaim-within-cohort", default="Any", choices=("Never", "LowerPriority", "Any"))
    parser.add_argument("--borrowing-limit", type=int, help="each ClusterQueue's borrowingLimit (cpu; default none)")
    parser.add_argument("--lending-limit", type=int, help="each ClusterQueue's lendingLimit (cpu; default none)")
    parser.add_argument("--parent-cohorts", type=int, default=0,
                        help="make the cohorts children of this many parent Cohorts (default 0: flat)")
    parser.add_argument("--flavors", type=int, default=1, help="split the cpu quota over this many flavors")


def shape_from(args: argparse.Namespace) -> Shape:
    return Shape(args.workloads, args.cohorts, args.queues_per_cohort, args.nominal_cpu,
                 int(args.spread_hours * 3_600_000), args.runtime, args.queueing_strategy, args.seed,
                 args.within_cluster_queue, args.reclaim_within_cohort, args.borrowing_limit, args.lending_limit,
                 args.parent_cohorts, args.flavors)


def main(argv: list[str] | None = None) -> int:
    description = __doc__.splitlines()[0] if __doc__ else ""
    return generator_main(argv, description, "generate_preemption.py", add_shape_arguments, shape_from, generate)

if __name__ == "__main__":
    sys.exit(main())
