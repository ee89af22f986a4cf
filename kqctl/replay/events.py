"""The discrete-event loop: one heap of (time, sequence, event), ties broken by insertion order.

SimPy's shape, kept this small on purpose: two events at the same millisecond come out in the order
they were scheduled, so a replay is a pure function of its inputs (and of ``--seed`` where something
is drawn at random).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import Generic, TypeVar

Event = TypeVar("Event")


class EventLoop(Generic[Event]):
    """Events ordered by virtual time (integer milliseconds), then by the order they were scheduled."""

    def __init__(self, start: int = 0) -> None:
        self.now = start
        self._heap: list[tuple[int, int, Event]] = []
        self._sequence: Iterator[int] = itertools.count()

    def schedule(self, at: int, event: Event) -> None:
        """Deliver ``event`` at ``at``; the past is closed (an event can never change what already happened)."""
        if at < self.now:
            raise ValueError(f"event scheduled at {at} ms, before the current time {self.now} ms")
        heapq.heappush(self._heap, (at, next(self._sequence), event))

    def pop(self) -> tuple[int, Event]:
        """The next event; the clock moves to its time."""
        at, _, event = heapq.heappop(self._heap)
        self.now = at
        return at, event

    def next_time(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)
