"""Generate Kueue's own large-scale scheduler benchmark shape, for the kqctl engine benchmark.

    python benchmarks/generate_engine.py --out /tmp/kueue-engine-50k
    python benchmarks/generate_engine.py --out /tmp/small --workloads 5000 --queues-per-cohort 10

Mirrors ``test/performance/scheduler/configs/large-scale/generator.yaml`` of
kubernetes-sigs/kueue and the objects its runner (``runner/generator/generator.go``) creates:

* one ResourceFlavor ``rf`` (no labels, taints or topology);
* 10 flat cohorts ``cohort-<c>``: implicit by default (``spec.cohortName`` on the ClusterQueues,
  as the Kueue test does), or explicit empty Cohort objects with ``--cohort-objects``;
* 100 ClusterQueues per cohort, ``cq-0-<i>-cohort-<c>``: one resource group ``[cpu]`` on ``rf``
  with nominalQuota 20 and borrowingLimit 100, ``namespaceSelector: {}``, BestEffortFIFO,
  flavorFungibility MayStopSearch/TryNextFlavor, preemption reclaimWithinCohort Any and
  withinClusterQueue LowerPriority;
* one Namespace per ClusterQueue (same name) with one LocalQueue (same name) pointing at it;
* 3 WorkloadPriorityClasses for the workload classes' priorities (50, 100, 200);
* 50 pending Workloads per ClusterQueue (50,000 in all), one pod set ``main`` of one pod with one
  container requesting cpu, in the Kueue config's three workload sets:

  ======  =====  ========  ========  ===================  ==========
  class   count  request   priority  creation interval     runtimeMs
  ======  =====  ========  ========  ===================  ==========
  small   35     1 cpu     50        every 60 ms           150
  medium  11     5 cpu     100       every 300 ms          350
  large   4      20 cpu    200       every 700 ms          700
  ======  =====  ========  ========  ===================  ==========

  Names are ``<class>-<set>-<n>-0`` as in Kueue's runner; labels carry the class and the runtime
  (``kueue.x-k8s.io/performance-scheduler-class`` / ``-running-ms``), which kqctl does not use.

Creation timestamps follow the runner's timing: every ClusterQueue starts its three workload
sets concurrently, and workload ``n`` of a set is created ``(n + 1) * interval`` after that
start. The runner creates ClusterQueues concurrently too, so each ClusterQueue gets a start
offset drawn (from ``--seed``) in ``[0, --start-spread-ms)``. Timestamps are written with
millisecond precision (``2025-12-31T23:00:01.234Z``), or whole seconds with ``--second-precision``
(the way the API server would print them; many workloads then share a timestamp).

With ``--workloads N`` other than 50 per ClusterQueue, each ClusterQueue gets ``N // queues``
workloads (the first ``N % queues`` ClusterQueues in a seeded order one more), split between the
classes in the config's 35:11:4 proportion (largest remainder); the creation interval of each
class stays the same. The same options and seed always produce byte-identical files.
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
# Before kqctl's default simulation clock (2026-01-01T00:00:00Z), so every workload exists "now".
EPOCH = datetime(2025, 12, 31, 23, 0, tzinfo=timezone.utc)
FLAVOR = "rf"  # the runner's defaultResourceFlavorName
RUNNING_TIME_LABEL = "kueue.x-k8s.io/performance-scheduler-running-ms"
CLASS_LABEL = "kueue.x-k8s.io/performance-scheduler-class"
CLEANUP_LABEL = "kueue.x-k8s.io/performance-scheduler-cleanup"

DEFAULT_COHORTS = 10
DEFAULT_QUEUES_PER_COHORT = 100
NOMINAL_QUOTA = "20"
BORROWING_LIMIT = "100"
RECLAIM_WITHIN_COHORT = "Any"
WITHIN_CLUSTER_QUEUE = "LowerPriority"


@dataclass(frozen=True)
class WorkloadClass:
    name: str
    count: int  # per ClusterQueue in the Kueue config (50 in all)
    interval_ms: int
    runtime_ms: int
    priority: int
    request: str  # cpu
    priority_class: str


# configs/large-scale/generator.yaml, in its order (which is also the workload set index).
CLASSES = (
    WorkloadClass("small", 35, 60, 150, 50, "1", "perf-low"),
    WorkloadClass("medium", 11, 300, 350, 100, "5", "perf-medium"),
    WorkloadClass("large", 4, 700, 700, 200, "20", "perf-high"),
)
PER_QUEUE = sum(c.count for c in CLASSES)  # 50
DEFAULT_WORKLOADS = DEFAULT_COHORTS * DEFAULT_QUEUES_PER_COHORT * PER_QUEUE  # 50,000


@dataclass(frozen=True)
class Shape:
    workloads: int = DEFAULT_WORKLOADS
    cohorts: int = DEFAULT_COHORTS
    queues_per_cohort: int = DEFAULT_QUEUES_PER_COHORT
    seed: int = 42
    start_spread_ms: int = 1000
    second_precision: bool = False
    cohort_objects: bool = False

    @property
    def queues(self) -> int:
        return self.cohorts * self.queues_per_cohort

    def check(self) -> None:
        if self.cohorts < 1 or self.queues_per_cohort < 1:
            raise ValueError("--cohorts and --queues-per-cohort must be at least 1")
        if self.workloads < 0:
            raise ValueError("--workloads must not be negative")
        if self.start_spread_ms < 0:
            raise ValueError("--start-spread-ms must not be negative")


def split(n: int) -> list[int]:
    """``n`` workloads of one ClusterQueue split between the classes as 35:11:4 (largest remainder)."""
    exact = [n * c.count / PER_QUEUE for c in CLASSES]
    counts = [int(x) for x in exact]
    order = sorted(range(len(CLASSES)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return counts


def queue_name(cohort: int, index: int) -> str:
    return f"cq-0-{index}-cohort-{cohort}"  # "<className>-<queueSetIdx>-<idx>-<cohortName>"


def _ts(t: datetime, second_precision: bool) -> str:
    if second_precision:
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def resource_flavor() -> dict:
    return {
        "apiVersion": API,
        "kind": "ResourceFlavor",
        "metadata": {"name": FLAVOR, "labels": {CLEANUP_LABEL: "true"}},
        "spec": {},
    }


def priority_classes() -> Iterator[dict]:
    for c in CLASSES:
        yield {
            "apiVersion": API,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": c.priority_class},
            "value": c.priority,
            "description": f"Priority of the {c.name} workloads of Kueue's scheduler performance test.",
        }


def cohort(c: int) -> dict:
    return {"apiVersion": API, "kind": "Cohort", "metadata": {"name": f"cohort-{c}"}, "spec": {}}


def cluster_queue(c: int, i: int) -> dict:
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": queue_name(c, i), "labels": {CLASS_LABEL: "cq", CLEANUP_LABEL: "true"}},
        "spec": {
            "cohortName": f"cohort-{c}",
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": FLAVOR,
                            "resources": [
                                {"name": "cpu", "nominalQuota": NOMINAL_QUOTA, "borrowingLimit": BORROWING_LIMIT}
                            ],
                        }
                    ],
                }
            ],
            "preemption": {"reclaimWithinCohort": RECLAIM_WITHIN_COHORT, "withinClusterQueue": WITHIN_CLUSTER_QUEUE},
        },
    }


def namespace(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, CLEANUP_LABEL: "true"}},
    }


def local_queue(name: str) -> dict:
    return {
        "apiVersion": API,
        "kind": "LocalQueue",
        "metadata": {"namespace": name, "name": name},
        "spec": {"clusterQueue": name},
    }


def workload(name: str, ns: str, cls: WorkloadClass, created: datetime, uid: str, second_precision: bool) -> dict:
    return {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": uid,
            "creationTimestamp": _ts(created, second_precision),
            "labels": {RUNNING_TIME_LABEL: str(cls.runtime_ms), CLASS_LABEL: cls.name},
        },
        "spec": {
            "queueName": ns,
            "priority": cls.priority,
            "priorityClassRef": {
                "group": "kueue.x-k8s.io",
                "kind": "WorkloadPriorityClass",
                "name": cls.priority_class,
            },
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": cls.request}}}],
                        }
                    },
                }
            ],
        },
    }


def _uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def workloads_per_queue(shape: Shape, rng: random.Random) -> list[int]:
    base, extra = divmod(shape.workloads, shape.queues)
    counts = [base] * shape.queues
    lucky = list(range(shape.queues))
    rng.shuffle(lucky)
    for q in lucky[:extra]:
        counts[q] += 1
    return counts


def workload_docs(shape: Shape, rng: random.Random) -> Iterator[dict]:
    queues = [(c, i) for c in range(shape.cohorts) for i in range(shape.queues_per_cohort)]
    counts = workloads_per_queue(shape, rng)
    starts = [rng.randrange(shape.start_spread_ms) if shape.start_spread_ms else 0 for _ in queues]
    for (c, i), n, start_ms in zip(queues, counts, starts, strict=True):
        ns = queue_name(c, i)
        for set_idx, (cls, k) in enumerate(zip(CLASSES, split(n), strict=True)):
            for si in range(k):
                created = EPOCH + timedelta(milliseconds=start_ms + (si + 1) * cls.interval_ms)
                yield workload(f"{cls.name}-{set_idx}-{si}-0", ns, cls, created, _uid(rng), shape.second_precision)


def generate(shape: Shape, out: Path, per_file: int = 5000) -> Counter:
    """Write the snapshot into ``out``; returns the number of documents per kind."""
    shape.check()
    rng = random.Random(shape.seed)
    out.mkdir(parents=True, exist_ok=True)
    names = [queue_name(c, i) for c in range(shape.cohorts) for i in range(shape.queues_per_cohort)]
    cluster: list[dict] = [resource_flavor(), *priority_classes()]
    if shape.cohort_objects:
        cluster += [cohort(c) for c in range(shape.cohorts)]
    cluster += [cluster_queue(c, i) for c in range(shape.cohorts) for i in range(shape.queues_per_cohort)]
    streams: list[tuple[str, Iterable[dict]]] = [
        ("00-cluster", cluster),
        ("01-tenants", [doc for name in names for doc in (namespace(name), local_queue(name))]),
        ("workloads", workload_docs(shape, rng)),
    ]
    kinds: Counter = Counter()
    for prefix, docs in streams:
        for n, chunk in enumerate(_chunks(docs, per_file), start=1):
            (out / f"{prefix}-{n:03d}.yaml").write_text(to_yaml(chunk), encoding="utf-8")
            kinds.update(doc["kind"] for doc in chunk)
    return kinds


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workloads", type=int, default=DEFAULT_WORKLOADS,
                        help=f"pending Workloads in all (default {DEFAULT_WORKLOADS:,}: {PER_QUEUE} per ClusterQueue)")
    parser.add_argument("--cohorts", type=int, default=DEFAULT_COHORTS,
                        help=f"flat cohorts (default {DEFAULT_COHORTS})")
    parser.add_argument("--queues-per-cohort", type=int, default=DEFAULT_QUEUES_PER_COHORT,
                        help=f"ClusterQueues per cohort (default {DEFAULT_QUEUES_PER_COHORT})")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--start-spread-ms", type=int, default=1000,
                        help="ClusterQueue start offsets are drawn in [0, this) ms (default 1000)")
    parser.add_argument("--second-precision", action="store_true",
                        help="write creationTimestamps in whole seconds (default: milliseconds)")
    parser.add_argument("--cohort-objects", action="store_true",
                        help="also write the cohorts as (empty) Cohort objects (default: implicit, as in Kueue's test)")


def shape_from(args: argparse.Namespace) -> Shape:
    return Shape(args.workloads, args.cohorts, args.queues_per_cohort, args.seed, args.start_spread_ms,
                 args.second_precision, args.cohort_objects)


def main(argv: list[str] | None = None) -> int:
    description = __doc__.splitlines()[0] if __doc__ else ""
    return generator_main(argv, description, "generate_engine.py", add_shape_arguments, shape_from, generate)

if __name__ == "__main__":
    sys.exit(main())
