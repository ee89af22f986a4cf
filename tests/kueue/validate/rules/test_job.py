"""batch/v1 Job rules of Kueue's Job webhook (§2.9)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.findings import Finding
from kqctl.kueue.validate.rules import run_webhook_rules
from kqctl.kueue.validate.rules.job import GoParseError, go_atoi, go_parse_bool

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
SYNC_COMPLETIONS = "kueue.x-k8s.io/job-completions-equal-parallelism"


def job(
    labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": "sample",
        "namespace": "team-a",
        "labels": {"kueue.x-k8s.io/queue-name": "lq"},
    }
    metadata["labels"].update(labels or {})
    if annotations:
        metadata["annotations"] = annotations
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {"template": template, **spec},
    }


def found(body: dict[str, Any], rule_id: str) -> list[Finding]:
    return [f for f in run_webhook_rules("Job", body) if f.rule_id == rule_id]


def messages(body: dict[str, Any], rule_id: str) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in found(body, rule_id)]


def test_valid_job_has_no_findings() -> None:
    assert run_webhook_rules("Job", job(parallelism=3, completions=3)) == []


def test_go_atoi_matches_strconv() -> None:
    assert go_atoi("+7") == 7 and go_atoi("-0") == 0
    for bad in ("", " 1", "1_000", "0x10", "1.0", "+"):
        with pytest.raises(GoParseError, match="invalid syntax"):
            go_atoi(bad)
    with pytest.raises(GoParseError, match='parsing "9223372036854775808": value out of range'):
        go_atoi("9223372036854775808")


def test_go_parse_bool_matches_strconv() -> None:
    assert go_parse_bool("T") and not go_parse_bool("False")
    with pytest.raises(GoParseError, match='strconv.ParseBool: parsing "yes": invalid syntax'):
        go_parse_bool("yes")


# VAL-JOB-1 ---------------------------------------------------------------------------------


def test_vjob1_dotted_queue_name_accepted() -> None:
    assert found(job(labels={"kueue.x-k8s.io/queue-name": "team-a.gpu"}), "VAL-JOB-1") == []


def test_vjob1_queue_name_with_underscore_rejected() -> None:
    [finding] = found(job(labels={"kueue.x-k8s.io/queue-name": "team_a"}), "VAL-JOB-1")
    assert finding.field == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert finding.message.startswith('Invalid value: "team_a": a lowercase RFC 1123 subdomain must consist')


def test_vjob1_job_without_queue_name_is_not_checked() -> None:
    body = job()
    del body["metadata"]["labels"]
    assert found(body, "VAL-JOB-1") == []


# VAL-JOB-2 ---------------------------------------------------------------------------------


def test_vjob2_min_parallelism_below_pods_count_accepted() -> None:
    assert found(job(annotations={MIN_PARALLELISM: "2"}, parallelism=5), "VAL-JOB-2") == []


def test_vjob2_min_parallelism_equal_to_pods_count_rejected() -> None:
    body = job(annotations={MIN_PARALLELISM: "3"}, parallelism=5, completions=3)
    assert messages(body, "VAL-JOB-2") == [
        (f"metadata.annotations[{MIN_PARALLELISM}]", "Invalid value: 3: should be between 0 and 2")
    ]


def test_vjob2_min_parallelism_zero_rejected() -> None:
    assert [m for _, m in messages(job(annotations={MIN_PARALLELISM: "0"}, parallelism=4), "VAL-JOB-2")] == [
        "Invalid value: 0: should be between 0 and 3"
    ]


def test_vjob2_min_parallelism_not_an_integer_rejected_with_go_error() -> None:
    assert [
        m for _, m in messages(job(annotations={MIN_PARALLELISM: "two"}, parallelism=4), "VAL-JOB-2")
    ] == ['Invalid value: "two": strconv.Atoi: parsing "two": invalid syntax']


def test_vjob2_min_parallelism_wraps_through_int32_like_kueue() -> None:
    # int32(4294967297) == 1, which Kueue then accepts for a 4-pod Job.
    assert found(job(annotations={MIN_PARALLELISM: "4294967297"}, parallelism=4), "VAL-JOB-2") == []


# VAL-JOB-3 ---------------------------------------------------------------------------------


def test_vjob3_indexed_job_with_equal_counts_accepted() -> None:
    body = job(annotations={SYNC_COMPLETIONS: "true"}, completionMode="Indexed", parallelism=4, completions=4)
    assert found(body, "VAL-JOB-3") == []


def test_vjob3_false_annotation_is_not_checked() -> None:
    assert (
        found(job(annotations={SYNC_COMPLETIONS: "false"}, parallelism=4, completions=8), "VAL-JOB-3") == []
    )


def test_vjob3_nonindexed_job_rejected() -> None:
    body = job(
        annotations={SYNC_COMPLETIONS: "true"}, completionMode="NonIndexed", parallelism=2, completions=2
    )
    assert messages(body, "VAL-JOB-3") == [
        (
            f"metadata.annotations[{SYNC_COMPLETIONS}]",
            'Invalid value: "true": should not be enabled for NonIndexed jobs',
        )
    ]


def test_vjob3_completions_different_from_parallelism_rejected() -> None:
    body = job(annotations={SYNC_COMPLETIONS: "true"}, completionMode="Indexed", parallelism=2, completions=4)
    assert messages(body, "VAL-JOB-3") == [
        (
            "spec.completions",
            f"Invalid value: 4: should be equal to parallelism when {SYNC_COMPLETIONS} annotation is true",
        )
    ]


def test_vjob3_unset_completions_prints_null() -> None:
    body = job(annotations={SYNC_COMPLETIONS: "true"}, completionMode="Indexed", parallelism=3)
    assert [m for _, m in messages(body, "VAL-JOB-3")][0].startswith("Invalid value: null: should be equal")


def test_vjob3_unparsable_annotation_rejected() -> None:
    assert [m for _, m in messages(job(annotations={SYNC_COMPLETIONS: "yes"}), "VAL-JOB-3")] == [
        'Invalid value: "yes": strconv.ParseBool: parsing "yes": invalid syntax'
    ]


# VAL-JOB-4 ---------------------------------------------------------------------------------


def test_vjob4_positive_max_exec_time_accepted() -> None:
    assert found(job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "3600"}), "VAL-JOB-4") == []


def test_vjob4_zero_max_exec_time_rejected() -> None:
    assert messages(job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "0"}), "VAL-JOB-4") == [
        (
            "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]",
            "Invalid value: 0: should be greater than 0",
        )
    ]


def test_vjob4_non_integer_max_exec_time_rejected() -> None:
    assert [
        m for _, m in messages(job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "1h"}), "VAL-JOB-4")
    ] == ['Invalid value: "1h": strconv.Atoi: parsing "1h": invalid syntax']


# VAL-JOB-5 ---------------------------------------------------------------------------------


def test_vjob5_elastic_job_without_min_parallelism_accepted() -> None:
    assert found(job(annotations={"kueue.x-k8s.io/elastic-job": "true"}, parallelism=4), "VAL-JOB-5") == []


def test_vjob5_partial_admission_and_elastic_job_rejected() -> None:
    annotations = {MIN_PARALLELISM: "2", "kueue.x-k8s.io/elastic-job": "true"}
    assert messages(job(annotations=annotations, parallelism=4), "VAL-JOB-5") == [
        (
            f"metadata.annotations[{MIN_PARALLELISM}]",
            'Invalid value: "2": partial admission and elastic job cannot be used together',
        )
    ]
