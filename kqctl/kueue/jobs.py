"""What users submit (batch/v1 Jobs, v1 Pods, pod groups) turned into the Workloads Kueue would create (§4.1, §4.2).

Reimplements, without copying, Kueue's ``pkg/controller/jobframework`` (``ConstructWorkload``,
``NewWorkload``, ``ExtractPriority``, workload names, the defaulting webhooks),
``pkg/controller/jobs/job`` (``PodSets``, ``podsCount``, ``minPodsCount``) and
``pkg/controller/jobs/pod`` (single pods and pod groups, role hashes) at the reference commit.

Everything here is pure: objects are plain JSON-like mappings, and what Kueue would look up in
the cluster (LocalQueues, WorkloadPriorityClasses, PriorityClasses) comes in a
:class:`ConversionContext`. The Workloads are v1beta2 dicts, the shape the loader reads from
files; requests are not computed here (the engine does that from the pod template, REQ-5/6).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kqctl.k8s.names import go_json, is_label_value
from kqctl.k8s.quantity import QuantityError, canonical_quantity
from kqctl.kueue.api.snapshot import Snapshot

# --- constants (pkg/controller/constants, pkg/controller/jobs/{job,pod}, apis/kueue/v1beta2) ---

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_LOCAL_QUEUE = "default"
WPC_LABEL = "kueue.x-k8s.io/priority-class"
DEFAULT_WPC = "default"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
STOPPING_ANNOTATION = "kueue.x-k8s.io/stopping"
PREBUILT_WORKLOAD_KEY = "kueue.x-k8s.io/prebuilt-workload-name"  # both a label and an annotation
PROV_REQ_ANNOTATION_PREFIX = "provreq.kueue.x-k8s.io/"
ADMISSION_GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"
RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_POD_SET = "main"
KQCTL_RUNTIME_ANNOTATION = "kqctl.dev/runtime"  # kqctl's, for replays; carried to the Workload

POD_GROUP_NAME_KEY = "kueue.x-k8s.io/pod-group-name"  # annotation first, then label
POD_GROUP_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
POD_GROUP_FAST_ADMISSION_ANNOTATION = "kueue.x-k8s.io/pod-group-fast-admission"
POD_GROUP_SERVING_ANNOTATION = "kueue.x-k8s.io/pod-group-serving"
IS_GROUP_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/is-group-workload"
ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"
ADMISSION_GATE = "kueue.x-k8s.io/admission"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"

JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
POD_GROUP_POD_INDEX_LABEL = "kueue.x-k8s.io/pod-group-pod-index"
TAS_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
TAS_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
TAS_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
TAS_SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
TAS_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
TAS_POD_SET_GROUP = "kueue.x-k8s.io/podset-group-name"

# Labels the batch Job controller owns; Kueue keeps only batch.kubernetes.io/job-name in the template.
_JOB_MANAGED_LABELS = ("job-name", "controller-uid", "batch.kubernetes.io/controller-uid")

_HASH_LENGTH = 5
_MAX_WORKLOAD_NAME = 253  # ShortWorkloadNames (alpha, off) would make it 63
_MAX_POD_SETS = 18  # jobframework.MaxPodSets

# Controllers Kueue integrates (apiVersion group, kind): a Job or Pod they own is admitted through
# the owner's Workload, not its own (FindAncestorJobManagedByKueue, IsOwnerManagedByKueueForObject).
_INTEGRATION_OWNERS = frozenset({
    ("batch", "Job"), ("jobset.x-k8s.io", "JobSet"), ("kubeflow.org", "MPIJob"), ("kubeflow.org", "PyTorchJob"),
    ("kubeflow.org", "TFJob"), ("kubeflow.org", "XGBoostJob"), ("kubeflow.org", "PaddleJob"),
    ("kubeflow.org", "JAXJob"), ("trainer.kubeflow.org", "TrainJob"), ("ray.io", "RayJob"),
    ("ray.io", "RayCluster"), ("ray.io", "RayService"), ("workload.codeflare.dev", "AppWrapper"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
})  # fmt: skip

Status = Literal["created", "not-created", "not-governed", "existing"]


@dataclass(frozen=True)
class ConversionContext:
    """What Kueue would read from the cluster while creating Workloads.

    ``local_queues``: existing LocalQueue keys ``namespace/name`` (REQ-1 defaulting).
    ``workload_priority_classes``: WPC name -> value. ``priority_classes``: PriorityClass name ->
    (value, globalDefault). ``default_creation_timestamp``: used for objects without one (pass
    the snapshot's clock: a Job submitted now gets its Workload now).
    ``requeue_running_jobs``: see :func:`workload_from_job`.
    """

    local_queues: frozenset[str] = frozenset()
    workload_priority_classes: Mapping[str, int] = field(default_factory=dict)
    priority_classes: Mapping[str, tuple[int, bool]] = field(default_factory=dict)
    label_keys_to_copy: tuple[str, ...] = ()  # Configuration integrations.labelKeysToCopy
    manage_jobs_without_queue_name: bool = False
    # managedJobsNamespaceSelector's default: kube-system and Kueue's own namespace are left alone.
    unmanaged_namespaces: frozenset[str] = frozenset({"kube-system", "kueue-system"})
    pod_integration: bool = True  # Kueue's default integrations.frameworks is only batch/job
    default_creation_timestamp: str | None = None
    requeue_running_jobs: bool = False

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot, **options: Any) -> ConversionContext:
        """The lookups from a snapshot of the other objects; ``options`` set the remaining fields."""
        if snapshot.now is not None and "default_creation_timestamp" not in options:
            options["default_creation_timestamp"] = snapshot.now.isoformat().replace("+00:00", "Z")
        return cls(
            local_queues=frozenset(snapshot.local_queues),
            workload_priority_classes={name: wpc.value for name, wpc in snapshot.workload_priority_classes.items()},
            priority_classes={name: (pc.value, pc.global_default) for name, pc in snapshot.priority_classes.items()},
            **options,
        )


@dataclass(frozen=True)
class ConvertedWorkload:
    """One submitted object (or pod group) and the Workload Kueue would create for it, if any.

    ``status``: ``created`` (``workload`` is set), ``not-created`` (Kueue manages the object but
    creates no Workload: ``reason`` says why), ``not-governed`` (Kueue ignores it: no quota
    accounting at all) or ``existing`` (:func:`dedupe` found its Workload among the inputs).
    ``workload_name`` is the name Kueue gives (or would give) the Workload; ``name_exact`` is
    False when it could not be computed as Kueue does (no UID, approximate role hash).
    ``running_unaccounted``: the object's pods run now without any ClusterQueue counting them.
    """

    kind: str
    namespace: str
    name: str
    uid: str
    status: Status
    workload: dict[str, Any] | None = None
    workload_name: str = ""
    name_exact: bool = True
    reason: str = ""
    notes: tuple[str, ...] = ()
    running_unaccounted: bool = False
    matched_workload: str = ""  # namespace/name of the existing Workload (status "existing")
    members: tuple[str, ...] = ()  # pod names of a pod group

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class WorkloadNotCreated(Exception):
    """Kueue manages the object but would fail (or decline) to create its Workload; the message says why."""


# --- names (jobframework/workload_names.go) --------------------------------------------------------


def workload_name(owner_name: str, owner_uid: str, kind: str, group: str) -> str:
    """``<kind lowercased>-<owner name>`` truncated to 247 chars, ``-``, 5 hex of sha1(kind, group, name, uid)."""
    prefix = f"{kind.lower()}-{owner_name}"[: _MAX_WORKLOAD_NAME - 1 - _HASH_LENGTH]
    digest = hashlib.sha1("\n".join((kind, group, owner_name, owner_uid)).encode()).hexdigest()
    return f"{prefix}-{digest[:_HASH_LENGTH]}"


def job_workload_name(job_name: str, job_uid: str) -> str:
    """REQ-2: the name of a batch/v1 Job's Workload."""
    return workload_name(job_name, job_uid, "Job", "batch")


def pod_workload_name(pod_name: str, pod_uid: str) -> str:
    """The name of a single Pod's Workload (core group: empty)."""
    return workload_name(pod_name, pod_uid, "Pod", "")


def _name_without_uid(kind: str, owner_name: str) -> str:
    # Offline manifests have no UID, so the hash Kueue would append cannot be known (REQ-2).
    return f"{kind.lower()}-{owner_name}"[:_MAX_WORKLOAD_NAME]


# --- small readers ----------------------------------------------------------------------------------


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): v for k, v in _map(value).items() if isinstance(v, str)}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("metadata"))


