"""From objects to the snapshot: implicit queues, vcjobs as the job controller builds them, plain pods,
the configuration, and located errors."""

from __future__ import annotations

import pytest

from kqctl.errors import InputError
from tests.volcano.builders import conf, node, queue, snapshot


def vcjob(name: str, tasks: list[dict[str, object]], **spec: object) -> dict[str, object]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"namespace": "ns", "name": name},
            "spec": {"tasks": tasks, **spec}}


def task(name: str, replicas: int, cpu: str, priority_class: str = "", **extra: object) -> dict[str, object]:
    spec: dict[str, object] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"name": name, "replicas": replicas, "template": {"spec": spec}, **extra}


def test_root_and_default_queues_exist_as_volcano_creates_them() -> None:
    snap = snapshot(node("n1"))
    assert snap.queues["root"].reclaimable is False and snap.queues["default"].reclaimable is True
    assert snap.queues["default"].parent_name == "root"


def test_vcjob_minmember_and_pods_after_the_webhook_defaults() -> None:
    snap = snapshot(vcjob("train", [task("ps", 1, "1"), task("worker", 3, "2")]))
    group = snap.pod_groups["ns/train"]
    assert (group.queue, group.min_member, dict(group.min_task_member)) == ("default", 4, {"ps": 1, "worker": 3})
    assert group.min_resources == {"cpu": 7000, "pods": 4}
    assert sorted(p.name for p in snap.pods) == ["train-ps-0", "train-worker-0", "train-worker-1", "train-worker-2"]
    assert snap.vcjobs == {"ns/train": "ns/train"}


def test_vcjob_min_resources_with_min_available_below_the_tasks_takes_the_first_pods_by_priority() -> None:
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 9}
    snap = snapshot(high, vcjob("j", [task("low", 2, "1"), task("high", 2, "4", "high")], minAvailable=3))
    assert snap.pod_groups["ns/j"].min_resources == {"cpu": 9000, "pods": 3}  # 2 x 4 (high) + 1 x 1


def test_vcjob_min_available_above_task_minimums_adds_spare_replicas() -> None:
    snap = snapshot(vcjob("j", [task("a", 3, "1", minAvailable=1), task("b", 2, "2", minAvailable=1)], minAvailable=3))
    assert snap.pod_groups["ns/j"].min_resources == {"cpu": 4000, "pods": 3}  # a:1 + b:1, then one spare of a


def test_plain_volcano_pod_gets_its_own_podgroup_in_its_queue_annotation() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"namespace": "ns", "name": "solo", "annotations": {"scheduling.volcano.sh/queue-name": "q"}},
           "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "x",
                                                                 "resources": {"requests": {"cpu": "1"}}}]}}
    snap = snapshot(queue("q"), pod)
    group = snap.pod_groups["ns/podgroup-solo"]
    assert (group.queue, group.min_member, group.min_resources) == ("q", 1, {"cpu": 1000, "pods": 1})


def test_namespace_queue_annotation_repoints_podgroups_of_the_default_queue() -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": "ns", "annotations": {"scheduling.volcano.sh/queue-name": "team"}}}
    snap = snapshot(queue("team"), namespace, vcjob("j", [task("a", 1, "1")]))
    assert snap.pod_groups["ns/j"].queue == "team"


def test_the_chart_configuration_is_the_default() -> None:
    snap = snapshot(node("n1"))
    assert snap.conf.actions == ("enqueue", "allocate", "backfill")
    assert [p.name for p in snap.conf.tiers[1]] == ["overcommit", "drf", "predicates", "proportion", "nodeorder",
                                                    "binpack"]


def test_the_chart_default_matches_the_charts_file() -> None:
    import yaml

    from kqctl.volcano.api.config import CHART_DEFAULT
    from tests.support import REPO

    shipped = (REPO / "upstream" / "volcano-crds" / "volcano-scheduler.conf").read_text(encoding="utf-8")
    assert yaml.safe_load(CHART_DEFAULT) == yaml.safe_load(shipped)


def test_a_misspelt_flag_is_a_warning_and_the_default_applies() -> None:
    snap = snapshot(conf("enqueue, allocate", [{"name": "proportion", "enabledJobEnqueued": False}]))
    plugin = snap.conf.plugin("proportion")
    assert plugin is not None and plugin.enabled("enableJobEnqueued")
    assert any("enabledJobEnqueued" in w and "did you mean enableJobEnqueued" in w for w in snap.warnings)


def test_an_unknown_action_is_refused_as_volcano_refuses_the_file() -> None:
    with pytest.raises(InputError, match="failed to find Action alocate"):
        snapshot(conf("enqueue, alocate", ["proportion"]))


def test_a_bad_quantity_is_a_located_error() -> None:
    with pytest.raises(InputError, match=r"spec.capability.cpu"):
        snapshot(queue("q", capability={"cpu": "lots"}))


def test_unmodelled_pod_fields_are_reported_as_limitations() -> None:
    from tests.volcano.builders import group, pod

    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}
    snap = snapshot(queue("q"), group("g", "q"), pod("p", "g", nodeSelector={"zone": "a"}, affinity=anti),
                    pod("r", "g", affinity={"nodeAffinity": {}}))
    assert any("affinity.podAntiAffinity (1 pod)" in line for line in snap.limitations)
    assert not any("nodeSelector (" in line or "nodeAffinity" in line for line in snap.limitations)  # AFF-1
