"""Loaded objects become one Volcano :class:`~kqctl.volcano.api.snapshot.Snapshot`, as Volcano's cache sees them.

What Volcano's controllers would create from the input is created here too: the implicit ``root`` and
``default`` queues (scheduler ``newDefaultAndRootQueue``), a vcjob's PodGroup and pods (job controller:
``createOrUpdatePodGroup``, ``calcPGMinResources``, after the job webhook's defaults), and a PodGroup for each
pod of the ``volcano`` scheduler without one (podgroup controller ``buildPodGroupFromPod``). An object Go could
not decode, a duplicate or an unreadable input stops here with a located error (exit 3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import yaml

from kqctl.errors import InputError
from kqctl.findings import Severity
from kqctl.k8s.affinity import read_placement
from kqctl.k8s.core import Fields, LimitRange, ModelError, PriorityClass, controller_kind, json_kind, metadata
from kqctl.k8s.pods import PodResources, pod_requests, read_pod_resources, summarize_limit_ranges
from kqctl.k8s.taints import read_tolerations, with_api_server_defaults
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import FieldPath, Origin, format_path
from kqctl.volcano.api.config import CHART_DEFAULT, CHART_DEFAULT_SOURCE, SchedulerConf, parse_conf
from kqctl.volcano.api.models import (
    DEFAULT_QUEUE,
    GROUP_NAME_ANNOTATION,
    POD_AFFINITY_FIELDS,
    PREEMPTABLE_KEY,
    QUEUE_NAME_ANNOTATION,
    ROOT_QUEUE,
    RUNTIME_ANNOTATION,
    TASK_PRIORITY_ANNOTATION,
    TASK_SPEC_KEY,
    UNMODELLED_POD_FIELDS,
    VOLCANO_SCHEDULER,
    EvictionPolicy,
    Node,
    Pod,
    PodGroup,
    Queue,
)
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, is_scalar_resource_name
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.kinds import BATCH_GROUP, GROUP, SCHEDULER_CONF_KEY, SCHEDULER_CONFIGMAP

JobKey = tuple[str, str]


class ConfSource:
    """A ``volcano-scheduler.conf`` given outside the objects (``--scheduler-conf FILE``)."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name


def build_snapshot(result: LoadResult, conf_file: ConfSource | None = None) -> Snapshot:
    """Every object of the inputs in one snapshot; the first unusable input raises :class:`InputError`."""
    if result.unreadable:
        raise result.unreadable[0]
    by_kind: dict[tuple[str, str], list[LoadedObject]] = {}
    warnings: list[str] = []
    for obj in result.objects:
        _check_loadable(obj, warnings)
        if obj.info is not None:
            by_kind.setdefault((obj.info.group, obj.info.kind), []).append(obj)
    snapshot = Snapshot(conf=_conf(by_kind.get(("", "ConfigMap"), []), conf_file))
    snapshot.warnings.extend(warnings)
    for problem in snapshot.conf.problems:
        hint = f"; {problem.hint}" if problem.hint else ""
        snapshot.warnings.append(f"{snapshot.conf.source}: volcano-scheduler.conf {format_path(problem.path)}: "
                                 f"{problem.message} ({problem.rule_id}{hint})")
    _add_priority_classes(snapshot, by_kind.get(("scheduling.k8s.io", "PriorityClass"), []))
    _add_queues(snapshot, by_kind.get((GROUP, "Queue"), []))
    namespaces = _namespace_queues(by_kind.get(("", "Namespace"), []))
    limits = _limit_ranges(by_kind.get(("", "LimitRange"), []))
    for obj in by_kind.get((GROUP, "PodGroup"), []):
        group = _decoded(obj, PodGroup.from_body, _with_namespace(obj))
        snapshot.pod_groups[group.key] = _repointed(group, namespaces)
    for obj in by_kind.get(("", "Node"), []):
        node = _decoded(obj, Node.from_body, obj.body)
        snapshot.nodes[node.name] = node
    pods = [_pod(obj, snapshot, limits) for obj in by_kind.get(("", "Pod"), [])]
    for obj in by_kind.get((BATCH_GROUP, "Job"), []):
        pods.extend(_add_vcjob(snapshot, obj, pods, limits, namespaces))
    snapshot.pods = _grouped(snapshot, pods, namespaces)
    _note_assumptions(snapshot)
    note_limitations(snapshot)
    return snapshot


