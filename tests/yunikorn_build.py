"""Build small YuniKorn clusters in tests: a queues.yaml, nodes and pods in a few lines."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import yaml

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.load import build_snapshot

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)


def configmap(queues_yaml: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn"},
            "data": {"queues.yaml": queues_yaml}}


def node(name: str, cpu: str = "4", memory: str = "8Gi", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}}}
    body.update(extra)
    return body


def pod(name: str, queue: str = "", app: str = "", cpu: str = "1", memory: str = "1Gi", namespace: str = "default",
        priority: int | None = None, age: timedelta = timedelta(minutes=5), node_name: str = "",
        labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
        **spec_extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace,
                                "creationTimestamp": (NOW - age).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                "labels": {**({"applicationId": app} if app else {}),
                                           **({"queue": queue} if queue else {}), **(labels or {})}}
    if annotations:
        metadata["annotations"] = annotations
    spec: dict[str, Any] = {"schedulerName": "yunikorn", "containers": [
        {"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}], **spec_extra}
    if priority is not None:
        spec["priority"] = priority
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


class _Dumper(yaml.SafeDumper):
    """Quotes the strings YAML 1.1 reads as booleans (``y``, ``n``, ``on``...): PyYAML writes them bare, and
    kqctl (like kubectl) would read a pod's ``applicationId: y`` back as a boolean, which the API server refuses."""


_BOOLEAN_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false"}
_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="'" if value.lower() in _BOOLEAN_WORDS else None))


def snapshot(queues_yaml: str | None, *objects: dict[str, Any]) -> Snapshot:
    documents = ([configmap(queues_yaml)] if queues_yaml is not None else []) + list(objects)
    return build_snapshot(load_text(ALL_KINDS, text(documents)), NOW)


def text(documents: list[dict[str, Any]]) -> str:
    return yaml.dump_all(documents, Dumper=_Dumper)


def benchmark_shape(seed: int, maxapplications: int = 0) -> Snapshot:
    """benchmarks/generate_yunikorn.py's cluster, small: 12 nodes, 500 pods in 50 applications over 12 leaves, a tenth
    at priority 1000, every pod a day old (every reservation old enough to be taken over), more pods than room.
    ``maxapplications``: each leaf runs at most that many applications (YK-G1)."""
    import importlib.util

    from support import REPO

    spec = importlib.util.spec_from_file_location("generate_yunikorn", REPO / "benchmarks" / "generate_yunikorn.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    documents = generator.cluster(12, 500, 50, 2, 2, 3, seed)
    if maxapplications:
        config = yaml.safe_load(documents[0]["data"]["queues.yaml"])
        for leaf in _leaves(config["partitions"][0]["queues"][0]):
            leaf["maxapplications"] = maxapplications
        documents[0]["data"]["queues.yaml"] = yaml.safe_dump(config)
    now = datetime(2026, 1, 2, tzinfo=timezone.utc)
    return build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(documents)), now)


def start_state_matches_simulate(text: str, now: datetime) -> None:
    """Replayed up to its first instant (--until 0): the core's cycles at the snapshot's time, as simulate runs them.
    Later, time alone changes answers simulate cannot see (an ask old enough to preempt, YK-R1). Placeholders that are
    gone (replaced or released) are held by neither, as a preemption's victims."""
    from kqctl.yunikorn.engine.simulation import simulate
    from kqctl.yunikorn.replay.report import YuniKornReplayOptions, replay_timeline

    loaded = load_text(ALL_KINDS, text, "cluster.yaml")
    result = simulate(build_snapshot(loaded, now))
    _, timeline = replay_timeline(build_snapshot(loaded, now), YuniKornReplayOptions(until=0))
    expected = {p.key: p.node for p in result.pods if p.state not in ("Preempted", "Replaced", "Released")}
    assert timeline.placements() == expected


def _leaves(queue: dict[str, Any]) -> list[dict[str, Any]]:
    children = queue.get("queues")
    return [leaf for child in children for leaf in _leaves(child)] if children else [queue]
