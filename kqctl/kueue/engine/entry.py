"""What one scheduling cycle decides (rule set CYC): an Entry per head, the evictions it issues.

Kueue's ``entry`` (scheduler.go): a head of the cycle with its flavor assignment, its preemption
targets and what became of it. Its own module so that the cycle, the fair-sharing tournament
that orders entries (FS-4) and explain share the type without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.kueue.engine.cache import ClusterQueueState
from kqctl.kueue.engine.flavors.assignment import NO_FIT, Assignment, format_attempts
from kqctl.kueue.engine.preemption.targets import Target
from kqctl.kueue.engine.queues import GENERIC
from kqctl.kueue.engine.workloads import WorkloadInfo

# Entry statuses (Kueue's entryStatus)
NOT_NOMINATED = ""
NOMINATED = "nominated"
SKIPPED = "skipped"
ASSUMED = "assumed"
PREEMPTION_GATED_STATUS = "preemptionGated"

# QuotaReserved=False reasons (Appendix C)
WAITING_FOR_QUOTA = "WaitingForQuota"
WAITING_FOR_PREEMPTED = "WaitingForPreemptedWorkloads"
MISCONFIGURED = "Misconfigured"
SUSPENDED = "Suspended"
PENDING_EVALUATION = "PendingEvaluation"


@dataclass(eq=False)
class Entry:
    """A head of this cycle and what the scheduler decided for it."""

    workload: WorkloadInfo
    cq_name: str
    cq: ClusterQueueState | None
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)
    status: str = NOT_NOMINATED
    message: str = ""
    requeue_reason: str = GENERIC
    reason: str = ""
    tree_version: int | None = None  # its ClusterQueue's tree (QuotaNode.version) when it was nominated

    @property
    def mode(self) -> str:
        return self.assignment.representative_mode() if self.assignment is not None else NO_FIT

    @property
    def flavors_considered(self) -> str:
        """CYC-18: the QuotaReserved event's "Flavors considered" of an admission ("" for any other entry). Written
        out when read: a replay admits tens of thousands of workloads and reads none of them."""
        if self.status != ASSUMED or self.assignment is None:
            return ""
        return format_attempts(self.assignment)


@dataclass(frozen=True)
class Eviction:
    """A victim the cycle asks to leave: preempted (PRE-12) or moved off for a flavor migration."""

    victim: WorkloadInfo
    preemptor: WorkloadInfo
    reason: str
    message: str


@dataclass
class CycleResult:
    number: int
    entries: list[Entry] = field(default_factory=list)
    admitted: list[Entry] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
