#!/usr/bin/env python3
"""Write a large Volcano cluster as one JSON ``kind: List`` (what ``kubectl get -o json`` or ``kqctl snapshot
save`` produce), deterministic for a seed.

    python benchmarks/generate_volcano.py --out /tmp/volcano-large.json      # 5,000 nodes, 200 queues,
                                                                             # 50,000 pods in 10,000 PodGroups
    python benchmarks/generate_volcano.py --nodes 500 --queues 20 --groups 1000 --out /tmp/v.json

The shape: nodes of three kinds (general 32 cores/128Gi, large 64/256Gi, GPU 48/384Gi with 8 GPUs; 110 pods
each); queues with weights 1-4, some with a capability, a few with a guarantee (and the deserved the webhook
then requires), all under root; PodGroups of 1-9 pods (5 on average) with minMember and minResources as a
vcjob's controller would set them; a third of the PodGroups already run on nodes, the rest are pending;
the Helm chart's scheduler configuration in the ConfigMap volcano-scheduler-configmap.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

NODE_KINDS = (  # (share, cpu, memory, gpus)
    (0.6, 32, "128Gi", 0),
    (0.3, 64, "256Gi", 0),
    (0.1, 48, "384Gi", 8),
)
POD_SHAPES = (  # (cpu, memory, gpus)
    ("1", "2Gi", 0), ("2", "8Gi", 0), ("4", "16Gi", 0), ("500m", "1Gi", 0), ("8", "32Gi", 1),
)
CHART_CONF = """actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""


def generate(nodes: int, queues: int, groups: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": CHART_CONF}},
    ]
    node_list = _nodes(nodes, rng)
    items.extend(node_list)
    items.extend(_queues(queues, rng))
    namespaces = [f"team-{i:03d}" for i in range(max(1, queues // 4))]
    items.extend({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in namespaces)
    items.extend(_workloads(groups, queues, namespaces, node_list, rng))
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


def _nodes(count: int, rng: random.Random) -> list[dict[str, Any]]:
    found = []
    for i in range(count):
        roll, kind = rng.random(), NODE_KINDS[0]
        for candidate in NODE_KINDS:
            if roll < candidate[0]:
                kind = candidate
                break
            roll -= candidate[0]
        _, cpu, memory, gpus = kind
        allocatable: dict[str, str] = {"cpu": str(cpu), "memory": memory, "pods": "110"}
        if gpus:
            allocatable["nvidia.com/gpu"] = str(gpus)
        found.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:05d}"},
                      "status": {"allocatable": allocatable, "conditions": [{"type": "Ready", "status": "True"}]}})
    return found


def _queues(count: int, rng: random.Random) -> list[dict[str, Any]]:
    found = []
    for i in range(count):
        spec: dict[str, Any] = {"weight": rng.randint(1, 4)}
        if i % 5 == 0:
            spec["capability"] = {"cpu": str(rng.choice((500, 1000, 2000))), "memory": f"{rng.choice((2, 4, 8))}Ti"}
        if i % 20 == 0:
            spec["guarantee"] = {"resource": {"cpu": "64"}}
            spec["deserved"] = {"cpu": "64"}
        found.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                      "metadata": {"name": f"queue-{i:03d}"}, "spec": spec, "status": {"state": "Open"}})
    return found


def _workloads(groups: int, queues: int, namespaces: list[str], nodes: list[dict[str, Any]],
               rng: random.Random) -> list[dict[str, Any]]:
    items = []
    for g in range(groups):
        namespace = rng.choice(namespaces)
        name = f"job-{g:05d}"
        size = rng.randint(1, 9)
        cpu, memory, gpus = rng.choice(POD_SHAPES)
        running = rng.random() < 1 / 3
        requests = {"cpu": cpu, "memory": memory, **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
        min_member = max(1, size // 2)
        min_resources = {k: _times(v, min_member) for k, v in requests.items()}
        items.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                      "metadata": {"namespace": namespace, "name": name},
                      "spec": {"queue": f"queue-{rng.randrange(queues):03d}", "minMember": min_member,
                               "minResources": min_resources},
                      "status": {"phase": "Running" if running else "Pending"}})
        node = nodes[rng.randrange(len(nodes))]["metadata"]["name"] if running else ""
        for p in range(size):
            # An extended resource needs a limit equal to its request (the API server's VAL-POD-3).
            resources: dict[str, Any] = {"requests": requests}
            if gpus:
                resources["limits"] = {"nvidia.com/gpu": str(gpus)}
            spec: dict[str, Any] = {"schedulerName": "volcano",
                                    "containers": [{"name": "main", "image": "trainer:1", "resources": resources}]}
            if running and not gpus:
                spec["nodeName"] = node
            items.append({"apiVersion": "v1", "kind": "Pod",
                          "metadata": {"namespace": namespace, "name": f"{name}-worker-{p}",
                                       "annotations": {"scheduling.k8s.io/group-name": name}},
                          "spec": spec, "status": {"phase": "Running" if running and not gpus else "Pending"}})
    return items


def _times(quantity: str, count: int) -> str:
    if quantity.endswith("m"):
        return f"{int(quantity[:-1]) * count}m"
    if quantity.endswith("Gi"):
        return f"{int(quantity[:-2]) * count}Gi"
    return str(int(quantity) * count)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--queues", type=int, default=200)
    parser.add_argument("--groups", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    data = generate(args.nodes, args.queues, args.groups, args.seed)
    args.out.write_text(json.dumps(data), encoding="utf-8")
    kinds: dict[str, int] = {}
    for item in data["items"]:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    print(f"wrote {len(data['items']):,} objects to {args.out}: "
          + ", ".join(f"{n:,} {k}" for k, n in sorted(kinds.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