# --- input checks -------------------------------------------------------------------------------------


def _check_loadable(obj: LoadedObject, warnings: list[str]) -> None:
    for finding in obj.findings:
        if finding.severity is Severity.ERROR:
            hint = f" ({finding.hint})" if finding.hint else ""
            raise InputError(obj.origin.file, f"{finding.rule_id}: {finding.message}{hint}",
                             line=obj.line_of(finding.path), index=obj.origin.index)
        warnings.append(f"{obj.origin}: {finding.message}")


def _decoded(obj: LoadedObject, build: Any, body: Mapping[str, Any]) -> Any:
    try:
        return build(body, obj.origin)
    except ModelError as exc:
        raise _located(obj, exc.path, exc.detail) from None


def _located(obj: LoadedObject, path: FieldPath, message: str) -> InputError:
    where = ".".join(str(p) for p in path)
    return InputError(obj.origin.file, f"{obj.kind} {obj.name}: {where}: {message} (kqctl validate shows every "
                      "problem)", line=obj.line_of(path), index=obj.origin.index)


def _with_namespace(obj: LoadedObject) -> dict[str, Any]:
    meta = obj.body.get("metadata")
    if isinstance(meta, dict) and meta.get("namespace"):
        return obj.body  # type: ignore[no-any-return]
    return {**obj.body, "metadata": {**(meta if isinstance(meta, dict) else {}), "namespace": obj.namespace}}


# --- scheduler configuration ---------------------------------------------------------------------------


def _conf(configmaps: list[LoadedObject], conf_file: ConfSource | None) -> SchedulerConf:
    """--scheduler-conf, else the ConfigMap volcano-scheduler-configmap, else the chart's configuration."""
    if conf_file is not None:
        return conf_from_text(conf_file.text, f"file {conf_file.name}", conf_file.name, 1, refuse_errors=True,
                              whole_file=True)
    named = [obj for obj in configmaps if obj.name == SCHEDULER_CONFIGMAP]
    if len(named) > 1:
        places = ", ".join(str(obj.origin) for obj in named)
        raise InputError(named[1].origin.file, f"ConfigMap {SCHEDULER_CONFIGMAP} is given {len(named)} times "
                         f"({places}): one scheduler reads one configuration", line=named[1].origin.line)
    if not named:
        return parse_conf(yaml.safe_load(CHART_DEFAULT), CHART_DEFAULT_SOURCE)
    obj = named[0]
    data = obj.body.get("data")
    text = data.get(SCHEDULER_CONF_KEY) if isinstance(data, dict) else None
    path: FieldPath = ("data", SCHEDULER_CONF_KEY)
    if not isinstance(text, str):
        raise _located(obj, path, f"the ConfigMap has no string key {SCHEDULER_CONF_KEY}, so the scheduler has "
                       "no configuration to load")
    where = f"ConfigMap {obj.namespace}/{obj.name}"
    # The key's line is looked up only for an error: finding it composes the input's whole YAML stream.
    return conf_from_text(text, where, obj.origin.file, lambda: obj.line_of(path), refuse_errors=True)


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def conf_from_text(text: str, source: str, file: str, line: int | Callable[[], int],
                   refuse_errors: bool = False, whole_file: bool = False) -> SchedulerConf:
    """A ``volcano-scheduler.conf`` text; YAML or type errors are located errors (exit 3), and with
    ``refuse_errors`` so is what makes Volcano refuse the file (an unknown action, a conflict). ``line`` is
    where the text starts, or how to find it; ``whole_file``: the text is the whole of ``file`` (--scheduler-conf),
    so a refusal is located at its field's line, as validate locates it."""
    try:
        data = yaml.load(text, Loader=_SAFE_LOADER)  # a safe loader, libyaml's when there is one
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = line() if callable(line) else line
        at = line + (mark.line if mark is not None else 0)
        raise InputError(file, f"{source}: volcano-scheduler.conf is not valid YAML: "
                         f"{getattr(exc, 'problem', None) or exc}", line=at) from None
    try:
        conf = parse_conf(data, source)
    except ModelError as exc:
        raise InputError(file, f"{source}: volcano-scheduler.conf: {exc}", line=line() if callable(line) else line) \
            from None
    if refuse_errors and conf.errors:
        problem = conf.errors[0]
        hint = f"; {problem.hint}" if problem.hint else ""
        where = f" {format_path(problem.path)}" if problem.path else ""
        # A file of its own is located at the problem's field, as validate locates it; a ConfigMap's text at its key.
        field_line = _line_in_text(text, file, problem.path) if whole_file and problem.path else None
        raise InputError(file, f"{source}: volcano-scheduler.conf{where}: {problem.message}: Volcano refuses this "
                         f"configuration ({problem.rule_id}{hint}; kqctl validate shows every problem)",
                         line=field_line or (line() if callable(line) else line))
    return conf


