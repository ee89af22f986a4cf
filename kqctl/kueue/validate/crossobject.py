"""Cross-object consistency (rule set XO): what Kueue accepts but will not admit anything with.

References to objects absent from the inputs are warnings by default (the object may live in
the cluster) and errors with ``--closed`` (the inputs are the whole world). Problems that are
certain from the inputs alone (cohort cycles) are always errors.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from kqctl.findings import Finding, Severity, info, warning
from kqctl.k8s.kinds import KindInfo
from kqctl.k8s.selectors import namespace_labels, selector_matches
from kqctl.kueue.kinds import GROUP as KUEUE_GROUP
from kqctl.kueue.kinds import KUEUE_KINDS
from kqctl.load.documents import Document
from kqctl.load.objects import LoadedObject
from kqctl.origin import FieldPath, Origin

if TYPE_CHECKING:
    from kqctl.kueue.api.models import ClusterQueue, ResourceGroup
    from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache

Located = tuple[LoadedObject, Finding]
T = TypeVar("T")
# The kinds whose findings depend only on themselves and the other kinds' objects (ValidationProfile's subjects):
# check_workload_queues, check_workload_priority_classes and check_workloads_can_fit read one Workload at a time, and
# no check reads a Workload for another object's finding.
SUBJECT_KINDS = frozenset({"Workload"})


@dataclass
class World:
    """The inputs indexed by kind and name, every Kueue object in its v1beta2 form."""

    closed: bool
    objects: list[tuple[LoadedObject, dict[str, Any]]]
    by_kind: dict[str, list[tuple[LoadedObject, dict[str, Any]]]] = dataclasses.field(default_factory=dict)
    _quota: tuple[tuple[QuotaCache, dict[str, LoadedObject]] | None] | None = dataclasses.field(
        default=None, init=False, repr=False)  # quota_cache(), once built

    def __post_init__(self) -> None:
        # Some thirty checks each ask for one kind: index once instead of scanning 50,000 objects each time.
        for obj, body in self.objects:
            self.by_kind.setdefault(_kind(obj), []).append((obj, body))

    def quota_cache(self) -> tuple[QuotaCache, dict[str, LoadedObject]] | None:
        """The engine's quota tree over the inputs (built once: two checks read it, neither changes it)."""
        if self._quota is None:
            self._quota = (_quota_cache(self),)
        return self._quota[0]

    def of_kind(self, kind: str) -> list[tuple[LoadedObject, dict[str, Any]]]:
        return self.by_kind.get(kind, [])

    def names(self, kind: str) -> set[str]:
        return {obj.name for obj, _ in self.of_kind(kind) if obj.name}

    def namespaced_names(self, kind: str) -> set[tuple[str, str]]:
        return {(obj.namespace or "", obj.name) for obj, _ in self.of_kind(kind) if obj.name}

    def missing(self, rule_id: str, path: tuple[str | int, ...], message: str, hint: str | None = None,
                name: str | None = None, known: Collection[str] = ()) -> Finding:
        """A reference to an object not in the inputs: a warning, or an error with --closed. With the ``name``
        referred to and the ``known`` names of its kind, the hint starts with the close ones: most missing
        references are typos."""
        severity = Severity.ERROR if self.closed else Severity.WARNING
        close = _close_names(name, tuple(sorted(known))) if name is not None else ()
        if close:
            mean = f"did you mean {' or '.join(repr(c) for c in close)}?"
            hint = f"{mean} {hint}" if hint else mean
        return Finding(rule_id, severity, path, message, hint)


@functools.lru_cache(maxsize=1024)
def _close_names(name: str, known: tuple[str, ...]) -> tuple[str, ...]:
    # Remembered: 10,000 Workloads may share one misspelt LocalQueue.
    return tuple(difflib.get_close_matches(name, known, n=2, cutoff=0.75))


def _kind(obj: LoadedObject) -> str:
    return "LocalQueue" if obj.kind == "Queue" else obj.kind


