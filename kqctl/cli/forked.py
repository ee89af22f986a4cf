"""explain's independent work on another core: the wait estimate's replay and part of the suggestions' checks, each
in a forked copy of this process (issue 21: explain of one of 50,000 workloads, estimate included, on 2 cores).

* The explanation (its steady state and the checks of its suggestions) and the estimate (a replay of the snapshot)
  read the same snapshot and nothing of each other: the replay starts from the inputs as given and watches the
  workload's key; only which keys it is asked for depends on the explanation (a workload that holds quota now and
  keeps it in the steady state gets none). So for a workload that holds no quota now, a copy replays while this
  process explains (:class:`EstimateAhead`).
* The checks of completions and preemption policies read nothing the checks of quota change (explain.suggestions):
  a copy runs them while this process runs the quota checks (:func:`checks_apart`).

A copy shares everything as it was when forked (nothing is sent to it) and sends back its answer, pickled: the same
values this process would have worked out (the engine is deterministic; a copy's own memo of pod sets and shapes
gives the same answers). A copy that fails sends nothing, and the work is then done here, as without a copy (any
error is then raised here, where it always was): the output never depends on whether a copy ran. Only for large
inputs (a fork costs milliseconds) and where the platform forks.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
    from kqctl.kueue.replay.estimate import EstimateReplay
    from kqctl.replay.durations import Distribution

_T = TypeVar("_T")

LARGE_INPUT = 2_000  # workloads; below this the work takes well under a second


def worth_it(snapshot: Snapshot) -> bool:
    return len(snapshot.workloads) >= LARGE_INPUT and hasattr(os, "fork")


class Forked:
    """``work`` running in a forked copy of this process; :meth:`answer` waits for what it returned (None: it
    failed), :meth:`cancel` ends it unread. Every copy is waited for (no zombie)."""

    def __init__(self, work: Callable[[], object]) -> None:
        sys.stdout.flush()  # nothing buffered here is written twice by the copy
        sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy: work, send, and leave without running any of this process's exit handlers
            os.close(read)
            status = 0
            try:
                data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as stream:
                    stream.write(data)
            except BaseException:  # noqa: BLE001 - the work is done again here, which reports any error
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        self.pid, self.pipe = pid, read

    def answer(self) -> tuple[bool, Any]:
        """(True, what the work returned), or (False, None) when the copy failed or was cancelled."""
        if self.pipe < 0:
            return False, None
        with os.fdopen(self.pipe, "rb") as stream:
            self.pipe = -1
            data = stream.read()
        self._wait()
        return (True, pickle.loads(data)) if data else (False, None)

    def cancel(self) -> None:
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
            if self.pid:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self._wait()

    def _wait(self) -> None:
        if self.pid:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = 0


class EstimateAhead:
    """The replay for one workload's wait estimate, in a copy; :meth:`report` reads it, :meth:`close` ends it."""

    def __init__(self, copy: Forked, key: str) -> None:
        self.copy, self.key = copy, key

    @classmethod
    def start(cls, snapshot: Snapshot, sim_options: SimulationOptions, assumed_runtime: Distribution | None,
              key: str, prebuilt: Simulation | None = None) -> EstimateAhead | None:
        """The copy replaying for ``key``'s estimate, or None where it is not worth it (small input, the workload
        holds quota now, no fork). ``prebuilt``: explain's steady-state run, set up and not run yet, which the copy
        takes as its replay's set-up (explain's ``on_setup``: the 50,000 workloads are set up once, not once here and
        once in the copy)."""
        if not worth_it(snapshot):
            return None
        model = next((w for w in snapshot.workloads if f"{w.namespace}/{w.name}" == key), None)
        if model is None or model.admission is not None:
            return None
        return cls(Forked(lambda: _replay(snapshot, sim_options, assumed_runtime, key, prebuilt)), key)

    @property
    def pid(self) -> int:
        return self.copy.pid

    def report(self, keys: list[str]) -> EstimateReplay | None:
        """The copy's replay, when it is the one asked for (``keys`` is this key alone) and it succeeded."""
        if keys != [self.key]:
            return None
        from kqctl.kueue.replay.estimate import EstimateReplay

        done, found = self.copy.answer()
        return found if done and isinstance(found, EstimateReplay) else None

    def close(self) -> None:
        self.copy.cancel()


def _replay(snapshot: Snapshot, sim_options: SimulationOptions, assumed_runtime: Distribution | None,
            key: str, prebuilt: Simulation | None) -> EstimateReplay:
    from kqctl.kueue.replay.estimate import replay_for_explained

    return replay_for_explained(snapshot, sim_options, assumed_runtime, [key], prebuilt)


class _Checks(Generic[_T]):
    """explain.Pending for checks in a copy: their answer, or the checks run here when the copy failed."""

    def __init__(self, check: Callable[[], _T]) -> None:
        self.check = check
        self.copy = Forked(check)

    def result(self) -> _T:
        done, found = self.copy.answer()
        return found if done else self.check()  # type: ignore[no-any-return]

    def cancel(self) -> None:
        self.copy.cancel()


def checks_apart(check: Callable[[], _T]) -> _Checks[_T]:
    """explain.Apart: the checks in a forked copy."""
    return _Checks(check)
