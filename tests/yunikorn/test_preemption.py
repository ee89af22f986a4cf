"""Preemption (YK-PREEMPT, spec §10): only to give a queue its guaranteed resources; preconditions E1-E4."""

from __future__ import annotations

from datetime import timedelta

import pytest
from support import run_kqctl
from yunikorn_build import NOW, configmap, node, pod, snapshot, text

from kqctl.yunikorn.engine.simulation import simulate

CONFIG = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: guaranteed
            resources:
              guaranteed: {vcore: 2, memory: 2Gi}
          - name: best-effort
"""


def _run(*pods: dict, config: str = CONFIG):  # type: ignore[no-untyped-def, type-arg]
    return simulate(snapshot(config, node("n1", cpu="2", memory="4Gi"), *pods))


def _hog(i: int, age: timedelta = timedelta(hours=1)) -> dict:  # type: ignore[type-arg]
    return pod(f"hog-{i}", "root.best-effort", "hogs", node_name="n1", age=age)


def test_a_queue_below_its_guaranteed_preempts() -> None:
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w", age=timedelta(minutes=5)))
    kinds = [e.kind for e in result.events]
    assert kinds[0] == "preempted" and "allocated-reserved" in kinds
    states = {p.name: p.state for p in result.pods}
    assert states["want"] == "Allocated" and list(states.values()).count("Preempted") == 1


def test_e3_younger_than_the_preemption_delay() -> None:
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w", age=timedelta(seconds=10)))
    want = next(p for p in result.pods if p.name == "want")
    assert want.state == "Pending" and "E3" in want.reason


def test_e1_preemption_policy_never() -> None:
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w", preemptionPolicy="Never"))
    want = next(p for p in result.pods if p.name == "want")
    assert want.state == "Pending" and "E1" in want.reason


def test_no_guaranteed_on_the_path_never_preempts() -> None:
    config = CONFIG.replace("            resources:\n              guaranteed: {vcore: 2, memory: 2Gi}\n", "")
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w"), config=config)
    assert not [e for e in result.events if e.kind == "preempted"]


def test_disabled_partition_preemption() -> None:
    config = CONFIG.replace("    queues:\n", "    preemption: {enabled: false}\n    queues:\n", 1)
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w"), config=config)
    assert not [e for e in result.events if e.kind == "preempted"]


def test_f3_a_victim_queue_at_its_guaranteed_is_spared() -> None:
    config = CONFIG.replace("          - name: best-effort\n",
                            "          - name: best-effort\n            resources:\n"
                            "              guaranteed: {vcore: 2, memory: 2Gi}\n")
    result = _run(_hog(0), _hog(1), pod("want", "root.guaranteed", "w"), config=config)
    assert not [e for e in result.events if e.kind == "preempted"]


@pytest.mark.parametrize(("hogs", "want_cpu", "preemptor", "victims"), [
    (2, "1", "preempted 1: default/hog-1", ["default/hog-1"]),
    (4, "1", "preempted 2: default/hog-3, default/hog-2", ["default/hog-3", "default/hog-2"]),
])
def test_yk_preempt_simulate_table_names_victims_and_preemptor(tmp_path, hogs: int, want_cpu: str, preemptor: str,
                                                               victims: list[str]) -> None:  # type: ignore[no-untyped-def]
    pods = [pod(f"hog-{i}", "root.best-effort", "hogs", cpu=str(2 / hogs), memory="512Mi", node_name="n1",
                age=timedelta(hours=1, minutes=-i)) for i in range(hogs)]
    path = tmp_path / "pre.yaml"
    path.write_text(text([configmap(CONFIG), node("n1", cpu="2", memory="4Gi"), *pods,
                          pod("want", "root.guaranteed", "w", cpu=want_cpu, memory="512Mi", age=timedelta(minutes=5))]))
    run = run_kqctl("simulate", str(path), "--now", NOW.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert run.code == 0, run.err
    rows = {line.split()[0]: line for line in run.out.splitlines() if line.startswith("default/")}
    assert rows["default/want"].rstrip().endswith(preemptor)
    for victim in victims:
        assert "Preempted" in rows[victim] and rows[victim].rstrip().endswith("preempted by default/want")


# YuniKorn (yunikorn-core be3bb487, preemption.go TryPreemption) keeps a victim only while
# ask.StrictlyGreaterThanOnlyExisting(total of the victims so far): once that total is above the ask in any one type
# it takes no more, even if the ask still lacks vcore. Every pod asks pods: 1 (k8shim), so the total's pods pass the
# ask's after two victims: here two 0.5-core victims free 1 core of the 2 asked. The shortfall check that follows
# adds up all the victims found, so the preemption still happens; the ask is marked (E2, MarkTriggeredPreemption,
# never reset) and CheckPreconditions refuses it any later attempt: it stays pending. kqctl does the same.
@pytest.mark.parametrize(("want_cpu", "want_memory", "preempted", "state", "passed"), [
    ("2", "512Mi", 2, "Pending", "memory and pods"),  # memory 1Gi > 512Mi and pods 2 > 1 after two victims
    ("2", "2Gi", 2, "Pending", "pods"),  # memory stays below the ask's: pods alone stop the choice
    ("1", "512Mi", 2, "Allocated", ""),  # two victims are all it needs
])
def test_e2_a_preemption_takes_victims_only_while_their_total_stays_below_the_ask(
        want_cpu: str, want_memory: str, preempted: int, state: str, passed: str) -> None:
    hogs = [pod(f"hog-{i}", "root.best-effort", "hogs", cpu="500m", memory="512Mi", node_name="n1",
                age=timedelta(hours=1, minutes=-i)) for i in range(4)]
    result = _run(*hogs, pod("want", "root.guaranteed", "w", cpu=want_cpu, memory=want_memory))
    assert [e.kind for e in result.events].count("preempted") == 1  # an ask preempts once (E2)
    pods = {p.name: p for p in result.pods}
    assert [p.state for p in result.pods].count("Preempted") == preempted
    assert pods["want"].state == state
    if passed:
        assert "YK-E2: the ask has already triggered preemption; it preempted 2 of 4 victims" in pods["want"].reason
        assert f"exceeds the ask in one resource type (here {passed})" in pods["want"].reason
    else:
        assert "YK-E2" not in pods["want"].reason
