#!/usr/bin/env python3
"""Port cases of Kueue's table-driven unit tests that tests/conformance/data/kueue lacks into
tests/conformance/data/kueue-ported/<suite>/<slug>/ (snapshot.yaml + expected.yaml).

The inputs are the test's own builder chains, evaluated by gobuilders.py with each builder's
defaults; the expected outcome is only what the test asserts (TestPreemption: the workloads of
wantWorkloads that carry a Preempted condition, and its reason; TestFairPreemptions:
wantPreempted). Nothing is run against Kueue. Cases already in tests/conformance/data/kueue (by
``source.case``) are left out, and so are cases named in SKIPPED (with why).

    python scripts/port_kueue_unit_cases.py [--mirror /work/.mirror/kubernetes-sigs+kueue/repo]
"""

from __future__ import annotations

import argparse
import copy
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from kqctl.k8s.quantity import Quantity, canonical_quantity

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gobuilders import Builder, Evaluator, GoError, WorkloadW, k8s_time, strip_type  # noqa: E402
from gosubset import Composite, Lit, Parser, parse_at  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
KUEUE = REPO / "tests" / "conformance" / "data" / "kueue"
PORTED = REPO / "tests" / "conformance" / "data" / "kueue-ported"
COMMIT = "ff69552e79ad21652c36caa97038382e55625cf7"
# The clock of each test (Go's time.Now(), kept to the second as metav1.Time writes it), the one
# tests/conformance/data/kueue's recordings of the same test ran at.
NOW = {"TestPreemption": datetime(2026, 11, 21, 12, 44, 29, tzinfo=timezone.utc),
       "TestHierarchicalPreemptions": datetime(2026, 11, 21, 12, 44, 28, tzinfo=timezone.utc),
       "TestFairPreemptions": datetime(2026, 11, 21, 12, 44, 28, tzinfo=timezone.utc)}
PORTED_NOTE = "by hand from the Go test's assertions"

# Cases left out, with why: what they depend on no manifest can carry.
SLICE = ("the preempted workload slice is an in-memory workload.Info the test hands the flavor assigner "
         "(preemptWorkloadSlice), held in no ClusterQueue's usage; kqctl does not model workload-slice replacement")
STUB = ("the test's stub oracle answers Preempt (borrowing 1) for flavor one, where the only usage is the other "
        "ClusterQueue's, within its nominal quota: no workload can be preempted there, so a real preemption search "
        "answers NoCandidates whatever the manifests say (Kueue's own replay of the recorded sibling case on "
        "manifests gives flavor two, Fit)")
SKIPPED: dict[tuple[str, str], str] = {
    ("TestAssignFlavors", "when borrowing while preemption is needed for flavor one, no borrowingLimit; "
                          "WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch"): STUB,
    ("TestAssignFlavors", "when borrowing while preemption is needed for flavor one, fair sharing enabled, "
                          "reclaimWithinCohort=Any; using deprecated WhenCanBorrow=MayStopSearch,"
                          "WhenCanPreempt=MayStopSearch"): STUB,
    ("TestAssignFlavors", "workload slice preemption fits in the original workload resource flavor"): SLICE,
    ("TestAssignFlavors", "workload slice preemption does not fit in the original workload resource flavor"): SLICE,
}


def slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80].strip("-")
    candidate, n = base, 2
    while candidate in taken:
        candidate = f"{base[:78].rstrip('-')}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


def present_cases() -> set[tuple[str, str]]:
    found = set()
    for path in KUEUE.glob("*/*/expected.yaml"):
        source = (yaml.safe_load(path.read_text()) or {}).get("source") or {}
        found.add((source.get("test"), source.get("case")))
    return found


def function_body(src: str, test: str) -> tuple[int, int]:
    start = src.index(f"func {test}(t *testing.T) {{")
    end = src.find("\nfunc ", start + 1)
    return start, (end if end != -1 else len(src))