def cross_object_findings(objects: Sequence[LoadedObject], closed: bool = False) -> list[Located]:
    """Every XO finding, each attached to the object it is about."""
    world = World(closed, [(obj, _v1beta2(obj)) for obj in objects])
    located: list[Located] = []
    for check in CHECKS:
        located.extend(check(world))
    return located


# The hub version's apiVersion (kqctl.kueue.api.versions, which has the rest, is not imported at start-up).
_HUB_API_VERSION = f"{KUEUE_GROUP}/v1beta2"


def _v1beta2(obj: LoadedObject) -> dict[str, Any]:
    if obj.info is None or obj.info.group != KUEUE_GROUP:
        return obj.body  # type: ignore[no-any-return]
    if obj.body.get("apiVersion") == _HUB_API_VERSION and obj.body.get("kind") in KUEUE_KINDS:
        return obj.body  # type: ignore[no-any-return]  # the common case, for 50,000 objects, without imports
    from kqctl.kueue.api.versions import V1BETA2, to_v1beta2

    if obj.version == V1BETA2 and obj.kind in KUEUE_KINDS:
        return obj.body  # type: ignore[no-any-return]  # what to_v1beta2(copy_hub=False) returns, sooner

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
                    f"create ResourceFlavor {name!r} or remove it from the ClusterQueue", name, flavors)


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
                    " (AdmissionCheckNotFound) and admit nothing", None, name, checks)


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
                f" would stay pending with \"ClusterQueue {target} doesn't exist\"", None, target, queues)
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
            # A warning: the API server and Kueue's Cohort webhook accept each Cohort (validateCohort checks no
            # parent); the cycle shows only at runtime (pkg/cache/hierarchy/cycle.go HasCycle).
            yield parents[name][0], warning(
                "XO-CO-CYCLE", ("spec", "parentName"),
                f"Cohort {name} is in a parentName cycle ({chain}): the API server accepts it, but Kueue excludes"
                " every ClusterQueue under it from scheduling (its workloads stay pending with \"ClusterQueue ... is"
                " inactive\")",
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
    in_namespace: dict[str, set[str]] = {}
    for namespace, name in queues:
        in_namespace.setdefault(namespace, set()).add(name)
    for obj, body in world.of_kind("Workload"):
        queue = _spec(body).get("queueName")
        if isinstance(queue, str) and queue and (obj.namespace or "", queue) not in queues:
            yield obj, world.missing(
                "XO-WL-LQ", ("spec", "queueName"),
                f"LocalQueue {obj.namespace}/{queue} is not in the inputs: the workload would stay pending with"
                f" \"LocalQueue {queue} doesn't exist\"", None, queue, in_namespace.get(obj.namespace or "", ()))


def check_workload_priority_classes(world: World) -> Iterator[Located]:
    """XO-8: a Workload's priorityClassRef must name an existing class of its kind."""
    known = {"WorkloadPriorityClass": world.names("WorkloadPriorityClass"),
             "PriorityClass": world.names("PriorityClass")}
    for obj, body in world.of_kind("Workload"):
        ref = _spec(body).get("priorityClassRef")
        if not isinstance(ref, dict):
            continue
        kind, name = ref.get("kind"), ref.get("name")
        if isinstance(kind, str) and kind in known and isinstance(name, str) and name not in known[kind]:
            yield obj, world.missing("XO-WL-PRIORITY", ("spec", "priorityClassRef", "name"),
                                     f"{kind} {name!r} is not in the inputs", None, name, known[kind])


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
                " Job (WorkloadPriorityClassNotFound)", None, name, classes)


def check_local_queue_weights(world: World) -> Iterator[Located]:
    """VAL-LQ-4: a non-positive LocalQueue weight makes its admission-fair-sharing usage infinite."""
    from kqctl.k8s.quantity import QuantityError, parse_quantity

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


# The controllers that own admission-check parameters, by the parameters' kind.
_CHECK_PARAMETER_KINDS = {"ProvisioningRequestConfig": "BadParametersRef", "MultiKueueConfig": "BadConfig"}


