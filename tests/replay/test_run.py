"""The scheduler-agnostic replay loop, driven with a toy scheduler: one queue, N slots, FIFO."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from kqctl.replay.protocol import Arrival, CycleReport, Reporter, Running, UsageTrack, WorkloadLabels
from kqctl.replay.run import ReplayOptions, replay


@dataclass
class Toy:
    """A FIFO queue with ``slots`` places; a cycle admits the head if a place is free."""

    arrivals: list[Arrival]
    slots: int = 1
    running: list[Running] = field(default_factory=list)
    busy: int = 10  # ms per cycle
    write_delay: int = 0  # ms between a cycle's admission and the workload running
    queue: list[str] = field(default_factory=list)
    holding: set[str] = field(default_factory=set)
    cycles: list[int] = field(default_factory=list)
    preempt_at: dict[str, int] = field(default_factory=dict)  # key -> time a timer evicts it

    def begin(self, reporter: Reporter) -> tuple[list[Arrival], list[Running]]:
        self.holding = {r.key for r in self.running}
        for key, at in self.preempt_at.items():
            reporter.timer(at, ("evict", key))
        return self.arrivals, self.running

    def arrive(self, key: str, now: int, reporter: Reporter) -> bool:
        self.queue.append(key)
        return True

    def complete(self, key: str, now: int, reporter: Reporter) -> bool:
        self.holding.discard(key)
        return True

    def wake(self, token: Hashable, now: int, reporter: Reporter) -> bool:
        assert isinstance(token, tuple)
        _, key = token
        if key in self.holding:
            self.holding.discard(key)
            self.queue.insert(0, key)
            reporter.evicted(key, now)
            return True
        return False

    def cycle(self, now: int, reporter: Reporter) -> CycleReport:
        self.cycles.append(now)
        if self.queue and len(self.holding) < self.slots:
            key = self.queue.pop(0)
            self.holding.add(key)
            reporter.admitted(key, now + self.write_delay)
            return CycleReport(self.busy, True, 1)
        return CycleReport(self.busy, False, 0)

    def has_work(self) -> bool:
        return bool(self.queue)

    def labels(self, key: str) -> WorkloadLabels:
        return WorkloadLabels("q", "q", 0, "c")

    def state(self, key: str) -> str:
        return "Pending"

    def usage(self) -> Sequence[UsageTrack]:
        return []

    def backoff(self, attempt: int) -> int:
        return 1


def times(run_workloads: Sequence[object]) -> dict[str, tuple[object, ...]]:
    return {w.key: (w.arrival, w.admitted, w.finished, w.evictions, w.state) for w in run_workloads}  # type: ignore[attr-defined]


def test_completion_releases_the_slot_for_the_next_workload() -> None:
    toy = Toy([Arrival("a", 0, 100), Arrival("b", 0, 100)])
    run = replay(toy)
    assert times(run.workloads) == {"a": (0, 0, 100, 0, "Finished"), "b": (0, 100, 200, 0, "Finished")}
    assert run.end == 200


def test_the_runtime_starts_when_the_admission_takes_effect() -> None:
    run = replay(Toy([Arrival("a", 0, 100)], write_delay=20))
    (workload,) = run.workloads
    assert (workload.admitted, workload.finished, workload.time_to_admission) == (20, 120, 20)


def test_a_cycle_waits_for_the_scheduler_to_be_free() -> None:
    toy = Toy([Arrival("a", 0, 5), Arrival("b", 3, 5)], slots=2, busy=10)
    run = replay(toy)
    assert toy.cycles[:2] == [0, 10]  # b arrived at 3 while the first cycle ran until 10
    assert times(run.workloads)["b"][1] == 10


def test_a_cycle_that_changed_nothing_is_not_repeated_until_something_happens() -> None:
    toy = Toy([Arrival("a", 0, 1000), Arrival("b", 0, 1000)], busy=10)
    replay(toy)
    # 0: admits a; 10: b does not fit (no progress: the loop waits); 1000: a finished, b gets in.
    assert toy.cycles == [0, 10, 1000]


def test_the_back_off_follows_a_cycle_without_admission() -> None:
    toy = Toy([Arrival("a", 0, 1000), Arrival("b", 0, 1000), Arrival("c", 15, 10)], busy=10)
    replay(toy)
    assert toy.cycles[:3] == [0, 10, 21]  # after the idle cycle at 10: busy 10 + back-off 1


def test_an_eviction_cancels_the_completion_and_the_workload_runs_again_from_the_start() -> None:
    toy = Toy([Arrival("a", 0, 100)], preempt_at={"a": 40})
    run = replay(toy)
    (workload,) = run.workloads
    assert (workload.first_admitted, workload.admitted, workload.finished, workload.evictions) == (0, 40, 140, 1)
    assert workload.time_to_admission == 40  # as Kueue's recorder: the last admission counts


def test_workloads_running_at_the_start_finish_after_their_remaining_runtime() -> None:
    toy = Toy([Arrival("b", 0, 10)], running=[Running("a", -30, 100)])
    run = replay(toy)
    assert times(run.workloads)["a"] == (None, -30, 70, 0, "Finished")
    assert times(run.workloads)["b"][1] == 70


def test_a_workload_without_runtime_never_finishes() -> None:
    run = replay(Toy([Arrival("a", 0, None), Arrival("b", 0, 10)]))
    assert times(run.workloads) == {"a": (0, 0, None, 0, "Running"), "b": (0, None, None, 0, "Pending")}


def test_until_stops_the_replay_at_the_horizon() -> None:
    run = replay(Toy([Arrival("a", 0, 100), Arrival("b", 0, 100)]), ReplayOptions(until=150))
    assert run.stopped_at_horizon and run.end == 150
    assert times(run.workloads)["b"][1:3] == (100, None)


def test_the_finish_latency_delays_the_release() -> None:
    run = replay(Toy([Arrival("a", 0, 100), Arrival("b", 0, 100)]), ReplayOptions(finish_latency=25))
    assert times(run.workloads)["b"][1] == 125


def test_progress_is_reported_while_replaying() -> None:
    calls: list[tuple[int, int, int]] = []
    arrivals = [Arrival(f"w{i:05d}", i, 1) for i in range(5000)]
    replay(Toy(arrivals, slots=10, busy=0), ReplayOptions(on_progress=lambda *a: calls.append(a)))
    assert calls and all(total == 5000 for _, _, total in calls)


def test_the_same_inputs_replay_the_same_way() -> None:
    def run() -> dict[str, tuple[object, ...]]:
        return times(replay(Toy([Arrival(f"w{i}", i % 7, 13 + i % 5) for i in range(200)], slots=3)).workloads)

    assert run() == run()
