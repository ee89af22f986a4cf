"""Pending workloads per ClusterQueue: the active heap and the inadmissible set (CYC-1, 2, 11..14).

Mirrors Kueue's queue logic closely because it decides which workload is a head in the next
cycle: priority and queue-order time, the sticky preemptor of BestEffortFIFO queues, requeueing
straight into the heap or into the inadmissible set, and equivalence bulk moves.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial

from kqctl.kueue.engine.fingerprint import MASK, FingerprintedDict, token_hashes
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


class _Equivalents:
    """Workloads of one queue, one namespace and one scheduling shape (CYC-12) that move between the sets together.

    A bulk move parks them in the inadmissible set and a requeue event brings them back to the heap as one group,
    instead of one by one: after every requeue event Kueue pops one workload of each shape, and a queue holding
    thousands of equivalent workloads would otherwise move every one of them twice per event (O(pending) per
    completion, O(N²) over a replay). The namespace is part of the group because a requeue event moves only
    workloads whose namespace the ClusterQueue still selects (CYC-14).
    """

    __slots__ = ("shape", "namespace", "members", "heap", "parked", "version", "sums")

    def __init__(self, shape: str, namespace: str) -> None:
        self.shape = shape
        self.namespace = namespace
        self.members: dict[str, WorkloadInfo] = {}
        self.heap: list[tuple[tuple[object, ...], str]] = []  # (order key, key); removed members are skipped
        self.parked = True  # True: in the inadmissible set; False: in the active heap
        self.version = 0  # the queue's heap holds one marker per active group: only the latest one counts
        # Once the queue keeps fingerprints: its members' token hashes summed, as active (first, second) and as
        # inadmissible (first, second) workloads, so that the group moves between the sets in one step.
        self.sums = [0, 0, 0, 0]

    def top(self) -> tuple[tuple[object, ...], WorkloadInfo] | None:
        heap, members = self.heap, self.members
        while heap:
            order, key = heap[0]
            workload = members.get(key)
            if workload is not None:
                return order, workload
            heapq.heappop(heap)
        return None


_Marker = tuple[_Equivalents, int]  # a group's place in the heap: the group and its version at the time


class _ActiveView(Mapping[str, WorkloadInfo]):
    """The active set of a queue whose equivalent workloads are grouped: its loose workloads and active groups."""

    __slots__ = ("_queue",)

    def __init__(self, queue: PendingQueue) -> None:
        self._queue = queue

    def __getitem__(self, key: str) -> WorkloadInfo:
        queue = self._queue
        found = queue._active.get(key)
        if found is not None:
            return found
        group = queue._where.get(key)
        if group is None or group.parked:
            raise KeyError(key)
        return group.members[key]

    def __contains__(self, key: object) -> bool:
        queue = self._queue
        if key in queue._active:
            return True
        group = queue._where.get(key)  # type: ignore[call-overload]
        return group is not None and not group.parked

    def __len__(self) -> int:
        return len(self._queue._active) + self._queue._grouped_active

    def __iter__(self) -> Iterator[str]:
        yield from self._queue._active
        for group in self._queue._groups.values():
            if not group.parked:
                yield from group.members


class _InadmissibleView(Mapping[str, WorkloadInfo]):
    """The inadmissible set of a queue whose equivalent workloads are grouped: loose workloads and parked groups."""

    __slots__ = ("_queue",)

    def __init__(self, queue: PendingQueue) -> None:
        self._queue = queue

    def __getitem__(self, key: str) -> WorkloadInfo:
        queue = self._queue
        found = queue._inadmissible.get(key)
        if found is not None:
            return found
        group = queue._where.get(key)
        if group is None or not group.parked:
            raise KeyError(key)
        return group.members[key]

    def __contains__(self, key: object) -> bool:
        queue = self._queue
        if key in queue._inadmissible:
            return True
        group = queue._where.get(key)  # type: ignore[call-overload]
        return group is not None and group.parked

    def __len__(self) -> int:
        return len(self._queue._inadmissible) + self._queue._grouped_parked

    def __iter__(self) -> Iterator[str]:
        yield from self._queue._inadmissible
        for group in self._queue._groups.values():
            if group.parked:
                yield from group.members


@dataclass
class PendingQueue:
    """One ClusterQueue's pending workloads: the heap of active ones and the inadmissible set.

    Kueue's ``queue.ClusterQueue`` (clusterQueueBase with its heap and inadmissibleWorkloads). ``active`` and
    ``inadmissible`` are the two sets as mappings by workload key. Inside, equivalent workloads a bulk move parked
    are kept in groups (:class:`_Equivalents`) that move as one, so that neither a bulk move nor a requeue event
    costs work per workload; runs that compare states (SIM-7, :meth:`track_fingerprint`) keep them, each group with
    the fingerprint sums of its members.
    """

    name: str
    strategy: str  # "" (unset) behaves as BestEffortFIFO for requeueing only (DEF-4)
    afs_score: Callable[[WorkloadInfo], float] | None = None  # admission fair sharing (FS-11)
    equivalence_hashing: bool = True
    _active: dict[str, WorkloadInfo] = field(default_factory=dict)  # loose active workloads (in the heap one by one)
    _inadmissible: dict[str, WorkloadInfo] = field(default_factory=dict)  # loose inadmissible workloads
    preemptor: str | None = None
    sticky: bool = False
    pop_cycle: int = 0
    queue_inadmissible_cycle: int = -1
    bulk_moved_shapes: set[str] = field(default_factory=set)  # CYC-12: shapes that follow into the inadmissible set
    # (order key, sequence, loose workload key or a group's marker); stale entries are skipped when popped
    _heap: list[tuple[tuple[object, ...], int, str | _Marker]] = field(default_factory=list)
    _counter: Iterator[int] = field(default_factory=itertools.count)
    _groups: dict[tuple[str, str], _Equivalents] = field(default_factory=dict)  # by (shape, namespace)
    _groups_by_shape: dict[str, list[_Equivalents]] = field(default_factory=dict)
    _where: dict[str, _Equivalents] = field(default_factory=dict)  # the group of each grouped workload
    _grouped_active: int = 0  # workloads in active groups
    _grouped_parked: int = 0  # workloads in parked groups
    # Loose active workloads by shape, kept from the first bulk move on (a bulk move then finds its shape's
    # workloads without looking at the others; before it, no shape is worked out for a push). Each shape's keys in
    # the order of ``_active`` (a dict as an ordered set): a bulk move of plain sets moves them in that order.
    _loose_by_shape: dict[str, dict[str, None]] | None = None
    _grouping: bool = True  # False once the groups are dissolved (track_fingerprint(keep_groups=False))
    # An active group whose head was popped and whose marker for its next workload is not in the heap yet: pushed
    # when the heap is next read (a head is usually requeued in its cycle, and its group parked with it, CYC-12,
    # which would leave that marker stale at once).
    _owed_marker: _Equivalents | None = None
    # Once fingerprints are kept (track_fingerprint): each grouped workload's token hashes (as active, as inadmissible:
    # taken when it joins its group, as a plain set takes them when it is set), and their sums over the active and
    # the parked groups (active first, second; parked first, second).
    _tracked: bool = False
    _member_hashes: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    _grouped_sums: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    def __post_init__(self) -> None:
        self._grouping = self.strategy == BEST_EFFORT_FIFO and self.afs_score is None

    @property
    def active(self) -> Mapping[str, WorkloadInfo]:
        """The workloads in the heap, by key."""
        return _ActiveView(self) if self._groups else self._active

    @property
    def inadmissible(self) -> Mapping[str, WorkloadInfo]:
        """The workloads in the inadmissible set, by key."""
        return _InadmissibleView(self) if self._groups else self._inadmissible

    def has_inadmissible(self) -> bool:
        """Whether the inadmissible set has a workload (``bool(inadmissible)`` without a view)."""
        return bool(self._inadmissible) or self._grouped_parked > 0

    @property
    def fingerprint(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """SIM-7's state of this queue: its active workloads with their scan memory, its inadmissible ones (kept
        once :meth:`track_fingerprint` was called): the loose ones' kept by their sets, the grouped ones' by the
        groups, the same sums plain sets of all of them would keep."""
        active, inadmissible = self._active, self._inadmissible
        if not isinstance(active, FingerprintedDict) or not isinstance(inadmissible, FingerprintedDict):
            raise RuntimeError(f"queue {self.name}: track_fingerprint() first")
        (count_a, first_a, second_a), (count_i, first_i, second_i) = active.fingerprint, inadmissible.fingerprint
        sums = self._grouped_sums
        return ((count_a + self._grouped_active, (first_a + sums[0]) & MASK, (second_a + sums[1]) & MASK),
                (count_i + self._grouped_parked, (first_i + sums[2]) & MASK, (second_i + sums[3]) & MASK))

    def track_fingerprint(self, keep_groups: bool = True) -> None:
        """SIM-7: from now on both sets keep their fingerprint as workloads come and go (steady-state detection
        reads it every cycle; rebuilding the sets cost O(queued workloads) per cycle). Called again, the scan memory
        of every active workload is taken again (it may have changed from outside a cycle). Only runs that compare
        states ask for it: a replay, which never does, would pay for it on every change of a queue.

        Groups of equivalent workloads stay (``keep_groups``: else they are dissolved into plain sets first, and no
        more are made): each group keeps the sums of its members' token hashes, so that a bulk move or a requeue
        event moves it, fingerprint included, in one step instead of workload by workload (on Kueue's 50,000-workload
        shape every requeue event of a cohort moved its thousands of inadmissible workloads back one by one, and the
        next cycle's bulk moves parked them again: most of the cost of explain's checks). A member's hashes are
        taken when it joins a group, as a plain set takes them when it is set: its scan memory does not change while
        it waits in a group (only a popped head is tried), and a call here takes them all again.

        The token functions hold the queue's name, not the queue: a dict that referred back to its queue would
        make a reference cycle, which the CLI (garbage collector off) would never free (explain runs many).
        """
        if not keep_groups:
            self._ungroup()
        if isinstance(self._active, FingerprintedDict):
            self._active.resync()
        else:
            self._active = FingerprintedDict(partial(_active_token, self.name), self._active.items())
            self._inadmissible = FingerprintedDict(partial(_inadmissible_token, self.name),
                                                   self._inadmissible.items())
        self._tracked = True
        self._retake_groups()

    def _retake_groups(self) -> None:
        """Every grouped workload's token hashes taken again, and the sums with them."""
        self._member_hashes.clear()
        self._grouped_sums = [0, 0, 0, 0]
        for group in self._groups.values():
            group.sums = [0, 0, 0, 0]
            for workload in group.members.values():
                self._count_member(group, workload)

    def _count_member(self, group: _Equivalents, workload: WorkloadInfo) -> None:
        """A workload joined ``group`` (its hashes added to the group's sums and to those of the group's set)."""
        key = workload.key
        active_one, active_two = token_hashes(_active_token(self.name, key, workload))
        parked_one, parked_two = token_hashes(_inadmissible_token(self.name, key, workload))
        self._member_hashes[key] = (active_one, active_two, parked_one, parked_two)
        sums, totals = group.sums, self._grouped_sums
        sums[0] += active_one
        sums[1] += active_two
        sums[2] += parked_one
        sums[3] += parked_two
        if group.parked:
            totals[2] += parked_one
            totals[3] += parked_two
        else:
            totals[0] += active_one
            totals[1] += active_two

    def _uncount_member(self, group: _Equivalents, key: str) -> None:
        """A workload left ``group`` (the inverse of :meth:`_count_member`)."""
        active_one, active_two, parked_one, parked_two = self._member_hashes.pop(key)
        sums, totals = group.sums, self._grouped_sums
        sums[0] -= active_one
        sums[1] -= active_two
        sums[2] -= parked_one
        sums[3] -= parked_two
        if group.parked:
            totals[2] -= parked_one
            totals[3] -= parked_two
        else:
            totals[0] -= active_one
            totals[1] -= active_two

    def _move_sums(self, group: _Equivalents, parked: bool) -> None:
        """The group's members move to the parked (``parked``) or the active set: their hashes go with them."""
        sums, totals = group.sums, self._grouped_sums
        into, out = (2, 0) if parked else (0, 2)
        totals[into] += sums[into]
        totals[into + 1] += sums[into + 1]
        totals[out] -= sums[out]
        totals[out + 1] -= sums[out + 1]

    def _ungroup(self) -> None:
        self._grouping = False
        if not self._groups:
            return
        for group in self._groups.values():
            for key, workload in group.members.items():
                if group.parked:
                    self._inadmissible[key] = workload
                else:
                    self._add_loose(workload)
        self._groups.clear()
        self._groups_by_shape.clear()
        self._where.clear()
        self._grouped_active = self._grouped_parked = 0
        self._rebuild_heap()

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
        """Into the heap: its active group if it has one (a later arrival of a shape a requeue event brought
        back), else on its own."""
        if self._groups:
            group = self._where.get(workload.key)
            if group is not None:
                if not group.parked:
                    return  # in the heap already
                self._leave_group(workload.key)
            if self._loose_by_shape is not None:
                group = self._groups.get((workload.shape, workload.namespace))
                if group is not None and not group.parked:
                    self._join_group(group, workload)
                    return
        self._add_loose(workload)

    def _add_loose(self, workload: WorkloadInfo) -> None:
        key = workload.key
        self._active[key] = workload
        heapq.heappush(self._heap, (self.order_key(workload), next(self._counter), key))
        if self._loose_by_shape is not None:
            self._loose_by_shape.setdefault(workload.shape, {})[key] = None

    def _drop_loose(self, key: str) -> WorkloadInfo | None:
        workload = self._active.pop(key, None)
        if workload is not None and self._loose_by_shape is not None:
            keys = self._loose_by_shape.get(workload.shape)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._loose_by_shape[workload.shape]
        return workload

    def pop(self) -> WorkloadInfo | None:
        """CYC-3: the head of the heap (every pop counts, even on an empty heap)."""
        self.pop_cycle += 1
        if not self._active and not self._grouped_active:
            return None
        if self.afs_score is not None:
            head = min(self.active.values(), key=self._full_key)
        elif self.sticky and self.preemptor is not None and self.preemptor in self.active:
            head = self.active[self.preemptor]
        else:
            head = self._pop_heap()
        if self._drop_loose(head.key) is None:
            self._leave_group(head.key)
        return head

    def _pop_heap(self) -> WorkloadInfo:
        self._pay_marker()
        while True:
            order, _, item = heapq.heappop(self._heap)
            if isinstance(item, str):
                workload = self._active.get(item)
                if workload is not None:  # otherwise a stale entry of a workload that left or was re-pushed
                    return workload
                continue
            group, version = item
            if group.parked or version != group.version:
                continue  # the group was parked, or has a newer marker
            top = group.top()
            if top is None:
                continue
            if top[0] != order:  # its first workload left since the marker was pushed: the marker moves down
                self._push_marker(group, top[0])
                continue
            return top[1]

    def _pay_marker(self) -> None:
        """The owed marker of a group still active (see ``_owed_marker``), at its first workload's place."""
        group = self._owed_marker
        if group is None:
            return
        self._owed_marker = None
        if group.parked or not group.members:
            return
        top = group.top()
        if top is not None:
            self._push_marker(group, top[0])

    def _push_marker(self, group: _Equivalents, order: tuple[object, ...]) -> None:
        group.version += 1
        heapq.heappush(self._heap, (order, next(self._counter), (group, group.version)))

    def _compact(self) -> None:
        # Lazy deletion leaves stale heap entries; rebuild when they dominate.
        if len(self._heap) > 2 * (len(self._active) + len(self._groups)) + 64:
            self._rebuild_heap()

    def _rebuild_heap(self) -> None:
        self._owed_marker = None  # every active group gets its marker here
        self._heap = [(self.order_key(w), next(self._counter), k) for k, w in self._active.items()]
        for group in self._groups.values():
            top = group.top()
            if not group.parked and top is not None:
                group.version += 1
                self._heap.append((top[0], next(self._counter), (group, group.version)))
        heapq.heapify(self._heap)

    # --- groups of equivalent workloads ----------------------------------------------------------------

    def _group(self, workload: WorkloadInfo) -> _Equivalents:
        """The group of the workload's shape and namespace (a new group starts parked)."""
        shape_key = (workload.shape, workload.namespace)
        group = self._groups.get(shape_key)
        if group is None:
            group = self._groups[shape_key] = _Equivalents(*shape_key)
            self._groups_by_shape.setdefault(workload.shape, []).append(group)
        return group

    def _join_group(self, group: _Equivalents, workload: WorkloadInfo) -> None:
        key = workload.key
        order = self.order_key(workload)
        top = group.top() if not group.parked else None
        group.members[key] = workload
        heapq.heappush(group.heap, (order, key))
        self._where[key] = group
        if self._tracked:
            self._count_member(group, workload)
        if group.parked:
            self._grouped_parked += 1
            return
        self._grouped_active += 1
        if top is None or order < top[0]:
            self._push_marker(group, order)  # the group's place in the heap moves up

    def _leave_group(self, key: str) -> WorkloadInfo | None:
        group = self._where.pop(key, None)
        if group is None:
            return None
        workload = group.members.pop(key)
        if self._tracked:
            self._uncount_member(group, key)
        if group.parked:
            self._grouped_parked -= 1
        else:
            self._grouped_active -= 1
            group.top()  # (drops the entry of the workload that left, at the top of its group's heap)
            # the group keeps its place in the heap (after its new first), once the heap is read again
            if self._owed_marker is not group:
                self._pay_marker()
                self._owed_marker = group
        if not group.members:
            del self._groups[(group.shape, group.namespace)]
            siblings = self._groups_by_shape[group.shape]
            siblings.remove(group)
            if not siblings:
                del self._groups_by_shape[group.shape]
            group.version += 1  # its marker, if any, is stale
        return workload

    def _park(self, workload: WorkloadInfo) -> None:
        """Into the inadmissible set with its (parked) group."""
        group = self._group(workload)
        if not group.parked:  # a head requeued with its equivalents still active: the bulk move that follows
            self._set_parked(group, True)  # parks them anyway
        self._join_group(group, workload)

    def _set_parked(self, group: _Equivalents, parked: bool) -> None:
        count = len(group.members)
        if self._tracked and group.parked != parked:
            self._move_sums(group, parked)
        group.parked = parked
        if parked:
            self._grouped_active -= count
            self._grouped_parked += count
            group.version += 1
            return
        self._grouped_parked -= count
        self._grouped_active += count
        top = group.top()
        if top is not None:
            self._push_marker(group, top[0])

    # --- adding and requeueing -------------------------------------------------------------------------

    def _remove_inadmissible(self, key: str) -> None:
        if self._inadmissible.pop(key, None) is None:
            group = self._where.get(key)
            if group is not None and group.parked:
                self._leave_group(key)

    def push(self, workload: WorkloadInfo, backoff_expired: bool = True) -> None:
        """A new or released workload joins the queue (Kueue's PushOrUpdate)."""
        key = workload.key
        self._remove_inadmissible(key)
        active = key in self.active
        if not active and not backoff_expired:
            self._inadmissible[key] = workload
            return
        # (the shape is only worked out once some shape was bulk-moved: it costs the pod-set requests)
        if (self.strategy == BEST_EFFORT_FIFO and self.bulk_moved_shapes and not active
                and workload.shape in self.bulk_moved_shapes):
            if self._grouping:
                self._park(workload)
            else:
                self._inadmissible[key] = workload
            return
        if key in self._active:
            self._add_loose(workload)  # as Kueue's heap update: the same place (its order key is the same)
        elif not active:
            self._push_active(workload)
        elif self._tracked:  # in an active group: its token taken again, as a plain set takes it when it is set
            group = self._where[key]
            self._uncount_member(group, key)
            group.members[key] = workload
            self._count_member(group, workload)

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
            self._remove_inadmissible(key)
            if key not in self.active:
                self._push_active(workload)
            return
        if key in self._active or key in self._inadmissible or key in self._where:  # in either set already
            return
        bulk = self.equivalence_hashing and reason in (NO_FIT, PREEMPTION_NO_CANDIDATES)
        if bulk and self._grouping:
            self._park(workload)
        else:
            self._inadmissible[key] = workload
        if bulk:
            self._bulk_move(workload.shape)

    def _bulk_move(self, shape: str) -> None:
        """CYC-12: equivalent workloads follow a BestEffortFIFO head into the inadmissible set."""
        if self.strategy != BEST_EFFORT_FIFO:
            return
        self.bulk_moved_shapes.add(shape)
        if self._loose_by_shape is None:  # from now on, loose workloads are kept by shape
            self._loose_by_shape = {}
            for key, workload in self._active.items():
                self._loose_by_shape.setdefault(workload.shape, {})[key] = None
        if not self._grouping:
            # Plain sets (states are compared): the shape's workloads move one by one, in the heap's set order, found
            # without asking every active workload for its shape (50 a queue, at every bulk move of a run).
            for key in self._loose_by_shape.pop(shape, {}):
                self._inadmissible[key] = self._active.pop(key)
            self._compact()
            return
        for group in self._groups_by_shape.get(shape, ()):
            if not group.parked:
                self._set_parked(group, True)
        for key in self._loose_by_shape.pop(shape, ()):
            workload = self._active.pop(key)
            self._park(workload)
        self._compact()

    def requeue_event(self) -> bool:
        """What :meth:`queue_inadmissible` does before it moves anything (the event is remembered, bulk-moved shapes
        are forgotten); True when there are inadmissible workloads for it to move. A replay's requeue event asks it of
        every ClusterQueue of its tree, thousands of times, and most have nothing to move."""
        self.queue_inadmissible_cycle = self.pop_cycle
        if self.bulk_moved_shapes:
            self.bulk_moved_shapes.clear()
        return self.has_inadmissible()

    def queue_inadmissible(self, namespace_matches: Callable[[WorkloadInfo], bool]) -> int:
        """CYC-14: a requeue event moves inadmissible workloads (namespace still matching) back."""
        self.requeue_event()
        moved = 0
        for key, workload in sorted(self._inadmissible.items()):
            if not namespace_matches(workload):
                continue
            del self._inadmissible[key]
            self._push_active(workload)
            moved += 1
        for group in list(self._groups.values()):
            if group.parked and namespace_matches(next(iter(group.members.values()))):
                moved += len(group.members)
                self._set_parked(group, False)
        return moved

    def forget_preemptor(self, key: str) -> None:
        """A preemptor that got in (or left) is no longer sticky."""
        if self.preemptor == key:
            self.preemptor, self.sticky = None, False

    def __len__(self) -> int:
        return len(self._active) + len(self._inadmissible) + self._grouped_active + self._grouped_parked


