"""``simulate --fail-on`` for YuniKorn in the words every scheduler shares: inadmissible = can never get in as
configured (a Rejected application; a Pending pod above a max on its path, YK-G3, above a user or group limit,
YK-G2, asking a resource no node has, YK-G4, or bigger than every node), pending = not running at the end for any
reason, preempted = a victim (kqctl.yunikorn.engine.inadmissible)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from support import run_kqctl
from yunikorn_build import NOW, configmap, node, pod, snapshot, text

from kqctl.yunikorn.engine.simulation import simulate

CONFIG = """partitions:
  - name: default
    placementrules:
      - name: provided
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: small
            resources:
              max: {vcore: 2}
          - name: limited
            limits:
              - limit: one-core
                users: [alice]
                maxresources: {vcore: 1}
          - name: open
          - name: guaranteed
            resources:
              guaranteed: {vcore: 4}
"""
def _with_gpu(body: dict) -> dict:  # type: ignore[type-arg]
    body["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    return body


ALICE = {"yunikorn.apache.org/user.info": '{"user": "alice", "groups": ["devs"]}'}


def _outcomes(*pods: dict) -> dict[str, tuple[str, tuple[str, ...], str]]:  # type: ignore[type-arg]
    result = simulate(snapshot(CONFIG, node("n1", cpu="4", memory="8Gi"), *pods))
    return {p.name: (p.state, p.fail_on, p.inadmissible) for p in result.pods}


@pytest.mark.parametrize(("pods", "name", "fail_on", "why"), [
    # YK-G3: bigger than a max on its queue's path, now and forever
    ([pod("big", "root.small", "a", cpu="3")], "big", ("inadmissible", "pending"),
     "it asks vcore 3 and the max of root.small is 2 (YK-G3)"),
    # YK-G3 at root: the cluster
    ([pod("huge", "root.open", "a", cpu="5")], "huge", ("inadmissible", "pending"),
     "it asks vcore 5 and the whole cluster has 4 (YK-G3)"),
    # YK-G2: above a user limit
    ([pod("over", "root.limited", "a", cpu="2", annotations=ALICE)], "over", ("inadmissible", "pending"),
     "it asks vcore 2 and user alice's limit one-core on root.limited allows 1 (YK-G2)"),
    # YK-G4: a resource no node has
    ([_with_gpu(pod("gpu", "root.open", "a"))], "gpu",
     ("inadmissible", "pending"), "no node has any nvidia.com/gpu: YuniKorn counts it as 0 at root (YK-G4)"),
    # only waiting for room that others hold: pending, not inadmissible
    ([pod("first", "root.small", "a", cpu="2", age=timedelta(minutes=10)),
      pod("second", "root.small", "b", cpu="1")], "second", ("pending",), ""),
    # YK-PL: the application is rejected
    ([pod("lost", "root.nowhere", "a")], "lost", ("inadmissible", "pending"), ""),
    ([pod("fits", "root.open", "a")], "fits", (), ""),
    # YK-GANG-1: a gang whose Hard placeholder timeout passed before any placeholder was made fails
    ([pod("gang", "root.open", "g", age=timedelta(minutes=5), annotations={
        "yunikorn.apache.org/task-groups": '[{"name": "w", "minMember": 1, "minResource": {"cpu": "1"}}]',
        "yunikorn.apache.org/schedulingPolicyParameters": "placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard"})],
     "gang", ("pending",), ""),
])
def test_each_pod_ends_in_the_fail_on_states_its_yunikorn_state_means(
        pods: list[dict], name: str, fail_on: tuple[str, ...], why: str) -> None:  # type: ignore[type-arg]
    state, got, inadmissible = _outcomes(*pods)[name]
    assert got == fail_on, state
    assert inadmissible == why


def test_a_preemption_victim_ends_preempted_and_pending() -> None:
    hogs = [pod(f"hog-{i}", "root.open", "hogs", cpu="2", node_name="n1", age=timedelta(hours=2 - i)) for i in (0, 1)]
    outcomes = _outcomes(*hogs, pod("want", "root.guaranteed", "w", cpu="2"))
    assert outcomes["want"][:2] == ("Allocated", ())
    assert outcomes["hog-1"][:2] == ("Preempted", ("pending", "preempted"))


def test_fail_on_inadmissible_fails_on_a_pod_too_big_for_its_queue(tmp_path: Path) -> None:
    # observed (issue 18): a YuniKorn pod too big for its queue passed --fail-on inadmissible
    path = tmp_path / "in.yaml"
    path.write_text(text([configmap(CONFIG), node("n1", cpu="4", memory="8Gi"),
                          pod("big", "root.small", "a", cpu="3"), pod("fits", "root.open", "b")]))
    now = ("--now", NOW.strftime("%Y-%m-%dT%H:%M:%SZ"))
    run = run_kqctl("simulate", str(path), *now, "--fail-on", "inadmissible")
    assert run.code == 1 and "1 pod(s) end inadmissible (--fail-on): default/big" in run.err
    assert "default/big: Not enough queue quota" in run.out and \
        "it can never get in as configured: it asks vcore 3 and the max of root.small is 2 (YK-G3)" in run.out
    assert run_kqctl("simulate", str(path), *now, "--fail-on", "preempted").code == 0
    data = json.loads(run_kqctl("simulate", str(path), *now, "-o", "json").out)
    pods = {p["name"]: p for p in data["pods"]}
    assert pods["big"]["failOn"] == ["inadmissible", "pending"] and "root.small" in pods["big"]["neverFits"]
    assert pods["fits"]["failOn"] == [] and pods["fits"]["neverFits"] is None


def test_explain_and_simulate_give_each_pod_the_same_fail_on_states() -> None:
    sample, now = "samples/yunikorn-multi-tenant", ("--now", "2026-01-01T12:00:00Z")
    simulated = {f"{p['namespace']}/{p['name']}": p for p in
                 json.loads(run_kqctl("simulate", sample, *now, "-o", "json").out)["pods"]}
    assert any("inadmissible" in p["failOn"] for p in simulated.values())
    for key, simulated_pod in simulated.items():
        if simulated_pod["state"] in ("Pending", "Rejected"):
            explained = json.loads(run_kqctl("explain", key, sample, *now, "-o", "json").out)
            assert (explained["failOn"], explained["neverFits"]) == \
                (simulated_pod["failOn"], simulated_pod["neverFits"]), key
