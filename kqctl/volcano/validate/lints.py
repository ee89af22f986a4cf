"""Lints: queue settings Volcano accepts that will not do what they seem to (warnings with hints).

Each explains a real incident: guarantees that starve every other queue, ``deserved`` or ``weight`` that the
configured plugin ignores, a capability naming a resource no node has, ``capability: 0`` read as unlimited,
``dequeueStrategy: fifo`` that nothing reads, a non-reclaimable queue when reclaim is on. Also the scheduler
configuration itself: what Volcano ignores or refuses in ``volcano-scheduler.conf``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from kqctl.findings import Finding, error, warning
from kqctl.load.objects import LoadedObject
from kqctl.origin import FieldPath, format_path
from kqctl.volcano.api.config import CHART_DEFAULT, SchedulerConf, parse_conf
from kqctl.volcano.api.models import Node
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Resource, resource_list
from kqctl.volcano.kinds import GROUP, SCHEDULER_CONF_FILE, SCHEDULER_CONF_KEY, SCHEDULER_CONFIGMAP
from kqctl.volcano.validate.queue_webhook import Lister, format_typed

Found = list[tuple[LoadedObject, Finding]]
GUARANTEE_WARNING_SHARE = (9, 10)  # warn when the guarantees reach 90% of the cluster on some resource


def lint_findings(objects: Sequence[LoadedObject], lister: Lister) -> Found:
    found: Found = []
    conf = _conf(objects, found)
    queues = [o for o in objects if _is(o, GROUP, "Queue") and o.name in lister.queues]
    nodes = _nodes(objects)
    for obj in queues:
        found.extend((obj, f) for f in _queue_lints(obj, conf))
    if nodes:
        found.extend(_guarantee_total(queues, nodes))
        found.extend(_unknown_capability_resources(queues, nodes))
    found.extend(_unlimited_scalars(objects, lister))
    return found


# --- the scheduler configuration ----------------------------------------------------------------------------


def _conf(objects: Sequence[LoadedObject], found: Found) -> SchedulerConf:
    """The configuration of --scheduler-conf, else the ConfigMap in the input (its problems reported on that
    document), else the chart's: the one the scheduler would run with, as simulate picks it."""
    files = [obj for obj in objects if obj.info is SCHEDULER_CONF_FILE]
    maps = [obj for obj in objects if obj.kind == "ConfigMap" and obj.name == SCHEDULER_CONFIGMAP
            and obj.info is not None]
    for obj in files[:1] or maps[:1]:
        conf = _read_conf(obj, found)
        if conf is not None:
            return conf
    return parse_conf(yaml.safe_load(CHART_DEFAULT), "the Helm chart's default")


def _read_conf(obj: LoadedObject, found: Found) -> SchedulerConf | None:
    """The configuration of a --scheduler-conf document or of the ConfigMap; None (and VC-CONF-INVALID) when
    Volcano cannot decode it. A bare file's problems carry their own field; a ConfigMap's are on its key."""
    at: FieldPath | None = None  # where a ConfigMap's findings go; a bare file's go to their own field
    if obj.info is SCHEDULER_CONF_FILE:
        data, source = obj.body, f"file {obj.origin.file}"
    else:
        at = ("data", SCHEDULER_CONF_KEY)
        text = _dict(obj.body.get("data")).get(SCHEDULER_CONF_KEY)
        if not isinstance(text, str):
            found.append((obj, error("VC-CONF-INVALID", ("data",), f"the ConfigMap has no key {SCHEDULER_CONF_KEY}: "
                                     "the scheduler has no configuration to load")))
            return None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            found.append((obj, error("VC-CONF-INVALID", at, f"volcano-scheduler.conf is not valid YAML: "
                                     f"{getattr(exc, 'problem', None) or exc}")))
            return None
        source = f"ConfigMap {obj.namespace}/{obj.name}"
    try:
        conf = parse_conf(data, source)
    except ValueError as exc:  # ModelError: a field Go's decoder cannot read
        path: FieldPath = at if at is not None else tuple(getattr(exc, "path", ()))
        found.append((obj, error("VC-CONF-INVALID", path, f"volcano-scheduler.conf: {exc}",
                                 "Volcano refuses the whole file and keeps its previous configuration")))
        return None
    for problem in conf.problems:
        rule = problem.rule_id
        where = format_path(problem.path)
        text_message = f"volcano-scheduler.conf {where}: {problem.message}" if where else problem.message
        make = error if problem.severity == "error" else warning
        found.append((obj, make(rule, at or problem.path, text_message, problem.hint)))
    return conf


# --- one queue ------------------------------------------------------------------------------------------------


