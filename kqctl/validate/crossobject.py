"""Cross-object consistency (rule set XO): what Kueue accepts but will not admit anything with.

References to objects absent from the inputs are warnings by default (the object may live in
the cluster) and errors with ``--closed`` (the inputs are the whole world). Problems that are
certain from the inputs alone (cohort cycles) are always errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kqctl.api.kinds import KUEUE_GROUP
from kqctl.api.selectors import namespace_labels, selector_matches
from kqctl.load.objects import LoadedObject
from kqctl.validate.findings import Finding, Severity, error, info, warning

Located = tuple[LoadedObject, Finding]


@dataclass
class World:
    """The inputs indexed by kind and name, every Kueue object in its v1beta2 form."""

    closed: bool
    objects: list[tuple[LoadedObject, dict[str, Any]]]

    def of_kind(self, kind: str) -> list[tuple[LoadedObject, dict[str, Any]]]:
        return [(obj, body) for obj, body in self.objects if _kind(obj) == kind]

    def names(self, kind: str) -> set[str]:
        return {obj.name for obj, _ in self.of_kind(kind) if obj.name}

    def namespaced_names(self, kind: str) -> set[tuple[str, str]]:
        return {(obj.namespace or "", obj.name) for obj, _ in self.of_kind(kind) if obj.name}

    def missing(self, rule_id: str, path: tuple[str | int, ...], message: str, hint: str | None = None) -> Finding:
        """A reference to an object not in the inputs: a warning, or an error with --closed."""
        severity = Severity.ERROR if self.closed else Severity.WARNING
        return Finding(rule_id, severity, path, message, hint)


def _kind(obj: LoadedObject) -> str:
    return "LocalQueue" if obj.kind == "Queue" else obj.kind


def cross_object_findings(objects: list[LoadedObject], closed: bool = False) -> list[Located]:
    """Every XO finding, each attached to the object it is about."""
    world = World(closed, [(obj, _v1beta2(obj)) for obj in objects])
    located: list[Located] = []
    for check in CHECKS:
        located.extend(check(world))
    return located


def _v1beta2(obj: LoadedObject) -> dict[str, Any]:
    if obj.info is None or obj.info.group != KUEUE_GROUP:
        return obj.body  # type: ignore[no-any-return]
    from kqctl.api.kueue.versions import to_v1beta2

    return to_v1beta2(obj.body, copy_hub=False).body


def _spec(body: dict[str, Any]) -> dict[str, Any]:
    spec = body.get("spec")
    return spec if isinstance(spec, dict) else {}


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _flavor_refs(spec: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for i, group in enumerate(_items(spec.get("resourceGroups"))):
        flavors = group.get("flavors") if isinstance(group, dict) else None
        for j, flavor in enumerate(_items(flavors)):
            if isinstance(flavor, dict) and isinstance(flavor.get("name"), str):
                yield ("spec", "resourceGroups", i, "flavors", j, "name"), flavor["name"]


def check_missing_flavors(world: World) -> Iterator[Located]:
    """XO-1: a ClusterQueue naming a missing ResourceFlavor is inactive (FlavorNotFound)."""
    flavors = world.names("ResourceFlavor")
    for obj, body in world.of_kind("ClusterQueue"):
        for path, name in _flavor_refs(_spec(body)):
            if name not in flavors:
                yield obj, world.missing(
                    "XO-CQ-FLAVOR", path,
                    f"ResourceFlavor {name!r} is not in the inputs: ClusterQueue {obj.name} would be inactive"
                    " (FlavorNotFound) and admit nothing",
                    f"create ResourceFlavor {name!r} or remove it from the ClusterQueue")


def check_missing_admission_checks(world: World) -> Iterator[Located]:
    """XO-1: a ClusterQueue naming a missing AdmissionCheck is inactive (AdmissionCheckNotFound)."""
    checks = world.names("AdmissionCheck")
    for obj, body in world.of_kind("ClusterQueue"):
        strategy = _spec(body).get("admissionChecksStrategy")
        entries = strategy.get("admissionChecks") if isinstance(strategy, dict) else None
        for i, entry in enumerate(_items(entries)):
            name = entry.get("name") if isinstance(entry, dict) else None
            if isinstance(name, str) and name not in checks:
                yield obj, world.missing(
                    "XO-CQ-CHECK", ("spec", "admissionChecksStrategy", "admissionChecks", i, "name"),
                    f"AdmissionCheck {name!r} is not in the inputs: ClusterQueue {obj.name} would be inactive"
                    " (AdmissionCheckNotFound) and admit nothing")


def check_nil_namespace_selector(world: World) -> Iterator[Located]:
    """DEF-2: a ClusterQueue without namespaceSelector matches no namespace at all."""
    for obj, body in world.of_kind("ClusterQueue"):
        if _spec(body).get("namespaceSelector") is None:
            yield obj, warning(
                "XO-NS-NIL", ("spec",),
                f"ClusterQueue {obj.name} has no namespaceSelector: it matches no namespace and will admit no"
                " workload", "add `namespaceSelector: {}` to admit workloads from every namespace")


def check_local_queue_targets(world: World) -> Iterator[Located]:
    """XO-4 and XO-6: a LocalQueue must name an existing ClusterQueue that selects its namespace."""
    queues = {obj.name: body for obj, body in world.of_kind("ClusterQueue") if obj.name}
    namespaces = {obj.name: body for obj, body in world.of_kind("Namespace") if obj.name}
    for obj, body in world.of_kind("LocalQueue"):
        target = _spec(body).get("clusterQueue")
        if not isinstance(target, str) or not target:
            continue  # schema/CEL territory
        if target not in queues:
            yield obj, world.missing(
                "XO-LQ-CQ", ("spec", "clusterQueue"),
                f"ClusterQueue {target!r} is not in the inputs: workloads in LocalQueue {obj.namespace}/{obj.name}"
                f" would stay pending with \"ClusterQueue {target} doesn't exist\"")
            continue
        yield from _selector_reachability(world, obj, target, queues[target], namespaces)


def _selector_reachability(world: World, obj: LoadedObject, target: str, queue: dict[str, Any],
                           namespaces: dict[str, dict[str, Any]]) -> Iterator[Located]:
    selector = _spec(queue).get("namespaceSelector")
    if selector is None:
        return  # reported once on the ClusterQueue (XO-NS-NIL)
    namespace = obj.namespace or "default"
    namespace_body = namespaces.get(namespace)
    meta = namespace_body.get("metadata") if namespace_body else None
    labels = meta.get("labels") if isinstance(meta, dict) and isinstance(meta.get("labels"), dict) else {}
    if selector_matches(selector, namespace_labels(namespace, labels)):
        return
    message = (f"namespace {namespace!r} does not match the namespaceSelector of ClusterQueue {target}: every"
               f" workload of LocalQueue {namespace}/{obj.name} fails with \"workload namespace doesn't match"
               " ClusterQueue selector\"")
    if namespace_body is None:
        yield obj, world.missing("XO-LQ-NS", ("spec", "clusterQueue"),
                                 message + f" (Namespace {namespace} is not in the inputs; only its"
                                 " kubernetes.io/metadata.name label was assumed)")
    else:
        yield obj, world.missing("XO-LQ-NS", ("spec", "clusterQueue"), message,
                                 "label the namespace or widen the ClusterQueue's namespaceSelector")


def _cohort_parents(world: World) -> dict[str, tuple[LoadedObject, str | None]]:
    parents: dict[str, tuple[LoadedObject, str | None]] = {}
    for obj, body in world.of_kind("Cohort"):
        parent = _spec(body).get("parentName")
        if obj.name:
            parents[obj.name] = (obj, parent if isinstance(parent, str) and parent else None)
    return parents


def check_cohort_cycles(world: World) -> Iterator[Located]:
    """XO-3: a cycle of parentName links excludes every ClusterQueue under it from scheduling."""
    parents = _cohort_parents(world)
    reported: set[str] = set()
    for start in sorted(parents):
        cycle = _cycle_from(start, parents)
        if not cycle or cycle[0] in reported:
            continue
        reported.update(cycle)
        chain = " -> ".join([*cycle, cycle[0]])
        for name in cycle:
            yield parents[name][0], error(
                "XO-CO-CYCLE", ("spec", "parentName"),
                f"Cohort {name} is in a parentName cycle ({chain}): every ClusterQueue under it is excluded from"
                " scheduling (its workloads stay pending with \"ClusterQueue ... is inactive\")",
                "break the cycle by removing one parentName")


def _cycle_from(start: str, parents: dict[str, tuple[LoadedObject, str | None]]) -> list[str]:
    seen: list[str] = []
    current: str | None = start
    while current is not None and current in parents:
        if current in seen:
            cycle = seen[seen.index(current):]
            return sorted(cycle) if cycle else []
        seen.append(current)
        current = parents[current][1]
    return []


def check_implicit_cohorts(world: World) -> Iterator[Located]:
    """XO-2: naming a Cohort that has no object creates an implicit root cohort without quota."""
    cohorts = world.names("Cohort")
    for kind, field in (("ClusterQueue", "cohortName"), ("Cohort", "parentName")):
        for obj, body in world.of_kind(kind):
            name = _spec(body).get(field)
            if isinstance(name, str) and name and name not in cohorts:
                yield obj, info("XO-CO-IMPLICIT", ("spec", field),
                                f"Cohort {name!r} has no object in the inputs: it is an implicit root cohort with"
                                " no quota or limits of its own")


def check_workload_queues(world: World) -> Iterator[Located]:
    """XO-4: a Workload naming a missing LocalQueue stays pending (Misconfigured)."""
    queues = world.namespaced_names("LocalQueue")
    for obj, body in world.of_kind("Workload"):
        queue = _spec(body).get("queueName")
        if isinstance(queue, str) and queue and (obj.namespace or "", queue) not in queues:
            yield obj, world.missing(
                "XO-WL-LQ", ("spec", "queueName"),
                f"LocalQueue {obj.namespace}/{queue} is not in the inputs: the workload would stay pending with"
                f" \"LocalQueue {queue} doesn't exist\"")


def check_workload_priority_classes(world: World) -> Iterator[Located]:
    """XO-8: a Workload's priorityClassRef must name an existing class of its kind."""
    known = {"WorkloadPriorityClass": world.names("WorkloadPriorityClass"),
             "PriorityClass": world.names("PriorityClass")}
    for obj, body in world.of_kind("Workload"):
        ref = _spec(body).get("priorityClassRef")
        if not isinstance(ref, dict):
            continue
        kind, name = ref.get("kind"), ref.get("name")
        if kind in known and isinstance(name, str) and name not in known[kind]:
            yield obj, world.missing("XO-WL-PRIORITY", ("spec", "priorityClassRef", "name"),
                                     f"{kind} {name!r} is not in the inputs")


