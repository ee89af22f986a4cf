"""One Kueue scheduling cycle (rule set CYC): heads, nomination, ordering, admission or preemption.

The cycle mutates the quota cache (admissions hold quota; preemptors and reservations hold it
only until the cycle ends) and the queues (requeueing), and reports what happened per head.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from kqctl.k8s.pods import LimitRangeSummary, aggregate, limit_range_violations, requests_above_limits
from kqctl.k8s.selectors import namespace_labels, selector_matches
from kqctl.kueue.api.models import FlavorResource
from kqctl.kueue.engine.admission_fair_sharing import UsageLedger
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.entry import (
    ASSUMED,
    MISCONFIGURED,
    NOMINATED,
    NOT_NOMINATED,
    PENDING_EVALUATION,
    PREEMPTION_GATED_STATUS,
    SKIPPED,
    SUSPENDED,
    WAITING_FOR_PREEMPTED,
    WAITING_FOR_QUOTA,
    CycleResult,
    Entry,
    Eviction,
)
from kqctl.kueue.engine.fair_sharing_tournament import tournament
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.flavors import tas_assigner
from kqctl.kueue.engine.flavors.assigner import FlavorAssigner, QuotaReads
from kqctl.kueue.engine.flavors.assignment import (
    DEFERRED_FIT,
    FIT,
    NO_FIT,
    PREEMPT,
    Assignment,
    Oracle,
    total_requests_for,
)
from kqctl.kueue.engine.flavors.assignment_memo import (
    NO_VICTIMS,
    AssignmentMemo,
    Read,
    RecordingCache,
    recording_oracle,
)
from kqctl.kueue.engine.preemption.preemptor import Preemptor
from kqctl.kueue.engine.preemption.targets import PreemptionContext, Target, preemption_message
from kqctl.kueue.engine.queues import (
    FAILED_AFTER_NOMINATION,
    GENERIC,
    NAMESPACE_MISMATCH,
    PENDING_MIGRATION,
    PENDING_PREEMPTION,
    PREEMPTION_GATED,
    PREEMPTION_NO_CANDIDATES,
    PendingQueue,
    pop_heads,
)
from kqctl.kueue.engine.queues import (
    NO_FIT as REQUEUE_NO_FIT,
)
from kqctl.kueue.engine.tas_cache import (
    FITS_NO_QUOTA,
    FITS_NO_TAS,
    FITS_OK,
    TASUsage,
    find_assignments,
    is_tas_only,
    workload_requests_tas,
)
from kqctl.kueue.engine.workloads import Admission, PodSetAdmission, ScanMemory, WorkloadInfo, variant_flavor


@dataclass(frozen=True)
class NominationFailure:
    """CYC-4, REQ-15: why a head is not nominated: its QuotaReserved=False reason and message, and how it
    is requeued."""

    reason: str
    message: str
    requeue_reason: str = GENERIC


@dataclass
class Scheduler:
    cache: QuotaCache
    queues: dict[str, PendingQueue]
    preemptor: Preemptor
    gates: FeatureGates
    fair_sharing: bool = False
    ignore_undeclared: bool = False
    cycle: int = 0
    now: datetime | None = None
    limit_ranges: dict[str, LimitRangeSummary] = field(default_factory=dict)
    # Conformance state no manifest carries: every admission's status patch fails (Kueue then
    # forgets the workload from its cache and requeues it).
    fail_admissions: bool = False
    ledger: UsageLedger | None = None  # admission fair sharing (FS-11)
    _temporary: list[tuple[ClusterQueueState, dict[FlavorResource, int], TASUsage]] = field(default_factory=list)
    _pop_order: tuple[int, list[tuple[str, PendingQueue]]] | None = field(default=None, repr=False)
    # (id of the pod sets, namespace, ClusterQueue) -> (the pod sets, _admissibility's answer)
    _admissible: dict[tuple[int, str, str], tuple[object, NominationFailure | None]] = field(default_factory=dict,
                                                                                            repr=False)
    # (ClusterQueue, namespace) -> _namespace_refusal's answer
    _namespace_refusals: dict[tuple[str, str], NominationFailure | None] = field(default_factory=dict)
    _assignment_memo: AssignmentMemo | None = field(default=None, repr=False)
    _tas_only_queues: dict[str, bool] = field(default_factory=dict, repr=False)
    _gate_answers: tuple[FeatureGates, bool, bool, bool] | None = field(default=None, repr=False)
    # (id of an admitted assignment, its ClusterQueue) -> (the assignment, its Admission there)
    _admissions: dict[tuple[int, str], tuple[Assignment, Admission]] = field(default_factory=dict, repr=False)
    # id of a kept assignment -> (the assignment, the shape, its flavors needing preemption, the preemptor's usage)
    _victim_requests: dict[int, tuple[Assignment, str, set[FlavorResource], dict[FlavorResource, int]]] = field(
        default_factory=dict, repr=False)

    @property
    def assignment_memo(self) -> AssignmentMemo:
        """Victimless assignments kept with the quota figures they read (flavors.assignment_memo)."""
        if self._assignment_memo is None:
            self._assignment_memo = AssignmentMemo(self.cache)
        return self._assignment_memo

    # --- the cycle -----------------------------------------------------------------------------------

    def run_cycle(self, now: datetime) -> CycleResult:
        self.cycle += 1
        self.now = now
        self.preemptor.now = now
        result = CycleResult(self.cycle)
        heads = self._heads()
        entries, rejected = self._nominate(heads)
        victims: dict[str, Target] = {}
        for entry in self._ordered(entries):
            self._process(entry, victims, result)
        self._release_temporary()
        for entry in [*entries, *rejected]:
            if entry.status != ASSUMED:
                self._requeue(entry)
        result.entries = [*entries, *rejected]
        return result

    def _heads(self) -> list[tuple[WorkloadInfo, str]]:
        """CYC-3: one head per ClusterQueue whose queue is active (cohort cycles still give heads)."""
        return pop_heads(self._popped_queues())

    def _popped_queues(self) -> list[tuple[str, PendingQueue]]:
        """The queues a cycle pops, by name: those of ClusterQueues that give heads (the ClusterQueues' active flags
        never change once the cache is built, so the list is made again only when the queues change)."""
        known = self._pop_order
        if known is None or known[0] != len(self.queues):
            order = []
            for name in sorted(self.queues):
                state = self.cache.cluster_queues.get(name)
                if state is not None and (state.active or state.inactive_reason == "CohortCycle"):
                    order.append((name, self.queues[name]))
            known = self._pop_order = (len(self.queues), order)
        return known[1]

    # --- nomination (CYC-4, CYC-5) --------------------------------------------------------------------

    def _nominate(self, heads: list[tuple[WorkloadInfo, str]]) -> tuple[list[Entry], list[Entry]]:
        entries: list[Entry] = []
        rejected: list[Entry] = []
        for workload, cq_name in heads:
            state = self.cache.cluster_queues.get(cq_name)
            entry = Entry(workload, cq_name, state)
            failure = self.nomination_failure(workload, cq_name)
            if failure is not None:
                entry.reason, entry.message = failure.reason, failure.message
                entry.requeue_reason = failure.requeue_reason
                rejected.append(entry)
                continue
            assignment, targets = self.get_assignments(workload, entry.cq)  # type: ignore[arg-type]
            self._record(entry, assignment, targets)
            entries.append(entry)
        return entries, rejected

    def nomination_failure(self, workload: WorkloadInfo, cq_name: str) -> NominationFailure | None:
        """CYC-4: what keeps a head of ``cq_name`` from flavor assignment (None: it is nominated)."""
        checks = workload.model.admission_check_states
        if checks and any(c.state in ("Retry", "Rejected") for c in checks):
            return NominationFailure(PENDING_EVALUATION, "The workload has failed admission checks")
        cq = self.cache.cluster_queues.get(cq_name)
        if cq is not None and not cq.active:
            return NominationFailure(SUSPENDED, f"ClusterQueue {cq_name} is inactive")
        if cq is None:
            return NominationFailure(MISCONFIGURED, f"ClusterQueue {cq_name} not found")
        # The snapshot (namespaces, LimitRanges) and the workload's requests do not change during a run, and REQ-15
        # reads nothing of the workload but its namespace and its pod sets' requests and limits: a head tried again
        # after every requeue event, and every workload written alike (they share one tuple of pod sets,
        # WorkloadMemo), gets the answer worked out the first time.
        pod_sets = workload.pod_sets
        key = (id(pod_sets), workload.namespace, cq_name)
        known = self._admissible.get(key)
        if known is not None and known[0] is pod_sets:
            return known[1]
        failure = self._admissibility(workload, cq)
        self._admissible[key] = (pod_sets, failure)
        return failure

    def _admissibility(self, workload: WorkloadInfo, cq: ClusterQueueState) -> NominationFailure | None:
        """REQ-15: namespace, namespaceSelector, requests within limits, LimitRange bounds."""
        namespace = workload.namespace
        memo_key = (cq.name, namespace)
        if memo_key not in self._namespace_refusals:
            self._namespace_refusals[memo_key] = self._namespace_refusal(namespace, cq)
        refused = self._namespace_refusals[memo_key]
        if refused is not None:
            return refused
        errors: list[str] = []
        for pod_set in workload.pod_sets:
            errors.extend(requests_above_limits(pod_set.resources, f"spec.podSets[{pod_set.index}].template.spec"))
        if errors:
            return NominationFailure(MISCONFIGURED, f"resources validation failed: {aggregate(errors)}")
        summary = self.limit_ranges.get(namespace)
        if summary is not None:
            for pod_set in workload.pod_sets:
                errors.extend(limit_range_violations(pod_set.resources, summary,
                                                     f"spec.podSets[{pod_set.index}].template.spec"))
        if errors:
            return NominationFailure(MISCONFIGURED,
                                     f"resources didn't satisfy LimitRange constraints: {aggregate(errors)}")
        return None

    def _namespace_refusal(self, namespace: str, cq: ClusterQueueState) -> NominationFailure | None:
        """REQ-15: the namespace exists and the ClusterQueue's namespaceSelector admits it (the same for every
        workload of the namespace, and fixed for a run: asked once per ClusterQueue and namespace)."""
        snapshot = self.cache.snapshot
        labels: dict[str, str] = {}
        if snapshot.namespaces is not None:
            found = snapshot.namespaces.get(namespace)
            if found is None:
                message = f'workload namespace "{namespace}" does not exist: namespaces "{namespace}" not found'
                return NominationFailure(MISCONFIGURED, message)
            labels = dict(found.labels)
        if not selector_matches(cq.model.namespace_selector, namespace_labels(namespace, labels)):
            return NominationFailure(MISCONFIGURED, "workload namespace doesn't match ClusterQueue selector",
                                     NAMESPACE_MISMATCH)
        return None

    def get_assignments(self, workload: WorkloadInfo, cq: ClusterQueueState,
                        nomination: dict[str, dict[str, str]] | None = None) -> tuple[Assignment, list[Target]]:
        """CYC-5: full assignment; its victims; else the partial-admission reducer (REQ-14); then TAS-6."""
        if workload.scan_memory is not None and self.memory_outdated(workload.scan_memory, workload, cq):
            workload.scan_memory = None
        memory = workload.scan_memory
        assignment, targets = self._initial_assignments(workload, cq, nomination)
        assignment.from_first_flavors = nomination is None and (memory is None or not memory.has_pending_flavors())
        if self._topology_aware:
            self._update_assignment_for_tas(workload, cq, assignment, targets)
        return assignment, targets

    @property
    def _topology_aware(self) -> bool:
        return self.gates.enabled("TopologyAwareScheduling")

    def _update_assignment_for_tas(self, workload: WorkloadInfo, cq: ClusterQueueState, assignment: Assignment,
                                   targets: list[Target]) -> None:
        """TAS-6 scheduler.updateAssignmentForTAS: a Preempt assignment reserves a placement.

        With victims, the placement assumes they are gone; without any, it assumes an empty cluster.
        """
        # (both memoized: asked first, the representative mode is worked out only when TAS is in play)
        if not self._places_topology(workload, cq):
            return
        if assignment.representative_mode() != PREEMPT:
            return
        checks = {name: check.controller_name for name, check in self.cache.snapshot.admission_checks.items()}
        requests = tas_assigner.workload_requests(self.cache.tas, cq.model, self.cache.flavors, workload, assignment,
                                                  checks)
        gone = [t.workload for t in targets]
        for victim in gone:
            self.cache.remove_workload(victim)
        try:
            results = find_assignments(self.cache.tas, requests, simulate_empty=not gone)
        finally:
            for victim in gone:
                self.cache.add_workload(victim)
        tas_assigner.update_for_result(self.cache.tas, assignment, workload, results)

    def _initial_assignments(self, workload: WorkloadInfo, cq: ClusterQueueState,
                             nomination: dict[str, dict[str, str]] | None) -> tuple[Assignment, list[Target]]:
        """scheduler.getInitialAssignments (the cache does not change meanwhile: equal searches are made once)."""
        with self.preemptor.one_workload():
            return self._initial_assignments_now(workload, cq, nomination)

    def _initial_assignments_now(self, workload: WorkloadInfo, cq: ClusterQueueState,
                                 nomination: dict[str, dict[str, str]] | None) -> tuple[Assignment, list[Target]]:
        oracle = self.preemptor.oracle(workload, cq)
        if nomination is not None or not self._memo_applies(workload, cq):
            return self._assign(workload, cq, nomination, self.cache, oracle, None)
        memo = self.assignment_memo
        memory = workload.scan_memory
        key = memo.key(cq, workload.shape, memory.last_tried if memory is not None else None)
        found = memo.find(key, cq, oracle, partial(self._no_victims, workload, cq))
        if found is not None:
            return found, []
        reads: list[Read] = []
        assignment, targets = self._assign(workload, cq, None, RecordingCache(self.cache, reads),
                                           recording_oracle(oracle, reads), reads)
        if not targets:
            memo.keep(key, reads, assignment)
        return assignment, targets

    def _memo_applies(self, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        """Whether the assigner reads nothing of this head but its shape and scan memory (flavors.assignment_memo):
        not its variant's flavors (ConcurrentAdmission), nor its TAS requests or node usage (TAS-2, TAS-6), and no
        partial admission (REQ-14) tries smaller counts."""
        concurrent, topology_aware, partial_admission = self._memo_gates()
        if concurrent:
            return False
        if topology_aware and (self.cache.tas.flavors or self._places_topology(workload, cq)):
            return False
        return not (partial_admission and workload.can_be_partially_admitted())

    def _memo_gates(self) -> tuple[bool, bool, bool]:
        """ConcurrentAdmission, TopologyAwareScheduling and PartialAdmission, asked once per set of gates (every
        head asks)."""
        known = self._gate_answers
        if known is None or known[0] is not self.gates:
            known = self._gate_answers = (self.gates, self._concurrent_admission, self._topology_aware,
                                          self.gates.enabled("PartialAdmission"))
        return known[1], known[2], known[3]

    def _places_topology(self, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        """The only heads TAS-6 places: a pod set asks for a topology (TAS-2) or the ClusterQueue is TAS-only (TAS-1).
        For any other its blocks find no pod set to place and leave the assignment as it is."""
        return self._tas_only(cq) or self._requests_tas(workload)

    def _tas_only(self, cq: ClusterQueueState) -> bool:
        """TAS-1 isTASOnly (the ClusterQueues and flavors never change during a run: asked once per ClusterQueue)."""
        known = self._tas_only_queues.get(cq.name)
        if known is None:
            known = self._tas_only_queues[cq.name] = is_tas_only(cq.model, self.cache.flavors)
        return known

    @staticmethod
    def _requests_tas(workload: WorkloadInfo) -> bool:
        """TAS-2: a pod set asks for a topology (a workload model's pod sets never change: asked once per model)."""
        derived = workload.derived
        if derived.requests_tas is None:
            derived.requests_tas = workload_requests_tas(workload)
        return derived.requests_tas

    def _no_victims(self, workload: WorkloadInfo, cq: ClusterQueueState, assignment: Assignment) -> bool:
        """The assignment memo's victim check for a kept answer (PRE-2). What the search is asked (the flavors needing
        preemption, the preemptor's usage on its flavors) follows from the answer and the workload's shape (CYC-12:
        pod counts and totals), which the memo's key holds: worked out once per kept answer and shape."""
        known = self._victim_requests.get(id(assignment))
        if known is None or known[0] is not assignment or known[1] != workload.shape:
            if len(self._victim_requests) >= 4096:
                self._victim_requests.clear()
            known = self._victim_requests[id(assignment)] = (assignment, workload.shape,
                                                              assignment.flavors_needing_preemption(),
                                                              total_requests_for(workload, assignment))
        return not self.preemptor.search(PreemptionContext(workload, cq, known[2], known[3]))

    def _assign(self, workload: WorkloadInfo, cq: ClusterQueueState, nomination: dict[str, dict[str, str]] | None,
                cache: QuotaReads, oracle: Oracle, reads: list[Read] | None) -> tuple[Assignment, list[Target]]:
        """scheduler.getInitialAssignments on ``cache`` and ``oracle`` (the victims found noted in ``reads``)."""
        topology_aware = self._topology_aware
        assigner = FlavorAssigner(workload, cq, cache, oracle, self.fair_sharing, self.ignore_undeclared,
                                  workload.scan_memory, nomination, self.gates.enabled("ConcurrentAdmission"),
                                  topology_aware,
                                  topology_aware and self._places_topology(workload, cq))
        full = assigner.assign()
        mode = full.representative_mode()
        if mode == FIT:
            return full, []
        if mode == PREEMPT:
            targets = self.preemptor.get_targets(workload, cq, full)
            if targets:
                return full, targets
            if reads is not None:
                reads.append((NO_VICTIMS, (full,), True))
        if self.gates.enabled("PartialAdmission") and workload.can_be_partially_admitted():
            found = self._reduce(workload, cq, assigner)
            if found is not None:
                return found
        return full, []

    def _reduce(self, workload: WorkloadInfo, cq: ClusterQueueState,
                assigner: FlavorAssigner) -> tuple[Assignment, list[Target]] | None:
        """REQ-14: Go's sort.Search over shrinking counts; replicated, not improved."""
        full_counts = [ps.spec_count for ps in workload.pod_sets]
        deltas = [ps.spec_count - (ps.min_count if ps.min_count is not None else ps.spec_count)
                  for ps in workload.pod_sets]
        total = sum(deltas)
        if total == 0:
            return None
        last_good, last_result = 0, None
        lo, hi = 0, total + 1
        while lo < hi:
            mid = (lo + hi) // 2
            counts = [full - (delta * mid) // total for full, delta in zip(full_counts, deltas, strict=False)]
            result = self._probe(workload, cq, assigner, counts)
            if result is not None:
                last_good, last_result = mid, result
                hi = mid
            else:
                lo = mid + 1
        return last_result if lo == last_good else None

    def _probe(self, workload: WorkloadInfo, cq: ClusterQueueState, assigner: FlavorAssigner,
               counts: list[int]) -> tuple[Assignment, list[Target]] | None:
        assignment = assigner.assign(counts)
        mode = assignment.representative_mode()
        if mode == FIT:
            return assignment, []
        if mode == PREEMPT:
            targets = self.preemptor.get_targets(workload, cq, assignment)
            if targets:
                return assignment, targets
        return None

    def memory_outdated(self, memory: ScanMemory, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        """FA-4: a changed shape, or an old memory while the ClusterQueue's tree changed."""
        if self.gates.enabled("FlavorFungibilityPreserveScanProgress"):
            if memory.shape != workload.shape:
                return True
            if self.cycle - memory.cycle <= 1:
                return False
        return cq.generation > memory.generation

    def _record(self, entry: Entry, assignment: Assignment, targets: list[Target]) -> None:
        entry.assignment, entry.targets = assignment, targets
        entry.tree_version = self.cache.tree_version(entry.cq) if entry.cq is not None else None
        kept = assignment.kept_message
        entry.message = kept if kept is not None else assignment.message()
        assert entry.cq is not None
        entry.workload.scan_memory = ScanMemory(assignment.last_tried, self.cycle, entry.cq.generation,
                                                entry.workload.shape)

    # --- ordering (CYC-6, FS-4) -----------------------------------------------------------------------

    def _ordered(self, entries: list[Entry]) -> Iterator[Entry]:
        if self.fair_sharing:
            yield from tournament(self.cache, entries)
            return
        by_priority = self.gates.enabled("PrioritySortingWithinCohort")  # (asked once per cycle, not per entry)
        yield from sorted(entries, key=lambda entry: self._classical_key(entry, by_priority))

    @staticmethod
    def _classical_key(entry: Entry, by_priority: bool) -> tuple[object, ...]:
        assert entry.assignment is not None
        workload = entry.workload
        priority = -workload.priority if by_priority else 0
        return (entry.assignment.borrowing, priority, workload.queue_order_time, entry.cq_name,
                *workload.order_key())

    # --- processing (CYC-8) ---------------------------------------------------------------------------

    def _process(self, entry: Entry, victims: dict[str, Target], result: CycleResult) -> None:
        cq = entry.cq
        assert cq is not None and entry.assignment is not None
        if self._concurrent_admission and self._admitted_sibling(entry, more_favorable=True) is not None:
            self._skip(entry, "A more favorable variant is already admitted", PENDING_EVALUATION)
            return
        if self._without_candidates(entry):
            usage, fits, mode = entry.assignment.usage, False, PREEMPT
        else:
            usage, fits = self._update_assignment_if_needed(entry, victims)
            mode = entry.mode
        if mode == NO_FIT:
            entry.requeue_reason = REQUEUE_NO_FIT
            entry.reason = entry.assignment.no_fit_reason
            return
        if mode == PREEMPT and not entry.targets:
            entry.requeue_reason = PREEMPTION_NO_CANDIDATES
            entry.reason = WAITING_FOR_QUOTA
            if cq.model.preemption.reclaim_within_cohort != "Any":
                self._hold(cq, self._capacity_to_reserve(entry), entry.assignment.tas_usage)  # netUsage
            return
        if mode == PREEMPT and self._preemption_gated(entry):
            entry.status, entry.message = PREEMPTION_GATED_STATUS, "Workload requires preemption, but it's gated"
            entry.reason, entry.requeue_reason = "AdmissionGated", PREEMPTION_GATED
            entry.workload.scan_memory = None
            return
        if mode == DEFERRED_FIT:
            entry.message = ("Workload has overlapping preemption targets with another workload, but will fit after"
                             " these preemptions complete")
            entry.reason, entry.requeue_reason = WAITING_FOR_PREEMPTED, PENDING_PREEMPTION
            entry.workload.scan_memory = None
            self._hold(cq, usage, entry.assignment.tas_usage)
            return
        if any(t.workload.key in victims for t in entry.targets):
            self._skip(entry, "Workload has overlapping preemption targets with another workload")
            return
        if not fits:
            self._skip(entry, "Workload no longer fits after processing another workload")
            return
        for target in entry.targets:
            victims[target.workload.key] = target
        if mode == PREEMPT:
            self._hold(cq, usage, entry.assignment.tas_usage)
            self._issue_preemptions(entry, result)
            return
        if self._concurrent_admission and self._migrate_instead(entry, usage, result):
            return
        self._admit(entry, usage, result)

    @staticmethod
    def _without_candidates(entry: Entry) -> bool:
        """CYC-8.2: a preemptor without candidates, which reads neither the fit check of CYC-8.5 nor the usage it
        returns (a replay has thousands of them after each requeue, CYC-14). Without node usage (TAS-4) that check
        cannot answer FITS_NO_TAS, the one answer that would work its assignment out again (TAS-6), so it is not
        made for them."""
        assert entry.assignment is not None
        return not entry.targets and not entry.assignment.tas_usage and entry.mode == PREEMPT

    # --- ConcurrentAdmission variants (alpha gate) -------------------------------------------------------

    @property
    def _concurrent_admission(self) -> bool:
        return self.gates.enabled("ConcurrentAdmission")

    def _admitted_sibling(self, entry: Entry, more_favorable: bool) -> WorkloadInfo | None:
        """An admitted variant of the same parent on a more (or less) preferred flavor."""
        workload, cq = entry.workload, entry.cq
        parent = workload.model.parent_workload_uid
        if not parent or cq is None or not cq.model.resource_groups:
            return None
        flavors = list(cq.model.resource_groups[0].flavors)
        mine = _flavor_index(workload, flavors)
        if mine is None:
            return None
        for other in sorted(cq.workloads.values(), key=lambda w: w.key):
            if other.uid == workload.uid or other.model.parent_workload_uid != parent:
                continue
            if not other.model.is_condition_true("Admitted"):
                continue
            theirs = _flavor_index(other, flavors)
            if theirs is not None and ((mine > theirs) if more_favorable else (theirs > mine)):
                return other
        return None

    def _migrate_instead(self, entry: Entry, usage: dict[FlavorResource, int], result: CycleResult) -> bool:
        """A variant better than an admitted sibling evicts it (migration) instead of being admitted."""
        sibling = self._admitted_sibling(entry, more_favorable=False)
        if sibling is None:
            return False
        assert entry.cq is not None and entry.assignment is not None
        self._hold(entry.cq, usage, entry.assignment.tas_usage)
        last = entry.cq.model.last_acceptable_flavor
        flavors = list(entry.cq.model.resource_groups[0].flavors)
        index = _flavor_index(entry.workload, flavors)
        if last is not None and index is not None and last in flavors and index > flavors.index(last):
            entry.message, entry.reason = "Target flavor is below LastAcceptableFlavorName", PENDING_EVALUATION
            return True
        message = (f"Evicted to accommodate a workload (UID: {entry.workload.uid}) due to migration to more"
                   " favorable resource flavor")
        result.evictions.append(Eviction(sibling, entry.workload, "FlavorMigration", message))
        entry.reason, entry.requeue_reason = WAITING_FOR_PREEMPTED, PENDING_MIGRATION
        entry.workload.scan_memory = None
        entry.message += ". Pending the migration of 1 workload(s)"
        return True

    def _preemption_gated(self, entry: Entry) -> bool:
        """CYC-19: only with the gates that make Kueue honour spec.preemptionGates."""
        gated = self.gates.enabled("ConcurrentAdmission") or self.gates.enabled("MultiKueueOrchestratedPreemption")
        return gated and entry.workload.model.has_closed_preemption_gate()

    def _skip(self, entry: Entry, message: str, reason: str = WAITING_FOR_QUOTA) -> None:
        entry.status, entry.message, entry.reason = SKIPPED, message, reason
        if not self.gates.enabled("FlavorFungibilityPreserveScanProgress"):
            entry.workload.scan_memory = None

    def _update_assignment_if_needed(self, entry: Entry, victims: dict[str, Target],
                                     ) -> tuple[dict[FlavorResource, int], bool]:
        """CYC-8.0 and CYC-10: recompute when this entry's victims overlap earlier ones'."""
        assert entry.assignment is not None and entry.cq is not None
        usage = dict(entry.assignment.usage)
        overlap = any(t.workload.key in victims for t in entry.targets)
        recompute_overlap = overlap and self.gates.enabled("RecomputeAssignmentUponPreemptionTargetsOverlap")
        if not recompute_overlap:
            check = self._fits(entry.cq, usage, entry.assignment.tas_usage, victims, entry.targets)
            # TAS-6: a placement that no longer fits is recomputed, with TASRecomputeAssignmentWithinSchedulingCycle
            # only (Kueue's updateAssignmentIfNeeded); without it the nomination's placement stands, and fails.
            recompute_tas = self._topology_aware and self.gates.enabled("TASRecomputeAssignmentWithinSchedulingCycle")
            if not (check == FITS_NO_TAS and recompute_tas):
                return usage, check == FITS_OK
        others = [t.workload for t in victims.values()] if recompute_overlap else []
        for workload in others:
            self.cache.remove_workload(workload)
        entry.workload.scan_memory = None
        nomination = entry.assignment.resource_flavors()
        assignment, targets = self.get_assignments(entry.workload, entry.cq, nomination)
        self._record(entry, assignment, targets)
        for workload in others:
            self.cache.add_workload(workload)
        if recompute_overlap and assignment.representative_mode() == FIT:
            assignment.mode_override = DEFERRED_FIT
        usage = dict(assignment.usage)
        return usage, self._fits(entry.cq, usage, assignment.tas_usage, victims, targets) == FITS_OK

    def _fits(self, cq: ClusterQueueState, usage: dict[FlavorResource, int], tas_usage: TASUsage,
              victims: dict[str, Target], targets: list[Target]) -> str:
        """CYC-8.5: fits (quota, then TAS-6 nodes) once every victim of this cycle and this entry's are gone."""
        if not victims and not targets:  # (most heads of most cycles)
            return self._fits_now(cq, usage, tas_usage)
        gone = {t.workload.key: t.workload for t in [*victims.values(), *targets]}
        # When every one of them holds quota now, taking them out and back leaves the trees as they were.
        trees = [cq, *(t.cluster_queue for t in [*victims.values(), *targets])] if self._all_held(gone) else []
        with self.cache.trial(trees):
            for workload in gone.values():
                self.cache.remove_workload(workload)
            try:
                return self._fits_now(cq, usage, tas_usage)
            finally:
                for workload in gone.values():
                    self.cache.add_workload(workload)

    def _fits_now(self, cq: ClusterQueueState, usage: dict[FlavorResource, int], tas_usage: TASUsage) -> str:
        """CYC-8.5 on the cache as it is: quota first, then TAS-6 nodes."""
        available = self.cache.available
        for fr, value in usage.items():
            if available(cq, fr) < value:
                return FITS_NO_QUOTA
        return FITS_OK if self.cache.tas.fits(tas_usage) else FITS_NO_TAS

    def _all_held(self, workloads: dict[str, WorkloadInfo]) -> bool:
        """Every workload is among those holding quota in its ClusterQueue (or in none the cache knows)."""
        for workload in workloads.values():
            assert workload.admission is not None
            state = self.cache.cluster_queues.get(workload.admission.cluster_queue)
            if state is not None and workload.key not in state.workloads:
                return False
        return True

    def _capacity_to_reserve(self, entry: Entry) -> dict[FlavorResource, int]:
        """CYC-8.2: what a preemptor without candidates holds for the rest of the cycle."""
        assert entry.assignment is not None and entry.cq is not None
        cq = entry.cq
        reserved: dict[FlavorResource, int] = {}
        for fr, value in entry.assignment.usage.items():
            limits = cq.limits(fr)
            if entry.assignment.borrowing > 0:
                if limits.borrowing_limit is None:
                    reserved[fr] = value
                else:
                    reserved[fr] = min(value, limits.nominal + limits.borrowing_limit - cq.usage(fr))
            else:
                reserved[fr] = max(0, min(value, limits.nominal - cq.usage(fr)))
        return reserved

    def _hold(self, cq: ClusterQueueState, usage: dict[FlavorResource, int], tas_usage: TASUsage = ()) -> None:
        """Usage (and TAS-4 node usage) held in the cache until the end of this cycle only."""
        self.cache.add_usage(cq, usage)
        self.cache.tas.add_usage(tas_usage)
        self._temporary.append((cq, usage, tas_usage))

    def _release_temporary(self) -> None:
        for cq, usage, tas_usage in reversed(self._temporary):
            self.cache.remove_usage(cq, usage)
            self.cache.tas.remove_usage(tas_usage)
        self._temporary.clear()

    def _issue_preemptions(self, entry: Entry, result: CycleResult) -> None:
        """PRE-12: victims are asked to leave; the preemptor waits for them (CYC-13)."""
        assert entry.cq is not None
        entry.reason, entry.requeue_reason = WAITING_FOR_PREEMPTED, PENDING_PREEMPTION
        entry.message += f". Pending the preemption of {len(entry.targets)} workload(s)"
        entry.workload.scan_memory = None
        for target in entry.targets:
            message = preemption_message(self.cache, entry.workload, entry.cq, target)
            result.evictions.append(Eviction(target.workload, entry.workload, target.reason, message))

    def _admit(self, entry: Entry, usage: dict[FlavorResource, int], result: CycleResult) -> None:
        """CYC-8.8: the workload reserves quota (its usage stays in the cache)."""
        assert entry.assignment is not None and entry.cq is not None
        workload = entry.workload
        if self.fail_admissions:
            entry.status = NOMINATED  # the status patch failed: requeued as FailedAfterNomination
            self._hold(entry.cq, usage, entry.assignment.tas_usage)
            return
        self.cache.add_usage(entry.cq, usage)
        # TAS-4: its pods now hold their nodes (asked only with TAS flavors: without one no pod set has a placement,
        # and the TAS cache reads an admission's empty placements from the model when it needs them)
        if self.cache.tas.flavors:
            self.cache.tas.admit(workload, entry.assignment.tas_usage, entry.assignment.topology_assignments())
        workload.admission = self._admission_of(entry)
        workload.reservation_time = self.now
        workload.evicted = False
        workload.scan_memory = None
        entry.cq.workloads[workload.key] = workload
        if self.ledger is not None and entry.cq.model.admission_mode == "UsageBasedAdmissionFairSharing":
            self.ledger.add_penalty(workload)
        entry.status, entry.message = ASSUMED, f"Quota reserved in ClusterQueue {entry.cq_name}"
        entry.reason = "QuotaReserved"
        self.queues[entry.cq_name].forget_preemptor(workload.key)
        result.admitted.append(entry)

    def _admission_of(self, entry: Entry) -> Admission:
        """REQ-10: the Admission an entry's assignment makes. Workloads of one shape admitted through one kept
        assignment (the assignment memo answers every such head with the same object) share one Admission: it is
        frozen, and its usage is then summed once for all of them. Without TAS flavors only: a placement (TAS-6) is
        written into an assignment's pod sets after it is made."""
        assignment = entry.assignment
        assert assignment is not None
        if self.cache.tas.flavors:
            return _admission_from(entry)
        key = (id(assignment), entry.cq_name)
        known = self._admissions.get(key)
        if known is None or known[0] is not assignment:
            if len(self._admissions) >= 4096:
                self._admissions.clear()
            known = self._admissions[key] = (assignment, _admission_from(entry))
        return known[1]

    # --- requeueing (CYC-11) --------------------------------------------------------------------------

    def _requeue(self, entry: Entry) -> None:
        if entry.status != NOT_NOMINATED and entry.requeue_reason == GENERIC:
            entry.requeue_reason = FAILED_AFTER_NOMINATION
        queue = self.queues.get(entry.cq_name)
        if queue is not None:
            queue.requeue(entry.workload, entry.requeue_reason)


def _flavor_index(workload: WorkloadInfo, flavors: list[str]) -> int | None:
    flavor = variant_flavor(workload)
    return flavors.index(flavor) if flavor in flavors else None


def _admission_from(entry: Entry) -> Admission:
    assert entry.assignment is not None
    pod_sets = [PodSetAdmission(ps.name, {res: c.flavor for res, c in ps.flavors.items()},
                                {res: ps.requests.get(res, 0) for res in ps.flavors}, ps.count, ps.topology)
                for ps in entry.assignment.pod_sets]
    return Admission(entry.cq_name, tuple(pod_sets))
