"""Gang scheduling: task groups, their placeholder pods, and the real pods that replace them.

Two halves of YuniKorn take part. The Kubernetes shim (k8shim ``cache/application.go``,
``cache/placeholder_manager.go``, ``cache/placeholder.go``, ``cache/gang_utils.go``) decides, per application with
task groups, whether to reserve: it makes ``minMember`` placeholder pods per task group (the group's
``minResource``, node selector, tolerations and affinity, the originator's priority class) and, while the
application is Reserving, sends the core only those; once every group has its placeholders bound it sends the real
pods. yunikorn-core (``objects/application.go``: ``PlaceholderData``, ``canReplace``, ``tryPlaceholderAllocate``,
``timeoutPlaceholderProcessing``) places placeholders as ordinary asks and lets a real pod of a task group in only
by swapping it for one of that group's placeholders.

kqctl reads a snapshot as the shim reads the cluster when it starts (``registerPods``): placeholder pods already
there are taken as they are, the ones missing are made (named ``tg-<application>-<group>-<n>``: YuniKorn ends the
name with ten random characters instead of ``n``).

Rules (``kqctl rules YK-GANG-1`` ...):

* YK-GANG-1 reserve or not: an application with task groups and no real pod bound (``skipReservationStage``) is
  Reserving: the shim makes the placeholders; with a real pod bound it runs as any application and makes none;
  when its placeholder timeout (``placeholderTimeoutInSeconds`` > 0) has passed since its first pod was created and
  no placeholder exists, the shim makes none and fails it (``gangSchedulingStyle=Hard``) or runs it (Soft).
* YK-GANG-2 while Reserving only placeholders are sent; the real pods are sent once every task group has its
  ``minMember`` placeholders allocated (``onReservationStateChange``), or when a placeholder is released
  (``ReleaseAppAllocation``: Reserving -> Running).
* YK-GANG-3 a real pod naming a task group that still has placeholders to replace (``canReplace``: placeholders
  made > replaced + timed out) is never allocated as an ordinary ask.
* YK-GANG-4 ``tryPlaceholderAllocate`` (after reserved asks, before the regular walk): a real pod takes the node of a
  placeholder of its group that is at least its size in every resource (the node's predicates must pass); a
  placeholder smaller in some resource is released ("resource incompatible") and counts as timed out; when no
  placeholder's node takes it, the real pod goes to the first node it fits and the placeholder is released.
* YK-GANG-5 the placeholder timeout (15 minutes unless ``placeholderTimeoutInSeconds`` says otherwise) runs from the
  application's first placeholder allocation: an application with every placeholder allocated releases those not
  replaced; otherwise Soft releases every placeholder and runs the application as an ordinary one, Hard fails it
  (its pods not allocated are Failed: "Scheduling has timed out due to insufficient resources").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import PODS, Resource
from kqctl.yunikorn.api.snapshot import HARD, GangPolicy, PodInfo, TaskGroup

DEFAULT_TIMEOUT_S = 15 * 60  # objects.defaultPlaceholderTimeout: the core's when the shim sends none
RESERVING, RUNNING, FAILED = "Reserving", "Running", "Failed"
TIMED_OUT_FAILURE = "Scheduling has timed out due to insufficient resources"
INCOMPATIBLE = "resource incompatible"
BLOCKED_KIND = "gang"  # SchedulerState.block's kind for a real pod that may only replace a placeholder
WAITS_FOR_REPLACEMENT = "waits to replace a placeholder of its task group (YK-GANG-3)"
RULES = ("YK-GANG-1", "YK-GANG-2", "YK-GANG-3", "YK-GANG-4", "YK-GANG-5")


@dataclass
class PlaceholderData:
    """The core's ``PlaceholderData`` of one task group: placeholders asked for, replaced, and timed out (every
    release that is not a replacement counts as a time-out)."""

    count: int = 0
    replaced: int = 0
    timed_out: int = 0

    def replaceable(self) -> bool:
        return self.count > self.replaced + self.timed_out


@dataclass(eq=False)
class Gang:
    """One application's gang scheduling state: the shim's (Reserving or not; the pods it holds back are the
    application's ``held``) and the core's (placeholder data per task group, the placeholders allocated, the
    timer)."""

    groups: tuple[TaskGroup, ...]
    policy: GangPolicy
    shim_state: str  # RESERVING, RUNNING or FAILED (the shim's application state, as far as gangs go)
    data: dict[str, PlaceholderData] = field(default_factory=dict)
    allocated_placeholder: Resource = field(default_factory=dict)
    timer_start: int | None = None  # ns: the first placeholder allocation (the core's placeholder timer)
    failed: str = ""  # why the shim failed the application (Hard timeout)
    all_allocated: bool = False  # the core's application reached Running: every placeholder was allocated once
    waiting_members: int = 0  # real pods of a task group the core holds, not allocated (they may replace one)
    decision: str = ""  # how YK-GANG-1 decided, in words

    @property
    def timeout_ns(self) -> int:
        seconds = self.policy.timeout_seconds if self.policy.timeout_seconds > 0 else DEFAULT_TIMEOUT_S
        return seconds * 1_000_000_000

    def can_replace(self, pod: PodInfo) -> bool:
        """YK-GANG-3 ``canReplace``: a real pod of a task group with placeholders left to replace."""
        if pod.is_placeholder or not pod.task_group:
            return False
        data = self.data.get(pod.task_group)
        return data is not None and data.replaceable()

    def add_placeholder(self, resource: Resource, now: int) -> None:
        """A placeholder allocation (``addAllocationInternal``): the first one starts the placeholder timer
        (YK-GANG-5)."""
        if res.is_zero(self.allocated_placeholder):
            self.timer_start = now
        self.allocated_placeholder = res.add(self.allocated_placeholder, resource)

    def may_replace(self) -> bool:
        """``tryPlaceholderAllocate`` has something to try: placeholders allocated and a real pod of a task group
        pending."""
        return self.waiting_members > 0 and bool(self.allocated_placeholder)

    def all_placeholders_allocated(self, placeholder_ask: Resource | None) -> bool:
        """The core moves the application to Running when its allocated placeholders equal its placeholder ask."""
        return placeholder_ask is not None and \
            (res.prune(self.allocated_placeholder) or {}) == (res.prune(placeholder_ask) or {})


def placeholder_name(app_id: str, group: str, index: int) -> str:
    """``GeneratePlaceholderName`` with a counter where YuniKorn has a random nonce (at most 63 characters)."""
    return f"tg-{app_id[:28]}-{group[:20]}-{index}"


def plan(pods: list[PodInfo], gang: PodInfo | None, now: datetime) -> tuple[Gang | None, list[PodInfo]]:
    """YK-GANG-1 for one application's pods (sorted by creation): its gang state and the placeholder pods the shim
    makes now (none when it does not reserve)."""
    if gang is None or not gang.task_group_specs:
        return None, []
    policy = gang.gang_policy or GangPolicy()
    groups = gang.task_group_specs
    existing = [pod for pod in pods if pod.is_placeholder]
    reals = [pod for pod in pods if not pod.is_placeholder]
    if any(pod.node for pod in reals):
        return Gang(groups, policy, RUNNING, decision="a real pod is bound already: the shim does not reserve "
                                                      "(skipReservationStage)"), []
    if not existing and _timeout_elapsed(policy, pods[0].created, now):
        if policy.style == HARD:
            return Gang(groups, policy, FAILED, failed=TIMED_OUT_FAILURE,
                        decision="the placeholder timeout passed before any placeholder was made (Hard): the shim "
                                 "fails the application"), []
        return Gang(groups, policy, RUNNING, decision="the placeholder timeout passed before any placeholder was made "
                                                      "(Soft): the shim runs the application without placeholders"), []
    made = _missing_placeholders(gang, groups, existing, now)
    return Gang(groups, policy, RESERVING, decision="the shim reserves: placeholders first"), made


def _timeout_elapsed(policy: GangPolicy, created: datetime, now: datetime) -> bool:
    """``isPlaceholderTimeoutElapsed``: only a timeout the shim was given counts (the core's default does not)."""
    return policy.timeout_seconds > 0 and (now - created).total_seconds() >= policy.timeout_seconds


def _missing_placeholders(originator: PodInfo, groups: tuple[TaskGroup, ...], existing: list[PodInfo],
                          now: datetime) -> list[PodInfo]:
    """``createAppPlaceholders``: per task group, the placeholders it lacks to reach ``minMember``."""
    counts: dict[str, int] = {}
    for pod in existing:
        counts[pod.task_group] = counts.get(pod.task_group, 0) + 1
    taken = {pod.name for pod in existing}
    made: list[PodInfo] = []
    for group in groups:
        index = 0
        for _ in range(counts.get(group.name, 0), group.min_member):
            index += 1
            while placeholder_name(originator.app_id, group.name, index) in taken:
                index += 1
            made.append(placeholder_pod(originator, group, placeholder_name(originator.app_id, group.name, index),
                                        now))
    return made


def placeholder_pod(originator: PodInfo, group: TaskGroup, name: str, created: datetime) -> PodInfo:
    """``newPlaceholder``: the group's minResource (request = limit), node selector, tolerations and affinity; the
    originator's priority class, hence its priority and preemption settings (kqctl takes the originator's as they
    are: it does not tell its own allow-preemption annotation from its class's)."""
    return replace(
        originator, name=name, resource={**group.min_resource, PODS: 1}, created=created, node="",
        node_selector=dict(group.node_selector), affinity_terms=group.affinity_terms, tolerations=group.tolerations,
        task_group=group.name, is_placeholder=True, runtime="", controller="", origin=None, labels={})


def placeholder_data(gang: Gang, placeholders: list[PodInfo]) -> None:
    """``addPlaceholderData``: each placeholder ask the core is given counts for its task group."""
    for pod in placeholders:
        gang.data.setdefault(pod.task_group, PlaceholderData()).count += 1
