"""The scheduler's state for one partition: applications and their asks, nodes, reservations.

Mirrors yunikorn-core ``objects/application.go`` (state New -> Accepted -> Running, pending and allocated
resources, ``askMaxPriority`` P2), ``objects/allocation.go`` (an ask: its resource, priority, creation time,
preemption flags), ``objects/node.go`` (total, allocated, occupied by other schedulers' pods, available,
reservations). Times are nanoseconds since the epoch (only their order and differences matter).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import NodeInfo, PodInfo
from kqctl.yunikorn.engine.queue import MIN_PRIORITY, Queue

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
    preempted_by: str = ""  # this allocation was chosen as a victim of that ask
    failure: str = ""  # YuniKorn's allocation log reason of the last failed attempt
    blocked: int = -1  # the epoch in which it failed last (nothing it depends on changed since)
    retried: int = -1  # the epoch in which its reservation was last retried

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
    placement: str = ""  # which rule put it where
    pending: Resource = field(default_factory=dict)
    allocated: Resource = field(default_factory=dict)
    group: str = ""  # the group its usage is tracked under (G2)

    def ask_max_priority(self) -> int:
        """P2 ``updateAskMaxPriority``: the highest priority of the asks not yet allocated; MIN when none."""
        best = MIN_PRIORITY
        for ask in self.asks:
            if not ask.allocated and ask.priority > best:
                best = ask.priority
        return best

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

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def schedulable(self) -> bool:
        return not self.info.unschedulable

    @property
    def available(self) -> Resource:
        """total - allocated - occupied, per type of the total (``refreshAvailableResource``)."""
        return {name: value - self.allocated.get(name, 0) - self.occupied.get(name, 0)
                for name, value in self.total.items()}

    def fits_total(self, ask: Resource) -> bool:
        """``FitInNode``: the node has every type the ask wants, in that amount at least."""
        return res.fit_in(self.total, ask)

    def fits_available(self, ask: Resource) -> bool:
        """``preAllocateCheck``: a non-zero ask fits what is left."""
        if not res.strictly_greater_than_zero(ask):
            return False
        for name, value in ask.items():
            left = self.total.get(name, 0) - self.allocated.get(name, 0) - self.occupied.get(name, 0)
            if value > max(0, left):
                return False
        return True

    def usage_shares(self) -> dict[str, float]:
        """``GetResourceUsageShares``: per type of the total, the share not available (NaN for a total of 0)."""
        shares: dict[str, float] = {}
        for name, value in self.total.items():
            left = value - self.allocated.get(name, 0) - self.occupied.get(name, 0)
            shares[name] = 1.0 - (left / value) if value != 0 else float("nan")
        return shares

    def fit_in_score(self, ask: Resource) -> float:
        """``FitInScore`` of the ask against what is available: lower is a better fit to reserve."""
        score = 0.0
        for name, fit in self.available.items():
            if fit <= 0:
                continue
            wanted = ask.get(name, 0)
            if wanted <= 0:
                score += 1
            elif fit > wanted:
                score += (fit - wanted) / fit
        return score