def test_env(src: str, test: str, now: datetime) -> tuple[dict[str, Any], Composite]:
    """The test's set-up variables (``name := expr`` before ``cases :=``) and its cases' composite literal."""
    start, end = function_body(src, test)
    cases_at = src.index("\tcases := map[string]struct", start)
    env: dict[str, Any] = {"now": now}
    evaluator = Evaluator(env)
    for m in re.finditer(r"^\t(\w+) := ", src[start:cases_at], re.MULTILINE):
        name = m.group(1)
        if name in ("now", "ctx", "log"):
            continue
        expr, _ = parse_at(src, start + m.end())
        env[name] = evaluator.eval(expr)
    body = src.index("}{", cases_at) + 1
    parser = Parser(src, body)
    return env, parser.parse_composite(None)


def case_fields(evaluator: Evaluator, comp: Composite, name: str = "") -> dict[str, Any]:
    try:
        return {k.name: evaluator.eval(v) for k, v in comp.elems}
    except GoError as error:
        raise GoError(f"case {name!r}: {error}") from error


def obj(value: Any) -> dict[str, Any]:
    return copy.deepcopy(value.obj if isinstance(value, Builder) else value)


def in_default_namespace(workload: dict[str, Any]) -> dict[str, Any]:
    if not workload["metadata"].get("namespace"):
        workload["metadata"]["namespace"] = "default"
    return workload


def local_queue_name(cq: str) -> str:
    """A DNS-1123 name for the LocalQueue of ClusterQueue ``cq`` (as tests/conformance/data/kueue names it)."""
    return re.sub(r"[^a-z0-9.-]+", "-", cq.lower()).strip("-")


def local_queue(cq: str) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": local_queue_name(cq), "namespace": "default"}, "spec": {"clusterQueue": cq}}


def flavor_assignment(assignment: dict[str, Any]) -> dict[str, Any]:
    """flavorassigner.Assignment as the conformance cases write the one a test hands to GetTargets."""
    pod_sets = []
    for ps in assignment["PodSets"]:
        pod_sets.append({"name": ps["Name"], "count": ps.get("Count", 0),
                         "flavors": {r: {"name": f["Name"], "mode": f["Mode"]} for r, f in ps["Flavors"].items()}})
    return {"podSets": pod_sets}


def dump(path: Path, docs: list[dict[str, Any]] | dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(docs, list):
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False))
    else:
        path.write_text(yaml.safe_dump(docs, sort_keys=False, default_flow_style=False, width=120))


def source(file: str, test: str, case: str, line: int) -> dict[str, Any]:
    return {"repo": "kubernetes-sigs/kueue", "commit": COMMIT, "file": file, "test": test, "case": case,
            "line": line, "ported": PORTED_NOTE}


NOTES_PREEMPTION = [
    "the test creates workloads with an empty namespace; they are placed in namespace 'default' here "
    "(keys default/<name>)",
    "the incoming workload has no spec.queueName in the test (it sets wlInfo.ClusterQueue); a LocalQueue "
    "default/<clusterQueue> pointing to the target ClusterQueue is added and referenced",
    "as in the test, existing workloads have status.admission and QuotaReserved=True but no Admitted condition",
    "assignment is the flavor assignment the test hands to Preemptor.GetTargets (not computed by the flavor "
    "assigner); preempted/reasons are what the test asserts for it",
]


def recorded_folders(suite: str) -> set[str]:
    """The case folders of the recorded suite: a ported case's folder gets another name (slug)."""
    return {p.name for p in (KUEUE / suite).iterdir()} if (KUEUE / suite).is_dir() else set()


