"""--set and --override as a load-layer function: objects in, edited objects out."""

from __future__ import annotations

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.errors import UsageError
from kqctl.load.objects import load_text
from kqctl.load.overrides import apply_overrides, keep_last_definitions, parse_override
from kqctl.validate.schema import unknown_field

CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team.a}
spec:
  cohortName: research
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 10}
      - {name: memory, nominalQuota: 40Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  priority: 1
  podSets: []
"""


def _apply(*texts: str) -> list[dict]:  # type: ignore[type-arg]
    objects = load_text(ALL_KINDS, CQ, "cq.yaml").objects
    return [o.body for o in apply_overrides(objects, [parse_override(t) for t in texts], unknown_field)]


@pytest.mark.parametrize("text,path,expected", [
    ("clusterqueue/team.a.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota=40",
     (0, "spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota"), 40),
    ("cq/team.a.flavor.default.memory.nominalQuota=80Gi",
     (0, "spec", "resourceGroups", 0, "flavors", 0, "resources", 1, "nominalQuota"), "80Gi"),
    ("cq/team.a.flavor.default.cpu.borrowingLimit=5",
     (0, "spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "borrowingLimit"), 5),
    ("workload/ns/w.spec.priority=1000", (1, "spec", "priority"), 1000),
    ("cq/team.a.spec.stopPolicy=Hold", (0, "spec", "stopPolicy"), "Hold"),
])
def test_set_changes_one_field_of_the_named_object(text: str, path: tuple, expected: object) -> None:  # type: ignore[type-arg]
    bodies = _apply(text)
    node: object = bodies[path[0]]
    for part in path[1:]:
        node = node[part]  # type: ignore[index]
    assert node == expected


def test_set_leaves_the_loaded_objects_untouched() -> None:
    objects = load_text(ALL_KINDS, CQ, "cq.yaml").objects
    apply_overrides(objects, [parse_override("workload/ns/w.spec.priority=7")])
    assert objects[1].body["spec"]["priority"] == 1


@pytest.mark.parametrize("text,message", [
    ("cq/team-x.spec.stopPolicy=Hold", "no ClusterQueue 'team-x' in the inputs; did you mean team.a?"),
    ("cq/team.a.spec.stopPolicyy=Hold", "has no field spec.stopPolicyy; did you mean stopPolicy?"),
    ("cq/team.a.spec.resourceGroups[2].coveredResources=x", "no such item (the list has 1)"),
    ("cq/team.a.flavor.spot.cpu.nominalQuota=1", "has no flavor 'spot'"),
    ("cq/team.a.flavor.default.gpu.nominalQuota=1", "has no resource 'gpu'"),
    ("cq/team.a.flavor.default.cpu.quota=1", "the short form is flavor.FLAVOR.RESOURCE.FIELD"),
    ("cq/team.a.spec.x", "expected KIND/NAME.PATH=VALUE"),
    ("cqq/team.a.spec.stopPolicy=Hold", "unknown kind 'cqq'; did you mean cq?"),
    ("cq/team.a.spec.stopPolicy=[a]", "must be a single scalar"),
    ("cq/team.a=1", "no field path after the object name"),
])
def test_set_mistakes_are_usage_errors_naming_the_override(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=None) as raised:
        _apply(text)
    assert message in str(raised.value) and text in str(raised.value)


def test_override_keeps_the_definition_read_last() -> None:
    text = CQ + "---\n" + CQ.split("---\n")[1].replace("priority: 1", "priority: 2")
    objects = load_text(ALL_KINDS, text, "x.yaml").objects
    assert any(f.rule_id == "LOAD-DUPLICATE" for o in objects for f in o.findings)
    kept = keep_last_definitions(objects)
    workloads = [o for o in kept if o.kind == "Workload"]
    assert len(workloads) == 1 and workloads[0].body["spec"]["priority"] == 2
    assert not any(f.rule_id == "LOAD-DUPLICATE" for o in kept for f in o.findings)


PODGROUPS = "".join(f"""---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {{name: {name}, namespace: {namespace}}}
spec: {{minMember: 1, queue: q}}
""" for namespace, name in (("team-a", "train"), ("team-b", "train"), ("team-b", "infer.v2")))


def _podgroups(*texts: str) -> dict[str, int]:
    objects = load_text(ALL_KINDS, PODGROUPS, "pg.yaml").objects
    edited = apply_overrides(objects, [parse_override(t) for t in texts], unknown_field)
    return {f"{o.namespace}/{o.name}": o.body["spec"]["minMember"] for o in edited}


@pytest.mark.parametrize("text,changed", [
    ("podgroup/infer.v2.spec.minMember=3", "team-b/infer.v2"),  # a unique bare name, dots in it
    ("pg/team-a/train.spec.minMember=3", "team-a/train"),
])
def test_set_takes_a_unique_bare_name_of_a_namespaced_object(text: str, changed: str) -> None:
    assert {key: value for key, value in _podgroups(text).items() if value == 3} == {changed: 3}


@pytest.mark.parametrize("text,message", [
    ("pg/train.spec.minMember=3", "PodGroup 'train' is in several namespaces; did you mean team-a/train or "
                                  "team-b/train? (name it as NAMESPACE/NAME)"),
    ("pg/infer-v2.spec.minMember=3", "no PodGroup 'infer-v2' in the inputs; did you mean team-b/infer.v2"),
])
def test_set_of_an_ambiguous_or_unknown_bare_name_offers_namespaced_names_best_first(text: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        _podgroups(text)
    assert message in str(raised.value), str(raised.value)
