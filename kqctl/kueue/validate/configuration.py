"""Kueue's Configuration file checked as Kueue's controller-manager checks it before it starts (VAL-CFG-*).

The manager decodes the file strictly (Kueue pkg/config/config.go): a field its Go types do not declare
(VAL-CFG-1) or a value of the wrong JSON type, a number out of its Go type's range, a duration or quantity that does
not parse (VAL-CFG-2) stop it. The field tree is generated from Kueue's Go types (config_fields.py). It then
converts a v1beta1 file to v1beta2, fills in its defaults and runs its validation (pkg/config/validation.go): the
rules below are the ones decidable from the file alone, on the converted, defaulted form, so the paths are the ones
both versions share.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from kqctl.findings import Finding, error
from kqctl.k8s.names import (
    FieldError,
    duplicate,
    go_json,
    go_quote,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    not_supported,
    required,
    too_long,
    validate_label_selector,
)
from kqctl.k8s.quantity import parse_quantity
from kqctl.k8s.selectors import selector_matches
from kqctl.kueue.validate.config_fields import (
    EXTERNAL_NAMED,
    EXTERNAL_STRUCTS,
    FRAMEWORKS,
    GATE_DEPENDENCIES,
    RELEASE_DIFFERENCES,
    VERSIONS,
)
from kqctl.origin import FieldPath, format_path
from kqctl.validate.fields import findings

UNKNOWN_FIELD = "VAL-CFG-1"
WRONG_TYPE = "VAL-CFG-2"

_INT_BITS = {"int": 64, "int32": 32, "int64": 64, "time.Duration": 64}
_GO_DURATION = re.compile(r"[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)")
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def check_configuration(body: Mapping[str, Any], release: str | None = None) -> list[Finding]:
    """Every finding of the manager's strict decoding; when it decodes, every finding of its validation.
    ``release``: a released Kueue (``validate --kueue-version``) whose Go types decode the file instead of the
    reference's; its validation rules are the reference's."""
    version = str(body.get("apiVersion", "")).rsplit("/", 1)[-1]
    if version not in VERSIONS:
        return []  # an unserved version is the loader's finding
    tree = VERSIONS[version] if release is None else release_tree(release, version)
    decoding = list(_Decoder(tree).struct("Configuration", body, ()))
    if decoding:
        return decoding
    # The manager sets its feature gates first and stops there when they conflict (cmd/kueue/main.go)
    gates = list(findings("VAL-CFG-14", _feature_gate_errors(_section(body, "featureGates"))))
    if gates:
        return gates
    return list(validation_findings(defaulted_v1beta2(body)))


def release_tree(release: str, version: str) -> dict[str, Any]:
    """A released Kueue's field tree of ``version``: the reference's with the release's differences applied."""
    changes: Mapping[str, Any] = RELEASE_DIFFERENCES[release][version]
    removed = set(changes["removed"])
    tree: dict[str, Any] = {}
    for kind in ("structs", "named"):
        reference: Mapping[str, Any] = VERSIONS[version][kind]
        tree[kind] = {**{name: value for name, value in reference.items() if name not in removed}, **changes[kind]}
    return tree


# --- strict decoding (VAL-CFG-1, VAL-CFG-2) ---------------------------------------------------------


class _Decoder:
    def __init__(self, tree: Mapping[str, Any]) -> None:
        self.structs: Mapping[str, Any] = tree["structs"]
        self.named: Mapping[str, Any] = tree["named"]

    def fields_of(self, go_type: str) -> Mapping[str, str] | None:
        fields = self.structs.get(go_type)
        if isinstance(fields, Mapping):
            return fields
        return EXTERNAL_STRUCTS.get(go_type)

    def value(self, go_type: str, value: Any, path: FieldPath) -> Iterator[Finding]:
        if value is None:
            return  # null leaves the field unset
        go_type = go_type.lstrip("*")
        go_type = str(self.named.get(go_type, EXTERNAL_NAMED.get(go_type, go_type)))
        if go_type.startswith("[]"):
            if not isinstance(value, list):
                yield _wrong_type(path, value, "a list")
                return
            for index, item in enumerate(value):
                yield from self.value(go_type[2:], item, (*path, index))
        elif go_type.startswith("map["):
            if not isinstance(value, Mapping):
                yield _wrong_type(path, value, "a map (an object)")
                return
            item_type = go_type[go_type.index("]") + 1:]
            for key, item in value.items():
                yield from self.value(item_type, item, (*path, str(key)))
        elif self.fields_of(go_type) is not None:
            yield from self.struct(go_type, value, path)
        else:
            yield from _scalar(go_type, value, path)

    def struct(self, go_type: str, value: Any, path: FieldPath) -> Iterator[Finding]:
        fields = self.fields_of(go_type)
        assert fields is not None
        if not isinstance(value, Mapping):
            yield _wrong_type(path, value, "an object")
            return
        for key, item in value.items():
            name = str(key)
            if name not in fields:
                yield _unknown_field((*path, name), sorted(fields))
                continue
            yield from self.value(fields[name], item, (*path, name))