def check_job_priority_classes(world: World) -> Iterator[Located]:
    """XO-8: a Job labelled with a missing WorkloadPriorityClass gets no Workload at all."""
    classes = world.names("WorkloadPriorityClass")
    for obj, body in world.of_kind("Job"):
        labels = body.get("metadata", {}).get("labels") if isinstance(body.get("metadata"), dict) else None
        name = labels.get("kueue.x-k8s.io/priority-class") if isinstance(labels, dict) else None
        if isinstance(name, str) and name not in classes:
            yield obj, world.missing(
                "XO-JOB-PRIORITY", ("metadata", "labels", "kueue.x-k8s.io/priority-class"),
                f"WorkloadPriorityClass {name!r} is not in the inputs: Kueue would not create a Workload for this"
                " Job (WorkloadPriorityClassNotFound)")


def check_local_queue_weights(world: World) -> Iterator[Located]:
    """VAL-LQ-4: a non-positive LocalQueue weight makes its admission-fair-sharing usage infinite."""
    from kqctl.api.quantity import QuantityError, parse_quantity

    for obj, body in world.of_kind("LocalQueue"):
        fair = _spec(body).get("fairSharing")
        weight = fair.get("weight") if isinstance(fair, dict) else None
        if weight is None:
            continue
        try:
            value = parse_quantity(weight).value
        except (QuantityError, TypeError, ValueError):
            continue
        if value <= 0:
            yield obj, warning("XO-LQ-WEIGHT", ("spec", "fairSharing", "weight"),
                               f"weight {weight} is not positive: under admission fair sharing this LocalQueue's"
                               " usage counts as infinite and its workloads always go last")