def pop_heads(queues: list[tuple[str, PendingQueue]]) -> list[tuple[WorkloadInfo, str]]:
    """CYC-3: each queue's head, with its ClusterQueue's name, in the order given (every queue counts the pop, as
    :meth:`PendingQueue.pop` does). Most queues of a busy replay have nothing active in most cycles: those only
    count it here."""
    heads: list[tuple[WorkloadInfo, str]] = []
    for name, queue in queues:
        if not queue._active and not queue._grouped_active:
            queue.pop_cycle += 1
            continue
        head = queue.pop()
        if head is not None:
            heads.append((head, name))
    return heads


def _active_token(name: str, key: str, workload: WorkloadInfo) -> object:
    # An active workload's flavor-scan progress (FA-4) is part of the state: it decides the next attempt. (Most have
    # none: memory_key's None without the call.)
    return name, "active", key, None if workload.scan_memory is None else memory_key(workload)


def _inadmissible_token(name: str, key: str, workload: WorkloadInfo) -> object:
    return name, "inadmissible", key


def memory_key(workload: WorkloadInfo) -> object:
    """The workload's flavor-scan memory (FA-4) as a hashable value (None: it has none)."""
    memory = workload.scan_memory
    return None if memory is None else tuple(tuple(sorted(t.items())) for t in memory.last_tried)
