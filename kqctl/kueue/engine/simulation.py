"""From one snapshot to Kueue's decisions: N cycles, or cycles until a steady state (rule set SIM).

``simulate(snapshot, options)`` is the engine's entry point: pure (no I/O), deterministic, and
it never mutates the snapshot's models (only its own per-workload state).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from functools import partial

from kqctl.k8s.pods import LimitRangeSummary, summarize_limit_ranges
from kqctl.k8s.selectors import namespace_labels, selector_matches
from kqctl.kueue.api.models import LocalQueue, Workload
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.admission_fair_sharing import UsageLedger
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.cycle import Scheduler
from kqctl.kueue.engine.entry import CycleResult
from kqctl.kueue.engine.features import FeatureGates
from kqctl.kueue.engine.fingerprint import MASK
from kqctl.kueue.engine.outcomes import WorkloadOutcome
from kqctl.kueue.engine.preemption.preemptor import Preemptor
from kqctl.kueue.engine.queues import PendingQueue
from kqctl.kueue.engine.results import (
    CYCLE_LIMIT,
    CYCLES_GIVEN,
    LIVELOCK,
    STEADY,
    CycleRecord,
    Livelock,
    SimulationResult,
    WorkloadResult,
    cycle_record,
    freeze,
    freeze_workload,
)
from kqctl.kueue.engine.verdict import verdicts
from kqctl.kueue.engine.workloads import (
    DerivedParts,
    WorkloadInfo,
    WorkloadMemo,
    build_workload_info,
    is_concurrent_admission_parent,
)

MAX_CYCLES = 200  # SIM-8: the spec's limit, kept as the floor of the scaled one (cycle_limit)
AFS_MODE = "UsageBasedAdmissionFairSharing"
DEFAULT_NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class SimulationOptions:
    cycles: int | None = None  # None: run to a steady state
    fair_sharing: bool | None = None  # None: as the Kueue Configuration in the inputs says
    gates: FeatureGates = field(default_factory=FeatureGates)
    now: datetime | None = None
    max_cycles: int | None = None  # None: scaled to the input (cycle_limit)
    fail_admissions: bool = False  # simulate a failing status patch for every admission
    # FS-11: LocalQueue usage to start from, overriding what LocalQueue statuses say.
    local_queue_usage: Mapping[str, Mapping[str, Fraction]] | None = None
    # Called after every cycle i (0-based; the last cycle too), after victims are released: for engine-API
    # callers that change state no manifest carries between cycles, e.g. a quota change in the cache only
    # (QuotaCache.update_nominal_quota) and then Simulation.requeue_inadmissible.
    between_cycles: Callable[[Simulation, int], None] | None = None
    # Told of every cycle's result as it ends (its number is result.number), with the cycle limit of the run;
    # only looks (a progress line), so unlike between_cycles it costs the run nothing.
    on_cycle: Callable[[CycleResult, int], None] | None = None
    # Pod sets and shapes shared with other simulations of the same workload models (explain's checks); None: own.
    memo: WorkloadMemo | None = field(default=None, compare=False, repr=False)


def limit_range_summaries(snapshot: Snapshot) -> dict[str, LimitRangeSummary]:
    """REQ-5: the LimitRanges of each namespace merged (only those with Container or Pod items)."""
    by_namespace: dict[str, list[object]] = {}
    for limit_range in snapshot.limit_ranges:
        items = [i for i in limit_range.items if i.get("type") in ("Container", "Pod")]
        if items:
            by_namespace.setdefault(limit_range.namespace, []).extend(items)
    return {ns: summarize_limit_ranges(items) for ns, items in by_namespace.items()}  # type: ignore[arg-type]


def cycle_limit(snapshot: Snapshot) -> int:
    """SIM-8's safety limit on a run to a steady state, scaled to the input.

    A cycle pops one head per ClusterQueue, and a head may stay on top while Kueue walks its flavors
    (FA-4), so one ClusterQueue with N pending workloads needs up to N × flavors cycles before every
    workload was tried; a preempted workload is tried again. A fixed 200 would stop a 10,000-workload
    queue long before its steady state. Termination does not rely on the limit: the state space is
    finite and SIM-7's repetition checks stop any run that cycles.
    """
    flavors = max((len(queue.flavor_quotas) for queue in snapshot.cluster_queues.values()), default=1)
    return MAX_CYCLES + 2 * len(snapshot.workloads) * max(1, flavors)


class Simulation:
    """The engine's state between cycles: cache, queues, workloads, and the clock."""

    def __init__(self, snapshot: Snapshot, options: SimulationOptions) -> None:
        options = effective_options(options, snapshot)
        self.snapshot = snapshot
        self.options = options
        self.fair_sharing = snapshot.config.fair_sharing if options.fair_sharing is None else options.fair_sharing
        self.start = options.now or snapshot.now or DEFAULT_NOW
        self.cache = QuotaCache(snapshot, topology_aware=options.gates.enabled("TopologyAwareScheduling"))
        self.limits = limit_range_summaries(snapshot)
        self.queues = {name: PendingQueue(name, state.model.queueing_strategy,
                                               equivalence_hashing=options.gates.enabled("SchedulingEquivalenceHashing"))
                       for name, state in sorted(self.cache.cluster_queues.items())}
        self.outcomes: dict[str, WorkloadOutcome] = {}
        self._namespace_memo: dict[tuple[str, str], bool] = {}  # (namespace, ClusterQueue) -> _selects
        # Workloads written alike share their pod-set arithmetic and shape (50,000 come in a few kinds).
        self._memo = options.memo if options.memo is not None else WorkloadMemo()
        # What each cycle did, as the report shows it: its admissions and evictions by key. Not the cycles' entries:
        # a cycle of 500 heads holds their assignments (megabytes), and a run keeps its history to the end.
        self.history: list[CycleRecord] = []
        self.stop_reason = STEADY
        self.max_cycles = options.max_cycles if options.max_cycles is not None else cycle_limit(snapshot)
        self.livelock: Livelock | None = None
        self.ledger = self._usage_ledger(snapshot, options)
        self.preemptor = Preemptor(self.cache, self.start, self.fair_sharing, snapshot.config.preemption_strategies,
                                   gates_within_nominal=options.gates.enabled("FairSharingPreemptWithinNominal"),
                                   topology_aware=options.gates.enabled("TopologyAwareScheduling"))
        if self.ledger is not None:
            self.preemptor.lq_score = self._afs_score
        self.scheduler = Scheduler(self.cache, self.queues, self.preemptor, options.gates, self.fair_sharing,
                                   ignore_undeclared=snapshot.config.quota_check_strategy == "IgnoreUndeclared"
                                   and options.gates.enabled("QuotaCheckStrategy"),
                                   limit_ranges=self.limits, fail_admissions=options.fail_admissions,
                                   ledger=self.ledger)
        self._load_workloads()

    def _afs_score(self, workload: WorkloadInfo) -> float | None:
        """PRE-7.3: LocalQueue usage, for candidates of ClusterQueues using admission fair sharing."""
        if self.ledger is None or workload.admission is None:
            return None
        state = self.cache.cluster_queues.get(workload.admission.cluster_queue)
        if state is None or state.model.admission_mode != AFS_MODE:
            return None
        return self.ledger.workload_score(workload)

    def _usage_ledger(self, snapshot: Snapshot, options: SimulationOptions) -> UsageLedger | None:
        """FS-11 applies to ClusterQueues in UsageBasedAdmissionFairSharing mode when Kueue enables it."""
        config = snapshot.config.admission_fair_sharing
        if config is None or not options.gates.enabled("AdmissionFairSharing"):
            return None
        ledger = UsageLedger.from_snapshot(snapshot, config, options.local_queue_usage)
        for name, queue in self.queues.items():
            if self.cache.cluster_queues[name].model.admission_mode == AFS_MODE:
                queue.afs_score = ledger.workload_score
        return ledger

    # --- set-up (SIM-1) ------------------------------------------------------------------------------

    def _load_workloads(self) -> None:
        # What is the same for every workload is read once (the gates, the memo's inputs): explain sets up a run of
        # 50,000 workloads and one of a quota tree's 5,000 per check.
        snapshot, limits, reclaimable = self.snapshot, self.limits, self.reclaimable_pods
        config, limit_ranges, local_queues, parts = snapshot.config, snapshot.limit_ranges, snapshot.local_queues, \
            self._memo.parts
        concurrent = self.options.gates.enabled("ConcurrentAdmission")
        for model in sorted(snapshot.workloads, key=lambda w: (w.namespace, w.name)):
            if model.is_condition_true("Finished"):
                continue  # finished workloads hold no quota and wait for nothing
            info = build_workload_info(model, limits.get(model.namespace), config,
                                       parts(model, limit_ranges, config, reclaimable), reclaimable)
            lq_key = f"{model.namespace}/{model.queue_name}"
            local_queue = local_queues.get(lq_key)
            outcome = WorkloadOutcome(info, None, lq_key if model.queue_name else None)
            self.outcomes[info.key] = outcome
            if info.admission is not None:
                outcome.cluster_queue = info.admission.cluster_queue
                self.cache.add_workload(info)
                continue
            if not model.active:
                outcome.queue_reason, outcome.queue_message = "Inactive", "The workload is deactivated"
                continue
            self._enqueue_new(info, outcome, local_queue, concurrent)

    def derived_parts(self, model: Workload) -> DerivedParts:
        """The pod-set arithmetic and shape of ``model``, shared with the workloads written alike (WorkloadMemo)."""
        return self._memo.parts(model, self.snapshot.limit_ranges, self.snapshot.config, self.reclaimable_pods)

    @property
    def reclaimable_pods(self) -> bool:
        """REQ-9: whether reclaimable pods are left out of a workload's counts (the ReclaimablePods gate)."""
        return self.options.gates.enabled("ReclaimablePods")

    def _enqueue_new(self, info: WorkloadInfo, outcome: WorkloadOutcome, local_queue: object,
                     concurrent: bool) -> None:
        """``concurrent``: the ConcurrentAdmission gate (read once by the caller)."""
        model = info.model
        if not isinstance(local_queue, LocalQueue):
            outcome.queue_reason = "Misconfigured"
            outcome.queue_message = f"LocalQueue {model.queue_name} doesn't exist"
            return
        if local_queue.stop_policy != "None":
            outcome.queue_reason, outcome.queue_message = "Suspended", f"LocalQueue {model.queue_name} is stopped"
            return
        outcome.cluster_queue = local_queue.cluster_queue
        queue = self.queues.get(local_queue.cluster_queue)
        if queue is None:
            outcome.queue_reason = "Misconfigured"
            outcome.queue_message = f"ClusterQueue {local_queue.cluster_queue} doesn't exist"
            return
        info.cluster_queue = local_queue.cluster_queue
        if concurrent and is_concurrent_admission_parent(info):
            outcome.queue_reason = "ConcurrentAdmissionParent"
            outcome.queue_message = "a ConcurrentAdmission parent is never queued; its variants are"
            return
        queue.push(info, backoff_expired=self._backoff_expired(info, self.start))

    def _backoff_expired(self, info: WorkloadInfo, now: datetime) -> bool:
        """CYC-17: a workload evicted with backoff waits in the inadmissible set until requeueAt."""
        state = info.model.requeue_state
        return state is None or state.requeue_at is None or state.requeue_at <= now

    # --- the loop (SIM-2..SIM-8) ---------------------------------------------------------------------

    def run(self) -> SimulationResult:
        """Run the cycles (:meth:`run_cycles`) and return the end state as frozen values."""
        self.run_cycles()
        return self.result()

    def result(self) -> SimulationResult:
        """The state after the cycles run so far, frozen (results.py)."""
        warnings = list(self.snapshot.warnings)
        if self.stop_reason == CYCLE_LIMIT:
            warnings.append(self.limit_warning())
        answers = verdicts(self, self.outcomes)
        return freeze(self.cache, self.queues, self.outcomes, self.history, self.stop_reason, self.fair_sharing,
                      self.livelock, warnings, answers)

    def workload_result(self, key: str) -> WorkloadResult:
        """``result().workloads[key]`` without freezing every other workload (the same verdict and arithmetic)."""
        verdict = verdicts(self, [key]).get(key)
        return freeze_workload(self.cache, self.queues, self.outcomes, key, verdict)

    def compares_times(self) -> bool:
        """Whether some preemption policy compares workloads' queue-order times (PRE-3 LowerOrNewerEqualPriority)."""
        return any("LowerOrNewerEqualPriority" in (p.within_cluster_queue, p.reclaim_within_cohort)
                   for p in (state.model.preemption for state in self.cache.cluster_queues.values()))

    def next_cycle_time(self) -> datetime:
        """The clock of the cycle that would run next (cycle i runs at the start plus i seconds)."""
        return self.start + timedelta(seconds=len(self.history))

    def limit_warning(self) -> str:
        """What a run stopped by the cycle limit must say: its end is not the steady state."""
        queued = sum(len(queue.active) for queue in self.queues.values())
        return (f"the simulation stopped at its limit of {len(self.history):,} cycles before reaching a "
                f"steady state ({queued:,} workload(s) still queued to be tried): what it shows is not the steady "
                "state; --cycles N runs more cycles")

    def run_cycles(self, until: Callable[[CycleResult], bool] | None = None) -> None:
        """Exactly ``options.cycles`` cycles, or cycles until a steady state, a livelock or the cycle limit.

        ``until``, asked after every cycle (once its victims are released), stops the run early when it says
        so: for a caller that needs one answer that is known before the end (settled.py), not the end state.
        """
        results = self.history
        # SIM-7, SIM-8: states are compared by fingerprint (_state), kept up to date by the queues as workloads
        # come and go, so that a cycle costs no work in proportion to the workloads that it does not touch.
        seen_quiet: set[tuple[int, ...]] = set()
        # States after a change, by fingerprint and the workloads holding quota: a long run of admissions and
        # preemptions changes the state every cycle, and each one stays remembered.
        seen_full: dict[tuple[object, ...], int] = {}
        confirming: tuple[int, object] | None = None  # a repeat of the fingerprint: its cycle and _whole_state
        quiet_inadmissible = -1
        if self.options.cycles is None:  # states are compared: the queues keep their fingerprints from here on
            self._track_fingerprints()  # (again: scan memory may have changed since the last run, explain, API)
        limit = self.options.cycles if self.options.cycles is not None else self.max_cycles
        while True:
            if len(results) >= limit:
                self.stop_reason = CYCLES_GIVEN if self.options.cycles is not None else CYCLE_LIMIT
                return
            if self.options.cycles is None and not self._anything_to_pop():
                return
            now = self.start + timedelta(seconds=len(results))
            result = self.scheduler.run_cycle(now)
            results.append(cycle_record(result))
            self._record(result)
            if self.options.on_cycle is not None:
                self.options.on_cycle(result, limit)
            last = self.options.cycles is not None and len(results) >= self.options.cycles
            changed = bool(result.admitted) or bool(result.evictions)
            if not last:
                changed = self._release(result, now) or changed
            if self.options.between_cycles is not None:
                self.options.between_cycles(self, len(results) - 1)
            if until is not None and until(result):
                return
            if self.options.cycles is not None:
                continue
            if self.options.between_cycles is not None:
                self._track_fingerprints()  # the caller may have changed anything, scan memory included
            state = self._state()
            if changed:
                seen_quiet.clear()
                holdings = self._holdings()
                full = (state, hash(holdings), len(holdings))
                if full in seen_full:
                    # SIM-8: the fingerprint repeats; a livelock only if everything Kueue's cycles read repeats too,
                    # one period on (the fingerprint leaves out what is costly to keep: _whole_state).
                    earlier = seen_full[full]
                    if confirming is not None and confirming[0] == earlier:
                        if confirming[1] == self._whole_state():
                            self.livelock = self._livelock(earlier, len(results), results)
                            self.stop_reason = LIVELOCK
                            return
                        confirming = None
                    if confirming is None:
                        confirming = (len(results), self._whole_state())
                seen_full[full] = len(results)
                continue
            if state in seen_quiet:
                return
            inadmissible = state[1]
            if inadmissible > quiet_inadmissible:
                # Without admissions, releases or requeue events the inadmissible sets only grow: a state
                # with fewer inadmissible workloads never comes back, so it need not be remembered (this
                # keeps a 10,000-workload run from holding 10,000 states).
                seen_quiet.clear()
            quiet_inadmissible = inadmissible
            seen_quiet.add(state)

    def _track_fingerprints(self) -> None:
        for queue in self.queues.values():
            queue.track_fingerprint()

    def _anything_to_pop(self) -> bool:
        """SIM-2: some ClusterQueue that gives heads has a non-empty active heap."""
        for name, queue in self.queues.items():
            state = self.cache.cluster_queues[name]
            if queue.active and (state.active or state.inactive_reason == "CohortCycle"):
                return True
        return False

    def _record(self, result: CycleResult) -> None:
        for entry in result.entries:
            self.outcomes[entry.workload.key].last_entry = entry
        for entry in result.admitted:
            self.outcomes[entry.workload.key].admitted_in = result.number
            self.outcomes[entry.workload.key].cluster_queue = entry.cq_name
        for eviction in result.evictions:
            outcome = self.outcomes[eviction.victim.key]
            # The latest preemption: in a livelock a workload is preempted, readmitted and preempted again.
            outcome.preempted_in = result.number
            outcome.preempted_by = eviction.preemptor.key
            outcome.preemption_reason = eviction.reason
            outcome.preemption_message = eviction.message
            self.outcomes[eviction.preemptor.key].victims.append(eviction.victim.key)

    def _release(self, result: CycleResult, now: datetime) -> bool:
        """SIM-5, SIM-6: victims release their quota at once and go back to their queue."""
        roots: dict[str, ClusterQueueState] = {}
        for eviction in result.evictions:
            victim = eviction.victim
            if victim.admission is None:
                continue
            state = self.cache.cluster_queues.get(victim.admission.cluster_queue)
            self.cache.remove_workload(victim)
            victim.admission = None
            victim.evicted = True
            victim.reservation_time = None
            victim.scan_memory = None
            if state is not None:
                state.generation += 1
                roots[self.cache.root_of(state).name] = state
            self._requeue_victim(victim)
        moved = 0
        for state in roots.values():
            moved += self._requeue_event(state)
        return bool(result.evictions) or moved > 0

    def _requeue_victim(self, victim: WorkloadInfo) -> None:
        local_queue = self.snapshot.local_queues.get(f"{victim.namespace}/{victim.model.queue_name}")
        if local_queue is None or local_queue.stop_policy != "None":
            return
        queue = self.queues.get(local_queue.cluster_queue)
        if queue is not None:
            victim.cluster_queue = local_queue.cluster_queue
            queue.push(victim)

    def requeue_inadmissible(self) -> int:
        """Every ClusterQueue's inadmissible workloads move back to its heap (as the requeuer would)."""
        moved = 0
        for name, queue in sorted(self.queues.items()):
            moved += queue.queue_inadmissible(partial(self._namespace_matches, cq=self.cache.cluster_queues[name]))
        return moved

    def _requeue_event(self, state: ClusterQueueState) -> int:
        """CYC-14: inadmissible workloads of the whole cohort tree move back to their heaps."""
        root = self.cache.root_of(state)
        names = [state.name] if not root.is_cohort else [q.name for q in self._tree_queues(root)]
        moved = 0
        for name in names:
            queue = self.queues.get(name)
            if queue is not None:
                moved += queue.queue_inadmissible(partial(self._namespace_matches, cq=self.cache.cluster_queues[name]))
        return moved

    def _tree_queues(self, root: object) -> list[ClusterQueueState]:
        from kqctl.kueue.engine.quota import QuotaNode

        assert isinstance(root, QuotaNode)
        result: list[ClusterQueueState] = []
        stack = [root]
        while stack:
            node = stack.pop()
            for child in node.children:
                if child.is_cohort:
                    stack.append(child)
                else:
                    result.append(self.cache.cluster_queues[child.name])
        return sorted(result, key=lambda s: s.name)

    def _namespace_matches(self, workload: WorkloadInfo, cq: ClusterQueueState) -> bool:
        """CYC-14: only workloads whose namespace the ClusterQueue selects move back (the same answer for every
        workload of a namespace, and fixed for a run: asked once per namespace and ClusterQueue)."""
        key = (workload.namespace, cq.name)
        found = self._namespace_memo.get(key)
        if found is None:
            found = self._namespace_memo[key] = self._selects(workload.namespace, cq)
        return found

    def _selects(self, namespace: str, cq: ClusterQueueState) -> bool:
        namespaces = self.snapshot.namespaces
        if namespaces is not None and namespace not in namespaces:
            return False
        labels = dict(namespaces[namespace].labels) if namespaces is not None else {}
        return selector_matches(cq.model.namespace_selector, namespace_labels(namespace, labels))

    # --- steady-state detection (SIM-7, SIM-8) ------------------------------------------------------

    def _state(self) -> tuple[int, int, int, int]:
        """SIM-7's state, as a fingerprint: each queue's active and inadmissible sets and the flavor-scan
        progress (FA-4) of its active workloads.

        (active workloads, inadmissible workloads, and two 64-bit hash sums over both): the queues keep their
        parts up to date (queues.py, fingerprint.py), so this costs one addition per ClusterQueue. Each item is
        tagged with its queue's name and set, so equal sums stand for equal sets in every queue.
        """
        active = inadmissible = first = second = 0
        for queue in self.queues.values():
            (count_a, first_a, second_a), (count_i, first_i, second_i) = queue.fingerprint
            active += count_a
            inadmissible += count_i
            first += first_a + first_i
            second += second_a + second_i
        return active, inadmissible, first & MASK, second & MASK

    def _whole_state(self) -> object:
        """Everything the next cycles read that the fingerprint leaves out (SIM-8): the holders in the order of their
        reservation (preemption tries the most recently reserved first, PRE-7) with their admissions, each queue's
        sticky preemptor (CYC-13) and bulk-moved shapes (CYC-12), and whether a requeue event came after its last pop
        (CYC-11). Asked only when the fingerprint repeats. Admission fair sharing's usage decays with time: with it
        no state repeats (None is never equal to an earlier None here: a fresh object each time)."""
        if self.ledger is not None:
            return object()
        holders = sorted(((w.reservation_time.timestamp() if w.reservation_time is not None else float("-inf"),
                           w.key, w.admission)
                          for q in self.cache.cluster_queues.values() for w in q.workloads.values()),
                         key=lambda item: (item[0], item[1]))
        queues = tuple((name, q.preemptor, q.sticky, tuple(sorted(q.bulk_moved_shapes)),
                        q.queue_inadmissible_cycle >= q.pop_cycle) for name, q in sorted(self.queues.items()))
        return tuple((key, admission) for _, key, admission in holders), queues

    def _holdings(self) -> frozenset[str]:
        return frozenset(key for q in self.cache.cluster_queues.values() for key in q.workloads)

    def _livelock(self, first: int, last: int, results: list[CycleRecord]) -> Livelock:
        involved: set[str] = set()
        for result in results[first:last]:
            involved.update(result.admitted)
            for eviction in result.evictions:
                involved.update((eviction.victim, eviction.preemptor))
        return Livelock((first + 1, last), tuple(sorted(involved)))


