"""How a scheduler plugs into the replay: the calls the loop makes, and what it tells the loop back.

The loop (:mod:`kqctl.replay.run`) owns virtual time, arrivals, runtimes and completions; the
scheduler owns its queues and quota. A scheduler reports what happened through the
:class:`Reporter` it is handed (a workload started running, was evicted, or a timer of its own is
due), so the loop never needs to know the scheduler's words for these things.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from kqctl.replay.statistics import Points


@dataclass(frozen=True)
class Arrival:
    """A workload that joins a queue at ``at`` (ms since the start) and runs ``runtime`` ms once admitted.

    ``runtime`` None: nothing says how long it runs; it holds its quota until the replay ends.
    """

    key: str
    at: int
    runtime: int | None


@dataclass(frozen=True)
class Running:
    """A workload already running when the replay starts (admitted at ``since``, usually <= 0).

    ``arrival``: when it was submitted, if known (its time to admission then counts from there).
    """

    key: str
    since: int
    runtime: int | None
    arrival: int | None = None
    # ms from the start until this run finishes, when not since + runtime (an assumed runtime counted from the start);
    # ``runtime`` stays the length of any later run (after an eviction it starts again from zero).
    remaining: int | None = None


@dataclass(frozen=True)
class WorkloadLabels:
    """What reports group a workload by: its queue, the queue that holds its quota, priority and class."""

    queue: str
    target: str
    priority: int
    workload_class: str


@dataclass(frozen=True)
class UsageTrack:
    """Usage over time of one queue (or a group of queues, such as a cohort) for one resource."""

    kind: str  # the scheduler's word: ClusterQueue, Cohort, queue ...
    name: str
    resource: str  # e.g. rf/cpu: flavor and resource
    nominal: int
    points: Points  # (ms, amount) from the start on, one point per change
    parent: str | None = None
    queue_class: str = ""
    measure: str = "reserved"  # reserved: quota held; admitted: quota of running workloads
    # Without a nominal amount, the most the queue can ever hold (Volcano: the real capability of a queue with
    # neither deserved nor capability, i.e. the cluster); charts draw its usage against this instead. 0: none.
    ceiling: int = 0


@dataclass(frozen=True)
class CycleReport:
    """One scheduling cycle: how long the scheduler is busy, and whether it changed anything.

    ``progress`` False means another cycle right away would decide the same: the loop then waits for
    the next event that changes a queue or the quota instead of spinning. ``admitted`` is how many
    workloads got in (a cycle without admissions is followed by the scheduler's back-off).
    """

    busy: int
    progress: bool
    admitted: int


class Reporter(Protocol):
    def admitted(self, key: str, at: int) -> None:
        """The workload starts running at ``at``: its runtime is counted from here."""

    def evicted(self, key: str, at: int) -> None:
        """The workload stopped running at ``at`` (preempted); it is pending again."""

    def timer(self, at: int, token: Hashable) -> None:
        """Call the scheduler's ``wake(token)`` at ``at``."""


class Scheduler(Protocol):
    """A scheduler engine, as the replay loop drives it."""

    def begin(self, reporter: Reporter) -> tuple[list[Arrival], list[Running]]:
        """Set up at time 0; the workloads that will arrive and those already running."""

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        """The workload joins its queue. True when a scheduling cycle may now admit something."""

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        """The workload's runtime ended: it releases its quota. True as for ``arrive``."""

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        """A timer the scheduler asked for is due. True as for ``arrive``."""

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        """Run one scheduling cycle starting at ``now``."""

    def has_work(self) -> bool:
        """Whether a cycle now would find anything to consider (the scheduler waits otherwise)."""

    def labels(self, key: str) -> WorkloadLabels:
        """How reports group this workload."""

    def state(self, key: str) -> str:
        """The workload's state at the end, in the scheduler's words (Pending, Inadmissible, ...)."""

    def usage(self) -> Sequence[UsageTrack]:
        """Usage over time per queue and group of queues."""

    def backoff(self, attempt: int) -> int:
        """How long the scheduler sleeps before its ``attempt``-th cycle in a row without an admission."""
