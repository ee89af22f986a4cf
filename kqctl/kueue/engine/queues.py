"""Pending workloads per ClusterQueue: the active heap and the inadmissible set (CYC-1, 2, 11..14).

Mirrors Kueue's queue logic closely because it decides which workload is a head in the next
cycle: priority and queue-order time, the sticky preemptor of BestEffortFIFO queues, requeueing
straight into the heap or into the inadmissible set, and equivalence bulk moves.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from kqctl.kueue.engine.fingerprint import FingerprintedDict
from kqctl.kueue.engine.workloads import WorkloadInfo

BEST_EFFORT_FIFO = "BestEffortFIFO"
STRICT_FIFO = "StrictFIFO"

# Requeue reasons (Kueue's RequeueReason values).
GENERIC = ""
NO_FIT = "NoFit"
NAMESPACE_MISMATCH = "NamespaceMismatch"
FAILED_AFTER_NOMINATION = "FailedAfterNomination"
PENDING_PREEMPTION = "PendingPreemption"
PENDING_MIGRATION = "PendingMigration"
PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"
PREEMPTION_FAILED = "PreemptionFailed"
PREEMPTION_GATED = "PreemptionGated"

_IMMEDIATE_BEST_EFFORT = {FAILED_AFTER_NOMINATION, PENDING_PREEMPTION, PENDING_MIGRATION, PREEMPTION_FAILED}


@dataclass
class PendingQueue:
    """One ClusterQueue's pending workloads: the heap of active ones and the inadmissible set.

    Kueue's ``queue.ClusterQueue`` (clusterQueueBase with its heap and inadmissibleWorkloads).
    """

    name: str
    strategy: str  # "" (unset) behaves as BestEffortFIFO for requeueing only (DEF-4)
    afs_score: Callable[[WorkloadInfo], float] | None = None  # admission fair sharing (FS-11)
    equivalence_hashing: bool = True
    active: dict[str, WorkloadInfo] = field(default_factory=dict)
    inadmissible: dict[str, WorkloadInfo] = field(default_factory=dict)
    preemptor: str | None = None
    sticky: bool = False
    pop_cycle: int = 0
    queue_inadmissible_cycle: int = -1
    bulk_moved_shapes: set[str] = field(default_factory=set)  # CYC-12: shapes that follow into the inadmissible set
    _heap: list[tuple[tuple[object, ...], int, str]] = field(default_factory=list)
    _counter: Iterator[int] = field(default_factory=itertools.count)

    @property
    def fingerprint(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """SIM-7's state of this queue: its active workloads with their scan memory, its inadmissible ones (kept
        once :meth:`track_fingerprint` was called)."""
        active, inadmissible = self.active, self.inadmissible
        if not isinstance(active, FingerprintedDict) or not isinstance(inadmissible, FingerprintedDict):
            raise RuntimeError(f"queue {self.name}: track_fingerprint() first")
        return active.fingerprint, inadmissible.fingerprint

    def track_fingerprint(self) -> None:
        """SIM-7: from now on both sets keep their fingerprint as workloads come and go (steady-state detection
        reads it every cycle; rebuilding the sets cost O(queued workloads) per cycle). Called again, the scan memory
        of every active workload is taken again (it may have changed from outside a cycle). Only runs that compare
        states ask for it: a replay, which never does, would pay for it on every change of a queue.

        The token functions hold the queue's name, not the queue: a dict that referred back to its queue would
        make a reference cycle, which the CLI (garbage collector off) would never free (explain runs many).
        """
        if isinstance(self.active, FingerprintedDict):
            self.active.resync()
            return
        self.active = FingerprintedDict(partial(_active_token, self.name), self.active.items())
        self.inadmissible = FingerprintedDict(partial(_inadmissible_token, self.name), self.inadmissible.items())

    # --- ordering ------------------------------------------------------------------------------------

    def order_key(self, workload: WorkloadInfo) -> tuple[object, ...]:
        """CYC-2 without the sticky key: priority, queue-order time, UID (then name, §0.4)."""
        return (-workload.priority, workload.queue_order_time, *workload.order_key())

    def _full_key(self, workload: WorkloadInfo) -> tuple[object, ...]:
        sticky_first = not (self.sticky and workload.key == self.preemptor)
        score = self.afs_score(workload) if self.afs_score is not None else 0.0
        return (score, sticky_first, *self.order_key(workload))

    def ordered(self) -> list[WorkloadInfo]:
        return sorted(self.active.values(), key=self._full_key)

    # --- heap ----------------------------------------------------------------------------------------

    def _push_active(self, workload: WorkloadInfo) -> None:
        self.active[workload.key] = workload
        heapq.heappush(self._heap, (self.order_key(workload), next(self._counter), workload.key))

    def pop(self) -> WorkloadInfo | None:
        """CYC-3: the head of the heap (every pop counts, even on an empty heap)."""
        self.pop_cycle += 1
        if not self.active:
            return None
        if self.afs_score is not None:
            head = min(self.active.values(), key=self._full_key)
        elif self.sticky and self.preemptor in self.active:
            head = self.active[self.preemptor]
        else:
            head = self._pop_heap()
        self.active.pop(head.key, None)
        return head

    def _pop_heap(self) -> WorkloadInfo:
        while True:
            _, _, key = heapq.heappop(self._heap)
            workload = self.active.get(key)
            if workload is not None:  # otherwise a stale entry of a workload that left or was re-pushed
                return workload

    def _compact(self) -> None:
        # Lazy deletion leaves stale heap entries; rebuild when they dominate.
        if len(self._heap) > 2 * len(self.active) + 64:
            self._heap = [(self.order_key(w), next(self._counter), k) for k, w in self.active.items()]
            heapq.heapify(self._heap)

    # --- adding and requeueing -------------------------------------------------------------------------

    def push(self, workload: WorkloadInfo, backoff_expired: bool = True) -> None:
        """A new or released workload joins the queue (Kueue's PushOrUpdate)."""
        key = workload.key
        if key in self.inadmissible:
            del self.inadmissible[key]
        if key not in self.active and not backoff_expired:
            self.inadmissible[key] = workload
            return
        # (the shape is only worked out once some shape was bulk-moved: it costs the pod-set requests)
        if (self.strategy == BEST_EFFORT_FIFO and self.bulk_moved_shapes and key not in self.active
                and workload.shape in self.bulk_moved_shapes):
            self.inadmissible[key] = workload
            return
        self._push_active(workload)

    def requeue(self, workload: WorkloadInfo, reason: str) -> None:
        """CYC-11: back into the heap at once, or into the inadmissible set."""
        if reason in (PENDING_PREEMPTION, PENDING_MIGRATION):
            self.preemptor, self.sticky = workload.key, self.strategy == BEST_EFFORT_FIFO  # CYC-13
        if self.strategy == STRICT_FIFO:
            immediate = reason != NAMESPACE_MISMATCH
        else:
            immediate = reason in _IMMEDIATE_BEST_EFFORT
        memory = workload.scan_memory
        pending_flavors = memory is not None and memory.has_pending_flavors()
        key = workload.key
        if immediate or self.queue_inadmissible_cycle >= self.pop_cycle or pending_flavors:
            self.inadmissible.pop(key, None)
            if key not in self.active:
                self._push_active(workload)
            return
        if key in self.inadmissible or key in self.active:
            return
        self.inadmissible[key] = workload
        if self.equivalence_hashing and reason in (NO_FIT, PREEMPTION_NO_CANDIDATES):
            self._bulk_move(workload.shape)

    def _bulk_move(self, shape: str) -> None:
        """CYC-12: equivalent workloads follow a BestEffortFIFO head into the inadmissible set."""
        if self.strategy != BEST_EFFORT_FIFO:
            return
        self.bulk_moved_shapes.add(shape)
        for key, workload in list(self.active.items()):
            if workload.shape == shape:
                del self.active[key]
                self.inadmissible[key] = workload
        self._compact()

    def queue_inadmissible(self, namespace_matches: Callable[[WorkloadInfo], bool]) -> int:
        """CYC-14: a requeue event moves inadmissible workloads (namespace still matching) back."""
        self.queue_inadmissible_cycle = self.pop_cycle
        self.bulk_moved_shapes.clear()
        moved = 0
        for key, workload in sorted(self.inadmissible.items()):
            if not namespace_matches(workload):
                continue
            del self.inadmissible[key]
            self._push_active(workload)
            moved += 1
        return moved

    def forget_preemptor(self, key: str) -> None:
        """A preemptor that got in (or left) is no longer sticky."""
        if self.preemptor == key:
            self.preemptor, self.sticky = None, False

    def __len__(self) -> int:
        return len(self.active) + len(self.inadmissible)


def _active_token(name: str, key: str, workload: WorkloadInfo) -> object:
    # An active workload's flavor-scan progress (FA-4) is part of the state: it decides the next attempt.
    return name, "active", key, memory_key(workload)


def _inadmissible_token(name: str, key: str, workload: WorkloadInfo) -> object:
    return name, "inadmissible", key


def memory_key(workload: WorkloadInfo) -> object:
    """The workload's flavor-scan memory (FA-4) as a hashable value (None: it has none)."""
    memory = workload.scan_memory
    return None if memory is None else tuple(tuple(sorted(t.items())) for t in memory.last_tried)
