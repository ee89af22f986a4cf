"""Where Volcano puts a task beyond resources: the predicates plugin's NodeAffinity filter (AFF-1) and nodeorder's
scores normalised over the candidate nodes (VC-SCORE-6 TaintToleration on PreferNoSchedule taints, VC-SCORE-7
preferred node affinity), through the engine and through the real ``kqctl simulate``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kqctl.k8s.affinity import NodePlacement, Requirement, Term, normalized_weight
from kqctl.k8s.taints import normalized_score
from tests.support import Run
from tests.volcano.builders import binds, conf, group, node, pod, queue, run

SCORED = conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", "nodeorder"])
PREFER = {"key": "spot", "effect": "PreferNoSchedule"}


def labelled(name: str, labels: dict[str, str] | None = None, taints: list[dict[str, str]] | None = None,
             **extra: Any) -> dict[str, Any]:
    body = node(name, **extra)
    if labels:
        body["metadata"]["labels"] = labels
    if taints:
        body.setdefault("spec", {})["taints"] = taints
    return body


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": term} for term in terms]}}}


def preferred(*weighted: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": weight, "preference": {"matchExpressions": term}} for weight, term in weighted]}}


# --- AFF-1: the NodeAffinity filter ---------------------------------------------------------------------------


def test_aff_1_node_selector_sends_the_pod_to_the_labelled_node() -> None:
    result = run(SCORED, labelled("a"), labelled("b", {"zone": "east"}), queue("q"), group("g", "q"),
                 pod("p", "g", nodeSelector={"zone": "east"}))
    assert binds(result) == {"ns/p": "b"}


def test_aff_1_no_node_matching_the_required_affinity_leaves_the_pod_pending_with_kube_schedulers_reason() -> None:
    affinity = required([{"key": "gpu", "operator": "In", "values": ["a100"]}])
    result = run(SCORED, labelled("a", {"gpu": "t4"}), labelled("b"), queue("q"), group("g", "q"),
                 pod("p", "g", affinity=affinity))
    assert binds(result) == {}
    assert "2 node(s) didn't match Pod's node affinity/selector" in result.groups["ns/g"].reason[1]


def test_aff_1_required_terms_are_ored_and_their_requirements_anded() -> None:
    affinity = required([{"key": "gpu", "operator": "In", "values": ["a100"]},
                         {"key": "zone", "operator": "NotIn", "values": ["west"]}],
                        [{"key": "pool", "operator": "Exists"}])
    result = run(SCORED, labelled("a", {"gpu": "a100", "zone": "west"}), labelled("b", {"gpu": "t4"}),
                 labelled("c", {"pool": "x"}), queue("q"), group("g", "q"), pod("p", "g", affinity=affinity))
    assert binds(result) == {"ns/p": "c"}


def test_aff_1_node_affinity_enable_false_turns_the_filter_off() -> None:
    predicates = {"name": "predicates", "arguments": {"predicate.NodeAffinityEnable": False}}
    result = run(conf("enqueue, allocate", ["gang"], [predicates, "proportion"]), labelled("a"), queue("q"),
                 group("g", "q"), pod("p", "g", nodeSelector={"zone": "east"}))
    assert binds(result) == {"ns/p": "a"}


@pytest.mark.parametrize(("requirement", "labels", "matches"), [
    (Requirement("n", "Gt", ("5",)), {"n": "7"}, True),
    (Requirement("n", "Lt", ("5",)), {"n": "7"}, False),
    (Requirement("n", "Gt", ("5",)), {"n": "1_0"}, False),  # strconv.ParseInt takes no underscores
    (Requirement("n", "In", ()), {"n": "x"}, False),  # a requirement Kubernetes refuses matches nothing
    (Requirement("n", "Exists", ("x",)), {"n": "x"}, False),
    (Requirement("n", "DoesNotExist", ()), {}, True),
])
def test_aff_1_requirements(requirement: Requirement, labels: dict[str, str], matches: bool) -> None:
    assert requirement.matches_label(labels) is matches


def test_aff_3_match_fields_select_by_node_name_and_an_empty_term_selects_nothing() -> None:
    by_name = Term(fields=(Requirement("metadata.name", "In", ("b",)),))
    assert NodePlacement(required=(by_name,)).admits({}, "b")
    assert not NodePlacement(required=(by_name,)).admits({}, "a")
    assert not NodePlacement(required=(Term(),)).admits({}, "a")


# --- VC-SCORE-6/7: normalised scores --------------------------------------------------------------------------


def test_vc_score_6_an_untolerated_prefer_no_schedule_taint_sends_the_pod_elsewhere() -> None:
    result = run(SCORED, labelled("a", taints=[PREFER]), labelled("b"), queue("q"), group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "b"}


def test_vc_score_6_a_tolerating_pod_does_not_mind_the_taint() -> None:
    tolerations = [{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}]
    result = run(SCORED, labelled("a", taints=[PREFER]), labelled("b"), queue("q"), group("g", "q"),
                 pod("p", "g", tolerations=tolerations))
    assert binds(result) == {"ns/p": "a"}  # equal scores: the first node by name


def test_vc_score_6_weight_zero_turns_the_taint_score_off() -> None:
    nodeorder = {"name": "nodeorder", "arguments": {"tainttoleration.weight": 0}}
    result = run(conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", nodeorder]),
                 labelled("a", taints=[PREFER]), labelled("b"), queue("q"), group("g", "q"), pod("p", "g"))
    assert binds(result) == {"ns/p": "a"}


def test_vc_score_6_outweighs_a_better_resource_score_only_by_its_weight() -> None:
    # b is busier (a running 4-cpu pod): leastrequested and balanced prefer a, but 3 x 100 for the taint wins
    busy = [labelled("a", taints=[PREFER]), labelled("b"), queue("q"), group("run", "q", phase="Running"),
            pod("r", "run", cpu="4", node_name="b"), group("g", "q"), pod("p", "g")]
    assert binds(run(SCORED, *busy))["ns/p"] == "b"
    light = {"name": "nodeorder", "arguments": {"tainttoleration.weight": 1, "leastrequested.weight": 5}}
    weighted = run(conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", light]), *busy)
    assert binds(weighted)["ns/p"] == "a"  # 1 x 100 no longer covers 5 x a's lead of 26 in leastrequested


def test_vc_score_7_preferred_node_affinity_picks_the_heavier_term() -> None:
    affinity = preferred((10, [{"key": "zone", "operator": "In", "values": ["east"]}]),
                         (50, [{"key": "disk", "operator": "In", "values": ["ssd"]}]))
    result = run(SCORED, labelled("a", {"zone": "east"}), labelled("b", {"disk": "ssd"}), labelled("c"),
                 queue("q"), group("g", "q"), pod("p", "g", affinity=affinity))
    assert binds(result) == {"ns/p": "b"}


@pytest.mark.parametrize(("count", "highest", "score"), [(0, 0, 100), (0, 2, 100), (1, 2, 50), (2, 2, 0),
                                                         (1, 3, 67)])
def test_vc_score_6_reverse_normalisation(count: int, highest: int, score: int) -> None:
    assert normalized_score(count, highest) == score


@pytest.mark.parametrize(("value", "highest", "score"), [(0, 0, 0), (10, 60, 16), (60, 60, 100)])
def test_vc_score_7_normalisation(value: int, highest: int, score: int) -> None:
    assert normalized_weight(value, highest) == score


def test_vc_score_6_normalisation_is_over_the_nodes_that_fit() -> None:
    # c carries two PreferNoSchedule taints but is full: among a (one taint) and b (none) the maximum is 1, so a
    # scores 0 for taints, not 50; b (busier) wins.
    two = [PREFER, {"key": "old", "effect": "PreferNoSchedule"}]
    result = run(SCORED, labelled("a", taints=[PREFER]), labelled("b"), labelled("c", cpu="1", taints=two),
                 queue("q"), group("run", "q", phase="Running"), pod("r", "run", cpu="6", node_name="b"),
                 group("g", "q"), pod("p", "g", cpu="2"))
    assert binds(result)["ns/p"] == "b"


# --- through the real command ---------------------------------------------------------------------------------


def test_simulate_places_by_selector_and_taint_and_says_nothing_is_left_unscored(
        kqctl: Callable[..., Run], write: Callable[[str, str], str], tmp_path: Path) -> None:
    objects = [SCORED, labelled("a", {"zone": "east"}, taints=[PREFER]), labelled("b", {"zone": "east"}),
               labelled("c"), queue("q"), group("g", "q"), pod("p", "g", nodeSelector={"zone": "east"}),
               group("h", "q"), pod("s", "h", nodeSelector={"zone": "mars"})]
    path = write("input.yaml", yaml.safe_dump_all(objects))
    result = kqctl("simulate", path, "-o", "json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["binds"] == {"ns/p": "b"}
    assert not any("PreferNoSchedule" in line or "nodeSelector" in line for line in document["limitations"])
    table = kqctl("simulate", path)
    assert "didn't match Pod's node affinity/selector" in table.out