def _labels(obj: Mapping[str, Any]) -> dict[str, str]:
    return _str_map(_meta(obj).get("labels"))


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return _str_map(_meta(obj).get("annotations"))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _go_atoi(raw: str) -> int | None:
    """Go's ``strconv.Atoi``: optional sign and digits only, int64 range; None where Go errs."""
    if not re.fullmatch(r"[+-]?[0-9]+", raw):
        return None
    value = int(raw)
    return value if -(2**63) <= value < 2**63 else None


def _int32(value: int) -> int:
    """Go's ``int32(v)``: wraps around."""
    return (value + 2**31) % 2**32 - 2**31


def _is_submission(obj: Mapping[str, Any]) -> bool:
    """A manifest not yet created (no UID, no status): Kueue's webhooks will still mutate it."""
    return not _text(_meta(obj).get("uid")) and not _map(obj.get("status"))


def _controller_owner(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for owner in _list(_meta(obj).get("ownerReferences")):
        if isinstance(owner, Mapping) and owner.get("controller") is True:
            return owner
    return None


def _integration_owner(obj: Mapping[str, Any]) -> str:
    """``Kind/name`` of a controlling owner Kueue integrates, else ""."""
    owner = _controller_owner(obj)
    if owner is None:
        return ""
    group = _text(owner.get("apiVersion")).rpartition("/")[0]
    kind = _text(owner.get("kind"))
    return f"{kind}/{_text(owner.get('name'))}" if (group, kind) in _INTEGRATION_OWNERS else ""


# --- defaulting webhooks (jobframework/defaults.go, pod_webhook.go) ---------------------------------


def _defaulted_labels(obj: Mapping[str, Any], namespace: str,
                      ctx: ConversionContext) -> tuple[dict[str, str], list[str]]:
    """REQ-1 queue-name defaulting and REQ-3 WPC defaulting, as the Job/Pod webhook applies them on create."""
    labels = _labels(obj)
    notes: list[str] = []
    if not labels.get(QUEUE_LABEL) and f"{namespace}/{DEFAULT_LOCAL_QUEUE}" in ctx.local_queues:
        labels[QUEUE_LABEL] = DEFAULT_LOCAL_QUEUE
        notes.append(f"REQ-1: no {QUEUE_LABEL} label; Kueue's webhook sets it to the LocalQueue "
                     f"{namespace}/{DEFAULT_LOCAL_QUEUE}")
    # WorkloadPriorityClassDefaulting (beta, on): only when the class named "default" exists.
    if not labels.get(WPC_LABEL) and DEFAULT_WPC in ctx.workload_priority_classes:
        labels[WPC_LABEL] = DEFAULT_WPC
        notes.append(f"REQ-3: no {WPC_LABEL} label; Kueue's webhook sets it to the WorkloadPriorityClass "
                     f"'{DEFAULT_WPC}'")
    return labels, notes


def _governance(obj: Mapping[str, Any], namespace: str, labels: Mapping[str, str], ctx: ConversionContext) -> str:
    """Why Kueue would ignore the object (REQ-1), or "" when it manages it."""
    if namespace in ctx.unmanaged_namespaces:
        return f"namespace {namespace} is outside managedJobsNamespaceSelector: Kueue ignores it"
    if not labels.get(QUEUE_LABEL) and not ctx.manage_jobs_without_queue_name:
        return (f"no {QUEUE_LABEL} label and no LocalQueue '{DEFAULT_LOCAL_QUEUE}' in namespace {namespace}: "
                "Kueue does not manage it (it runs without quota accounting)")
    return ""


# --- priority (REQ-3, jobframework.ExtractPriority, pkg/util/priority) ------------------------------


def resolve_priority(labels: Mapping[str, str], pod_sets: Sequence[Mapping[str, Any]],
                     ctx: ConversionContext) -> tuple[int, dict[str, str] | None]:
    """REQ-3: (priority, priorityClassRef); raises :class:`WorkloadNotCreated` for a missing class (XO-8)."""
    wpc = labels.get(WPC_LABEL, "")
    if wpc:
        if wpc not in ctx.workload_priority_classes:
            # No fallback to the pod's PriorityClass: the Workload is simply not created.
            raise WorkloadNotCreated(f"XO-8: WorkloadPriorityClass {wpc!r} not found "
                                     "(event WorkloadPriorityClassNotFound)")
        return ctx.workload_priority_classes[wpc], _ref("kueue.x-k8s.io", "WorkloadPriorityClass", wpc)
    class_name = next((name for name in (_pod_priority_class(ps) for ps in pod_sets) if name), "")
    if class_name:
        if class_name not in ctx.priority_classes:
            raise WorkloadNotCreated(f"XO-8: PriorityClass {class_name!r} not found")
        return ctx.priority_classes[class_name][0], _ref("scheduling.k8s.io", "PriorityClass", class_name)
    default = global_default_priority_class(ctx.priority_classes)
    if default is not None:
        return ctx.priority_classes[default][0], _ref("scheduling.k8s.io", "PriorityClass", default)
    return 0, None


def global_default_priority_class(priority_classes: Mapping[str, tuple[int, bool]]) -> str | None:
    """The globalDefault PriorityClass; with several, the lowest value (first by name on a tie, as listed)."""
    best: str | None = None
    for name in sorted(priority_classes):
        value, is_default = priority_classes[name]
        if is_default and (best is None or priority_classes[best][0] > value):
            best = name
    return best


def _pod_priority_class(pod_set: Mapping[str, Any]) -> str:
    return _text(_map(_map(pod_set.get("template")).get("spec")).get("priorityClassName"))


def _ref(group: str, kind: str, name: str) -> dict[str, str]:
    return {"group": group, "kind": kind, "name": name}


# --- topology request (jobframework/tas.go; TopologyAwareScheduling is on by default) ---------------


def topology_request(annotations: Mapping[str, str], pod_index_label: str) -> dict[str, Any]:
    """``podSetTopologyRequestBuilder.Build`` with a pod index label: never empty for Jobs and Pods."""
    request: dict[str, Any] = {}
    if TAS_REQUIRED in annotations:
        request["required"] = annotations[TAS_REQUIRED]
    elif TAS_PREFERRED in annotations:
        request["preferred"] = annotations[TAS_PREFERRED]
    elif TAS_UNCONSTRAINED in annotations:
        request["unconstrained"] = _go_parse_bool(annotations[TAS_UNCONSTRAINED])
    request["podIndexLabel"] = pod_index_label
    if TAS_SLICE_REQUIRED in annotations and TAS_SLICE_SIZE in annotations:
        size = _go_atoi(annotations[TAS_SLICE_SIZE])
        if size is None or not -(2**31) <= size < 2**31:
            raise WorkloadNotCreated(f"annotation {TAS_SLICE_SIZE}={annotations[TAS_SLICE_SIZE]!r} is not an int32")
        request["podSetSliceRequiredTopology"] = annotations[TAS_SLICE_REQUIRED]
        request["podSetSliceSize"] = size
    if TAS_POD_SET_GROUP in annotations and ("required" in request or "preferred" in request):
        request["podSetGroupName"] = annotations[TAS_POD_SET_GROUP]  # FA-15 reads it
    return request


def _go_parse_bool(raw: str) -> bool:
    if raw in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if raw in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise WorkloadNotCreated(f"annotation {TAS_UNCONSTRAINED}={raw!r} is not a boolean")


# --- workload assembly (jobframework.NewWorkload / ConstructWorkload) -------------------------------


def _sanitize_env(spec: dict[str, Any]) -> None:
    """``SanitizePodSet``: duplicate env names collapse to the last value, at the first one's position."""
    for key in ("containers", "initContainers"):
        for container in _list(spec.get(key)):
            env = container.get("env") if isinstance(container, dict) else None
            if isinstance(env, list) and all(isinstance(v, Mapping) for v in env):
                by_name: dict[Any, Any] = {}
                for var in env:
                    by_name[var.get("name")] = var  # re-assigning keeps the first position
                container["env"] = list(by_name.values())


def _copied_annotations(annotations: Mapping[str, str]) -> dict[str, str]:
    """ProvisioningRequest parameters, and the AdmissionGatedBy annotation (beta, on).

    Also kqctl's own runtime annotation (not Kueue's: Kueue ignores it), so that ``kqctl replay`` knows how
    long a submitted Job runs.
    """
    copied = {k: v for k, v in annotations.items() if k.startswith(PROV_REQ_ANNOTATION_PREFIX)}
    if annotations.get(ADMISSION_GATED_BY_ANNOTATION):
        copied[ADMISSION_GATED_BY_ANNOTATION] = annotations[ADMISSION_GATED_BY_ANNOTATION]
    if annotations.get(KQCTL_RUNTIME_ANNOTATION):
        copied[KQCTL_RUNTIME_ANNOTATION] = annotations[KQCTL_RUNTIME_ANNOTATION]
    return copied


def _max_exec_seconds(labels: Mapping[str, str]) -> int | None:
    """``MaximumExecutionTimeSecondsForObject``: a positive int32, otherwise ignored."""
    raw = labels.get(MAX_EXEC_TIME_LABEL)
    value = _go_atoi(raw) if raw is not None else None
    return value if value is not None and 0 < value < 2**31 else None


def _workload(base: ConvertedWorkload, labels: Mapping[str, str], pod_sets: list[dict[str, Any]],
              ctx: ConversionContext) -> dict[str, Any]:
    """The Workload's spec and name; the priority is resolved last, as ``prepareWorkload`` does."""
    value, ref = resolve_priority(labels, pod_sets, ctx)
    spec: dict[str, Any] = {"queueName": labels.get(QUEUE_LABEL, ""), "podSets": pod_sets}
    seconds = _max_exec_seconds(labels)
    if seconds is not None:
        spec["maximumExecutionTimeSeconds"] = seconds
    spec["priority"] = value  # PrepareWorkloadPriority always sets it, 0 included
    if ref is not None:
        spec["priorityClassRef"] = ref
    metadata: dict[str, Any] = {"name": base.workload_name, "namespace": base.namespace,
                                "finalizers": [RESOURCE_IN_USE_FINALIZER]}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": metadata, "spec": spec}


def _owner_references(owners: Iterable[tuple[str, str, str, str]], controller: bool) -> list[dict[str, Any]]:
    """(apiVersion, kind, name, uid) as owner references; ones without a UID are left out (the schema needs it)."""
    refs: list[dict[str, Any]] = []
    for api_version, kind, name, uid in owners:
        if not uid:
            continue
        ref: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
        if controller:  # SetControllerReference; the pod-group owners are plain references
            ref.update(controller=True, blockOwnerDeletion=True)
        refs.append(ref)
    return refs


def _set_meta(workload: dict[str, Any], key: str, values: Mapping[str, Any] | list[Any]) -> None:
    if values:
        workload["metadata"][key] = copy.copy(values)


def _creation_timestamp(raw: Any, ctx: ConversionContext, notes: list[str]) -> Any:
    if raw:
        return raw
    if ctx.default_creation_timestamp:
        notes.append(f"no creationTimestamp: the Workload is taken as created at {ctx.default_creation_timestamp}")
        return ctx.default_creation_timestamp
    notes.append("no creationTimestamp: Kueue's queue order sees the zero time (ahead of every dated Workload)")
    return None


# --- batch/v1 Job (jobs/job/job_controller.go) ------------------------------------------------------


def job_pods_count(job: Mapping[str, Any]) -> int:
    """REQ-2: parallelism (default 1), capped by completions when that is set and smaller."""
    spec = _map(job.get("spec"))
    parallelism = _int(spec.get("parallelism"))
    count = 1 if parallelism is None else parallelism
    completions = _int(spec.get("completions"))
    return completions if completions is not None and completions < count else count


def job_min_count(job: Mapping[str, Any]) -> int | None:
    """``minPodsCount``: the min-parallelism annotation when ``strconv.Atoi`` accepts it (as int32)."""
    raw = _annotations(job).get(MIN_PARALLELISM_ANNOTATION)
    value = _go_atoi(raw) if raw is not None else None
    return None if value is None else _int32(value)


def job_is_suspended(job: Mapping[str, Any]) -> bool:
    """``Job.IsSuspended``: suspend is true and Kueue is not in the middle of stopping it."""
    return _map(job.get("spec")).get("suspend") is True and _annotations(job).get(STOPPING_ANNOTATION) != "true"


def job_is_finished(job: Mapping[str, Any]) -> bool:
    return any(
        isinstance(c, Mapping) and c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in _list(_map(job.get("status")).get("conditions"))
    )


def job_pod_set(job: Mapping[str, Any]) -> dict[str, Any]:
    """The Job's single pod set ``main`` (``Job.PodSets`` then ``SanitizePodSets``)."""
    template = copy.deepcopy(dict(_map(_map(job.get("spec")).get("template"))))
    template_meta = template.get("metadata")
    if isinstance(template_meta, dict) and isinstance(template_meta.get("labels"), dict):
        # cleanLabels: the Job controller's own labels would make every Job's template unique.
        template_meta["labels"] = {k: v for k, v in template_meta["labels"].items() if k not in _JOB_MANAGED_LABELS}
    if isinstance(template.get("spec"), dict):
        _sanitize_env(template["spec"])
    pod_set: dict[str, Any] = {"name": DEFAULT_POD_SET, "count": job_pods_count(job), "template": template}
    min_count = job_min_count(job)
    if min_count is not None:
        pod_set["minCount"] = min_count
    pod_set["topologyRequest"] = topology_request(_str_map(_map(template_meta).get("annotations")),
                                                  JOB_COMPLETION_INDEX)
    return pod_set


def _job_webhook_rejection(job: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """The Job webhook rules that would keep the Job (hence its Workload) from existing (§2.9)."""
    raw = _annotations(job).get(MIN_PARALLELISM_ANNOTATION)
    if raw is not None:
        value = _go_atoi(raw)
        pods = job_pods_count(job)
        if value is None or value <= 0 or _int32(value) >= pods:
            return f"VAL-JOB-2: {MIN_PARALLELISM_ANNOTATION}={raw!r} should be between 0 and {pods - 1}"
    raw = labels.get(MAX_EXEC_TIME_LABEL)
    if raw is not None and _max_exec_seconds(labels) is None:
        return f"VAL-JOB-4: {MAX_EXEC_TIME_LABEL}={raw!r} is not a positive number of seconds"
    return ""


def _prebuilt_name(obj: Mapping[str, Any]) -> str:
    """``PrebuiltWorkloadNameFor`` with WorkloadIdentifierAnnotations (beta, on): annotation, then label."""
    return _annotations(obj).get(PREBUILT_WORKLOAD_KEY) or _labels(obj).get(PREBUILT_WORKLOAD_KEY, "")


def _prebuilt_result(obj: Mapping[str, Any], base: ConvertedWorkload,
                     notes: list[str]) -> ConvertedWorkload | None:
    """A Job or Pod naming a prebuilt Workload gets none created: that Workload must be in the inputs."""
    prebuilt = _prebuilt_name(obj)
    if not prebuilt:
        return None
    return replace(base, status="not-created", workload_name=prebuilt, name_exact=True, notes=tuple(notes),
                   reason=f"uses the prebuilt Workload {base.namespace}/{prebuilt}: include it in the inputs")


def workload_from_job(job: Mapping[str, Any], ctx: ConversionContext) -> ConvertedWorkload:
    """The Workload Kueue creates for a batch/v1 Job (REQ-1..3), or why it creates none.

    A Job still to be submitted (no UID, no status) is suspended by Kueue's webhook and queued.
    An existing Job that runs (not suspended) with no Workload among the inputs is reported as
    ``running_unaccounted``: Kueue would suspend it and queue a new Workload, but more often its
    Workload was just left out of the inputs, so by default none is invented (``not-created``);
    ``ctx.requeue_running_jobs`` makes it ``created`` (pending) as Kueue would do.
    """
    meta = _meta(job)
    namespace, name, uid = _text(meta.get("namespace")) or "default", _text(meta.get("name")), _text(meta.get("uid"))
    base = ConvertedWorkload("Job", namespace, name, uid, "not-governed",
                             workload_name=job_workload_name(name, uid) if uid else _name_without_uid("Job", name),
                             name_exact=bool(uid))
    owner = _integration_owner(job)
    if owner:
        return replace(base, status="not-created", reason=f"owned by {owner}: Kueue admits it through its owner's"
                       " Workload (not simulated)")
    labels, notes = _defaulted_labels(job, namespace, ctx)
    ignored = _governance(job, namespace, labels, ctx)
    suspended = job_is_suspended(job) or _is_submission(job)
    if ignored:
        return replace(base, reason=ignored, running_unaccounted=not suspended and not job_is_finished(job))
    try:
        return _job_result(job, ctx, base, labels, notes)
    except WorkloadNotCreated as exc:
        return replace(base, status="not-created", reason=str(exc), notes=tuple(notes))


def _job_result(job: Mapping[str, Any], ctx: ConversionContext, base: ConvertedWorkload,
                labels: dict[str, str], notes: list[str]) -> ConvertedWorkload:
    if job_is_finished(job):
        raise WorkloadNotCreated("the Job has finished (Complete or Failed): Kueue creates no Workload for it")
    prebuilt = _prebuilt_result(job, base, notes)
    if prebuilt is not None:
        return prebuilt
    rejection = _job_webhook_rejection(job, labels)
    if rejection:
        raise WorkloadNotCreated(f"Kueue's Job webhook rejects the Job ({rejection})")
    running = _running_job_notes(job, notes)
    if running and not ctx.requeue_running_jobs:
        return replace(base, status="not-created", running_unaccounted=True, notes=tuple(notes),
                       reason="running without a Workload in the inputs: its pods use resources no ClusterQueue "
                              "accounts for (add its Workload, or requeue_running_jobs to simulate Kueue stopping it)")
    pod_set = job_pod_set(job)
    workload = _workload(base, labels, [pod_set], ctx)
    _finish_metadata(workload, job, labels, ctx, notes)
    if not base.name_exact:
        notes.append(f"REQ-2: the Job has no UID, so the Workload is named {base.workload_name} instead of "
                     f"{base.workload_name}-<5 hex of sha1(Job, batch, name, uid)>, and has no owner reference")
    return replace(base, status="created", workload=workload, notes=tuple(notes), running_unaccounted=running)


def _running_job_notes(job: Mapping[str, Any], notes: list[str]) -> bool:
    """Notes on the suspend state; True when the Job runs outside Kueue's view."""
    if _is_submission(job):
        if not job_is_suspended(job):
            notes.append("Kueue's Job webhook sets spec.suspend: true on create; the Job waits for admission")
        return False
    if job_is_suspended(job):
        return False
    notes.append("the Job is running but has no Workload: Kueue suspends it (NoMatchingWorkload, 'Missing Workload; "
                 "unable to restore pod templates') and queues a new Workload")
    if (_int(_map(job.get("status")).get("active")) or 0) > 0:
        notes.append("Kueue creates that Workload only once the Job's active pods are gone")
    return True


def _finish_metadata(workload: dict[str, Any], owner: Mapping[str, Any], labels: Mapping[str, str],
                     ctx: ConversionContext, notes: list[str]) -> None:
    """Labels, annotations, controller reference and creation time of a Job's or single Pod's Workload."""
    meta = _meta(owner)
    uid = _text(meta.get("uid"))
    copied = {k: labels[k] for k in ctx.label_keys_to_copy if k in labels}
    if uid and not is_label_value(uid):  # no errors: ConstructWorkload skips a UID that is no label value
        copied[JOB_UID_LABEL] = uid
    _set_meta(workload, "labels", copied)
    _set_meta(workload, "annotations", _copied_annotations(_annotations(owner)))
    api_version = "batch/v1" if owner.get("kind") == "Job" else "v1"
    _set_meta(workload, "ownerReferences",
              _owner_references([(api_version, _text(owner.get("kind")), _text(meta.get("name")), uid)], True))
    created = _creation_timestamp(meta.get("creationTimestamp"), ctx, notes)
    if created is not None:
        workload["metadata"]["creationTimestamp"] = created


# --- v1 Pod (jobs/pod/pod_controller.go) ------------------------------------------------------------


def pod_group_name(pod: Mapping[str, Any]) -> str:
    """``GetPodGroupName`` with WorkloadIdentifierAnnotations (beta, on): annotation, then label."""
    return _annotations(pod).get(POD_GROUP_NAME_KEY) or _labels(pod).get(POD_GROUP_NAME_KEY, "")


def _pod_phase(pod: Mapping[str, Any]) -> str:
    return _text(_map(pod.get("status")).get("phase"))


def _pod_terminated(pod: Mapping[str, Any]) -> bool:
    return _pod_phase(pod) in ("Succeeded", "Failed")


def _pod_gated(pod: Mapping[str, Any]) -> bool:
    gates = _list(_map(pod.get("spec")).get("schedulingGates"))
    return any(isinstance(g, Mapping) and g.get("name") == ADMISSION_GATE for g in gates)


def _pod_suspended(pod: Mapping[str, Any]) -> bool:
    """``podSuspended``; a manifest counts as gated because Kueue's Pod webhook gates it on create."""
    return _pod_terminated(pod) or _pod_gated(pod) or _is_submission(pod)


def _runnable_or_succeeded(pod: Mapping[str, Any]) -> bool:
    meta, spec = _meta(pod), _map(pod.get("spec"))
    if meta.get("deletionTimestamp") and not spec.get("nodeName"):
        return False
    return _pod_phase(pod) != "Failed"


def _admitted_spec(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The pod spec Kueue keeps: the webhook gates a manifest (admission gate, and TAS's topology gate)."""
    spec = copy.deepcopy(dict(_map(pod.get("spec"))))
    if _is_submission(pod) and not _pod_gated(pod):
        spec["schedulingGates"] = [*_list(spec.get("schedulingGates")), {"name": ADMISSION_GATE},
                                   {"name": TOPOLOGY_GATE}]
    _sanitize_env(spec)
    return spec


def _pod_pod_set(pod: Mapping[str, Any], name: str, count: int) -> dict[str, Any]:
    """``constructPodSet``: only the spec is kept (no template metadata)."""
    return {"name": name, "count": count, "template": {"spec": _admitted_spec(pod)},
            "topologyRequest": topology_request(_annotations(pod), POD_GROUP_POD_INDEX_LABEL)}


def _pod_governance(pod: Mapping[str, Any], namespace: str, labels: Mapping[str, str],
                    ctx: ConversionContext) -> tuple[Status, str]:
    if not ctx.pod_integration:
        return "not-governed", "the 'pod' integration is not enabled in Kueue's configuration"
    owner = _integration_owner(pod)
    if owner:
        return "not-created", f"owned by {owner}: Kueue admits it through its owner's Workload"
    reason = _governance(pod, namespace, labels, ctx)
    return ("not-governed", reason) if reason else ("created", "")


_POD_INTEGRATION_NOTE = ("needs the 'pod' integration in Kueue's integrations.frameworks (the default enables only "
                         "batch/job)")


def workload_from_pod(pod: Mapping[str, Any], ctx: ConversionContext) -> ConvertedWorkload:
    """The Workload of a single Pod (no pod-group name): pod set ``main``, count 1."""
    meta = _meta(pod)
    namespace, name, uid = _text(meta.get("namespace")) or "default", _text(meta.get("name")), _text(meta.get("uid"))
    base = ConvertedWorkload("Pod", namespace, name, uid, "not-governed",
                             workload_name=pod_workload_name(name, uid) if uid else _name_without_uid("Pod", name),
                             name_exact=bool(uid))
    labels, notes = _defaulted_labels(pod, namespace, ctx)
    status, reason = _pod_governance(pod, namespace, labels, ctx)
    if status != "created":
        running = status == "not-governed" and not _pod_suspended(pod)
        return replace(base, status=status, reason=reason, running_unaccounted=running)
    notes.append(_POD_INTEGRATION_NOTE)
    try:
        return _single_pod_result(pod, ctx, base, labels, notes)
    except WorkloadNotCreated as exc:
        return replace(base, status="not-created", reason=str(exc), notes=tuple(notes))


def _single_pod_result(pod: Mapping[str, Any], ctx: ConversionContext, base: ConvertedWorkload,
                       labels: dict[str, str], notes: list[str]) -> ConvertedWorkload:
    if _pod_terminated(pod):
        raise WorkloadNotCreated("the Pod has terminated: Kueue creates no Workload for it")
    prebuilt = _prebuilt_result(pod, base, notes)
    if prebuilt is not None:
        return prebuilt
    if not _pod_suspended(pod):
        return replace(base, status="not-created", running_unaccounted=True, notes=tuple(notes),
                       reason="running (not gated) without a Workload in the inputs: Kueue stops (deletes) such a Pod")
    pod_set = _pod_pod_set(pod, DEFAULT_POD_SET, 1)
    workload = _workload(base, labels, [pod_set], ctx)
    _finish_metadata(workload, pod, labels, ctx, notes)
    if not base.name_exact:
        notes.append(f"the Pod has no UID, so the Workload is named {base.workload_name} instead of "
                     f"{base.workload_name}-<5 hex of sha1(Pod, '', name, uid)>, and has no owner reference")
    return replace(base, status="created", workload=workload, notes=tuple(notes))


# --- pod groups ---------------------------------------------------------------------------------------


def workload_from_pod_group(pods: Sequence[Mapping[str, Any]], ctx: ConversionContext) -> ConvertedWorkload:
    """One Workload for the pods sharing a pod-group name: named after the group, a pod set per role.

    The first pod stands for the group (queue, priority label, total count), as Kueue's
    ``p.pod`` does; the webhook defaults are applied per pod.
    """
    first = pods[0]
    meta = _meta(first)
    namespace, group = _text(meta.get("namespace")) or "default", pod_group_name(first)
    members = tuple(_text(_meta(p).get("name")) for p in pods)
    base = ConvertedWorkload("PodGroup", namespace, group, "", "not-governed", workload_name=group, members=members)
    labels, notes = _defaulted_labels(first, namespace, ctx)
    status, reason = _pod_governance(first, namespace, labels, ctx)
    if status != "created":
        return replace(base, status=status, reason=reason, running_unaccounted=not any(map(_pod_suspended, pods)))
    notes.append(_POD_INTEGRATION_NOTE)
    try:
        return _group_result(pods, ctx, base, labels, notes)
    except WorkloadNotCreated as exc:
        return replace(base, status="not-created", reason=str(exc), notes=tuple(notes))


def _group_total_count(pod: Mapping[str, Any]) -> int:
    raw = _annotations(pod).get(POD_GROUP_TOTAL_COUNT_ANNOTATION)
    if raw is None:
        raise WorkloadNotCreated(f"failed to extract '{POD_GROUP_TOTAL_COUNT_ANNOTATION}' annotation")
    value = _go_atoi(raw)
    if value is None or value < 1:
        raise WorkloadNotCreated(f"incorrect annotation value '{POD_GROUP_TOTAL_COUNT_ANNOTATION}={raw}': group total "
                          "count should be greater than zero")
    return value


def _group_result(pods: Sequence[Mapping[str, Any]], ctx: ConversionContext, base: ConvertedWorkload,
                  labels: dict[str, str], notes: list[str]) -> ConvertedWorkload:
    first = pods[0]
    total = _group_total_count(first)
    # The reconciler's order: a running group without Workload is stopped, a finished one left alone,
    # and only then is the group's metadata checked while composing the Workload.
    if not any(map(_pod_suspended, pods)):
        return replace(base, status="not-created", running_unaccounted=True, notes=tuple(notes),
                       reason="all pods run (none gated) without a Workload in the inputs: Kueue stops (deletes) them")
    if _group_finished(pods, total):
        raise WorkloadNotCreated("the pod group has finished: Kueue creates no Workload for it")
    _check_group_members(pods, labels.get(QUEUE_LABEL, ""), total, ctx)
    fast = _annotations(first).get(POD_GROUP_FAST_ADMISSION_ANNOTATION) == "true"
    active = _active_members(pods, total, fast, notes)
    pod_sets, exact = _group_pod_sets(active, total, fast, ctx)
    if not exact:
        notes.append("a pod has no role-hash annotation and uses affinity, topologySpreadConstraints or "
                     "resourceClaims: its pod-set name is approximate")
    workload = _workload(base, labels, pod_sets, ctx)
    _set_meta(workload, "labels", _group_copied_labels(pods, ctx))
    workload["metadata"]["annotations"] = {**_copied_annotations(_annotations(first)),
                                           IS_GROUP_WORKLOAD_ANNOTATION: "true"}
    _set_meta(workload, "ownerReferences", _owner_references(
        [("v1", "Pod", _text(_meta(p).get("name")), _text(_meta(p).get("uid"))) for p in pods], False))
    # The Workload is created once the last member arrives, so the latest pod's time is the closest.
    stamps = [_meta(p).get("creationTimestamp") for p in pods if _meta(p).get("creationTimestamp")]
    created = _creation_timestamp(max(stamps, key=str) if len(stamps) == len(pods) else None, ctx, notes)
    if created is not None:
        workload["metadata"]["creationTimestamp"] = created
    return replace(base, status="created", workload=workload, notes=tuple(notes), name_exact=exact)


def _check_group_members(pods: Sequence[Mapping[str, Any]], queue: str, total: int, ctx: ConversionContext) -> None:
    """``validatePodGroupMetadata``: every non-failed member agrees on queue and total count."""
    first_name = _text(_meta(pods[0]).get("name"))
    for pod in pods:
        if _pod_phase(pod) == "Failed":
            continue
        name = _text(_meta(pod).get("name"))
        namespace = _text(_meta(pod).get("namespace")) or "default"
        other_queue = _defaulted_labels(pod, namespace, ctx)[0].get(QUEUE_LABEL, "")
        if other_queue != queue:
            raise WorkloadNotCreated(f"pods '{first_name}' and '{name}' has different queue names: "
                                     f"{queue}!={other_queue}")
        count = _go_atoi(_annotations(pod).get(POD_GROUP_TOTAL_COUNT_ANNOTATION, ""))
        if count is None:
            raise WorkloadNotCreated(f"failed to extract '{POD_GROUP_TOTAL_COUNT_ANNOTATION}' annotation from the "
                                     f"pod '{name}'")
        if count != total:
            raise WorkloadNotCreated(f"pods '{first_name}' and '{name}' has different "
                                     f"'{POD_GROUP_TOTAL_COUNT_ANNOTATION}' values: {total}!={count}")


def _active_members(pods: Sequence[Mapping[str, Any]], total: int, fast: bool,
                    notes: list[str]) -> list[Mapping[str, Any]]:
    """Runnable or succeeded members; Kueue waits for the whole group and deletes pods beyond the total."""
    active = [p for p in pods if _runnable_or_succeeded(p)]
    if not fast and len(active) < total:
        raise WorkloadNotCreated(f"'{pod_group_name(pods[0])}' group has fewer runnable pods than expected "
                          f"({len(active)} of {total}): Kueue waits for the rest")
    if len(active) > total:
        # sortActivePods keeps the oldest (finalizer and gate being equal for submitted pods).
        active.sort(key=lambda p: str(_meta(p).get("creationTimestamp") or ""))
        extra = [_text(_meta(p).get("name")) for p in active[total:]]
        notes.append(f"{len(extra)} pod(s) beyond {POD_GROUP_TOTAL_COUNT_ANNOTATION}={total} are deleted by Kueue: "
                     + ", ".join(extra))
        active = active[:total]
    return active


def _group_finished(pods: Sequence[Mapping[str, Any]], total: int) -> bool:
    if any(_annotations(p).get(POD_GROUP_SERVING_ANNOTATION) == "true" for p in pods[:1]):
        return False  # a serving group never finishes
    return sum(_pod_phase(p) == "Succeeded" for p in pods) == total


def _group_pod_sets(active: Sequence[Mapping[str, Any]], total: int, fast: bool,
                    ctx: ConversionContext) -> tuple[list[dict[str, Any]], bool]:
    """``constructGroupPodSets``: one pod set per role hash, counted, sorted by name (fast admission: one)."""
    pod_sets: dict[str, dict[str, Any]] = {}
    exact = True
    for pod in active:
        role, role_exact = pod_role_hash(pod, ctx)
        exact = exact and role_exact
        if fast:
            return [_pod_pod_set(pod, role, total)], exact
        if role in pod_sets:
            pod_sets[role]["count"] += 1
        else:
            pod_sets[role] = _pod_pod_set(pod, role, 1)
    if not pod_sets:
        raise WorkloadNotCreated("failed to find a runnable pod in the group")
    if len(pod_sets) > _MAX_POD_SETS:
        raise WorkloadNotCreated(f"pod group can't include more than {_MAX_POD_SETS} roles")
    return [pod_sets[name] for name in sorted(pod_sets)], exact


def _group_copied_labels(pods: Sequence[Mapping[str, Any]], ctx: ConversionContext) -> dict[str, str]:
    """labelKeysToCopy on a group: every member must carry the same value."""
    copied: dict[str, str] = {}
    for key in ctx.label_keys_to_copy:
        values = {_labels(p).get(key) for p in pods}
        if len(values) > 1:
            raise WorkloadNotCreated("constructing workload: pods have different label values")
        value = values.pop() if values else None
        if value is not None:
            copied[key] = value
    return copied


# --- role hash (pkg/util/pod.GenerateRoleHash) --------------------------------------------------------

_OMIT_IF_EMPTY = ("initContainers", "nodeSelector", "tolerations", "topologySpreadConstraints", "overhead",
                  "resourceClaims")
_APPROXIMATE_FIELDS = ("affinity", "topologySpreadConstraints", "resourceClaims")


def role_hash(pod_spec: Mapping[str, Any]) -> str:
    """8 hex of sha256 over Go's JSON of ``{"spec": SpecShape(spec)}``, for the spec exactly as given.

    Go sorts map keys; structs keep their field order and drop ``omitempty`` zero fields; an
    absent list or map is ``null``, a present empty one ``{}``/``[]`` (but an empty container
    list still gives ``null``); quantities print canonically.
    """
    shape: dict[str, Any] = {
        "affinity": pod_spec.get("affinity"),
        "containers": _containers_shape(pod_spec.get("containers")),
        "initContainers": _containers_shape(pod_spec.get("initContainers")),
        "nodeSelector": _sorted_map(pod_spec.get("nodeSelector")),
        "overhead": _resource_list(pod_spec.get("overhead")),
        "priority": pod_spec.get("priority"),
        "resourceClaims": pod_spec.get("resourceClaims"),
        "runtimeClassName": pod_spec.get("runtimeClassName"),
        "tolerations": _tolerations(pod_spec.get("tolerations")),
        "topologySpreadConstraints": pod_spec.get("topologySpreadConstraints"),
    }
    if isinstance(pod_spec.get("resources"), Mapping):
        shape["resources"] = _resource_list(pod_spec["resources"].get("requests"))
    text = go_json({"spec": dict(sorted(shape.items()))})
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def pod_role_hash(pod: Mapping[str, Any], ctx: ConversionContext) -> tuple[str, bool]:
    """The role hash Kueue uses for a pod, and whether it is exact.

    Kueue's webhook stores it in the ``kueue.x-k8s.io/role-hash`` annotation (exact). Otherwise
    it is computed on the spec as the webhook receives it: after the API server's defaults
    (requests from limits, port protocol TCP), the Priority and DefaultTolerationSeconds
    admission plugins, and a JSON round trip that drops empty ``omitempty`` fields.
    LimitRange defaults and other webhooks are not modelled.
    """
    stored = _annotations(pod).get(ROLE_HASH_ANNOTATION)
    if stored:
        return stored, True
    spec = _as_webhook_sees(_map(pod.get("spec")), ctx)
    exact = not any(spec.get(key) for key in _APPROXIMATE_FIELDS)
    return role_hash(spec), exact


def _containers_shape(containers: Any) -> list[dict[str, Any]] | None:
    shapes = [
        {"resources": {"requests": _resource_list(_map(c.get("resources")).get("requests"))},
         "ports": _ports(c.get("ports"))}
        for c in _list(containers) if isinstance(c, Mapping)
    ]
    return [dict(sorted(s.items())) for s in shapes] or None


def _resource_list(value: Any) -> dict[str, str] | None:
    if not isinstance(value, Mapping):
        return None
    out: dict[str, str] = {}
    for name, quantity in sorted(value.items()):
        try:
            out[str(name)] = canonical_quantity(quantity)
        except QuantityError:
            out[str(name)] = str(quantity)
    return out


def _sorted_map(value: Any) -> dict[str, Any] | None:
    return dict(sorted(value.items())) if isinstance(value, Mapping) else None


def _ports(value: Any) -> list[dict[str, Any]] | None:
    """``[]ContainerPort`` in struct order: name, hostPort, containerPort, protocol, hostIP (omitempty but port)."""
    if not isinstance(value, list):
        return None
    ports = []
    for port in value:
        p = _map(port)
        item = {"name": p.get("name"), "hostPort": p.get("hostPort"), "containerPort": p.get("containerPort", 0),
                "protocol": p.get("protocol"), "hostIP": p.get("hostIP")}
        ports.append({k: v for k, v in item.items() if v or k == "containerPort"})
    return ports


def _tolerations(value: Any) -> list[dict[str, Any]] | None:
    """``[]Toleration`` in struct order: key, operator, value, effect, tolerationSeconds (all omitempty)."""
    if not isinstance(value, list):
        return None
    keys = ("key", "operator", "value", "effect", "tolerationSeconds")
    return [{k: _map(t)[k] for k in keys if _map(t).get(k) not in (None, "")} for t in value]


_DEFAULT_TOLERATIONS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def _as_webhook_sees(spec: Mapping[str, Any], ctx: ConversionContext) -> dict[str, Any]:
    """The pod spec after API defaulting and the built-in mutating admission plugins that touch the shape."""
    out = copy.deepcopy(dict(spec))
    for key in ("initContainers", "containers"):
        for container in _list(out.get(key)):
            if isinstance(container, dict):
                _default_container(container)
    if out.get("priority") is None:
        out["priority"] = _admission_priority(_text(out.get("priorityClassName")), ctx)
    out["tolerations"] = _with_default_tolerations(_list(out.get("tolerations")))
    for key in _OMIT_IF_EMPTY:
        if not out.get(key):
            out.pop(key, None)
    return out


def _default_container(container: dict[str, Any]) -> None:
    resources = container.get("resources")
    if isinstance(resources, dict):
        limits = _map(resources.get("limits"))
        requests = {**limits, **_map(resources.get("requests"))}  # SetDefaults_Pod: requests from limits
        resources["requests"] = requests or None
    ports = [{**p, "protocol": p.get("protocol") or "TCP"} for p in _list(container.get("ports"))
             if isinstance(p, Mapping)]
    if ports:
        container["ports"] = ports
    else:
        container.pop("ports", None)  # omitempty: an empty list reaches the webhook as null


def _admission_priority(class_name: str, ctx: ConversionContext) -> int:
    """The Priority admission plugin: the class's value, the global default's, or 0."""
    if class_name:
        return ctx.priority_classes.get(class_name, (0, False))[0]  # a missing class: the API server rejects the pod
    default = global_default_priority_class(ctx.priority_classes)
    return 0 if default is None else ctx.priority_classes[default][0]


def _with_default_tolerations(tolerations: list[Any]) -> list[Any]:
    """DefaultTolerationSeconds: tolerate not-ready/unreachable NoExecute for 300s unless already tolerated."""
    out = list(tolerations)
    for key in _DEFAULT_TOLERATIONS:
        tolerated = any(
            isinstance(t, Mapping) and t.get("effect") in (None, "", "NoExecute")
            and (t.get("key") == key or (not t.get("key") and t.get("operator") == "Exists"))
            for t in tolerations
        )
        if not tolerated:
            out.append({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
    return out


# --- many objects, and matching with existing Workloads ----------------------------------------------


def workloads_from_jobs(objects: Iterable[Mapping[str, Any]], ctx: ConversionContext) -> list[ConvertedWorkload]:
    """Every batch/v1 Job and v1 Pod of ``objects`` converted (pods grouped), in input order; other kinds skipped."""
    results: list[ConvertedWorkload | tuple[str, str]] = []
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for obj in objects:
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if kind == "Job" and api_version == "batch/v1":
            results.append(workload_from_job(obj, ctx))
        elif kind == "Pod" and api_version == "v1":
            group = pod_group_name(obj)
            if not group:
                results.append(workload_from_pod(obj, ctx))
                continue
            key = (_text(_meta(obj).get("namespace")) or "default", group)
            if key not in groups:
                groups[key] = []
                results.append(key)  # placeholder: the group is converted once all members are seen
            groups[key].append(obj)
    return [workload_from_pod_group(groups[r], ctx) if isinstance(r, tuple) else r for r in results]


def dedupe(converted: Sequence[ConvertedWorkload],
           existing_workloads: Iterable[Mapping[str, Any]]) -> list[ConvertedWorkload]:
    """Mark every converted object whose Workload is already among the inputs as ``existing``.

    A Workload matches when it is in the same namespace and either an owner reference names the
    object (kind and name, and UID when both have one) or its name is the computed (or prebuilt)
    Workload name. The existing Workload wins: it carries the status (admission, conditions).
    """
    index = [_map(w) for w in existing_workloads]
    out: list[ConvertedWorkload] = []
    for result in converted:
        match = next((w for w in index if _matches(result, w)), None)
        out.append(result if match is None else _as_existing(result, match))
    return out


def _matches(result: ConvertedWorkload, workload: Mapping[str, Any]) -> bool:
    meta = _meta(workload)
    if (_text(meta.get("namespace")) or "default") != result.namespace:
        return False
    if result.workload_name and _text(meta.get("name")) == result.workload_name:
        return True
    kind = "Pod" if result.kind == "PodGroup" else result.kind
    names = set(result.members) if result.kind == "PodGroup" else {result.name}
    for owner in _list(meta.get("ownerReferences")):
        o = _map(owner)
        if o.get("kind") != kind or o.get("name") not in names:
            continue
        if result.kind == "PodGroup" or not (result.uid and o.get("uid")) or o.get("uid") == result.uid:
            return True
    return False


def _as_existing(result: ConvertedWorkload, workload: Mapping[str, Any]) -> ConvertedWorkload:
    meta = _meta(workload)
    key = f"{_text(meta.get('namespace')) or 'default'}/{_text(meta.get('name'))}"
    notes = [f"its Workload {key} is among the inputs and is used as is (it carries the status)"]
    if result.workload is not None and _pod_set_counts(result.workload) != _pod_set_counts(workload):
        notes.append("the object's pod sets differ from that Workload's: Kueue would update or replace the Workload "
                     "(EquivalentToWorkload); kqctl keeps the existing one")
    return replace(result, status="existing", workload=None, matched_workload=key, reason="",
                   running_unaccounted=False, notes=(*result.notes, *notes))


def _pod_set_counts(workload: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    return [(_map(ps).get("name"), _map(ps).get("count")) for ps in _list(_map(workload.get("spec")).get("podSets"))]


def created_workloads(converted: Iterable[ConvertedWorkload]) -> list[dict[str, Any]]:
    """The Workload dicts to add to the snapshot (status ``created``)."""
    return [r.workload for r in converted if r.status == "created" and r.workload is not None]
