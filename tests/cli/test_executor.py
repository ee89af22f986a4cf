"""Where plan's replays run (kqctl/cli/executor.py): local processes, or a real Dask cluster started here.

The Dask tests start a ``distributed.LocalCluster`` of two worker processes (no mock): the test extra installs
Dask, so CI runs them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from distributed import Client, LocalCluster
from support import REPO

from kqctl.cli.executor import (
    DaskExecutor,
    ExecutorError,
    ExecutorSpec,
    LocalExecutor,
    Work,
    open_executor,
    parse_executor,
)
from kqctl.errors import EXIT_CLUSTER, UsageError


@pytest.mark.parametrize(("text", "spec"), [
    ("local", ExecutorSpec("local")),
    (" local ", ExecutorSpec("local")),
    ("dask://10.0.0.5:8786", ExecutorSpec("dask", "tcp://10.0.0.5:8786")),
    ("tcp://scheduler.example.com:8786", ExecutorSpec("dask", "tcp://scheduler.example.com:8786")),
    ("dask://[::1]:8786", ExecutorSpec("dask", "tcp://[::1]:8786")),
])
def test_executor_addresses_are_local_or_a_dask_scheduler(text: str, spec: ExecutorSpec) -> None:
    assert parse_executor(text) == spec


@pytest.mark.parametrize(("text", "message"), [
    ("dask://host", "expected 'local' or dask://HOST:PORT"),
    ("dask://host:0", "port 0 is not between 1 and 65535"),
    ("dask://host:70000", "port 70000 is not between 1 and 65535"),
    ("http://host:8786", "expected 'local' or dask://HOST:PORT"),
    ("ray://head:10001", "kqctl runs studies on Dask distributed, not Ray"),
    ("threads", "expected 'local' or dask://HOST:PORT"),
])
def test_other_executors_are_usage_errors_that_say_what_is_expected(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_executor(text)


def test_jobs_apply_to_local_processes_only() -> None:
    with pytest.raises(UsageError, match="--jobs applies to --executor local"):
        open_executor(ExecutorSpec("dask", "tcp://127.0.0.1:1"), study(), 3)


def with_seed(options: Any, seed: int) -> Any:
    return dataclasses.replace(options, timeline=dataclasses.replace(options.timeline, seed=seed))


def study() -> Work:
    """A real plan's work: Kueue's evaluate on a sample whose workloads declare no runtime (drawn from a
    lognormal)."""
    from kqctl.cli.replay import ReplaySettings, replay_input
    from kqctl.kueue.replay.plan import evaluate, make_problem

    sample = str(REPO / "samples" / "cohort-borrowing")
    snapshot = replay_input([sample], None, False, None, None, "2026-01-01T00:00:00Z", 0, False, None, False, False,
                            None, None, None)
    problem = make_problem(snapshot, "p95(time-to-admission) < 30m", "clusterqueue/team-a")
    options = ReplaySettings("lognormal(20m,0.8)", "calibrated", "0s", 0, None, None, None).options()
    return Work(evaluate, with_seed, snapshot, problem, options)


def tasks(work: Work) -> list[tuple[tuple[int, ...], int]]:
    """Three candidates (half, all and twice today's quota), each under two draws."""
    current = work.problem.current
    return [(tuple(v * k // 2 for v in current), seed) for k in (1, 2, 4) for seed in (1, 2)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local


def test_a_dask_cluster_gives_exactly_the_results_of_this_process(cluster: LocalCluster) -> None:
    work = study()
    with LocalExecutor(work, 1) as here:
        expected = here.map(tasks(work))
    with DaskExecutor(work, cluster.scheduler_address) as remote:
        assert remote.workers == 2, "one task at a time per worker thread"
        assert remote.map(tasks(work)) == expected
    # The draws matter: two seeds of one candidate differ (otherwise the test would prove nothing).
    assert expected[0] != expected[1]


def test_local_processes_give_exactly_the_results_of_this_process() -> None:
    work = study()
    with LocalExecutor(work, 1) as here, LocalExecutor(work, 2) as processes:
        assert processes.workers == 2
        assert processes.map(tasks(work)) == here.map(tasks(work))


def test_the_snapshot_goes_to_the_cluster_once_and_every_task_is_one_replay(cluster: LocalCluster) -> None:
    with Client(cluster.scheduler_address, set_as_default=False) as observer:
        before = observer.run_on_scheduler(_prefix_counts)
        work = study()
        with DaskExecutor(work, cluster.scheduler_address) as remote:
            remote.map(tasks(work)[:3])
            remote.map(tasks(work)[3:])
            held = observer.run(_work_keys)
        after = observer.run_on_scheduler(_prefix_counts)
    ran = after.get("run_task", {}).get("forgotten", 0) - before.get("run_task", {}).get("forgotten", 0)
    assert ran == len(tasks(work)), "one task per replay, each run once"
    # One scattered copy of the work, the same key on every worker, however many tasks and batches used it.
    assert len(held) == 2 and all(len(keys) == 1 for keys in held.values())
    assert len({keys[0] for keys in held.values()}) == 1


def _prefix_counts(dask_scheduler: Any) -> dict[str, dict[str, int]]:
    """How many tasks of each name went through each state (the scheduler counts every transition)."""
    return {str(name): dict(prefix.state_counts) for name, prefix in dask_scheduler.task_prefixes.items()}


def _work_keys(dask_worker: Any) -> list[str]:
    return [str(key) for key in dask_worker.data if str(key).startswith("Work-")]


def test_an_unreachable_dask_scheduler_ends_with_the_cluster_exit_code_and_its_address() -> None:
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9") as raised:
        with DaskExecutor(study(), "tcp://127.0.0.1:9", connect_timeout=1):
            pass
    assert raised.value.exit_code == EXIT_CLUSTER


def test_plan_with_draws_on_a_dask_cluster_answers_exactly_as_local_processes(cluster: LocalCluster) -> None:
    """The real command: the same candidates, seeds and answer, every replay's figures equal."""
    from support import run_kqctl

    plan = ("plan", str(REPO / "samples" / "cohort-borrowing"), "--for", "clusterqueue/team-a", "--target",
            "p95(time-to-admission) < 30m", "--runtime", "lognormal(20m,0.8)", "--now", "2026-01-01T00:00:00Z",
            "--seeds", "3", "--budget", "8", "-o", "json")
    local = run_kqctl(*plan, "--executor", "local", "--jobs", "2")
    remote = run_kqctl(*plan, "--executor", cluster.scheduler_address)
    assert local.code == remote.code == 0, local.err + remote.err
    assert json.loads(remote.out) == json.loads(local.out)
    assert json.loads(local.out)["proof"]["atAnswer"]["draws"]["seeds"] == [0, 1, 2]


@pytest.mark.parametrize("plan", [
    ("plan", str(REPO / "samples" / "volcano-two-teams"), "--for", "queue/team-a", "--field", "weight",
     "--target", "p95(time-to-admission) < 20m", "--runtime", "lognormal(20m,0.8)"),
    ("plan", str(REPO / "samples" / "yunikorn-priority"), "--for", "queue/root.tenant1", "--field", "guaranteed",
     "--target", "p95(time-to-admission) < 10m", "--runtime", "lognormal(30m,0.8)"),
], ids=["volcano", "yunikorn"])
def test_volcano_and_yunikorn_plans_on_a_dask_cluster_answer_exactly_as_local_processes(
        cluster: LocalCluster, plan: tuple[str, ...]) -> None:
    from support import run_kqctl

    study = (*plan, "--now", "2026-01-01T12:00:00Z", "--seeds", "3", "--budget", "6", "-o", "json")
    local = run_kqctl(*study, "--executor", "local", "--jobs", "2")
    remote = run_kqctl(*study, "--executor", cluster.scheduler_address)
    assert local.code == remote.code == 0, local.err + remote.err
    assert json.loads(remote.out) == json.loads(local.out)
    assert json.loads(local.out)["proof"]["atAnswer"]["draws"]["seeds"] == [0, 1, 2]