def cases_to_port(src: str, test: str, env: dict[str, Any], cases: Composite, present: set[tuple[str, str]],
                  only: set[str] | None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Each case of the test's table to port: its name, the line it starts at in the Go source and its fields
    evaluated; those recorded already (``present``), not asked for (``only``) or SKIPPED (said why) are left out."""
    evaluator = Evaluator(env)
    for key, value in cases.elems:
        assert isinstance(key, Lit)
        name = key.value
        if (test, name) in present or (only and name not in only):
            continue
        if (test, name) in SKIPPED:
            print(f"skip {test} / {name}: {SKIPPED[(test, name)]}")
            continue
        line = src.count("\n", 0, src.index(f'\t\t"{name}": {{')) + 1
        yield name, line, case_fields(evaluator, value, name)


def port_preemption(src: str, file: str, test: str, suite: str, present: set[tuple[str, str]],
                    only: set[str] | None) -> list[str]:
    env, cases = test_env(src, test, NOW[test])
    taken = recorded_folders(suite)
    written = []
    for name, line, fields in cases_to_port(src, test, env, cases, present, only):
        target = fields["targetCQ"]
        flavors = [obj(f) for f in (fields.get("flavors") or env["flavors"])]
        docs: list[dict[str, Any]] = flavors
        docs += [obj(c) for c in fields.get("cohorts") or []]
        docs += [obj(c) for c in fields["clusterQueues"]]
        docs.append(local_queue(target))
        for admitted in fields.get("admitted") or []:
            wl = in_default_namespace(obj(admitted))
            if test == "TestFairPreemptions":
                wl["metadata"]["uid"] = wl["metadata"]["name"]  # the test sets name as UID
            docs.append(wl)
        incoming = in_default_namespace(obj(fields["incoming"]))
        incoming["spec"]["queueName"] = local_queue_name(target)
        extra_notes = []
        if incoming["status"]:
            # GetTargets reads only the preemptor's spec; a manifest with this status would be an admitted workload.
            incoming["status"] = {}
            extra_notes.append("the test's incoming workload carries a quota reservation, which GetTargets does not "
                               "read; it is left out so that the workload is pending")
        docs.append(incoming)
        config: dict[str, Any] = {"fairSharing": test == "TestFairPreemptions"}
        if test == "TestFairPreemptions":
            assignment = {"podSets": [{"name": "main", "count": 1, "flavors": {
                "cpu": {"name": fields.get("assignmentFlavor") or "default", "mode": "Preempt"}}}]}
            config["preemptionStrategies"] = fields.get("strategies") or [
                "LessThanOrEqualToFinalShare", "LessThanInitialShare"]
            want = sorted(fields.get("wantPreempted") or [])
            preempted = [f"default{k}" if k.startswith("/") else k for k, _ in want]
            reasons = {f"default{k}" if k.startswith("/") else k: r for k, r in want}
        else:
            assignment = flavor_assignment(fields["assignment"])
            preempted, reasons = [], {}
            for wl in fields.get("wantWorkloads") or []:
                w = in_default_namespace(obj(wl))
                for cond in w["status"].get("conditions") or []:
                    if cond["type"] == "Preempted" and cond["status"] == "True":
                        key_ = f"{w['metadata']['namespace']}/{w['metadata']['name']}"
                        preempted.append(key_)
                        reasons[key_] = cond["reason"]
            want = fields.get("wantPreempted") or 0
            # A target evicted already is counted by IssuePreemptions but not patched again: it keeps its conditions,
            # so the test asserts that it is a target (by the count) and not why.
            evicted = [f"default/{obj(w)['metadata']['name']}" for w in fields.get("wantWorkloads") or []
                       if any(c["type"] == "Evicted" and c["status"] == "True"
                              for c in obj(w)["status"].get("conditions") or [])
                       and f"default/{obj(w)['metadata']['name']}" not in reasons]
            if len(preempted) != want and len(preempted) + len(evicted) == want:
                preempted += evicted
                extra_notes.append(f"{', '.join(evicted)}: evicted already; IssuePreemptions counts such a target "
                                   "(wantPreempted) without patching it, so the test asserts it is a target, not "
                                   "its reason (absent from reasons)")
            if len(preempted) != want:
                raise SystemExit(f"{name}: {len(preempted)} workloads with Preempted, wantPreempted {want}")
        config["now"] = k8s_time(NOW[test])
        expected = {
            "source": source(file, test, name, line), "config": config,
            "incoming": f"default/{incoming['metadata']['name']}", "clusterQueue": target,
            "assignment": assignment, "preempted": sorted(preempted), "reasons": dict(sorted(reasons.items())),
            "notes": NOTES_PREEMPTION + ([
                "the test sets each admitted workload's UID to its name (candidate order ties)",
                "the preemptor is built with fair sharing on (config.FairSharing with the case's strategies, "
                "Kueue's defaults when it gives none)"] if test == "TestFairPreemptions" else []) + extra_notes,
        }
        folder = PORTED / suite / slug(name, taken)
        dump(folder / "snapshot.yaml", docs)
        dump(folder / "expected.yaml", expected)
        written.append(str(folder))
    return written


USAGE_TIME = "2025-01-01T00:00:00Z"
NOTES_FLAVORS = [
    "the test's workload has no name, namespace or queue; it is default/incoming here, with spec.queueName "
    "pointing to a LocalQueue of the ClusterQueue; priority unset (0)",
]
NOTE_USAGE = (
    "the test adds usage to the cache snapshot directly; here it is held by admitted Workloads "
    "usage-<cq>-<flavor>-1 (one per ClusterQueue and flavor, resourceUsage the exact quantities), priority -1 "
    "(below the incoming workload's, so that a real preemption oracle finds candidates, as the test's stub says "
    "Preempt) unless the stub answers NoCandidates for it (then priority 0)")
NOTE_ORACLE = (
    "the test answers the flavor assigner's preemption questions with a stub (config.preemptionOracle: Preempt "
    "with borrowing 0 unless overridden); kqctl asks its real preemption search on these workloads")


def amount_quantity(resource: str, amount: int) -> str:
    """A resources.Amount (CPU in millicores, the rest in units) as a quantity string."""
    if resource == "cpu":
        return canonical_quantity(f"{amount}m")
    fmt = "BinarySI" if amount and amount % 1024 == 0 else "DecimalSI"
    return Quantity(Fraction(amount), fmt, "").canonical()


def usage_workloads(cq: str, usage: dict[Any, int], oracle: dict[str, Any]) -> list[dict[str, Any]]:
    by_flavor: dict[str, dict[str, str]] = {}
    for key, amount in usage.items():
        fr = dict(key)
        by_flavor.setdefault(fr["Flavor"], {})[fr["Resource"]] = amount_quantity(fr["Resource"], amount)
    docs = []
    for flavor, requests in sorted(by_flavor.items()):
        no_candidates = any(oracle.get(f"{flavor}/{r}", {}).get("possibility") == "NoCandidates" for r in requests)
        name = f"usage-{local_queue_name(cq)}-{local_queue_name(flavor)}-1"
        ps = {"count": 1, "name": "main", "template": {"metadata": {}, "spec": {
            "containers": [{"image": "pause", "name": "c", "resources": {"requests": dict(requests)}}],
            "restartPolicy": "Never"}}}
        docs.append({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"podSets": [ps], "priority": 0 if no_candidates else -1, "queueName": local_queue_name(cq)},
            "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [{
                "count": 1, "flavors": {r: flavor for r in requests}, "name": "main",
                "resourceUsage": dict(requests)}]},
                "conditions": [
                    {"lastTransitionTime": USAGE_TIME, "message": f"Quota reserved in ClusterQueue {cq}",
                     "reason": "QuotaReserved", "status": "True", "type": "QuotaReserved"},
                    {"lastTransitionTime": USAGE_TIME, "message": "The workload is admitted", "reason": "Admitted",
                     "status": "True", "type": "Admitted"}]}})
    return docs


def want_assignment(want: dict[str, Any], rep_mode: str | None) -> dict[str, Any]:
    """The test's wantAssignment (and wantRepMode) as the conformance cases write an assignment."""
    pod_sets, parts = [], []
    for ps in want.get("PodSets") or []:
        status = ps.get("Status") or {}
        reasons = sorted(status.get("reasons") or [])
        if status.get("err"):
            raise SystemExit("a want status with an error is not translated")
        if reasons:
            parts.append(f"couldn't assign flavors to pod set {ps['Name']}: {', '.join(reasons)}")
        pod_sets.append({
            "name": ps["Name"], "count": ps.get("Count", 0),
            "requests": {r: canonical_quantity(str(q)) for r, q in (ps.get("Requests") or {}).items()},
            # FlavorAssignment's borrow is unexported: the test does not compare it
            "flavors": {r: {"name": f["Name"], "mode": f.get("Mode", "NoFit"),
                            "triedFlavorIdx": f.get("TriedFlavorIdx", 0)}
                        for r, f in (ps.get("Flavors") or {}).items()},
            "status": {"reasons": reasons}})
    return {"representativeMode": rep_mode or "NoFit", "borrowing": want.get("Borrowing", 0),
            "message": "; ".join(parts), "noFitReason": want.get("NoFitReason", ""), "podSets": pod_sets}


def port_flavor_assign(src: str, file: str, test: str, suite: str, present: set[tuple[str, str]],
                       only: set[str] | None) -> list[str]:
    env, cases = test_env(src, test, NOW["TestPreemption"])
    taken = recorded_folders(suite)
    written = []
    for name, line, fields in cases_to_port(src, test, env, cases, present, only):
        queues = [obj(fields["clusterQueue"])]
        if fields.get("secondaryClusterQueue"):
            queues.append(obj(fields["secondaryClusterQueue"]))
        used = sorted({f["name"] for q in queues for g in q["spec"].get("resourceGroups") or [] for f in g["flavors"]})
        docs: list[dict[str, Any]] = [obj(env["resourceFlavors"][f]) for f in used if f in env["resourceFlavors"]]
        cohort = queues[0]["spec"].get("cohortName")
        notes = list(NOTES_FLAVORS)
        if cohort:
            docs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": cohort},
                         "spec": {}})
            notes.append("the test registers a Cohort object (no quota) named after the ClusterQueue's cohort")
        docs += queues
        docs += [local_queue(q["metadata"]["name"]) for q in queues]
        oracle = {f"{dict(k)['Flavor']}/{dict(k)['Resource']}": {"possibility": v[0], "borrowingAfterPreemption": v[1]}
                  for k, v in (fields.get("simulationResult") or {}).items()}
        for q, usage_field in zip(queues, ("clusterQueueUsage", "secondaryClusterQueueUsage"), strict=False):
            if fields.get(usage_field):
                docs += usage_workloads(q["metadata"]["name"], fields[usage_field], oracle)
                if NOTE_USAGE not in notes:
                    notes.append(NOTE_USAGE)
        incoming = WorkloadW("incoming", "default").PodSets(*fields["wlPods"]).obj
        incoming["spec"]["queueName"] = local_queue_name(queues[0]["metadata"]["name"])
        if fields.get("wlReclaimablePods"):
            incoming["status"]["reclaimablePods"] = strip_type(fields["wlReclaimablePods"])
        docs.append(incoming)
        # The test runs each case with UnadmittedWorkloadsObservability off and on; on, it compares NoFitReason too.
        gates = {"UnadmittedWorkloadsObservability": True, **(fields.get("featureGates") or {})}
        notes.append(NOTE_ORACLE)
        config = {"featureGates": dict(sorted(gates.items())),
                  "enableFairSharing": bool(fields.get("enableFairSharing")), "quotaCheckStrategy": "BlockUndeclared",
                  "preemptionOracle": {"default": {"possibility": "Preempt", "borrowingAfterPreemption": 0},
                                       **({"overrides": oracle} if oracle else {})}}
        expected = {
            "source": source(file, test, name, line), "config": config, "workload": "default/incoming",
            "clusterQueue": queues[0]["metadata"]["name"],
            "assignment": want_assignment(fields["wantAssignment"], fields.get("wantRepMode")), "notes": notes,
        }
        folder = PORTED / suite / slug(name, taken)
        dump(folder / "snapshot.yaml", docs)
        dump(folder / "expected.yaml", expected)
        written.append(str(folder))
    return written


