"""The state a workload ends a run in (kqctl/kueue/engine/outcomes.py): decisions, tokens, reasons (SIM-9, AC-2)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.engine.entry import Entry
from kqctl.kueue.engine.outcomes import (
    DECISION_TOKENS,
    WorkloadOutcome,
    decision,
    decision_text,
    decision_token,
    reported_reason,
)
from kqctl.kueue.engine.simulation import Simulation
from tests.kueue.engine.manifests import (
    admission_check,
    check_states,
    cluster_queue,
    flavor,
    local_queue,
    simulation,
    workload,
)

PREEMPT = {"withinClusterQueue": "LowerPriority"}


def decided(*documents: dict[str, Any], cycles: int | None = None) -> dict[str, str]:
    sim = run(*documents, cycles=cycles)
    return {o.workload.model.name: decision(o, sim.queues, sim.cache) for o in sim.outcomes.values()}


def run(*documents: dict[str, Any], cycles: int | None = None) -> Simulation:
    sim = simulation(flavor("default"), local_queue("lq", "cq"), *documents, cycles=cycles)
    sim.run_cycles()
    return sim


def test_sim_9_admitted_pending_inadmissible_and_not_queued() -> None:
    assert decided(cluster_queue("cq", {"default": {"cpu": "4"}}, strategy="StrictFIFO"),
                   workload("fits", cpu="3", priority=9), workload("waits", cpu="2"),
                   workload("lost", queue="missing")) == {"fits": "Admitted", "waits": "Pending", "lost": "Not queued"}
    assert decided(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("fits", cpu="3", priority=9),
                   workload("waits", cpu="2"))["waits"] == "Inadmissible"


def test_sim_9_a_preempted_workload_says_where_it_waits_now() -> None:
    states = decided(cluster_queue("cq", {"default": {"cpu": "4"}}, preemption=PREEMPT),
                     workload("victim", cpu="4", admitted_in="cq"), workload("preemptor", cpu="4", priority=5))
    assert states == {"victim": "Preempted (inadmissible)", "preemptor": "Admitted"}


def test_sim_9_after_one_cycle_the_victim_still_holds_quota_and_the_preemptor_waits() -> None:
    states = decided(cluster_queue("cq", {"default": {"cpu": "4"}}, preemption=PREEMPT),
                     workload("victim", cpu="4", admitted_in="cq"), workload("preemptor", cpu="4", priority=5),
                     cycles=1)
    assert states == {"victim": "Preempted", "preemptor": "Waiting for preemption"}


@pytest.mark.parametrize(("states", "answer"), [
    ({}, "Quota reserved (waiting for checks: check)"),
    ({"check": "Pending"}, "Quota reserved (waiting for checks: check)"),
    ({"check": "Ready"}, "Admitted"),
])
def test_ac_2_a_reservation_is_an_admission_once_every_check_is_ready(states: dict[str, str], answer: str) -> None:
    status = check_states(**states) if states else None
    assert decided(admission_check("check"), cluster_queue("cq", {"default": {"cpu": "4"}}, admission_checks=["check"]),
                   workload("w", admitted_in="cq", status=status))["w"] == answer


def test_xo_1_a_workload_holding_quota_in_an_inactive_cluster_queue() -> None:
    assert decided(cluster_queue("cq", {"default": {"cpu": "4"}}, stop_policy="Hold"),
                   workload("w", admitted_in="cq"))["w"] == "Admitted (ClusterQueue inactive)"


@pytest.mark.parametrize(("state", "token"), [
    ("Admitted (ClusterQueue inactive)", "AdmittedInInactiveClusterQueue"),
    ("Admitted", "Admitted"),
    ("Quota reserved (waiting for checks: a, b)", "QuotaReserved"),
    ("Preempted (pending)", "Preempted"),
    ("Waiting for preemption", "WaitingForPreemption"),
    ("Not queued", "NotQueued"),
])
def test_sim_9_every_decision_has_a_stable_token(state: str, token: str) -> None:
    assert decision_token(state) == token


def test_sim_9_a_decision_without_a_token_is_an_error_not_a_guess() -> None:
    with pytest.raises(ValueError):
        decision_token("Something new")
    assert len(set(DECISION_TOKENS.values())) == len(DECISION_TOKENS)


def test_req_14_a_partial_admission_says_how_many_pods_got_in() -> None:
    sim = run(cluster_queue("cq", {"default": {"cpu": "3"}}), workload("w", count=4, min_count=2))
    outcome = sim.outcomes["ns/w"]
    assert decision_text(outcome, decision(outcome, sim.queues, sim.cache)) == "Admitted (3/4 pods)"


@pytest.mark.parametrize(("admitted", "preempted_in", "last", "reported"), [
    (False, 2, "QuotaReserved", ("Preempted", "evicted by p")),          # admitted, then preempted: the news
    (True, 2, "QuotaReserved", ("QuotaReserved", "last message")),      # still holds quota (the last cycle)
    (False, None, "WaitingForQuota", ("WaitingForQuota", "last message")),
    (False, 2, "WaitingForQuota", ("WaitingForQuota", "last message")),  # a head again after its preemption
])
def test_cyc_18_a_workload_admitted_then_preempted_reports_the_preemption(
        admitted: bool, preempted_in: int | None, last: str, reported: tuple[str, str]) -> None:
    held = workload("w", cpu="1", admitted_in="cq") if admitted else workload("w", cpu="2")  # 2 never fits
    sim = run(cluster_queue("cq", {"default": {"cpu": "1"}}), held, cycles=1)
    outcome = WorkloadOutcome(sim.outcomes["ns/w"].workload, "cq", "ns/lq", preempted_in=preempted_in,
                              preemption_message="evicted by p")
    outcome.last_entry = Entry(outcome.workload, "cq", sim.cache.cluster_queues["cq"], reason=last,
                               message="last message")
    assert reported_reason(outcome) == reported


def test_cyc_18_without_an_attempt_the_reason_is_why_it_is_not_queued() -> None:
    sim = run(cluster_queue("cq", {"default": {"cpu": "4"}}), workload("w", queue="missing"))
    assert reported_reason(sim.outcomes["ns/w"]) == ("Misconfigured", "LocalQueue missing doesn't exist")
