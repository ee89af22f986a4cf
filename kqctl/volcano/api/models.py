"""Typed, frozen models of the objects Volcano's scheduler reads: Queue, PodGroup, pods as tasks, Nodes.

Resource lists are held in Volcano's units (:mod:`kqctl.volcano.api.resource`): exact integers. Each model
is built from the object as written (``from_body``); a field Go could not decode raises
:class:`~kqctl.k8s.core.ModelError` with its path, so the loader can point at the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kqctl.k8s.affinity import NO_PLACEMENT, NodePlacement
from kqctl.k8s.core import Fields, ModelError, json_kind, metadata
from kqctl.k8s.taints import Taint, Toleration, read_taints
from kqctl.origin import Origin
from kqctl.volcano.api.resource import PODS, resource_list

ResourceList = Mapping[str, int]

# Annotations and labels Volcano reads (volcano.sh/apis scheduling/v1beta1 labels.go, batch labels).
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_NAME_ANNOTATION = "scheduling.volcano.sh/queue-name"
PREEMPTABLE_KEY = "volcano.sh/preemptable"
TASK_SPEC_KEY = "volcano.sh/task-spec"
TASK_PRIORITY_ANNOTATION = "volcano.sh/task-priority"
HIERARCHY_ANNOTATION = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS_ANNOTATION = "volcano.sh/hierarchy-weights"
VOLCANO_SCHEDULER = "volcano"
RUNTIME_ANNOTATION = "kqctl.dev/runtime"  # kqctl's own: how long a workload runs in a replay

ROOT_QUEUE = "root"
DEFAULT_QUEUE = "default"
OPEN = "Open"

# Pod spec fields whose scheduling predicates kqctl does not evaluate (it fits by resources, pod count, taints
# against tolerations, nodeSelector and node affinity); ``affinity`` stands for its podAffinity and
# podAntiAffinity parts (its nodeAffinity is evaluated).
UNMODELLED_POD_FIELDS = ("affinity", "topologySpreadConstraints", "nodeName", "resourceClaims")
POD_AFFINITY_FIELDS = ("podAffinity", "podAntiAffinity")


# strconv.ParseFloat's decimal syntax (hex floats aside): what a hierarchy weight may be.
GO_FLOAT = re.compile(r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$", re.IGNORECASE)


def parse_go_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)``; None where Go reports a syntax error."""
    if not GO_FLOAT.match(text):
        return None
    try:
        return float(text)
    except (ValueError, OverflowError):
        return None


def stored_hierarchy(annotations: Mapping[str, str]) -> tuple[str, str]:
    """The volcano.sh/hierarchy annotations as the Queue mutating webhook stores them on create: a path that
    does not start with ``root`` gets ``root/`` in front and its weights ``1/`` (``createQueuePatch``)."""
    path, weights = annotations.get(HIERARCHY_ANNOTATION, ""), annotations.get(HIERARCHY_WEIGHTS_ANNOTATION, "")
    if path and weights and not path.startswith("root"):
        return f"root/{path}", f"1/{weights}"
    return path, weights


def resources_at(fields: Fields, key: str) -> dict[str, int] | None:
    """A ResourceList field in Volcano's units (None when unset); a bad quantity is a located ModelError."""
    raw = fields.raw(key)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ModelError(fields.at(key), f"expected a map of resource quantities, got {json_kind(raw)}")
    try:
        return resource_list(raw)
    except ValueError as exc:
        name = str(exc).split(":", 1)[0]
        raise ModelError((*fields.at(key), name), str(exc).split(": ", 1)[-1]) from None


