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


# YK-V21: yunikorn-core placement/rule.go newRule matches a rule name lower-cased (normalise) against user, fixed,
# provided, tag (test, recovery); the validator (configvalidator.go checkPlacementRule) checks only that the name is
# an identifier. So Provided is provided, and PrimaryGroup is accepted by YuniKorn's webhook but builds no rule set.
@pytest.mark.parametrize("name", ["Provided", "PROVIDED", "provided"])
def test_v21_rule_names_are_matched_in_any_case(name: str) -> None:
    rules = f"    placementrules:\n      - name: {name}\n"
    assert _placed(_config(rules, CHILDREN), pod("p", "batch", "app"))["p"] == ("root.batch", "Allocated")


def test_v21_primary_group_is_accepted_by_yunikorn_as_a_warning_and_rejects_every_application() -> None:
    from kqctl.yunikorn.validate.checks import check_config_text

    rules = "    placementrules:\n      - name: PrimaryGroup\n        create: true\n      - name: provided\n"
    config = _config(rules, CHILDREN)
    check = check_config_text(config)
    assert check.effective is not None and check.effective["validateConf"] == {"allowed": True, "reason": None}
    assert [(f.rule_id, f.severity.value) for f in check.findings] == [("YK-V21", "warning")]
    assert check.findings[0].message == "unknown rule name specified PrimaryGroup, failing placement rule config"
    assert check.findings[0].hint is not None and "rejects every application" in check.findings[0].hint
    assert _placed(config, pod("p", "batch", "app"))["p"] == ("", "Rejected")  # at start-up: no rules at all
