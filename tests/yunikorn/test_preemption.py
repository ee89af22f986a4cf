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
