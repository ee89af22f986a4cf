"""``kqctl validate``: every object through the steps a real API server with Kueue takes on create.

DEF-3 order: schema defaulting, Kueue's mutating webhooks (ClusterQueue, ResourceFlavor,
Workload), OpenAPI schema with strict field validation, CEL rules (skipped when the schema
failed), Kueue's validating webhooks; then the cross-object checks no server makes (XO).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from kqctl.api.kinds import KUEUE_GROUP, split_api_version
from kqctl.api.kueue.defaults import RULE_DECODE
from kqctl.api.origin import Origin
from kqctl.errors import InputError
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.validate.findings import Finding, Severity, error
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.schema import UNKNOWN_FIELD

# Kinds that go through one of Kueue's mutating webhooks before validation (DEF-3).
_MUTATED_KINDS = {"ClusterQueue", "ResourceFlavor", "Workload"}
_LEGACY_VERSIONS = {"v1alpha1", "v1alpha2"}
# v1beta1 spells a few v1beta2 fields differently (API-1); webhook findings are computed on the
# v1beta2 form and pointed back at the field the user wrote.
_V1BETA1_FIELD_NAMES = {"cohortName": "cohort"}


def validate_load(result: LoadResult, closed: bool = False) -> ValidationReport:
    """Validate every loaded object, then the set of them as a whole."""
    from kqctl.validate.crossobject import cross_object_findings

    findings: dict[int, list[Finding]] = {}
    for obj in result.objects:
        found = list(obj.findings)
        if obj.known and not has_error(found):
            found.extend(validate_object(obj))
        findings[id(obj)] = found
    for obj, finding in cross_object_findings(result.known_objects, closed):
        findings[id(obj)].append(finding)
    documents = [report_for(obj, findings[id(obj)]) for obj in result.objects]
    documents.extend(unreadable_report(exc) for exc in result.unreadable)
    position = {name: i for i, name in enumerate(result.files)}
    documents.sort(key=lambda d: position.get(d.origin.file, len(position)))  # stable: file order
    return ValidationReport(documents)


def validate_object(obj: LoadedObject) -> list[Finding]:
    """The per-object steps of DEF-3, in the API server's order."""
    group, version = split_api_version(obj.api_version)
    body: dict[str, Any] = obj.body
    findings: list[Finding] = []
    api_version, kind = obj.api_version, obj.kind
    unserved: list[Finding] = []
    if group == KUEUE_GROUP and version in _LEGACY_VERSIONS:
        unserved = [_unserved_legacy(obj)]
        body, api_version, kind, legacy = _convert_legacy(body)
        findings.extend(legacy)
        if has_error(legacy):
            return findings + unserved
    body, steps = _server_steps(body, api_version, kind)
    findings.extend(steps)
    if not has_error(findings):
        # Validating webhooks only see objects the API server itself accepted.
        findings.extend(_webhook_findings(body, kind))
    # The conversion's own findings come first: they are what `kqctl convert` would produce.
    return _status_ignored_on_create(findings) + unserved


def _unserved_legacy(obj: LoadedObject) -> Finding:
    """LEG-VERSION: no supported Kueue serves alpha versions; the API server answers "no matches"."""
    return error("LEG-VERSION", ("apiVersion",),
                 f'no matches for kind "{obj.kind}" in version "{obj.api_version}": no supported Kueue serves '
                 "it (kqctl checks its v1beta2 conversion too)",
                 f"convert it: kqctl convert -f {_convert_input(obj.origin.file)} --to v1beta2")


def _convert_input(file: str) -> str:
    """How the hint's command names the input: ``-`` for standard input, else the file, quoted for a shell."""
    return "-" if file == "<stdin>" else shlex.quote(file)


def _status_ignored_on_create(findings: list[Finding]) -> list[Finding]:
    """The API server drops ``status`` when it creates an object of a kind with a status subresource:
    problems there are information, not errors. Not so for Kueue's mutating webhooks, which run before the
    status is dropped and deny an object whose status they cannot decode (DEF-3-DECODE), nor for kinds
    without status (ResourceFlavor, PriorityClass, ...), where ``status`` is an unknown field."""
    result = []
    for finding in findings:
        if _in_status(finding) and finding.severity is not Severity.INFO and not _kept_on_create(finding):
            finding = Finding(finding.rule_id, Severity.INFO, finding.path,
                              f"{finding.message} (status is ignored when the object is created)", finding.hint,
                              finding.line, finding.related)
        result.append(finding)
    return result


def _kept_on_create(finding: Finding) -> bool:
    return finding.rule_id == RULE_DECODE or (finding.rule_id == UNKNOWN_FIELD and finding.path == ("status",))


