"""Two replays compared, for any scheduler's diff: per group, how the waits move, and who no longer gets in.

The rules every diff follows (issue 18's "never present a regression as an improvement"):

* a workload that never gets in counts as never, as plan counts it: its wait is longer than any other, so a
  percentile that reaches it is "never" (None), never a smaller number computed without it; and it is named;
* waiting counts from when the replay starts or the workload arrives, whichever is later (each scheduler's
  replay sets a workload's arrival so: a snapshot's age is not a wait);
* a *replay regression* is a workload that got in during the replay before and never gets in after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kqctl.replay.run import WorkloadTimes
from kqctl.replay.statistics import PERCENTILES

NAMED = 20  # workloads named per group that never gets in (-o json names every one)


@dataclass(frozen=True)
class Waits:
    """One group's time to admission over a replay: ``known`` waits ascending, then ``never`` (by key)."""

    known: tuple[int, ...]
    never: tuple[str, ...]

    @classmethod
    def of(cls, workloads: Iterable[WorkloadTimes]) -> Waits:
        known, never = [], []
        for workload in workloads:
            wait = workload.time_to_admission
            if wait is None:
                never.append(workload.key)
            else:
                known.append(wait)
        return cls(tuple(sorted(known)), tuple(sorted(never)))

    @property
    def count(self) -> int:
        return len(self.known) + len(self.never)

    def at(self, p: int) -> int | None:
        """The nearest-rank percentile (100: the maximum), a workload that never got in being the longest; None:
        the rank falls on such a workload (never)."""
        if not self.count:
            return None
        rank = -(-p * self.count // 100)
        return self.known[rank - 1] if rank <= len(self.known) else None


@dataclass(frozen=True)
class PercentileShift:
    """A group's waits before and after (None: the group has no workload on that side)."""

    group: str
    by: str  # the scheduler's word for the grouping: queue, priority
    before: Waits | None
    after: Waits | None

    @property
    def moved(self) -> bool:
        if self.before is None or self.after is None:
            return self.before is not self.after
        return any(self.before.at(p) != self.after.at(p) for p in PERCENTILES) or self.before.never != self.after.never

    @property
    def worse(self) -> bool:
        """Some percentile goes up, or becomes never."""
        if self.before is None or self.after is None:
            return False
        for p in PERCENTILES:
            old, new = self.before.at(p), self.after.at(p)
            if new is None and old is not None or (old is not None and new is not None and new > old):
                return True
        return False


def shifts(before: Iterable[WorkloadTimes], after: Iterable[WorkloadTimes], by: str,
           key: Callable[[WorkloadTimes], str], order: Callable[[str], Any] = str) -> tuple[PercentileShift, ...]:
    """One shift per group ``key`` gives (arrived workloads only), in ``order``."""
    old, new = _groups(before, key), _groups(after, key)
    return tuple(PercentileShift(name, by, _waits(old.get(name)), _waits(new.get(name)))
                 for name in sorted(set(old) | set(new), key=order))


def _groups(workloads: Iterable[WorkloadTimes], key: Callable[[WorkloadTimes], str]) -> dict[str, list[WorkloadTimes]]:
    groups: dict[str, list[WorkloadTimes]] = {}
    for workload in workloads:
        if workload.arrival is not None:
            groups.setdefault(key(workload), []).append(workload)
    return groups


def _waits(members: list[WorkloadTimes] | None) -> Waits | None:
    return Waits.of(members) if members is not None else None


@dataclass(frozen=True)
class ReplayRegression:
    """A workload that got in during the replay before, and never gets in after."""

    key: str
    before_wait: int  # ms
    after_state: str  # the scheduler's word for where it ends


def replay_regressions(before: Iterable[WorkloadTimes], after: Iterable[WorkloadTimes]) -> tuple[ReplayRegression, ...]:
    old = {w.key: w for w in before}
    found = []
    for workload in after:
        previous = old.get(workload.key)
        if previous is None or previous.arrival is None or workload.arrival is None:
            continue
        if previous.time_to_admission is not None and workload.time_to_admission is None:
            found.append(ReplayRegression(workload.key, previous.time_to_admission, workload.state))
    return tuple(sorted(found, key=lambda r: r.key))


def numeric_first(name: str) -> tuple[int, int | str]:
    """Priorities sort as numbers (-5 < 50 < 100), other names as text."""
    try:
        return (0, int(name))
    except ValueError:
        return (1, name)