def _line_in_text(text: str, file: str, path: FieldPath) -> int | None:
    """The line of ``path`` in a YAML text of one document (None when it cannot be read as one)."""
    from kqctl.load.documents import parse_documents

    try:
        documents = parse_documents(text, file)
    except Exception:  # noqa: BLE001 - a location is a nicety: the error is raised anyway
        return None
    return documents[0].line_of(path) if len(documents) == 1 else None


# --- queues, classes, namespaces ------------------------------------------------------------------------


def _add_priority_classes(snapshot: Snapshot, objects: list[LoadedObject]) -> None:
    for obj in objects:
        priority_class = _decoded(obj, PriorityClass.from_v1, obj.body)
        snapshot.priority_classes[priority_class.name] = priority_class


def _add_queues(snapshot: Snapshot, objects: list[LoadedObject]) -> None:
    for obj in objects:
        queue = _decoded(obj, Queue.from_body, obj.body)
        snapshot.queues[queue.name] = queue
    for name in (ROOT_QUEUE, DEFAULT_QUEUE):
        snapshot.queues.setdefault(name, Queue.implicit_queue(name))


def _namespace_queues(objects: list[LoadedObject]) -> dict[str, str]:
    """Namespaces annotated scheduling.volcano.sh/queue-name: their PodGroups' queue when it is ``default``."""
    found: dict[str, str] = {}
    for obj in objects:
        notes = obj.metadata.get("annotations")
        queue = notes.get(QUEUE_NAME_ANNOTATION) if isinstance(notes, dict) else None
        if isinstance(queue, str) and queue and obj.name:
            found[obj.name] = queue
    return found


def _repointed(group: PodGroup, namespaces: Mapping[str, str]) -> PodGroup:
    """The PodGroup mutating webhook moves a PodGroup of queue ``default`` to its namespace's queue."""
    queue = namespaces.get(group.namespace)
    if group.queue == DEFAULT_QUEUE and queue:
        return replace(group, queue=queue)
    return group


def _limit_ranges(objects: list[LoadedObject]) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {}
    for obj in objects:
        limit_range = _decoded(obj, LimitRange.from_v1, _with_namespace(obj))
        found.setdefault(limit_range.namespace, []).extend(limit_range.items)
    return found


# --- pods as tasks ---------------------------------------------------------------------------------------


def pod_request(pod_spec: Mapping[str, Any], limit_items: list[Mapping[str, Any]] | None = None) -> dict[str, int]:
    """``GetPodResourceRequest`` in Volcano's units: containers, init containers and sidecars, pod-level
    resources and overhead (after LimitRange defaults, as the API server applies them), plus ``pods: 1``."""
    return _volcano_request(pod_requests(_adjusted(pod_spec, limit_items)))


def _adjusted(pod_spec: Mapping[str, Any], limit_items: list[Mapping[str, Any]] | None) -> PodResources:
    """The pod spec's resources after the LimitRange defaults, as the API server applies them."""
    from kqctl.k8s.pods import adjust

    limits = summarize_limit_ranges(limit_items) if limit_items else None
    return adjust(read_pod_resources(pod_spec), limits)


