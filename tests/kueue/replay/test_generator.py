"""Kueue's performance generator configs, read as its runner reads them (copies in tests/data/replay)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import yaml
from replay_support import START
from support import REPO

from kqctl.kueue.replay.generator import GeneratorError, build_snapshot, is_generator_config, parse_generator

BASELINE = REPO / "tests" / "data" / "replay" / "kueue-baseline-generator.yaml"
LARGE_SCALE = REPO / "tests" / "data" / "replay" / "kueue-large-scale-generator.yaml"


def test_the_baseline_config_is_5_cohorts_of_6_cluster_queues_and_15000_workloads() -> None:
    config = parse_generator(yaml.safe_load(BASELINE.read_text()))
    assert (config.cluster_queues, config.workloads) == (30, 15_000)
    snapshot = build_snapshot(config, START, seed=1)
    assert len(snapshot.cluster_queues) == 30 and len(snapshot.workloads) == 15_000
    queue = snapshot.cluster_queues["cq-0-3-cohort-4"]
    assert queue.cohort == "cohort-4" and queue.queueing_strategy == "BestEffortFIFO"
    assert queue.preemption.reclaim_within_cohort == "Any" and queue.preemption.within_cluster_queue == "LowerPriority"
    assert queue.quotas[("rf", "cpu")].nominal == 20_000 and queue.quotas[("rf", "cpu")].borrowing_limit == 100_000
    assert queue.labels["kueue.x-k8s.io/performance-scheduler-class"] == "cq"


def test_workloads_are_created_one_interval_after_another_with_the_runners_names() -> None:
    snapshot = build_snapshot(parse_generator(yaml.safe_load(BASELINE.read_text())), START)
    by_key = {w.key: w for w in snapshot.workloads}
    first_small = by_key["cq-0-0-cohort-0/small-0-0-0"]
    assert first_small.creation_timestamp == START + timedelta(milliseconds=100)
    assert by_key["cq-0-0-cohort-0/small-0-349-0"].creation_timestamp == START + timedelta(milliseconds=35_000)
    assert by_key["cq-0-0-cohort-0/large-2-49-0"].creation_timestamp == START + timedelta(milliseconds=60_000)
    assert first_small.priority == 50 and first_small.labels["kueue.x-k8s.io/performance-scheduler-running-ms"] == "200"
    assert first_small.pod_sets[0].count == 1


def test_uids_follow_the_seed() -> None:
    config = parse_generator({"cohorts": [{"className": "c", "count": 1, "queuesSets": [{
        "className": "q", "count": 1, "nominalQuota": "4", "workloadsSets": [{
            "count": 5, "creationIntervalMs": 10, "workloads": [{"className": "w", "request": "1"}]}]}]}]})
    uids = [w.uid for w in build_snapshot(config, START, seed=1).workloads[:5]]
    assert uids == [w.uid for w in build_snapshot(config, START, seed=1).workloads[:5]]
    assert uids != [w.uid for w in build_snapshot(config, START, seed=2).workloads[:5]]


def test_the_large_scale_config_is_1000_cluster_queues_and_50000_workloads() -> None:
    config = parse_generator(yaml.safe_load(LARGE_SCALE.read_text()))
    assert (config.cluster_queues, config.workloads) == (1000, 50_000)


def test_the_runners_first_format_a_bare_list_of_cohort_sets_is_read_too() -> None:
    data = yaml.safe_load(BASELINE.read_text())["cohorts"]
    assert is_generator_config(data) and parse_generator(data).workloads == 15_000


@pytest.mark.parametrize("data,path,message", [
    ({"cohorts": []}, "cohorts", "at least one cohort"),
    ({"cohorts": [{"className": "c", "count": 1, "queuesSets": [{"className": "q", "count": 1}]}]},
     "cohorts[0].queuesSets[0].nominalQuota", "required"),
    ({"cohorts": [{"className": "c", "count": "two"}]}, "cohorts[0].count", "whole number"),
    ({"cohorts": [{"className": "c", "count": 1, "queueSets": []}]}, "cohorts[0].queueSets", "unknown field"),
    ({"topology": {"name": "t"}, "cohorts": []}, "topology", "not replayed"),
    ({"cohorts": [{"className": "c", "count": 1, "queuesSets": [{"className": "q", "count": 1, "nominalQuota": 1,
      "workloadsSets": [{"count": 1, "workloads": [{"className": "w", "request": "1", "tasLevel": "rack"}]}]}]}]},
     "cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].tasLevel", "not replayed"),
    ({"cohorts": [{"className": "c", "count": 1, "queuesSets": [{"className": "q", "count": 1, "nominalQuota": "x"}]}]},
     "cohorts[0].queuesSets[0].nominalQuota", "quantities must match"),
])
def test_bad_configs_are_refused_with_the_field_that_is_wrong(data: object, path: str, message: str) -> None:
    with pytest.raises(GeneratorError) as caught:
        parse_generator(data)
    assert str(caught.value).startswith(path + ":") and message in str(caught.value)


def test_manifests_are_not_mistaken_for_a_generator_config() -> None:
    assert not is_generator_config({"apiVersion": "v1", "kind": "List", "items": []})
