"""Preemption (YK-PREEMPT, spec §10): only to give a queue its guaranteed resources; preconditions E1-E4."""

from __future__ import annotations

from datetime import timedelta

from yunikorn_build import node, pod, snapshot

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
