"""One ``queues.yaml`` text through everything ``kqctl validate`` checks, as kqctl findings.

Order: the strict decode (YAML syntax, unknown keys, wrong types), the validator's rules V1-V19 in YuniKorn's
order (the first error of the two is YuniKorn's one answer), then what fails only at runtime (V20, V21, V27b,
V27c) and the lints (V22-V26). Only the decode and V1-V19 are errors: they are what YuniKorn's admission webhook
refuses a ConfigMap for (``/ws/v1/validate-conf`` runs exactly the decode and ``Validate``); everything else is
accepted by YuniKorn, so kqctl reports it as a warning that says what happens then. Paths and lines are
relative to the text; the caller places them in the file that holds it (a ConfigMap key, or the file itself).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from kqctl.findings import Finding, Severity
from kqctl.yunikorn.api.config import DEFAULT_CONFIG_TEXT, ParsedConfig, parse_config
from kqctl.yunikorn.api.configvalidator import ConfigValidator, Violation
from kqctl.yunikorn.api.decoding import DecodeError, unmarshal_errors_text
from kqctl.yunikorn.validate import lints, runtime
from kqctl.yunikorn.validate.effective import effective_config

FIRST_HINT = "YuniKorn's first error: the message its admission webhook rejects the change with"
LATER_HINT = "YuniKorn reports one error at a time: this one once {first} and the errors it checks earlier are " \
    "fixed"
# What YuniKorn's validator and its admission webhook accept but the scheduler cannot use (spec V20, V21, V27b,
# V27c): warnings, since YuniKorn accepts the document (its ``/ws/v1/validate-conf`` answers allowed: true), each
# with what happens then.
RUNTIME_HINTS = {
    "YK-V20": "YuniKorn accepts this configuration (validate-conf allows it) but cannot build the queues from it: a "
              "reload with it fails and YuniKorn keeps the configuration it had; at start-up the partition cannot "
              "be created",
    "YK-V21": "YuniKorn accepts this configuration (validate-conf allows it) but cannot build the placement rules: "
              "a reload with it fails and YuniKorn keeps the configuration it had; at start-up it runs without rules "
              "and rejects every application",
    "YK-V27B": "YuniKorn accepts this configuration; add a partition named default with at least a root queue",
    "YK-V27C": "YuniKorn accepts this configuration; name the partition default (or leave the name empty)",
}
# The keys of each struct of yunikorn-core's pkg/common/configs/config.go (Go field names, lower case): a
# did-you-mean only offers keys of the struct the unknown key was written in.
_STRUCT_KEYS: dict[str, tuple[str, ...]] = {
    "SchedulerConfig": ("partitions", "checksum"),
    "PartitionConfig": ("name", "queues", "placementrules", "limits", "preemption", "nodesortpolicy",
                        "usergroupresolver"),
    "QueueConfig": ("name", "parent", "resources", "maxapplications", "properties", "adminacl", "submitacl",
                    "childtemplate", "queues", "limits"),
    "ChildTemplate": ("maxapplications", "properties", "resources"),
    "Resources": ("guaranteed", "max"),
    "PlacementRule": ("name", "create", "filter", "parent", "value"),
    "Filter": ("type", "users", "groups"),
    "Limit": ("limit", "users", "groups", "maxresources", "maxapplications"),
    "PartitionPreemptionConfig": ("enabled", "quotapreemptionenabled"),
    "NodeSortingPolicy": ("type", "resourceweights"),
    "UserGroupResolver": ("type",),
}
_STRUCT_NAMES = {"SchedulerConfig": "the top level", "PartitionConfig": "a partition", "QueueConfig": "a queue",
                 "ChildTemplate": "a childtemplate", "Resources": "resources", "PlacementRule": "a placement rule",
                 "Filter": "a placement rule's filter", "Limit": "a limit", "PartitionPreemptionConfig":
                 "a partition's preemption", "NodeSortingPolicy": "nodesortpolicy",
                 "UserGroupResolver": "usergroupresolver"}


@dataclass(frozen=True)
class ConfigCheck:
    """Findings about one text (paths and lines inside it) and what YuniKorn will use of it."""

    findings: tuple[Finding, ...]
    effective: dict[str, Any] | None
    parsed: ParsedConfig


@lru_cache(maxsize=16)
def check_config_text(text: str) -> ConfigCheck:
    """Validate ``text`` as YuniKorn's ``/ws/v1/validate-conf`` and its queue building would."""
    return check_config(parse_config(text))


