"""Workload validating-webhook rules (§2.8, ``pkg/webhooks/workload_webhook.go``).

Gates at the reference commit, all on by default: ``WorkloadValidationForPodSetMetadata``
(VAL-WL-7), ``WorkloadValidateResourcesAreNonNegative`` (VAL-WL-6) and
``ElasticJobsViaWorkloadSlices`` (the elastic-job half of VAL-WL-4).

The status rules (VAL-WL-12, VAL-WL-13) matter for objects that carry a status (cluster
snapshots, status updates): on a plain create the API server drops ``status`` first (DEF-3).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.names import (
    FieldError,
    forbidden,
    go_json,
    invalid,
    is_dns1123_subdomain,
    not_found,
    not_supported,
    required,
    too_long,
    validate_annotations,
    validate_labels,
)
from kqctl.k8s.quantity import resource_value
from kqctl.origin import FieldPath
from kqctl.validate.fields import (
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


def _pod_sets(body: Body) -> list[tuple[FieldPath, Mapping[str, Any]]]:
    # dict, not Mapping: the loader only builds dicts, and the ABC check is several times slower.
    spec = body.get("spec")
    pod_sets = spec.get("podSets") if isinstance(spec, dict) else None
    if not isinstance(pod_sets, list):
        return []
    return [(("spec", "podSets", i), pod_set) for i, pod_set in enumerate(pod_sets) if isinstance(pod_set, dict)]


def _pod_set_counts(body: Body) -> dict[str, int]:
    """Pod-set name → count, in spec order (count defaults to 1, DEF-1)."""
    counts: dict[str, int] = {}
    for _, pod_set in _pod_sets(body):
        name = text(pod_set.get("name"))
        count = integer(pod_set.get("count", 1))
        if name is not None:
            counts[name] = count if count is not None else 1
    return counts


def _resource_lists(body: Body) -> list[tuple[FieldPath, Mapping[str, Any]]]:
    """Every non-empty requests/limits map Kueue checks: init containers, containers, pod-level resources."""
    lists: list[tuple[FieldPath, Mapping[str, Any]]] = []
    for path, pod_set in _pod_sets(body):
        spec_path = (*path, "template", "spec")
        template = pod_set.get("template")
        pod_spec = template.get("spec") if isinstance(template, dict) else None
        if not isinstance(pod_spec, dict):
            continue
        for containers in ("initContainers", "containers"):
            for ci, container in enumerate(sequence(pod_spec.get(containers))):
                resources = container.get("resources") if isinstance(container, dict) else None
                if isinstance(resources, dict):
                    for kind in ("requests", "limits"):
                        found = resources.get(kind)
                        if isinstance(found, dict) and found:
                            lists.append(((*spec_path, containers, ci, "resources", kind), found))
        resources = pod_spec.get("resources")
        if isinstance(resources, dict):
            for kind in ("requests", "limits"):
                found = resources.get(kind)
                if isinstance(found, dict) and found:
                    lists.append(((*spec_path, "resources", kind), found))
    return lists


def _is_elastic(body: Body) -> bool:
    return child(body, "metadata", "annotations", ELASTIC_JOB_ANNOTATION) == "true"


def vwl7_pod_template_metadata_is_valid(body: Body) -> Iterator[Finding]:
    for path, pod_set in _pod_sets(body):
        meta_path = (*path, "template", "metadata")
        labels = child(pod_set, "template", "metadata", "labels")
        if isinstance(labels, dict):
            yield from findings("VAL-WL-7", validate_labels(labels, (*meta_path, "labels")))
        annotations = child(pod_set, "template", "metadata", "annotations")
        if isinstance(annotations, dict):
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
            if type(raw) is str and raw[:1] != "-":
                continue  # without a leading minus a quantity is never negative (QTY-1)
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
    entries = sequence(child(body, "status", "reclaimablePods"))
    counts = _pod_set_counts(body) if entries else {}
    for entry in entries:
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


ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
MAX_GATE_NAME_LENGTH = 63  # as the spec.managedBy field of Jobs
_HTTP_PATH = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")
_HTTP_PATH_FORMAT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"


def vwl15_admission_gated_by_annotation_is_well_formed(body: Body) -> Iterator[Finding]:
    """Gate AdmissionGatedBy (beta, on): a comma-separated list of distinct domain-prefixed gate names."""
    annotations = mapping(child(body, "metadata", "annotations"))
    value = annotations.get(ADMISSION_GATED_BY)
    if not isinstance(value, str) or not value.strip():
        return
    path: FieldPath = ("metadata", "annotations", ADMISSION_GATED_BY)
    seen: set[str] = set()
    for gate in (part.strip() for part in value.split(",")):
        if not gate:
            yield finding("VAL-WL-15", invalid(path, go_json(value), "cannot contain empty gate names"))
            continue
        if gate in seen:
            yield finding("VAL-WL-15", invalid(path, go_json(value), f"duplicate gate name: {gate}"))
            continue
        seen.add(gate)
        yield from findings("VAL-WL-15", _domain_prefixed_path(path, gate))
        if len(gate) > MAX_GATE_NAME_LENGTH:
            yield finding("VAL-WL-15", too_long(path, MAX_GATE_NAME_LENGTH))


def _domain_prefixed_path(path: FieldPath, value: str) -> list[FieldError]:
    """Kubernetes' IsDomainPrefixedPath: ``host/path`` with a DNS-1123 subdomain host."""
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [invalid(path, go_json(value), 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [invalid(path, go_json(host), message) for message in is_dns1123_subdomain(host)]
    if not _HTTP_PATH.match(rest):
        errs.append(invalid(path, go_json(rest), f"Invalid path: regex used for validation is '{_HTTP_PATH_FORMAT}'"))
    return errs


def vwl16_tas_slice_size_goes_with_slice_topology(body: Body) -> Iterator[Finding]:
    """Gate TASValidateWorkloadSliceSize (beta, on): podSetSliceSize exactly when podSetSliceRequiredTopology."""
    for path, pod_set in _pod_sets(body):
        request = mapping(pod_set.get("topologyRequest"))
        here = (*path, "topologyRequest")
        has_topology = request.get("podSetSliceRequiredTopology") is not None
        size = request.get("podSetSliceSize")
        if has_topology and size is None:
            yield finding("VAL-WL-16", required((*here, "podSetSliceSize"),
                                                "must be set when podSetSliceRequiredTopology is specified"))
        elif has_topology and isinstance(size, int) and size <= 0:
            yield finding("VAL-WL-16", invalid((*here, "podSetSliceSize"), str(size), "must be greater than 0"))
        if not has_topology and size is not None:
            yield finding("VAL-WL-16", forbidden((*here, "podSetSliceSize"),
                                                 "may not be set when podSetSliceRequiredTopology is not specified"))
        for i, constraint in enumerate(sequence(request.get("podsetSliceRequiredTopologyConstraints"))):
            value = mapping(constraint).get("size")
            if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
                yield finding("VAL-WL-16", invalid(
                    (*here, "podsetSliceRequiredTopologyConstraints", i, "size"), str(value), "must be greater than 0"))


RULES: tuple[Rule, ...] = (
    vwl7_pod_template_metadata_is_valid,
    vwl5_pods_resource_is_reserved,
    vwl6_requests_and_limits_not_negative,
    vwl4_at_most_one_pod_set_uses_min_count,
    vwl12_admission_matches_quota_reservation,
    vwl13_reclaimable_pods_fit_pod_sets,
    vwl15_admission_gated_by_annotation_is_well_formed,
    vwl16_tas_slice_size_goes_with_slice_topology,
)
