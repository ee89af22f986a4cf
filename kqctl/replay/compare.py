"""Two replays compared, for any scheduler's diff: per group, how the waits move, and who no longer gets in.

The rules every diff follows (issue 18's "never present a regression as an improvement"):

* a workload still waiting at the end (never admitted, or evicted and not back) counts as never, as plan counts
  it: its wait is longer than any other, so a percentile that reaches it is "never" (None), never a smaller
  number computed without it; and it is named (:func:`kqctl.replay.summary.stats`);
* waiting counts from when the replay starts or the workload arrives, whichever is later
  (``WorkloadTimes.joined``: a snapshot's age is not a wait);
* a *replay regression* is a workload that got in during the replay before and is still waiting at the end of the
  replay after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kqctl.replay.run import WorkloadTimes
from kqctl.replay.statistics import PERCENTILES
from kqctl.replay.summary import GroupStats, group_stats

NAMED = 20  # workloads named per group that never gets in (-o json names every one)


@dataclass(frozen=True)
class PercentileShift:
    """A group's waits before and after (None: the group has no workload on that side): :class:`GroupStats`, whose
    ``time_to_admission`` ranks a wait that never ended last (a percentile that falls on it is None, "never") and
    whose ``never_admitted`` names those still waiting at the end."""

    group: str
    by: str  # the scheduler's word for the grouping: queue, priority
    before: GroupStats | None
    after: GroupStats | None

    @property
    def moved(self) -> bool:
        if self.before is None or self.after is None:
            return self.before is not self.after
        return any(_at(self.before, p) != _at(self.after, p) for p in PERCENTILES) \
            or self.before.never_admitted != self.after.never_admitted

    @property
    def worse(self) -> bool:
        """Some percentile goes up, or becomes never."""
        if self.before is None or self.after is None:
            return False
        for p in PERCENTILES:
            old, new = _at(self.before, p), _at(self.after, p)
            if new is None and old is not None or (old is not None and new is not None and new > old):
                return True
        return False


def _at(group: GroupStats, p: int) -> int | None:
    sample = group.time_to_admission
    return sample.at(p) if sample is not None else None


def shifts(before: Iterable[WorkloadTimes], after: Iterable[WorkloadTimes], by: str,
           key: Callable[[WorkloadTimes], str], order: Callable[[str], Any] = str) -> tuple[PercentileShift, ...]:
    """One shift per group ``key`` gives (workloads that arrived during the replay), in ``order``."""
    old = {g.name: g for g in group_stats(before, key)}
    new = {g.name: g for g in group_stats(after, key)}
    return tuple(PercentileShift(name, by, old.get(name), new.get(name)) for name in sorted(set(old) | set(new),
                                                                                             key=order))


@dataclass(frozen=True)
class ReplayRegression:
    """A workload that got in during the replay before, and is still waiting at the end of the replay after."""

    key: str
    before_wait: int  # ms
    after_state: str  # the scheduler's word for where it ends


def replay_regressions(before: Iterable[WorkloadTimes], after: Iterable[WorkloadTimes]) -> tuple[ReplayRegression, ...]:
    got_in = {w.key: w.time_to_admission for w in before
              if w.arrival is not None and not w.waiting and w.time_to_admission is not None}
    found = [ReplayRegression(w.key, got_in[w.key], w.state) for w in after
             if w.waiting and w.arrival is not None and w.key in got_in]
    return tuple(sorted(found, key=lambda r: r.key))


def numeric_first(name: str) -> tuple[int, int | str]:
    """Priorities sort as numbers (-5 < 50 < 100), other names as text."""
    try:
        return (0, int(name))
    except ValueError:
        return (1, name)


def replay_assumptions(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """What the two replays of a diff assumed, said once: BEFORE's notes, then those of AFTER it does not share
    (marked "after:"), so a reviewer reads the runtimes, arrivals and latencies both replays were run under."""
    shared = set(before)
    return [*before, *(f"after: {note}" for note in after if note not in shared)]


class Replayed(Protocol):
    """A replay's report, as a diff reads its notes (Kueue's ``ReplayReport``, the others' ``TimelineReport``)."""

    @property
    def assumptions(self) -> Sequence[str]: ...


def diff_assumptions(before: Replayed | None, after: Replayed | None) -> list[str]:
    """:func:`replay_assumptions` of a diff's two replays (none without --replay)."""
    if before is None or after is None:
        return []
    return replay_assumptions(before.assumptions, after.assumptions)


def diff_assumptions_data(before: Replayed | None, after: Replayed | None) -> dict[str, list[str]] | None:
    """-o json/yaml: each replay's notes as it says them (null without --replay)."""
    if before is None or after is None:
        return None
    return {"before": list(before.assumptions), "after": list(after.assumptions)}
