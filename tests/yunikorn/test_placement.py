"""Placement (YK-PL): which rule puts an application in which queue, or why it is rejected."""

from __future__ import annotations

import pytest
from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine.simulation import simulate


def _config(rules: str, queues: str, acl: str = "'*'") -> str:
    return ("partitions:\n  - name: default\n" + rules + "    queues:\n      - name: root\n"
            f"        submitacl: {acl}\n" + queues)


def _placed(config: str, *pods: dict) -> dict[str, tuple[str, str]]:  # type: ignore[type-arg]
    result = simulate(snapshot(config, node("n1", cpu="16", memory="64Gi"), *pods))
    return {p.name: (p.queue, p.state) for p in result.pods}


CHILDREN = "        queues:\n          - name: batch\n          - name: default\n"


@pytest.mark.parametrize("label,expected", [
    ("root.batch", ("root.batch", "Allocated")),
    ("batch", ("root.batch", "Allocated")),       # unqualified: under root
    ("BATCH", ("root.batch", "Allocated")),       # queue paths are case-insensitive
    ("missing", ("root.default", "Allocated")),   # the last rule gave nothing: root.default
])
def test_provided_rule(label: str, expected: tuple[str, str]) -> None:
    assert _placed(_config("", CHILDREN), pod("p", label, "app"))["p"] == expected


def test_no_rules_and_no_root_default_rejects() -> None:
    placed = _placed(_config("", "        queues:\n          - name: batch\n"), pod("p", "", "app"))
    assert placed["p"] == ("", "Rejected")


def test_default_config_puts_each_namespace_in_its_own_queue() -> None:
    result = simulate(snapshot(None, node("n1"), pod("p", "", "app", namespace="team-a")))
    [outcome] = result.pods
    assert (outcome.queue, outcome.state) == ("root.team-a", "Allocated")
    assert "YuniKorn's built-in default" in result.config


def test_tag_rule_with_a_fixed_parent_creates_the_namespace_queue() -> None:
    rules = ("    placementrules:\n      - name: tag\n        value: namespace\n        create: true\n"
             "        parent: {name: fixed, value: root.tenants}\n")
    queues = "        queues:\n          - name: tenants\n            parent: true\n"
    assert _placed(_config(rules, queues), pod("p", "", "app", namespace="alpha"))["p"] == ("root.tenants.alpha",
                                                                                           "Allocated")


def test_submit_acl_denies_users_not_listed() -> None:
    placed = _placed(_config("", "        queues:\n          - name: batch\n", acl="'alice'"), pod("p", "batch", "a"))
    assert placed["p"] == ("", "Rejected")


def test_user_rule_and_filter() -> None:
    rules = ("    placementrules:\n      - name: user\n        create: true\n"
             "        filter: {type: deny, users: [eve]}\n      - name: provided\n")
    queues = "        queues:\n          - name: shared\n"
    alice = {"yunikorn.apache.org/user.info": '{"user": "alice.smith"}'}
    eve = {"yunikorn.apache.org/user.info": '{"user": "eve"}'}
    placed = _placed(_config(rules, queues), pod("a", "shared", "a1", annotations=alice),
                     pod("e", "shared", "e1", annotations=eve))
    assert placed["a"] == ("root.alice_dot_smith", "Allocated")
    assert placed["e"] == ("root.shared", "Allocated")


def test_an_unbuildable_rule_rejects_every_application() -> None:
    rules = "    placementrules:\n      - name: namespace\n"
    placed = _placed(_config(rules, CHILDREN), pod("p", "batch", "app"))
    assert placed["p"] == ("", "Rejected")
