"""Volcano's action unit tests (enqueue, reclaim, preempt, ...) ported as scenarios
(tests/conformance/data/volcano-ported, README there), each run through ``kqctl simulate <scenario> -o json``.

What a case asserts is what its Go test checks (uthelper.TestCommonStruct.CheckAll): the binds exactly (none
when the test names none), the evictions exactly as a multiset (none when it names none), for each job named in
``pipelined`` at least one pipelined task and every one on a listed node, and each named PodGroup's phase after
the session. A case kqctl does not reproduce yet is in XFAIL with the Volcano rule it lacks (strict).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO
from volcano_cases import one_session_simulator, scenario_text

from kqctl.volcano.engine import backfill

PORTED = REPO / "tests" / "conformance" / "data" / "volcano-ported"
CASES = sorted(PORTED.glob("*/*.yaml"))
# "<test dir>/<case file stem>" -> the Volcano rule kqctl lacks.
XFAIL: dict[str, str] = {}


@pytest.fixture(scope="module")
def simulate() -> Iterator[Any]:
    with one_session_simulator() as run:
        yield run


def differences(case: dict[str, Any], got: dict[str, Any], picked: list[list[str]]) -> list[str]:
    """What kqctl's session does that the Go test's checks reject, in CheckAll's order (``picked``: the tasks
    backfill took up, in order, per call; TestPickUpPendingTasks asserts only that)."""
    expected = case["expected"]
    if "pickUpOrder" in expected:
        return [] if picked == [expected["pickUpOrder"]] else [f"backfill order: Volcano {expected['pickUpOrder']}, "
                                                                 f"kqctl {picked}"]
    found = []
    if got["binds"] != expected["binds"]:
        found.append(f"binds: Volcano {expected['binds']}, kqctl {got['binds']}")
    evicted = sorted(e["pod"] for e in got["evictions"])
    if evicted != sorted(expected["evicted"]):
        found.append(f"evicted: Volcano {sorted(expected['evicted'])}, kqctl {evicted}")
    job_of = {f"{p['namespace']}/{p['name']}": f"{p['namespace']}/{p['podGroup']}" for p in case["pods"]}
    for job, nodes in expected.get("pipelined", {}).items():
        placed = {pod: node for pod, node in got["pipelined"].items() if job_of.get(pod) == job}
        if not placed or any(node not in nodes for node in placed.values()):
            found.append(f"pipelined {job}: Volcano on {nodes}, kqctl {placed}")
    for job, phase in expected.get("phases", {}).items():
        group = got["podGroups"].get(job)
        if group is None or group["phase"] != phase:
            found.append(f"phase {job}: Volcano {phase}, kqctl {group and group['phase']}")
    return found


def _param(path: Path) -> Any:
    key = f"{path.parent.name}/{path.stem}"
    marks = [pytest.mark.xfail(reason=XFAIL[key], strict=True)] if key in XFAIL else []
    return pytest.param(path, id=key, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in CASES])
def test_ported_action_case_through_kqctl_simulate(path: Path, simulate: Any, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    case: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    manifest = tmp_path / "scenario.yaml"
    manifest.write_text(scenario_text(case), encoding="utf-8")
    picked: list[list[str]] = []
    pick_up = backfill._pending_tasks

    def recording(ssn: Any) -> Any:
        tasks = pick_up(ssn)
        picked.append([task.pod.name for task in tasks])
        return tasks

    monkeypatch.setattr(backfill, "_pending_tasks", recording)
    assert differences(case, simulate(manifest), picked) == []


def test_every_xfail_names_a_case() -> None:
    assert set(XFAIL) <= {f"{p.parent.name}/{p.stem}" for p in CASES}


def test_every_case_is_collected() -> None:
    counts = {d.name: len(list(d.glob("*.yaml"))) for d in PORTED.iterdir() if d.is_dir()}
    assert counts == {"enqueue": 5, "reclaim": 9, "preempt": 13, "priority-preempt": 2, "backfill": 1, "allocate": 6,
                      "allocate-fair-share": 3, "capacity-allocate-reclaim": 11,
                      "capacity-hierarchy": 10, "capacity-ancestor-reclaim": 7,
                      "proportion-no-double-counting": 2, "capacity-no-double-counting": 2,
                      "proportion-enqueue-allocate": 5, "proportion-allocate": 1, "capacity-enqueue-allocate": 4}
