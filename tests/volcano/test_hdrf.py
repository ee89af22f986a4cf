"""Hierarchical DRF: the drf plugin with enableHierarchy (VC-HDRF-1..VC-HDRF-4) and drf's preemptable vote
(VC-DRF-2),
as ``plugins/drf/drf.go`` computes them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kqctl.volcano.engine.drf import Drf, parse_weight
from kqctl.volcano.engine.framework import Plugin, Session
from kqctl.volcano.engine.session import build_cache
from kqctl.volcano.engine.simulation import initial_world
from tests.volcano.builders import binds, conf, group, node, pod, queue, run, session, snapshot

HDRF = {"name": "drf", "enableHierarchy": True}


def hqueue(name: str, path: str, weights: str, **spec: Any) -> dict[str, Any]:
    body = queue(name, **spec)
    body["metadata"]["annotations"] = {"volcano.sh/hierarchy": path, "volcano.sh/hierarchy-weights": weights}
    return body


def _three_branches() -> list[dict[str, Any]]:
    """n1 runs 2G of memory; below n2, a runs 4 cpu and b 1G of memory; each job has one more pod waiting."""
    objects: list[dict[str, Any]] = [
        conf("allocate", [HDRF, "predicates"]), node("node-1", cpu="10", memory="10G", pods="1000"),
        hqueue("q1", "root/n1", "1/1"), hqueue("q2a", "root/n2/a", "1/1/1"), hqueue("q2b", "root/n2/b", "1/1/1")]
    for name, queue_name, cpu, memory in (("j1", "q1", "0", "2G"), ("j21", "q2a", "4", "0"),
                                          ("j22", "q2b", "0", "1G")):
        objects += [group(name, queue_name, 1, phase="Running"), pod(f"{name}-0", name, cpu, memory, "node-1"),
                    pod(f"{name}-1", name, "100", "100G")]  # too big to place: it only keeps the job demanding
    return objects


def test_hdrf_1_tree_follows_the_queues_hierarchy_annotations() -> None:
    levels = session(*_three_branches()).hdrf
    assert sorted(levels) == ["root", "root/n1", "root/n2", "root/n2/a", "root/n2/b"]


@pytest.mark.parametrize(("text", "weight"), [("8", 8.0), ("2.5", 2.5), ("0.5", 1.0), ("0", 1.0), ("x", 1.0),
                                              ("", 1.0), ("1e2", 100.0)])
def test_hdrf_1_level_weight_below_one_or_not_a_number_is_one(text: str, weight: float) -> None:
    assert parse_weight(text) == weight


def test_hdrf_1_path_without_root_is_stored_with_root_in_front() -> None:
    snap = snapshot(hqueue("q", "eng/dev", "2/3"))
    assert (snap.queues["q"].hierarchy, snap.queues["q"].hierarchy_weights) == ("root/eng/dev", "1/2/3")


def test_hdrf_2_children_are_rescaled_to_the_smallest_dominant_share() -> None:
    levels = session(*_three_branches()).hdrf
    assert levels["root/n2/a"].share == pytest.approx(0.4)
    assert levels["root/n2/b"].share == pytest.approx(0.1)
    # a's 4 cpu (share 0.4) is scaled to share 0.1 before it is added: n2 holds 1 cpu and 1G, share 0.1.
    assert levels["root/n2"].share == pytest.approx(0.1)
    assert levels["root/n2"].allocated["cpu"] == pytest.approx(1000)
    assert levels["root/n1"].share == pytest.approx(0.2)
    assert not any(level.saturated for level in levels.values())


def test_hdrf_2_job_with_everything_allocated_is_saturated() -> None:
    objects = _three_branches()
    objects = [o for o in objects if o["metadata"].get("name") != "j1-1"]  # j1 has all it asked for
    levels = session(*objects).hdrf
    assert levels["root/n1"].saturated
    assert not levels["root/n2"].saturated


def _drf_session(objects: list[dict[str, Any]]) -> tuple[Session, Drf]:
    snap = snapshot(*objects)
    cache = build_cache(snap, initial_world(snap))
    ssn = Session(snap.conf, cache.queues, cache.jobs, cache.nodes)
    option = snap.conf.plugin("drf")
    assert option is not None
    return ssn, Drf(ssn, Plugin(option))


def test_hdrf_3_queue_order_compares_share_over_weight_level_by_level() -> None:
    ssn, drf = _drf_session(_three_branches())
    q1, q2a, q2b = ssn.queues["q1"], ssn.queues["q2a"], ssn.queues["q2b"]
    assert drf.queue_order(q2a, q1) < 0  # n2 (0.1) before n1 (0.2), whatever a's own share
    assert drf.queue_order(q2b, q2a) < 0  # below n2: b (0.1) before a (0.4)


def test_hdrf_3_weight_divides_the_share() -> None:
    objects = _three_branches()
    objects[2] = hqueue("q1", "root/n1", "1/4")  # n1: 0.2 / 4 = 0.05 < n2's 0.1
    ssn, drf = _drf_session(objects)
    assert drf.queue_order(ssn.queues["q1"], ssn.queues["q2b"]) < 0


def test_hdrf_3_saturated_level_goes_last() -> None:
    objects = [o for o in _three_branches() if o["metadata"].get("name") != "j1-1"]
    ssn, drf = _drf_session(objects)
    assert drf.queue_order(ssn.queues["q2a"], ssn.queues["q1"]) < 0
    assert drf.queue_order(ssn.queues["q1"], ssn.queues["q2b"]) > 0


def test_hdrf_allocation_follows_the_tree() -> None:
    """Volcano's TestHDRF "rescaling test" cluster (10 cpu, 10G; sci 50 against eng's dev and prod, 50 each).
    Volcano's test never asserts its figures (it compares a map with a vector); this is what drf.go's order
    gives with allocate's queue heap, worked through by hand: the heap keeps a queue where it was pushed."""
    objects: list[dict[str, Any]] = [
        conf("allocate", [HDRF, "predicates"]), node("node-1", cpu="10", memory="10G", pods="50"),
        hqueue("root-sci", "root/sci", "100/50"), hqueue("root-eng-dev", "root/eng/dev", "100/50/50"),
        hqueue("root-eng-prod", "root/eng/prod", "100/50/50"),
        group("pg1", "root-sci", 0), group("pg21", "root-eng-dev", 0), group("pg22", "root-eng-prod", 0)]
    for name, cpu, memory in (("pg1", "1", "1G"), ("pg21", "1", "0"), ("pg22", "0", "1G")):
        objects += [pod(f"{name}-p{i}", name, cpu, memory) for i in range(10)]
    result = run(*objects, sessions=1)
    order = [p.split("/")[1].rsplit("-", 1)[0] for _, p, _ in result.binds]
    assert order[:6] == ["pg21", "pg22", "pg1", "pg21", "pg22", "pg21"]
    assert Counter(order) == {"pg1": 4, "pg21": 6, "pg22": 6}  # cpu 10/10 and memory 10G/10G


