"""Volcano's validation rules one by one: the Queue webhook (VC-Q*, VC-H*, VC-D*, VC-ROOT), the chart's policy
(VC-VAP-*), the workloads' queues (VC-JOB-*, VC-PG-*), the configuration (VC-CONF-*) and the lints (VC-LINT-*)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kqctl.volcano.validate import admission_policy
from kqctl.volcano.validate.queue_webhook import CREATE, DELETE, UPDATE, Lister, QueueView, WebhookFlags, admit
from tests.support import run_kqctl
from tests.volcano.builders import conf, group, node, queue


def q(name: str, **spec: Any) -> QueueView:
    status = spec.pop("status", {})
    return QueueView.of({"metadata": {"name": name, "annotations": spec.pop("annotations", {})}, "spec": spec,
                         "status": status})


def verdict(new: QueueView, *existing: QueueView, operation: str = CREATE, old: QueueView | None = None,
            flags: WebhookFlags | None = None) -> tuple[str, str] | None:
    denial = admit(operation, new, old, Lister(existing), flags or WebhookFlags())
    return None if denial is None else (denial.rule_id, denial.message)


@pytest.mark.parametrize("spec,expected", [
    ({"capability": {"cpu": "-1"}}, 'requestBody.spec.capability.cpu: Invalid value: "-1": must be greater than or '
                                    "equal to 0"),
    ({"capability": {"nvidia.com/gpu": "500m"}}, 'requestBody.spec.capability.nvidia.com/gpu: Invalid value: "500m": '
                                                 "must be an integer"),
])
def test_q2_quantities_are_not_negative_and_integer_resources_whole(spec: dict[str, Any], expected: str) -> None:
    assert verdict(q("a", **spec)) == ("VC-Q2", expected)


def test_q3_guarantee_needs_deserved() -> None:
    assert verdict(q("a", guarantee={"resource": {"memory": "2Gi"}}, deserved={"memory": "1Gi"})) == (
        "VC-Q3", 'requestBody.spec.deserved.memory: Invalid value: "1Gi": deserved[memory]=1Gi must be >= '
                 "guarantee[memory]=2Gi")


def test_q4_deserved_within_capability() -> None:
    assert verdict(q("a", deserved={"cpu": "3"}, capability={"cpu": "2"}))[0] == "VC-Q4"  # type: ignore[index]
    assert verdict(q("a", deserved={"cpu": "3"}, capability={"memory": "2Gi"})) is None  # cpu unlimited


def test_q5_state_the_webhook_sees_must_be_open_or_closed() -> None:
    assert verdict(q("a", status={"state": "Closing"})) == (
        "VC-Q5", 'requestBody.spec.state: Invalid value: "Closing": queue state must be in [Open Closed]')


@pytest.mark.parametrize("annotations,fragment", [
    ({"volcano.sh/hierarchy": "root/a", "volcano.sh/hierarchy-weights": "1"}, "must have the same length"),
    ({"volcano.sh/hierarchy": "root/a", "volcano.sh/hierarchy-weights": "1/x"}, "is invalid number"),
    ({"volcano.sh/hierarchy": "root/a", "volcano.sh/hierarchy-weights": "1/0"}, "must be larger than 0"),
])
def test_q6_hierarchy_annotations(annotations: dict[str, str], fragment: str) -> None:
    found = verdict(q("a", annotations=annotations))
    assert found is not None and found[0] == "VC-Q6" and fragment in found[1]


def test_q6_no_path_inside_another_queues_path() -> None:
    other = q("b", annotations={"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/1/1"})
    found = verdict(q("a", annotations={"volcano.sh/hierarchy": "root/a", "volcano.sh/hierarchy-weights": "1/1"}),
                    other)
    assert found is not None and "is not allowed to be in the sub path of root/a/b of queue b" in found[1]


def test_h1_not_its_own_parent() -> None:
    assert verdict(q("a", parent="a")) == ("VC-H1", "queue a cannot use itself as parent")


def test_h2_depth_limit_and_missing_ancestor() -> None:
    chain = [q("l1"), q("l2", parent="l1"), q("l3", parent="l2")]
    assert verdict(q("l4", parent="l3"), *chain, flags=WebhookFlags(max_queue_depth=3)) == (
        "VC-H2", "queue l4 exceeds the maximum allowed depth of 3")
    assert verdict(q("c", parent="gone")) == (
        "VC-H2", 'failed to get parent queue gone of queue c: queue.scheduling.volcano.sh "gone" not found')


def test_h3_a_parent_running_pods_cannot_get_its_first_child() -> None:
    busy = q("busy", status={"allocated": {"pods": "2"}})
    assert verdict(q("c", parent="busy"), busy) == (
        "VC-H3", "queue busy cannot be the parent queue of queue c because it has allocated Pods: 2")
    assert verdict(q("c", parent="busy"), busy, q("first", parent="busy")) is None


def test_h4_capability_within_the_nearest_ancestor_setting_it() -> None:
    tree = [q("top", capability={"cpu": "4", "memory": "8Gi"}), q("mid", parent="top", capability={"cpu": "2"})]
    assert verdict(q("leaf", parent="mid", capability={"memory": "16Gi"}), *tree) == (
        "VC-H4", "queue leaf capability[memory]=16Gi exceeds its ancestor's capability=8Gi")


def test_h5_children_may_only_guarantee_what_the_parent_guarantees() -> None:
    parent = q("p", guarantee={"resource": {"cpu": "2"}}, deserved={"cpu": "2"})
    found = verdict(q("c", parent="p", guarantee={"resource": {"memory": "1Gi"}}, deserved={"memory": "1Gi"}), parent)
    assert found == ("VC-H5", "parent queue p validation failed: sum of children's guarantee (cpu 0.00, memory "
                              "1073741824.00) exceeds parent's guarantee limit (cpu 2000.00, memory 0.00)")


def test_h6_and_h7_on_an_update_of_a_parent() -> None:
    old = q("p", capability={"cpu": "8"}, deserved={"cpu": "4"})
    child = q("c", parent="p", capability={"cpu": "6"}, deserved={"cpu": "3"})
    smaller = q("p", capability={"cpu": "5"}, deserved={"cpu": "4"})
    assert verdict(smaller, old, child, operation=UPDATE, old=old) == (
        "VC-H6", "queue p capability[cpu]=5 is smaller than its descendants' max capability=6")
    less_deserved = q("p", capability={"cpu": "8"}, deserved={"cpu": "2"})
    found = verdict(less_deserved, old, child, operation=UPDATE, old=old)
    assert found is not None and found[0] == "VC-H7" and "sum of children's deserved" in found[1]


def test_root_protection_on_updates_of_root() -> None:
    root = q("root")
    assert verdict(q("root", capability={"cpu": "1"}), root, operation=UPDATE, old=root) == (
        "VC-ROOT", "root queue's resource attributes (capability, deserved, guarantee) cannot be modified")
    assert verdict(q("root", capability={"cpu": "1"}), root, operation=UPDATE, old=root,
                   flags=WebhookFlags(root_protection=False)) is None


@pytest.mark.parametrize("name,existing,flags,expected", [
    ("root", [], WebhookFlags(), ("VC-D1", "`root` queue can not be deleted")),
    ("busy", [q("busy", status={"allocated": {"pods": "1"}})], WebhookFlags(allocated_pods_check=True),
     ("VC-D2", "queue busy cannot be deleted because it has allocated Pods: 1")),
    ("busy", [q("busy", status={"allocated": {"pods": "1"}})], WebhookFlags(), None),
    ("p", [q("p"), q("b", parent="p"), q("a", parent="p")], WebhookFlags(),
     ("VC-D3", "queue p can not be deleted because it has 2 child queues: b, a")),
])
def test_d_rules_on_deletion(name: str, existing: list[QueueView], flags: WebhookFlags,
                             expected: tuple[str, str] | None) -> None:
    denial = admit(DELETE, None, None, Lister(existing), flags, name)
    assert (None if denial is None else (denial.rule_id, denial.message)) == expected


@pytest.mark.parametrize("body,rule", [
    ({"spec": {"capability": {"cpu": ""}}}, "VC-VAP-EMPTY"),
    ({"spec": {"capability": {"cpu": "1"}, "deserved": {"cpu": "2"}}}, "VC-VAP-CAPABILITY"),
    ({"spec": {"guarantee": {"resource": {"cpu": "1"}}}}, "VC-VAP-GUARANTEE"),
    ({"metadata": {"annotations": {"volcano.sh/hierarchy": "root/a"}}}, "VC-VAP-HIERARCHY"),
    ({"status": {"state": "Closing"}}, "VC-VAP-STATE"),
])
def test_vap_rules(body: dict[str, Any], rule: str) -> None:
    found = admission_policy.evaluate(UPDATE, body, body)
    assert found is not None and found.rule_id == rule
    assert found.message.startswith("ValidatingAdmissionPolicy 'queue-validation-policy' with binding "
                                    "'queue-validation-policy-binding' denied request: ")


def test_vap_messages_are_the_charts() -> None:
    from tests.support import REPO

    text = (REPO / "upstream" / "volcano-crds" / "queues-validating.yaml").read_text(encoding="utf-8")
    policy = next(d for d in yaml.safe_load_all(text) if d["kind"] == "ValidatingAdmissionPolicy")
    assert sorted(v["message"] for v in policy["spec"]["validations"]) == sorted(admission_policy.MESSAGES)


# --- through kqctl validate ---------------------------------------------------------------------------------------


def _validate(tmp_path: Path, *objects: dict[str, Any], args: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(list(objects)), encoding="utf-8")
    run = run_kqctl("validate", str(path), "-o", "json", *args)
    assert run.code in (0, 1), run.err
    return [(d["name"], f["ruleId"], f["message"]) for d in json.loads(run.out)["documents"] for f in d["findings"]]


def test_queues_are_created_parents_first_whatever_the_file_order(tmp_path: Path) -> None:
    found = _validate(tmp_path, queue("child", parent="parent"), queue("parent"))
    assert [f for f in found if f[1].startswith("VC-")] == []


def test_a_refused_parent_makes_its_children_fail_with_a_hint(tmp_path: Path) -> None:
    found = _validate(tmp_path, queue("parent", guarantee={"resource": {"cpu": "1"}}), queue("child", parent="parent"))
    assert [f[:2] for f in found] == [("parent", "VC-Q3"), ("child", "VC-H2")]


def test_siblings_are_summed_in_the_apply_order(tmp_path: Path) -> None:
    parent = queue("p", guarantee={"resource": {"cpu": "4"}}, deserved={"cpu": "4"})
    kids = [queue(f"k{i}", parent="p", guarantee={"resource": {"cpu": "2"}}, deserved={"cpu": "2"}) for i in range(3)]
    found = _validate(tmp_path, parent, *kids)
    assert [f[:2] for f in found] == [("k2", "VC-H5")]


def test_job_and_podgroup_queue_rules(tmp_path: Path) -> None:
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j", "namespace": "ns"},
           "spec": {"queue": "parent", "minAvailable": 5,
                    "tasks": [{"name": "t", "replicas": 2, "minAvailable": 3,
                               "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}]}}
    found = _validate(tmp_path, queue("parent"), queue("leaf", parent="parent"), job, group("pg", "nowhere"))
    rules = sorted((name, rule) for name, rule, _ in found if rule.startswith(("VC-JOB", "VC-PG")))
    assert rules == [("j", "VC-JOB-LEAF"), ("j", "VC-JOB-TASKS"), ("j", "VC-JOB-TASKS"), ("pg", "VC-PG-QUEUE")]


def test_conf_problems_are_reported_on_the_configmap(tmp_path: Path) -> None:
    cm = conf("enqueue, alocate", [{"name": "proportion", "enabledJobEnqueued": True}, "slaa"])
    found = {rule: message for _, rule, message in _validate(tmp_path, cm)}
    assert found.keys() == {"VC-CONF-ACTION", "VC-CONF-KEY", "VC-CONF-PLUGIN"}
    assert found["VC-CONF-ACTION"] == "volcano-scheduler.conf actions: failed to find Action alocate"


@pytest.mark.parametrize("objects,rule", [
    ([queue("a", deserved={"cpu": "4"})], "VC-LINT-DESERVED-IGNORED"),
    ([queue("a", capability={"cpu": "0"})], "VC-LINT-ZERO-CAPABILITY"),
    ([queue("a", dequeueStrategy="fifo")], "VC-LINT-FIFO"),
    ([node("n1", cpu="4"), queue("a", guarantee={"resource": {"cpu": "4"}}, deserved={"cpu": "4"})],
     "VC-LINT-GUARANTEE-TOTAL"),
    ([node("n1"), queue("a", capability={"nvidia.com/gpu": "1"})], "VC-LINT-CAPABILITY-RESOURCE"),
    ([queue("a", capability={"cpu": "4"}), group("g", "a", min_resources={"nvidia.com/gpu": "1"})],
     "VC-LINT-UNLIMITED-SCALAR"),
    ([conf("enqueue, allocate", ["capacity"]), queue("a", weight=3)], "VC-LINT-WEIGHT-IGNORED"),
    ([conf("enqueue, allocate, reclaim", ["proportion"]), queue("a", reclaimable=False)], "VC-LINT-UNRECLAIMABLE"),
])
def test_lints(tmp_path: Path, objects: list[dict[str, Any]], rule: str) -> None:
    assert rule in {r for _, r, _ in _validate(tmp_path, *objects)}


def test_tree_nonleaf_under_hierarchical_capacity(tmp_path: Path) -> None:
    cm = conf("enqueue, allocate", [{"name": "capacity", "enableHierarchy": True}])
    found = _validate(tmp_path, cm, queue("p"), queue("c", parent="p"), group("g", "p"))
    assert ("g", "VC-TREE-NONLEAF") in {(n, r) for n, r, _ in found}


def test_against_and_prune_report_updates_and_deletions(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump_all([queue("p"), queue("c", parent="p")]), encoding="utf-8")
    found = _validate(tmp_path, queue("c", parent="p"), args=("--against", str(old), "--prune"))
    assert found == [("p", "VC-D3", "queue p can not be deleted because it has 1 child queues: c")]


@pytest.mark.parametrize("name,expected", [
    ("default", "`default` queue can not be deleted"),
    ("root", "`root` queue can not be deleted"),
    ("team", None),
])
def test_vc_vap_delete_protects_default_and_root(name: str, expected: str | None) -> None:
    found = admission_policy.evaluate(DELETE, None, {"metadata": {"name": name}})
    assert (None if found is None else (found.rule_id, found.message.rsplit(": ", 1)[-1])) == (
        None if expected is None else ("VC-VAP-DELETE", expected))


def test_vc_vap_delete_and_vc_d1_on_a_prune_of_default(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump_all([queue("default"), queue("team")]), encoding="utf-8")
    found = _validate(tmp_path, queue("team"), args=("--against", str(old), "--prune", "--vap"))
    assert sorted((name, rule) for name, rule, _ in found) == [("default", "VC-D1"), ("default", "VC-VAP-DELETE")]


@pytest.mark.parametrize("data,rule", [
    ({"volcano-scheduler.conf": "actions: [unclosed"}, "VC-CONF-INVALID"),  # not YAML
    ({"volcano-scheduler.conf": "actions: enqueue\ntiers: 5\n"}, "VC-CONF-INVALID"),  # Go cannot decode it
    ({"other-key": "actions: enqueue\n"}, "VC-CONF-INVALID"),  # nothing for the scheduler to load
    ({"volcano-scheduler.conf": "actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: proportion\n"
                                "  - name: drf\n    enableHierarchy: true\n"}, "VC-CONF-CONFLICT"),
])
def test_vc_conf_invalid_and_vc_conf_conflict_on_the_configmap(tmp_path: Path, data: dict[str, str],
                                                              rule: str) -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"namespace": "volcano-system", "name": "volcano-scheduler-configmap"}, "data": data}
    found = _validate(tmp_path, cm, queue("q"))
    assert [(name, r) for name, r, _ in found] == [("volcano-scheduler-configmap", rule)]
