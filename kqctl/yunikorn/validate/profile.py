"""YuniKorn's part of ``kqctl validate`` (a :class:`~kqctl.validate.profile.ValidationProfile`).

A bare ``queues.yaml`` is checked as the document it is; a ConfigMap ``yunikorn-configs`` or
``yunikorn-defaults`` has the key its ``service.policyGroup`` names (``queues.yaml``) checked, with every
finding's line moved from inside the embedded text to the ConfigMap file's line (exact for a ``|`` block,
the key's line otherwise). Across the two ConfigMaps: which one's configuration YuniKorn reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import yaml

from kqctl.findings import Finding, Severity, info, warning
from kqctl.load.objects import LoadedObject
from kqctl.validate.profile import ValidationProfile
from kqctl.yunikorn import kinds
from kqctl.yunikorn.api import configmap
from kqctl.yunikorn.api.config import parse_config_node
from kqctl.yunikorn.api.decoding import from_yaml_node
from kqctl.yunikorn.validate.checks import ConfigCheck, check_config, check_config_text

_CHECKED: dict[int, tuple[LoadedObject, ConfigCheck | None, str]] = {}


def _check(obj: LoadedObject) -> tuple[ConfigCheck | None, str]:
    """The check of the object's configuration and the key it came from ("" for a bare file)."""
    cached = _CHECKED.get(id(obj))
    if cached is not None and cached[0] is obj:
        return cached[1], cached[2]
    if len(_CHECKED) > 64:
        _CHECKED.clear()
    result: tuple[ConfigCheck | None, str]
    if obj.info is kinds.QUEUES_CONFIG:
        result = (_check_bare(obj), "")
    else:
        flattened = configmap.flatten([obj.body])
        entry = flattened.queue_config()
        result = (check_config_text(entry.text), entry.raw_key) if entry is not None else (None, "")
    _CHECKED[id(obj)] = (obj, *result)
    return result


def _check_bare(obj: LoadedObject) -> ConfigCheck:
    tree = obj.document.tree()
    node = _node_at(tree, obj.prefix) if tree is not None else None
    if node is None:
        return check_config_text(json.dumps(obj.body))  # a JSON document: JSON is YAML, typed alike
    return check_config(parse_config_node(from_yaml_node(node)))


def inspect(obj: LoadedObject) -> list[Finding]:
    """Every finding of the object's queue configuration, located in its file."""
    if obj.info is kinds.CONFIG_MAP:
        return list(_config_map_findings(obj))
    check, _ = _check(obj)
    return list(check.findings) if check is not None else []


def _config_map_findings(obj: LoadedObject) -> Iterator[Finding]:
    flattened = configmap.flatten([obj.body])
    for _, key, problem in flattened.problems:
        yield warning("YK-CONFIGMAP", ("binaryData", key), problem, "gzip the text and name the key <name>.gz")
    check, raw_key = _check(obj)
    if check is None:
        yield info("YK-CONFIGMAP", ("data",), f"{obj.name} has no {flattened.config_key}: unless the other "
                   "YuniKorn ConfigMap has one, YuniKorn uses its built-in default configuration (every namespace "
                   "in a dynamic queue root.<namespace>)")
        return
    entry = flattened.queue_config()
    assert entry is not None
    field = entry.field
    place = _Placement(obj, field, raw_key)
    for finding in check.findings:
        yield Finding(finding.rule_id, finding.severity, (field, raw_key, *finding.path), finding.message,
                      finding.hint, place.line(finding.line), finding.related)


class _Placement:
    """Moves a line inside an embedded text to the ConfigMap file's line."""

    def __init__(self, obj: LoadedObject, field: str, key: str) -> None:
        self.key_line = obj.line_of((field, key))
        tree = obj.document.tree()
        node = _node_at(tree, (*obj.prefix, field, key)) if tree is not None else None
        # Only a literal block keeps the text's lines one for one (its first line follows the indicator).
        self.literal = isinstance(node, yaml.ScalarNode) and node.style == "|"
        self.start = node.start_mark.line + 1 if node is not None else self.key_line

    def line(self, inner: int | None) -> int:
        if inner is None or not self.literal:
            return self.key_line
        return self.start + inner


def _node_at(node: yaml.Node | None, path: Sequence[str | int]) -> yaml.Node | None:
    current = node
    for part in path:
        if isinstance(current, yaml.MappingNode):
            current = next((v for k, v in current.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)),
                           None)
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(current.value):
            current = current.value[part]
        else:
            return None
    return current


def effective(obj: LoadedObject) -> dict[str, Any] | None:
    check, _ = _check(obj)
    if check is None:
        if obj.info is kinds.CONFIG_MAP:
            default = check_config_text("")
            return default.effective
        return None
    return check.effective


def cross_object(objects: Sequence[LoadedObject], closed: bool) -> Iterable[tuple[LoadedObject, Finding]]:
    """Which ConfigMap's configuration YuniKorn reads when both are given (yunikorn-configs wins)."""
    config_maps = {obj.name: obj for obj in objects if obj.info is kinds.CONFIG_MAP}
    ordered = [config_maps[name] for name in kinds.CONFIG_MAP_NAMES if name in config_maps]
    if len(ordered) < 2:
        return []
    merged = configmap.flatten([obj.body for obj in ordered])
    found: list[tuple[LoadedObject, Finding]] = []
    winner = merged.queue_config()
    for obj in ordered:
        own = configmap.flatten([obj.body])
        own_entry = own.queue_config()
        if own.config_key != merged.config_key and own_entry is not None:
            found.append((obj, warning("YK-CONFIGMAP", (own_entry.field, own_entry.raw_key),
                                       f"YuniKorn reads {merged.config_key} ({configmap.POLICY_GROUP_KEY} of the "
                                       f"merged ConfigMaps), not {own.config_key}",
                                       f"set {configmap.POLICY_GROUP_KEY} in one ConfigMap only")))
        elif own_entry is not None and winner is not None and winner.source != obj.name:
            found.append((obj, Finding("YK-CONFIGMAP", Severity.INFO, (own_entry.field, own_entry.raw_key),
                                       f"{own_entry.key} of {obj.name} is not used: the one in {winner.source} "
                                       "replaces it (yunikorn-configs wins key by key)", None)))
    return found


PROFILE = ValidationProfile(
    scheduler=kinds.SCHEDULER,
    groups=frozenset({kinds.GROUP}),
    inspect=inspect,
    effective=effective,
    cross_object=cross_object,
)