def _queue_lints(obj: LoadedObject, conf: SchedulerConf) -> list[Finding]:
    spec = _dict(obj.body.get("spec"))
    found = []
    proportion, capacity = conf.has_plugin("proportion"), conf.has_plugin("capacity")
    deserved = _dict(spec.get("deserved"))
    guarantee = _dict(_dict(spec.get("guarantee")).get("resource"))
    if proportion and not capacity and _beyond_guarantee(deserved, guarantee):
        found.append(warning("VC-LINT-DESERVED-IGNORED", ("spec", "deserved"),
                             "deserved is ignored: the proportion plugin computes each queue's deserved share from "
                             "its weight",
                             "set weight instead; the webhook only needs deserved >= guarantee for the resources "
                             "the queue guarantees"))
    weight = spec.get("weight")
    if capacity and not proportion and isinstance(weight, int) and weight != 1:
        found.append(warning("VC-LINT-WEIGHT-IGNORED", ("spec", "weight"),
                             f"weight {weight} is ignored: the capacity plugin uses deserved as written",
                             "set deserved per resource instead"))
    if spec.get("dequeueStrategy") == "fifo":
        found.append(warning("VC-LINT-FIFO", ("spec", "dequeueStrategy"),
                             "dequeueStrategy: fifo has no effect: no scheduler action reads it",
                             "jobs are always taken in priority/job order; remove the field"))
    capability = _dict(spec.get("capability"))
    values = _volcano(capability)
    for name in (CPU, MEMORY):
        if name in capability and values.get(name, 0) <= 0:
            meaning = ("its parent's value (hierarchical capacity)" if conf.capacity_hierarchy
                       else "unlimited")
            found.append(warning("VC-LINT-ZERO-CAPABILITY", ("spec", "capability", name),
                                 f"capability {name}: {capability[name]} does not stop the queue: Volcano reads a "
                                 f"{name} capability of 0 or less as {meaning}",
                                 "to stop a queue from taking new work, close it (vcctl queue operate --action "
                                 "close); a small positive capability caps it"))
    if spec.get("reclaimable") is False and "reclaim" in conf.actions:
        found.append(warning("VC-LINT-UNRECLAIMABLE", ("spec", "reclaimable"),
                             "reclaimable: false: reclaim never takes back what this queue runs above its deserved "
                             "share, so other queues may wait for it to finish",
                             "cap it with capability, or let reclaim act (reclaimable: true)"))
    return found


def _beyond_guarantee(deserved: Mapping[str, Any], guarantee: Mapping[str, Any]) -> bool:
    d, g = _volcano(deserved), _volcano(guarantee)
    return any(value > g.get(name, 0) for name, value in d.items())


# --- the queues against the cluster -----------------------------------------------------------------------------


def _guarantee_total(queues: list[LoadedObject], nodes: list[Node]) -> Found:
    """Every guarantee lowers every other queue's real capability: near the cluster's size nothing is left."""
    total = Resource()
    for node in nodes:
        total.add(Resource.of(node.allocatable))
    guaranteed = Resource()
    holders = []
    for obj in queues:
        values = _volcano(_dict(_dict(_dict(obj.body.get("spec")).get("guarantee")).get("resource")))
        if values:
            guaranteed.add(Resource.of(values))
            holders.append(obj)
    num, den = GUARANTEE_WARNING_SHARE
    crowded = [name for name in guaranteed.names() if name != PODS
               and guaranteed.get(name) * den >= total.get(name) * num]
    if not crowded:
        return []
    parts = ", ".join(f"{name} {format_typed(name, guaranteed.get(name))} of {format_typed(name, total.get(name))}"
                      for name in crowded)
    return [(obj, warning("VC-LINT-GUARANTEE-TOTAL", ("spec", "guarantee"),
                          f"the queues' guarantees add up to {parts} in the cluster: every queue's real capability "
                          "is the cluster minus all other queues' guarantees, so queues without one are left with "
                          "(almost) nothing (\"queue resource quota insufficient\" with idle nodes)",
                          "lower the guarantees, or give them only to the queues that need a floor"))
            for obj in holders]


def _unknown_capability_resources(queues: list[LoadedObject], nodes: list[Node]) -> Found:
    on_nodes = {name for node in nodes for name in node.allocatable} | {CPU, MEMORY, PODS}
    found: Found = []
    for obj in queues:
        capability = _dict(_dict(obj.body.get("spec")).get("capability"))
        for name in sorted(_volcano(capability)):
            if name not in on_nodes:
                found.append((obj, warning("VC-LINT-CAPABILITY-RESOURCE", ("spec", "capability", name),
                                           f"capability names {name}, which no node has: it limits nothing "
                                           "(a typo?)", "compare with the nodes' status.allocatable")))
    return found


def _unlimited_scalars(objects: Sequence[LoadedObject], lister: Lister) -> Found:
    """A PodGroup asking for a scalar resource its queue's capability does not list: no limit applies to it."""
    found: Found = []
    for obj in objects:
        if not _is(obj, GROUP, "PodGroup"):
            continue
        spec = _dict(obj.body.get("spec"))
        queue = lister.get(str(spec.get("queue") or "default"))
        if queue is None or not queue.capability:
            continue
        asked = _volcano(_dict(spec.get("minResources")))
        capped = _volcano(queue.capability)
        for name in sorted(asked):
            if name not in (CPU, MEMORY, PODS) and asked[name] > 0 and name not in capped:
                found.append((obj, warning("VC-LINT-UNLIMITED-SCALAR", ("spec", "minResources", name),
                                           f"queue {queue.name} caps some resources but not {name}: no limit "
                                           f"applies to this PodGroup's {name}",
                                           f"add {name} to the queue's capability if it should be capped")))
    return found


def _nodes(objects: Sequence[LoadedObject]) -> list[Node]:
    nodes = []
    for obj in objects:
        if _is(obj, "", "Node"):
            try:
                node = Node.from_body(obj.body, obj.origin)
            except ValueError:
                continue
            if node.ready:
                nodes.append(node)
    return nodes


def _volcano(raw: Mapping[str, Any]) -> dict[str, int]:
    try:
        return resource_list(raw)
    except ValueError:
        return {}


def _is(obj: LoadedObject, group: str, kind: str) -> bool:
    return obj.info is not None and obj.info.group == group and obj.info.kind == kind


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

