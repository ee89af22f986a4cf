"""Generate a large, valid Kueue v1beta2 snapshot for benchmarks.

    python benchmarks/generate.py --count 50000 --out /tmp/kueue-50k [--seed 42] [--per-file 5000]

The output is a realistic mix, deterministic for a given (count, seed):

* 8 ResourceFlavors (cpu/memory: on-demand, spot (tainted), reserved, arm64; GPUs: a100, h100,
  t4, l4) and 5 WorkloadPriorityClasses;
* root Cohorts with a shared burst quota, department Cohorts under them (``parentName``);
* ClusterQueues (about 1% of ``count``), ten per department, in cohorts, with borrowing and
  lending limits, preemption and flavor-fungibility policies and fair-sharing weights;
* one Namespace per ClusterQueue (matched by its ``namespaceSelector``) with two LocalQueues;
* Workloads for the rest: one to three pod sets with pod templates (init containers, sidecars,
  limits, nodeSelectors, tolerations, GPUs), priorities from the WorkloadPriorityClasses, and
  about 15% admitted (``status.admission`` + ``QuotaReserved``/``Admitted``) while quota lasts.

Every object is meant to be valid, with every reference resolvable, so that a benchmark of
``kqctl validate`` measures the common path rather than error reporting: quotas are
non-negative with ``lendingLimit <= nominalQuota``, limits only where a cohort exists, every
Workload fits the maximum capacity of its ClusterQueue, admitted usage stays within nominal
quota and equals the pod-set requests times the count.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

API = "kueue.x-k8s.io/v1beta2"
GI = 2**30
MI = 2**20
EPOCH = datetime(2026, 9, 7, tzinfo=timezone.utc)

# --- fixed catalogue -------------------------------------------------------------------------

CAPACITY_LABEL = "node.example.com/capacity-type"
GPU_LABEL = "nvidia.com/gpu.product"
SPOT_TOLERATION = {"key": CAPACITY_LABEL, "operator": "Equal", "value": "spot", "effect": "NoSchedule"}

CPU_FLAVORS = {
    "on-demand": {"nodeLabels": {CAPACITY_LABEL: "on-demand"}},
    "spot": {
        "nodeLabels": {CAPACITY_LABEL: "spot"},
        "nodeTaints": [{"key": CAPACITY_LABEL, "value": "spot", "effect": "NoSchedule"}],
    },
    "reserved": {"nodeLabels": {CAPACITY_LABEL: "reserved"}},
    "arm64": {"nodeLabels": {"kubernetes.io/arch": "arm64"}},
}
GPU_PRODUCTS = {
    "a100": "NVIDIA-A100-SXM4-80GB",
    "h100": "NVIDIA-H100-80GB-HBM3",
    "t4": "Tesla-T4",
    "l4": "NVIDIA-L4",
}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

# Ordered flavor lists a department may use; on-demand is always the fallback so that every
# tree shares it with the root cohort's burst quota.
CPU_FLAVOR_SETS = [
    ["on-demand"],
    ["spot", "on-demand"],
    ["reserved", "spot", "on-demand"],
    ["arm64", "on-demand"],
]
GPU_FLAVOR_SETS = [["a100"], ["h100", "a100"], ["t4"], ["l4", "t4"], ["a100", "t4"]]

PRIORITY_CLASSES = [
    ("best-effort", 0, "Opportunistic work; first to be preempted."),
    ("low", 100, "Batch jobs without a deadline."),
    ("standard", 1000, "Default priority for team workloads."),
    ("high", 10000, "Jobs with a deadline today."),
    ("critical", 100000, "Production pipelines and incident response."),
]
PRIORITY_WEIGHTS = [10, 25, 40, 20, 5]

PREEMPTION_POLICIES = [
    {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
    {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"},
    {
        "withinClusterQueue": "LowerOrNewerEqualPriority",
        "reclaimWithinCohort": "LowerPriority",
        "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 1000},
    },
    {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
]
FUNGIBILITY_POLICIES = [
    None,
    {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
    {
        "whenCanBorrow": "TryNextFlavor",
        "whenCanPreempt": "TryNextFlavor",
        "preference": "BorrowingOverPreemption",
    },
    {
        "whenCanBorrow": "TryNextFlavor",
        "whenCanPreempt": "TryNextFlavor",
        "preference": "PreemptionOverBorrowing",
    },
]

ORGS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell", "cyberdyne"]
DEPARTMENTS = [
    "research",
    "platform",
    "data",
    "ads",
    "search",
    "vision",
    "speech",
    "robotics",
    "finance",
    "infra",
]
TEAMS = ["alpha", "bravo", "core", "edge", "fusion", "gamma", "helix", "ion", "jade", "kilo", "lumen", "nova"]
JOB_VERBS = [
    "train",
    "eval",
    "etl",
    "sweep",
    "infer",
    "backfill",
    "report",
    "embed",
    "finetune",
    "simulate",
    "index",
]
JOB_NOUNS = [
    "resnet",
    "bert",
    "llama",
    "ranker",
    "churn",
    "clicks",
    "catalog",
    "fraud",
    "forecast",
    "asr",
    "vit",
]
IMAGES = [
    "python:3.12-slim",
    "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
    "nvcr.io/nvidia/pytorch:24.08-py3",
    "apache/spark-py:v3.4.0",
    "ghcr.io/example/batch-runner:2026.09",
    "gcr.io/k8s-staging-perf-tests/sleep:v0.1.0",
]
POD_SET_LAYOUTS = [(["main"], 70), (["launcher", "worker"], 25), (["driver", "executor", "ps"], 5)]


# --- quantities ------------------------------------------------------------------------------


def cpu_str(milli: int) -> str:
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def mem_str(nbytes: int) -> str:
    if nbytes % GI == 0:
        return f"{nbytes // GI}Gi"
    if nbytes % MI == 0:
        return f"{nbytes // MI}Mi"
    return str(nbytes)


def qty_str(resource: str, value: int) -> str:
    if resource == "cpu":
        return cpu_str(value)
    if resource == "memory":
        return mem_str(value)
    return str(value)


def ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- model of what was generated (used to keep Workloads valid) ------------------------------


@dataclass
class Queue:
    name: str
    namespace: str
    cohort: str
    cpu_flavors: list[str]
    gpu_flavors: list[str]
    nominal: dict[tuple[str, str], int]  # (flavor, resource) -> canonical integer
    local_queues: list[str]
    usage: Counter = field(default_factory=Counter)

    def min_nominal(self, resource: str) -> int:
        flavors = self.gpu_flavors if resource == "nvidia.com/gpu" else self.cpu_flavors
        return min(self.nominal[(f, resource)] for f in flavors)


@dataclass
class Plan:
    """How many objects of each kind ``count`` turns into."""

    queues: int
    departments: int
    roots: int
    workloads: int

    @classmethod
    def for_count(cls, count: int) -> Plan:
        queues = max(2, round(count * 0.01))
        departments = max(1, queues // 10)
        roots = max(1, departments // 10)
        fixed = len(CPU_FLAVORS) + len(GPU_PRODUCTS) + len(PRIORITY_CLASSES) + roots + departments
        workloads = count - fixed - queues * 4  # per queue: ClusterQueue, Namespace, 2 LocalQueues
        if workloads < 1:
            raise ValueError(
                f"--count {count} is too small: the fixed objects alone need {count - workloads + 1}"
            )
        return cls(queues, departments, roots, workloads)


# --- generators ------------------------------------------------------------------------------


def resource_flavors() -> Iterator[dict]:
    for name, spec in CPU_FLAVORS.items():
        yield {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}
    for name, product in GPU_PRODUCTS.items():
        yield {
            "apiVersion": API,
            "kind": "ResourceFlavor",
            "metadata": {"name": name},
            "spec": {
                "nodeLabels": {GPU_LABEL: product},
                "nodeTaints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
                "tolerations": [GPU_TOLERATION],
            },
        }


def priority_classes() -> Iterator[dict]:
    for name, value, description in PRIORITY_CLASSES:
        yield {
            "apiVersion": API,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": name},
            "value": value,
            "description": description,
        }


def _resource_entry(
    name: str, nominal: int, borrowing: int | None = None, lending: int | None = None
) -> dict:
    entry = {"name": name, "nominalQuota": qty_str(name, nominal)}
    if borrowing is not None:
        entry["borrowingLimit"] = qty_str(name, borrowing)
    if lending is not None:
        entry["lendingLimit"] = qty_str(name, lending)
    return entry


def cohorts(
    plan: Plan, rng: random.Random
) -> tuple[list[dict], list[str], dict[str, tuple[list[str], list[str]]]]:
    """Root cohorts (with a burst quota on on-demand) and department cohorts under them."""
    docs: list[dict] = []
    roots = [f"{ORGS[i % len(ORGS)]}{'' if i < len(ORGS) else i // len(ORGS)}" for i in range(plan.roots)]
    for root in roots:
        cpu = rng.choice([16, 32, 64]) * 1000
        docs.append(
            {
                "apiVersion": API,
                "kind": "Cohort",
                "metadata": {"name": root},
                "spec": {
                    "resourceGroups": [
                        {
                            "coveredResources": ["cpu", "memory"],
                            "flavors": [
                                {
                                    "name": "on-demand",
                                    "resources": [
                                        _resource_entry("cpu", cpu),
                                        _resource_entry("memory", cpu // 1000 * 4 * GI),
                                    ],
                                }
                            ],
                        }
                    ],
                },
            }
        )
    departments: list[str] = []
    flavor_sets: dict[str, tuple[list[str], list[str]]] = {}
    for i in range(plan.departments):
        root = roots[i % len(roots)]
        name = f"{root}-{DEPARTMENTS[i // len(roots) % len(DEPARTMENTS)]}"
        if i // len(roots) >= len(DEPARTMENTS):
            name += f"-{i // len(roots) // len(DEPARTMENTS)}"
        spec: dict = {"parentName": root}
        if rng.random() < 0.3:
            spec["fairSharing"] = {"weight": rng.choice(["1", "2", "500m"])}
        docs.append({"apiVersion": API, "kind": "Cohort", "metadata": {"name": name}, "spec": spec})
        departments.append(name)
        gpus = rng.choice(GPU_FLAVOR_SETS) if rng.random() < 0.4 else []
        flavor_sets[name] = (rng.choice(CPU_FLAVOR_SETS), gpus)
    return docs, departments, flavor_sets


def cluster_queue(queue: Queue, rng: random.Random) -> dict:
    groups: list[dict] = []
    cpu_flavors: list[dict] = []
    cpu_group = {"coveredResources": ["cpu", "memory"], "flavors": cpu_flavors}
    for flavor in queue.cpu_flavors:
        cpu = queue.nominal[(flavor, "cpu")]
        mem = queue.nominal[(flavor, "memory")]
        borrow = rng.random() < 0.5
        lend = rng.random() < 0.25
        cpu_flavors.append(
            {
                "name": flavor,
                "resources": [
                    _resource_entry("cpu", cpu, cpu // 2 if borrow else None, cpu * 3 // 4 if lend else None),
                    _resource_entry(
                        "memory", mem, mem // 2 if borrow else None, mem * 3 // 4 if lend else None
                    ),
                ],
            }
        )
    groups.append(cpu_group)
    if queue.gpu_flavors:
        groups.append(
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [
                    {
                        "name": f,
                        "resources": [
                            _resource_entry("nvidia.com/gpu", queue.nominal[(f, "nvidia.com/gpu")])
                        ],
                    }
                    for f in queue.gpu_flavors
                ],
            }
        )
    if rng.random() < 0.7:
        selector: dict = {"matchLabels": {"kueue.example.com/tenant": queue.name}}
    else:
        selector = {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": [queue.namespace]},
            ]
        }
    spec: dict = {
        "cohortName": queue.cohort,
        "namespaceSelector": selector,
        "queueingStrategy": "StrictFIFO" if rng.random() < 0.2 else "BestEffortFIFO",
        "preemption": rng.choice(PREEMPTION_POLICIES),
        "resourceGroups": groups,
    }
    fungibility = rng.choice(FUNGIBILITY_POLICIES)
    if fungibility is not None:
        spec["flavorFungibility"] = fungibility
    if rng.random() < 0.3:
        spec["fairSharing"] = {"weight": rng.choice(["1", "2", "3", "500m"])}
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": queue.name}, "spec": spec}


def make_queues(plan: Plan, departments: list[str], flavor_sets: dict, rng: random.Random) -> list[Queue]:
    queues = []
    for i in range(plan.queues):
        cohort = departments[i % len(departments)]
        team = TEAMS[(i // len(departments)) % len(TEAMS)]
        suffix = i // (len(departments) * len(TEAMS))
        name = f"{cohort}-{team}" + (f"-{suffix}" if suffix else "")
        cpu_flavors, gpu_flavors = flavor_sets[cohort]
        nominal: dict[tuple[str, str], int] = {}
        for flavor in cpu_flavors:
            cpu = rng.choice([32, 48, 64, 96, 128, 192, 256])
            nominal[(flavor, "cpu")] = cpu * 1000
            nominal[(flavor, "memory")] = cpu * rng.choice([4, 8]) * GI
        for flavor in gpu_flavors:
            nominal[(flavor, "nvidia.com/gpu")] = rng.choice([8, 16, 32, 64])
        queues.append(
            Queue(
                name,
                f"tenant-{name}",
                cohort,
                list(cpu_flavors),
                list(gpu_flavors),
                nominal,
                ["batch", "interactive"],
            )
        )
    return queues


def namespace(queue: Queue) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": queue.namespace,
            "labels": {
                "kubernetes.io/metadata.name": queue.namespace,
                "kueue.example.com/tenant": queue.name,
            },
        },
    }


def local_queues(queue: Queue) -> Iterator[dict]:
    for lq in queue.local_queues:
        yield {
            "apiVersion": API,
            "kind": "LocalQueue",
            "metadata": {"namespace": queue.namespace, "name": lq},
            "spec": {"clusterQueue": queue.name},
        }


def _add(total: dict[str, int], extra: dict[str, int]) -> None:
    for key, value in extra.items():
        total[key] = total.get(key, 0) + value


def pod_requests(containers: list[dict], init_containers: list[dict]) -> dict[str, int]:
    """Per-pod requests, Kubernetes' PodRequests formula (semantics REQ-6), canonical integers."""

    def requests(c: dict) -> dict[str, int]:
        out = {}
        res = c.get("resources", {})
        merged = dict(res.get("limits", {}))
        merged.update(res.get("requests", {}))  # REQ-5.3: a limit without request is the request
        for name, value in merged.items():
            out[name] = _parse(name, value)
        return out

    total: dict[str, int] = {}
    for c in containers:
        _add(total, requests(c))
    restartable: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for ic in init_containers:
        req = requests(ic)
        if ic.get("restartPolicy") == "Always":
            _add(total, req)
            _add(restartable, req)
            candidate = dict(restartable)
        else:
            candidate = dict(req)
            _add(candidate, restartable)
        for key, value in candidate.items():
            init_peak[key] = max(init_peak.get(key, 0), value)
    for key, value in init_peak.items():
        total[key] = max(total.get(key, 0), value)
    return total