def _volcano_request(requests: Mapping[str, int]) -> dict[str, int]:
    """A pod's requests (``PodRequests``) in Volcano's units, plus ``pods: 1``."""
    result: dict[str, int] = {}
    for name, value in requests.items():
        if name in (CPU, MEMORY):
            result[name] = value
        elif name == PODS:
            continue
        elif name == "ephemeral-storage" or is_scalar_resource_name(name):
            result[name] = value * 1000  # Volcano keeps scalars in milli-units
    result[PODS] = 1
    return result


# kube-scheduler's defaults for a container that requests no cpu or no memory (``schedutil.DefaultMilliCPURequest``,
# ``DefaultMemoryRequest``): its node scorers count them so that such pods still weigh something.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def scoring_request(pod_spec: Mapping[str, Any], limit_items: list[Mapping[str, Any]] | None = None) -> tuple[int, int]:
    """VC-SCORE-1: the non-zero cpu and memory requests kube-scheduler's NodeResourcesFit scores with
    (``PodRequests`` with ``NonMissingContainerRequests``): every container, init containers included, that
    does not name cpu (memory) counts 100m (200Mi); one that names 0 counts 0."""
    return _scoring(_adjusted(pod_spec, limit_items))


def _scoring(pod: PodResources) -> tuple[int, int]:
    """``scoring_request`` of an adjusted pod (whose containers it changes: the defaults are added to them)."""
    for container in [*pod.init_containers, *pod.containers]:
        container.requests.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
        container.requests.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
    requests = pod_requests(pod)
    return requests.get(CPU, 0), requests.get(MEMORY, 0)


def _both_requests(pod_spec: Mapping[str, Any],
                   limit_items: list[Mapping[str, Any]] | None) -> tuple[dict[str, int], tuple[int, int]]:
    """``pod_request`` and ``scoring_request`` from one reading of the spec (reading and adjusting its resources twice
    cost 9 of the 39 µs the two took per pod, for 50,000 pods): the request is summed before the scoring's defaults
    change the containers."""
    pod = _adjusted(pod_spec, limit_items)
    request = _volcano_request(pod_requests(pod))
    return request, _scoring(pod)


def _pod(obj: LoadedObject, snapshot: Snapshot, limits: Mapping[str, list[Mapping[str, Any]]]) -> Pod:
    body = _with_namespace(obj)
    try:
        return pod_model(body, snapshot, limits.get(obj.namespace or "default"), obj.origin)
    except ModelError as exc:
        raise _located(obj, exc.path, exc.detail) from None


def pod_model(body: Mapping[str, Any], snapshot: Snapshot, limit_items: list[Mapping[str, Any]] | None,
              origin: Origin | None, created_by: str = "") -> Pod:
    meta = metadata(body)
    fields = Fields(body)
    spec = fields.child("spec")
    status = fields.child("status")
    annotations = meta.string_map("annotations")
    labels = meta.string_map("labels")
    request, score_request = _both_requests(spec.obj, limit_items)
    policy = spec.string("preemptionPolicy")
    return Pod(
        namespace=meta.string("namespace") or "default",
        name=meta.string("name"),
        uid=meta.string("uid"),
        group=annotations.get(GROUP_NAME_ANNOTATION, ""),
        queue_annotation=annotations.get(QUEUE_NAME_ANNOTATION, ""),
        scheduler_name=spec.string("schedulerName") or "default-scheduler",
        node_name=spec.string("nodeName"),
        phase=status.string("phase") or "Pending",
        deleting=meta.has("deletionTimestamp"),
        request=request,
        score_request=score_request,
        priority=_task_priority(spec, annotations, snapshot),
        preemptable=_preemptable(annotations, labels),
        preempt_never=policy == "Never",
        priority_class_name=spec.string("priorityClassName"),
        task_role=annotations.get(TASK_SPEC_KEY) or labels.get(TASK_SPEC_KEY, ""),
        creation=meta.opt_time("creationTimestamp"),
        gated=bool(spec.list("schedulingGates")),
        unmodelled=_unmodelled(spec),
        tolerations=with_api_server_defaults(read_tolerations(spec)),
        placement=read_placement(spec),
        created_by=created_by,
        origin=origin,
        runtime=annotations.get(RUNTIME_ANNOTATION, ""),
        controller="Job" if created_by else controller_kind(body.get("metadata") or {}),
    )


