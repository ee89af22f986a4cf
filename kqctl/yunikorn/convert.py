"""``kqctl convert --to kueue``: a YuniKorn queue tree as Kueue objects, and what cannot carry over.

* every parent queue becomes a Cohort (``root.a`` -> ``root-a``), nested under its parent's;
* every leaf becomes a ClusterQueue in its parent's cohort with one flavor (``default-flavor``): guaranteed is the
  nominal quota, ``max - guaranteed`` the borrowing limit (no max: borrowing unlimited);
* the root Cohort holds what the cluster's nodes have beyond the leaves' guaranteed (YuniKorn's root queue is the
  partition's resources), when the inputs have Nodes;
* a LocalQueue where placement makes the namespace clear: with a ``tag`` rule on ``namespace``, the leaf
  ``root.<ns>`` (or ``root.<parent>.<ns>``) serves namespace ``<ns>``; and, when pods are in the inputs, in every
  namespace whose pods name a configured leaf (``yunikorn.apache.org/queue`` or ``queue``). A namespace name
  Kubernetes would refuse (``team_b`` from a leaf ``Team_B``) gets no LocalQueue and is reported.

Kueue has no fences, priority offsets, fair application sorting, placement rules, ACLs, user or group limits,
maxapplications, child templates or YuniKorn's preemption delay; each one found is reported. A parent's own
guaranteed and max have no exact Cohort equivalent (a Cohort's quota adds to the pool; YuniKorn's bounds it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kqctl.yunikorn.api.config import PartitionConf, QueueConf, SchedulerConf
from kqctl.yunikorn.api.resources import (
    MEMORY,
    VCORE,
    QuantityError,
    ResourceView,
    parse_config_value,
    resource_from_conf,
)
from kqctl.yunikorn.engine import properties as props

KUEUE = "kueue.x-k8s.io/v1beta2"
FLAVOR = "default-flavor"


@dataclass(frozen=True)
class Loss:
    """Something of the YuniKorn config Kueue cannot express."""

    queue: str
    what: str


# A namespace name (DNS-1123 label): what a tag rule's leaf must be called to serve a real namespace.
NAMESPACE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def to_kueue(config: SchedulerConf, pod_queues: Iterable[tuple[str, str]] = (),
             cluster: ResourceView | None = None) -> tuple[list[dict[str, Any]], list[Loss]]:
    """The Kueue objects for partition default; ``pod_queues``: (namespace, queue named) of the input's pods;
    ``cluster``: the nodes' allocatable in all (None: no Node in the inputs), which YuniKorn's root queue holds."""
    partition = next((p for p in config.partitions or [] if p.name == "default"), None)
    if partition is None or not partition.queues:
        return [], [Loss("", "no partition named default: nothing to convert")]
    losses: list[Loss] = []
    documents: list[dict[str, Any]] = [{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": FLAVOR}}]
    namespaces: dict[str, set[str]] = {}
    for leaf, namespace in _namespace_leaves(partition).items():
        if NAMESPACE_NAME.match(namespace) and len(namespace) <= 63:
            namespaces.setdefault(leaf, set()).add(namespace)
        else:
            losses.append(Loss(leaf, f"the tag rule would serve namespace {namespace!r} here, which is not a valid "
                                     "namespace name: no LocalQueue"))
    leaves = set(_leaves(partition.root, ""))
    for namespace, requested in pod_queues:
        leaf = _leaf_path(requested)
        if leaf in leaves:
            namespaces.setdefault(leaf, set()).add(namespace)
    _queue(partition.root, "", None, documents, losses, namespaces)
    _give_root_the_cluster(documents, cluster, losses)
    _partition_losses(partition, losses)
    return documents, losses


def _give_root_the_cluster(documents: list[dict[str, Any]], cluster: ResourceView | None, losses: list[Loss]) -> None:
    """YuniKorn's root queue holds the partition's resources (every node's allocatable): a leaf with a max and no
    guaranteed runs on them. Kueue has quota only where it is written, so the root Cohort gets what the cluster has
    beyond the leaves' guaranteed (the nominal quotas of the ClusterQueues): the pool their borrowing limits (max -
    guaranteed) draw from. Without Nodes in the inputs there is no such figure, and the conversion says so."""
    queues = [d for d in documents if d["kind"] == "ClusterQueue"]
    root = next((d for d in documents if d["kind"] == "Cohort" and "parentName" not in d["spec"]), None)
    if root is None or not queues:
        return
    if cluster is None:
        losses.append(Loss("root", "the cluster's capacity (YuniKorn's root queue holds every node's allocatable; no "
                                   "Node in the inputs): the root Cohort gets no quota, so a ClusterQueue without "
                                   "guaranteed resources admits nothing; give the inputs the Nodes (kubectl get nodes "
                                   "-o yaml) or the root Cohort a nominalQuota"))
        return
    guaranteed: dict[str, int] = {}
    for queue in queues:
        for entry in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
            name = VCORE if entry["name"] == "cpu" else entry["name"]
            guaranteed[name] = guaranteed.get(name, 0) + _value(name, entry["nominalQuota"])
    resources = [{"name": _kueue_name(name), "nominalQuota": _quantity(name, max(0, cluster.get(name, 0) - total))}
                 for name, total in sorted(guaranteed.items())]
    root["spec"]["resourceGroups"] = [{"coveredResources": [r["name"] for r in resources],
                                       "flavors": [{"name": FLAVOR, "resources": resources}]}]


def _value(name: str, quantity: str | int) -> int:
    """A quantity :func:`_quantity` wrote, back in YuniKorn's units."""
    return parse_config_value(name, str(quantity))


