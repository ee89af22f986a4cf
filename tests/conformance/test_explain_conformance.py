"""Kueue's recorded flavor assignments reproduced through the real ``kqctl explain`` command.

Compared with ``replay.assignment`` (real Kueue on these manifests, with its real preemption
oracle): representative mode, borrowing level, message, and per pod set the count and the flavor,
mode and borrowing level of every resource.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conformance_cases import Case, cases, explain_arguments
from support import run_kqctl

FLAVOR_CASES = cases("flavor-assign", "flavor-assign-reclaim", "flavor-assign-hierarchical")


def comparable(assignment: dict[str, Any]) -> dict[str, Any]:
    return {
        "representativeMode": assignment["representativeMode"],
        "borrowing": assignment["borrowing"],
        "message": assignment.get("message") or "",
        "podSets": [{
            "name": ps["name"], "count": ps["count"],
            "flavors": {r: {k: f[k] for k in ("name", "mode", "borrow")} for r, f in (ps.get("flavors") or {}).items()},
        } for ps in assignment["podSets"]],
    }


@pytest.mark.parametrize("case", FLAVOR_CASES, ids=str)
def test_flavor_assignment_matches_kueue(case: Case) -> None:
    expected = case.expected
    run = run_kqctl(*explain_arguments(case))
    assert run.code == 0, run.err
    got = json.loads(run.out)
    assert got["clusterQueue"] == expected["clusterQueue"]
    assert comparable(got) == comparable(expected["replay"]["assignment"])