def test_hdrf_4_reclaim_takes_from_the_queue_whose_share_is_higher() -> None:
    objects: list[dict[str, Any]] = [
        conf("enqueue, allocate, reclaim", ["priority", "gang"], [HDRF, "predicates"]),
        node("node-1", cpu="4", memory="8Gi"), hqueue("qa", "root/a", "1/1"), hqueue("qb", "root/b", "1/1"),
        group("ga", "qa", 1, phase="Running"), group("gb", "qb", 1, phase="Inqueue")]
    objects += [pod(f"a-{i}", "ga", "1", "1Gi", "node-1") for i in range(4)]
    objects.append(pod("b-0", "gb", "1", "1Gi"))
    result = run(*objects)
    # a runs all it asked for (saturated: it orders last), b with its task placed orders first: a victim.
    assert [(e.group, e.by) for e in result.evictions] == [("ns/ga", "ns/b-0")]
    assert binds(result) == {"ns/b-0": "node-1"}


def test_hdrf_4_no_victim_when_the_reclaimer_would_then_order_after_the_candidate() -> None:
    objects: list[dict[str, Any]] = [
        conf("enqueue, allocate, reclaim", ["priority", "gang"], [HDRF, "predicates"]),
        node("node-1", cpu="4", memory="8Gi"), hqueue("qa", "root/a", "1/1"), hqueue("qb", "root/b", "1/1"),
        group("ga", "qa", 1, phase="Running"), group("gb", "qb", 1, phase="Running")]
    objects += [pod(f"a-{i}", "ga", "1", "1Gi", "node-1") for i in range(2)]
    objects += [pod(f"b-{i}", "gb", "1", "1Gi", "node-1") for i in range(2)]
    objects.append(pod("b-2", "gb", "1", "1Gi"))
    result = run(*objects, sessions=1)
    assert result.evictions == ()  # b with 3 of 4 cpu would order after a with 1: a's tasks are no victims


