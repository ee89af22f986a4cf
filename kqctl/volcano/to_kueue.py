"""Volcano queues as Kueue objects (``kqctl convert --to kueue``), keeping the intent as far as Kueue can say it.

* A queue's ``deserved`` (else its ``guarantee``) becomes its ClusterQueue's ``nominalQuota``: the share it is
  entitled to, above which its work can be reclaimed; the ``guarantee`` stays its own through a
  ``lendingLimit`` of nominal minus guarantee; ``capability`` bounds it through a ``borrowingLimit`` of
  capability minus nominal. Resources no queue lists get a nominal quota of 0 (only what others lend).
* The queue tree becomes a Cohort tree: a queue with children becomes a Cohort (``parentName`` for its parent),
  a leaf a ClusterQueue in its parent's Cohort; top-level queues share the Cohort ``root``.
* One ResourceFlavor ``default-flavor`` covers every resource; Closed queues get ``stopPolicy: Hold``.
* The cluster (the nodes' allocatable, which Volcano's root queue shares out) goes to the root Cohort beyond the
  nominal quotas written, when the input has Nodes (VC-CONV-CAPACITY).
* Preemption: the ``reclaim`` action (taking back what other queues use above their deserved share) becomes
  ``reclaimWithinCohort: Any``; the ``preempt`` action with the ``priority`` plugin (a starving job evicts
  lower-priority jobs of its own queue, ``actions/preempt``, ``plugins/priority`` ``PreemptableFn``) becomes
  ``withinClusterQueue: LowerPriority``. What Kueue cannot say is reported (:func:`preemption_issues`).

What has no Kueue equivalent is reported per field: proportion's weight-based water-filling (the weight goes to
``fairSharing.weight``, which only means something with fair sharing on), ``reclaimable``, queue ``priority``,
``dequeueStrategy``, the hierarchy annotations, node-group affinity and extended clusters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kqctl.volcano.api.models import ROOT_QUEUE, Queue
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, to_quantity

KUEUE_API = "kueue.x-k8s.io/v1beta2"
FLAVOR = "default-flavor"
ROOT_COHORT = "root"


@dataclass(frozen=True)
class Issue:
    rule_id: str
    queue: str
    path: tuple[str, ...]
    message: str


def convert(queues: list[Queue], reclaim: bool, fields: Mapping[str, Mapping[str, Any]], preempt: bool = False,
            cluster: Mapping[str, int] | None = None) -> tuple[list[dict[str, Any]], list[Issue]]:
    """Kueue objects for the queues (root and default included only when written), and what did not carry over.
    ``reclaim``: the scheduler's actions include reclaim; ``preempt``: they include preempt and the priority
    plugin ranks its victims; ``fields``: each queue's spec as written; ``cluster``: the nodes' allocatable in all
    (Volcano's units; None: no Node in the input), which the root Cohort gets beyond the nominal quotas
    (VC-CONV-CAPACITY)."""
    issues: list[Issue] = []
    parents = {q.parent_name for q in queues if q.name != ROOT_QUEUE}
    resources = sorted({name for q in queues for values in (q.capability, q.deserved, q.guarantee) if values
                        for name in values} | {CPU, MEMORY})
    objects: list[dict[str, Any]] = [{"apiVersion": KUEUE_API, "kind": "ResourceFlavor",
                                      "metadata": {"name": FLAVOR}, "spec": {}}]
    cohorts = sorted({ROOT_COHORT} | {p for p in parents if p != ROOT_QUEUE})
    for cohort in cohorts:
        body: dict[str, Any] = {"apiVersion": KUEUE_API, "kind": "Cohort", "metadata": {"name": cohort}, "spec": {}}
        queue = next((q for q in queues if q.name == cohort), None)
        if cohort != ROOT_COHORT:
            body["spec"]["parentName"] = queue.parent_name if queue is not None and queue.parent_name != ROOT_QUEUE \
                else ROOT_COHORT
        if queue is not None and queue.weight != 1:
            body["spec"]["fairSharing"] = {"weight": str(queue.weight)}
        if queue is not None:
            issues.extend(_lost(queue, fields.get(queue.name, {})))
        if queue is not None and (queue.capability or queue.deserved or queue.guarantee):
            body["spec"]["resourceGroups"] = _resource_groups(queue, resources)
            issues.append(Issue("VC-CONV-PARENT-QUOTA", queue.name, ("spec",), "a parent queue's quota becomes its "
                                "Cohort's quota: Kueue adds it to what the Cohort's ClusterQueues can borrow, while "
                                "Volcano caps the children with it"))
        objects.append(body)
    for queue in queues:
        if queue.name in parents or queue.name == ROOT_QUEUE:
            continue
        objects.append(_cluster_queue(queue, resources, reclaim, preempt))
        issues.extend(_lost(queue, fields.get(queue.name, {})))
    if cluster is not None:
        _give_root_the_cluster(objects, queues, resources, cluster)
    return objects, issues


def _give_root_the_cluster(objects: list[dict[str, Any]], queues: list[Queue], resources: list[str],
                           cluster: Mapping[str, int]) -> None:
    """VC-CONV-CAPACITY: the root Cohort (unless a root Queue wrote its own quota) holds what the nodes have beyond
    every nominal quota written (the ClusterQueues' and the other Cohorts'): the pool a queue with a weight only, or
    a deserved below what it runs, borrows from in Kueue."""
    root = next(o for o in objects if o["kind"] == "Cohort" and o["metadata"]["name"] == ROOT_COHORT)
    if "resourceGroups" in root["spec"]:
        return
    # Every queue's nominal quota, as _resource_groups wrote it: the root queue's is 0 here (it wrote none), and a
    # parent queue without quota wrote no resourceGroups and has 0 too.
    quotas = [{"name": name, "nominalQuota": to_quantity(name, max(0, cluster.get(name, 0)
                                                                - sum(_nominal(q, name) for q in queues)))}
              for name in resources if name != PODS]
    root["spec"]["resourceGroups"] = [{"coveredResources": [q["name"] for q in quotas],
                                       "flavors": [{"name": FLAVOR, "resources": quotas}]}]


def tree_problems(queues: list[Queue]) -> list[Issue]:
    """VC-CONV-TREE: what makes the queues no tree at all (a queue its own parent, parents in a cycle). Kueue's
    Cohorts would inherit the cycle (XO-CO-CYCLE: every ClusterQueue under it inactive), so nothing is converted."""
    parent = {q.name: q.parent_name for q in queues if q.name != ROOT_QUEUE}
    problems: list[Issue] = []
    reported: set[str] = set()
    for queue in queues:
        if queue.name in reported or queue.name not in parent:
            continue
        if parent[queue.name] == queue.name:
            reported.add(queue.name)
            problems.append(Issue("VC-CONV-TREE", queue.name, ("spec", "parent"),
                                  f"queue {queue.name} is its own parent: the queues form no tree"))
            continue
        cycle = _cycle_from(queue.name, parent)
        if cycle and queue.name in cycle:
            loop = " -> ".join([*cycle, cycle[0]])
            for name in cycle:
                reported.add(name)
                problems.append(Issue("VC-CONV-TREE", name, ("spec", "parent"),
                                      f"the parents of queues {loop} form a cycle: the queues form no tree (Volcano's "
                                      "webhook refuses them, hierarchical capacity stops scheduling) and the Cohorts "
                                      "would form the same cycle"))
    return problems


def _cycle_from(start: str, parent: Mapping[str, str]) -> list[str]:
    """The queues of the cycle the parent links from ``start`` run into, in link order; [] when they end."""
    path: list[str] = []
    seen: dict[str, int] = {}
    name = start
    while name in parent and name not in seen:
        seen[name] = len(path)
        path.append(name)
        name = parent[name]
    return path[seen[name]:] if name in seen else []


def _cluster_queue(queue: Queue, resources: list[str], reclaim: bool, preempt: bool) -> dict[str, Any]:
    cohort = queue.parent_name if queue.parent_name not in ("", ROOT_QUEUE) else ROOT_COHORT
    spec: dict[str, Any] = {
        "cohortName": cohort,
        "namespaceSelector": {},  # a Volcano queue takes jobs from every namespace
        "resourceGroups": _resource_groups(queue, resources),
        "preemption": {"reclaimWithinCohort": "Any" if reclaim else "Never",
                       "withinClusterQueue": "LowerPriority" if preempt else "Never"},
    }
    if queue.weight != 1:
        spec["fairSharing"] = {"weight": str(queue.weight)}
    if queue.state != "Open":
        spec["stopPolicy"] = "Hold"
    return {"apiVersion": KUEUE_API, "kind": "ClusterQueue", "metadata": {"name": queue.name}, "spec": spec}


def preemption_issues(actions: Sequence[str], plugins: Sequence[str]) -> list[str]:
    """VC-CONV-PREEMPT: what of Volcano's in-queue preemption does not carry over to withinClusterQueue."""
    if "preempt" not in actions:
        return []
    if "priority" not in plugins:
        return ["the preempt action is configured without the priority plugin, so no job outranks another: "
                "withinClusterQueue stays Never"]
    found = ["preempt becomes withinClusterQueue: LowerPriority; Kueue evicts whole lower-priority workloads, "
             "while Volcano evicts single pods as its plugins vote (gang keeps each job at minAvailable, task "
             "priority inside one job, conformance spares critical pods) and also preempts between the tasks of "
             "one job, which Kueue cannot"]
    if "reclaim" not in actions:
        found.append("reclaim is not configured, so reclaimWithinCohort is Never: queues do not take back what "
                     "others borrow")
    return found


def _resource_groups(queue: Queue, resources: list[str]) -> list[dict[str, Any]]:
    quotas = []
    for name in resources:
        if name == PODS:
            continue
        guarantee, nominal = (queue.guarantee or {}).get(name, 0), _nominal(queue, name)
        entry: dict[str, Any] = {"name": name, "nominalQuota": to_quantity(name, nominal)}
        capability = (queue.capability or {}).get(name)
        if capability is not None and (capability > 0 or name not in (CPU, MEMORY)):
            entry["borrowingLimit"] = to_quantity(name, max(capability - nominal, 0))
        if guarantee:
            entry["lendingLimit"] = to_quantity(name, max(nominal - guarantee, 0))
        quotas.append(entry)
    return [{"coveredResources": [q["name"] for q in quotas], "flavors": [{"name": FLAVOR, "resources": quotas}]}]


def _nominal(queue: Queue, name: str) -> int:
    """A queue's nominalQuota of ``name``: its deserved share, else its guarantee, else 0."""
    return (queue.deserved or {}).get(name, (queue.guarantee or {}).get(name, 0))


def _lost(queue: Queue, spec: Mapping[str, Any]) -> list[Issue]:
    found = []
    if queue.weight != 1:
        found.append(Issue("VC-CONV-WEIGHT", queue.name, ("spec", "weight"),
                           f"weight {queue.weight}: Kueue has no weight-based water-filling of deserved shares; it is "
                           "kept as fairSharing.weight, which only acts with fair sharing on in Kueue's Configuration"))
    if not queue.reclaimable:
        found.append(Issue("VC-CONV-RECLAIMABLE", queue.name, ("spec", "reclaimable"),
                           "reclaimable: false has no Kueue equivalent: other ClusterQueues may reclaim what it "
                           "borrows (Kueue decides by their reclaimWithinCohort)"))
    if queue.priority:
        found.append(Issue("VC-CONV-PRIORITY", queue.name, ("spec", "priority"),
                           f"priority {queue.priority}: Kueue does not order ClusterQueues by a priority"))
    for field_name, rule in (("dequeueStrategy", "VC-CONV-DEQUEUE"), ("affinity", "VC-CONV-AFFINITY"),
                             ("extendClusters", "VC-CONV-CLUSTERS"), ("type", "VC-CONV-TYPE")):
        if spec.get(field_name):
            found.append(Issue(rule, queue.name, ("spec", field_name),
                               f"{field_name} has no Kueue equivalent: dropped"))
    if not queue.deserved and queue.capability:
        found.append(Issue("VC-CONV-NO-DESERVED", queue.name, ("spec", "capability"),
                           "no deserved or guarantee: nominalQuota 0, so the ClusterQueue only runs what its cohort "
                           "lends (under proportion Volcano would compute a deserved share from the weight)"))
    return found
