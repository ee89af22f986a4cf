"""The waits line of a Volcano or YuniKorn replay's headline: the workloads that never started, those still waiting
told apart from those the replay ended (a failed gang, a rejected application)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kqctl.render.replay import never_started


def _report(states: dict[str, str], never: tuple[str, ...]) -> Any:
    workloads = tuple(SimpleNamespace(key=key, state=state) for key, state in states.items())
    return SimpleNamespace(workloads=workloads, overall=SimpleNamespace(never_admitted=never),
                           words=SimpleNamespace(started="allocated"))


@pytest.mark.parametrize(("states", "never", "expected"), [
    ({"a": "Finished"}, (), ""),
    ({"a": "Pending", "b": "Finished"}, ("a",), "; 1 still waiting at the end (never allocated)"),
    ({"a": "Failed", "b": "Finished"}, ("a",), "; 1 never allocated (1 failed)"),
    ({"a": "Pending", "b": "Failed", "c": "Rejected", "d": "Failed"}, ("a", "b", "c", "d"),
     "; 1 still waiting at the end (never allocated); 3 never allocated (2 failed, 1 rejected)"),
    ({"a": "Preempted"}, ("a",), "; 1 still waiting at the end (never allocated)"),  # evicted: waits to come back
])
def test_the_waits_line_tells_workloads_still_waiting_from_those_the_replay_ended(
        states: dict[str, str], never: tuple[str, ...], expected: str) -> None:
    assert never_started(_report(states, never)) == expected
