"""TAS-6's placement block at the end of the flavor assignment is skipped for a head whose pod sets ask for no topology
in a ClusterQueue that is not TAS-only (TAS-1, TAS-2): the block would find no pod set to place and leave the
assignment as it is. Forcing it to run for every head decides the same, on every Kueue sample and random scenarios."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.engine.cycle import Scheduler
from kqctl.kueue.engine.flavors import tas_assigner
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import load_paths, load_text
from tests.kueue.engine.random_scenarios import scenario

SAMPLES = Path(__file__).resolve().parents[4] / "samples"
KUEUE_SAMPLES = sorted(p.name for p in SAMPLES.iterdir()
                       if p.is_dir() and not p.name.startswith(("volcano", "yunikorn", "broken")))
NOW = datetime(2026, 1, 1, 1, tzinfo=timezone.utc)


def _decisions(snapshot: Any) -> Any:
    result = simulate(snapshot, SimulationOptions(now=NOW))
    return result.cycles, result.workloads


def _with_block_everywhere(monkeypatch: pytest.MonkeyPatch, snapshot: Any) -> Any:
    """Every ClusterQueue taken as TAS-only by the scheduler: the block runs for every head (its own TAS-1 check
    still reads the real flavors, so it places nothing where nothing asks), and the assignment memo is bypassed."""
    with monkeypatch.context() as patched:
        patched.setattr(Scheduler, "_tas_only", lambda self, cq: True)
        return _decisions(snapshot)


@pytest.mark.parametrize("sample", KUEUE_SAMPLES)
def test_tas_6_skipping_the_block_decides_as_running_it_on_every_sample(sample: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(SAMPLES / sample)]), NOW)
    assert _decisions(snapshot) == _with_block_everywhere(monkeypatch, snapshot)


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_tas_6_skipping_the_block_decides_as_running_it_on_random_scenarios(seed: int,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, scenario(seed).text(), "random.yaml"), NOW)
    assert _decisions(snapshot) == _with_block_everywhere(monkeypatch, snapshot)


def test_tas_6_a_cluster_without_topologies_never_enters_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = tas_assigner.assign_topology

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append("block")
        original(*args, **kwargs)

    monkeypatch.setattr(tas_assigner, "assign_topology", counted)
    snapshot = build_snapshot(load_text(ALL_KINDS, scenario(3).text(), "random.yaml"), NOW)
    assert _decisions(snapshot)
    assert calls == []
    with monkeypatch.context() as patched:
        patched.setattr(Scheduler, "_tas_only", lambda self, cq: True)
        _decisions(snapshot)
    assert calls  # the counter sees the block when it runs