def _unmodelled(spec: Fields) -> tuple[str, ...]:
    """The pod spec fields whose predicates and scores kqctl does not evaluate; of ``affinity`` only its pod
    (anti-)affinity (nodeAffinity is AFF-1/AFF-2)."""
    found: list[str] = []
    for name in UNMODELLED_POD_FIELDS:
        if name == "nodeName" or not spec.raw(name):
            continue
        if name == "affinity":
            affinity = spec.child(name)
            found.extend(f"affinity.{part}" for part in POD_AFFINITY_FIELDS if affinity.raw(part))
            continue
        found.append(name)
    return tuple(found)


def _task_priority(spec: Fields, annotations: Mapping[str, str], snapshot: Snapshot) -> int:
    """The pod's priority as the API server's Priority admission sets it, overridden by volcano.sh/task-priority."""
    priority = spec.opt_integer("priority")
    if priority is None:
        named = snapshot.priority_classes.get(spec.string("priorityClassName"))
        default = next((pc for pc in snapshot.priority_classes.values() if pc.global_default), None)
        priority = named.value if named is not None else default.value if default is not None else 0
    override = annotations.get(TASK_PRIORITY_ANNOTATION)
    if override is not None:
        try:
            value = int(override, 10)
        except ValueError:
            return priority
        if -(2**31) <= value < 2**31:
            return value
    return priority


_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


