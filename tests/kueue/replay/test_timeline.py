"""Kueue in virtual time: one test per rule the replay mirrors (SIM-R1..SIM-R7, with CYC-11, CYC-14, CYC-16,
CYC-17 where they decide the timing)."""

from __future__ import annotations

from replay_support import CQ, WL, snapshot

from kqctl.kueue.replay.report import KueueReplayOptions, ReplayReport, replay_snapshot
from kqctl.kueue.replay.throughput import Throughput, TokenBucket
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.replay.durations import parse_distribution
from kqctl.replay.run import WorkloadTimes

INSTANT = Throughput(fixed_ms=0)  # cycles and API writes take no time: timings are the rules' alone


def run(queues: list[CQ], workloads: list[WL], throughput: Throughput = INSTANT, **options: object) -> ReplayReport:
    timeline = TimelineOptions(throughput=throughput, **options)  # type: ignore[arg-type]
    return replay_snapshot(snapshot(queues, workloads), KueueReplayOptions(timeline))


def by_name(report: ReplayReport) -> dict[str, WorkloadTimes]:
    return {w.key.split("/", 1)[1]: w for w in report.workloads}


def test_sim_r1_a_workload_arrives_at_its_creation_time() -> None:
    times = by_name(run([CQ("q", "4")], [WL("later", "q", "1", created_ms=60_000, runtime="10s")]))
    assert (times["later"].arrival, times["later"].admitted, times["later"].finished) == (60_000, 60_000, 70_000)


def test_sim_r1_a_workload_created_before_the_start_waits_from_the_start() -> None:
    # Its age is not a wait the replay measured: a 78-day-old pending workload would otherwise read as a 78-day wait.
    times = by_name(run([CQ("q", "4")], [WL("old", "q", "1", created_ms=-30_000, runtime="10s"),
                                         WL("new", "q", "1", created_ms=5_000, runtime="10s")]))
    assert times["old"].arrival == -30_000 and times["old"].joined == 0 and times["old"].time_to_admission == 0
    assert times["old"].time_to_finish == 10_000
    assert times["new"].joined == 5_000 and times["new"].time_to_admission == 0


def test_sim_r2_quota_is_held_from_the_cycle_and_the_workload_runs_once_its_admission_is_written() -> None:
    # One write per second, no burst: two admissions of the same cycle run one second apart.
    slow = Throughput(qps=1, burst=1, per_cycle_us=0, per_head_us=0)
    report = run([CQ("a", "1"), CQ("b", "1")], [WL("wa", "a", "1", runtime="10s"), WL("wb", "b", "1", runtime="10s")],
                 slow)
    times = by_name(report)
    assert sorted((times["wa"].admitted, times["wb"].admitted)) == [0, 1000]
    held = {u.name: u.points for u in report.usage if u.kind == "ClusterQueue"}
    assert held["a"][0] == (0, 1000) and held["b"][0] == (0, 1000)  # both hold quota from cycle 1


def test_token_bucket_lets_the_burst_through_then_one_write_per_interval() -> None:
    bucket = TokenBucket(qps=50, burst=3)
    assert [bucket.reserve(0) for _ in range(5)] == [0, 0, 0, 20_000, 40_000]
    assert bucket.reserve(1_000_000) == 1_000_000  # an idle second refills the bucket


def test_sim_r3_a_completion_releases_quota_and_inadmissible_workloads_return_after_the_batch_period() -> None:
    times = by_name(run([CQ("q", "1")], [WL("first", "q", "1", runtime="10s"),
                                         WL("second", "q", "1", created_ms=1, runtime="10s")]))
    # BestEffortFIFO: "second" did not fit and went inadmissible (CYC-11); the completion of "first" asks for a
    # requeue of the tree, which Kueue batches for one second (CYC-14).
    assert times["first"].finished == 10_000
    assert times["second"].admitted == 11_000


def test_sim_r3_strict_fifo_heads_stay_in_the_heap_and_get_in_as_soon_as_quota_is_released() -> None:
    times = by_name(run([CQ("q", "1", strategy="StrictFIFO")],
                        [WL("first", "q", "1", runtime="10s"), WL("second", "q", "1", created_ms=1, runtime="10s")]))
    assert times["second"].admitted == 10_000


def test_sim_r4_a_preempted_victim_is_evicted_requeued_without_back_off_and_runs_again_from_the_start() -> None:
    report = run([CQ("q", "4", within="LowerPriority")],
                 [WL("low", "q", "3", priority=0, runtime="100s"),
                  WL("high", "q", "2", created_ms=5_000, priority=10, runtime="10s")])
    times = by_name(report)
    assert times["low"].evictions == 1 and times["high"].evictions == 0
    assert [(e.victim, e.preemptor, e.reason) for e in report.evictions] == [("ns/low", "ns/high", "InClusterQueue")]
    # The eviction is written in the cycle of the preemption; the preemptor gets in in the next cycle, after
    # the scheduler's 1 ms back-off (that cycle admitted nothing).
    assert times["high"].admitted == 5_001
    # "low" is pending again, with its creation time (CYC-16) and no back-off (CYC-17): it gets back in as soon
    # as "high" finishes and the requeue batch fires, and runs its full 100 s again.
    assert times["high"].finished == 15_001
    assert times["low"].admitted == 16_001 and times["low"].finished == 116_001
    assert times["low"].first_admitted == 0 and times["low"].time_to_admission == 16_001


def test_sim_r5_requeues_are_batched_per_cohort_tree() -> None:
    times = by_name(run([CQ("a", "1", cohort="co"), CQ("b", "1", cohort="co"), CQ("c", "0", cohort="co")],
                        [WL("wa", "a", "1", runtime="10s"), WL("wb", "b", "1", runtime="10300ms"),
                         WL("wc", "c", "1", created_ms=1, runtime="1s")]))
    # Both completions ask for a requeue of cohort "co"; the first one's batch (10 s + 1 s) serves both.
    assert times["wc"].admitted == 11_000


