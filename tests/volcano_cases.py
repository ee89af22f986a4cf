"""Volcano conformance scenarios (enqueue + allocate) written as the Kubernetes objects kqctl reads.

A scenario (tests/conformance/data/volcano/*-enqueue-allocate/) lists nodes, queues, PodGroups, pods, the
actions and the plugin tiers of Volcano's unit test. They become: Nodes (allocatable, Ready), the Queues as
given, PodGroups (with status.phase), Pods (schedulerName volcano, the group annotation, one container with
the requests, nodeName and status.phase), and the ConfigMap volcano-scheduler-configmap holding the actions and
tiers. The pods' ``pods: 1`` is Volcano's own addition and is not written.
"""

from __future__ import annotations

from typing import Any

import yaml


def scenario_objects(case: dict[str, Any]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [_configmap(case)]
    for node in case["nodes"]:
        objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node["name"]},
                        "status": {"allocatable": node["allocatable"],
                                   "conditions": [{"type": "Ready", "status": "True"}]}})
    objects.extend(case["queues"])
    for group in case["podGroups"]:
        objects.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"namespace": group["namespace"], "name": group["name"]},
                        "spec": {"queue": group["queue"], "minMember": group["minMember"],
                                 "minResources": group["minResources"]},
                        "status": {"phase": group["phase"]}})
    for pod in case["pods"]:
        spec: dict[str, Any] = {"schedulerName": "volcano",
                                "containers": [{"name": "main", "image": "busybox",
                                                "resources": {"requests": pod["requests"]}}]}
        if pod["nodeName"]:
            spec["nodeName"] = pod["nodeName"]
        objects.append({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"namespace": pod["namespace"], "name": pod["name"],
                                     "annotations": {"scheduling.k8s.io/group-name": pod["podGroup"]}},
                        "spec": spec, "status": {"phase": pod["phase"]}})
    return objects


def _configmap(case: dict[str, Any]) -> dict[str, Any]:
    conf = {"actions": ", ".join(case["actions"]), "tiers": case["tiers"]}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
            "data": {"volcano-scheduler.conf": yaml.safe_dump(conf, sort_keys=False)}}


def scenario_text(case: dict[str, Any]) -> str:
    return yaml.safe_dump_all(scenario_objects(case), sort_keys=False)
