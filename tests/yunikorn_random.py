"""Small random YuniKorn clusters (seeded): queue trees with guaranteed, max, fences, offsets, sort policies and
maxapplications; nodes; pods of several priorities and sizes, some bound, some too young to preempt."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from typing import Any

import yaml

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def _queue(rng: random.Random, name: str, depth: int) -> dict[str, Any]:
    queue: dict[str, Any] = {"name": name}
    properties: dict[str, str] = {}
    if rng.random() < 0.3:
        properties["priority.policy"] = "fence"
    if rng.random() < 0.5:
        properties["priority.offset"] = str(rng.choice([-10, 0, 5, 100]))
    if rng.random() < 0.3:
        properties["application.sort.policy"] = "fair"
    if rng.random() < 0.2:
        properties["application.sort.priority"] = "disabled"
    if rng.random() < 0.15:
        properties["preemption.policy"] = rng.choice(["fence", "disabled"])
    if properties:
        queue["properties"] = properties
    if depth < 2 and rng.random() < 0.6:
        queue["queues"] = [_queue(rng, f"{name}{i}", depth + 1) for i in range(rng.randint(1, 3))]
    else:
        resources: dict[str, Any] = {}
        if rng.random() < 0.6:
            resources["guaranteed"] = {"vcore": str(rng.randint(1, 4)), "memory": f"{rng.randint(1, 8)}Gi"}
        if rng.random() < 0.5:
            resources["max"] = {"vcore": str(rng.randint(4, 10)), "memory": f"{rng.randint(8, 20)}Gi"}
        if resources:
            queue["resources"] = resources
        if rng.random() < 0.2:
            queue["maxapplications"] = rng.randint(1, 3)
    return queue


def leaves(queue: dict[str, Any], prefix: str) -> list[str]:
    path = f"{prefix}.{queue['name']}" if prefix else queue["name"]
    children = queue.get("queues")
    return [leaf for child in children for leaf in leaves(child, path)] if children else [path]


def cluster(seed: int, gangs: float = 0.0) -> list[dict[str, Any]]:
    """A random cluster; ``gangs``: the share of applications not bound that are gangs (one task group of all their
    pods, some with a placeholder timeout), drawn apart so that the rest of the cluster is the seed's as without."""
    rng = random.Random(seed)
    gang_rng = random.Random(seed * 7919 + 1)
    top = [_queue(rng, f"q{i}", 1) for i in range(rng.randint(2, 4))]
    config = {"partitions": [{
        "name": "default",
        "preemption": {"enabled": rng.random() < 0.7},
        "nodesortpolicy": {"type": rng.choice(["fair", "binpacking"])},
        "queues": [{"name": "root", "submitacl": "*", "queues": top}],
    }]}
    documents: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn"},
         "data": {"queues.yaml": yaml.safe_dump(config, sort_keys=False)}}]
    for n in range(rng.randint(2, 6)):
        documents.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{n}"},
                          "status": {"allocatable": {"cpu": str(rng.choice([4, 8])), "memory": "16Gi",
                                                     "pods": "20"}}})
    paths = [leaf for queue in top for leaf in leaves(queue, "root")]
    for a in range(rng.randint(3, 10)):
        queue = rng.choice(paths)
        priority = rng.choice([0, 10, 100, 1000])
        bound_node = f"n{rng.randint(0, 1)}" if rng.random() < 0.2 else ""
        age = rng.choice([timedelta(seconds=5), timedelta(minutes=10)])
        members = rng.randint(1, 5)
        gang = _gang(gang_rng, members) if not bound_node and gang_rng.random() < gangs else {}
        for p in range(members):
            spec: dict[str, Any] = {"schedulerName": "yunikorn", "priority": priority, "containers": [
                {"name": "c", "resources": {"requests": {"cpu": rng.choice(["500m", "1", "2"]),
                                                         "memory": rng.choice(["1Gi", "2Gi", "4Gi"])}}}]}
            if bound_node:
                spec["nodeName"] = bound_node
            documents.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"a{a}-{p}", "namespace": "default", "creationTimestamp": (NOW - age - timedelta(
                    seconds=a)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "labels": {"applicationId": f"app{a}", "queue": queue},
                **({"annotations": gang if p == 0 else {TASK_GROUP: "w"}} if gang else {})}, "spec": spec})
    return documents


TASK_GROUP = "yunikorn.apache.org/task-group-name"


def _gang(rng: random.Random, members: int) -> dict[str, str]:
    """The first pod's annotations of a gang: its task group (placeholders of 1 core, so that a larger pod releases
    one, YK-GANG-4), maybe a placeholder timeout and style."""
    notes = {TASK_GROUP: "w", "yunikorn.apache.org/task-groups": json.dumps(
        [{"name": "w", "minMember": rng.randint(1, members), "minResource": {"cpu": "1", "memory": "2Gi"}}])}
    if rng.random() < 0.5:
        timeout, style = rng.choice([30, 120, 900]), rng.choice(["Hard", "Soft"])
        notes["yunikorn.apache.org/schedulingPolicyParameters"] = \
            f"placeholderTimeoutInSeconds={timeout} gangSchedulingStyle={style}"
    return notes