@dataclass(frozen=True)
class Queue:
    """scheduling.volcano.sh/v1beta1 Queue (cluster-scoped)."""

    name: str
    weight: int = 1
    capability: ResourceList | None = field(default=None, hash=False)  # None: unlimited
    deserved: ResourceList | None = field(default=None, hash=False)
    guarantee: ResourceList | None = field(default=None, hash=False)
    reclaimable: bool = True  # nil reads as true (QueueInfo.Reclaimable; the mutating webhook writes true)
    priority: int = 0
    parent: str = ""  # "" means root
    state: str = OPEN
    state_assumed: bool = False  # no status.state in the input: kqctl assumes Open (the controller's first state)
    dequeue_strategy: str = ""
    creation: datetime | None = None
    allocated_pods: int = 0  # status.allocated.pods
    has_affinity: bool = False
    hierarchy: str = ""  # annotation volcano.sh/hierarchy (hierarchical DRF), as stored
    hierarchy_weights: str = ""  # annotation volcano.sh/hierarchy-weights, as stored
    implicit: bool = False  # root and default created by the scheduler, not in the input
    origin: Origin | None = None

    @property
    def parent_name(self) -> str:
        """The parent in the queue tree: ``spec.parent``, or root when empty; root itself has none."""
        if self.name == ROOT_QUEUE:
            return ""
        return self.parent or ROOT_QUEUE

    @classmethod
    def from_body(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Queue:
        meta = metadata(body)
        spec = Fields(body).child("spec")
        status = Fields(body).child("status")
        state = status.string("state")
        weight = spec.opt_integer("weight")
        allocated = resources_at(status, "allocated") or {}
        hierarchy, hierarchy_weights = stored_hierarchy(meta.string_map("annotations"))
        return cls(
            name=meta.string("name"),
            weight=1 if not weight else weight,  # CRD default, and the mutating webhook writes 1 for 0
            capability=resources_at(spec, "capability"),
            deserved=resources_at(spec, "deserved"),
            guarantee=resources_at(spec.child("guarantee"), "resource"),
            reclaimable=spec.boolean("reclaimable", True),
            priority=spec.integer("priority"),
            parent=spec.string("parent"),
            state=state or OPEN,
            state_assumed=not state,
            dequeue_strategy=spec.string("dequeueStrategy"),
            creation=meta.opt_time("creationTimestamp"),
            allocated_pods=allocated.get(PODS, 0),
            has_affinity=spec.has("affinity"),
            hierarchy=hierarchy,
            hierarchy_weights=hierarchy_weights,
            origin=origin,
        )

    @classmethod
    def implicit_queue(cls, name: str) -> Queue:
        """``newDefaultAndRootQueue``: root is not reclaimable, the default queue is; both weight 1, Open."""
        return cls(name=name, reclaimable=name != ROOT_QUEUE, implicit=True)


@dataclass(frozen=True)
class PodGroup:
    """scheduling.volcano.sh/v1beta1 PodGroup, as written or as Volcano's controllers would create it."""

    namespace: str
    name: str
    queue: str = DEFAULT_QUEUE
    min_member: int = 0
    min_task_member: Mapping[str, int] = field(default_factory=dict, hash=False)
    min_resources: ResourceList | None = field(default=None, hash=False)
    priority_class_name: str = ""
    phase: str = "Pending"
    creation: datetime | None = None
    network_topology: bool = False
    sub_groups: bool = False
    created_by: str = ""  # "" written in the input; "Job/<name>" or "Pod/<name>" when kqctl builds it
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    origin: Origin | None = None
    runtime: str = ""  # annotation kqctl.dev/runtime (replay: how long the job runs), as written
    # Not in the input: pods name it (annotation scheduling.k8s.io/group-name) and nothing makes it. Its queue is
    # "" (no queue is named so): the scheduler's cache skips the job of its pods, which stay Pending (VC-POD-PG).
    absent: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def missing(cls, namespace: str, name: str, origin: Origin | None = None) -> PodGroup:
        """The PodGroup pods name that the input does not hold (``absent``)."""
        return cls(namespace=namespace, name=name, queue="", origin=origin, absent=True)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], origin: Origin | None = None) -> PodGroup:
        meta = metadata(body)
        spec = Fields(body).child("spec")
        status = Fields(body).child("status")
        min_task = spec.child("minTaskMember")
        return cls(
            namespace=meta.string("namespace") or "default",
            name=meta.string("name"),
            queue=spec.string("queue") or DEFAULT_QUEUE,
            min_member=spec.integer("minMember"),
            min_task_member={k: min_task.integer(k) for k in min_task.obj},
            min_resources=resources_at(spec, "minResources"),
            priority_class_name=spec.string("priorityClassName"),
            phase=status.string("phase") or "Pending",
            creation=meta.opt_time("creationTimestamp"),
            network_topology=spec.has("networkTopology"),
            sub_groups=spec.has("subGroupPolicy"),
            labels=meta.string_map("labels"),
            origin=origin,
            runtime=meta.string_map("annotations").get(RUNTIME_ANNOTATION, ""),
        )


