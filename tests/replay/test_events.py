"""The event loop: ordered by time, ties by insertion order, the past closed, the same run every time."""

from __future__ import annotations

import random

import pytest

from kqctl.replay.events import EventLoop


def drain(loop: EventLoop[str]) -> list[tuple[int, str]]:
    return [loop.pop() for _ in range(len(loop))]


def test_events_come_out_in_time_order() -> None:
    loop: EventLoop[str] = EventLoop()
    for at, name in ((30, "c"), (10, "a"), (20, "b")):
        loop.schedule(at, name)
    assert drain(loop) == [(10, "a"), (20, "b"), (30, "c")]


def test_ties_come_out_in_the_order_they_were_scheduled() -> None:
    loop: EventLoop[str] = EventLoop()
    names = [f"e{i}" for i in range(50)]
    for name in names:
        loop.schedule(5, name)
    assert [name for _, name in drain(loop)] == names


def test_the_clock_follows_the_events_and_the_past_is_closed() -> None:
    loop: EventLoop[str] = EventLoop()
    loop.schedule(100, "x")
    loop.pop()
    assert loop.now == 100
    loop.schedule(100, "same time is fine")
    with pytest.raises(ValueError, match="before the current time"):
        loop.schedule(99, "too late")


def test_events_that_compare_badly_never_get_compared() -> None:
    # Sequence numbers are unique, so the heap never falls back to comparing the events themselves.
    loop: EventLoop[object] = EventLoop()
    loop.schedule(1, {"a": 1})
    loop.schedule(1, {"b": 2})
    assert [event for _, event in (loop.pop(), loop.pop())] == [{"a": 1}, {"b": 2}]


def test_the_same_schedule_gives_the_same_order_every_time() -> None:
    def run(seed: int) -> list[tuple[int, str]]:
        rng = random.Random(seed)
        loop: EventLoop[str] = EventLoop()
        for i in range(500):
            loop.schedule(rng.randrange(20), f"e{i}")
        return drain(loop)

    assert run(7) == run(7)
    order = run(7)
    assert order == sorted(order, key=lambda item: (item[0], int(item[1][1:])))


def test_next_time_and_length() -> None:
    loop: EventLoop[str] = EventLoop()
    assert loop.next_time() is None and len(loop) == 0
    loop.schedule(7, "x")
    assert loop.next_time() == 7 and len(loop) == 1
