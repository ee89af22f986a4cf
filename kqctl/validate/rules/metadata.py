"""Kubernetes ``metadata`` rules the API server applies to every object on create.

Mirrors ``ValidateObjectMetaAccessor`` (``k8s.io/apimachinery/pkg/api/validation/objectmeta.go``).
Rule IDs: the spec names the ClusterQueue and Cohort name rules (VAL-CQ-1, VAL-CO-1); the rest
have no ID there and use ``VAL-META-n``:

* VAL-META-1 object name (``name`` / ``generateName``) for the other kinds, and the Job name
  that must also fit in its pods' ``job-name`` label;
* VAL-META-2 namespace (a *warning* on cluster-scoped kinds: the API server silently clears it,
  although ``ValidateObjectMeta`` alone would say Forbidden);
* VAL-META-3 labels, VAL-META-4 annotations, VAL-META-5 finalizers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from kqctl.findings import Finding, Severity
from kqctl.k8s.kinds import KindInfo
from kqctl.k8s.names import (
    FieldError,
    forbidden,
    go_json,
    go_quote,
    invalid,
    is_label_value,
    is_qualified_name,
    name_is_dns1123_label,
    name_is_dns1123_subdomain,
    required,
    validate_annotations,
    validate_labels,
)
from kqctl.validate.fields import Body, Rule, child, finding, findings, sequence, text

NameFn = Callable[[str, bool], list[str]]

# Kinds whose name rule has an ID of its own in the spec.
_NAME_RULE_IDS = {"ClusterQueue": "VAL-CQ-1", "Cohort": "VAL-CO-1"}
# Namespace names are DNS labels; every other kind kqctl reads uses DNS subdomains.
_NAME_FNS: dict[str, NameFn] = {"Namespace": name_is_dns1123_label}
# Kinds that are configuration files rather than API objects get no metadata rules.
_NOT_API_OBJECTS = {"Configuration"}

# ValidateObjectMeta's own text, plus what actually happens on create (BeforeCreate clears it).
_CLUSTER_SCOPED_NAMESPACE_MSG = "not allowed on this type (the API server drops it on create)"
_ORPHAN_FINALIZER = "orphan"
_FOREGROUND_FINALIZER = "foregroundDeletion"


def object_name_errors(body: Body, name_fn: NameFn) -> list[FieldError]:
    """``generateName`` (as a prefix) and ``name`` checks; a missing name needs generateName."""
    meta = child(body, "metadata")
    errs: list[FieldError] = []
    generate_name = text(child(meta, "generateName"))
    if generate_name:
        errs.extend(
            invalid(("metadata", "generateName"), go_quote(generate_name), msg)
            for msg in name_fn(generate_name, True)
        )
    raw_name = child(meta, "name")
    if raw_name is None or raw_name == "":
        if not generate_name:
            errs.append(required(("metadata", "name"), "name or generateName is required"))
    elif isinstance(raw_name, str):
        errs.extend(
            invalid(("metadata", "name"), go_quote(raw_name), msg) for msg in name_fn(raw_name, False)
        )
    return errs


def name_rule(kind: str) -> Rule:
    rule_id = _NAME_RULE_IDS.get(kind, "VAL-META-1")
    name_fn = _NAME_FNS.get(kind, name_is_dns1123_subdomain)

    def vmeta_name_is_valid(body: Body) -> Iterator[Finding]:
        yield from findings(
            rule_id,
            object_name_errors(body, name_fn),
            "names are lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
        )

    return vmeta_name_is_valid


def vmeta1_job_name_fits_pod_label(body: Body) -> Iterator[Finding]:
    """A Job's name is copied into its pod template's ``job-name`` labels, so it must be a label value."""
    name = text(child(body, "metadata", "name"))
    if not name:
        return
    for msg in is_label_value(name):
        yield finding(
            "VAL-META-1",
            invalid(("spec", "template", "labels"), go_quote(name), msg),
            "Job names longer than 63 characters are rejected: the pods get a job-name label",
        )


def vmeta2_namespace_on_cluster_scoped_kind(body: Body) -> Iterator[Finding]:
    namespace = text(child(body, "metadata", "namespace"))
    if namespace:
        yield finding(
            "VAL-META-2",
            forbidden(("metadata", "namespace"), _CLUSTER_SCOPED_NAMESPACE_MSG),
            "this kind is cluster-scoped: the API server drops the namespace; remove it",
            Severity.WARNING,
        )


def vmeta2_namespace_is_dns_label(body: Body) -> Iterator[Finding]:
    namespace = text(child(body, "metadata", "namespace"))
    if namespace:
        errs = [
            invalid(("metadata", "namespace"), go_quote(namespace), msg)
            for msg in name_is_dns1123_label(namespace)
        ]
        yield from findings(
            "VAL-META-2", errs, "namespace names are DNS labels (at most 63 characters, no dots)"
        )


def vmeta3_labels_are_valid(body: Body) -> Iterator[Finding]:
    labels = child(body, "metadata", "labels")
    if isinstance(labels, dict):  # dict, not Mapping: the loader builds dicts, and the ABC check is slow
        yield from findings("VAL-META-3", validate_labels(labels, ("metadata", "labels")))


def vmeta4_annotations_are_valid(body: Body) -> Iterator[Finding]:
    annotations = child(body, "metadata", "annotations")
    if isinstance(annotations, dict):
        yield from findings("VAL-META-4", validate_annotations(annotations, ("metadata", "annotations")))


def vmeta5_finalizers_are_valid(body: Body) -> Iterator[Finding]:
    finalizers = [f for f in sequence(child(body, "metadata", "finalizers")) if isinstance(f, str)]
    path = ("metadata", "finalizers")
    for name in finalizers:
        yield from findings(
            "VAL-META-5", [invalid(path, go_quote(name), msg) for msg in is_qualified_name(name)]
        )
    if _ORPHAN_FINALIZER in finalizers and _FOREGROUND_FINALIZER in finalizers:
        msg = f"finalizer {_ORPHAN_FINALIZER} and {_FOREGROUND_FINALIZER} cannot be both set"
        yield finding("VAL-META-5", invalid(path, go_json(finalizers), msg))


@functools.cache
def metadata_rules_for(info: KindInfo | None) -> tuple[Rule, ...]:
    """The metadata rules for a kind; nothing for kinds kqctl does not know (built once per kind)."""
    if info is None or info.kind in _NOT_API_OBJECTS or not info.api_object:
        return ()
    kind = info.kind
    scope_rule = vmeta2_namespace_is_dns_label if info.namespaced else vmeta2_namespace_on_cluster_scoped_kind
    rules: list[Rule] = [name_rule(kind), scope_rule]
    if (info.group, kind) == ("batch", "Job"):
        rules.append(vmeta1_job_name_fits_pod_label)
    rules += [vmeta3_labels_are_valid, vmeta4_annotations_are_valid, vmeta5_finalizers_are_valid]
    return tuple(rules)
