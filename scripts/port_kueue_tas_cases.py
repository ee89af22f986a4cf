#!/usr/bin/env python3
"""Port the cases of Kueue's TestScheduleForTAS (pkg/scheduler/scheduler_tas_test.go) into
tests/conformance/data/kueue-ported/tas/<slug>/ (snapshot.yaml + expected.yaml), with the builders of
gobuilders.py; see tests/conformance/data/kueue-ported/README.md for what each file holds.

A case that needs what kqctl does not model (see NOT_MODELLED) is not written; the script prints it with why,
and the data README lists them.

    python scripts/port_kueue_tas_cases.py [--mirror /work/.mirror/kubernetes-sigs+kueue/repo] [--case NAME]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gobuilders import Evaluator, GoError, k8s_time, strip_type, v1beta2_topology_assignment  # noqa: E402
from gosubset import Composite, Lit, Parser, parse_at  # noqa: E402
from port_kueue_unit_cases import COMMIT, PORTED, dump, function_body, go_source, obj, slug, source  # noqa: E402

FILE = "pkg/scheduler/scheduler_tas_test.go"
# The clock of the kueue-ported scheduler cases (README.md); no TAS case reads it but creation times.
NOW = datetime(2026, 11, 21, 12, 35, 53, tzinfo=timezone.utc)
# One of the scenarios each test runs every case in (their assertions are the same in all).
SCENARIO = {"WorkloadRequestUseMergePatch": False, "UnadmittedWorkloadsObservability": True,
            "TASCacheNodeMatchResults": True, "TASCachingRemainingResources": True}
# Suite folder -> the Go test and the scenario its procedure adds (runTASScheduleTestCases also sets
# VectorizedResourceRequests, on in all but one of its scenarios).
SUITES = {
    "tas": ("TestScheduleForTAS", SCENARIO),
    "tas-preemption": ("TestScheduleForTASPreemption", {**SCENARIO, "VectorizedResourceRequests": True}),
    "tas-cohorts": ("TestScheduleForTASCohorts", {**SCENARIO, "VectorizedResourceRequests": True}),
}

# What a case needs that kqctl does not model, found in the case's Go text (first match wins).
NOT_MODELLED: list[tuple[str, str]] = [
    (r"patchStatusErr:", "the test makes the API server's status patch fail (patchStatusErr), which no manifest "
                         "carries"),
    (r"UnhealthyNodes\(", "failed-node replacement (a workload's status.unhealthyNodes, the second scheduling "
                          "pass): not modelled (tas_cache.py)"),
    (r"DelayedTopologyRequest\(|prov-check|ProvisioningRequest", "a topology assignment delayed by a "
                                                                  "ProvisioningRequest admission check (second "
                                                                  "scheduling pass): not modelled (tas_cache.py)"),
    (r"pods:\s+\[\]corev1\.Pod", "capacity used by Pods Kueue does not manage (the test's pods): not modelled "
                                 "(tas_cache.py)"),
    (r"SchedulerLibraryIntegration", "the kube-scheduler library simulator (SchedulerLibraryIntegration, WAS): "
                                     "not modelled"),
]


def env_of(src: str, start: int, cases_at: int) -> dict[str, Any]:
    """The set-up variables before ``cases :=``; one the builders do not know (cmp options) is left out."""
    env: dict[str, Any] = {"now": NOW}
    for m in re.finditer(r'^\t\t(\w+)\s*=\s*"([^"]*)"$', src[start:cases_at], re.MULTILINE):
        env[m.group(1)] = m.group(2)  # the test's string constants
    evaluator = Evaluator(env)
    for m in re.finditer(r"^\t(\w+) := ", src[start:cases_at], re.MULTILINE):
        if m.group(1) in ("now", "ctx", "log"):
            continue
        expr, _ = parse_at(src, start + m.end())
        try:
            env[m.group(1)] = evaluator.eval(expr)
        except GoError:
            pass
    return env


def keys(dump_: dict[str, list[str]] | None) -> dict[str, list[str]]:
    return {cq: sorted(wls) for cq, wls in (dump_ or {}).items()}


def in_manifest(workload: dict[str, Any]) -> dict[str, Any]:
    """A workload as a manifest writes it: its topology assignments in the API's slice encoding, no empty status."""
    if not workload["status"]:
        del workload["status"]
    for ps in ((workload.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
        if "topologyAssignment" in ps:
            ps["topologyAssignment"] = v1beta2_topology_assignment(ps["topologyAssignment"])
    return workload


def port(src: str, suite: str, only: set[str] | None) -> tuple[list[str], dict[str, str]]:
    test = SUITES[suite][0]
    start, _ = function_body(src, test)
    cases_at = src.index("\tcases := map[string]", start)
    env = env_of(src, start, cases_at)
    # the cases' type: an anonymous struct (its literal starts after its closing brace) or a named one
    typed = src.startswith("struct", cases_at + len("\tcases := map[string]"))
    body = src.index("}{", cases_at) + 1 if typed else src.index("{", cases_at)
    cases = Parser(src, body).parse_composite(None)
    evaluator = Evaluator(env)
    written: list[str] = []
    skipped: dict[str, str] = {}
    taken: set[str] = set()
    for key, value in cases.elems:
        assert isinstance(key, Lit) and isinstance(value, Composite)
        name = key.value
        if only and name not in only:
            continue
        at = src.find(f"\t\t\"{name}\": {{", start)
        if at < 0:
            raise SystemExit(f"case {name!r} not found")
        text = src[at:src.index("\n\t\t},\n", at)]
        reason = next((why for pattern, why in NOT_MODELLED if re.search(pattern, text)), None)
        if reason is not None:
            skipped[name] = reason
            continue
        fields = {}
        for k, v in value.elems:
            if k.name in ("eventCmpOpts", "wantWorkloads"):  # who is preempted is read off wantEvents
                continue
            try:
                fields[k.name] = evaluator.eval(v)
            except GoError as error:
                raise SystemExit(f"case {name!r}, field {k.name}: {error}") from error
        line = src.count("\n", 0, at) + 1
        written.append(write_case(suite, name, line, fields, env, taken))
    return written, skipped


def write_case(suite: str, name: str, line: int, fields: dict[str, Any], env: dict[str, Any],
               taken: set[str]) -> str:
    test, scenario = SUITES[suite]
    docs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]
    docs += [obj(t) for t in fields.get("topologies") or []]
    docs += [obj(c) for c in fields.get("admissionChecks") or []]
    docs += [obj(f) for f in fields.get("resourceFlavors") or []]
    docs += [obj(c) for c in fields.get("cohorts") or []]
    docs += [obj(c) for c in fields.get("clusterQueues") or []]
    docs += [obj(q) for q in env["queues"]]
    workloads = [in_manifest(obj(w)) for w in fields.get("workloads") or []]
    docs += workloads
    docs += [obj(n) for n in fields.get("nodes") or []]
    initially = sorted(f"{w['metadata']['namespace']}/{w['metadata']['name']}" for w in workloads
                       if any(c["type"] == "Admitted" and c["status"] == "True"
                              for c in (w.get("status") or {}).get("conditions") or []))
    gates = {**scenario, **{k: v for k, v in (fields.get("featureGates") or {}).items()}}
    expected: dict[str, Any] = {
        "source": source(FILE, test, name, line),
        "config": {"fairSharing": False, "featureGates": dict(sorted(gates.items())), "now": k8s_time(NOW)},
        "cycles": 1,
        "initiallyAdmitted": initially,
        "newAssignments": {k: obj(a) for k, a in sorted((fields.get("wantNewAssignments") or {}).items())},
        "pending": keys(fields.get("wantLeft")),
        "inadmissible": keys(fields.get("wantInadmissibleLeft")),
    }
    transformations = fields.get("resourceTransformations")
    if transformations:
        # the scheduler's and queue manager's WithResourceTransformations: a Configuration's resources.transformations
        expected["config"]["resourceTransformations"] = [strip_type(t) for t in transformations]
    events = fields.get("wantEvents")
    if events is not None:
        expected["preempted"] = sorted({e.obj["key"] for e in events if e.obj["reason"] == "Preempted"})
    folder = PORTED / suite / slug(name, taken)
    dump(folder / "snapshot.yaml", docs)
    dump(folder / "expected.yaml", expected)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror/kubernetes-sigs+kueue/repo"))
    parser.add_argument("--suite", action="append", help=f"{', '.join(SUITES)} (default: all)")
    parser.add_argument("--case", action="append", help="only these case names")
    args = parser.parse_args()
    only = set(args.case) if args.case else None
    src = go_source(args.mirror, FILE)
    for suite in args.suite or list(SUITES):
        if only is None and (PORTED / suite).is_dir():
            shutil.rmtree(PORTED / suite)
        written, skipped = port(src, suite, only)
        for path in written:
            print(path)
        if only is None:
            write_readme(suite, len(written), skipped)
        for name, reason in skipped.items():
            print(f"not ported: {name}: {reason}")


README = """\
# {test}, ported

Written by scripts/port_kueue_tas_cases.py (do not edit by hand; rerun it) from Kueue's `{test}`
({file} at commit {commit}): {ported} of its {total} cases, one folder each, run by
tests/conformance/test_ported_tas_conformance.py. See ../README.md for the layout; what differs here:

* `snapshot.yaml` holds the case's Topologies, AdmissionChecks, ResourceFlavors, Cohorts, ClusterQueues, the
  test's LocalQueues (all in namespace `default`), the workloads and the Nodes. A topology assignment of an
  admitted workload is written in the API's slice encoding, one slice per domain.
* `expected.yaml`: `newAssignments` is `wantNewAssignments`, which the test compares whole with every quota
  reservation in the cache but those of the workloads it counts as admitted before the cycle
  (`initiallyAdmitted`: an `Admitted` condition); each pod set's `topologyAssignment` is in Kueue's internal shape
  (`levels`, `domains` of `values` and `count`), as kqctl's `simulate -o json` writes it. `pending` is `wantLeft`,
  `inadmissible` `wantInadmissibleLeft`; `preempted` lists the workloads with a `Preempted` event in `wantEvents`
  (written only when the case asserts its events). `config.featureGates` adds one of the scenarios the test
  runs every case in; `config.resourceTransformations` is the case's `resourceTransformations`, handed to kqctl
  as a Kueue Configuration's `resources.transformations`.

## Not ported ({skipped})

What these cases test is not in any manifest, or kqctl does not model it (kqctl/kueue/engine/tas_cache.py's
docstring):

"""


def write_readme(suite: str, ported: int, skipped: dict[str, str]) -> None:
    text = README.format(test=SUITES[suite][0], file=FILE, commit=COMMIT, ported=ported,
                         total=ported + len(skipped), skipped=len(skipped))
    text += "".join(f"- `{name}`: {reason}\n" for name, reason in skipped.items())
    (PORTED / suite / "README.md").write_text(text)


if __name__ == "__main__":
    main()
