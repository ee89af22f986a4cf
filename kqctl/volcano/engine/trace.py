"""What stopped each job in a session, gate by gate (what ``explain`` and simulate's REASON column show)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Gates, in the order a job meets them.
PODGROUP_MISSING = "podgroup-missing"  # pods name a PodGroup that does not exist: the cache skips their job
QUEUE_MISSING = "queue-missing"
QUEUE_CLOSED = "queue-closed"
JOB_INVALID = "job-invalid"  # gang: not enough valid tasks
HIERARCHY = "hierarchy"  # hierarchical capacity refuses the whole session, or a non-leaf queue
OVERCOMMIT = "overcommit"
QUEUE_QUOTA = "queue-quota"  # enqueue: proportion/capacity JobEnqueueable
OVERUSED = "overused"  # allocate/reclaim skip the queue
ALLOCATABLE = "allocatable"  # a task over the queue's deserved (proportion) or real capability (capacity)
NO_NODE = "no-node"
GANG = "gang"  # fewer tasks than minMember could be placed: nothing is bound
RECLAIM = "reclaim"
PREEMPT = "preempt"
BACKFILL = "backfill"  # best-effort pods of a PodGroup that runs, which no action of the configuration places


@dataclass(frozen=True)
class Note:
    gate: str
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass
class Trace:
    """Per job, every gate that said no during the session, in order."""

    notes: dict[str, list[Note]] = field(default_factory=dict)

    def note(self, job: str, gate: str, message: str, detail: Mapping[str, Any] | None = None) -> None:
        self.notes.setdefault(job, []).append(Note(gate, message, dict(detail or {})))

    def of(self, job: str) -> list[Note]:
        return self.notes.get(job, [])