def check_priority_class_values(world: World) -> Iterator[Located]:
    """§2.7: a WorkloadPriorityClass named ``default`` is auto-applied; equal values are usually a mistake."""
    by_value: dict[Any, str] = {}
    for obj, body in world.of_kind("WorkloadPriorityClass"):
        if obj.name == "default":
            yield obj, info("XO-WPC-DEFAULT", ("metadata", "name"),
                            "a WorkloadPriorityClass named 'default' is applied to every Job without the"
                            " kueue.x-k8s.io/priority-class label (WorkloadPriorityClassDefaulting)")
        value = body.get("value")
        if isinstance(value, int) and not isinstance(value, bool):
            if value in by_value:
                yield obj, warning("XO-WPC-SAME-VALUE", ("value",),
                                   f"value {value} is also used by WorkloadPriorityClass {by_value[value]}:"
                                   " workloads of both classes never preempt each other by priority")
            else:
                by_value[value] = obj.name or ""


CHECKS: tuple[Callable[[World], Iterator[Located]], ...] = (
    check_missing_flavors,
    check_missing_admission_checks,
    check_nil_namespace_selector,
    check_local_queue_targets,
    check_cohort_cycles,
    check_implicit_cohorts,
    check_workload_queues,
    check_workload_priority_classes,
    check_job_priority_classes,
    check_local_queue_weights,
    check_priority_class_values,
)