def _leaf_path(requested: str) -> str:
    """The queue a pod names, qualified as the provided rule does (case-insensitive, under root)."""
    name = requested.lower()
    return name if name.startswith("root.") else f"root.{name}"


def _leaves(conf: QueueConf, parent_path: str) -> Iterable[str]:
    path = f"{parent_path}.{conf.name.lower()}" if parent_path else conf.name.lower()
    if not conf.is_parent:
        yield path
    for child in conf.children:
        yield from _leaves(child, path)


def cohort_name(path: str) -> str:
    return path.lower().replace(".", "-").replace("_", "-").replace(":", "-").replace("#", "-").replace("@", "-") \
        .replace("/", "-")


def _queue(conf: QueueConf, parent_path: str, cohort: str | None, documents: list[dict[str, Any]],
           losses: list[Loss], namespaces: dict[str, set[str]]) -> None:
    path = f"{parent_path}.{conf.name.lower()}" if parent_path else conf.name.lower()
    _queue_losses(conf, path, losses)
    if conf.is_parent:
        name = cohort_name(path)
        body: dict[str, Any] = {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": {}}
        if cohort is not None:
            body["spec"]["parentName"] = cohort
        documents.append(body)
        if conf.resources.guaranteed or conf.resources.max:
            losses.append(Loss(path, "the guaranteed and max of a parent queue: a Cohort's quota adds to what its "
                                     "ClusterQueues share, it does not bound them (left out)"))
        for child in conf.children:
            _queue(child, path, name, documents, losses, namespaces)
        return
    documents.append(_cluster_queue(conf, path, cohort, losses))
    for namespace in sorted(namespaces.get(path, ())):
        documents.append({"apiVersion": KUEUE, "kind": "LocalQueue",
                          "metadata": {"name": cohort_name(conf.name), "namespace": namespace},
                          "spec": {"clusterQueue": cohort_name(path)}})


def _cluster_queue(conf: QueueConf, path: str, cohort: str | None, losses: list[Loss]) -> dict[str, Any]:
    try:
        guaranteed = resource_from_conf(conf.resources.guaranteed.values if conf.resources.guaranteed else None)
        maximum = resource_from_conf(conf.resources.max.values if conf.resources.max else None)
    except QuantityError as exc:
        losses.append(Loss(path, f"resources do not parse ({exc}): the ClusterQueue has no quota"))
        guaranteed, maximum = {}, {}
    names = sorted(set(guaranteed) | set(maximum) | {VCORE, MEMORY})
    resources = []
    for name in names:
        entry: dict[str, Any] = {"name": _kueue_name(name), "nominalQuota": _quantity(name, guaranteed.get(name, 0))}
        if name in maximum:
            entry["borrowingLimit"] = _quantity(name, max(0, maximum[name] - guaranteed.get(name, 0)))
        resources.append(entry)
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": [r["name"] for r in resources],
                            "flavors": [{"name": FLAVOR, "resources": resources}]}],
        "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
    }
    if cohort is not None:
        spec["cohortName"] = cohort
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": cohort_name(path)}, "spec": spec}