def go_source(mirror: Path, file: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), "show", f"{COMMIT}:{file}"], check=True,
                          capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror/kubernetes-sigs+kueue/repo"))
    parser.add_argument("--suite", action="append",
                        help="preemption, preemption-fair, preemption-hierarchical, flavor-assign (default: all)")
    parser.add_argument("--case", action="append", help="only these case names")
    args = parser.parse_args()
    present = present_cases()
    only = set(args.case) if args.case else None
    suites = args.suite or ["preemption", "preemption-fair", "preemption-hierarchical", "flavor-assign"]
    jobs = {
        "preemption": ("pkg/scheduler/preemption/preemption_test.go", "TestPreemption"),
        "preemption-fair": ("pkg/scheduler/preemption/preemption_fair_test.go", "TestFairPreemptions"),
        "preemption-hierarchical": ("pkg/scheduler/preemption/preemption_hierarchical_test.go",
                                    "TestHierarchicalPreemptions"),
        "flavor-assign": ("pkg/scheduler/flavorassigner/flavorassigner_test.go", "TestAssignFlavors"),
    }
    for suite in suites:
        file, test = jobs[suite]
        port = port_flavor_assign if suite == "flavor-assign" else port_preemption
        for path in port(go_source(args.mirror, file), file, test, suite, present, only):
            print(path)


if __name__ == "__main__":
    main()
