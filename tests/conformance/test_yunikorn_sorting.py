"""YuniKorn conformance, sorting/: recorded calls of the child-queue sort (§7.1) and the application sort
(§7.2), through the package API.

The recorded input order is YuniKorn's own (a Go map's); fed in that order, kqctl's sort (Go's stable sort
algorithm) must give exactly the recorded result. Where the result does not depend on the input order, kqctl's
own input order (by name) must give it too.
"""

from __future__ import annotations

import pytest
from yunikorn_conformance import ids, load

from kqctl.yunikorn.engine import sorting

CASES = load("sorting")


def _queues(case) -> list:  # type: ignore[no-untyped-def]
    return [sorting.QueueEntry(q["name"], q["current_priority"], q["allocated"] or {}, q["guaranteed"],
                               q["fair_max"], q["pending"] or {}) for q in case["input"] or []]


def _apps(case) -> list:  # type: ignore[no-untyped-def]
    total = case.get("queue_guaranteed_as_total")
    entries = []
    for app in case["input"] or []:
        if not sorting.res.strictly_greater_than_zero(app["pending"]):
            continue  # filterOnPendingResources: only applications with something pending are sorted
        entries.append(sorting.AppEntry(app["app_id"], app["ask_max_priority"], app["allocated"] or {},
                                        app["submission_time_unix_nano"], total))
    return entries


def _names(entries) -> list[str]:  # type: ignore[no-untyped-def]
    return [getattr(e, "name", None) or e.app_id for e in entries]


@pytest.mark.parametrize("name,case", CASES, ids=ids(CASES))
def test_sort_matches_yunikorn(name: str, case) -> None:  # type: ignore[no-untyped-def]
    policy, priority = case["sort_policy"], case["consider_priority"]
    if case["function"].startswith("sortQueue"):
        entries = _queues(case)
        in_recorded_order = sorting.order_queues(entries, priority, policy)
        by_name = sorting.sort_queues(entries, priority, policy)
    else:
        entries = _apps(case)
        in_recorded_order = sorting.order_applications(entries, policy, priority)
        by_name = sorting.sort_applications(entries, policy, priority)
    assert _names(in_recorded_order) == case["expected_order"]
    if case["input_order_independent"]:
        assert _names(by_name) == case["expected_order"]