def check_admission_check_parameters(world: World) -> Iterator[Located]:
    """XO-AC-PARAMS: an AdmissionCheck whose parameters name a missing config is set inactive by its
    controller (reason BadParametersRef / BadConfig), and so is every ClusterQueue using it."""
    for obj, body in world.of_kind("AdmissionCheck"):
        parameters = _dict(_spec(body).get("parameters"))
        kind, name = parameters.get("kind"), parameters.get("name")
        if parameters.get("apiGroup") != KUEUE_GROUP or not isinstance(kind, str) or not isinstance(name, str):
            continue
        reason = _CHECK_PARAMETER_KINDS.get(kind)
        if reason is not None and name not in world.names(kind):
            yield obj, world.missing(
                "XO-AC-PARAMS", ("spec", "parameters", "name"),
                f"{kind} {name!r} is not in the inputs: AdmissionCheck {obj.name} would be inactive ({reason})"
                " and the ClusterQueues using it would admit nothing", None, name, world.names(kind))


def check_multikueue_clusters(world: World) -> Iterator[Located]:
    """XO-MK-CLUSTER: a MultiKueueConfig naming a MultiKueueCluster that does not exist (the check reports
    "Missing clusters"; with none usable it is inactive)."""
    known = world.names("MultiKueueCluster")
    for obj, body in world.of_kind("MultiKueueConfig"):
        for i, name in enumerate(_items(_spec(body).get("clusters"))):
            if isinstance(name, str) and name not in known:
                yield obj, world.missing("XO-MK-CLUSTER", ("spec", "clusters", i),
                                         f"MultiKueueCluster {name!r} is not in the inputs: admission checks using"
                                         f" MultiKueueConfig {obj.name} report it missing", None, name, known)


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


# --- quota reachability (XO-5, XO-9): needs the quota tree of the engine --------------------------------


def _quota_cache(world: World) -> tuple[QuotaCache, dict[str, LoadedObject]] | None:
    """The engine's quota tree over the ClusterQueues and Cohorts Kueue could decode."""
    from kqctl.kueue.api.models import ClusterQueue, Cohort, ResourceFlavor
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.engine.cache import QuotaCache

    snapshot = Snapshot()
    located: dict[str, LoadedObject] = {}
    for obj, body in world.of_kind("ClusterQueue"):
        queue = _decoded(ClusterQueue.from_v1beta2, body)
        if queue is not None:
            snapshot.cluster_queues[queue.name] = queue
            located[queue.name] = obj
    for _, body in world.of_kind("Cohort"):
        cohort = _decoded(Cohort.from_v1beta2, body)
        if cohort is not None:
            snapshot.cohorts[cohort.name] = cohort
    for _, body in world.of_kind("ResourceFlavor"):
        flavor = _decoded(ResourceFlavor.from_v1beta2, body)
        if flavor is not None:
            snapshot.resource_flavors[flavor.name] = flavor
    if not snapshot.cluster_queues:
        return None
    return QuotaCache(snapshot), located


def _decoded(build: Callable[[dict[str, Any]], T], body: dict[str, Any]) -> T | None:
    from kqctl.k8s.core import ModelError

    try:
        return build(body)
    except (ModelError, ValueError, TypeError, AttributeError):
        return None  # the object's own findings say why


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _quota_path(model: ClusterQueue, flavor: str, resource: str, field: str) -> tuple[str | int, ...]:
    groups = model.resource_groups
    flavor_quotas = model.flavor_quotas
    index = 0
    for i, group in enumerate(groups):
        for j, name in enumerate(group.flavors):
            quotas = flavor_quotas[index]
            index += 1
            for k, (res, _) in enumerate(quotas.resources):
                if name == flavor and res == resource:
                    return ("spec", "resourceGroups", i, "flavors", j, "resources", k, field)
    return ("spec", "resourceGroups")


