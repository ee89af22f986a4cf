"""Kueue's TestAssignFlavors cases that tests/conformance/data/kueue lacks, ported by hand into
tests/conformance/data/kueue-ported/flavor-assign (its README.md), run through ``kqctl explain`` as
test_explain_conformance.py runs the recorded ones.

Compared: what the Go test asserts of the assignment (wantRepMode and wantAssignment with
UnadmittedWorkloadsObservability on): representative mode, borrowing, the message its pod sets' reasons
make, the NoFit reason, and per pod set its count, requests and, per resource, the flavor, mode and
TriedFlavorIdx (a flavor's own borrowing is unexported in Go and not compared by the test).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conformance_cases import Case, explain_arguments
from kueue_ported_cases import ported_cases, with_known_differences
from support import run_kqctl

from kqctl.k8s.quantity import parse_quantity

CASES = ported_cases("flavor-assign")

# suite/case -> why kqctl differs from the Go test's assertion (xfail, strict).
KNOWN_DIFFERENCES: dict[str, str] = {}


def test_the_ported_suite_has_its_cases() -> None:
    assert len(CASES) == 14


def comparable(assignment: dict[str, Any]) -> dict[str, Any]:
    return {
        "representativeMode": assignment["representativeMode"],
        "borrowing": assignment["borrowing"],
        "message": assignment.get("message") or "",
        "noFitReason": assignment.get("noFitReason") or "",
        "podSets": [{
            "name": ps["name"], "count": ps["count"],
            "requests": {r: parse_quantity(str(q)).value for r, q in (ps.get("requests") or {}).items()},
            "flavors": {r: {k: f[k] for k in ("name", "mode", "triedFlavorIdx")}
                        for r, f in (ps.get("flavors") or {}).items()},
        } for ps in assignment["podSets"]],
    }


@pytest.mark.parametrize("case", with_known_differences(CASES, KNOWN_DIFFERENCES))
def test_flavor_assignment_matches_the_go_test(case: Case) -> None:
    expected = case.expected
    run = run_kqctl(*explain_arguments(case))
    assert run.code == 0, run.err
    got = json.loads(run.out)
    assert got["clusterQueue"] == expected["clusterQueue"]
    assert comparable(got) == comparable(expected["assignment"])
