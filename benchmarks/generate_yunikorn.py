"""Write a large YuniKorn cluster: the yunikorn-configs ConfigMap, nodes, namespaces and pods.

Default shape: 2,000 nodes (32 cores, 128Gi, 110 pods), 300 queues in 3 levels under root (10 departments,
each with 3 teams, each with 9 leaves, plus their parents: 10 + 30 + 270 = 310 queues, 270 leaves with
guaranteed and max), 50,000 pods in 5,000 applications spread over the leaves, a fifth of them already bound to
nodes. Deterministic for a seed. ``--queues-only N`` writes a single queues.yaml with about N queues (the
validate benchmark: 1,001 for N = 1000).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import yaml

GI = 1024**3


def queues_tree(departments: int, teams: int, leaves: int) -> list[dict[str, Any]]:
    tree = []
    for d in range(departments):
        team_queues = []
        for t in range(teams):
            leaf_queues = [{
                "name": f"leaf-{leaf}",
                "resources": {"guaranteed": {"vcore": "40", "memory": "160Gi"},
                              "max": {"vcore": "400", "memory": "1600Gi"}},
                "properties": {"application.sort.policy": "fair" if leaf % 2 else "fifo",
                               "priority.offset": str(leaf % 3)},
            } for leaf in range(leaves)]
            team_queues.append({
                "name": f"team-{t}",
                "resources": {"guaranteed": {"vcore": str(40 * leaves), "memory": f"{160 * leaves}Gi"},
                              "max": {"vcore": str(1000 * leaves), "memory": f"{4000 * leaves}Gi"}},
                "queues": leaf_queues,
            })
        tree.append({
            "name": f"dept-{d}",
            "properties": {"priority.policy": "fence" if d % 4 == 0 else "default", "priority.offset": str(d)},
            "resources": {"guaranteed": {"vcore": str(40 * leaves * teams), "memory": f"{160 * leaves * teams}Gi"}},
            "queues": team_queues,
        })
    return tree


def queues_yaml(departments: int, teams: int, leaves: int) -> str:
    config = {"partitions": [{
        "name": "default",
        "placementrules": [{"name": "provided", "create": False}],
        "nodesortpolicy": {"type": "binpacking"},
        "queues": [{"name": "root", "submitacl": "*", "queues": queues_tree(departments, teams, leaves)}],
    }]}
    return yaml.safe_dump(config, sort_keys=False)


def cluster(nodes: int, pods: int, apps: int, departments: int, teams: int, leaves: int,
            seed: int, gangs: float = 0.0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    documents: list[dict[str, Any]] = [{
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn"},
        "data": {"queues.yaml": queues_yaml(departments, teams, leaves)},
    }]
    documents.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                      "value": 1000})
    for n in range(nodes):
        documents.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{n:04d}"},
                          "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}})
    leaf_paths = [f"root.dept-{d}.team-{t}.leaf-{leaf}" for d in range(departments) for t in range(teams)
                  for leaf in range(leaves)]
    per_app = pods // apps
    bound_nodes = 0
    for a in range(apps):
        queue = leaf_paths[a % len(leaf_paths)]
        namespace = f"ns-{a % 50}"
        cpu = rng.choice(["500m", "1", "2", "4"])
        memory = rng.choice(["1Gi", "2Gi", "4Gi", "8Gi"])
        priority = 1000 if rng.random() < 0.1 else None
        bound = a % 5 == 0
        # --gangs: that share of the pending applications in fifo leaves (a gang needs one) are gangs, one task
        # group of all their pods; picked by number, not by the random draws, so the rest of the cluster is the same
        gang = not bound and queue.endswith(("0", "2", "4", "6", "8")) and (a * 37) % 100 < gangs * 100
        for p in range(per_app):
            spec: dict[str, Any] = {"schedulerName": "yunikorn",
                                    "containers": [{"name": "main", "image": "busybox",
                                                    "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
            if priority:
                spec["priorityClassName"] = "high"
            if bound:
                spec["nodeName"] = f"node-{bound_nodes % nodes:04d}"
                bound_nodes += 1
            metadata: dict[str, Any] = {
                "name": f"app-{a:05d}-{p:02d}", "namespace": namespace,
                "creationTimestamp": f"2026-01-01T{(a // 3600) % 24:02d}:{(a // 60) % 60:02d}:{a % 60:02d}Z",
                "labels": {"applicationId": f"app-{a:05d}", "queue": queue}}
            if gang:
                metadata["annotations"] = {"yunikorn.apache.org/task-group-name": "workers"}
                if p == 0:
                    metadata["annotations"]["yunikorn.apache.org/task-groups"] = json.dumps(
                        [{"name": "workers", "minMember": per_app, "minResource": {"cpu": cpu, "memory": memory}}])
            documents.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
                              "status": {"phase": "Running" if bound else "Pending"}})
    return documents


def write(documents: list[dict[str, Any]], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": documents}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--apps", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--gangs", type=float, default=0.0, metavar="SHARE",
                        help="the share of pending applications (in fifo leaves) that are gangs (task groups)")
    parser.add_argument("--queues-only", type=int, default=0, metavar="N",
                        help="write queues.yaml with about N queues instead of a cluster")
    args = parser.parse_args()
    if args.queues_only:
        leaves = max(1, -(-(args.queues_only - 41) // 30))  # root + 10 departments + 30 teams + their leaves
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "queues.yaml").write_text(queues_yaml(10, 3, leaves))
        return
    write(cluster(args.nodes, args.pods, args.apps, 10, 3, 9, args.seed, args.gangs), args.out)


if __name__ == "__main__":
    main()