def effective_options(options: SimulationOptions, snapshot: Snapshot) -> SimulationOptions:
    """The options with the feature gates Kueue runs with: the Configuration's ``featureGates`` in the inputs, the
    options' (``--feature-gates``) over them. Applied once, by the engine, so every command sees the same gates."""
    configured = dict(snapshot.config.feature_gates)
    if not configured:
        return options
    import dataclasses

    return dataclasses.replace(options, gates=options.gates.over(configured))


def set_up_alike(sim: Simulation, snapshot: Snapshot, options: SimulationOptions) -> bool:
    """Whether ``sim``, never run, is what ``Simulation(snapshot, options)`` sets up: a snapshot of the same objects
    (the same workload models in the same order) and the same options but for the hook telling of cycles (read only
    by :meth:`Simulation.run_cycles`) and the memo of answers. Its caller promises it was never touched (no cycle,
    no nomination): kqctl explain forks the wait estimate's replay from the run it sets up for the steady state."""
    import dataclasses

    if sim.history or options.between_cycles is not None or sim.options.between_cycles is not None:
        return False
    options = effective_options(options, snapshot)
    if dataclasses.replace(sim.options, on_cycle=None) != dataclasses.replace(options, on_cycle=None):
        return False
    for field_ in dataclasses.fields(Snapshot):
        mine, theirs = getattr(sim.snapshot, field_.name), getattr(snapshot, field_.name)
        if field_.name == "now":
            same = mine == theirs
        elif field_.name == "workloads":
            same = len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs, strict=True))
        else:
            same = mine is theirs
        if not same:
            return False
    return sim.start == (options.now or snapshot.now or DEFAULT_NOW)


def simulate(snapshot: Snapshot, options: SimulationOptions | None = None) -> SimulationResult:
    """Run Kueue's scheduler over the snapshot: exactly ``options.cycles`` cycles, or to a steady state."""
    return Simulation(snapshot, options or SimulationOptions()).run()


