"""YuniKorn's validator rules one by one (YK-V1-V5, V11-V14, V16, V19) and the lints and runtime checks kqctl adds
(YK-V26, V27, V27b): each row a configuration, the rule kqctl reports first and YuniKorn's message (spec §4)."""

from __future__ import annotations

import pytest

from kqctl.yunikorn.validate.checks import FIRST_HINT, check_config_text


def _partition(queues: str, extra: str = "", name: str = "default") -> str:
    return f"  - name: {name}\n{extra}    queues:\n{queues}"


def _config(*partitions: str) -> str:
    return "partitions:\n" + "".join(partitions)


ROOT = "      - name: root\n"


def _tree(children: str, root_extra: str = "") -> str:
    return ROOT + root_extra + "        queues:\n" + children


def _first(text: str) -> tuple[str, str]:
    """(rule, message) of YuniKorn's first error: the one finding marked as what its webhook answers."""
    check = check_config_text(text)
    [first] = [f for f in check.findings if f.hint and FIRST_HINT in f.hint]
    return first.rule_id, first.message


def _errors(text: str) -> list[tuple[str, str]]:
    return [(f.rule_id, f.message) for f in check_config_text(text).findings if f.severity.value == "error"]


@pytest.mark.parametrize(("text", "message"), [
    (_config(_partition(ROOT), _partition(ROOT)), "duplicate partition name found with name default"),
    (_config(_partition(ROOT, name="''"), _partition(ROOT)), "duplicate partition name found with name default"),
    (_config(_partition(ROOT, name="Gpu"), _partition(ROOT, name="gpu")), "duplicate partition name found with name"),
])
def test_v1_partition_names_are_unique_ignoring_case(text: str, message: str) -> None:
    rule, found = _first(text)
    assert rule == "YK-V1" and found.startswith(message)


@pytest.mark.parametrize("text", [
    "partitions:\n  - name: default\n",
    "partitions:\n  - name: default\n    placementrules:\n      - name: provided\n",
])
def test_v2_a_partition_needs_queues(text: str) -> None:
    assert _first(text) == ("YK-V2", "queue config is not set")


@pytest.mark.parametrize(("queues", "paths"), [
    ("      - name: a\n      - name: b\n", ["root", "root.a", "root.b"]),       # two top queues: root above them
    ("      - name: a\n", ["root", "root.a"]),                                   # a single top queue not named root
    ("      - name: ROOT\n        queues:\n          - name: a\n", None),       # root in any case: V20 at runtime
])
def test_v3_root_is_inserted_above_other_top_queues(queues: str, paths: list[str] | None) -> None:
    check = check_config_text(_config(_partition(queues)))
    assert check.effective is not None and check.effective["validateConf"]["allowed"] is True
    if paths is None:
        # YuniKorn's webhook allows it (validateConf), the partition cannot be built: a warning, never an error
        assert [(f.rule_id, f.severity.value) for f in check.findings] == [("YK-V20", "warning")]
        return
    assert [q["path"] for q in check.effective["partitions"][0]["queues"]] == paths


@pytest.mark.parametrize("resources", ["{max: {vcore: 10}}", "{guaranteed: {memory: 1Gi}}"])
def test_v4_root_sets_no_resources(resources: str) -> None:
    text = _config(_partition(ROOT + f"        resources: {resources}\n"))
    assert _first(text) == ("YK-V4", "root queue must not have resource limits set")


LIMIT = "      - limit: l\n        users: [alice]\n        maxapplications: {n}\n"


@pytest.mark.parametrize(("partition_limits", "root_limits", "valid"), [
    (LIMIT.format(n=2), LIMIT.format(n=3), False),
    (LIMIT.format(n=2), LIMIT.format(n=2), True),
    (LIMIT.format(n=2), "", True),   # partition limits are copied to root
])
def test_v5_partition_and_root_limits_must_be_equal(partition_limits: str, root_limits: str, valid: bool) -> None:
    root = ROOT + ("        limits:\n" + root_limits.replace("      ", "          ") if root_limits else "")
    text = _config(_partition(root, extra="    limits:\n" + partition_limits))
    if valid:
        assert _errors(text) == []
    else:
        assert _first(text) == ("YK-V5", "partition limits and root queue limits are not equivalent")