def check_quota_reachability(world: World) -> Iterator[Located]:
    """XO-9: borrowing limits nobody can lend to, and quota that sums to zero in the whole tree."""
    from kqctl.k8s.quantity import format_resource_value
    from kqctl.kueue.engine.quota import lendable_from_tree, potential

    built = world.quota_cache()
    if built is None:
        return
    cache, located = built
    for name, state in sorted(cache.cluster_queues.items()):
        obj = located[name]
        for (flavor, resource), limits in sorted(state.node.quotas.items()):
            fr = (flavor, resource)
            if limits.borrowing_limit is not None and state.has_parent and lendable_from_tree(state.node, fr) == 0:
                yield obj, world.missing(
                    "XO-CQ-NO-LENDER", _quota_path(state.model, flavor, resource, "borrowingLimit"),
                    f"borrowingLimit for {resource} in flavor {flavor} can never matter: no other member of cohort"
                    f" {state.model.cohort} has {flavor}/{resource} quota to lend",
                    "give another ClusterQueue or the Cohort nominal quota for it, or drop the borrowingLimit")
            if potential(state.node, fr) == 0 and limits.nominal == 0:
                yield obj, world.missing(
                    "XO-CQ-ZERO-QUOTA", _quota_path(state.model, flavor, resource, "nominalQuota"),
                    f"the whole quota tree of ClusterQueue {name} holds {format_resource_value(resource, 0)}"
                    f" {resource} in flavor {flavor}: nothing can ever be admitted on it")


def check_workloads_can_fit(world: World) -> Iterator[Located]:
    """XO-5 and XO-9: a workload asking for a resource its ClusterQueue does not cover, or more of a
    resource than any flavor of its group could ever provide, can never be admitted."""
    from kqctl.k8s.pods import spec_requests
    from kqctl.k8s.units import human_figure, human_request
    from kqctl.kueue.engine.quota import potential

    built = world.quota_cache()
    if built is None:
        return
    cache, _ = built
    local_queues = {(obj.namespace, obj.name): body for obj, body in world.of_kind("LocalQueue")}
    # Per (ClusterQueue, resource), the same for every workload: the group covering the resource (None:
    # uncovered) and the most any of its flavors can ever provide (None: a group without flavors).
    verdicts: dict[tuple[str, str], tuple[ResourceGroup | None, int | None]] = {}

    def verdict(state: ClusterQueueState, resource: str) -> tuple[ResourceGroup | None, int | None]:
        group = state.group_for(resource)
        if group is None or not group.flavors:
            return group, None
        return group, max(potential(state.node, (flavor, resource)) for flavor in group.flavors)

    # The ClusterQueue behind each (namespace, queueName): thousands of workloads share a few queues.
    targets: dict[tuple[str | None, str], ClusterQueueState | None] = {}

    def target_of(namespace: str | None, queue_name: str) -> ClusterQueueState | None:
        queue = local_queues.get((namespace, queue_name))
        target = _spec(queue).get("clusterQueue") if queue is not None else None
        return cache.cluster_queues.get(target) if isinstance(target, str) else None

    for obj, body in world.of_kind("Workload"):
        spec = _spec(body)
        queue_name = spec.get("queueName")
        if not isinstance(queue_name, str):
            continue
        namespace = obj.namespace
        state = targets.get((namespace, queue_name), _UNSEEN)
        if state is _UNSEEN:
            state = targets[(namespace, queue_name)] = target_of(namespace, queue_name)
        if state is None:
            continue
        computed = obj.pod_set_totals if isinstance(obj, TrimmedWorkload) else None
        for i, pod_set in enumerate(_items(spec.get("podSets"))):
            if not isinstance(pod_set, dict):
                continue
            totals = computed[i] if computed is not None else fit_totals(pod_set, spec_requests(_pod_spec(pod_set)))
            for resource, total in totals:
                known = verdicts.get((state.name, resource))
                group, best = known if known is not None else verdicts.setdefault(
                    (state.name, resource), verdict(state, resource))
                path = ("spec", "podSets", i)
                if group is None:
                    yield obj, world.missing(
                        "XO-WL-UNCOVERED", path,
                        f"pod set {pod_set.get('name', i)} requests {resource}, which ClusterQueue {state.name} does"
                        f" not cover: the workload can never be admitted (\"resource {resource} unavailable in"
                        " ClusterQueue\")", f"add {resource} to a resource group of ClusterQueue {state.name}")
                    continue
                if best is None:
                    continue  # a resource group without flavors is the schema's finding (minItems), not ours
                if total > best:
                    yield obj, world.missing(
                        "XO-WL-NEVER-FITS", path,
                        f"pod set {pod_set.get('name', i)} needs {human_request(resource, total)} {resource},"
                        f" more than any flavor of ClusterQueue {state.name} can ever provide"
                        f" ({human_figure(resource, best)} with everything borrowed)",
                        "raise nominalQuota or borrowingLimit, or shrink the pod set")


