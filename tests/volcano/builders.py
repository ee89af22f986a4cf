"""Small Volcano objects for tests, and the snapshot/session/simulation they make."""

from __future__ import annotations

from typing import Any

import yaml

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.session import SessionResult, run_session
from kqctl.volcano.engine.simulation import SimulationOptions, SimulationResult, initial_world, simulate
from kqctl.volcano.load import build_snapshot

Obj = dict[str, Any]


def node(name: str, cpu: str = "8", memory: str = "32Gi", pods: str = "110", **extra: Any) -> Obj:
    body: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                 "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods, **extra.pop("scalars", {})},
                            "conditions": [{"type": "Ready", "status": "True"}]}}
    if extra.get("unschedulable"):
        body["spec"] = {"unschedulable": True}
    return body


def queue(name: str, weight: int = 1, state: str = "Open", **spec: Any) -> Obj:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": weight, **spec}, "status": {"state": state}}


def group(name: str, queue_name: str, min_member: int = 1, phase: str = "Inqueue", ns: str = "ns",
          min_resources: dict[str, str] | None = None, **spec: Any) -> Obj:
    body: Obj = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                 "metadata": {"namespace": ns, "name": name},
                 "spec": {"queue": queue_name, "minMember": min_member, **spec}, "status": {"phase": phase}}
    if min_resources is not None:
        body["spec"]["minResources"] = min_resources
    return body


def pod(name: str, group_name: str, cpu: str = "1", memory: str = "1Gi", node_name: str = "", ns: str = "ns",
        phase: str | None = None, **extra: Any) -> Obj:
    requests = {"cpu": cpu, "memory": memory, **extra.pop("scalars", {})}
    spec: Obj = {"schedulerName": "volcano", "containers": [{"name": "c", "image": "x",
                                                               "resources": {"requests": requests}}], **extra}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": name, "annotations": {"scheduling.k8s.io/group-name": group_name}},
            "spec": spec, "status": {"phase": phase or ("Running" if node_name else "Pending")}}


def conf(actions: str, *tiers: list[Any]) -> Obj:
    text = yaml.safe_dump({"actions": actions, "tiers": [{"plugins": [p if isinstance(p, dict) else {"name": p}
                                                                      for p in tier]} for tier in tiers]})
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"},
            "data": {"volcano-scheduler.conf": text}}


def snapshot(*objects: Obj) -> Snapshot:
    return build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(list(objects)), "test.yaml"))


def session(*objects: Obj) -> SessionResult:
    snap = snapshot(*objects)
    return run_session(snap, initial_world(snap))


def run(*objects: Obj, sessions: int | None = None) -> SimulationResult:
    return simulate(snapshot(*objects), SimulationOptions(sessions=sessions))


def binds(result: SimulationResult) -> dict[str, str]:
    return {p: n for _, p, n in result.binds}
