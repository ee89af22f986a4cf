"""kqctl.validate.cel: the CRDs' x-kubernetes-validations rules, evaluated on create."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import cel
import pytest

from kqctl.findings import Finding, Severity
from kqctl.k8s.scalars import LiteralFloat
from kqctl.validate import cel as cel_module
from kqctl.validate.cel import (
    CEL_EVAL,
    CEL_RULE,
    CelEvalError,
    CelUnsupported,
    compile_fast,
    compile_rule,
    parse_field_path,
    rule_id_for,
    to_cel_value,
    validate_cel,
)
from kqctl.validate.schema import SCHEMA_DIR, apply_schema_defaults, validate_schema

KUEUE = "kueue.x-k8s.io/v1beta2"


def cluster_queue(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": {
            "cohortName": "org",
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "on-demand",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "10", "borrowingLimit": "5"},
                                {"name": "memory", "nominalQuota": "40Gi"},
                            ],
                        }
                    ],
                }
            ],
        },
    }
    body["spec"].update(spec)
    return body


def cohort() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "Cohort",
        "metadata": {"name": "org"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                }
            ]
        },
    }


def resource_flavor(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "rf"}, "spec": dict(spec)}


def workload(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ns"},
        "spec": {
            "queueName": "lq",
            "podSets": [{"name": "main", "count": 3, "template": {"spec": {"containers": [{"name": "c"}]}}}],
        },
    }
    body["spec"].update(spec)
    return body


def run(body: dict[str, Any]) -> list[Finding]:
    """The create path up to CEL: defaulting, then (as the API server) CEL only on a valid schema."""
    defaulted = apply_schema_defaults(body, body["apiVersion"], body["kind"])
    assert validate_schema(defaulted, body["apiVersion"], body["kind"]) == []
    return validate_cel(defaulted, body["apiVersion"], body["kind"])


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, findings
    return findings[0]


# --------------------------------------------------------------------------------------------
# Kueue's rules (VAL ids of the design doc)
# --------------------------------------------------------------------------------------------


def test_valid_documents_have_no_cel_findings() -> None:
    assert run(cluster_queue()) == []
    assert run(workload()) == []
    assert run(resource_flavor(nodeLabels={"a": "b"}, topologyName="t")) == []


def test_cel_rule_vcq11_flavors_need_as_many_resources_as_covered() -> None:
    body = cluster_queue()
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"].pop()
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-CQ-11" and finding.severity is Severity.ERROR
    assert finding.path == ("spec", "resourceGroups", 0)
    assert finding.message == (
        'Invalid value: "object": flavors must have the same number of resources as the coveredResources'
    )


def test_cel_rule_is_evaluated_for_each_list_item_with_its_own_path() -> None:
    body = cluster_queue()
    good = copy.deepcopy(body["spec"]["resourceGroups"][0])
    bad = copy.deepcopy(good)
    bad["coveredResources"] = ["gpu"]
    bad["flavors"][0]["name"] = "other"
    body["spec"]["resourceGroups"] = [good, bad]
    assert only(run(body)).path == ("spec", "resourceGroups", 1)


def test_cel_rule_vco2_cohort_flavors_need_as_many_resources_as_covered() -> None:
    finding = only(run(cohort()))
    assert finding.rule_id == "CEL-VAL-CO-2" and finding.path == ("spec", "resourceGroups", 0)


def test_cel_rule_vcq12_borrowing_limit_needs_a_cohort() -> None:
    body = cluster_queue()
    del body["spec"]["cohortName"]
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-CQ-12" and finding.path == ("spec",)
    assert finding.message == 'Invalid value: "object": borrowingLimit must be nil when cohort is empty'


def test_cel_rule_vcq12_v1beta1_spells_the_cohort_field_cohort() -> None:
    body = cluster_queue()
    body["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    body["spec"]["cohort"] = body["spec"].pop("cohortName")
    assert run(body) == []
    del body["spec"]["cohort"]
    assert only(run(body)).rule_id == "CEL-VAL-CQ-12"


def test_cel_rule_vcq13_preference_needs_both_policies_try_next_flavor() -> None:
    preference = {"preference": "BorrowingOverPreemption"}
    finding = only(run(cluster_queue(flavorFungibility=dict(preference))))
    assert finding.rule_id == "CEL-VAL-CQ-13" and finding.path == ("spec", "flavorFungibility")
    both = {**preference, "whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}
    assert run(cluster_queue(flavorFungibility=both)) == []


def test_cel_rule_vcq15_reclaim_never_with_borrowing_policy() -> None:
    preemption = {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}
    finding = only(run(cluster_queue(preemption=preemption)))
    assert finding.rule_id == "CEL-VAL-CQ-15" and finding.path == ("spec", "preemption")
    assert (
        finding.message
        == 'Invalid value: "object": reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never'
    )


def test_defaulted_preemption_passes_vcq15() -> None:
    assert run(cluster_queue(preemption={})) == []


def test_cel_rule_vrf2_taint_effect_reports_on_the_list() -> None:
    body = resource_flavor(
        nodeTaints=[{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "Sometimes"}]
    )
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-RF-2" and finding.path == ("spec", "nodeTaints")
    assert finding.message == f'Invalid value: "array": {cel_module._TAINT_EFFECTS}'
    assert cel_module._TAINT_EFFECTS == (
        "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
    )


@pytest.mark.parametrize(
    ("toleration", "rule_id"),
    [
        ({"operator": "Equal", "value": "x"}, "CEL-VAL-RF-4"),
        ({"key": "k", "operator": "Exists", "tolerationSeconds": 5, "effect": "NoSchedule"}, "CEL-VAL-RF-5"),
        ({"key": "k", "operator": "Maybe"}, "CEL-VAL-RF-6"),
        ({"key": "k", "operator": "Exists", "value": "v"}, "CEL-VAL-RF-7"),
        ({"key": "k", "effect": "Sometimes"}, "CEL-VAL-RF-8"),
    ],
)
def test_cel_rules_vrf4_to_vrf8_tolerations(toleration: dict[str, Any], rule_id: str) -> None:
    finding = only(run(resource_flavor(tolerations=[toleration])))
    assert finding.rule_id == rule_id and finding.path == ("spec", "tolerations")


def test_cel_rule_vrf10_topology_needs_a_node_label() -> None:
    finding = only(run(resource_flavor(topologyName="default", nodeLabels={})))
    assert finding.rule_id == "CEL-VAL-RF-10" and finding.path == ("spec",)


def test_cel_evaluation_error_is_an_error_naming_the_rule_as_the_api_server_rejects_it() -> None:
    # nodeLabels absent: ``self.nodeLabels.size()`` is "no such key" (the API server rejects it).
    finding = only(run(resource_flavor(topologyName="default")))
    assert finding.rule_id == CEL_EVAL and finding.severity is Severity.ERROR
    assert finding.path == ("spec",)
    assert "no such key: nodeLabels" in finding.message
    assert "!has(self.topologyName) || self.nodeLabels.size() >= 1" in finding.message


def test_cel_rule_vwl3_min_count_above_count() -> None:
    body = workload()
    body["spec"]["podSets"][0]["minCount"] = 4
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-WL-3" and finding.path == ("spec", "podSets", 0)


def test_cel_rule_vwl3_uses_the_defaulted_count() -> None:
    body = workload()
    del body["spec"]["podSets"][0]["count"]
    body["spec"]["podSets"][0]["minCount"] = 2
    assert only(run(body)).rule_id == "CEL-VAL-WL-3"


@pytest.mark.parametrize(
    ("group", "kind", "bad"),
    [
        ("scheduling.k8s.io", "WorkloadPriorityClass", True),
        ("kueue.x-k8s.io", "PriorityClass", True),
        ("scheduling.k8s.io", "PriorityClass", False),
        ("kueue.x-k8s.io", "WorkloadPriorityClass", False),
    ],
)
def test_cel_rule_vwl9_priority_class_group_and_kind_pair_up(group: str, kind: str, bad: bool) -> None:
    body = workload(priority=1, priorityClassRef={"group": group, "kind": kind, "name": "high"})
    found = run(body)
    assert [(f.rule_id, f.path) for f in found] == (
        [("CEL-VAL-WL-9", ("spec", "priorityClassRef"))] if bad else []
    )


def test_cel_rule_vwl10_priority_needed_with_priority_class_ref() -> None:
    body = workload(
        priorityClassRef={"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "h"}
    )
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-WL-10" and finding.path == ("spec",)


def test_cel_rule_vwl11_pod_set_assignments_match_pod_sets() -> None:
    body = workload()
    body["status"] = {
        "conditions": [
            {
                "type": "QuotaReserved",
                "status": "True",
                "reason": "QuotaReserved",
                "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ],
        "admission": {"clusterQueue": "cq", "podSetAssignments": []},
    }
    finding = only(run(body))
    assert finding.rule_id == "CEL-VAL-WL-11" and finding.path == ()


def test_transition_rules_with_oldSelf_do_not_apply_on_create() -> None:
    local_queue = {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": "q"},
        "spec": {"clusterQueue": "a"},
    }
    assert run(local_queue) == []  # "field is immutable" is self == oldSelf
    assert cel_module._plan(KUEUE, "LocalQueue") is None
    plan = cel_module._plan(KUEUE, "ResourceFlavor")
    assert plan is not None
    rules = [r.text for r in plan.props["spec"].rules]
    assert rules == ["!has(self.topologyName) || self.nodeLabels.size() >= 1"]  # not the immutability rule


def test_missing_optional_fields_are_absent_for_has() -> None:
    # borrowWithinCohort absent: has() is false and the rule holds without evaluating the policy.
    body = cluster_queue(preemption={"reclaimWithinCohort": "Never"})
    body = apply_schema_defaults(body, KUEUE, "ClusterQueue")
    del body["spec"]["preemption"]["borrowWithinCohort"]
    assert validate_cel(body, KUEUE, "ClusterQueue") == []


def test_null_fields_are_absent_for_cel() -> None:
    body = apply_schema_defaults(cluster_queue(), KUEUE, "ClusterQueue")
    body["spec"]["flavorFungibility"]["preference"] = None
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = None
    del body["spec"]["cohortName"]
    assert validate_cel(body, KUEUE, "ClusterQueue") == []


def test_literal_floats_are_numbers_for_cel() -> None:
    body = workload()
    body["spec"]["podSets"][0]["count"] = LiteralFloat("3.0")
    body["spec"]["podSets"][0]["minCount"] = LiteralFloat("2.0")
    assert run(body) == []
    body["spec"]["podSets"][0]["minCount"] = LiteralFloat("4e0")
    assert only(run(body)).rule_id == "CEL-VAL-WL-3"


def test_kind_without_schema_or_rules_has_no_cel_findings() -> None:
    assert validate_cel({"spec": {}}, "apps/v1", "Deployment") == []
    assert validate_cel({"spec": {}}, "v1", "Pod") == []


def test_wrong_shapes_do_not_crash() -> None:
    # The caller skips CEL after a schema error, but CEL must survive being called anyway.
    shapes: list[dict[str, Any]] = [
        {"resourceGroups": "x"},
        {"resourceGroups": [1, None]},
        {"preemption": []},
    ]
    for spec in shapes:
        body = {"apiVersion": KUEUE, "kind": "ClusterQueue", "spec": spec}
        found = validate_cel(body, KUEUE, "ClusterQueue")
        assert all(f.rule_id in (CEL_EVAL, "CEL-VAL-CQ-12") for f in found)


def test_rule_ids_map_known_messages_and_default_to_cel_rule() -> None:
    assert rule_id_for("ResourceFlavor", cel_module._TAINT_EFFECTS, "nodeTaints") == "CEL-VAL-RF-2"
    assert rule_id_for("ResourceFlavor", cel_module._TAINT_EFFECTS, "tolerations") == "CEL-VAL-RF-8"
    assert rule_id_for("Workload", cel_module._TAINT_EFFECTS, "tolerations") == CEL_RULE
    assert rule_id_for("Topology", "must be unique", "levels") == CEL_RULE


def test_every_rule_is_compiled_once() -> None:
    validate_cel(cluster_queue(), KUEUE, "ClusterQueue")
    before = cel_module._plan.cache_info()
    validate_cel(cluster_queue(), KUEUE, "ClusterQueue")
    assert cel_module._plan.cache_info().misses == before.misses
    assert compile_fast("self.a == 1") is compile_fast("self.a == 1")


def test_field_path_of_a_rule_is_parsed() -> None:
    assert parse_field_path(".spec.foo['a.b'].bar") == ("spec", "foo", "a.b", "bar")
    assert parse_field_path("") == ()


def test_message_expression_and_reason_shape_the_message() -> None:
    rule = cel_module.Rule(
        text="self.x > 1",
        rule_id=CEL_RULE,
        message="static",
        reason="FieldValueForbidden",
        field_path=("x",),
        evaluate=compile_rule("self.x > 1"),
        message_evaluate=compile_rule("'x is ' + string(self.x)"),
    )
    plan = cel_module._Plan(node_type="object", rules=[rule])
    out: list[Finding] = []
    cel_module._walk({"x": 1}, plan, ("spec",), out)
    assert [(f.path, f.message) for f in out] == [(("spec", "x"), "Forbidden: x is 1")]


# --------------------------------------------------------------------------------------------
# The evaluators
# --------------------------------------------------------------------------------------------


def test_rule_outside_the_fast_subset_uses_the_cel_library() -> None:
    with pytest.raises(CelUnsupported):
        compile_fast("self.name.matches('^a')")
    evaluate = compile_rule("self.name.matches('^a')")
    assert evaluate({"self": {"name": "abc"}}) is True
    assert evaluate({"self": {"name": "xyz"}}) is False


def test_the_cel_library_is_not_imported_for_kueue_rules() -> None:
    # ``import cel`` costs ~0.3 s of start-up; every Kueue rule runs on the fast path.
    code = (
        "import sys; from kqctl.validate.cel import validate_cel; "
        "validate_cel({'spec': {'preemption': {}}}, 'kueue.x-k8s.io/v1beta2', 'ClusterQueue'); "
        "validate_cel({'spec': {'podSets': [{'count': 1}]}}, 'kueue.x-k8s.io/v1beta2', 'Workload'); "
        "print('cel' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_uncompilable_rule_becomes_an_evaluation_error() -> None:
    evaluate = compile_rule("self.x ==")
    with pytest.raises(CelEvalError, match="cannot compile"):
        evaluate({"self": {}})


def test_optional_old_self_rule_runs_on_create_with_no_old_object() -> None:
    evaluate = compile_rule("!oldSelf.hasValue() || self.x == oldSelf.value().x", optional_old_self=True)
    assert evaluate({"self": {"x": 1}}) is True


def test_to_cel_value_drops_nulls_and_makes_integral_numbers_ints() -> None:
    value = to_cel_value({"a": None, "b": [LiteralFloat("2.0"), LiteralFloat("0.5"), 3], "c": {"d": True}})
    assert value == {"b": [2, 0.5, 3], "c": {"d": True}}
    assert type(value["b"][0]) is int


# (expression, self, value by the CEL spec, whether the cel library deviates from the spec)
EDGE_CASES: list[tuple[str, Any, Any, bool]] = [
    ("self.missing == 1 || true", {}, True, False),
    ("true || self.missing == 1", {}, True, False),
    ("self.missing == 1 && false", {}, False, False),
    ("self.missing == 1 || false", {}, "error", False),
    ("self.a == 1.0", {"a": 1}, True, False),
    ("self.a == 'x'", {"a": 1}, False, False),
    ("self.a + 1.0", {"a": 1}, "error", False),
    ("self.a + 1 > 2", {"a": 2}, True, False),
    ("self.a * 2 == 9223372036854775807", {"a": 4611686018427387904}, "error", False),
    ("self.a / 0 == 1", {"a": 1}, "error", False),
    ("-7 / 2 == -3 && -7 % 2 == -1", {}, True, False),
    ("self.l.all(x, x.k == 1)", {"l": [{"k": 2}, {}]}, False, False),
    ("self.l.all(x, x.k == 1)", {"l": [{}, {"k": 2}]}, False, True),
    ("self.l.all(x, x.k == 1)", {"l": [{"k": 1}, {}]}, "error", False),
    ("self.l.exists(x, x.k == 1)", {"l": [{}, {"k": 1}]}, True, True),
    ("self.l.exists(x, x.k == 1)", {"l": [{}, {"k": 2}]}, "error", False),
    ("self.l.exists_one(x, x > 1)", {"l": [1, 2, 3]}, False, False),
    ("self.l.filter(x, x > 1).size() == 2", {"l": [1, 2, 3]}, True, False),
    ("self.l.map(x, x * 2) == [2, 4]", {"l": [1, 2]}, True, False),
    ("self.l.map(x, x > 1, x * 2) == [4]", {"l": [1, 2]}, True, False),
    ("size(self.m) == 2 && self.m.all(k, k.startsWith('a'))", {"m": {"ab": 1, "ac": 2}}, True, False),
    ("'ab' in self.m && !('zz' in self.m)", {"m": {"ab": 1}}, True, False),
    ("self.l[1] == 2", {"l": [1, 2]}, True, False),
    ("self.l[2] == 2", {"l": [1, 2]}, "error", False),
    ("self.l[size(self.l) - 1].n == 'h'", {"l": [{"n": "a"}, {"n": "h"}]}, True, False),
    ("self.a ? 1 : 2", {"a": "x"}, "error", False),
    ("self.a < 'b'", {"a": "a"}, True, False),
    ("self.a < 1", {"a": "a"}, "error", False),
    ("self.s.size() == 3 && self.s.endsWith('c') && self.s.contains('b')", {"s": "abc"}, True, False),
    ("[has(self.a), has(self.b)].filter(x, x == true).size() == 1", {"a": 1}, True, False),
    ("self.l == [1, 2]", {"l": [1, 2]}, True, False),
    ("self.l in [[1], [1, 2]]", {"l": [1, 2]}, True, False),
    ("has(self.a.b)", {"a": "str"}, "error", False),
    ("!self.a", {"a": 1}, "error", False),
    ("self.a == null", {"a": 1}, False, False),
    ("0x10 == 16 && 1e3 == 1000.0 && 2.5 > 2", {}, True, False),
]
EDGE_IDS = [f"{i}:{case[0]}" for i, case in enumerate(EDGE_CASES)]


def _library_outcome(text: str, variables: dict[str, Any]) -> Any:
    try:
        return cel.evaluate(text, {k: to_cel_value(v) for k, v in variables.items()})
    except Exception:
        return "error"


def _fast_outcome(text: str, variables: dict[str, Any]) -> Any:
    try:
        return compile_fast(text)(variables)
    except CelEvalError:
        return "error"


@pytest.mark.parametrize(("text", "self_value", "expected", "deviates"), EDGE_CASES, ids=EDGE_IDS)
def test_fast_path_follows_cel_semantics_on_edge_cases(
    text: str, self_value: Any, expected: Any, deviates: bool
) -> None:
    assert _fast_outcome(text, {"self": self_value}) == expected


@pytest.mark.parametrize(("text", "self_value", "expected", "deviates"), EDGE_CASES, ids=EDGE_IDS)
def test_cel_library_agrees_on_edge_cases_except_error_absorbing_macros(
    text: str, self_value: Any, expected: Any, deviates: bool
) -> None:
    # The cel library stops at the first error inside all()/exists(); the CEL spec (and cel-go, which
    # the API server runs) lets a false element of all() and a true element of exists() win.
    library = _library_outcome(text, {"self": self_value})
    assert (library == expected) != deviates
    if deviates:
        assert library == "error"


# Differential test: every rule of every generated CRD schema, on random documents of its schema.
_WORDS = [
    "",
    "a",
    "x",
    "Exists",
    "Equal",
    "NoSchedule",
    "PreferNoSchedule",
    "NoExecute",
    "TryNextFlavor",
    "MayStopSearch",
    "Never",
    "LowerPriority",
    "Any",
    "kueue.x-k8s.io",
    "scheduling.k8s.io",
    "PriorityClass",
    "WorkloadPriorityClass",
    "QuotaReserved",
    "Admitted",
    "True",
    "False",
    "kubernetes.io/hostname",
]


def _random_instance(node: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    if "anyOf" in node:
        return _random_instance(rng.choice(node["anyOf"]), rng, depth)
    if "enum" in node and rng.random() < 0.8:
        return rng.choice(node["enum"])
    kind = node.get("type")
    if kind == "object":
        if depth > 5:
            return {}
        properties = node.get("properties", {})
        result = {
            name: (None if rng.random() < 0.05 else _random_instance(sub, rng, depth + 1))
            for name, sub in properties.items()
            if rng.random() < (0.85 if name in node.get("required", ()) else 0.5)
        }
        if isinstance(node.get("additionalProperties"), dict):
            for _ in range(rng.randint(0, 2)):
                result[rng.choice(_WORDS)] = _random_instance(node["additionalProperties"], rng, depth + 1)
        return result
    if kind == "array":
        if depth > 5:
            return []
        return [_random_instance(node.get("items", {}), rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == "integer":
        number = rng.choice([0, 1, 2, 3, -1])
        return LiteralFloat(f"{number}.0") if rng.random() < 0.1 else number
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        return rng.choice(_WORDS)
    return rng.choice([1, "a", None])


def _rules_with_schemas() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    def walk(name: str, node: Any) -> None:
        if isinstance(node, dict):
            for rule in node.get("x-kubernetes-validations", ()):
                found.append((name, rule, node))
            for value in node.values():
                walk(name, value)
        elif isinstance(node, list):
            for value in node:
                walk(name, value)

    for path in sorted(Path(SCHEMA_DIR).glob("*-kueue.x-k8s.io-*.json")):
        walk(path.name, json.loads(path.read_text(encoding="utf-8")))
    return found


RULES = _rules_with_schemas()


@pytest.mark.parametrize(
    ("file", "rule", "node"), RULES, ids=[f"{f}:{r['message'][:40]}" for f, r, _ in RULES]
)
def test_fast_path_agrees_with_the_cel_library_on_every_crd_rule(
    file: str, rule: dict[str, Any], node: dict[str, Any]
) -> None:
    rng = random.Random(f"{file}:{rule['rule']}")
    text = rule["rule"]
    compile_fast(text)  # every rule of the Kueue CRDs is in the fast subset
    outcomes: set[Any] = set()
    for _ in range(150):
        variables = {"self": _random_instance(node, rng), "oldSelf": _random_instance(node, rng)}
        fast = _fast_outcome(text, variables)
        library = _library_outcome(text, variables)
        assert fast == library or _absorbed_error(text, variables, fast, library), variables
        outcomes.add(fast)
    assert outcomes  # at least one evaluation happened


_MACRO_RULE = re.compile(r"^self(?:\.(\w+))?\.(all|exists)\(")


def _absorbed_error(text: str, variables: dict[str, Any], fast: Any, library: Any) -> bool:
    """The library's known deviation: an error inside all()/exists() that CEL absorbs.

    Confirmed element by element: all() is false (exists() true) when the library says so for one
    element on its own.
    """
    match = _MACRO_RULE.match(text)
    if library != "error" or match is None:
        return False
    field, macro = match.groups()
    deciding = macro == "exists"  # the predicate value that wins over errors
    self_value = variables["self"]
    collection = self_value if field is None else self_value.get(field)
    if fast is not deciding or not isinstance(collection, list):
        return False
    for element in collection:
        alone = [element] if field is None else {**self_value, field: [element]}
        if _library_outcome(text, {**variables, "self": alone}) is deciding:
            return True
    return False


# --------------------------------------------------------------------------------------------
# Performance
# --------------------------------------------------------------------------------------------


def test_cel_rules_are_compiled_once_per_kind() -> None:
    """What kept validate fast (per-document CEL ~5 µs, benchmarks/bench_steps.py): the rules of a kind are
    compiled once and reused, never per call. Timing belongs to the benchmark, not to a test."""
    body = apply_schema_defaults(cluster_queue(), KUEUE, "ClusterQueue")
    validate_cel(body, KUEUE, "ClusterQueue")
    plan = cel_module._plan(KUEUE, "ClusterQueue")
    validate_cel(body, KUEUE, "ClusterQueue")
    assert plan is not None and cel_module._plan(KUEUE, "ClusterQueue") is plan
