"""A configuration change, for any scheduler but Kueue (whose diff has flavors and borrowing): what each workload
ends in before and after (the steady state of the scheduler's engine), which configuration fields differ, and with
replays how the waits move per queue and priority.

A *regression* is a workload running before that is not running after (steady state), or one that got in during
the replay before and never gets in after (replay); both are named, and ``--fail-on regression`` counts both.
Waits follow :mod:`kqctl.replay.compare`'s rules (a workload that never gets in counts as never).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kqctl.replay.compare import PercentileShift, ReplayRegression, numeric_first, replay_regressions, shifts
from kqctl.replay.report import TimelineReport, Words

STATE, PLACEMENT, VICTIMS, PREEMPTED, ADDED, REMOVED = "state", "placement", "victims", "preempted", "added", "removed"


@dataclass(frozen=True)
class Outcome:
    """One workload at the end of a simulation, in the terms a diff compares."""

    state: str  # the scheduler's word: Running, Inqueue, Pending, Allocated, Preempted, ...
    queue: str
    running: bool  # it holds resources (runs) at the end
    placement: str  # where it runs (nodes, "2/4 pods bound"), "" when it does not
    victims: tuple[str, ...] = ()  # what its placement evicted
    evicted: bool = False  # it was evicted itself
    message: str = ""  # why it waits


@dataclass(frozen=True)
class OutcomeChange:
    key: str
    before: Outcome | None
    after: Outcome | None
    kinds: tuple[str, ...]

    @property
    def regression(self) -> bool:
        """Running before, not running after (a workload that no longer exists is not a regression)."""
        return self.before is not None and self.after is not None and self.before.running and not self.after.running


@dataclass(frozen=True)
class FieldChange:
    """A field of the configuration that differs: a queue's limit or property, the scheduler's settings."""

    kind: str  # Queue, queue, SchedulerConfiguration, partition
    name: str
    field: str
    before: str
    after: str


@dataclass(frozen=True)
class SchedulerDiff:
    words: Words
    changes: tuple[OutcomeChange, ...]
    compared: int
    before_counts: tuple[tuple[str, int], ...]
    after_counts: tuple[tuple[str, int], ...]
    configuration: tuple[FieldChange, ...]
    percentiles: tuple[PercentileShift, ...] | None = None  # None without --replay
    replay_regressions: tuple[ReplayRegression, ...] = ()
    before_replay: TimelineReport | None = None
    after_replay: TimelineReport | None = None

    @property
    def regressions(self) -> tuple[OutcomeChange, ...]:
        return tuple(c for c in self.changes if c.regression)

    def regressed_keys(self) -> tuple[str, ...]:
        """Every workload a regression names, steady state or replay (what --fail-on regression counts)."""
        return tuple(sorted({c.key for c in self.regressions} | {r.key for r in self.replay_regressions}))


def compare(key: str, before: Outcome | None, after: Outcome | None) -> OutcomeChange | None:
    if before is None or after is None:
        return OutcomeChange(key, before, after, (ADDED,) if before is None else (REMOVED,))
    kinds = []
    if before.state != after.state or before.running != after.running:
        kinds.append(STATE)
    if before.placement != after.placement and before.running and after.running:
        kinds.append(PLACEMENT)
    if before.victims != after.victims:
        kinds.append(VICTIMS)
    if before.evicted != after.evicted and STATE not in kinds:
        kinds.append(PREEMPTED)
    return OutcomeChange(key, before, after, tuple(kinds)) if kinds else None


def diff_outcomes(words: Words, before: Mapping[str, Outcome], after: Mapping[str, Outcome],
                  configuration: Iterable[FieldChange], old_replay: TimelineReport | None = None,
                  new_replay: TimelineReport | None = None) -> SchedulerDiff:
    keys = sorted(set(before) | set(after))
    changes = tuple(change for key in keys if (change := compare(key, before.get(key), after.get(key))) is not None)
    percentiles = None
    regressions: tuple[ReplayRegression, ...] = ()
    if old_replay is not None and new_replay is not None:
        percentiles = (
            *shifts(old_replay.workloads, new_replay.workloads, "queue", lambda w: w.labels.target or "-"),
            *shifts(old_replay.workloads, new_replay.workloads, "priority", lambda w: str(w.labels.priority),
                    numeric_first))
        regressions = replay_regressions(old_replay.workloads, new_replay.workloads)
    return SchedulerDiff(words, changes, len(keys), _counts(before), _counts(after), tuple(configuration), percentiles,
                         regressions, old_replay, new_replay)


def _counts(outcomes: Mapping[str, Outcome]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for outcome in outcomes.values():
        counts[outcome.state] = counts.get(outcome.state, 0) + 1
    return tuple(sorted(counts.items()))


def field_changes(kind: str, before: Mapping[str, Mapping[str, str]],
                  after: Mapping[str, Mapping[str, str]]) -> list[FieldChange]:
    """Per object name, the fields (as text) that differ; an object on one side only is ``(object)``."""
    changes = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            changes.append(FieldChange(kind, name, "(object)", "exists" if old is not None else "-",
                                       "exists" if new is not None else "-"))
            continue
        for field in sorted(set(old) | set(new)):
            if old.get(field, "-") != new.get(field, "-"):
                changes.append(FieldChange(kind, name, field, old.get(field, "-"), new.get(field, "-")))
    return changes