@dataclass(frozen=True)
class Pod:
    """A pod as a Volcano task (``api.NewTaskInfo``); ``request`` includes the ``pods: 1`` Volcano adds."""

    namespace: str
    name: str
    uid: str
    group: str  # the PodGroup name (annotation scheduling.k8s.io/group-name); "" for none
    queue_annotation: str  # annotation scheduling.volcano.sh/queue-name: the queue of its own PodGroup
    scheduler_name: str
    node_name: str
    phase: str
    deleting: bool
    request: ResourceList = field(hash=False)
    score_request: tuple[int, int] = (0, 0)  # non-zero cpu/memory requests the node scorers use
    priority: int = 0
    preemptable: bool = True
    preempt_never: bool = False
    priority_class_name: str = ""
    task_role: str = ""
    creation: datetime | None = None
    gated: bool = False
    unmodelled: tuple[str, ...] = ()  # pod spec fields with predicates kqctl does not evaluate
    tolerations: tuple[Toleration, ...] = ()  # as the API server stores the pod (its default tolerations added)
    placement: NodePlacement = NO_PLACEMENT  # nodeSelector and node affinity (AFF-1, AFF-2)
    created_by: str = ""  # "" written in the input; "Job/<name>" when kqctl creates a vcjob's pod
    origin: Origin | None = None
    runtime: str = ""  # annotation kqctl.dev/runtime (replay: how long the pod runs), as written
    controller: str = ""  # the kind of its controlling ownerReference ("": a bare pod, nothing re-creates it)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def status(self) -> str:
        """``getTaskStatus``: Running, Bound, Pending, Releasing, Succeeded, Failed or Unknown."""
        if self.phase in ("Running", "Pending") and self.deleting:
            return "Releasing"
        if self.phase == "Running":
            return "Running"
        if self.phase == "Pending" or self.phase == "":
            return "Bound" if self.node_name else "Pending"
        if self.phase in ("Succeeded", "Failed"):
            return self.phase
        return "Unknown"

    @property
    def best_effort(self) -> bool:
        return not any(v > 0 for k, v in self.request.items() if k != PODS)


@dataclass(frozen=True)
class Node:
    """A Node: its allocatable in Volcano's units (``pods`` caps the number of tasks)."""

    name: str
    allocatable: ResourceList = field(hash=False)
    ready: bool = True
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    origin: Origin | None = None
    labels: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], origin: Origin | None = None) -> Node:
        fields = Fields(body)
        status = fields.child("status")
        spec = fields.child("spec")
        allocatable = resources_at(status, "allocatable")
        if allocatable is None:
            allocatable = resources_at(status, "capacity") or {}
        ready = True
        for condition in status.items("conditions"):
            if condition.string("type") == "Ready":
                ready = condition.string("status") == "True"
        meta = metadata(body)
        return cls(meta.string("name"), allocatable, ready, spec.boolean("unschedulable", False),
                   read_taints(spec), origin, meta.string_map("labels"))


# The job controller's actions (volcano.sh/apis bus/v1alpha1 actions.go) a replay tells apart on PodEvicted.
SYNC_JOB = "SyncJob"
RESTART_ACTIONS = frozenset({"RestartJob", "RestartTask", "RestartPod", "RestartPartition"})


@dataclass(frozen=True)
class EvictionPolicy:
    """What a vcjob's controller does when one of its pods is evicted (``applyPolicies`` for the PodEvicted event):
    the first task-level policy of the pod's task naming PodEvicted (or ``*``), else the first job-level one, else
    SyncJob (the missing pod is made again). ``max_retry``: restarts allowed (the job webhook's default 3)."""

    job: str = ""  # the job-level action ("" none)
    tasks: Mapping[str, str] = field(default_factory=dict, hash=False)  # task name -> action
    max_retry: int = 3

    def action(self, task: str) -> str:
        return self.tasks.get(task) or self.job or SYNC_JOB
