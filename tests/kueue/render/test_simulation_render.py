"""simulate's renderer (kqctl/kueue/render/simulation.py) formats a frozen result; it decides nothing.

The result here is written by hand, with values no engine run would give together, so every figure
in the output can only have come from the result.
"""

from __future__ import annotations

import io
from typing import Any

from kqctl.kueue.api.models import TopologyAssignment, TopologyDomain
from kqctl.kueue.engine.results import (
    ClusterQueueResult,
    CycleRecord,
    Livelock,
    QuotaUsage,
    SimulationResult,
    WorkloadResult,
)
from kqctl.kueue.engine.workloads import Admission, PodSetAdmission
from kqctl.kueue.render.simulation import contract, render_simulation
from kqctl.render.columns import TableOptions


def workload(key: str, decision: str, text: str, **fields: Any) -> WorkloadResult:
    namespace, name = key.split("/")
    values: dict[str, Any] = dict(
        key=key, namespace=namespace, name=name, labels={}, local_queue=f"{namespace}/lq", cluster_queue="cq",
        priority=0, decision=decision, state=text, decision_text=text, admission=None, in_inactive_cluster_queue=False,
        admitted_in=None, preempted_in=None, preempted_by=None, preemption_reason=None, preemption_message=None,
        victims=(), reason=None, message=None, last_reason=None, last_message=None, borrowed={})
    values.update(fields)
    return WorkloadResult(**values)


ADMISSION = Admission("cq", (PodSetAdmission("main", {"cpu": "spot"}, {"cpu": 2500}, 5),))
RESULT = SimulationResult(
    cycles=7, stop_reason="livelock", fair_sharing=True,
    workloads={
        "ns/in": workload("ns/in", "Admitted", "Admitted (5/8 pods)", admission=ADMISSION, admitted_in=3,
                          borrowed={("spot", "cpu"): 1500}, labels={"team": "a"}, victims=("other/out",)),
        "other/out": workload("other/out", "Preempted", "Preempted (pending)", preempted_in=3, preempted_by="ns/in",
                              reason="Preempted", message="made room"),
    },
    cluster_queues={"cq": ClusterQueueResult("cq", "co", False, "Stopped",
                                             (QuotaUsage("spot", "cpu", 2000, None, 1000, 2500, 500, 250),),
                                             ("other/out",), ())},
    history=(CycleRecord(3, ("ns/in",), ()),), livelock=Livelock((2, 7), ("ns/in", "other/out")),
    warnings=("a warning",))


def test_the_json_contract_is_the_results_values_in_kubernetes_quantities() -> None:
    data = contract(RESULT)
    assert (data["cycles"], data["stopReason"], data["fairSharing"]) == (7, "livelock", True)
    assert (data["admitted"], data["newlyAdmitted"], data["preempted"]) == (
        {"ns/in": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": "spot"}, "resourceUsage": {"cpu": "2500m"}, "count": 5}]}},
        ["ns/in"], ["other/out"])
    assert (data["pending"], data["inadmissible"]) == ({"cq": ["other/out"]}, {})
    assert data["clusterQueues"] == {"cq": {"spot/cpu": {"nominal": "2", "used": "2500m", "borrowed": "500m",
                                                         "lent": "250m"}}}
    assert data["workloads"]["ns/in"]["borrowed"] == {"spot/cpu": "1500m"}
    assert data["workloads"]["ns/in"]["decisionText"] == "Admitted (5/8 pods)"
    assert data["livelock"] == {"cycles": [2, 7], "workloads": ["ns/in", "other/out"]}


def test_filters_keep_workloads_out_of_every_list_but_not_the_cluster_queues() -> None:
    data = contract(RESULT, keep=lambda w: "team" in w.labels)
    assert list(data["workloads"]) == ["ns/in"] and data["preempted"] == [] and data["pending"] == {}
    assert "cq" in data["clusterQueues"]


def test_the_tables_show_the_results_words_and_figures() -> None:
    out = io.StringIO()
    render_simulation(RESULT, "wide", out, table=TableOptions(color="never"))
    text = out.getvalue()
    assert "Inactive: Stopped" in text and "Admitted (5/8 pods)" in text and "preempts other/out" in text
    assert "  other/out: made room" in text  # the reason of a workload that did not get in
    assert "7 cycle(s), livelock, fair sharing ordering: 1 admitted, 1 preempted" in text
    assert "Livelock in cycles 2-7: ns/in, other/out keep trading places" in text and "warning: a warning" in text
    lines = text.splitlines()
    assert lines.index(next(line for line in lines if line.startswith("ns/in"))) < lines.index(
        next(line for line in lines if line.startswith("other/out"))), "admitted first"


def test_the_json_contract_has_a_pod_sets_topology_assignment_in_kueues_shape() -> None:
    """TAS-6: where a placed pod set's pods go (levels, then each domain's values and pod count), read off the
    result; a pod set without one has no key."""
    placed = PodSetAdmission("workers", {"cpu": "tas"}, {"cpu": 3000}, 3, TopologyAssignment(
        ("rack", "kubernetes.io/hostname"), (TopologyDomain(("r1", "x1"), 2), TopologyDomain(("r1", "x2"), 1))))
    admission = Admission("cq", (PodSetAdmission("launcher", {"cpu": "plain"}, {"cpu": 1000}, 1), placed))
    result = SimulationResult(
        cycles=1, stop_reason="cycles", fair_sharing=False,
        workloads={"ns/in": workload("ns/in", "Admitted", "Admitted", admission=admission, admitted_in=1)},
        cluster_queues={}, history=(), livelock=None, warnings=())
    launcher, workers = contract(result)["admitted"]["ns/in"]["podSetAssignments"]
    assert "topologyAssignment" not in launcher
    assert workers["topologyAssignment"] == {"levels": ["rack", "kubernetes.io/hostname"], "domains": [
        {"values": ["r1", "x1"], "count": 2}, {"values": ["r1", "x2"], "count": 1}]}
