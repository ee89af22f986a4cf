"""Where plan's replays run (``--executor``): processes on this machine's cores, or a Dask cluster.

A capacity study is many independent replays of one snapshot: candidates × random draws. Each replay is one
task; what every task shares (the scheduler's evaluate function, the snapshot, the planning problem, the replay
options) is a :class:`Work`, shipped once to each worker: at fork (or once per spawned process) on this machine,
with ``Client.scatter(broadcast=True)`` to every worker of a Dask cluster. A task is a candidate's quotas and
a seed; its result is what the scheduler's evaluate returns, a pure function of the work and the task, so a
study gives the same answer wherever it runs.

Why Dask distributed and not Ray: kqctl's tasks are plain Python functions over plain Python objects, which is
what Dask's ``Client.map`` runs; ``distributed`` is pure Python (about 5 MB with its dependencies, wheels for
every Python kqctl supports) and a local cluster starts in seconds on a laptop, while Ray is an 80 MB native
wheel with its own object store and runtime, most of which a replay never uses. ``pip install 'kqctl[dask]'``
installs it; the workers need the same kqctl installed (``dask worker`` in that environment).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kqctl.errors import EXIT_CLUSTER, KqctlError, UsageError

LOCAL = "local"
EXECUTOR_HELP = ("Where the replays run: 'local' (processes on this machine, --jobs of them) or 'dask://HOST:PORT' "
                 "(a Dask distributed scheduler; pip install 'kqctl[dask]', the same kqctl on every worker).")
_ADDRESS = re.compile(r"^(dask|tcp|ray)://([^\s:/]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$")
CONNECT_TIMEOUT_S = 20

Values = tuple[int, ...]
Task = tuple[Values, "int | None"]  # a candidate's quotas, and the seed of its draws (None: the options' own)


class ExecutorError(KqctlError):
    """The distributed engine cannot be reached or cannot run kqctl's tasks."""

    exit_code = EXIT_CLUSTER


@dataclass(frozen=True)
class Work:
    """What every task of a study shares; shipped once to each worker.

    ``evaluate(snapshot, problem, values, options)`` replays one candidate; ``with_seed(options, seed)`` gives the
    replay options of one random draw (runtimes and anything else drawn). Both must be module-level functions (a
    worker imports them by name)."""

    evaluate: Callable[[Any, Any, Values, Any], Any]
    with_seed: Callable[[Any, int], Any] | None
    snapshot: Any
    problem: Any
    options: Any


def run_task(task: Task, work: Work) -> Any:
    """One replay: the candidate ``task[0]`` under the draw ``task[1]``."""
    values, seed = task
    options = work.options if seed is None or work.with_seed is None else work.with_seed(work.options, seed)
    return work.evaluate(work.snapshot, work.problem, values, options)


@dataclass(frozen=True)
class ExecutorSpec:
    kind: str  # local | dask
    address: str = ""  # tcp://HOST:PORT for dask

    def describe(self) -> str:
        return "local processes" if self.kind == LOCAL else f"Dask at {self.address}"


def parse_executor(text: str) -> ExecutorSpec:
    """``local`` or ``dask://HOST:PORT`` (``tcp://HOST:PORT`` too, Dask's own form)."""
    raw = text.strip()
    if raw == LOCAL:
        return ExecutorSpec(LOCAL)
    match = _ADDRESS.match(raw)
    if match is None:
        raise UsageError(f"--executor {text!r}: expected 'local' or dask://HOST:PORT (e.g. dask://10.0.0.5:8786)")
    scheme, host, port = match.groups()
    if scheme == "ray":
        raise UsageError(f"--executor {text!r}: kqctl runs studies on Dask distributed, not Ray: start a Dask "
                         "scheduler (dask scheduler; dask worker tcp://HOST:8786 on each machine) and pass "
                         "dask://HOST:8786")
    if not 0 < int(port) < 65536:
        raise UsageError(f"--executor {text!r}: port {port} is not between 1 and 65535")
    return ExecutorSpec("dask", f"tcp://{host}:{port}")