def check_config(parsed: ParsedConfig) -> ConfigCheck:
    """Validate a decoded config (see :func:`check_config_text`)."""
    findings: list[Finding] = []
    if parsed.empty:
        findings.append(Finding("YK-V27", Severity.INFO, (), "the queue configuration is empty: YuniKorn uses its "
                                "built-in default (one partition, every namespace's applications in a dynamic "
                                "leaf root.<namespace>, anyone may submit)", None, 1))
        default = parse_config(DEFAULT_CONFIG_TEXT)
        assert default.config is not None
        ConfigValidator().validate(default.config)
        return ConfigCheck(tuple(findings), {"validateConf": {"allowed": True, "reason": None},
                                             **effective_config(default.config, empty=True)}, parsed)
    if parsed.syntax is not None:
        findings.append(Finding("YK-PARSE", Severity.ERROR, (), parsed.syntax.args[0], FIRST_HINT,
                                parsed.syntax.line))
        return ConfigCheck(tuple(findings), _answer(parsed.syntax.args[0]), parsed)
    findings.extend(_decode_finding(error, first=i == 0) for i, error in enumerate(parsed.errors))
    config = parsed.config
    assert config is not None
    validator = ConfigValidator()
    validator.validate(config)
    errors_before = len(findings)
    for violation in validator.violations:
        findings.append(_finding(violation, Severity.ERROR, FIRST_HINT if len(findings) == 0 else LATER_HINT))
    valid = errors_before == 0 and not validator.violations
    if valid:
        for violation in _runtime(config):
            findings.append(_finding(violation, Severity.WARNING, RUNTIME_HINTS.get(violation.rule, "")))
    for partition in config.partitions or []:
        if partition.queues:
            for lint in lints.lint_partition(partition):
                findings.append(Finding(lint.rule, Severity(lint.severity), lint.path, lint.message, lint.hint,
                                        lint.line))
    findings = _name_the_first(findings)
    if parsed.errors:
        effective = _answer(unmarshal_errors_text(parsed.errors))
    elif validator.violations:
        effective = _answer(validator.violations[0].message)
    else:
        effective = {"validateConf": {"allowed": True, "reason": None}, **effective_config(config)}
    return ConfigCheck(tuple(findings), effective, parsed)


def _name_the_first(findings: list[Finding]) -> list[Finding]:
    """The later errors' hints name YuniKorn's first one (rule and field: lines move inside a ConfigMap)."""
    first = next((f for f in findings if f.hint and FIRST_HINT in f.hint), None)
    if first is None:
        return findings
    named = f"{first.rule_id} at {first.field}" if first.path else first.rule_id
    return [replace(f, hint=f.hint.replace(LATER_HINT, LATER_HINT.format(first=named))) if f.hint else f
            for f in findings]


def _answer(reason: str) -> dict[str, Any]:
    """What YuniKorn's ``/ws/v1/validate-conf`` answers (``allowed``, ``reason``): its webhook's verdict."""
    return {"validateConf": {"allowed": False, "reason": reason}}


def _runtime(config: Any) -> list[Violation]:
    found = list(runtime.partitions(config, ""))
    for partition in config.partitions or []:
        found.extend(runtime.queue_creation(partition))
        found.extend(runtime.placement_rules(partition))
    return found


def _finding(violation: Violation, severity: Severity, hint: str) -> Finding:
    """YuniKorn's words, word for word, then kqctl's short human hint in parentheses (``vcore 8 > 4``)."""
    message = f"{violation.message} ({violation.detail})" if violation.detail else violation.message
    return Finding(violation.rule, severity, violation.path, message, hint or None, violation.line)


def _decode_finding(error: DecodeError, first: bool) -> Finding:
    """A decode problem with go-yaml's wording; an unknown key gets a did-you-mean among the keys of its struct,
    or where it belongs when it is a key of another one."""
    hint = FIRST_HINT if first else LATER_HINT
    better = unknown_key_hint(error.message)
    if better:
        hint = f"{better}; {hint}" if first else better
    return Finding("YK-DECODE", Severity.ERROR, error.path, error.message, hint, error.line)


def unknown_key_hint(message: str) -> str:
    """For go-yaml's ``field K not found in type configs.T``: a key of T close to K (never K itself), else the
    structs K belongs to; "" when there is nothing useful to say."""
    words = message.split()
    if len(words) < 7 or words[0] != "field" or not words[-1].startswith("configs."):
        return ""
    key, struct = words[1], words[-1].removeprefix("configs.")
    keys = [k for k in _STRUCT_KEYS.get(struct, ()) if k != key]
    close = difflib.get_close_matches(key.lower(), keys, n=1, cutoff=0.75)
    if close:
        return f"did you mean {close[0]}? YuniKorn's keys are the Go field names in lower case, no separators"
    owners = [_STRUCT_NAMES[name] for name, valid in _STRUCT_KEYS.items() if key.lower() in valid and name != struct]
    if owners:
        return f"{key.lower()} is a key of {' or '.join(owners)}, not of {_STRUCT_NAMES.get(struct, struct)}"
    if keys:
        return f"{_STRUCT_NAMES.get(struct, struct)} takes: {', '.join(_STRUCT_KEYS[struct])}"
    return ""