def fit_totals(pod_set: dict[str, Any], per_pod: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """What a pod set needs to fit, per resource (sorted, positive amounts only): its per-pod requests times
    its count (REQ-7), scaled to minCount when it may shrink to that size (REQ-13)."""
    smallest = pod_set.get("minCount", pod_set.get("count", 1))
    count = smallest if isinstance(smallest, int) and not isinstance(smallest, bool) else 1
    full = pod_set.get("count", 1)
    full = full if isinstance(full, int) and not isinstance(full, bool) and full > 0 else count
    totals = ((resource, _scaled_total(amount, full, count)) for resource, amount in sorted(per_pod.items()))
    return tuple((resource, total) for resource, total in totals if total > 0)


def _scaled_total(per_pod: int, count: int, smallest: int) -> int:
    """The pod set's total as Kueue's engine counts it (REQ-7, REQ-13): per pod x count in saturating int64,
    then scaled to ``smallest`` pods (divide, then multiply), so that validate names the amount audit and
    explain name."""
    from kqctl.k8s.quantity import sat_mul

    total = sat_mul(per_pod, count)
    return total if smallest == count or count == 0 else sat_mul(total // count, smallest)


_UNSEEN: Any = object()

CHECKS = (*CHECKS, check_quota_reachability, check_workloads_can_fit, check_admission_check_parameters,
          check_multikueue_clusters)


@dataclass
class TrimmedWorkload(LoadedObject):
    """A Workload as light as the checks need it, with what each entry of ``spec.podSets`` needs to fit
    (:func:`fit_totals`) already computed where it was read, in a worker; None: compute them."""

    pod_set_totals: list[tuple[tuple[str, int], ...]] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Workers send tens of thousands of these: a tuple of the fields pickles in half the time of
        # the dataclasses' state dicts (the placeholder document is made again on arrival).
        return (_trimmed_workload, (self.origin, self.prefix, self.body, self.info, self.findings,
                                    self.pod_set_totals))


def _trimmed_workload(origin: Origin, prefix: FieldPath, body: Any, info: KindInfo | None,
                      findings: list[Finding],
                      pod_set_totals: list[tuple[tuple[str, int], ...]] | None) -> TrimmedWorkload:
    return TrimmedWorkload(origin, Document(origin, None), prefix, body, info, findings, pod_set_totals=pod_set_totals)


def trimmed(obj: LoadedObject) -> LoadedObject:
    """A copy light enough to send between processes, with what the cross-object checks read
    (a Workload only needs its name, namespace, queue and priority references and its pod sets'
    names, counts and requests here)."""
    body = obj.body
    if obj.kind != "Workload":
        return LoadedObject(obj.origin, Document(obj.origin, None), obj.prefix, body, obj.info)
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    pod_sets = spec.get("podSets")
    entries = pod_sets if isinstance(pod_sets, list) else []
    light = {
        "apiVersion": body.get("apiVersion"), "kind": body.get("kind"),
        "metadata": {k: meta[k] for k in ("name", "namespace") if k in meta},
        "spec": {**{k: spec[k] for k in ("queueName", "priorityClassRef", "priorityClassName",
                                         "priorityClassSource") if k in spec},
                 # Every entry keeps its place, so that findings name the same spec.podSets index.
                 "podSets": [_trimmed_pod_set(ps) if isinstance(ps, dict) else ps for ps in entries]},
    }
    return TrimmedWorkload(obj.origin, Document(obj.origin, None), obj.prefix, light, obj.info,
                           pod_set_totals=_pod_set_totals(entries))


def _trimmed_pod_set(pod_set: dict[str, Any]) -> dict[str, Any]:
    """What the checks read besides the requests: the name and the counts (REQ-13: minCount)."""
    return {key: pod_set[key] for key in ("name", "count", "minCount") if key in pod_set}


def _pod_set_totals(pod_sets: list[Any]) -> list[tuple[tuple[str, int], ...]] | None:
    """:func:`fit_totals` of each pod set, as check_workloads_can_fit computes them (the cross-object checks
    run after every file is read, in one process: what can be computed here is computed on every core)."""
    try:
        return [fit_totals(ps, _requests_of(_pod_spec(ps))) if isinstance(ps, dict) else () for ps in pod_sets]
    except Exception:  # noqa: BLE001  # then the check computes them itself, and fails as it would have
        return None


# REQ-6 requests of pod specs seen before, by everything spec_requests reads from them, when all of it
# is plain text: a cluster's workloads repeat a few resource shapes. Anything else is computed anew.
_REQUESTS_SEEN: dict[tuple[Any, ...], dict[str, int]] = {}
_REQUESTS_KEPT = 10_000
_NOT_PLAIN = object()


def _requests_of(pod_spec: dict[str, Any]) -> dict[str, int]:
    from kqctl.k8s.pods import spec_requests

    key = _requests_key(pod_spec)
    if key is None:
        return spec_requests(pod_spec)
    known = _REQUESTS_SEEN.get(key)
    if known is None:
        if len(_REQUESTS_SEEN) >= _REQUESTS_KEPT:
            _REQUESTS_SEEN.clear()
        known = _REQUESTS_SEEN[key] = spec_requests(pod_spec)
    return known


def _requests_key(pod_spec: dict[str, Any]) -> tuple[Any, ...] | None:
    """What REQ-6 reads from a pod spec (containers' and init containers' requests, limits and restart
    policy, pod-level resources, overhead), or None when any of it is not plain strings in dicts and lists."""
    key = (_containers_key(pod_spec.get("initContainers")), _containers_key(pod_spec.get("containers")),
           _resources_key(pod_spec.get("resources")), _text_items(pod_spec.get("overhead")))
    return None if _NOT_PLAIN in key else key


def _containers_key(containers: Any) -> Any:
    if containers is None:
        return None
    if type(containers) is not list:
        return _NOT_PLAIN
    entries = []
    for container in containers:
        if type(container) is not dict:
            return _NOT_PLAIN
        policy = container.get("restartPolicy")
        resources = _resources_key(container.get("resources"))
        if resources is _NOT_PLAIN or (policy is not None and type(policy) is not str):
            return _NOT_PLAIN
        entries.append((policy, resources))
    return tuple(entries)


def _resources_key(resources: Any) -> Any:
    if resources is None:
        return None
    if type(resources) is not dict:
        return _NOT_PLAIN
    requests, limits = _text_items(resources.get("requests")), _text_items(resources.get("limits"))
    return _NOT_PLAIN if requests is _NOT_PLAIN or limits is _NOT_PLAIN else (requests, limits)


def _text_items(quantities: Any) -> Any:
    if quantities is None:
        return None
    if type(quantities) is not dict:
        return _NOT_PLAIN
    items = tuple(quantities.items())
    return items if all(type(k) is str and type(v) is str for k, v in items) else _NOT_PLAIN


def _pod_spec(pod_set: dict[str, Any]) -> dict[str, Any]:
    return _dict(_dict(pod_set.get("template")).get("spec"))