def _preemptable(annotations: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    """``GetPodPreemptable``: annotation, then label volcano.sh/preemptable; unparsable is false; default true."""
    for source in (annotations, labels):
        value = source.get(PREEMPTABLE_KEY)
        if value is not None:
            return value in _TRUE
    return True


# --- vcjobs -------------------------------------------------------------------------------------------------


def _add_vcjob(snapshot: Snapshot, obj: LoadedObject, pods: list[Pod], limits: Mapping[str, list[Mapping[str, Any]]],
               namespaces: Mapping[str, str]) -> list[Pod]:
    """A vcjob's PodGroup and pods as the job controller creates them; those already in the input are kept."""
    body = _with_namespace(obj)
    try:
        job = _VcJob(body)
        group = _owned_group(snapshot, job) or job.pod_group(snapshot)
        snapshot.pod_groups.setdefault(group.key, _repointed(group, namespaces))
        snapshot.vcjobs[f"{job.namespace}/{job.name}"] = group.key
        snapshot.eviction_policies[group.key] = job.eviction_policy()
        existing = {p.name for p in pods if p.namespace == job.namespace}
        cluster = _cluster_size(snapshot)
        created = [pod_model(pod_body, snapshot, limits.get(job.namespace), obj.origin, f"Job/{job.name}")
                   for pod_body in job.pod_bodies(group.name, cluster, snapshot.notes)
                   if pod_body["metadata"]["name"] not in existing]
    except ModelError as exc:
        raise _located(obj, exc.path, exc.detail) from None
    return created


def _owned_group(snapshot: Snapshot, job: _VcJob) -> PodGroup | None:
    """A PodGroup of the input the job controller made for this job (named <job>-<uid>, or the job's name)."""
    for name in (f"{job.name}-{job.uid}" if job.uid else None, job.name):
        if name and f"{job.namespace}/{name}" in snapshot.pod_groups:
            return snapshot.pod_groups[f"{job.namespace}/{name}"]
    return None


class _VcJob:
    """batch.volcano.sh/v1alpha1 Job after the job webhook's defaults (``mutate_job.go``)."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        meta = metadata(body)
        self.spec = Fields(body).child("spec")
        self.namespace = meta.string("namespace") or "default"
        self.name = meta.string("name")
        self.uid = meta.string("uid")
        self.labels = meta.string_map("labels")
        self.runtime = meta.string_map("annotations").get(RUNTIME_ANNOTATION, "")
        self.creation = meta.opt_time("creationTimestamp")
        self.queue = self.spec.string("queue") or DEFAULT_QUEUE
        self.scheduler = self.spec.string("schedulerName") or VOLCANO_SCHEDULER
        self.priority_class = self.spec.string("priorityClassName")
        self.tasks = [_Task(task, i) for i, task in enumerate(self.spec.items("tasks"))]
        minimum = self.spec.integer("minAvailable")
        self.min_available = minimum or sum(t.min_available for t in self.tasks)

    def pod_group(self, snapshot: Snapshot) -> PodGroup:
        """``createOrUpdatePodGroup``: minMember, minTaskMember, queue, class and ``calcPGMinResources``."""
        return PodGroup(
            namespace=self.namespace, name=f"{self.name}-{self.uid}" if self.uid else self.name, queue=self.queue,
            min_member=self.min_available, min_task_member={t.name: t.min_available for t in self.tasks},
            min_resources=self._min_resources(snapshot), priority_class_name=self.priority_class,
            phase="Pending", creation=self.creation, network_topology=self.spec.has("networkTopology"),
            created_by=f"Job/{self.name}", labels=self.labels, runtime=self.runtime)

    def eviction_policy(self) -> EvictionPolicy:
        """The actions its controller takes on PodEvicted (``applyPolicies``), and ``maxRetry`` (webhook default 3)."""
        tasks = {task.name: action for task in self.tasks if (action := _evicted_action(task.fields))}
        retry = self.spec.opt_integer("maxRetry")
        return EvictionPolicy(_evicted_action(self.spec), tasks, 3 if not retry else retry)

    def _min_resources(self, snapshot: Snapshot) -> dict[str, int]:
        """``calcPGMinResources``: tasks by their template's PriorityClass value, highest first (Go's sort is
        not stable: equal priorities keep input order here); the first minAvailable pods' requests."""
        def value(task: _Task) -> int:
            named = snapshot.priority_classes.get(task.template_spec.string("priorityClassName"))
            return named.value if named is not None else 0

        ordered = sorted(self.tasks, key=value, reverse=True)
        total_min = sum(t.min_available for t in self.tasks)
        counts: list[tuple[_Task, int]] = []
        if self.min_available < total_min:
            left = self.min_available  # CalcFirstCountResources: greedy by replicas
            for task in ordered:
                take = min(left, task.replicas)
                counts.append((task, take))
                left -= take
                if left <= 0:
                    break
        else:
            counts = self._min_available_counts(ordered)
        total: dict[str, int] = {}
        for task, count in counts:
            for name, amount in task.request().items():
                total[name] = total.get(name, 0) + amount * count
        return total

    def _min_available_counts(self, ordered: list[_Task]) -> list[tuple[_Task, int]]:
        """``CalcPGMinResources``: each task's minAvailable first, then spare replicas up to minAvailable."""
        counts: list[tuple[_Task, int]] = []
        pods = 0
        for task in ordered:
            take = min(task.min_available, self.min_available - pods)
            counts.append((task, take))
            pods += take
            if pods >= self.min_available:
                return counts
        left = self.min_available - pods
        for task in ordered:
            spare = task.replicas - task.min_available
            if spare <= 0:
                continue
            take = min(left, spare)
            counts.append((task, take))
            left -= take
            if left <= 0:
                break
        return counts

    def pod_bodies(self, group: str, cluster: Mapping[str, int] | None = None,
                   notes: list[str] | None = None) -> list[dict[str, Any]]:
        """Each task's replicas as pods ``<job>-<task>-<index>``, annotated with the PodGroup and task; with the
        cluster's size, at most :func:`replicas_kept` of them (said in ``notes``)."""
        bodies = []
        for task in self.tasks:
            kept = replicas_kept(task.replicas, task.request(), cluster) if cluster is not None else task.replicas
            if kept < task.replicas and notes is not None:
                notes.append(f"vcjob {self.namespace}/{self.name}: task {task.name} has {task.replicas:,} replicas; "
                             f"kqctl creates the first {kept:,} pods, more than the cluster could ever run at once "
                             "and more than it has of every resource they request (the PodGroup's minMember and "
                             f"minResources still count all {task.replicas:,})")
            template = task.template
            meta = dict(template.get("metadata") or {})
            spec = dict(template.get("spec") or {})
            spec.setdefault("schedulerName", self.scheduler)
            if not spec.get("priorityClassName") and self.priority_class:
                spec["priorityClassName"] = self.priority_class
            for index in range(kept):
                annotations = {**(meta.get("annotations") or {}), GROUP_NAME_ANNOTATION: group,
                               TASK_SPEC_KEY: task.name}
                bodies.append({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {**meta, "name": f"{self.name}-{task.name}-{index}",
                                            "namespace": self.namespace, "annotations": annotations,
                                            **({"creationTimestamp": self.creation} if self.creation else {})},
                               "spec": spec, "status": {"phase": "Pending"}})
        return bodies


