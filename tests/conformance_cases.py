"""Reading and comparing the Kueue conformance cases copied into tests/conformance/data (see its README.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml
from support import KUEUE_CONFORMANCE, KUEUE_PORTED

from kqctl.k8s.quantity import parse_quantity

KUEUE_CASES = KUEUE_CONFORMANCE
# Config keys that hold state no manifest can carry: such cases go through the engine's API.
ENGINE_ONLY_CONFIG = ("injectedWorkloadStatusPatchError", "admissionFairSharing", "quotaChurnBetweenCycles")


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    path: Path

    @property
    def snapshot(self) -> Path:
        return self.path / "snapshot.yaml"

    @property
    def expected(self) -> dict[str, Any]:
        return yaml.safe_load((self.path / "expected.yaml").read_text())

    @property
    def config(self) -> dict[str, Any]:
        return self.expected.get("config") or {}

    def __str__(self) -> str:
        return f"{self.suite}/{self.name}"


def cases(*suites: str, root: Path = KUEUE_CASES) -> list[Case]:
    """The cases of ``suites`` under ``root``: the recorded copy (default) or KUEUE_PORTED, the hand-ported ones."""
    if not root.is_dir():
        raise RuntimeError(f"conformance data not found at {root}: run scripts/refresh_upstream_data.py")
    found = [Case(suite, path.name, path) for suite in suites
             for path in sorted((root / suite).iterdir()) if path.is_dir()]
    if not found:
        raise RuntimeError(f"no conformance cases for {suites} under {root}")
    return found


def ported_cases(*suites: str) -> list[Case]:
    """The cases translated by hand from Kueue's Go tests (tests/conformance/data/kueue-ported/README.md)."""
    return cases(*suites, root=KUEUE_PORTED)


def needs_engine_api(case: Case) -> bool:
    return any(key in case.config for key in ENGINE_ONLY_CONFIG)


def cli_arguments(case: Case, extra_files: list[str]) -> list[str]:
    """The documented command line for a case (conformance README, 'The command-line contract'), with --as-given:
    the recorded objects never went through an API server (Kueue's unit tests build them in Go, undefaulted, some
    not even valid API objects), so they are simulated exactly as written (DEF-4)."""
    expected = case.expected
    config = expected.get("config") or {}
    args = ["simulate", str(case.snapshot), *extra_files, "--cycles", str(expected.get("cycles", 1)), "-o", "json",
            "--as-given"]
    if config.get("fairSharing"):
        args.append("--fair-sharing")
    gates = config.get("featureGates") or {}
    if gates:
        args += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in sorted(gates.items()))]
    if config.get("now"):
        args += ["--now", config["now"]]
    return args


def configuration_document(case: Case) -> str | None:
    """A Kueue Configuration carrying the case's fair-sharing preemption strategies and resource transformations, if
    it has any."""
    strategies = case.config.get("preemptionStrategies")
    transformations = case.config.get("resourceTransformations")
    if not strategies and not transformations:
        return None
    document: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    if strategies:
        document["fairSharing"] = {"preemptionStrategies": strategies}
    if transformations:
        document["resources"] = {"transformations": transformations}
    return yaml.safe_dump(document)


def _value(quantity: Any) -> Fraction:
    return parse_quantity(str(quantity)).value


def normalized_admitted(admitted: dict[str, Any] | None) -> dict[str, Any]:
    """Admissions compared by value (quantities may be spelled differently)."""
    result: dict[str, Any] = {}
    for key, admission in (admitted or {}).items():
        result[key] = {
            "clusterQueue": admission["clusterQueue"],
            "podSetAssignments": [
                {"name": ps["name"], "flavors": ps.get("flavors") or {}, "count": ps.get("count"),
                 "resourceUsage": {r: _value(q) for r, q in (ps.get("resourceUsage") or {}).items()}}
                for ps in admission["podSetAssignments"]
            ],
        }
    return result


SCHEDULER_KEYS = ("admitted", "newlyAdmitted", "preempted", "pending", "inadmissible")


def scheduler_differences(got: dict[str, Any], expected: dict[str, Any], *, only_present: bool = False) -> list[str]:
    """The keys a scheduler-suite case compares: admitted, newlyAdmitted, preempted, pending, inadmissible.
    ``only_present``: compare only the keys ``expected`` has (a hand-ported case writes only what its Go test
    asserts); otherwise a missing key means empty."""
    keys = [k for k in SCHEDULER_KEYS if not only_present or k in expected]
    diffs: list[str] = []
    if "admitted" in keys and normalized_admitted(got.get("admitted")) != normalized_admitted(expected.get("admitted")):
        diffs.append("admitted")
    for key in ("newlyAdmitted", "preempted"):
        if key in keys and sorted(got.get(key) or []) != sorted(expected.get(key) or []):
            diffs.append(key)
    for key in ("pending", "inadmissible"):
        mine = {q: sorted(v) for q, v in (got.get(key) or {}).items() if v}
        theirs = {q: sorted(v) for q, v in (expected.get(key) or {}).items() if v}
        if key in keys and mine != theirs:
            diffs.append(key)
    return [f"{d}: got {got.get(d)!r}, expected {expected.get(d)!r}" for d in diffs]


def simulate_json(case: Case, tmp_path: Path) -> dict[str, Any]:
    """``kqctl simulate -o json`` of the case as its config says (a Kueue configuration file written to ``tmp_path``
    when the case has one); the command must succeed."""
    from support import run_kqctl

    extra = []
    document = configuration_document(case)
    if document is not None:
        config = tmp_path / "kueue-config.yaml"
        config.write_text(document)
        extra.append(str(config))
    run = run_kqctl(*cli_arguments(case, extra))
    assert run.code == 0, f"kqctl exited {run.code}: {run.err}"
    return json.loads(run.out)  # type: ignore[no-any-return]


def explain_arguments(case: Case) -> list[str]:
    """``kqctl explain`` of the case's workload as written (DEF-4: the cases build objects as Kueue's tests do), with
    the fair sharing and feature gates its config sets."""
    expected = case.expected
    config = expected.get("config") or {}
    args = ["explain", expected["workload"], "-f", str(case.snapshot), "-o", "json", "--as-given"]
    if config.get("enableFairSharing"):
        args.append("--fair-sharing")
    gates = config.get("featureGates") or {}
    if gates:
        args += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in sorted(gates.items()))]
    return args
