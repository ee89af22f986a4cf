"""simulate --fail-on: a non-zero exit for CI when a workload ends in a state it names."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import REPO, Run

Kq = Callable[..., Run]


def sample(name: str) -> str:
    return str(REPO / "samples" / name)


@pytest.mark.parametrize("name, flags, code, named", [
    ("preemption", ["--cycles", "1", "--fail-on", "preempted"], 1,
     "fraud-research/job-ablation-dropout-0a1b2"),
    ("preemption", ["--cycles", "1", "--fail-on", "inadmissible"], 0, None),
    # Steady state: the victims end "Preempted (inadmissible)", which is inadmissible too (README).
    ("preemption", ["--fail-on", "inadmissible"], 1, "fraud-research/job-ablation-dropout-0a1b2"),
    ("preemption", ["--fail-on", "pending"], 0, None),
    ("single-clusterqueue", ["--fail-on", "inadmissible"], 1, "default/job-nightly-report-9e3d6"),
    ("single-clusterqueue", ["--fail-on", "preempted", "--fail-on", "pending"], 0, None),
    ("single-clusterqueue", ["--fail-on", "pending,inadmissible"], 1, "2 workload(s)"),
])
def test_fail_on_exits_1_only_when_a_workload_ends_in_a_named_state(kqctl: Kq, name: str, flags: list[str],
                                                                      code: int, named: str | None) -> None:
    run = kqctl("simulate", sample(name), *flags)
    assert run.code == code, run.err
    assert run.out.startswith("CLUSTERQUEUE ")  # the report is still printed
    if named is not None:
        assert named in run.err and "--fail-on" in run.err


def test_an_unknown_fail_on_state_is_a_usage_error(kqctl: Kq) -> None:
    run = kqctl("simulate", sample("preemption"), "--fail-on", "admitted")
    assert run.code == 2 and "choose from: inadmissible, pending, preempted" in run.err


@pytest.mark.parametrize("name, state, quiet, failing, named", [
    ("cohort-borrowing", "inadmissible", "team-b", "team-a", "team-a/job-llm-finetune-0d5b7"),
    ("volcano-hierarchy", "inadmissible", "ml", "web", "web/render"),  # never enqueued: Pending
    ("yunikorn-priority", "pending", "kube-ops", "team1", "team1/"),
])
def test_fail_on_asks_about_the_namespace_shown_in_every_scheduler(kqctl: Kq, name: str, state: str, quiet: str,
                                                                    failing: str, named: str) -> None:
    # A CI job for one team fails on that team's work only: --fail-on follows -n (and -l) as the table does.
    assert kqctl("simulate", sample(name), "-n", quiet, "--fail-on", state).code == 0
    run = kqctl("simulate", sample(name), "-n", failing, "--fail-on", state)
    assert run.code == 1 and named in run.err and "--fail-on" in run.err