class LocalExecutor:
    """Tasks in ``jobs`` processes of this machine (in this process when there is one)."""

    def __init__(self, work: Work, jobs: int) -> None:
        self.work = work
        self.workers = max(1, jobs or os.cpu_count() or 1)
        self._pool: Any = None

    def __enter__(self) -> LocalExecutor:
        if self.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.workers, initializer=_init_local, initargs=(self.work,))
        return self

    def __exit__(self, *_: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def map(self, tasks: Sequence[Task]) -> list[Any]:
        if self._pool is None:
            return [run_task(task, self.work) for task in tasks]
        return list(self._pool.map(_run_local, tasks))


# The work of a local worker process: inherited at fork, or unpickled once when the process starts.
_LOCAL_WORK: Work | None = None


def _init_local(work: Work) -> None:
    import gc

    global _LOCAL_WORK
    gc.disable()  # as the kqctl process itself: a replay makes many small acyclic objects
    _LOCAL_WORK = work


def _run_local(task: Task) -> Any:
    assert _LOCAL_WORK is not None
    return run_task(task, _LOCAL_WORK)


class DaskExecutor:
    """Tasks on a Dask distributed cluster: the work scattered once to every worker, one task per replay."""

    def __init__(self, work: Work, address: str, connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.work = work
        self.address = address
        self.connect_timeout = connect_timeout
        self.workers = 1
        self._client: Any = None
        self._work: Any = None

    def __enter__(self) -> DaskExecutor:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError(f"--executor dask://...: Dask distributed is not installed: pip install 'kqctl[dask]' "
                             f"(scheduler {self.address})") from None
        try:
            self._client = Client(self.address, timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(f"--executor: cannot reach the Dask scheduler at {self.address}: {exc}") from None
        self.workers = max(1, sum(self._client.nthreads().values()))
        self._work = self._client.scatter(self.work, broadcast=True, hash=False)
        return self

    def __exit__(self, *_: object) -> None:
        if self._client is not None:
            self._client.close()

    def map(self, tasks: Sequence[Task]) -> list[Any]:
        futures = self._client.map(run_task, list(tasks), work=self._work, pure=False)
        try:
            return list(self._client.gather(futures))
        except (ModuleNotFoundError, ImportError) as exc:
            raise ExecutorError(f"--executor: a Dask worker of {self.address} cannot import kqctl ({exc}): install "
                                "the same kqctl on every worker") from None


def open_executor(spec: ExecutorSpec, work: Work, jobs: int) -> LocalExecutor | DaskExecutor:
    """The executor ``spec`` names, not started yet (``with`` starts it)."""
    if spec.kind == LOCAL:
        return LocalExecutor(work, jobs)
    if jobs:
        raise UsageError("--jobs applies to --executor local; a Dask cluster runs as many tasks as its workers "
                         "have threads")
    return DaskExecutor(work, spec.address)


@dataclass(frozen=True)
class Study:
    """How a plan's candidates are replayed, whatever the scheduler: where (``--executor``), how many local
    processes (``--jobs``), and the random draws (``--seeds`` from ``--seed``, met in ``--confidence`` percent)."""

    where: ExecutorSpec
    jobs: int
    seed: int
    seeds: int
    confidence: int

    def open(self, work: Work, progress: Any) -> Evaluator:
        """The evaluator the search calls, not started yet (``with`` starts it).

        A round of the search replays SEARCH_WIDTH candidates (each under ``seeds`` draws): more local processes
        would have nothing to do. The candidates are the same whatever --jobs or --executor."""
        from kqctl.replay.planning import SEARCH_WIDTH

        if self.where.kind == LOCAL:
            jobs = min(self.jobs or os.cpu_count() or 1, SEARCH_WIDTH * max(1, self.seeds))
        else:
            jobs = self.jobs
        return Evaluator(open_executor(self.where, work, jobs), progress, self.seed, self.seeds, self.confidence)


class Evaluator:
    """Replays candidates on an executor: one task per candidate, or per candidate and draw with --seeds."""

    def __init__(self, runner: LocalExecutor | DaskExecutor, progress: Any, seed: int, seeds: int,
                 confidence: int) -> None:
        self.runner = runner
        self.progress = progress
        self.seeds = tuple(range(seed, seed + seeds))  # draw i: --seed + i (the first is the run without --seeds)
        self.confidence = confidence
        self.count = 0

    @property
    def workers(self) -> int:
        return self.runner.workers

    def __enter__(self) -> Evaluator:
        self.runner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.runner.__exit__(*exc)

    def __call__(self, candidates: list[Values]) -> list[Any]:
        from kqctl.replay.planning import Draw, over_draws

        if self.progress is not None:
            self.progress.step(f"kqctl: planning: {self.count} replays done, "
                               f"{len(candidates) * max(1, len(self.seeds))} running...")
        if not self.seeds:
            results: list[Any] = self.runner.map([(c, None) for c in candidates])
            self.count += len(results)
            return results
        tasks = [(c, s) for c in candidates for s in self.seeds]
        replays = self.runner.map(tasks)
        self.count += len(replays)
        per = len(self.seeds)
        return [over_draws([Draw(s, r) for s, r in zip(self.seeds, replays[i * per:(i + 1) * per], strict=True)],
                           self.confidence) for i in range(len(candidates))]
