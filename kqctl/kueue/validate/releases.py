"""The Kueue releases ``validate --kueue-version`` checks against, and what each does differently from the
reference (``ff69552e``, a v0.20 development build).

Schemas: ``upstream/kueue-releases/<tag>.diff`` (the CRD folder's ``git diff`` from the reference), generated into
``schemas/releases/kueue-<tag>.json`` by ``scripts/generate_schemas.py``. Webhooks: read from each tag's
``pkg/webhooks/workload_webhook.go`` (``ValidateWorkload``, ``validatePodSet``, ``validateResourceList``,
``validateAdmission``, ``warningsForWorkload``), ``pkg/controller/jobs/job/job_webhook.go`` and the feature gates'
defaults of its ``pkg/features/kube_features.go``: a release's webhook findings are the reference's without the
rules that release does not have (or has off by default), plus the ones only it has.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from kqctl.findings import Finding, warning
from kqctl.k8s.kinds import split_api_version
from kqctl.kueue.kinds import GROUP
from kqctl.kueue.validate.profile import PROFILE, inspect_for_release, webhooks
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.releases import Release

REFERENCE = Release("v0.20.0-devel", "ff69552e79ad21652c36caa97038382e55625cf7", reference=True)

_SCHEMA_V019 = ("CRD schemas: a Workload's topologyRequest.podSetSliceSize has no minimum of 1 and subGroupCount no "
                "minimum of 0 (SCHEMA-RANGE in the reference); ResourceFlavor and Topology CEL rules differ on updates "
                "only")
RELEASES: tuple[Release, ...] = (
    REFERENCE,
    Release("v0.19.2", "8eab68778fc1b52affe165fdf5af29d1e9b4f3cb", "kueue-v0.19.2", (
        _SCHEMA_V019,
        "VAL-WL-17: a negative subGroupCount is a warning of the Workload webhook (an error of the CRD later)",
    )),
    Release("v0.18.6", "4152c9bad956a361bb56b0f7994d492709835d96", "kueue-v0.18.6", (
        _SCHEMA_V019 + "; at most 10 pod sets per Workload (18 later, SCHEMA-ITEMS); MultiKueueConfig clusters are a "
        "listType set (SCHEMA-DUPLICATE) rather than a CEL uniqueness rule",
        "a negative subGroupCount is accepted silently",
        "VAL-WL-15 not checked: the AdmissionGatedBy gate is off by default",
        "VAL-CFG-1: the Configuration is decoded against v0.18's Go types (no multiKueue.clusterProfile."
        "accessProviders or incrementalDispatcherConfig, no DRA capacity sources, no tls.curvePreferences, no custom "
        "label sourceKind or trackedValues); the validation rules checked are the reference's",
    )),
    Release("v0.17.8", "818686e072da52af3564ba21f37f826fe05190af", "kueue-v0.17.8", (
        _SCHEMA_V019 + "; at most 8 pod sets per Workload; no ClusterQueue concurrentAdmissionPolicy and no "
        "MultiKueueConfig quotaManagement (SCHEMA-UNKNOWN-FIELD); pod templates have workloadRef, not "
        "schedulingGroup",
        "webhook rules v0.17 does not have: VAL-WL-6 (negative requests), VAL-WL-7 (pod template labels and "
        "annotations), VAL-WL-16 (slice sizes), the elastic-job half of VAL-WL-4, VAL-JOB-5",
        "VAL-WL-5 checks containers' requests only (not limits, not pod-level resources); VAL-WL-12 does not require "
        "status.admission while QuotaReserved is true",
        "VAL-WL-15 not checked: the AdmissionGatedBy gate is off by default",
        "VAL-CFG-1: the Configuration is decoded against v0.17's Go types (v0.18's differences, and no "
        "resources.quotaCheckStrategy nor DRA sources); the validation rules checked are the reference's",
    )),
)


# --- what a release's webhooks do not say ---------------------------------------------------------------------


def _elastic_half(finding: Finding) -> bool:
    return finding.rule_id == "VAL-WL-4" and "elastic job" in finding.message


def _beyond_container_requests(finding: Finding) -> bool:
    """VAL-WL-5 on limits or on pod-level resources (``template.spec.resources``): v0.17's validateContainer looked
    at containers' requests only."""
    path = finding.path
    pod_level = len(path) >= 4 and path[-3] == "resources" and path[-4] == "spec"
    return finding.rule_id == "VAL-WL-5" and ("limits" in path or pod_level)


def _admission_required(finding: Finding) -> bool:
    return finding.rule_id == "VAL-WL-12" and finding.path == ("status", "admission")


def _rules(*names: str) -> Callable[[Finding], bool]:
    return functools.partial(_one_of, frozenset(names))


def _one_of(names: frozenset[str], finding: Finding) -> bool:
    return finding.rule_id in names


@dataclass(frozen=True)
class WebhookDifferences:
    dropped: tuple[Callable[[Finding], bool], ...] = ()  # the reference's findings this release does not make
    added: tuple[Callable[[dict[str, Any], str], Iterator[Finding]], ...] = ()  # findings only this release makes


def vwl17_negative_sub_group_count_is_deprecated(body: dict[str, Any], kind: str) -> Iterator[Finding]:
    """v0.19's ``warningsForWorkload``: an admission warning for each negative subGroupCount (v1beta2 form)."""
    group, version = split_api_version(str(body.get("apiVersion", "")))
    if kind != "Workload" or group != GROUP or version != "v1beta2":
        return
    spec = body.get("spec")
    pod_sets = spec.get("podSets") if isinstance(spec, dict) else None
    for i, pod_set in enumerate(pod_sets if isinstance(pod_sets, list) else []):
        request = pod_set.get("topologyRequest") if isinstance(pod_set, dict) else None
        value = request.get("subGroupCount") if isinstance(request, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            yield warning("VAL-WL-17", ("spec", "podSets", i, "topologyRequest", "subGroupCount"),
                          f"negative value {value} is deprecated and will be rejected in a future release",
                          "use 0 or a positive count: later Kueue releases reject a negative one")


_GATED_OFF = _rules("VAL-WL-15")  # AdmissionGatedBy: beta and on from v0.19
WEBHOOKS: dict[str, WebhookDifferences] = {
    "v0.19.2": WebhookDifferences(added=(vwl17_negative_sub_group_count_is_deprecated,)),
    "v0.18.6": WebhookDifferences(dropped=(_GATED_OFF,)),
    "v0.17.8": WebhookDifferences(dropped=(_GATED_OFF, _rules("VAL-WL-6", "VAL-WL-7", "VAL-WL-16", "VAL-JOB-5"),
                                           _elastic_half, _beyond_container_requests, _admission_required)),
}


def release_webhooks(version: str, body: dict[str, Any], kind: str) -> list[Finding]:
    """The validating webhooks of the release ``version``: the reference's, minus and plus its differences."""
    differences = WEBHOOKS[version]
    found = [f for f in webhooks(body, kind) if not any(drops(f) for drops in differences.dropped)]
    for rule in differences.added:
        found.extend(rule(body, kind))
    return found


def for_release(release: Release, profile: ValidationProfile = PROFILE) -> ValidationProfile:
    """Kueue's profile checking against ``release``'s schemas and webhooks."""
    if release.reference:
        return profile
    return replace(profile, schema_release=release.schema, webhooks=functools.partial(release_webhooks,
                                                                                       release.version),
                   inspect=functools.partial(inspect_for_release, release.version))