def _server_steps(body: dict[str, Any], api_version: str, kind: str) -> tuple[dict[str, Any], list[Finding]]:
    """Defaulting, mutation, schema and CEL; returns the object as the server would hold it."""
    from kqctl.api.kueue.defaults import apply_mutating_webhooks
    from kqctl.validate.cel import validate_cel
    from kqctl.validate.rules import run_metadata_rules
    from kqctl.validate.schema import apply_schema_defaults, has_schema, validate_schema

    if not has_schema(api_version, kind):
        return body, run_metadata_rules(kind, body)
    group, _ = split_api_version(api_version)
    defaulted = apply_schema_defaults(body, api_version, kind)
    findings: list[Finding] = []
    if group == KUEUE_GROUP and kind in _MUTATED_KINDS:
        defaulted, decoding = apply_mutating_webhooks(defaulted)
        findings.extend(decoding)
        if has_error(decoding):
            return defaulted, findings  # the webhook rejected it while decoding: nothing else runs
        # The API server defaults again after a mutating webhook changed the object; the webhook's
        # re-encoding drops empty strings, which the CRD defaults then fill in.
        defaulted = apply_schema_defaults(defaulted, api_version, kind)
    # The API server reports metadata and schema errors together, before CEL.
    raw_schema_findings = validate_schema(defaulted, api_version, kind) + run_metadata_rules(kind, defaulted)
    schema_findings = _status_ignored_on_create(raw_schema_findings)
    findings.extend(schema_findings)
    if any(_in_status(f) and f.severity is Severity.ERROR for f in raw_schema_findings):
        # The server drops status before its schema, CEL and validating webhooks see the object: a malformed
        # status stops nothing, and the later steps never see it.
        defaulted = {key: value for key, value in defaulted.items() if key != "status"}
    if not has_error(schema_findings):
        findings.extend(validate_cel(defaulted, api_version, kind))
    return defaulted, findings


def _in_status(finding: Finding) -> bool:
    return finding.path[:1] == ("status",)


def _webhook_findings(body: dict[str, Any], kind: str) -> list[Finding]:
    """Kueue's validating webhooks judge the v1beta2 form (a v1beta1 object is converted first)."""
    from kqctl.api.kueue.versions import to_v1beta2
    from kqctl.validate.rules import run_webhook_rules

    group, version = split_api_version(str(body.get("apiVersion", "")))
    if group == KUEUE_GROUP and version != "v1beta2":
        body = to_v1beta2(body).body
        return [_renamed_for_v1beta1(f) for f in run_webhook_rules(kind, body, include_metadata=False)]
    return run_webhook_rules(kind, body, include_metadata=False)


def _renamed_for_v1beta1(finding: Finding) -> Finding:
    path = tuple(_V1BETA1_FIELD_NAMES.get(p, p) if isinstance(p, str) else p for p in finding.path)
    return Finding(finding.rule_id, finding.severity, path, finding.message, finding.hint,
                   finding.line, finding.related)


def _convert_legacy(body: dict[str, Any]) -> tuple[dict[str, Any], str, str, list[Finding]]:
    """LEG-*: alpha objects are validated as the v1beta2 objects they convert to."""
    from kqctl.api.kueue.versions import to_v1beta2

    conversion = to_v1beta2(body)
    findings = [Finding(i.rule_id, Severity(i.severity), i.path, i.message) for i in conversion.issues]
    converted = conversion.body
    return converted, str(converted.get("apiVersion", "")), str(converted.get("kind", "")), findings


def report_for(obj: LoadedObject, findings: list[Finding]) -> DocumentReport:
    """A document's report, findings located and in line order."""
    namespace = obj.namespace if obj.info is None or obj.info.namespaced else None
    if obj.info is None:
        raw = obj.metadata.get("namespace")
        namespace = raw if isinstance(raw, str) else None
    located_findings = sorted((located(obj, f) for f in findings), key=finding_order)
    return DocumentReport(obj.origin, obj.api_version, obj.kind, namespace, obj.name, located_findings)


def located(obj: LoadedObject, finding: Finding) -> Finding:
    return finding if finding.line is not None else with_line(finding, obj.line_of(finding.path))


def with_line(finding: Finding, line: int) -> Finding:
    return Finding(finding.rule_id, finding.severity, finding.path, finding.message, finding.hint, line,
                   finding.related)


def finding_order(finding: Finding) -> tuple[int, int, str]:
    return (finding.line or 0, -finding.severity.rank, finding.rule_id)


def unreadable_report(exc: InputError) -> DocumentReport:
    origin = Origin(exc.file, exc.index or 0, exc.line or 1)
    finding = Finding("LOAD-UNREADABLE", Severity.ERROR, (), exc.detail, None, exc.line or 1)
    return DocumentReport(origin, "", "", None, None, [finding])


def has_error(findings: Iterable[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)