def test_drf_2_preemptable_victims_have_at_least_the_preemptors_share() -> None:
    objects: list[dict[str, Any]] = [
        conf("allocate", ["drf"]), node("node-1", cpu="10", memory="10Gi"), queue("q"),
        group("big", "q", 1, phase="Running"), group("small", "q", 1, phase="Running")]
    objects += [pod(f"big-{i}", "big", "2", "1Gi", "node-1") for i in range(3)]
    objects += [pod("small-0", "small", "1", "1Gi", "node-1"), pod("small-1", "small", "1", "1Gi")]
    ssn, drf = _drf_session(objects)
    job_small, job_big = ssn.jobs["ns/small"], ssn.jobs["ns/big"]
    preemptor = next(t for t in job_small.tasks.values() if not t.node)
    victims, _ = drf.preemptable(preemptor, sorted(job_big.tasks.values(), key=lambda t: t.key))
    # small with its task: 2 cpu of 10 (0.2). big loses its tasks one after the other (the losses add up):
    # 4 cpu (0.4) and 2 cpu (0.2, equal) are victims, 0 is below 0.2.
    assert [v.key for v in victims] == ["ns/big-0", "ns/big-1"]
    self_victims, _ = drf.preemptable(preemptor, [t for t in job_small.tasks.values() if t.node])
    assert self_victims == []  # small's own running task: 0 after losing it < 0.2


def test_hdrf_is_no_longer_reported_as_not_simulated() -> None:
    snap = snapshot(*_three_branches())
    assert not any("enableHierarchy" in line or "hierarchical DRF" in line for line in snap.limitations)


def test_hdrf_simulate_shows_the_tree_and_each_queues_share(tmp_path: Any) -> None:
    import json

    import yaml

    from tests.support import run_kqctl

    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(_three_branches()), encoding="utf-8")
    table = run_kqctl("simulate", str(path))
    assert table.code == 0, table.err
    assert "Hierarchical DRF (drf enableHierarchy)" in table.out
    assert [line.split()[:4] for line in table.out.splitlines() if line.strip().startswith(("n2 ", "a ", "b "))] \
        == [["n2", "-", "1", "0.1"], ["a", "q2a", "1", "0.4"], ["b", "q2b", "1", "0.1"]]
    data = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    assert data["queues"]["q2a"]["hdrf"]["path"] == "root/n2/a"
    assert data["queues"]["q2a"]["hierarchy"] == "root/n2/a"
    assert data["queues"]["default"]["hdrf"] is None
    assert [level["path"] for level in data["hdrf"]] == ["root", "root/n1", "root/n2", "root/n2/a", "root/n2/b"]


def test_hdrf_audit_share_column_is_simulates_hdrf_share(tmp_path: Any) -> None:
    """One answer: audit's SHARE reads the HDRF share simulate shows, not "-"."""
    import yaml

    from tests.support import run_kqctl

    path = tmp_path / "hdrf.yaml"
    path.write_text(yaml.safe_dump_all(_three_branches()), encoding="utf-8")

    def shares(args: tuple[str, ...], queue_column: int) -> dict[str, str]:
        out = run_kqctl(*args, str(path), env={"COLUMNS": "200"}).out
        lines = out.splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("QUEUE"))
        found = {}
        for line in lines[header + 1:]:
            if not line.strip():
                break
            cells = line.replace("├─ ", "").replace("└─ ", "").split()
            if len(cells) > queue_column and cells[0] in ("q1", "q2a", "q2b"):
                found[cells[0]] = cells[-1]
        return found

    simulated = shares(("simulate",), 0)
    audited = shares(("audit",), 0)
    assert set(audited) == {"q1", "q2a", "q2b"} and audited == {k: simulated[k] for k in audited}
    assert "-" not in audited.values()
