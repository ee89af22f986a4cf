"""explain's wait estimate, replayed in a second process while this one explains (issue 21: explain of one of
50,000 workloads, estimate included, on 2 cores).

The explanation (its steady state and the checks of its suggestions) and the estimate (a replay of the snapshot) read
the same snapshot and nothing of each other: the estimate's replay starts from the inputs as given and watches the
workload's key, and only which keys it is asked for depends on the explanation (a workload that holds quota now and
keeps it in the steady state gets no estimate). So for a workload that holds no quota now (one the estimate is
asked for unless it is not queued at all), a forked copy of this process replays while this one explains. The copy
shares the snapshot as it was read (fork: nothing is sent to it) and sends back the replay's figures for that key,
which are what this process would have worked out (the replay is deterministic; its own memo of pod sets and shapes
gives the same answers). Anything else (a worker that failed, the estimate not wanted after all) falls back to the
replay here or to none: the output never depends on whether the worker ran.

Only for large inputs (a fork costs milliseconds; a small replay costs less) and where the platform forks.
"""

from __future__ import annotations

import os
import pickle
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.engine.simulation import SimulationOptions
    from kqctl.kueue.replay.estimate import EstimateReplay
    from kqctl.replay.durations import Distribution

AHEAD_FROM = 2_000  # workloads; below this the replay takes well under a second


class EstimateAhead:
    """A forked process replaying for the estimate of one workload; :meth:`report` reads it, :meth:`close` ends it."""

    def __init__(self, pid: int, pipe: int, key: str) -> None:
        self.pid, self.pipe, self.key = pid, pipe, key

    @classmethod
    def start(cls, snapshot: Snapshot, sim_options: SimulationOptions, assumed_runtime: Distribution | None,
              key: str) -> EstimateAhead | None:
        """The worker for ``key``'s estimate, or None where it is not worth it (small input, the workload holds quota
        now, no fork)."""
        if len(snapshot.workloads) < AHEAD_FROM or not hasattr(os, "fork"):
            return None
        model = next((w for w in snapshot.workloads if f"{w.namespace}/{w.name}" == key), None)
        if model is None or model.admission is not None:
            return None
        sys.stdout.flush()  # nothing buffered is written twice (the worker never writes, but a library might flush)
        sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: replay, send, and leave without running any of the parent's exit handlers
            os.close(read)
            status = 0
            try:
                _replay_and_send(write, snapshot, sim_options, assumed_runtime, key)
            except BaseException:  # noqa: BLE001 - the parent replays again and reports any error itself
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        return cls(pid, read, key)

    def report(self, keys: list[str]) -> EstimateReplay | None:
        """The worker's replay, when it is the one asked for (``keys`` is this key alone) and it succeeded."""
        if keys != [self.key] or self.pipe < 0:
            return None
        with os.fdopen(self.pipe, "rb") as stream:
            self.pipe = -1
            data = stream.read()
        self._wait()
        if not data:
            return None
        found = pickle.loads(data)
        from kqctl.kueue.replay.estimate import EstimateReplay

        return found if isinstance(found, EstimateReplay) else None

    def close(self) -> None:
        """End the worker if its replay was not read (the explanation needs no estimate, or failed)."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
            if self.pid:
                import signal

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


def _replay_and_send(pipe: int, snapshot: Snapshot, sim_options: SimulationOptions,
                     assumed_runtime: Distribution | None, key: str) -> None:
    from kqctl.kueue.engine.workloads import WorkloadMemo
    from kqctl.kueue.replay.estimate import replay_for_estimates
    from kqctl.kueue.replay.report import KueueReplayOptions
    from kqctl.kueue.replay.timeline import TimelineOptions

    timeline = TimelineOptions(gates=sim_options.gates, fair_sharing=sim_options.fair_sharing, memo=WorkloadMemo())
    report = replay_for_estimates(snapshot, KueueReplayOptions(timeline), assumed_runtime, [key])
    with os.fdopen(pipe, "wb") as stream:
        stream.write(pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL))