def _parse(resource: str, text: str) -> int:
    if resource == "cpu":
        return int(text[:-1]) if text.endswith("m") else int(text) * 1000
    if resource == "memory":
        for suffix, mult in (("Gi", GI), ("Mi", MI)):
            if text.endswith(suffix):
                return int(text[: -len(suffix)]) * mult
    return int(text)


class WorkloadFactory:
    def __init__(self, queues: list[Queue], rng: random.Random, total: int) -> None:
        self.queues = queues
        self.rng = rng
        self.weights = [rng.choice([1, 2, 4, 8]) for _ in queues]  # some tenants are busier
        self.hex_width = 5 if total < 16**5 else 8

    def _name(self, i: int) -> str:
        h = format(((i + 1) * 0x9E3779B1) % 16**self.hex_width, f"0{self.hex_width}x")
        return f"job-{self.rng.choice(JOB_VERBS)}-{self.rng.choice(JOB_NOUNS)}-{h}"

    def _uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _container(self, name: str, cpu: int, mem: int, gpu: int) -> dict:
        requests = {"cpu": cpu_str(cpu), "memory": mem_str(mem)}
        limits: dict[str, str] = {}
        if self.rng.random() < 0.5:
            limits["memory"] = mem_str(mem)
        if self.rng.random() < 0.2:
            limits["cpu"] = cpu_str(cpu * 2)
        if gpu:
            requests["nvidia.com/gpu"] = str(gpu)
            limits["nvidia.com/gpu"] = str(gpu)
        resources: dict = {"requests": requests}
        if limits:
            resources["limits"] = limits
        return {
            "name": name,
            "image": self.rng.choice(IMAGES),
            "command": ["python", "-m", f"jobs.{name}", f"--shard={self.rng.randrange(64)}"],
            "resources": resources,
        }

    def _pod_set(
        self, name: str, queue: Queue, budget: dict[str, int], gpu_product: str | None
    ) -> tuple[dict, dict]:
        """One pod set whose total request stays within ``budget`` (updated in place)."""
        rng = self.rng
        overhead = 100  # milli-CPU of a possible init container or sidecar
        cpu_options = [c for c in (250, 500, 1000, 2000, 4000, 8000) if c + overhead <= budget["cpu"]] or [
            250
        ]
        cpu = rng.choice(cpu_options)
        mem = cpu // 1000 * rng.choice([2, 4]) * GI if cpu >= 1000 else rng.choice([512, 1024]) * MI
        gpu = 0
        if gpu_product and name in ("main", "worker", "executor"):
            gpu = rng.choice([g for g in (1, 2, 4, 8) if g <= budget["nvidia.com/gpu"]] or [1])
        per_pod_bound = {"cpu": cpu + overhead, "memory": mem + 128 * MI, "nvidia.com/gpu": gpu}
        count = rng.choice([1, 1, 2, 4, 8, 16])
        for res, per in per_pod_bound.items():
            if per:
                count = min(count, budget[res] // per)
        count = max(count, 1)
        containers = [self._container(name, cpu, mem, gpu)]
        init_containers: list[dict] = []
        roll = rng.random()
        if roll < 0.1:
            init_containers.append(
                {
                    "name": "fetch-inputs",
                    "image": "busybox:1.36",
                    "command": ["sh", "-c", "cp -r /inputs/. /work/"],
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            )
        elif roll < 0.15:
            init_containers.append(
                {
                    "name": "log-shipper",
                    "image": "fluent/fluent-bit:3.1",
                    "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            )
        spec: dict = {"restartPolicy": rng.choice(["Never", "OnFailure"]), "containers": containers}
        if init_containers:
            spec["initContainers"] = init_containers
        if gpu_product and gpu:
            spec["nodeSelector"] = {GPU_LABEL: GPU_PRODUCTS[gpu_product]}
        if "spot" in queue.cpu_flavors and rng.random() < 0.5:
            spec["tolerations"] = [dict(SPOT_TOLERATION)]
        per_pod = pod_requests(containers, init_containers)
        for res, value in per_pod.items():
            budget[res] -= value * count
        pod_set: dict = {"name": name, "count": count, "template": {"spec": spec}}
        return pod_set, per_pod

    def _admission(
        self,
        queue: Queue,
        pod_sets: list[dict],
        requests: list[dict[str, int]],
        gpu_product: str | None,
        admitted_at: datetime,
    ) -> dict | None:
        """status for an admitted workload, or None if its usage would exceed nominal quota."""
        tolerates_spot = all("tolerations" in ps["template"]["spec"] for ps in pod_sets)
        cpu_flavor = next(f for f in queue.cpu_flavors if f != "spot" or tolerates_spot)
        flavor_of = {"cpu": cpu_flavor, "memory": cpu_flavor, "nvidia.com/gpu": gpu_product}
        usage: Counter = Counter()
        assignments = []
        for ps, per_pod in zip(pod_sets, requests, strict=True):
            totals = {res: value * ps["count"] for res, value in per_pod.items()}
            for res, value in totals.items():
                usage[(flavor_of[res], res)] += value
            assignments.append(
                {
                    "name": ps["name"],
                    "count": ps["count"],
                    "flavors": {res: flavor_of[res] for res in totals},
                    "resourceUsage": {res: qty_str(res, value) for res, value in totals.items()},
                }
            )
        if any(queue.usage[fr] + v > queue.nominal[fr] for fr, v in usage.items()):
            return None
        queue.usage.update(usage)
        t = ts(admitted_at)
        return {
            "admission": {"clusterQueue": queue.name, "podSetAssignments": assignments},
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "True",
                    "reason": "QuotaReserved",
                    "message": f"Quota reserved in ClusterQueue {queue.name}",
                    "lastTransitionTime": t,
                },
                {
                    "type": "Admitted",
                    "status": "True",
                    "reason": "Admitted",
                    "message": "The workload is admitted",
                    "lastTransitionTime": t,
                },
            ],
        }

    def make(self, i: int) -> dict:
        rng = self.rng
        queue = rng.choices(self.queues, weights=self.weights)[0]
        gpu_product = rng.choice(queue.gpu_flavors) if queue.gpu_flavors and rng.random() < 0.5 else None
        # Half of the smallest flavor quota: every workload fits its ClusterQueue's own nominal
        # quota on any flavor, whatever it later borrows.
        budget = {
            "cpu": queue.min_nominal("cpu") // 2,
            "memory": queue.min_nominal("memory") // 2,
            "nvidia.com/gpu": queue.min_nominal("nvidia.com/gpu") // 2 if gpu_product else 0,
        }
        layout = rng.choices(
            [names for names, _ in POD_SET_LAYOUTS], weights=[w for _, w in POD_SET_LAYOUTS]
        )[0]
        pod_sets, requests = [], []
        for ps_name in layout:
            pod_set, per_pod = self._pod_set(ps_name, queue, budget, gpu_product)
            pod_sets.append(pod_set)
            requests.append(per_pod)
        if rng.random() < 0.1:  # partial admission on the last (largest, "worker") pod set
            last = pod_sets[-1]
            if last["count"] > 1:
                last["minCount"] = max(1, last["count"] // 2)
        created = EPOCH + timedelta(seconds=rng.randrange(7 * 24 * 3600))
        metadata = {
            "name": self._name(i),
            "namespace": queue.namespace,
            "uid": self._uid(),
            "creationTimestamp": ts(created),
            "labels": {"kueue.x-k8s.io/job-uid": self._uid()},
        }
        spec: dict = {"queueName": rng.choice(queue.local_queues), "podSets": pod_sets}
        if rng.random() < 0.7:
            name, value, _ = rng.choices(PRIORITY_CLASSES, weights=PRIORITY_WEIGHTS)[0]
            spec["priority"] = value
            spec["priorityClassRef"] = {
                "group": "kueue.x-k8s.io",
                "kind": "WorkloadPriorityClass",
                "name": name,
            }
        doc: dict = {"apiVersion": API, "kind": "Workload", "metadata": metadata, "spec": spec}
        if rng.random() < 0.35:
            status = self._admission(queue, pod_sets, requests, gpu_product, created + timedelta(seconds=2))
            if status is not None:
                doc["status"] = status
        return doc


# --- output ----------------------------------------------------------------------------------


def _chunks(docs: Iterable[dict], size: int) -> Iterator[list[dict]]:
    chunk: list[dict] = []
    for doc in docs:
        chunk.append(doc)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*|[0-9]+(?:m|[KMGTPE]i)")
_YAML11_BOOL_NULL = {"y", "yes", "n", "no", "true", "false", "on", "off", "null"}


def _scalar(value: object) -> str:
    """A YAML scalar that reads back as exactly ``value`` (YAML 1.1 rules, as kubectl uses)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML11_BOOL_NULL:
        return text
    return json.dumps(text)  # a JSON string is a valid double-quoted YAML scalar


def _emit(value: object, indent: str, out: list[str]) -> None:
    """Block-style YAML like `kubectl get -o yaml` (list items not indented under their key).

    PyYAML's dumper spends most of its time in Python-level representers; this emitter only
    handles what the generator produces (dict, list, str, int, bool) and is ~10x faster.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            prefix = f"{indent}{_scalar(key)}:"
            if isinstance(item, dict) and item:
                out.append(prefix)
                _emit(item, indent + "  ", out)
            elif isinstance(item, list) and item:
                out.append(prefix)
                _emit(item, indent, out)
            else:
                out.append(f"{prefix} {_inline(item)}")
    else:
        assert isinstance(value, list)
        for item in value:
            if isinstance(item, dict) and item:
                lines: list[str] = []
                _emit(item, indent + "  ", lines)
                lines[0] = f"{indent}- {lines[0][len(indent) + 2 :]}"
                out.extend(lines)
            elif isinstance(item, list) and item:
                out.append(f"{indent}-")
                _emit(item, indent + "  ", out)
            else:
                out.append(f"{indent}- {_inline(item)}")


def _inline(value: object) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def to_yaml(docs: Iterable[dict]) -> str:
    """Multi-document YAML for ``docs``."""
    chunks = []
    for doc in docs:
        lines: list[str] = []
        _emit(doc, "", lines)
        chunks.append("\n".join(lines) + "\n")
    return "---\n".join(chunks)


def _write(path: Path, docs: list[dict]) -> None:
    path.write_text(to_yaml(docs), encoding="utf-8")


def generate(count: int, out: Path, seed: int = 42, per_file: int = 5000) -> Counter:
    """Write ``count`` documents into ``out`` (files of at most ``per_file`` documents).

    Returns the number of documents per kind.
    """
    rng = random.Random(seed)
    plan = Plan.for_count(count)
    out.mkdir(parents=True, exist_ok=True)
    cohort_docs, departments, flavor_sets = cohorts(plan, rng)
    queues = make_queues(plan, departments, flavor_sets, rng)
    streams: list[tuple[str, Iterable[dict]]] = [
        (
            "00-cluster",
            [
                *resource_flavors(),
                *priority_classes(),
                *cohort_docs,
                *(cluster_queue(q, rng) for q in queues),
            ],
        ),
        ("01-tenants", [doc for q in queues for doc in (namespace(q), *local_queues(q))]),
    ]
    factory = WorkloadFactory(queues, rng, plan.workloads)
    streams.append(("workloads", (factory.make(i) for i in range(plan.workloads))))
    kinds: Counter = Counter()
    for prefix, docs in streams:
        for n, chunk in enumerate(_chunks(docs, per_file), start=1):
            _write(out / f"{prefix}-{n:03d}.yaml", chunk)
            kinds.update(doc["kind"] for doc in chunk)
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50000, help="total number of documents (default 50000)")
    parser.add_argument("--out", type=Path, required=True, help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--per-file", type=int, default=5000, help="maximum documents per file (default 5000)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        kinds = generate(args.count, args.out, args.seed, args.per_file)
    except ValueError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 2
    print_written(kinds, args.out, time.perf_counter() - start)
    return 0


def print_written(kinds: Counter[str] | dict[str, int], out: Path, elapsed: float) -> None:
    """What a generator wrote: documents, files and time, then a count per kind, largest first."""
    files = len(list(out.glob("*.yaml")))
    print(f"wrote {sum(kinds.values()):,} documents in {files} files to {out} in {elapsed:.2f}s")
    for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<22} {n:>8,}")


def generator_main(argv: list[str] | None, description: str, name: str,
                   add_shape_arguments: Callable[[argparse.ArgumentParser], None],
                   shape_from: Callable[[argparse.Namespace], Any],
                   generate: Callable[[Any, Path, int], Counter[str] | dict[str, int]]) -> int:
    """The command line of a shape generator (generate_engine.py, generate_preemption.py): --out, --per-file and
    the shape's own options; writes the manifests and says what it wrote. Exit 2 on a shape it cannot make."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, required=True, help="output directory (created if missing)")
    parser.add_argument("--per-file", type=int, default=5000, help="maximum documents per file (default 5000)")
    add_shape_arguments(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        kinds = generate(shape_from(args), args.out, args.per_file)
    except ValueError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    print_written(kinds, args.out, time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