def test_sim_r6_a_workload_in_back_off_waits_until_its_requeue_time() -> None:
    times = by_name(run([CQ("q", "4")], [WL("backing-off", "q", "1", requeue_at_ms=30_000, runtime="5s")]))
    assert times["backing-off"].admitted == 30_000


def test_sim_r7_a_blocked_queue_does_not_spin_cycles() -> None:
    report = run([CQ("q", "1", strategy="StrictFIFO")],
                 [WL("running", "q", "1", runtime="1h"), *(WL(f"w{i}", "q", "1", created_ms=i, runtime="1s")
                                                            for i in range(5))])
    # While "running" runs for an hour, the blocked head decides the same every cycle: no cycle is repeated.
    assert report.cycles < 30


def test_workloads_running_at_the_start_finish_after_the_rest_of_their_runtime() -> None:
    times = by_name(run([CQ("q", "1")], [WL("running", "q", "1", created_ms=-40_000, admitted_ms=-30_000,
                                            runtime="60s"),
                                         WL("next", "q", "1", runtime="1s")]))
    # Admitted before the start: no wait in the replay (waits are measured from the start at the earliest).
    assert times["running"].finished == 30_000 and times["running"].time_to_admission == 0
    assert times["next"].admitted == 31_000  # inadmissible until the requeue after the completion


def test_sim_r4_a_workload_running_at_the_start_goes_back_to_its_local_queues_cluster_queue_when_preempted() -> None:
    times = by_name(run([CQ("q", "4", within="LowerPriority")],
                        [WL("low", "q", "3", created_ms=-60_000, admitted_ms=-50_000, runtime="100s"),
                         WL("high", "q", "2", created_ms=5_000, priority=10, runtime="10s")]))
    assert times["low"].evictions == 1
    assert times["low"].admitted == 16_001 and times["low"].finished == 116_001


def test_runtimes_not_declared_are_drawn_with_the_seed() -> None:
    queues = [CQ("q", "100")]
    workloads = [WL(f"w{i}", "q", "1") for i in range(20)]
    first = run(queues, workloads, runtime=parse_distribution("uniform(1s,1h)"), seed=3)
    again = run(queues, workloads, runtime=parse_distribution("uniform(1s,1h)"), seed=3)
    other = run(queues, workloads, runtime=parse_distribution("uniform(1s,1h)"), seed=4)
    assert first.workloads == again.workloads
    assert first.workloads != other.workloads
    assert any("draw from uniform(1s,1h)" in note for note in first.assumptions)


def test_workloads_without_runtime_hold_their_quota_to_the_end_and_the_report_says_so() -> None:
    report = run([CQ("q", "1")], [WL("forever", "q", "1"), WL("waiting", "q", "1", created_ms=1)])
    times = by_name(report)
    assert times["forever"].state == "Running" and times["waiting"].state == "Inadmissible"
    assert any("declare no runtime" in note for note in report.assumptions)


def test_the_calibrated_model_admits_at_the_api_rate() -> None:
    queues = [CQ(f"q{i}", "1") for i in range(300)]
    report = run(queues, [WL(f"w{i}", f"q{i}", "1", runtime="1h") for i in range(300)], Throughput())
    admitted = sorted(w.admitted for w in report.workloads if w.admitted is not None)
    # 300 admissions of one cycle: the burst of 100 at once, then one every 20 ms (50 per second).
    assert admitted[99] - admitted[0] <= 1 and admitted[-1] - admitted[100] == 199 * 20


def test_a_running_workload_dated_after_the_start_is_read_as_running_since_the_start() -> None:
    # --now before the snapshot's own dates (as explain reads it): what holds quota runs from the start, and its
    # wait is 0, never below.
    report = run([CQ("q", "4")], [WL("ahead", "q", "1", created_ms=3_600_000, admitted_ms=3_700_000, runtime="1h"),
                                  WL("older", "q", "1", created_ms=-60_000, admitted_ms=-30_000, runtime="1h")])
    times = by_name(report)
    assert (times["ahead"].arrival, times["ahead"].admitted, times["ahead"].time_to_admission) == (0, 0, 0)
    assert times["ahead"].finished == 3_600_000
    assert times["older"].time_to_admission == 0  # admitted before the start: no wait in the replay
    assert any("1 running workload(s) are dated after the replay's start" in note for note in report.assumptions)


def test_sim_r1_workloads_begin_in_the_order_of_their_creation_then_key_as_a_stable_sort_gives_them() -> None:
    """KueueTimeline._by_creation (each workload's time and key worked out once) is the stable sort by creation time
    and key it replaced: random creation times (many equal, some after the start) and names, over seeds."""
    import random

    from kqctl.kueue.replay.timeline import KueueTimeline

    for seed in range(8):
        rng = random.Random(seed)
        workloads = [WL(f"w{rng.randrange(40)}-{i}", "q", "1", created_ms=rng.choice((-60_000, 0, 1_000, 1_000,
                                                                                       rng.randrange(-5, 5) * 1000)))
                     for i in range(30)]
        rng.shuffle(workloads)
        timeline = KueueTimeline(snapshot([CQ("q", "4")], workloads))
        slow = sorted(timeline.snapshot.workloads, key=lambda w: (timeline._ms(w.creation_timestamp), w.key))
        fast = timeline._by_creation()
        assert [model for _, _, model in fast] == slow
        assert [(created, key) for created, key, _ in fast] == [(timeline._ms(w.creation_timestamp), w.key)
                                                               for w in slow]