def _kueue_name(name: str) -> str:
    return "cpu" if name == VCORE else name


def _quantity(name: str, value: int) -> str | int:
    if name == VCORE:
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    if name == MEMORY:
        for suffix, unit in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if value and value % unit == 0:
                return f"{value // unit}{suffix}"
        return str(value)
    return str(value)


def _namespace_leaves(partition: PartitionConf) -> dict[str, str]:
    """Leaves a tag rule on the namespace puts a namespace's pods in: ``root.<ns>`` (under a fixed parent, if any)."""
    found: dict[str, str] = {}
    for rule in partition.placementrules or []:
        if rule.name.lower() != "tag" or rule.value.lower() != "namespace":
            continue
        parent = "root"
        if rule.parent is not None and rule.parent.name.lower() == "fixed":
            value = rule.parent.value.lower()
            parent = value if value.startswith("root") else f"root.{value}"
        elif rule.parent is not None:
            continue  # the parent is dynamic: no fixed leaf per namespace
        _collect_leaves(partition.root, "", parent, found)
    return found


def _collect_leaves(conf: QueueConf, parent_path: str, under: str, found: dict[str, str]) -> None:
    path = f"{parent_path}.{conf.name.lower()}" if parent_path else conf.name.lower()
    if not conf.is_parent and parent_path == under:
        found[path] = conf.name.lower()
    for child in conf.children:
        _collect_leaves(child, path, under, found)


def _queue_losses(conf: QueueConf, path: str, losses: list[Loss]) -> None:
    values = conf.properties.values if conf.properties else {}
    if values.get(props.PRIORITY_POLICY, "").lower() == props.FENCE:
        losses.append(Loss(path, "priority.policy: fence (Kueue orders ClusterQueues by priority and borrowing, "
                                 "with nothing like a fence)"))
    if values.get(props.PRIORITY_OFFSET, "0") not in ("", "0"):
        losses.append(Loss(path, f"priority.offset {values[props.PRIORITY_OFFSET]} (no queue priority offset in Kueue: "
                                 "a WorkloadPriorityClass per workload instead)"))
    if values.get(props.SORT_POLICY) == props.FAIR:
        losses.append(Loss(path, "application.sort.policy: fair (Kueue queues are FIFO by priority and time)"))
    if values.get(props.PREEMPTION_POLICY, "").lower() in (props.FENCE, props.DISABLED):
        losses.append(Loss(path, f"preemption.policy: {values[props.PREEMPTION_POLICY]} (Kueue's preemption is set per "
                                 "ClusterQueue: reclaimWithinCohort, withinClusterQueue)"))
    if props.PREEMPTION_DELAY in values or props.QUOTA_PREEMPTION_DELAY in values:
        losses.append(Loss(path, "preemption delays (Kueue preempts as soon as it decides to)"))
    if conf.maxapplications:
        losses.append(Loss(path, f"maxapplications {conf.maxapplications} (Kueue limits resources, not workloads)"))
    if conf.limits:
        losses.append(Loss(path, "user and group limits (Kueue has no per-user quota)"))
    if conf.submitacl.strip() not in ("", "*") or conf.adminacl.strip() not in ("", "*"):
        losses.append(Loss(path, "ACLs (who may use a LocalQueue is Kubernetes RBAC on its namespace)"))
    template = conf.childtemplate
    if template.maxapplications or template.properties or template.resources.guaranteed or template.resources.max:
        losses.append(Loss(path, "childtemplate: Kueue has no queues created on demand"))


def _partition_losses(partition: PartitionConf, losses: list[Loss]) -> None:
    for rule in partition.placementrules or []:
        kind = rule.name.lower()
        if kind == "tag" and rule.value.lower() == "namespace":
            losses.append(Loss("", "placement rule tag(namespace): LocalQueues are written for the leaves it names; "
                                   "queues it would create on demand have no ClusterQueue"))
        else:
            losses.append(Loss("", f"placement rule {kind}: pods pick a LocalQueue by the kueue.x-k8s.io/queue-name "
                                   "label instead"))
    if partition.nodesortpolicy.type == "binpacking":
        losses.append(Loss("", "nodesortpolicy binpacking (node choice is the kube-scheduler's under Kueue)"))
