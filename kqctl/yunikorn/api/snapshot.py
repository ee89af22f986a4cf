"""A YuniKorn cluster as kqctl reads it: the queue configuration, nodes, pods, namespaces.

Pods become what YuniKorn's Kubernetes shim makes of them (spec §9.1; k8shim ``utils.go``,
``common/resource.go``, ``si_helper.go``, ``cache/task.go``): an application ID and a requested queue from
labels and annotations, the submitting user, the request in YuniKorn's units (``vcore`` millicores,
``memory`` bytes, ``pods`` 1, other resources by name), the priority, and the preemption opt-outs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from kqctl.origin import Origin
from kqctl.yunikorn.api.config import ParsedConfig
from kqctl.yunikorn.api.resources import Resource


@dataclass(frozen=True)
class ConfigSource:
    """The queue configuration as decoded, and where it came from for messages (``ConfigMap
    yunikorn/yunikorn-configs key queues.yaml``, a file, or YuniKorn's built-in default)."""

    parsed: ParsedConfig
    description: str
    origin: Origin | None = None
    builtin: bool = False


@dataclass(frozen=True)
class NodeInfo:
    name: str
    capacity: Resource  # allocatable, in YuniKorn's units (k8shim GetNodeResource)
    labels: dict[str, str] = field(default_factory=dict, hash=False)
    taints: tuple[Any, ...] = ()
    unschedulable: bool = False
    origin: Origin | None = None


@dataclass(frozen=True)
class NamespaceInfo:
    """A namespace and what its YuniKorn annotations set on dynamic queues (G6) or placement (§9.1)."""

    name: str
    parent_queue: str = ""  # yunikorn.apache.org/parentqueue (app tag namespace.parentqueue)
    quota: Resource | None = None  # yunikorn.apache.org/namespace.quota (or the old namespace.max.*)
    guaranteed: Resource | None = None  # yunikorn.apache.org/namespace.guaranteed
    max_apps: int = 0  # yunikorn.apache.org/namespace.maxApps
    origin: Origin | None = None


@dataclass(frozen=True)
class TaskGroup:
    """One entry of the ``yunikorn.apache.org/task-groups`` annotation (k8shim ``TaskGroup``): the shim makes
    ``min_member`` placeholder pods of ``min_resource`` each, with the group's node constraints."""

    name: str
    min_member: int
    min_resource: Resource  # in YuniKorn's units, without the pod count
    node_selector: dict[str, str] = field(default_factory=dict, hash=False)
    affinity_terms: tuple[Any, ...] = ()  # required node affinity nodeSelectorTerms, raw
    tolerations: tuple[Any, ...] = ()


SOFT, HARD = "Soft", "Hard"


@dataclass(frozen=True)
class GangPolicy:
    """``schedulingPolicyParameters`` as the shim reads it (``GetSchedulingPolicyParam``): the placeholder timeout
    in seconds (0: not given, the core's default of 15 minutes applies) and the gang scheduling style."""

    timeout_seconds: int = 0
    style: str = SOFT


@dataclass(frozen=True)
class PodInfo:
    """One pod of a YuniKorn application (an ask when pending, an allocation when bound)."""

    namespace: str
    name: str
    app_id: str
    queue: str  # the queue the pod asks for ("" when none), before placement
    user: str
    groups: tuple[str, ...]
    resource: Resource
    priority: int  # P1
    created: datetime
    node: str = ""  # bound to this node: a running allocation
    allow_preempt_other: bool = True  # E1: preemptionPolicy is not Never
    allow_preempt_self: bool = True  # the allow-preemption opt-out (pod or PriorityClass annotation)
    priority_class: str = ""
    labels: dict[str, str] = field(default_factory=dict, hash=False)
    node_selector: dict[str, str] = field(default_factory=dict, hash=False)
    affinity_terms: tuple[Any, ...] = ()  # required node affinity nodeSelectorTerms, raw
    tolerations: tuple[Any, ...] = ()
    task_group: str = ""  # annotation task-group-name: the gang member it is (YK-GANG-3)
    # the placeholder ask of the yunikorn.apache.org/task-groups annotation (the shim's ``getPlaceholderAsk``);
    # None without the annotation or when the shim cannot read it
    placeholder: Resource | None = field(default=None, hash=False)
    task_groups: tuple[str, ...] = ()  # the names that annotation declares, in order (() when placeholder is None)
    # the declared task groups themselves, in that order (() when placeholder is None)
    task_group_specs: tuple[TaskGroup, ...] = field(default=(), hash=False)
    gang_policy: GangPolicy | None = field(default=None, hash=False)  # annotation schedulingPolicyParameters
    is_placeholder: bool = False  # annotation internal.yunikorn.apache.org/placeholder true: a pod the shim made
    origin: Origin | None = None
    runtime: str = ""  # annotation kqctl.dev/runtime (replay: how long the pod runs), as written
    controller: str = ""  # the kind of its controlling ownerReference ("": a bare pod, nothing re-creates it)

    @cached_property
    def key(self) -> str:
        """namespace/name, made once: the scheduler reads it millions of times on a large cluster."""
        return f"{self.namespace}/{self.name}"


def gang_pod(pods: Iterable[PodInfo]) -> PodInfo | None:
    """The pod whose task groups its application takes: of the application's pods, the first created (then by
    name) whose ``task-groups`` annotation the shim reads. The shim takes the originating pod's (the first it is
    told of); which that is depends on its informer, so kqctl takes the first that declares any. The simulation's
    placeholder ask and validate's check of ``task-group-name`` (YK-POD-TASK-GROUP) both come from this pod."""
    return min((pod for pod in pods if pod.placeholder is not None), key=lambda pod: (pod.created, pod.name),
               default=None)


@dataclass(frozen=True)
class ForeignPod:
    """A pod another scheduler placed: it occupies node resources YuniKorn cannot use."""

    namespace: str
    name: str
    node: str
    resource: Resource


@dataclass
class Snapshot:
    config: ConfigSource
    nodes: list[NodeInfo] = field(default_factory=list)
    pods: list[PodInfo] = field(default_factory=list)
    foreign: list[ForeignPod] = field(default_factory=list)
    namespaces: dict[str, NamespaceInfo] = field(default_factory=dict)
    priority_classes: dict[str, tuple[int, bool]] = field(default_factory=dict)  # name -> (value, allow-preempt)
    now: datetime | None = None
    generate_unique_app_ids: bool = False
    gang_disabled: bool = False  # service.disableGangScheduling: task groups are ignored
    scheduling_interval: int = 1000  # ms: service.schedulingInterval, the shim's scheduling loop (replay)