@pytest.mark.parametrize(("children", "message"), [
    ("          - name: p\n            resources: {max: {vcore: 10}}\n            queues:\n"
     "              - name: c\n                resources: {max: {vcore: 20}}\n",
     "max resource of parent map[vcore:10000] is smaller than maximum resource map[vcore:20000] for queue c "
     "(vcore 20 > 10)"),
    ("          - name: p\n            resources: {max: {vcore: 10}}\n            queues:\n              - name: m\n"
     "                queues:\n                  - name: c\n                    resources: {max: {vcore: 20}}\n",
     "max resource of parent map[vcore:10000] is smaller than maximum resource map[vcore:20000] for queue c "
     "(vcore 20 > 10)"),
])
def test_v11_max_within_the_ancestors_max(children: str, message: str) -> None:
    assert _first(_config(_partition(_tree(children)))) == ("YK-V11", message)


def test_v12_children_guaranteed_within_the_parents_guaranteed() -> None:
    children = ("          - name: p\n            resources: {guaranteed: {vcore: 2}}\n            queues:\n"
                "              - name: a\n                resources: {guaranteed: {vcore: 2}}\n"
                "              - name: b\n                resources: {guaranteed: {vcore: 1}}\n")
    assert _first(_config(_partition(_tree(children)))) == (
        "YK-V12", "guaranteed resource of parent map[vcore:2000] is smaller than sum of guaranteed resources "
        "map[vcore:3000] of the children for queue p (vcore 3 > 2)")


def test_v13_children_guaranteed_within_the_parents_max() -> None:
    children = ("          - name: p\n            resources: {max: {vcore: 2}}\n            queues:\n"
                "              - name: a\n                resources: {guaranteed: {vcore: 2}}\n"
                "              - name: b\n                resources: {guaranteed: {vcore: 1}}\n")
    assert _first(_config(_partition(_tree(children)))) == (
        "YK-V13", "max resource map[vcore:2000] is smaller than sum of guaranteed resources map[vcore:3000] of the "
        "children for queue p (vcore 3 > 2)")


@pytest.mark.parametrize(("rules", "message"), [
    ("      - name: 1provided\n", "invalid rule name 1provided, a name must be a valid identifier"),
    ("      - name: tag\n        value: namespace\n        parent:\n          name: fixed-name\n",
     "invalid rule name fixed-name, a name must be a valid identifier"),
])
def test_v14_placement_rule_names_are_identifiers(rules: str, message: str) -> None:
    assert _first(_config(_partition(ROOT, extra="    placementrules:\n" + rules))) == ("YK-V14", message)


@pytest.mark.parametrize(("rules", "children", "message"), [
    ("      - name: fixed\n        value: root.p\n", "          - name: p\n            parent: true\n",
     "placement rule no. #0 (fixed) references a queue (root.p) which is not a leaf"),
    # checkQueueHierarchyForPlacement reads the written parent flag only: children alone do not make p a parent
    ("      - name: fixed\n        value: root.p\n", "          - name: p\n            queues:\n"
     "              - name: c\n", None),
    ("      - name: fixed\n        value: root.x\n", "          - name: p\n",
     "placement rule no. #0 (fixed) references non-existing queues (root.x) and create is 'false'"),
    ("      - name: fixed\n        value: root.p.x\n        create: true\n", "          - name: p\n",
     "placement rule no. #0 (fixed) references non-existing queues (root.p.x) which cannot be created because "
     "the last queue (p) in the hierarchy is a leaf"),
])
def test_v16_static_placement_paths_fit_the_queue_tree(rules: str, children: str, message: str | None) -> None:
    text = _config(_partition(_tree(children), extra="    placementrules:\n" + rules))
    if message is None:
        assert _errors(text) == []
    else:
        assert _first(text) == ("YK-V16", message)