ALWAYS_KEPT = 10_000


def _cluster_size(snapshot: Snapshot) -> dict[str, int]:
    """The Ready nodes' allocatable, summed, in Volcano's units."""
    total: dict[str, int] = {}
    for node in snapshot.nodes.values():
        if node.ready:
            for name, value in node.allocatable.items():
                total[name] = total.get(name, 0) + value
    return total


def replicas_kept(replicas: int, request: Mapping[str, int], cluster: Mapping[str, int]) -> int:
    """How many of a task's replicas kqctl creates as pods: all of them, up to one more than the cluster has pod
    slots and one more than it could hold of every resource a pod requests. The pods beyond could never run at
    the same time as the others and ask for what no node has left, so every gate decides alike with them or
    without (a vcjob with 2,000,000,000 replicas must not exhaust memory). Up to :data:`ALWAYS_KEPT` replicas
    are always created, so an ordinary job looks the same whatever nodes the input holds."""
    bound = max(ALWAYS_KEPT, cluster.get(PODS, 0) + 1)
    for name, amount in request.items():
        if name != PODS and amount > 0:
            bound = max(bound, -(-cluster.get(name, 0) // amount) + 1)
    return max(0, min(replicas, bound))


def _evicted_action(fields: Fields) -> str:
    """The action of the first policy whose ``event``/``events`` name PodEvicted or ``*`` ("" when none does)."""
    for policy in fields.items("policies"):
        events = (policy.string("event"), *policy.strings("events"))
        if "PodEvicted" in events or "*" in events:
            return policy.string("action")
    return ""


class _Task:
    def __init__(self, fields: Fields, index: int) -> None:
        self.fields = fields
        self.name = fields.string("name") or f"default{index}"
        self.replicas = fields.integer("replicas")
        partition = fields.child("partitionPolicy")
        minimum = fields.opt_integer("minAvailable")
        if minimum is None:
            partitions = partition.integer("minPartitions")
            minimum = partitions * partition.integer("partitionSize") if partitions > 0 else self.replicas
        self.min_available = minimum
        raw = fields.raw("template")
        if raw is not None and not isinstance(raw, Mapping):
            raise ModelError(fields.at("template"), f"expected a pod template, got {json_kind(raw)}")
        self.template: Mapping[str, Any] = raw or {}
        self.template_spec = fields.child("template").child("spec")

    def request(self) -> dict[str, int]:
        return pod_request(self.template_spec.obj)


# --- pods and their PodGroups --------------------------------------------------------------------------------


def _grouped(snapshot: Snapshot, pods: list[Pod], namespaces: Mapping[str, str]) -> list[Pod]:
    """Pods of the ``volcano`` scheduler without a group annotation get their own PodGroup (podgroup controller);
    a PodGroup such a pod names that the input does not hold is kept as :meth:`PodGroup.missing` (the controller
    makes none for a pod that names one, and the scheduler skips its job), so every command says what becomes of
    its pods."""
    result: list[Pod] = []
    for pod in pods:
        if pod.group and pod.scheduler_name == VOLCANO_SCHEDULER and pod.status not in ("Succeeded", "Failed") \
                and f"{pod.namespace}/{pod.group}" not in snapshot.pod_groups:
            snapshot.pod_groups[f"{pod.namespace}/{pod.group}"] = PodGroup.missing(pod.namespace, pod.group, pod.origin)
        if pod.group or pod.scheduler_name != VOLCANO_SCHEDULER or pod.status in ("Succeeded", "Failed"):
            result.append(pod)
            continue
        name = f"podgroup-{pod.uid or pod.name}"
        request = dict(pod.request)  # CalTaskRequests(pod, minMember 1)
        group = PodGroup(namespace=pod.namespace, name=name, queue=pod.queue_annotation or DEFAULT_QUEUE, min_member=1,
                         min_resources=request, priority_class_name=pod.priority_class_name,
                         phase="Running" if pod.node_name else "Pending", creation=pod.creation,
                         created_by=f"Pod/{pod.name}", origin=pod.origin, runtime=pod.runtime)
        snapshot.pod_groups.setdefault(group.key, _repointed(group, namespaces))
        result.append(replace(pod, group=name))
    return result


# --- what kqctl assumed -------------------------------------------------------------------------------------


def _note_assumptions(snapshot: Snapshot) -> None:
    assumed = sorted(q.name for q in snapshot.queues.values() if q.state_assumed and not q.implicit)
    if assumed:
        shown = ", ".join(assumed[:10]) + (f" and {len(assumed) - 10:,} more" if len(assumed) > 10 else "")
        snapshot.notes.append(f"{len(assumed):,} queue(s) without status.state taken as Open, the state the queue "
                              f"controller gives a new queue: {shown}")
    snapshot.notes.append(f"scheduler configuration: {snapshot.conf.source}")


def note_limitations(snapshot: Snapshot) -> None:
    """What the input uses that kqctl does not simulate, one line each (simulate prints them)."""
    from kqctl.volcano.api.config import SIMULATED_ACTIONS, SIMULATED_PLUGINS

    conf = snapshot.conf
    found = snapshot.limitations
    actions = [a for a in conf.actions if a not in SIMULATED_ACTIONS]
    if actions:
        found.append(f"action(s) {', '.join(actions)} are configured but not simulated")
    plugins = sorted({p.name for p in conf.plugins() if p.name not in SIMULATED_PLUGINS})
    if plugins:
        found.append(f"plugin(s) {', '.join(plugins)} are configured but not simulated (they vote nothing here)")
    topology_aware = conf.configurations.get("preempt", {}).get("enableTopologyAwarePreemption")
    if "preempt" in conf.actions and topology_aware in (True, "1", "t", "T", "true", "True", "TRUE"):
        found.append("preempt's enableTopologyAwarePreemption is not simulated: kqctl preempts node by node, in "
                     "node score order, as Volcano does without it")
    fields: dict[str, int] = {}
    for pod in snapshot.pods:
        if not pod.node_name and pod.scheduler_name == VOLCANO_SCHEDULER:
            for name in pod.unmodelled:
                fields[name] = fields.get(name, 0) + 1
    if fields:
        used = ", ".join(f"{name} ({count} pod{'s' if count > 1 else ''})" for name, count in sorted(fields.items()))
        found.append(f"pending pods use {used}: kqctl places pods by resources, pod count, taints, nodeSelector and "
                     "node affinity; the predicates and node scores these fields drive are not evaluated")
    if any(g.network_topology or g.sub_groups for g in snapshot.pod_groups.values()):
        found.append("PodGroups with networkTopology or subGroupPolicy: topology-aware placement is not simulated")
    if any(q.has_affinity for q in snapshot.queues.values()):
        found.append("queues with spec.affinity (node groups): the nodegroup plugin's filtering is not simulated")
    dra = sorted({q.name for q in snapshot.queues.values()
                  for values in (q.capability, q.deserved, q.guarantee) if values
                  for key in values if "deviceclass/" in key})
    if dra:
        found.append(f"queue(s) {', '.join(dra)} set deviceclass quotas (DRA): not simulated")
    not_ready = sorted(n.name for n in snapshot.nodes.values() if not n.ready)
    if not_ready:
        snapshot.notes.append(f"node(s) not Ready take no part, as in Volcano: {', '.join(not_ready)}")
