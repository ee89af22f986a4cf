"""``kqctl validate``: every object through the steps a real API server takes on create.

DEF-3 order: schema defaulting, the scheduler's mutating webhooks (Kueue: ClusterQueue, ResourceFlavor,
Workload), OpenAPI schema with strict field validation, CEL rules (skipped when the schema failed), the
validating webhooks; then the cross-object checks no server makes. What is a scheduler's own comes from
its :class:`~kqctl.validate.profile.ValidationProfile`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kqctl.errors import InputError
from kqctl.findings import Finding, Severity
from kqctl.k8s.kinds import KindInfo, split_api_version
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import Origin
from kqctl.validate import alike
from kqctl.validate.cel import validate_cel
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.rules import run_core_rules, run_metadata_rules
from kqctl.validate.schema import UNKNOWN_FIELD, has_schema, schema_defaulted, validate_schema
from kqctl.validate.skip import Skipping

NOTHING_SKIPPED = Skipping()

# How a finding about a written status ends: the create drops status, so it refuses nothing.
IGNORED_ON_CREATE = "ignored when the object is created)"


def validate_load(result: LoadResult, profiles: Sequence[ValidationProfile], closed: bool = False,
                  skipping: Skipping = NOTHING_SKIPPED) -> ValidationReport:
    """Validate every loaded object, then the set of them as a whole (except what ``skipping`` skips)."""
    findings: dict[int, list[Finding]] = {}
    skipped: dict[int, str] = {}
    for obj in result.objects:
        reason = skipping.reason(obj) if skipping else None
        if reason is not None:
            skipped[id(obj)] = reason
            findings[id(obj)] = []
            continue
        found = list(obj.findings)
        if obj.known and not has_error(found):
            found.extend(validate_object(obj, profiles))
        findings[id(obj)] = found
    known = result.known_objects
    for profile in profiles:
        for obj, finding in profile.cross_object(seen_by(profile, known), closed):
            if id(obj) not in skipped:  # a skipped object is referred to, never reported on
                findings[id(obj)].append(finding)
    documents = [skipped_report(obj, skipped[id(obj)]) if id(obj) in skipped
                 else report_for(obj, _naming_set(obj, findings[id(obj)]), profiles) for obj in result.objects]
    documents.extend(unreadable_report(exc) for exc in result.unreadable)
    position = {name: i for i, name in enumerate(result.files)}
    documents.sort(key=lambda d: position.get(d.origin.file, len(position)))  # stable: file order
    return ValidationReport(documents)


def seen_by(profile: ValidationProfile, objects: list[LoadedObject]) -> list[LoadedObject]:
    """The objects a scheduler's cross-object checks read: not the pods of a kqctl snapshot saved for another
    scheduler (they are other pods on its nodes, and this scheduler's configuration was not read with them)."""
    if not any(obj.read_for is not None for obj in objects):
        return objects
    return [obj for obj in objects if obj.read_for in (None, profile.scheduler) or obj.kind != "Pod"]


def _naming_set(obj: LoadedObject, findings: list[Finding]) -> list[Finding]:
    """A finding on a value a --set wrote says so: the file's line holds another value."""
    if not obj.overridden:
        return findings
    named = []
    for finding in findings:
        source = obj.set_source(finding)
        if source is not None:
            finding = replace(finding, message=f"{finding.message} ({source})")
        named.append(finding)
    return named


def validate_object(obj: LoadedObject, profiles: Sequence[ValidationProfile]) -> list[Finding]:
    """The per-object steps of DEF-3, in the API server's order."""
    return check_object(obj, profiles).findings


@dataclass(frozen=True)
class ObjectCheck:
    """What the API server makes of one object on create: its findings, and the object it would store."""

    findings: list[Finding]
    # The object as the server holds it once created: a legacy version converted, CRD defaults and the
    # scheduler's mutating webhooks applied, ``status`` kept as written (a snapshot's record of the cluster).
    stored: dict[str, Any]
    # The written status has problems that a create ignores (the server drops status): not the cluster's state.
    status_ignored: bool = False
    # The API server's "no matches for kind ... in version" for a version nobody serves any more (also in
    # ``findings``): what `kqctl convert` cures, so it is the one refusal convert does not make.
    unserved: tuple[Finding, ...] = ()
    # The same for every object written alike but for its name, uid and creation time (kqctl.validate.alike):
    # a reader of ``stored`` may share its work between them. None: not shared.
    alike: bytes | None = None


def check_object(obj: LoadedObject, profiles: Sequence[ValidationProfile]) -> ObjectCheck:
    """The per-object steps of DEF-3, in the API server's order, and the object they leave (shared by the objects
    written alike: kqctl.validate.alike)."""
    assert obj.info is not None
    key = alike.key_of(obj, profiles)
    if key is not None:
        recalled = alike.recall(key, obj)
        if recalled is not None:
            return ObjectCheck([], recalled[0], alike=recalled[1])
    check = _checked(obj, profiles)
    if key is not None and not check.findings and not check.status_ignored and not check.unserved:
        digest = alike.keep(key, obj, profiles, check.stored)
        if digest is not None:
            return replace(check, alike=digest)
    return check


def _checked(obj: LoadedObject, profiles: Sequence[ValidationProfile]) -> ObjectCheck:
    assert obj.info is not None
    body: dict[str, Any] = obj.body
    findings: list[Finding] = []
    unserved: list[Finding] = []
    owner = _owner(obj.info, profiles)
    legacy = owner.legacy(obj) if owner is not None else None
    if legacy is not None:
        unserved = [legacy.unserved]
        body = legacy.body
        findings.extend(legacy.findings)
        if has_error(legacy.findings):
            return ObjectCheck(findings + unserved, body, unserved=tuple(unserved))
    kind = str(body.get("kind", ""))
    release = owner.schema_release if owner is not None else None
    body, steps = _server_steps(body, str(body.get("apiVersion", "")), kind, obj.info, profiles, release)
    findings.extend(steps)
    if not has_error(findings):
        # Validating webhooks only see objects the API server itself accepted.
        # Validating admission runs after the server dropped the status of a kind that has a status subresource.
        findings.extend(_webhook_findings(_without_status(body) if _drops_status(obj.info) else body, kind,
                                          profiles))
        if owner is not None:
            findings.extend(owner.inspect(obj))
    # The conversion's own findings come first: they are what `kqctl convert` would produce.
    judged = _status_ignored_on_create(findings, profiles, obj.info) + unserved
    return ObjectCheck(judged, body, any(status_ignored(f) for f in judged), tuple(unserved))


def status_ignored(finding: Finding) -> bool:
    """A problem of the written status, which a create ignores (as information)."""
    return finding.severity is Severity.INFO and finding.message.endswith(IGNORED_ON_CREATE)


def _without_status(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "status"} if "status" in body else body


# Status fields the API server stores on create, by kind: the kubelet registers a Node with its capacity and
# allocatable (what every scheduler's snapshot reads of it), so a quantity there that does not parse is an
# error like any other. The rest of a Node's status stays information (newer fields than kqctl's schema).
_STATUS_KEPT_ON_CREATE = {("", "Node"): (("status", "allocatable"), ("status", "capacity"))}


def _kept_in_stored_status(finding: Finding, info: KindInfo | None) -> bool:
    if info is not None and not info.status_subresource:
        return True  # no status subresource: the whole status is stored (and checked) on create
    kept = _STATUS_KEPT_ON_CREATE.get((info.group, info.kind), ()) if info is not None else ()
    return any(finding.path[:len(prefix)] == prefix for prefix in kept)


def _owner(info: KindInfo, profiles: Sequence[ValidationProfile]) -> ValidationProfile | None:
    for profile in profiles:
        if profile.reads(info.scheduler, info.group):
            return profile
    return None


def _status_ignored_on_create(findings: list[Finding], profiles: Sequence[ValidationProfile],
                              info: KindInfo | None = None) -> list[Finding]:
    """The API server drops ``status`` when it creates an object of a kind with a status subresource:
    problems there are information, not errors. Not so for a scheduler's mutating webhooks, which run before
    the status is dropped and deny an object whose status they cannot decode (Kueue: DEF-3-DECODE), nor for
    kinds without status (ResourceFlavor, PriorityClass, ...), where ``status`` is an unknown field."""
    if not findings:
        return findings
    kept = frozenset().union(*(p.kept_in_status for p in profiles))
    result = []
    for finding in findings:
        if _in_status(finding) and finding.severity is not Severity.INFO and not _kept_on_create(finding, kept) \
                and not _kept_in_stored_status(finding, info):
            finding = replace(finding, severity=Severity.INFO,
                                          message=f"{finding.message} (status is {IGNORED_ON_CREATE}")
        result.append(finding)
    return result


def _kept_on_create(finding: Finding, kept: frozenset[str]) -> bool:
    return finding.rule_id in kept or (finding.rule_id == UNKNOWN_FIELD and finding.path == ("status",))


def _server_steps(body: dict[str, Any], api_version: str, kind: str, info: KindInfo,
                  profiles: Sequence[ValidationProfile],
                  release: str | None = None) -> tuple[dict[str, Any], list[Finding]]:
    """Defaulting, mutation, schema and CEL; returns the object as the server would hold it (with the CRD
    schemas of ``release``, a released version of the object's scheduler; None: the reference version)."""
    if not has_schema(api_version, kind, release):
        return body, run_metadata_rules(info, body)
    # Defaulted without copying: from here on the object is only read (the webhook codec builds its own).
    defaulted = schema_defaulted(body, api_version, kind, release)
    findings: list[Finding] = []
    mutated = _mutated(defaulted, kind, info, profiles)
    if mutated is not None:
        changed, decoding = mutated
        findings.extend(decoding)
        if has_error(decoding):
            return defaulted, findings  # the webhook rejected it while decoding: nothing else runs
        if changed is not defaulted:
            # The API server defaults again after a mutating webhook changed the object.
            defaulted = schema_defaulted(changed, api_version, kind, release)
    # The API server reports metadata and schema errors together, before CEL.
    raw_schema_findings = validate_schema(defaulted, api_version, kind, release) + run_metadata_rules(info, defaulted)
    schema_findings = _status_ignored_on_create(raw_schema_findings, profiles, info)
    findings.extend(schema_findings)
    if not has_error(schema_findings):
        # A status the schema already refuses is dropped unread: CEL never sees it.
        status_read = not any(_in_status(f) and f.severity is Severity.ERROR for f in raw_schema_findings)
        findings.extend(_cel_on_create(defaulted, api_version, kind, info, status_read, release))
    return defaulted, findings


def _cel_on_create(body: dict[str, Any], api_version: str, kind: str, info: KindInfo,
                   status_read: bool, release: str | None) -> list[Finding]:
    """CEL sees the object after the server dropped its status (BeforeCreate's PrepareForCreate runs before
    the strategy's validation), so a rule that reads status cannot refuse a create. A rule the written status
    alone breaks is told as information: the status is not what the cluster would hold."""
    if "status" not in body or not _drops_status(info):
        return validate_cel(body, api_version, kind, release)
    created = validate_cel(_without_status(body), api_version, kind, release)
    if not status_read:
        return created
    seen = {(f.rule_id, f.path, f.message) for f in created}
    broken_by_status = [
        replace(f, severity=Severity.INFO,
                            message=f"{f.message} (only because of the written status, which is {IGNORED_ON_CREATE}")
        for f in validate_cel(body, api_version, kind, release)
        if (f.rule_id, f.path, f.message) not in seen and f.severity is Severity.ERROR]
    return created + broken_by_status


def _drops_status(info: KindInfo) -> bool:
    """Whether a create drops this kind's status (a status subresource; a PodGroup has none); the Node's is kept
    (the kubelet's)."""
    return info.status_subresource and (info.group, info.kind) not in _STATUS_KEPT_ON_CREATE


def _mutated(body: dict[str, Any], kind: str, info: KindInfo,
             profiles: Sequence[ValidationProfile]) -> tuple[dict[str, Any], list[Finding]] | None:
    owner = _owner(info, profiles)
    return owner.mutate(body, kind) if owner is not None else None


def _in_status(finding: Finding) -> bool:
    return finding.path[:1] == ("status",)


def _webhook_findings(body: dict[str, Any], kind: str, profiles: Sequence[ValidationProfile]) -> list[Finding]:
    """The API server's own rules for core kinds, then every scheduler's validating webhooks for the kind."""
    group, _ = split_api_version(str(body.get("apiVersion", "")))
    findings = run_core_rules(group, kind, body)
    for profile in profiles:
        findings.extend(profile.webhooks(body, kind))
    return findings


def report_for(obj: LoadedObject, findings: list[Finding],
               profiles: Sequence[ValidationProfile] = ()) -> DocumentReport:
    """A document's report, findings located and in line order, with what its scheduler will use of it."""
    namespace = obj.namespace if obj.info is None or obj.info.namespaced else None
    if obj.info is None:
        raw = obj.metadata.get("namespace")
        namespace = raw if isinstance(raw, str) else None
    located_findings = sorted((located(obj, f) for f in findings), key=finding_order) if findings else []
    report = DocumentReport(obj.origin, obj.api_version, obj.kind, namespace, obj.name, located_findings)
    owner = _owner(obj.info, profiles) if obj.info is not None else None
    if owner is not None and not has_error(obj.findings):
        report.effective = owner.effective(obj)
    return report


def located(obj: LoadedObject, finding: Finding) -> Finding:
    return finding if finding.line is not None else with_line(finding, obj.line_of(finding.path))


def with_line(finding: Finding, line: int) -> Finding:
    return replace(finding, line=line)


def finding_order(finding: Finding) -> tuple[int, int, str]:
    return (finding.line or 0, -finding.severity.rank, finding.rule_id)


def skipped_report(obj: LoadedObject, reason: str) -> DocumentReport:
    namespace = obj.namespace if obj.info is None or obj.info.namespaced else None
    return DocumentReport(obj.origin, obj.api_version, obj.kind, namespace, obj.name, [], skipped=reason)


def unreadable_report(exc: InputError) -> DocumentReport:
    origin = Origin(exc.file, exc.index or 0, exc.line or 1)
    finding = Finding("LOAD-UNREADABLE", Severity.ERROR, (), exc.detail, None, exc.line or 1)
    return DocumentReport(origin, "", "", None, None, [finding])


def has_error(findings: Iterable[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)