@pytest.mark.parametrize(("limits", "message"), [
    # the limit is printed as Go prints the struct (%v): its description, users, groups, resources, applications
    ("          - limit: l\n            maxapplications: 1\n",
     "empty user and group lists defined in limit '{l [] [] map[] 1}'"),
    ("          - limit: l\n            users: [1bad]\n            maxapplications: 1\n",
     "invalid limit user name '1bad' in limit definition"),
    ("          - limit: l\n            users: [alice, alice]\n            maxapplications: 1\n",
     "duplicated user name 'alice', already exists"),
    ("          - limit: l\n            users: ['*', alice]\n            maxapplications: 1\n",
     "should not set no wildcard user alice after wildcard user limit"),
    ("          - limit: l\n            users: [alice]\n", "invalid resource combination for limit l all resource "
     "limits are null"),
])
def test_v19_user_and_group_limits(limits: str, message: str) -> None:
    assert _first(_config(_partition(ROOT + "        limits:\n" + limits))) == ("YK-V19", message)


def test_v26_child_template_guaranteed_above_its_max_is_a_warning() -> None:
    children = ("          - name: p\n            parent: true\n            childtemplate:\n              resources:\n"
                "                guaranteed: {vcore: 4}\n                max: {vcore: 2}\n")
    findings = check_config_text(_config(_partition(_tree(children)))).findings
    assert [(f.rule_id, f.severity.value) for f in findings] == [("YK-V26", "warning")]
    assert "guaranteed map[vcore:4000] is larger than max map[vcore:2000]" in findings[0].message


@pytest.mark.parametrize(("text", "rule", "severity", "allowed"), [
    ("", "YK-V27", "info", True),                     # empty: the built-in default
    ("partitions: []\n", "YK-V27B", "warning", True),   # accepted by the validator, nothing is scheduled
    ("checksum: abc\n", "YK-V27B", "warning", True),    # no partitions key at all
])
def test_v27_v27b_empty_text_and_no_partition(text: str, rule: str, severity: str, allowed: bool) -> None:
    check = check_config_text(text)
    assert [(f.rule_id, f.severity.value) for f in check.findings] == [(rule, severity)]
    assert check.effective is not None and check.effective["validateConf"]["allowed"] is allowed


@pytest.mark.parametrize(("resources", "name", "meant"), [
    ("max: {cpu: 2}", "cpu", "vcore"),                      # kubectl's name
    ("max: {requests.memory: 1Gi}", "requests.memory", "memory"),
    ("max: {Memory: 8Gi}", "Memory", "memory"),             # near misses: YuniKorn keeps them as resources
    ("guaranteed: {Vcore: 2}", "Vcore", "vcore"),           # of their own, which no pod asks for
    ("max: {MEMORY: 8Gi}", "MEMORY", "memory"),
    ("max: {memroy: 8Gi}", "memroy", "memory"),
    ("max: {vcore: 2, memory: 1Gi, pods: 10, nvidia.com/gpu: 1, ephemeral-storage: 1Gi}", None, None),
])
def test_v24_a_resource_name_no_pod_asks_for_is_a_warning_since_yunikorn_accepts_it(
        resources: str, name: str | None, meant: str | None) -> None:
    check = check_config_text(_config(_partition(_tree(
        f"          - name: a\n            resources: {{{resources}}}\n"))))
    assert check.effective is not None and check.effective["validateConf"]["allowed"] is True
    v24 = [f for f in check.findings if f.rule_id == "YK-V24"]
    if name is None:
        assert v24 == []
        return
    assert [f.severity.value for f in v24] == ["warning"]
    assert v24[0].message.startswith(f"resource '{name}' in ")
    assert "YuniKorn accepts any resource name" in v24[0].message
    consequence = f"queue a has no {meant} max" if resources.startswith("max") else f"queue a is guaranteed no {meant}"
    assert consequence in v24[0].message
    assert v24[0].hint == f"write '{meant}' instead of '{name}'"
