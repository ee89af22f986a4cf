"""YuniKorn conformance, queue-priority/: per queue the resolved properties (sort policy, priority flag,
priority policy and offset, preemption policy and delay), the priority it reports (P1-P4), each parent's
sorted children with pending asks (§7.1), and an application's priority as asks come and go (P2).

Through the package API that ``kqctl explain --queue`` uses (engine.priority.queue_report): the recorded
applications were added straight to their queues by YuniKorn's test helpers, so they are added the same way
here (placement would refuse them: these configs grant no submit ACL)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from yunikorn_conformance import load

from kqctl.yunikorn.api.config import parse_config
from kqctl.yunikorn.api.snapshot import ConfigSource, PodInfo, Snapshot
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine.objects import Application, Ask
from kqctl.yunikorn.engine.partition import admit, build_partition
from kqctl.yunikorn.engine.priority import queue_report

CASES = [(name, case) for name, case in load("queue-priority") if "config" in case]
STEPS = [(name, case) for name, case in load("queue-priority") if "steps" in case]
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _partition(case: dict[str, Any]):  # type: ignore[no-untyped-def]
    snapshot = Snapshot(ConfigSource(parse_config(case["config"]), "case"), now=NOW)
    partition = build_partition(snapshot)
    for path in case.get("dynamic_leaves_created") or []:
        partition.tree.create_dynamic(path)
    for app_case in case.get("apps") or []:
        app = Application(app_case["app_id"], "default", "nobody", (), 0)
        for i, priority in enumerate(app_case["ask_priorities"]):
            pod = PodInfo("default", f"{app.app_id}-{i}", app.app_id, "", "nobody", (), {"vcore": 1000, "pods": 1},
                          priority, NOW)
            app.asks.append(Ask(pod, app, pod.resource, priority, i))
        queue = partition.tree.get(app_case["queue"])
        assert queue is not None and queue.leaf
        admit(partition, app, queue)
    partition.compute_fair_max()
    return partition


@pytest.mark.parametrize("name,case", CASES, ids=[name for name, _ in CASES])
def test_queue_priorities_match_yunikorn(name: str, case: dict[str, Any]) -> None:
    partition = _partition(case)
    for expected in case["expected_queues"]:
        queue = partition.tree.get(expected["path"])
        assert queue is not None
        report = queue_report(partition, expected["path"])
        own = report.chain[-1]
        settings = queue.settings
        got = {"path": queue.path, "leaf": queue.leaf, "sort_policy": settings.sort_policy,
               "app_sort_priority_enabled": settings.priority_sort_enabled, "priority_policy": own.policy,
               "priority_offset": own.offset, "preemption_policy": settings.preemption_policy}
        if "current_priority" in expected:
            got["current_priority"] = own.reported
            got["preemption_delay"] = props.format_duration(settings.preemption_delay)
            level = next((lv for lv in report.levels if lv.parent == queue.path), None)
            children = [entry.name for entry in level.order] if level is not None else []
            got["sorted_children_with_pending"] = children or None
        if "properties" in expected:
            got.update(properties=queue.properties, guaranteed=queue.guaranteed, max=queue.max,
                       max_apps=queue.max_running_apps, managed=queue.managed)
        assert got == {key: expected[key] for key in got}


@pytest.mark.parametrize("name,case", STEPS, ids=[name for name, _ in STEPS])
def test_p2_application_priority_follows_unallocated_asks(name: str, case: dict[str, Any]) -> None:
    app = Application("app", "default", "nobody", (), 0)
    asks: dict[int, Ask] = {}

    def add(priority: int) -> None:
        pod = PodInfo("default", f"p{priority}", "app", "", "nobody", (), {"vcore": 1}, priority, NOW)
        asks[priority] = Ask(pod, app, pod.resource, priority, 0)
        app.asks.append(asks[priority])

    for step in case["steps"]:
        words = step["event"].replace(",", "").split()
        numbers = [int(w.split("=")[1]) for w in words if w.startswith("p=")]
        if words[:2] == ["add", "ask"] or words[0] == "re-add":
            for priority in numbers:
                add(priority)
        elif words[:2] == ["remove", "ask"]:
            app.asks.remove(asks.pop(numbers[0]))
        elif "becomes allocated" in step["event"]:
            asks[numbers[0]].node = "node"
        elif "back to unallocated" in step["event"]:
            asks[numbers[0]].node = ""
        app.asks_changed()
        assert app.ask_max_priority() == step["expect_app_priority"], step["event"]
