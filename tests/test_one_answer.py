"""One answer everywhere: for every sample of every scheduler and for generated inputs, each workload's decision,
reason and amounts agree across simulate -o json, explain -o json, audit -o json, the BEFORE side of a diff with no
change and --fail-on; what explain marks as verified does what it promises when applied and simulated again; and
simulate's steady state is the end state of a replay in which nothing finishes.

The engines and renderers run in-process (the functions the commands call, the json the commands print), and the
generated inputs are sampled, to keep this file to seconds.
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime, timezone
from functools import cache
from typing import Any

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.cli.simulate import endings as kueue_endings
from kqctl.kueue.api.models import BorrowWithinCohort, Preemption
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine.audit import NEVER_FITS, audit
from kqctl.kueue.engine.explain import explain, with_nominal_increases
from kqctl.kueue.engine.results import SimulationResult
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.load import build_snapshot
from kqctl.kueue.render.explain import explanation_data
from kqctl.kueue.render.simulation import contract
from kqctl.kueue.replay.diff import diff_snapshots
from kqctl.kueue.replay.report import KueueReplayOptions, replay_snapshot
from kqctl.kueue.replay.timeline import TimelineOptions
from kqctl.load.objects import load_text
from tests.kueue.engine.random_scenarios import scenario

NOW = datetime(2026, 9, 14, 9, 0, tzinfo=timezone.utc)
OPTIONS = SimulationOptions(now=NOW)
KUEUE_SAMPLES = ["cohort-borrowing", "fair-sharing", "hierarchical-cohorts", "preemption", "replay",
                 "single-clusterqueue", "spot-gpu", "submit-jobs"]
GENERATED = range(300)  # cheap checks on every one; explain on a sample (EXPLAINED)
EXPLAINED = range(0, 300, 12)
NEEDED = re.compile(r"insufficient unused quota for (\S+) in flavor (\S+), (\S+) more needed")
# Reasons a workload is out before any flavor is looked at (CYC-4) or out of every queue: not audit's NEVER-FITS.
BEFORE_FLAVORS = {"Misconfigured", "Suspended", "Inactive", "PendingEvaluation", "ConcurrentAdmissionParent"}


def _sample_text(name: str) -> str:
    return "\n---\n".join(p.read_text() for p in sorted((REPO / "samples" / name).glob("*.yaml")))


@cache
def _snapshot(source: str) -> Snapshot:
    kind, _, name = source.partition(":")
    if kind == "sample":
        return build_snapshot(load_text(ALL_KINDS, _sample_text(name), f"{name}.yaml"), NOW)
    # As one JSON List (the generator's YAML text takes longer to write than the engine takes to run it).
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": scenario(int(name)).documents})
    return build_snapshot(load_text(ALL_KINDS, text, f"generated-{name}.json"), NOW)


@cache
def _simulated(source: str) -> tuple[SimulationResult, dict[str, Any]]:
    result = simulate(_snapshot(source), OPTIONS)
    return result, json.loads(json.dumps(contract(result)))


SOURCES = [f"sample:{name}" for name in KUEUE_SAMPLES] + [f"generated:{seed}" for seed in GENERATED]


# --- simulate -o json is self-consistent -------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_every_workload_out_of_quota_has_a_reason_and_its_message_states_the_missing_amounts(source: str) -> None:
    _, data = _simulated(source)
    for key, workload in data["workloads"].items():
        if workload["admission"] is not None:
            continue
        assert workload["reason"] and workload["message"], (source, key, workload)
        # missing: per flavor/resource the largest "N more needed" of the message (pod sets state theirs in turn)
        stated: dict[str, int] = {}
        for resource, flavor, amount in NEEDED.findall(workload["message"]):
            name = f"{flavor}/{resource}"
            stated[name] = max(stated.get(name, 0), _amount(resource, amount))
        missing = {name: _amount(name.split("/", 1)[1], amount) for name, amount in workload["missing"].items()}
        assert stated == missing, (source, key, workload["message"], workload["missing"])


# --- --fail-on -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_fail_on_states_are_those_simulate_json_shows(source: str) -> None:
    result, data = _simulated(source)
    for ending in kueue_endings(result):
        workload = data["workloads"][ending.key]
        running = workload["decision"] in ("Admitted", "AdmittedInInactiveClusterQueue")
        expected = set()
        if not running:
            expected.add("pending")
            if workload["neverAdmitted"] is not None:
                expected.add("inadmissible")
        if workload["preemptedInCycle"] is not None:
            expected.add("preempted")
        assert ending.states() == expected, (source, ending, workload)


# --- audit -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_audit_says_never_fits_of_exactly_the_queued_workloads_simulate_says_can_never_get_in(source: str) -> None:
    result, _ = _simulated(source)
    report = audit(_snapshot(source), OPTIONS)
    flagged = {f.object.removeprefix("Workload/") for f in report.findings if f.rule_id == NEVER_FITS}
    queued = {key for key, w in result.workloads.items() if w.admission is None and w.preempted_in is None
              and w.cluster_queue is not None}
    never = {key for key in queued if result.workloads[key].never is not None
             and result.workloads[key].reason not in BEFORE_FLAVORS}
    assert flagged == never, (source, flagged, never)


# --- diff with no change ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [f"sample:{name}" for name in KUEUE_SAMPLES]
                         + [f"generated:{seed}" for seed in range(0, 300, 10)])
def test_a_diff_without_a_change_counts_what_simulate_shows_on_both_sides(source: str) -> None:
    result, _ = _simulated(source)
    report = diff_snapshots(_snapshot(source), _snapshot(source), OPTIONS)
    counts: dict[str, int] = {}
    for workload in result.workloads.values():
        state = workload.state.split(" (")[0]
        counts[state] = counts.get(state, 0) + 1
    assert dict(report.before_counts) == counts == dict(report.after_counts)
    assert not report.changes and not report.regression_keys


# --- simulate's steady state is a replay's end state when nothing finishes --------------------------------------


# samples/replay declares runtimes (kqctl.dev/runtime): there its workloads do finish.
@pytest.mark.parametrize("source", [f"sample:{name}" for name in KUEUE_SAMPLES if name != "replay"]
                         + [f"generated:{seed}" for seed in range(0, 300, 5)])
def test_a_replay_in_which_nothing_finishes_ends_where_simulate_settles(source: str) -> None:
    result, _ = _simulated(source)
    snapshot = _snapshot(source)
    report = replay_snapshot(snapshot, KueueReplayOptions(TimelineOptions(all_present=True)))
    running = {w.key for w in report.workloads if w.state in ("Running", "QuotaReserved")}
    holding = {key for key, w in result.workloads.items() if w.admission is not None}
    assert running == holding, (source, sorted(running ^ holding))


# --- explain -o json -------------------------------------------------------------------------------------------


def _explained_sources() -> list[str]:
    return [f"sample:{name}" for name in KUEUE_SAMPLES] + [f"generated:{seed}" for seed in EXPLAINED]


def _out_of_quota(source: str) -> list[str]:
    result, _ = _simulated(source)
    keys = [key for key, w in result.workloads.items() if w.admission is None]
    return keys if source.startswith("sample:") else keys[:1]


@pytest.mark.parametrize("source", _explained_sources())
def test_explain_json_states_simulate_json_verdict_and_its_suggestions_do_what_they_promise(source: str) -> None:
    snapshot = _snapshot(source)
    _, data = _simulated(source)
    for key in _out_of_quota(source):
        simulated = data["workloads"][key]
        explanation = explain(snapshot, key, OPTIONS)
        steady = explanation_data(explanation)["steadyState"]
        assert steady["state"] == simulated["decisionText"], (source, key)
        # under simulate's names too, so that a script compares the two outputs key for key
        assert (steady["decision"], steady["decisionText"]) == (simulated["decision"], simulated["decisionText"])
        assert (steady["reason"], steady["message"]) == (simulated["reason"], simulated["message"]), (source, key)
        assert steady["missing"] == simulated["missing"] and steady["neverAdmitted"] == simulated["neverAdmitted"]
        for suggestion in explanation.suggestions:
            if suggestion.verified:
                _check_applied(snapshot, key, suggestion.kind, suggestion.details, source)


def _check_applied(snapshot: Snapshot, key: str, kind: str, details: dict[str, Any], source: str) -> None:
    """The suggestion written into the inputs, simulated again: the workload holds quota."""
    if kind == "nominal-quota":
        cq, flavor = details["clusterQueue"], details["flavor"]
        increases = {r: _amount(r, v) for r, v in details["increase"].items()}
        changed = with_nominal_increases(snapshot, cq, flavor, increases)
    elif kind == "completion":
        holder = next(w for w in snapshot.workloads if f"{w.namespace}/{w.name}" == details["workload"])
        if holder.admission is None:
            return  # admitted by the run: "finishes" has no manifest form; explain checks it on the steady state
        changed = dataclasses.replace(snapshot, workloads=[w for w in snapshot.workloads if w is not holder])
    elif kind == "policy":
        changed = _with_policy(snapshot, key, details["preemption"])
    else:
        return  # local-queue: checked by explain's own tests through the same admitted_after
    assert simulate(changed, OPTIONS).workloads[key].admission is not None, (source, key, kind, details)


def _amount(resource: str, text: str) -> int:
    from kqctl.k8s.quantity import parse_quantity, resource_value

    return resource_value(resource, parse_quantity(text))


def _with_policy(snapshot: Snapshot, key: str, text: str) -> Snapshot:
    workload = next(w for w in snapshot.workloads if f"{w.namespace}/{w.name}" == key)
    local_queue = snapshot.local_queues[f"{workload.namespace}/{workload.queue_name}"]
    model = snapshot.cluster_queues[local_queue.cluster_queue]
    current = model.preemption
    policy = {"withinClusterQueue: LowerPriority": dataclasses.replace(current, within_cluster_queue="LowerPriority"),
              "reclaimWithinCohort: Any": dataclasses.replace(current, reclaim_within_cohort="Any"),
              "reclaimWithinCohort: LowerPriority and borrowWithinCohort.policy: LowerPriority":
                  Preemption("LowerPriority", current.within_cluster_queue, BorrowWithinCohort("LowerPriority"))}[text]
    changed = dataclasses.replace(model, preemption=policy)
    return dataclasses.replace(snapshot, cluster_queues={**snapshot.cluster_queues, model.name: changed})


def test_every_kueue_sample_is_covered() -> None:
    kueue = {p.parent.name for p in (REPO / "samples").glob("*/*.yaml")
             if "kueue.x-k8s.io" in p.read_text() or "batch/v1" in p.read_text()}
    assert kueue - {"broken", "legacy-v1alpha1"} <= set(KUEUE_SAMPLES), kueue - set(KUEUE_SAMPLES)



# --- Volcano ---------------------------------------------------------------------------------------------------

VOLCANO_SAMPLES = ["volcano-hierarchy", "volcano-seed", "volcano-two-teams"]
VOLCANO_CASES = sorted((REPO / "tests" / "conformance" / "data" / "volcano").glob("*-enqueue-allocate/*.yaml"))


def _volcano(text: str) -> Any:
    from kqctl.volcano.load import build_snapshot as build_volcano

    return build_volcano(load_text(ALL_KINDS, text, "volcano.yaml"), None)


def _volcano_sources() -> list[tuple[str, str]]:
    import yaml
    from volcano_cases import scenario_text

    return ([(f"sample:{name}", _sample_text(name)) for name in VOLCANO_SAMPLES]
            + [(f"case:{path.stem}", scenario_text(yaml.safe_load(path.read_text()))) for path in VOLCANO_CASES])


@pytest.mark.parametrize("source, text", _volcano_sources(), ids=[s for s, _ in _volcano_sources()])
def test_volcano_simulate_explain_audit_and_fail_on_tell_one_story(source: str, text: str) -> None:
    from kqctl.cli.volcano import endings as volcano_endings
    from kqctl.volcano.engine.audit import audit as volcano_audit
    from kqctl.volcano.engine.explain import explain as volcano_explain
    from kqctl.volcano.engine.simulation import simulate as volcano_simulate
    from kqctl.volcano.render.explain import explanation_data as volcano_explanation
    from kqctl.volcano.render.simulation import contract as volcano_contract

    snapshot = _volcano(text)
    result = volcano_simulate(snapshot)
    groups = json.loads(json.dumps(volcano_contract(result)))["podGroups"]
    ends = {e.key: e.states() for e in volcano_endings(snapshot, result)}
    for key, group in groups.items():
        explained = volcano_explanation(volcano_explain(snapshot, key, with_suggestions=False))
        assert explained["phase"] == group["phase"], (source, key)
        last = explained["gates"][-1] if explained["gates"] else None
        if group["reason"] is not None and not group["ignored"]:
            assert last is not None and (last["gate"], last["message"]) == (
                group["reason"]["gate"], group["reason"]["message"]), (source, key, explained["gates"])
        running = group["phase"] in ("Running", "Completed") and not group["ignored"]
        assert ("pending" in ends[key]) == (not running), (source, key, ends[key])
        assert ("preempted" in ends[key]) == bool(group["evictions"]), (source, key)
    never = {f.object for f in volcano_audit(snapshot).findings if f.rule_id == "VC-AUDIT-NEVER-FITS"}
    assert all("inadmissible" in ends[key] for key in never), (source, never, ends)


# --- YuniKorn --------------------------------------------------------------------------------------------------

YUNIKORN_SAMPLES = ["yunikorn-multi-tenant", "yunikorn-priority", "yunikorn-gang"]


def _yunikorn_sources() -> list[tuple[str, str]]:
    import yaml
    from yunikorn_random import cluster

    return ([(f"sample:{name}", _sample_text(name)) for name in YUNIKORN_SAMPLES]
            + [(f"generated:{seed}", yaml.safe_dump_all(cluster(seed))) for seed in range(0, 60, 4)])


@pytest.mark.parametrize("source, text", _yunikorn_sources(), ids=[s for s, _ in _yunikorn_sources()])
def test_yunikorn_simulate_explain_and_fail_on_tell_one_story(source: str, text: str) -> None:
    import copy

    from yunikorn_random import NOW as YUNIKORN_NOW

    from kqctl.cli.yunikorn import endings as yunikorn_endings
    from kqctl.yunikorn.engine.explain import explain_pod
    from kqctl.yunikorn.engine.simulation import simulate as yunikorn_simulate
    from kqctl.yunikorn.load import build_snapshot as build_yunikorn
    from kqctl.yunikorn.render.explain import pod_contract
    from kqctl.yunikorn.render.simulation import contract as yunikorn_contract

    snapshot = build_yunikorn(load_text(ALL_KINDS, text, "yunikorn.yaml"), YUNIKORN_NOW)
    result = yunikorn_simulate(copy.deepcopy(snapshot))
    pods = json.loads(json.dumps(yunikorn_contract(result)))["pods"]
    ends = {e.key: e.states() for e in yunikorn_endings(result)}
    for pod in pods:
        key = f"{pod['namespace']}/{pod['name']}"
        explained = pod_contract(explain_pod(copy.deepcopy(snapshot), key, suggest=False))
        assert (explained["state"], explained["reason"]) == (pod["state"], pod["reason"]), (source, key)
        if pod["state"] in ("Replaced", "Released"):  # a gang's placeholder that is gone (YK-GANG-4): not a pod to wait
            assert pod["placeholder"] and not ends[key], (source, key)
            continue
        running = pod["state"] in ("Running", "Allocated")
        assert ("pending" in ends[key]) == (not running), (source, key, ends[key])
        assert ("preempted" in ends[key]) == (pod["state"] == "Preempted"), (source, key)
