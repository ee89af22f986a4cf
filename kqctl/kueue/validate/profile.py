"""Kueue's part of ``kqctl validate``: legacy versions, its mutating and validating webhooks, XO checks."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from typing import Any

from kqctl.findings import Finding, Severity, error
from kqctl.k8s.kinds import split_api_version
from kqctl.kueue.kinds import CONFIG_GROUP, GROUP, KINDS, MANAGER_CONFIG_MAP
from kqctl.kueue.validate import crossobject
from kqctl.kueue.validate.rules import run_rules, webhook_rules_for
from kqctl.kueue.validate.webhook_defaults import RULE_DECODE, apply_mutating_webhooks
from kqctl.load.objects import LoadedObject
from kqctl.validate.profile import LegacyConversion, ValidationProfile

# Kinds that go through one of Kueue's mutating webhooks before validation (DEF-3).
_MUTATED_KINDS = {"ClusterQueue", "ResourceFlavor", "Workload"}
_LEGACY_VERSIONS = {"v1alpha1", "v1alpha2"}
# v1beta1 spells a few v1beta2 fields differently (API-1); webhook findings are computed on the
# v1beta2 form and pointed back at the field the user wrote.
_V1BETA1_FIELD_NAMES = {"cohortName": "cohort"}
ONE_CONFIGURATION = "VAL-CFG-19"


def legacy(obj: LoadedObject) -> LegacyConversion | None:
    """LEG-*: alpha objects are validated as the v1beta2 objects they convert to."""
    group, version = split_api_version(obj.api_version)
    if group != GROUP or version not in _LEGACY_VERSIONS:
        return None
    from kqctl.kueue.api.versions import to_v1beta2

    conversion = to_v1beta2(obj.body)
    findings = [Finding(i.rule_id, Severity(i.severity), i.path, i.message) for i in conversion.issues]
    return LegacyConversion(conversion.body, findings, _unserved_legacy(obj))


def _unserved_legacy(obj: LoadedObject) -> Finding:
    """LEG-VERSION: no supported Kueue serves alpha versions; the API server answers "no matches"."""
    return error("LEG-VERSION", ("apiVersion",),
                 f'no matches for kind "{obj.kind}" in version "{obj.api_version}": no supported Kueue serves '
                 "it (kqctl checks its v1beta2 conversion too)",
                 f"convert it: kqctl convert -f {_convert_input(obj.origin.file)} --to v1beta2")


def _convert_input(file: str) -> str:
    """How the hint's command names the input: ``-`` for standard input, else the file, quoted for a shell."""
    return "-" if file == "<stdin>" else shlex.quote(file)


def mutate(body: dict[str, Any], kind: str) -> tuple[dict[str, Any], list[Finding]] | None:
    """DEF-3: Kueue's mutating webhooks decode, default and re-encode ClusterQueues, ResourceFlavors and
    Workloads."""
    group, _ = split_api_version(str(body.get("apiVersion", "")))
    if group != GROUP or kind not in _MUTATED_KINDS:
        return None
    return apply_mutating_webhooks(body)


def webhooks(body: dict[str, Any], kind: str) -> list[Finding]:
    """Kueue's validating webhooks judge the v1beta2 form (a v1beta1 object is converted first)."""
    group, version = split_api_version(str(body.get("apiVersion", "")))
    rules = webhook_rules_for(group, kind)
    if not rules:
        return []
    if group == GROUP and version != "v1beta2":
        from kqctl.kueue.api.versions import to_v1beta2

        return [_renamed_for_v1beta1(f) for f in run_rules(rules, to_v1beta2(body).body)]
    return run_rules(rules, body)


def inspect(obj: LoadedObject) -> list[Finding]:
    """VAL-CFG-*: Kueue's Configuration file, decoded strictly and validated as its controller-manager does, bare or
    in the ConfigMap it is deployed in (kqctl.kueue.validate.config_map)."""
    return inspect_for_release(None, obj)


def inspect_for_release(release: str | None, obj: LoadedObject) -> list[Finding]:
    """:func:`inspect` with the Go types of a released Kueue (``validate --kueue-version``; None: the reference)."""
    if obj.info == MANAGER_CONFIG_MAP:  # the Configuration as deployed, in its ConfigMap
        from kqctl.kueue.validate import config_map

        return config_map.findings(obj, release)
    if obj.info is None or obj.info.group != CONFIG_GROUP or obj.info.kind != "Configuration":
        return []
    from kqctl.kueue.validate.configuration import check_configuration

    return check_configuration(obj.body, release)


# The kinds the XO checks read; the Configurations are counted in any input that may hold one.
_CROSS_OBJECT_KINDS = frozenset({info.kind for info in KINDS} | {"Job", "Queue"})


def cross_object(objects: Sequence[LoadedObject], closed: bool) -> list[tuple[LoadedObject, Finding]]:
    """The XO checks, when a Kueue kind is there (a ConfigMap alone may be another scheduler's), and VAL-CFG-19."""
    found = one_configuration(objects)
    if any(obj.kind in _CROSS_OBJECT_KINDS for obj in objects):
        found.extend(crossobject.cross_object_findings(objects, closed))
    return found


def one_configuration(objects: Sequence[LoadedObject]) -> list[tuple[LoadedObject, Finding]]:
    """VAL-CFG-19: Kueue's manager reads one Configuration file; two in one input (bare, or in the ConfigMap it is
    deployed in) are refused by every command rather than one picked silently."""
    configurations = [obj for obj in objects if obj.info is not None and (
        (obj.info.group == CONFIG_GROUP and obj.info.kind == "Configuration") or obj.info == MANAGER_CONFIG_MAP)]
    if len(configurations) < 2:
        return []
    first = configurations[0]
    what = f"ConfigMap {first.namespace}/{first.name}" if first.info == MANAGER_CONFIG_MAP else "a Configuration"
    return [(obj, error(ONE_CONFIGURATION, (), f"a second Kueue manager Configuration: {what} at {first.origin} is "
                        "one too, and Kueue's manager reads one", "keep only the one deployed in the input"))
            for obj in configurations[1:]]


def _renamed_for_v1beta1(finding: Finding) -> Finding:
    path = tuple(_V1BETA1_FIELD_NAMES.get(p, p) if isinstance(p, str) else p for p in finding.path)
    return dataclasses.replace(finding, path=path)


PROFILE = ValidationProfile(
    scheduler="kueue",
    groups=frozenset({GROUP, CONFIG_GROUP}),
    legacy=legacy,
    mutate=mutate,
    kept_in_status=frozenset({RULE_DECODE}),
    webhooks=webhooks,
    cross_object=cross_object,
    # Every XO check is about a Kueue object or a Job (XO-JOB-PRIORITY); "Queue" is LocalQueue's old name. A
    # ConfigMap may hold Kueue's Configuration (VAL-CFG-19).
    cross_object_needs=_CROSS_OBJECT_KINDS | {"ConfigMap"},
    # A Workload's XO findings (XO-WL-LQ, XO-WL-PRIORITY, XO-WL-UNCOVERED, XO-WL-NEVER-FITS) read only the workload
    # and the queues, flavors, cohorts and priority classes; no check of another object reads a Workload.
    cross_object_subjects=crossobject.SUBJECT_KINDS,
    # XO findings are kqctl's knowledge (warnings and infos); only --closed makes a missing reference an error.
    # Two Configurations are an error the gate refuses (VAL-CFG-19).
    cross_object_refusals=one_configuration,
    trim=crossobject.trimmed,
    inspect=inspect,
)