def _scalar(go_type: str, value: Any, path: FieldPath) -> Iterator[Finding]:
    if go_type == "string":
        if not isinstance(value, str):
            yield _wrong_type(path, value, "a string")
    elif go_type == "bool":
        if not isinstance(value, bool):
            yield _wrong_type(path, value, "a boolean (true or false)")
    elif go_type in _INT_BITS:
        bits = _INT_BITS[go_type]
        what = "a number of nanoseconds" if go_type == "time.Duration" else f"an integer ({go_type})"
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                (isinstance(value, float) and not value.is_integer()):
            yield _wrong_type(path, value, what)
        elif not -(2 ** (bits - 1)) <= int(value) < 2 ** (bits - 1):
            yield error(WRONG_TYPE, path, f"{value} does not fit {go_type}: expected {what}")
    elif go_type in ("float32", "float64"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            yield _wrong_type(path, value, "a number")
    elif go_type == "metav1.Duration":
        if not isinstance(value, str) or _GO_DURATION.fullmatch(value) is None:
            yield error(WRONG_TYPE, path, f"{_shown(value)} is not a duration: expected a string such as \"5m\", "
                                          "\"1h30m\" or \"90s\" (units h, m, s, ms, us, ns)")
    elif go_type == "resource.Quantity":
        try:
            parse_quantity(value if isinstance(value, str | int | float) and not isinstance(value, bool) else "?")
        except (ValueError, TypeError):
            yield error(WRONG_TYPE, path, f"{_shown(value)} is not a quantity: expected a number or a string "
                                          "such as \"500m\" or \"2Gi\"")
    else:  # pragma: no cover - a Go type the generated tree uses that this decoder does not know
        raise AssertionError(f"unknown Go type {go_type} at {format_path(path)}")


def _shown(value: Any) -> str:
    return go_quote(value) if isinstance(value, str) else repr(value)


def _wrong_type(path: FieldPath, value: Any, expected: str) -> Finding:
    got = {bool: "a boolean", str: "a string", int: "an integer", float: "a number", list: "a list"}.get(
        type(value), "an object" if isinstance(value, Mapping) else type(value).__name__)
    return error(WRONG_TYPE, path, f"{got} where Kueue's manager expects {expected}: it cannot decode its "
                                   "Configuration")


def _unknown_field(path: FieldPath, known: list[str]) -> Finding:
    close = difflib.get_close_matches(str(path[-1]), known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else None
    where = format_path(path[:-1]) or "the top level"
    return error(UNKNOWN_FIELD, path, f"unknown field (Kueue's manager decodes its Configuration strictly); the fields "
                                      f"of {where} are {', '.join(known)}", hint)


# --- conversion and defaults (what Validate is given) ------------------------------------------------


def defaulted_v1beta2(body: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a decoded Configuration the validation reads, converted to v1beta2 and defaulted as Kueue's
    config/v1beta1 conversion and config/v1beta2 SetDefaults_Configuration do."""
    cfg: dict[str, Any] = copy.deepcopy(dict(body))
    cfg = {key: value for key, value in cfg.items() if value is not None}
    if str(cfg.get("apiVersion", "")).endswith("/v1beta1"):
        fair = cfg.get("fairSharing")
        if not isinstance(fair, dict) or not fair.get("enable"):
            cfg.pop("fairSharing", None)  # v1beta1: a section with enable false is no fair sharing at all
        else:
            fair.pop("enable")
            if not fair.get("preemptionStrategies"):
                fair["preemptionStrategies"] = ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
        ready = cfg.get("waitForPodsReady")
        if not isinstance(ready, dict) or not ready.get("enable"):
            cfg.pop("waitForPodsReady", None)
        else:
            ready.pop("enable")
            ready.setdefault("timeout", "5m")  # the v1beta1 conversion's default (defaultPodsReadyTimeout)
        cfg.pop("queueVisibility", None)
        if isinstance(cfg.get("integrations"), dict):
            cfg["integrations"].pop("podOptions", None)  # dropped by the conversion
    namespace = cfg.get("namespace") or "kueue-system"
    cfg["namespace"] = namespace
    ready = cfg.setdefault("waitForPodsReady", {}) if "waitForPodsReady" in cfg or not _v1beta1(body) else None
    if isinstance(ready, dict):
        if _seconds(ready.get("timeout")) == 0:
            ready["timeout"] = "30m"
        ready.setdefault("recoveryTimeout", ready["timeout"])  # both versions' defaults: the timeout
    integrations = cfg.setdefault("integrations", {})
    if not integrations.get("frameworks"):
        integrations["frameworks"] = ["batch/job"]
    cfg.setdefault("managedJobsNamespaceSelector", {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", namespace]}]})
    fair_sharing = cfg.get("admissionFairSharing")
    if isinstance(fair_sharing, dict) and not _seconds(fair_sharing.get("usageSamplingInterval")):
        fair_sharing["usageSamplingInterval"] = "5m"
    multikueue = cfg.get("multiKueue")
    if isinstance(multikueue, dict) and multikueue.get("dispatcherName") == _INCREMENTAL and \
            isinstance(multikueue.get("incrementalDispatcherConfig"), dict):
        multikueue["incrementalDispatcherConfig"].setdefault("stepSize", 3)
    for transformation in (cfg.get("resources") or {}).get("transformations") or ():
        if isinstance(transformation, dict) and not transformation.get("strategy"):
            transformation["strategy"] = "Retain"
    return cfg


def _v1beta1(body: Mapping[str, Any]) -> bool:
    return str(body.get("apiVersion", "")).endswith("/v1beta1")


def _seconds(duration: Any) -> float:
    """A decoded Go duration in seconds (0 for none)."""
    if not isinstance(duration, str) or duration in ("", "0", "+0", "-0"):
        return 0.0
    total = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _DURATION_PART.findall(duration))
    return -total if duration.startswith("-") else total


# --- Kueue's validation (pkg/config/validation.go), decidable from the file ----------------------------

_INCREMENTAL = "kueue.x-k8s.io/multikueue-dispatcher-incremental"
_NEGATIVE = "must be greater than or equal to 0"
_STRATEGY_SETS = (("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",),
                  ("LessThanOrEqualToFinalShare", "LessThanInitialShare"))
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")


def validation_findings(cfg: Mapping[str, Any]) -> Iterator[Finding]:
    gates = _feature_gates(cfg)
    yield from findings("VAL-CFG-3", _wait_for_pods_ready(cfg, gates))
    for finding in findings("VAL-CFG-4", _integrations(cfg)):
        yield _with_framework_hint(finding, cfg)
    yield from findings("VAL-CFG-5", _multikueue(cfg))
    yield from findings("VAL-CFG-6", _fair_sharing(cfg))
    yield from findings("VAL-CFG-7", _admission_fair_sharing(cfg))
    yield from findings("VAL-CFG-8", _internal_cert_management(cfg))
    yield from findings("VAL-CFG-9", _transformations(cfg))
    yield from findings("VAL-CFG-10", _managed_jobs_namespace_selector(cfg))
    yield from findings("VAL-CFG-11", _object_retention(cfg))
    yield from findings("VAL-CFG-12", _visibility_server(cfg))
    yield from findings("VAL-CFG-13", _quota_check_strategy(cfg, gates))
    yield from findings("VAL-CFG-15", _custom_labels(cfg))
    yield from findings("VAL-CFG-16", _tls(cfg))
    yield from findings("VAL-CFG-17", _device_class_mappings(cfg, gates))


def _section(cfg: Mapping[str, Any], *keys: str) -> Mapping[str, Any]:
    node: Any = cfg
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}


def _feature_gates(cfg: Mapping[str, Any]) -> dict[str, bool]:
    from kqctl.kueue.engine.feature_gates import KUEUE_FEATURE_GATES

    gates = {name: default for name, (default, _, _) in KUEUE_FEATURE_GATES.items()}
    gates.update({str(k): v for k, v in _section(cfg, "featureGates").items() if isinstance(v, bool)})
    return gates


def _wait_for_pods_ready(cfg: Mapping[str, Any], gates: Mapping[str, bool]) -> Iterator[FieldError]:
    ready = cfg.get("waitForPodsReady")
    if not isinstance(ready, Mapping) or gates.get("DisableWaitForPodsReady"):
        return
    path = ("waitForPodsReady",)
    timeout = _seconds(ready.get("timeout"))
    if timeout == 0:
        yield required((*path, "timeout"), "must be specified")
    elif timeout < 0:
        yield invalid((*path, "timeout"), str(ready.get("timeout")), _NEGATIVE)
    if _seconds(ready.get("recoveryTimeout")) < 0:
        yield invalid((*path, "recoveryTimeout"), str(ready.get("recoveryTimeout")), _NEGATIVE)
    strategy = _section(ready, "requeuingStrategy")
    timestamp = strategy.get("timestamp")
    if timestamp is not None and timestamp not in ("Creation", "Eviction"):
        yield not_supported((*path, "requeuingStrategy", "timestamp"), go_quote(str(timestamp)),
                            ("Creation", "Eviction"))
    for name in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        value = strategy.get(name)
        if isinstance(value, int) and value < 0:
            yield invalid((*path, "requeuingStrategy", name), str(value), _NEGATIVE)


def _with_framework_hint(finding: Finding, cfg: Mapping[str, Any]) -> Finding:
    """An unknown framework name with the registered name closest to it."""
    if finding.path[:2] != ("integrations", "frameworks") or not finding.message.startswith("Unsupported"):
        return finding
    name = str(_section(cfg, "integrations").get("frameworks")[finding.path[2]])  # type: ignore[index]
    close = difflib.get_close_matches(name, FRAMEWORKS, n=1)
    return dataclasses.replace(finding, hint=f"did you mean {close[0]}?") if close else finding


def _kind_arg(text: str) -> tuple[str, str, str] | None:
    """schema.ParseKindArg: ``Kind.version.group`` (two dots at least), else None."""
    if text.count(".") < 2:
        return None
    kind, version, group = text.split(".", 2)
    return kind, version, group


def _integrations(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    integrations = _section(cfg, "integrations")
    path = ("integrations",)
    seen: set[str] = set()
    for index, name in enumerate(integrations.get("frameworks") or ()):
        if name not in FRAMEWORKS:
            yield not_supported((*path, "frameworks", index), go_quote(str(name)), FRAMEWORKS)
        elif name in seen:
            yield duplicate((*path, "frameworks", index), go_quote(str(name)))
        seen.add(str(name))
    external: set[tuple[str, str, str]] = set()
    for index, name in enumerate(integrations.get("externalFrameworks") or ()):
        gvk = _kind_arg(str(name))
        if gvk is None:
            yield invalid((*path, "externalFrameworks", index), go_quote(str(name)),
                          "must be format, 'Kind.version.group.com'")
        elif gvk in external:
            yield duplicate((*path, "externalFrameworks", index), go_quote(str(name)))
        else:
            external.add(gvk)
    if "pod" in (integrations.get("frameworks") or ()):
        selector = cfg.get("managedJobsNamespaceSelector")
        if selector is None:
            yield required(("managedJobsNamespaceSelector",), "cannot be empty when pod integration is enabled")
        else:
            yield from _selector_errors(cfg, selector)


def _selector_errors(cfg: Mapping[str, Any], selector: Any) -> Iterator[FieldError]:
    path = ("managedJobsNamespaceSelector",)
    errors = validate_label_selector(selector, path)
    yield from errors
    if errors:
        return
    for namespace in dict.fromkeys(("kube-system", str(cfg.get("namespace") or ""))):
        if namespace and selector_matches(selector, {"kubernetes.io/metadata.name": namespace}):
            yield invalid(path, go_json(selector), f'should not match the "{namespace}" namespace')


def _managed_jobs_namespace_selector(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    yield from _selector_errors(cfg, cfg.get("managedJobsNamespaceSelector") or {})


def _multikueue(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    multikueue = _section(cfg, "multiKueue")
    path = ("multiKueue",)
    for name in ("gcInterval", "workerLostTimeout"):
        if _seconds(multikueue.get(name)) < 0:
            yield invalid((*path, name), str(multikueue.get(name)), _NEGATIVE)
    origin = multikueue.get("origin")
    if isinstance(origin, str):
        problems = is_label_value(origin)
        if problems:
            yield invalid((*path, "origin"), go_quote(origin), ",".join(problems))
    names: set[tuple[str, str, str]] = set()
    for index, framework in enumerate(multikueue.get("externalFrameworks") or ()):
        name = str(framework.get("name", "")) if isinstance(framework, Mapping) else ""
        gvk = _kind_arg(name)
        if gvk is None:
            yield invalid((*path, "externalFrameworks", index, "name"), go_quote(name),
                          "must be in 'kind.version.group' format")
        elif gvk in names:
            yield duplicate((*path, "externalFrameworks", index, "name"), go_quote(name))
        else:
            names.add(gvk)
    yield from _cluster_profile(_section(multikueue, "clusterProfile"))
    dispatcher = multikueue.get("incrementalDispatcherConfig")
    if isinstance(dispatcher, Mapping):
        if multikueue.get("dispatcherName") != _INCREMENTAL:
            yield invalid((*path, "incrementalDispatcherConfig"), go_json(dispatcher),
                          "incrementalDispatcherConfig is only valid when dispatcherName is set to the incremental "
                          f"dispatcher ({_INCREMENTAL})")
        step = dispatcher.get("stepSize")
        if isinstance(step, int) and step < 1:
            yield invalid((*path, "incrementalDispatcherConfig", "stepSize"), str(step),
                          "must be greater than or equal to 1")


def _cluster_profile(profile: Mapping[str, Any]) -> Iterator[FieldError]:
    """multiKueue.clusterProfile: the access providers (or the deprecated credentialsProviders, never both) each need
    a name and an exec config with command, apiVersion, named env vars and an interactiveMode. Kueue's paths leave out
    the list index; these keep it, to point at the provider."""
    path = ("multiKueue", "clusterProfile")
    access, credentials = profile.get("accessProviders") or [], profile.get("credentialsProviders") or []
    if access and credentials:
        yield FieldError((*path, "credentialsProviders"), "Forbidden", None,
                         "must not be specified when accessProviders is specified")
    key, providers = ("accessProviders", access) if access else ("credentialsProviders", credentials)
    for index, provider in enumerate(providers):
        if not isinstance(provider, Mapping):
            continue
        at = (*path, key, index)
        if not provider.get("name"):
            yield required((*at, "name"), "must be specified")
        exec_config = _section(provider, "execConfig")
        for name in ("command", "apiVersion"):
            if not exec_config.get(name):
                yield required((*at, "execConfig", name), "must be specified")
        for env_index, variable in enumerate(exec_config.get("env") or ()):
            if isinstance(variable, Mapping) and not variable.get("name"):
                yield required((*at, "execConfig", "env", env_index, "name"), "must be specified")
        mode = exec_config.get("interactiveMode") or ""
        if not mode:
            yield required((*at, "execConfig", "interactiveMode"), "must be specified")
        elif mode not in ("Never", "IfAvailable", "Always"):
            yield not_supported((*at, "execConfig", "interactiveMode"), go_quote(str(mode)),
                                ("Never", "IfAvailable", "Always"))


def _fair_sharing(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    fair = cfg.get("fairSharing")
    if not isinstance(fair, Mapping):
        return
    path = ("fairSharing", "preemptionStrategies")
    strategies = tuple(fair.get("preemptionStrategies") or ())
    if not strategies:
        yield required(path, "must be specified (one of the sequences "
                             + "; ".join(",".join(s) for s in _STRATEGY_SETS) + ")")
    elif strategies not in _STRATEGY_SETS:
        yield not_supported(path, go_quote(",".join(map(str, strategies))), [",".join(s) for s in _STRATEGY_SETS])


def _admission_fair_sharing(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    section = cfg.get("admissionFairSharing")
    if not isinstance(section, Mapping):
        return
    path = ("admissionFairSharing",)
    if _seconds(section.get("usageHalfLifeTime")) < 0:
        yield invalid((*path, "usageHalfLifeTime"), str(section.get("usageHalfLifeTime")), _NEGATIVE)
    if _seconds(section.get("usageSamplingInterval")) <= 0:
        yield invalid((*path, "usageSamplingInterval"), str(section.get("usageSamplingInterval")),
                      "must be greater than 0")
    for resource, weight in _section(section, "resourceWeights").items():
        if isinstance(weight, int | float) and weight < 0:
            yield invalid((*path, "resourceWeights", str(resource)), str(weight), _NEGATIVE)


def _internal_cert_management(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    section = _section(cfg, "internalCertManagement")
    if section.get("enable", True) is False:
        return
    path = ("internalCertManagement",)
    service = section.get("webhookServiceName")
    if isinstance(service, str) and (len(service) > 63 or _DNS1035_LABEL.fullmatch(service) is None):
        yield invalid((*path, "webhookServiceName"), go_quote(service),
                      "an RFC 1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, end with an alphanumeric character and be at most 63 characters")
    secret = section.get("webhookSecretName")
    if isinstance(secret, str):
        problems = is_dns1123_subdomain(secret)
        if problems:
            yield invalid((*path, "webhookSecretName"), go_quote(secret), ",".join(problems))


def _transformations(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    seen: set[str] = set()
    for index, transformation in enumerate(_section(cfg, "resources").get("transformations") or ()):
        if not isinstance(transformation, Mapping):
            continue
        path = ("resources", "transformations", index)
        strategy = transformation.get("strategy")
        if strategy not in ("Retain", "Replace"):
            yield not_supported((*path, "strategy"), go_quote(str(strategy)), ("Retain", "Replace"))
        name = str(transformation.get("input", ""))
        if name in seen:
            yield duplicate((*path, "input"), go_quote(name))
        seen.add(name)


def _object_retention(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    workloads = _section(cfg, "objectRetentionPolicies", "workloads")
    for name in ("afterFinished", "afterDeactivatedByKueue"):
        if _seconds(workloads.get(name)) < 0:
            yield invalid(("objectRetentionPolicies", "workloads", name), str(workloads.get(name)), _NEGATIVE)


def _visibility_server(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    server = _section(cfg, "visibilityServer")
    address = server.get("bindAddress")
    if isinstance(address, str) and address and not _is_ip(address):
        yield invalid(("visibilityServer", "bindAddress"), go_quote(address), "must be a valid IP address")
    port = server.get("bindPort")
    if isinstance(port, int) and not 1 <= port <= 65535:
        yield invalid(("visibilityServer", "bindPort"), str(port), "must be a valid port number (1-65535)")


def _tls(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    """The parts of the TLS options decidable without Go's crypto/tls tables (the cipher suite names and curve IDs a
    Go release knows are not checked): minVersion, and no cipher suites with TLS 1.3."""
    tls = cfg.get("tls")
    if not isinstance(tls, Mapping):
        return
    version = tls.get("minVersion") or ""
    if version not in ("", "VersionTLS12", "VersionTLS13"):
        yield invalid(("tls",), go_json(dict(tls)), f"invalid minVersion {go_quote(str(version))}. Please use "
                                                    "VersionTLS12 or VersionTLS13")
    elif version == "VersionTLS13" and tls.get("cipherSuites"):
        yield invalid(("tls", "cipherSuites"), go_json(list(tls["cipherSuites"])),
                      "may not be specified when `minVersion` is 'VersionTLS13'")


_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_C_IDENTIFIER_MSG = ("a valid C identifier must start with alphabetic character or '_', followed by a string of "
                     "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
                     "validation is '[A-Za-z_][A-Za-z0-9_]*')")


def _device_class_mappings(cfg: Mapping[str, Any], gates: Mapping[str, bool]) -> Iterator[FieldError]:
    """resources.deviceClassMappings (DRA): at most 16; each a valid, unique resource name with 1 to 8 valid, unique
    device class names; a device class mapped to two resources only as two different counters; each source exactly
    one of counter (needs KueueDRAIntegrationPartitionableDevices) or capacity (needs
    KueueDRAIntegrationConsumableCapacity), never both kinds in one mapping, with a driver and a CEL device selector
    (whether the CEL expression compiles is not checked)."""
    mappings = [m for m in _section(cfg, "resources").get("deviceClassMappings") or () if isinstance(m, Mapping)]
    path: FieldPath = ("resources", "deviceClassMappings")
    if len(mappings) > 16:
        yield FieldError(path, "Too many", str(len(mappings)), "must have at most 16 items")
    seen: set[str] = set()
    resource_of: dict[str, str] = {}  # device class -> the resource it was first mapped to
    counters_of: dict[str, set[str]] = {}  # device class -> the counter names mapped for it
    for index, mapping in enumerate(mappings):
        at = (*path, index)
        name = str(mapping.get("name") or "")
        yield from _label_key_errors((*at, "name"), name)
        if name in seen:
            yield duplicate((*at, "name"), go_quote(name))
        seen.add(name)
        classes = [str(c) for c in mapping.get("deviceClassNames") or ()]
        if not classes:
            yield required((*at, "deviceClassNames"), "at least one device class name is required")
        if len(classes) > 8:
            yield FieldError((*at, "deviceClassNames"), "Too many", str(len(classes)), "must have at most 8 items")
        sources = [source if isinstance(source, Mapping) else {} for source in mapping.get("sources") or ()]
        first_counter = sources[0].get("counter") if sources else None
        counter = str(first_counter.get("name") or "") if isinstance(first_counter, Mapping) else ""
        in_mapping: set[str] = set()
        for class_index, device_class in enumerate(classes):
            class_path = (*at, "deviceClassNames", class_index)
            yield from _label_key_errors(class_path, device_class)
            if device_class in in_mapping:
                yield duplicate(class_path, go_quote(device_class))
            in_mapping.add(device_class)
            if device_class not in resource_of:
                resource_of[device_class] = name
                counters_of[device_class] = {counter} if counter else set()
            elif resource_of[device_class] != name:
                if not counter or not counters_of[device_class]:
                    yield invalid(class_path, go_quote(device_class),
                                  f"device class already mapped to resource {resource_of[device_class]}")
                elif counter in counters_of[device_class]:
                    yield invalid(class_path, go_quote(device_class),
                                  f"device class already has a counter source for counter {go_quote(counter)}")
                else:
                    counters_of[device_class].add(counter)
        yield from _device_class_sources(sources, (*at, "sources"), gates)


def _label_key_errors(path: FieldPath, key: str) -> Iterator[FieldError]:
    problems = is_qualified_name(key)
    if problems:
        yield invalid(path, go_quote(key), "; ".join(problems))
    if len(key) > 253:
        yield invalid(path, go_quote(key), "must not exceed 253 characters")


def _device_class_sources(sources: list[Mapping[str, Any]], path: FieldPath,
                          gates: Mapping[str, bool]) -> Iterator[FieldError]:
    counters, capacity = 0, False
    for index, source in enumerate(sources):
        at = (*path, index)
        counter, capacity_source = source.get("counter"), source.get("capacity")
        if counter is None and capacity_source is None:
            yield required(at, "exactly one source type must be set per entry")
            continue
        if counter is not None and capacity_source is not None:
            yield invalid(at, go_quote("counter+capacity"), "exactly one source type must be set per entry")
            continue
        if isinstance(counter, Mapping):
            counters += 1
            if not gates.get("KueueDRAIntegrationPartitionableDevices"):
                yield invalid((*at, "counter"), "true",
                              "counter sources require KueueDRAIntegrationPartitionableDevices to be enabled")
                continue
            name = str(counter.get("name") or "")
            if not name:
                yield required((*at, "counter", "name"))
            elif is_dns1123_label(name):
                yield invalid((*at, "counter", "name"), go_quote(name), ",".join(is_dns1123_label(name)))
            yield from _device_source((*at, "counter"), counter)
        if isinstance(capacity_source, Mapping):
            capacity = True
            if not gates.get("KueueDRAIntegrationConsumableCapacity"):
                yield invalid((*at, "capacity"), "true",
                              "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled")
                continue
            yield from _qualified_name_errors((*at, "capacity", "name"), str(capacity_source.get("name") or ""))
            yield from _device_source((*at, "capacity"), capacity_source)
    if counters and capacity:
        yield invalid(path, str(len(sources)), "cannot mix counter and capacity sources in the same mapping")


def _device_source(path: FieldPath, source: Mapping[str, Any]) -> Iterator[FieldError]:
    driver = str(source.get("driver") or "")
    if not driver:
        yield required((*path, "driver"))
    elif len(driver) > 63:
        yield invalid((*path, "driver"), go_quote(driver), "must not exceed 63 characters")
    elif is_dns1123_subdomain(driver):
        yield invalid((*path, "driver"), go_quote(driver), ",".join(is_dns1123_subdomain(driver)))
    if not _section(source, "deviceSelector", "cel").get("expression"):
        yield required((*path, "deviceSelector", "cel", "expression"))


def _qualified_name_errors(path: FieldPath, name: str) -> Iterator[FieldError]:
    """A DRA qualified name: a C identifier, or a domain (a DNS subdomain of at most 63 characters) and one, as
    ``domain/identifier``. Like Kueue, more than one ``/`` is not refused."""
    parts = name.split("/")
    if len(parts) > 2:
        return
    if len(parts) == 2:
        domain = parts[0]
        if not domain:
            yield invalid(path, '""', "the domain must not be empty")
        else:
            if len(domain) > 63:
                yield too_long(path, 63)
            for message in is_dns1123_subdomain(domain.lower()):
                yield invalid(path, go_quote(domain), message)
    identifier = parts[-1]
    if len(parts) == 2 and not identifier:
        yield invalid(path, '""', "the name must not be empty")
        return
    if len(identifier) > 32:
        yield too_long(path, 32)
    if _C_IDENTIFIER.fullmatch(identifier) is None:
        yield invalid(path, go_quote(identifier), _C_IDENTIFIER_MSG)


def _is_ip(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _quota_check_strategy(cfg: Mapping[str, Any], gates: Mapping[str, bool]) -> Iterator[FieldError]:
    resources = _section(cfg, "resources")
    strategy = resources.get("quotaCheckStrategy")
    if strategy is None or not gates.get("QuotaCheckStrategy"):
        return
    path = ("resources", "quotaCheckStrategy")
    if strategy == "IgnoreUndeclared" and resources.get("excludeResourcePrefixes"):
        yield invalid(path, go_quote(str(strategy)),
                      "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared")
    if strategy not in ("IgnoreUndeclared", "BlockUndeclared"):
        yield not_supported(path, go_quote(str(strategy)), ("IgnoreUndeclared", "BlockUndeclared"))


def _feature_gate_errors(written: Mapping[str, Any]) -> Iterator[FieldError]:
    """Setting the Configuration's featureGates (LoadAndValidateFeatureGates): every gate known, a gate locked to its
    default (GA) kept there; then no gate on while a gate it depends on is off (pkg/features'
    defaultFeatureGateDependencies), counting the gates on by default."""
    from kqctl.kueue.engine.feature_gates import KUEUE_FEATURE_GATES

    problems = False
    for name, value in written.items():
        path = ("featureGates", str(name))
        known = KUEUE_FEATURE_GATES.get(str(name))
        if known is None:
            close = difflib.get_close_matches(str(name), list(KUEUE_FEATURE_GATES), n=1)
            problems = True
            yield invalid(path, str(name), "unrecognized feature gate" + (f" (did you mean {close[0]}?)"
                                                                           if close else ""))
        elif known[2] and value != known[0]:
            problems = True
            yield invalid(path, str(value).lower(), f"cannot set feature gate {name} to {str(value).lower()}, "
                                                     f"feature is locked to {str(known[0]).lower()}")
    if problems:
        return
    enabled = {name: default for name, (default, _, _) in KUEUE_FEATURE_GATES.items()}
    enabled.update({str(k): v for k, v in written.items() if isinstance(v, bool)})
    by_default: dict[tuple[str, ...], list[str]] = {}  # the gates off -> the default-on gates needing them
    for gate, needs in sorted(GATE_DEPENDENCIES.items()):
        off = tuple(need for need in needs if not enabled.get(need, False))
        if not enabled.get(gate) or not off:
            continue
        if gate in written:
            yield invalid(("featureGates", gate), "true",
                          f"{gate} is enabled, but depends on features that are disabled: [{', '.join(off)}]")
        else:
            by_default.setdefault(off, []).append(gate)
    for off, gates in by_default.items():
        yield invalid(("featureGates",), ", ".join(f"{name}=false" for name in off),
                      f"{', '.join(gates)} {'is' if len(gates) == 1 else 'are'} enabled by default, but "
                      f"{'depends' if len(gates) == 1 else 'depend'} on features that are disabled: [{', '.join(off)}]"
                      f"; set {'it' if len(gates) == 1 else 'them'} to false too")


_CUSTOM_LABEL_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_MAX_CUSTOM_LABELS = 20
_MAX_PER_SOURCE_KIND = {"Workload": 2, "LocalQueue": 6, "ClusterQueue": 6, "Cohort": 6}  # metrics' limit is 6


def _custom_labels(cfg: Mapping[str, Any]) -> Iterator[FieldError]:
    labels = [label for label in _section(cfg, "metrics").get("customLabels") or () if isinstance(label, Mapping)]
    path: FieldPath = ("metrics", "customLabels")
    if len(labels) > _MAX_CUSTOM_LABELS:
        yield FieldError(path, "Too many", str(len(labels)), f"must have at most {_MAX_CUSTOM_LABELS} items")
    seen: set[str] = set()
    per_kind: dict[str, int] = {}
    for index, label in enumerate(labels):
        at = (*path, index)
        name = str(label.get("name") or "")
        if _CUSTOM_LABEL_NAME.fullmatch(name) is None:
            yield invalid((*at, "name"), go_quote(name), "must match ^[a-zA-Z][a-zA-Z0-9_]*$")
        if name in seen:
            yield duplicate((*at, "name"), go_quote(name))
        seen.add(name)
        label_key, annotation_key = label.get("sourceLabelKey") or "", label.get("sourceAnnotationKey") or ""
        if label_key and annotation_key:
            yield invalid(at, go_json(label), "sourceLabelKey and sourceAnnotationKey are mutually exclusive")
        key_field, key = (("sourceLabelKey", label_key) if label_key else ("sourceAnnotationKey", annotation_key)
                          if annotation_key else ("name", name))
        problems = is_qualified_name(str(key))
        if problems:
            yield invalid((*at, key_field), go_quote(str(key)), "; ".join(problems))
        kind = str(label.get("sourceKind") or "ClusterQueue")
        per_kind[kind] = per_kind.get(kind, 0) + 1
        tracked = [str(v) for v in label.get("trackedValues") or ()]
        if kind == "Workload":
            if not tracked:
                yield invalid((*at, "trackedValues"), "[]", "must not be empty when sourceKind is 'Workload'")
            elif len(tracked) > 12:
                yield invalid((*at, "trackedValues"), str(len(tracked)),
                              "must not be greater than 12 when sourceKind is 'Workload'")
        elif len(tracked) > 16:
            yield FieldError((*at, "trackedValues"), "Too many", str(len(tracked)), "must have at most 16 items")
        if len(set(tracked)) < len(tracked):
            yield invalid((*at, "trackedValues"), go_json(tracked), "must not contain duplicates")
    for kind in sorted(per_kind):
        limit = _MAX_PER_SOURCE_KIND.get(kind)
        if limit is None:
            yield invalid(path, "customLabels", f"unknown source kind: {kind} (expected one of "
                                                f"{', '.join(_MAX_PER_SOURCE_KIND)})")
        elif per_kind[kind] > limit:
            yield invalid(path, "customLabels", f"too many custom labels for source kind {kind}: found "
                                                f"{per_kind[kind]}, expected <= {limit}")
