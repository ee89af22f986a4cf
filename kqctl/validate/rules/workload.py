"""Workload validating-webhook rules (§2.8, ``pkg/webhooks/workload_webhook.go``).

Gates at the reference commit, all on by default: ``WorkloadValidationForPodSetMetadata``
(VAL-WL-7), ``WorkloadValidateResourcesAreNonNegative`` (VAL-WL-6) and
``ElasticJobsViaWorkloadSlices`` (the elastic-job half of VAL-WL-4).

The status rules (VAL-WL-12, VAL-WL-13) matter for objects that carry a status (cluster
snapshots, status updates): on a plain create the API server drops ``status`` first (DEF-3).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.api.names import (
    go_json,
    invalid,
    not_found,
    not_supported,
    required,
    validate_annotations,
    validate_labels,
)
from kqctl.api.origin import FieldPath
from kqctl.api.quantity import resource_value
from kqctl.validate.findings import Finding
from kqctl.validate.rules._common import (
    Body,
    Rule,
    child,
    finding,
    findings,
    integer,
    mapping,
    quantity,
    quoted_quantity,
    sequence,
    text,
)

ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
RESERVED_RESOURCE = "pods"
NEGATIVE_MSG = "must be greater than or equal to 0"


def _pod_sets(body: Body) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
    for i, pod_set in enumerate(sequence(child(body, "spec", "podSets"))):
        if isinstance(pod_set, Mapping):
            yield ("spec", "podSets", i), pod_set


def _pod_set_counts(body: Body) -> dict[str, int]:
    """Pod-set name → count, in spec order (count defaults to 1, DEF-1)."""
    counts: dict[str, int] = {}
    for _, pod_set in _pod_sets(body):
        name = text(pod_set.get("name"))
        count = integer(pod_set.get("count", 1))
        if name is not None:
            counts[name] = count if count is not None else 1
    return counts


def _resource_lists(body: Body) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
    """Every requests/limits map Kueue checks: init containers, containers, pod-level resources."""
    for path, pod_set in _pod_sets(body):
        spec_path = (*path, "template", "spec")
        pod_spec = child(pod_set, "template", "spec")
        for containers in ("initContainers", "containers"):
            for ci, container in enumerate(sequence(child(pod_spec, containers))):
                for kind in ("requests", "limits"):
                    yield (
                        (*spec_path, containers, ci, "resources", kind),
                        mapping(child(container, "resources", kind)),
                    )
        for kind in ("requests", "limits"):
            yield (*spec_path, "resources", kind), mapping(child(pod_spec, "resources", kind))


def _is_elastic(body: Body) -> bool:
    return child(body, "metadata", "annotations", ELASTIC_JOB_ANNOTATION) == "true"


def vwl7_pod_template_metadata_is_valid(body: Body) -> Iterator[Finding]:
    for path, pod_set in _pod_sets(body):
        meta_path = (*path, "template", "metadata")
        labels = child(pod_set, "template", "metadata", "labels")
        if isinstance(labels, Mapping):
            yield from findings("VAL-WL-7", validate_labels(labels, (*meta_path, "labels")))
        annotations = child(pod_set, "template", "metadata", "annotations")
        if isinstance(annotations, Mapping):
            yield from findings("VAL-WL-7", validate_annotations(annotations, (*meta_path, "annotations")))


def vwl5_pods_resource_is_reserved(body: Body) -> Iterator[Finding]:
    for path, resources in _resource_lists(body):
        if RESERVED_RESOURCE in resources:
            err = invalid(
                (*path, RESERVED_RESOURCE),
                go_json(RESERVED_RESOURCE),
                "the key is reserved for internal kueue use",
            )
            yield finding("VAL-WL-5", err, "remove the 'pods' request; Kueue counts pods itself")


def vwl6_requests_and_limits_not_negative(body: Body) -> Iterator[Finding]:
    for path, resources in _resource_lists(body):
        for name, raw in resources.items():
            value = quantity(raw)
            if isinstance(name, str) and value is not None and value.value < 0:
                yield finding(
                    "VAL-WL-6",
                    invalid((*path, name), quoted_quantity(value), NEGATIVE_MSG),
                    "resource requests and limits cannot be negative",
                )


def vwl4_at_most_one_pod_set_uses_min_count(body: Body) -> Iterator[Finding]:
    """Only one pod set may be partially admitted, and never on an elastic workload."""
    variable = sum(1 for _, pod_set in _pod_sets(body) if pod_set.get("minCount") is not None)
    if variable > 1:
        yield finding(
            "VAL-WL-4",
            invalid(("spec", "podSets"), str(variable), "at most one podSet can use minCount"),
            "keep minCount on a single pod set",
        )
    if variable > 0 and _is_elastic(body):
        msg = "partial admission and elastic job cannot be used together"
        yield finding(
            "VAL-WL-4",
            invalid(("spec", "podSets"), str(variable), msg),
            f"remove minCount or the {ELASTIC_JOB_ANNOTATION} annotation",
        )


def _has_quota_reservation(body: Body) -> bool:
    return any(
        mapping(condition).get("type") == "QuotaReserved" and mapping(condition).get("status") == "True"
        for condition in sequence(child(body, "status", "conditions"))
    )


def vwl12_admission_matches_quota_reservation(body: Body) -> Iterator[Finding]:
    """With QuotaReserved=True: an admission exists, names real pod sets, and divides evenly."""
    if not _has_quota_reservation(body):
        return
    admission = child(body, "status", "admission")
    if admission is None:
        yield finding(
            "VAL-WL-12",
            required(("status", "admission"), "must be set while the QuotaReserved condition is true"),
            "add status.admission or drop the QuotaReserved condition",
        )
        return
    names = _pod_set_counts(body)
    for i, assignment in enumerate(sequence(child(admission, "podSetAssignments"))):
        path = ("status", "admission", "podSetAssignments", i)
        name = text(mapping(assignment).get("name"))
        if name is not None and name not in names:
            yield finding(
                "VAL-WL-12",
                not_found((*path, "name"), go_json(name)),
                f"pod set names are: {', '.join(names) or '(none)'}",
            )
        yield from _usage_not_multiple_of_count(mapping(assignment), path)


def _usage_not_multiple_of_count(assignment: Mapping[str, Any], path: FieldPath) -> Iterator[Finding]:
    count = integer(assignment.get("count"))
    if count is None or count <= 0:
        return
    for resource, raw in mapping(assignment.get("resourceUsage")).items():
        value = quantity(raw)
        if isinstance(resource, str) and value is not None and resource_value(resource, value) % count:
            # Kueue formats the pointer to count with %d, printing an address; we print the
            # number it meant (VAL-WL-12).
            err = invalid(
                (*path, "resourceUsage", resource), quoted_quantity(value), f"is not a multiple of {count}"
            )
            yield finding("VAL-WL-12", err, "resourceUsage is the total for all pods of the pod set")


def vwl13_reclaimable_pods_fit_pod_sets(body: Body) -> Iterator[Finding]:
    counts = _pod_set_counts(body)
    for entry in sequence(child(body, "status", "reclaimablePods")):
        name = text(mapping(entry).get("name"))
        if name is None:
            continue
        # Kueue keys the path by pod-set name: status.reclaimablePods[<name>].
        path = ("status", "reclaimablePods", name)
        if name not in counts:
            yield finding("VAL-WL-13", not_supported((*path, "name"), go_json(name), list(counts)))
            continue
        reclaimable = integer(mapping(entry).get("count"))
        if reclaimable is not None and reclaimable > counts[name]:
            msg = f"should be less or equal to {counts[name]}"
            yield finding("VAL-WL-13", invalid((*path, "count"), str(reclaimable), msg))


RULES: tuple[Rule, ...] = (
    vwl7_pod_template_metadata_is_valid,
    vwl5_pods_resource_is_reserved,
    vwl6_requests_and_limits_not_negative,
    vwl4_at_most_one_pod_set_uses_min_count,
    vwl12_admission_matches_quota_reservation,
    vwl13_reclaimable_pods_fit_pod_sets,
)
