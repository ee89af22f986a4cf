"""Seeded random Kueue scenarios, as the manifests a user would feed kqctl.

Shapes follow the recorded random scenarios of Kueue's own generator: a few cohorts (sometimes
nested, sometimes with quota of their own), several ClusterQueues per cohort with two flavors,
borrowing and lending limits, preemption policies, flavor fungibility, a stopped queue now and
then, and pending workloads with one or two pod sets, minCount and priorities. Deterministic per seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import yaml

FLAVORS = ("on-demand", "spot")
RESOURCES = ("cpu", "memory")
GI = 1024**3
PRIORITIES = (0, 100, 1000)
WITHIN = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
RECLAIM = ("Never", "LowerPriority", "Any")


@dataclass
class Scenario:
    seed: int
    documents: list[dict[str, Any]] = field(default_factory=list)

    def text(self, order: list[int] | None = None) -> str:
        docs = self.documents if order is None else [self.documents[i] for i in order]
        return yaml.safe_dump_all(docs, sort_keys=False)


def scenario(seed: int) -> Scenario:
    rng = random.Random(seed)
    result = Scenario(seed)
    add = result.documents.append
    for flavor in FLAVORS:
        add({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": flavor}})
    cohorts = [f"cohort-{i}" for i in range(rng.randint(1, 2))]
    if rng.random() < 0.4:  # a hierarchy: the first cohort under a root with quota of its own
        add(_cohort("root", None, rng, with_quota=True))
        add(_cohort(cohorts[0], "root", rng, with_quota=rng.random() < 0.5))
    queues = []
    index = 0
    for i in range(rng.randint(2, 5)):
        name = f"cq-{i}"
        queues.append(name)
        queue = _cluster_queue(name, rng.choice(cohorts), rng)
        add(queue)
        add({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": f"lq-{i}", "namespace": "default"}, "spec": {"clusterQueue": name}})
        for admitted in _admitted_workloads(queue, i, index, rng):  # running already, within nominal quota
            add(admitted)
            index += 1
    for _ in range(rng.randint(3, 12)):
        add(_workload(index, rng.randrange(len(queues)), rng))
        index += 1
    return result


def _admitted_workloads(queue: dict[str, Any], queue_index: int, first: int,
                        rng: random.Random) -> list[dict[str, Any]]:
    """Up to two workloads already admitted in the queue's first flavor, fitting in its nominal quota,
    so that later arrivals have something to preempt or to wait behind."""
    flavor = queue["spec"]["resourceGroups"][0]["flavors"][0]
    free = {q["name"]: _units(q["nominalQuota"]) for q in flavor["resources"]}
    result = []
    for offset in range(rng.randint(0, 2)):
        count, cpu, memory = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 2)
        if count * cpu > free["cpu"] or count * memory > free["memory"]:
            break
        free["cpu"] -= count * cpu
        free["memory"] -= count * memory
        body = _workload(first + offset, queue_index, rng)
        pod_set = body["spec"]["podSets"][0]
        pod_set.pop("minCount", None)
        pod_set["count"] = count
        pod_set["template"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": str(cpu),
                                                                                  "memory": f"{memory}Gi"}
        del body["spec"]["podSets"][1:]
        body["spec"]["priority"] = 0  # low, so that later arrivals may preempt them
        when = body["metadata"]["creationTimestamp"]
        body["status"] = {
            "admission": {"clusterQueue": queue["metadata"]["name"], "podSetAssignments": [{
                "name": pod_set["name"], "count": count,
                "flavors": {"cpu": flavor["name"], "memory": flavor["name"]},
                "resourceUsage": {"cpu": str(count * cpu), "memory": f"{count * memory}Gi"}}]},
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                 "message": f"Quota reserved in ClusterQueue {queue['metadata']['name']}", "lastTransitionTime": when},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
                 "lastTransitionTime": when}]}
        result.append(body)
    return result


def _units(amount: int | str) -> int:
    return int(str(amount).removesuffix("Gi"))


def _quota(rng: random.Random, resource: str, cohort: bool) -> dict[str, Any]:
    nominal = rng.randint(0, 8)
    quota: dict[str, Any] = {"name": resource, "nominalQuota": _amount(resource, nominal)}
    if rng.random() < 0.4:
        quota["borrowingLimit"] = _amount(resource, rng.randint(0, 6))
    if rng.random() < 0.3 and (cohort or nominal > 0):
        quota["lendingLimit"] = _amount(resource, rng.randint(0, nominal) if not cohort else rng.randint(0, 4))
    return quota


def _amount(resource: str, units: int) -> int | str:
    return f"{units}Gi" if resource == "memory" else units


def _groups(rng: random.Random, cohort: bool) -> list[dict[str, Any]]:
    flavors = list(FLAVORS) if rng.random() < 0.7 else [rng.choice(FLAVORS)]
    return [{"coveredResources": list(RESOURCES),
             "flavors": [{"name": f, "resources": [_quota(rng, r, cohort) for r in RESOURCES]} for f in flavors]}]


def _cohort(name: str, parent: str | None, rng: random.Random, with_quota: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if with_quota:
        groups = _groups(rng, cohort=True)
        if not parent:  # limits need a parent (VAL-CO-4)
            for flavor in groups[0]["flavors"]:
                for quota in flavor["resources"]:
                    quota.pop("borrowingLimit", None)
                    quota.pop("lendingLimit", None)
        spec["resourceGroups"] = groups
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _cluster_queue(name: str, cohort: str, rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "cohortName": cohort,
        "namespaceSelector": {},
        "queueingStrategy": rng.choice(("StrictFIFO", "BestEffortFIFO")),
        "resourceGroups": _groups(rng, cohort=False),
        "preemption": {"withinClusterQueue": rng.choice(WITHIN), "reclaimWithinCohort": rng.choice(RECLAIM)},
    }
    if spec["preemption"]["reclaimWithinCohort"] != "Never" and rng.random() < 0.3:
        spec["preemption"]["borrowWithinCohort"] = {"policy": "LowerPriority"}
    if rng.random() < 0.3:
        spec["flavorFungibility"] = {"whenCanBorrow": rng.choice(("MayStopSearch", "TryNextFlavor")),
                                     "whenCanPreempt": rng.choice(("MayStopSearch", "TryNextFlavor"))}
    if rng.random() < 0.1:
        spec["stopPolicy"] = "Hold"
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _workload(index: int, queue: int, rng: random.Random) -> dict[str, Any]:
    pod_sets = []
    for p in range(rng.randint(1, 2)):
        count = rng.randint(1, 4)
        pod_set: dict[str, Any] = {
            "name": f"ps{p}", "count": count,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{
                "name": "c", "image": "x",
                "resources": {"requests": {"cpu": str(rng.randint(1, 3)), "memory": f"{rng.randint(1, 3)}Gi"}}}]}},
        }
        if p == 0 and count > 1 and rng.random() < 0.2:
            pod_set["minCount"] = rng.randint(1, count - 1)
        pod_sets.append(pod_set)
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"wl-{index}", "namespace": "default",
                         "uid": f"00000000-0000-4000-8000-{index:012d}",
                         "creationTimestamp": f"2026-01-01T00:{index // 60:02d}:{index % 60:02d}Z"},
            "spec": {"queueName": f"lq-{queue}", "priority": rng.choice(PRIORITIES), "podSets": pod_sets}}
