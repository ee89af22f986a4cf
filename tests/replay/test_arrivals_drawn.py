"""``replay --arrivals``, for each scheduler: the arriving units (a Kueue Workload, a Volcano PodGroup with its pods, a
YuniKorn application with its pods) arrive at drawn times, those present at the start stay, the runtimes' draws are
the ones made without it, and the assumptions say how many moved."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from support import REPO, Run

from kqctl.replay.run import WorkloadTimes

JITTER = "jitter(20m)"
SPREAD_MS = 20 * 60_000
RUNTIME = "lognormal(20m,0.8)"
KUEUE = (str(REPO / "samples" / "replay"), str(REPO / "samples" / "replay" / "arrivals.csv"), "2026-09-14T09:00:00Z")
OTHERS = {
    "volcano": ("samples/volcano-two-teams", "2026-01-01T12:00:00Z"),
    "yunikorn": ("samples/yunikorn-priority", "2026-01-01T12:00:00Z"),
}


def _kueue(arrivals: str | None, seed: int = 0) -> Any:
    from kqctl.cli.replay import ReplaySettings, replay_input
    from kqctl.kueue.replay.report import replay_snapshot

    sample, trace, now = KUEUE
    snapshot = replay_input([sample], None, False, None, [trace], now, 0, False, None, False, False, None, None, None)
    return replay_snapshot(snapshot, ReplaySettings(RUNTIME, "calibrated", "0s", seed, None, None, None,
                                                    arrivals).options())


def _other(name: str, arrivals: str | None, seed: int = 0) -> tuple[Any, Any]:
    """The report and the timeline (its snapshot as drawn) of a Volcano or YuniKorn sample with its trace."""
    from kqctl.cli import timeline
    from kqctl.cli.replay import scheduler_inputs

    sample, now = OTHERS[name]
    loaded, product = scheduler_inputs([str(REPO / sample)], None, False, False, None, False, False, None, None,
                                       None, None, False)
    time = timeline.settings(RUNTIME, "0s", None, seed, now, None, arrivals)
    traces = [str(REPO / sample / "arrivals.csv")]
    if product == "Volcano":
        from kqctl.volcano.replay.report import replay_timeline

        snapshot = timeline.volcano_snapshot(loaded, None, traces, time.start)
        return replay_timeline(snapshot, timeline.volcano_options(snapshot, time))
    from kqctl.yunikorn.replay.report import replay_timeline as replay_yunikorn

    snapshot = timeline.yunikorn_snapshot(loaded, traces, time.start)
    return replay_yunikorn(snapshot, timeline.yunikorn_options(time))


def _by_key(workloads: tuple[WorkloadTimes, ...]) -> dict[str, WorkloadTimes]:
    return {w.key: w for w in workloads}


def _moved_within_the_spread(before: dict[str, WorkloadTimes], after: dict[str, WorkloadTimes]) -> int:
    """How many arrivals moved; each by at most the jitter, none to or before the start; the others stayed."""
    assert before.keys() == after.keys()
    moved = 0
    for key, old in before.items():
        new = after[key]
        if old.arrival is None or old.arrival <= 0:
            assert new.arrival == old.arrival, f"{key} was there at the start and must stay"
            continue
        assert new.arrival is not None and new.arrival >= 1
        assert new.arrival == 1 or abs(new.arrival - old.arrival) <= SPREAD_MS, key
        moved += new.arrival != old.arrival
    return moved


def test_kueue_workloads_arrive_at_drawn_times_with_the_runtimes_drawn_as_before() -> None:
    dated, drawn = _kueue(None), _kueue(JITTER)
    before, after = _by_key(dated.workloads), _by_key(drawn.workloads)
    assert _moved_within_the_spread(before, after) >= len(before) // 2
    assert {k: w.runtime for k, w in before.items()} == {k: w.runtime for k, w in after.items()}
    arriving = sum(1 for w in before.values() if w.arrival is not None and w.arrival > 0)
    assert (f"the arrival times of {arriving} workload(s) were drawn: jitter(±20m) (seed 0; --arrivals)"
            in drawn.assumptions)
    assert not any("--arrivals" in note for note in dated.assumptions)


def test_kueue_arrivals_follow_the_seed() -> None:
    def arrivals(report: Any) -> dict[str, int | None]:
        return {w.key: w.arrival for w in report.workloads}

    assert arrivals(_kueue(JITTER, 3)) == arrivals(_kueue(JITTER, 3))
    assert arrivals(_kueue(JITTER, 3)) != arrivals(_kueue(JITTER, 4))


def test_kueue_poisson_keeps_the_order_of_arrival_and_the_span() -> None:
    def arriving(report: Any) -> list[tuple[int, str]]:
        return sorted((w.arrival, w.key) for w in report.workloads if w.arrival is not None and w.arrival > 0)

    dated, drawn = arriving(_kueue(None)), arriving(_kueue("poisson", 2))
    assert len(dated) == len(drawn) and dated != drawn
    assert dated[0][0] <= drawn[0][0] and drawn[-1][0] <= dated[-1][0]
    # the n-th to arrive arrives n-th again (ties, now or before, may swap two)
    assert sum(a[1] != b[1] for a, b in zip(dated, drawn, strict=True)) <= len(dated) // 4


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_volcano_and_yunikorn_units_arrive_at_drawn_times(name: str) -> None:
    (dated, _), (drawn, _) = _other(name, None), _other(name, JITTER)
    before, after = _by_key(dated.workloads), _by_key(drawn.workloads)
    assert _moved_within_the_spread(before, after) >= 2
    assert {k: w.runtime for k, w in before.items()} == {k: w.runtime for k, w in after.items()}
    assert any("were drawn: jitter(±20m) (seed 0; --arrivals)" in note for note in drawn.assumptions)


def test_a_volcano_podgroups_pods_move_with_it() -> None:
    (_, dated), (_, drawn) = _other("volcano", None), _other("volcano", JITTER)
    moved = 0
    for key, group in drawn.snapshot.pod_groups.items():
        if group.creation is None:  # undated: there at the start
            assert dated.snapshot.pod_groups[key].creation is None
            continue
        shift = group.creation - dated.snapshot.pod_groups[key].creation
        moved += bool(shift)
        for pod, old in zip(drawn.members[key], dated.members[key], strict=True):
            assert pod.creation - old.creation == shift, f"{pod.key} must move with {key}"
    assert moved == drawn.arrivals_drawn > 0


def test_a_yunikorn_applications_pods_move_together() -> None:
    (_, dated), (_, drawn) = _other("yunikorn", None), _other("yunikorn", JITTER)
    old = {pod.key: pod for pod in dated.snapshot.pods}
    shifts: dict[str, set[object]] = {}
    for pod in drawn.snapshot.pods:
        shifts.setdefault(pod.app_id, set()).add(pod.created - old[pod.key].created)
    assert all(len(moved) == 1 for moved in shifts.values()), shifts
    assert sum(1 for moved in shifts.values() if moved != {timedelta(0)}) == drawn.arrivals_drawn > 0


# --- the commands ------------------------------------------------------------------------------------------

def test_replay_json_names_the_draw_and_the_same_seed_replays_the_same(kqctl: Callable[..., Run]) -> None:
    sample, trace, now = KUEUE
    args = ("replay", sample, "--trace", trace, "--now", now, "--arrivals", "poisson", "--seed", "5", "-o", "json")
    first, second = kqctl(*args), kqctl(*args)
    assert first.code == second.code == 0, first.err
    assert first.out == second.out
    assert any("poisson over the same span (seed 5; --arrivals)" in note
               for note in json.loads(first.out)["assumptions"])


@pytest.mark.parametrize("text", ["jitter(soon)", "gaussian(10m)", "jitter(-5m)"])
def test_an_arrivals_draw_that_does_not_parse_is_a_usage_error_before_anything_is_read(
        kqctl: Callable[..., Run], text: str) -> None:
    run = kqctl("replay", "no-such-dir", "--arrivals", text)
    assert run.code == 2 and "--arrivals:" in run.err and "Traceback" not in run.err, run.err


def test_arrivals_drawn_where_nothing_arrives_say_so(kqctl: Callable[..., Run]) -> None:
    sample, _, now = KUEUE
    run = kqctl("replay", sample, "--now", "2027-01-01T00:00:00Z", "--arrivals", "poisson", "-o", "json")
    assert run.code == 0, run.err
    assert ("--arrivals poisson over the same span: nothing arrives during the replay, so no arrival time was drawn"
            in json.loads(run.out)["assumptions"])


def test_diff_replays_both_sides_under_the_same_draw(kqctl: Callable[..., Run]) -> None:
    """diff --replay --arrivals: both sides' arrivals drawn alike (a change that changes nothing changes no figure),
    and the draw does change the figures against the arrivals as dated."""
    sample, trace, now = KUEUE
    same_quota = "clusterqueue/team-a.flavor.default.cpu.nominalQuota=16"  # what it is already

    def figures(*extra: str) -> list[dict[str, Any]]:
        run = kqctl("diff", sample, "--trace", trace, "--now", now, "--replay", "--set", same_quota, "-o", "json",
                    *extra)
        assert run.code == 0, run.err
        return json.loads(run.out)["timeToAdmission"]

    drawn, dated = figures("--arrivals", "jitter(20m)", "--seed", "1"), figures()
    assert drawn and all(group["before"] == group["after"] for group in drawn)
    assert [group["before"] for group in drawn] != [group["before"] for group in dated]
