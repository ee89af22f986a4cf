"""The scheduler's state for one partition: applications and their asks, nodes, reservations.

Mirrors yunikorn-core ``objects/application.go`` (state New -> Accepted -> Running, pending and allocated
resources, ``askMaxPriority`` P2), ``objects/allocation.go`` (an ask: its resource, priority, creation time,
preemption flags), ``objects/node.go`` (total, allocated, occupied by other schedulers' pods, available,
reservations). Times are nanoseconds since the epoch (only their order and differences matter).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import NodeInfo, PodInfo
from kqctl.yunikorn.engine.queue import MIN_PRIORITY, Queue

if TYPE_CHECKING:
    from kqctl.yunikorn.engine.gang import Gang
    from kqctl.yunikorn.engine.placement import Placement

NEW = "New"
ACCEPTED = "Accepted"
RUNNING = "Running"
REJECTED = "Rejected"


@dataclass(eq=False)
class Ask:
    """One pod: an ask while pending, an allocation once on a node."""

    pod: PodInfo
    app: Application
    resource: Resource
    priority: int
    created: int  # ns
    originator: bool = False
    node: str = ""  # allocated on this node
    order: int = 0  # the allocation's sequence number in the simulation (0: allocated before it)
    reserved_node: str = ""
    preempt_checked: bool = False  # E4: a preemption attempt was made (kqctl's clock does not advance)
    preempt_triggered: bool = False  # E2
    preempt_short: str = ""  # E2: why its one preemption left it short (YuniKorn's victim selection), if it did
    preempted_by: str = ""  # this allocation was chosen as a victim of that ask
    preempted_from: str = ""  # the node it ran on
    failure: str = ""  # YuniKorn's allocation log reason of the last failed attempt
    no_node: str = ""  # why no node took it at its last tryNodes (describe_no_node): the start of ``failure`` then
    blocked: bool = False  # it failed, and nothing it depends on has grown since
    blocked_kind: str = ""  # what would undo its last failure (SchedulerState.block)
    waiting_quota: bool = False  # reserved, and its last retry failed on a headroom
    shape: tuple[object, ...] = ()  # what decides where it fits (state.shape_of), worked out once
    shape_id: int = -1  # the shape as a small integer (state.shape_key), worked out once
    grouped: bool = False  # in the scheduler's group of asks no node fits (SchedulerState.blocked_nodes)
    let_out: bool = False  # a node's opening let it out of its group and it was not retried since (replay only)
    reserve_order: tuple[str, ...] = ()  # reserved asks are retried by application, then pod (set when it reserves)
    replaced: str = ""  # a real pod: the placeholder whose place it took (YK-GANG-4)
    replaced_by: str = ""  # a placeholder: the real pod that took its place
    released: str = ""  # a placeholder released without a replacement: why (YK-GANG-4, YK-GANG-5)

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def allocated(self) -> bool:
        return self.node != ""

    def order_key(self) -> tuple[int, int, str]:
        """``Allocation.LessThan``: higher priority, then older; kqctl breaks equal times by pod name."""
        return (-self.priority, self.created, self.pod.name)


@dataclass(eq=False)
class Application:
    app_id: str
    namespace: str
    user: str
    groups: tuple[str, ...]
    submission: int  # ns: the oldest ask's creation time
    asks: list[Ask] = field(default_factory=list)  # every pod, sorted by order_key
    queue: Queue | None = None
    requested_queue: str = ""
    state: str = NEW
    rejected: str = ""  # why placement or AddApplication refused it
    passed_over: str = ""  # rejected by placement: why each rule's queue was not taken ("" when none named one)
    placement: str = ""  # which rule put it where
    decision: Placement | None = None  # placement's whole decision (None: the rules could not be built, or admitted)
    pending: Resource = field(default_factory=dict)
    allocated: Resource = field(default_factory=dict)
    group: str = ""  # the group its usage is tracked under (G2)
    max_priority: int | None = None  # ask_max_priority, until an ask is allocated or released (asks_changed)
    placeholder: Resource | None = None  # a gang application's placeholder ask (task groups)
    gang: Gang | None = None  # its gang scheduling state (None: no task groups, or gang scheduling is disabled)
    held: list[Ask] = field(default_factory=list)  # pods the shim has not sent the core (YK-GANG-1, YK-GANG-2)

    def ask_max_priority(self) -> int:
        """P2 ``updateAskMaxPriority``: the highest priority of the asks not yet allocated; MIN when none."""
        if self.max_priority is not None:
            return self.max_priority
        best = MIN_PRIORITY
        for ask in self.asks:
            if not ask.allocated and ask.priority > best:
                best = ask.priority
        self.max_priority = best
        return best

    def asks_changed(self) -> None:
        self.max_priority = None

    def pending_asks(self) -> list[Ask]:
        return [ask for ask in self.asks if not ask.allocated]


@dataclass(eq=False)
class Node:
    info: NodeInfo
    total: Resource
    allocated: Resource = field(default_factory=dict)
    occupied: Resource = field(default_factory=dict)  # pods of other schedulers
    allocations: list[Ask] = field(default_factory=list)
    reserved_by: Ask | None = None
    score: float = 0.0
    free: Resource = field(default_factory=dict)  # total - allocated - occupied, per type of the total
    # not cordoned (the snapshot's NodeInfo is frozen): a plain attribute, read for every node a search passes
    schedulable: bool = field(init=False, default=True)

    def __post_init__(self) -> None:
        self.free = dict(self.total)
        self.schedulable = not self.info.unschedulable

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def available(self) -> Resource:
        """``availableResource`` (a copy)."""
        return dict(self.free)

    def take(self, amount: Resource, foreign: bool = False) -> None:
        """An allocation (or another scheduler's pod) lands here."""
        if foreign:
            self.occupied = res.add(self.occupied, amount)
        else:
            self.allocated = res.add(self.allocated, amount)
        for name, value in amount.items():
            if name in self.free:
                self.free[name] -= value

    def give(self, amount: Resource) -> None:
        """An allocation goes away."""
        self.allocated = res.add(self.allocated, {name: -value for name, value in amount.items()})
        for name, value in amount.items():
            if name in self.free:
                self.free[name] += value

    def fits_total(self, ask: Resource) -> bool:
        """``FitInNode``: the node has every type the ask wants, in that amount at least."""
        total = self.total
        for name, value in ask.items():
            if value > max(0, total.get(name, 0)):
                return False
        return True

    def fits_available(self, ask: Resource) -> bool:
        """``preAllocateCheck``: a non-zero ask fits what is left (a type the node lacks counts as 0)."""
        free = self.free
        positive = False
        for name, value in ask.items():
            if value < 0:
                return False
            if value > 0:
                positive = True
                left = free.get(name, 0)
                if value > (left if left > 0 else 0):
                    return False
        return positive

    def usage_shares(self) -> dict[str, float]:
        """``GetResourceUsageShares``: per type of the total, the share not available (NaN for a total of 0)."""
        return {name: (1.0 - self.free[name] / value) if value != 0 else float("nan")
                for name, value in self.total.items()}

    def fit_in_score(self, ask: Resource) -> float:
        """``FitInScore`` of the ask against what is available: lower is a better fit to reserve."""
        score = 0.0
        for name, fit in self.free.items():
            if fit <= 0:
                continue
            wanted = ask.get(name, 0)
            if wanted <= 0:
                score += 1
            elif fit > wanted:
                score += (fit - wanted) / fit
        return score
