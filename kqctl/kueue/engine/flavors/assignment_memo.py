"""A head's flavor assignment reused while every quota figure it read is still the same (CYC-5, FA-4..FA-10).

A replay of a busy cohort asks about every pending workload again after every requeue (CYC-14): each cycle pops one
head per ClusterQueue (one per CYC-12 shape), and most find no room and go back to the inadmissible set. Kueue works
each answer out again (scheduler.go ``getAssignments``), and so does the engine. The flavor assigner is a pure
function of what it is given and of the figures it reads while it scans: what is available, the potential and the
borrowing level of a (flavor, resource) in its ClusterQueue (Q-5, Q-6, Q-8) and the preemption oracle's answers
(PRE-11); when the assignment needs preemption, the victims found (PRE-2) are read too. Where the scan only compares
what is available with what it asks for (a request that fits, FA-6), it reads that comparison (``fits_available``),
not the figure: a head that fits then reads the same while usage moves under it (every cycle of a busy replay
moves it). What it is given is the workload's pod sets and node selection (its scheduling shape, CYC-12), its
ClusterQueue (whose quotas only ``QuotaCache.update_nominal_quota`` changes) and the flavor-scan memory in effect
(FA-4).

So each answer is kept with the figures it read, in the order it read them. A later head of the same ClusterQueue,
shape and scan memory gets the kept answer when every figure, asked again in that order of the current cache and for
this head (the oracle and the victim search run again for it), is what it was: the scan then takes the same path and
ends in the same answer. Asking again is a few quota sums and one preemption search, instead of the whole scan and
the messages it writes. Only answers without victims are kept (victims are particular workloads, and a preemptor
changes the tree anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from kqctl.kueue.api.models import FlavorResource, ResourceFlavor
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.flavors.assignment import Assignment, Oracle
from kqctl.kueue.engine.tas_cache import TASCache

# What a read asked (its arguments after the ClusterQueue) and what it answered.
AVAILABLE, POTENTIAL, BORROWING_LEVEL, ORACLE, NO_VICTIMS, FITS_AVAILABLE = range(6)
Read = tuple[int, tuple[object, ...], object]

ANSWERS_PER_KEY = 64  # answers kept per ClusterQueue, shape and scan memory (then they are dropped and kept anew)


class RecordingCache:
    """The quota cache as the flavor assigner reads it, each figure it asks for noted in ``reads``."""

    def __init__(self, cache: QuotaCache, reads: list[Read]) -> None:
        self._cache = cache
        self.reads = reads
        self.flavors: dict[str, ResourceFlavor] = cache.flavors
        self.tas: TASCache = cache.tas
        self.snapshot: Snapshot = cache.snapshot

    def available(self, state: ClusterQueueState, fr: FlavorResource) -> int:
        value = self._cache.available(state, fr)
        self.reads.append((AVAILABLE, (fr,), value))
        return value

    def fits_available(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> bool:
        fits = self._cache.fits_available(state, fr, value)
        self.reads.append((FITS_AVAILABLE, (fr, value), fits))
        return fits

    def potential(self, state: ClusterQueueState, fr: FlavorResource) -> int:
        value = self._cache.potential(state, fr)
        self.reads.append((POTENTIAL, (fr,), value))
        return value

    def borrowing_level(self, state: ClusterQueueState, fr: FlavorResource, value: int) -> tuple[int, bool]:
        level = self._cache.borrowing_level(state, fr, value)
        self.reads.append((BORROWING_LEVEL, (fr, value), level))
        return level


def recording_oracle(oracle: Oracle, reads: list[Read]) -> Oracle:
    """The preemption oracle, each answer noted in ``reads``."""
    def ask(fr: FlavorResource, quantity: int) -> tuple[str, int]:
        answer = oracle(fr, quantity)
        reads.append((ORACLE, (fr, quantity), answer))
        return answer
    return ask


@dataclass(eq=False)
class _Ask:
    """One figure asked on the way to kept answers, and where each of its possible values leads: to the next figure
    asked or to the answer. The assigner's scan is a pure function of the figures it reads (see above): after equal
    answers it asks for the same next figure, so the answers kept for a key share their first reads and part where a
    figure read differently, and a lookup reads each figure of its way once instead of once per kept answer."""

    kind: int
    args: tuple[object, ...]
    then: dict[object, _Ask | Assignment] = field(default_factory=dict)


@dataclass
class AssignmentMemo:
    """Victimless assignments by ClusterQueue, shape and scan memory, each reached through the figures it read."""

    cache: QuotaCache
    _asks: dict[Hashable, _Ask] = field(default_factory=dict)
    _kept: dict[Hashable, int] = field(default_factory=dict)  # answers kept per key
    hits: int = 0  # answers reused (for tests and benchmarks)
    # ClusterQueue -> (the quota changes it was worked out at, the number of what the assigner reads of it itself)
    _views: dict[str, tuple[int, int]] = field(default_factory=dict)
    _view_numbers: dict[str, int] = field(default_factory=dict)  # each such view written out -> its number

    def key(self, cq: ClusterQueueState, shape: str, scan: list[dict[str, int]] | None) -> Hashable:
        memory = tuple(tuple(sorted(tried.items())) for tried in scan) if scan is not None else None
        return self._assigner_view(cq), shape, memory, self.cache.quota_changes

    def _assigner_view(self, cq: ClusterQueueState) -> int:
        """What the flavor assigner reads of the ClusterQueue itself rather than through the figures it notes: its
        resource groups (flavors in order, covered resources: FA-3, REQ-11, REQ-12), flavor fungibility (FA-7, FA-8),
        preemption policies (FA-6.4) and quotas (the nominal quota of FA-6.4; QuotaCache.update_nominal_quota
        changes them and counts the change). ClusterQueues alike in all of these share their kept answers: Kueue's
        own benchmarks and most tenancies stamp them from one template, and every figure is read again, of the
        head's own ClusterQueue and tree, before an answer is reused. Written out as text: equal text, equal view
        (two views that differ only in the order of a mapping are kept apart, which costs reuse, never an answer)."""
        changes = self.cache.quota_changes
        known = self._views.get(cq.name)
        if known is not None and known[0] == changes:
            return known[1]
        model = cq.model
        text = repr((model.resource_groups, model.flavor_fungibility, model.preemption,
                     sorted(cq.node.quotas.items())))
        number = self._view_numbers.setdefault(text, len(self._view_numbers))
        self._views[cq.name] = (changes, number)
        return number

    def find(self, key: Hashable, cq: ClusterQueueState, oracle: Oracle,
             no_victims: Callable[[Assignment], bool]) -> Assignment | None:
        """The kept answer whose every figure reads the same now (None: none does)."""
        step: _Ask | Assignment | None = self._asks.get(key)
        cache = self.cache
        while isinstance(step, _Ask):
            kind, args = step.kind, step.args
            if kind == AVAILABLE:
                now: object = cache.available(cq, args[0])  # type: ignore[arg-type]
            elif kind == FITS_AVAILABLE:
                now = cache.fits_available(cq, args[0], args[1])  # type: ignore[arg-type]
            elif kind == POTENTIAL:
                now = cache.potential(cq, args[0])  # type: ignore[arg-type]
            elif kind == BORROWING_LEVEL:
                now = cache.borrowing_level(cq, args[0], args[1])  # type: ignore[arg-type]
            elif kind == ORACLE:
                now = oracle(args[0], args[1])  # type: ignore[arg-type]
            else:
                now = no_victims(args[0])  # type: ignore[arg-type]
            step = step.then.get(now)
        if step is None:
            return None
        self.hits += 1
        return step

    def keep(self, key: Hashable, reads: list[Read], answer: Assignment) -> None:
        """Keep ``answer`` at the end of the way its reads took (a key with many answers starts again)."""
        if not reads:
            return  # nothing read: nothing would tell a later head that the answer still holds
        answer.kept_message, answer.kept_mode = answer.message(), answer.representative_mode()
        kept = self._kept.get(key, 0)
        if kept >= ANSWERS_PER_KEY:
            self._asks.pop(key, None)
            kept = 0
        self._kept[key] = kept + 1
        first_kind, first_args, _ = reads[0]
        step = self._asks.get(key)
        if step is None:
            step = self._asks[key] = _Ask(first_kind, first_args)
        for index, (kind, args, value) in enumerate(reads):
            # (the assignment a victim search was made for follows from the figures before it: equal, not the same)
            if step.kind != kind or (kind != NO_VICTIMS and step.args != args):  # not the way an equal scan goes:
                # start again from this one
                self._asks.pop(key)
                self._kept[key] = 0
                self.keep(key, reads, answer)
                return
            following = step.then.get(value)
            if index + 1 == len(reads):
                if following is None:
                    step.then[value] = answer
                return
            if not isinstance(following, _Ask):
                following = step.then[value] = _Ask(*reads[index + 1][:2])
            step = following

    def kept_reads(self, key: Hashable) -> list[tuple[Read, ...]]:
        """Every way kept for ``key``: the figures read, in order, with their values (for tests)."""
        ways: list[tuple[Read, ...]] = []

        def walk(step: _Ask | Assignment, path: tuple[Read, ...]) -> None:
            if not isinstance(step, _Ask):
                ways.append(path)
                return
            for value, following in step.then.items():
                walk(following, (*path, (step.kind, step.args, value)))

        if key in self._asks:
            walk(self._asks[key], ())
        return ways
