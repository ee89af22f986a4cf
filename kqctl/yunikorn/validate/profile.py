"""YuniKorn's part of ``kqctl validate`` (a :class:`~kqctl.validate.profile.ValidationProfile`).

A bare ``queues.yaml`` is checked as the document it is. The ConfigMaps ``yunikorn-defaults`` and
``yunikorn-configs`` are checked across objects, merged as the shim's webhook merges them (``validateConfigMap``:
key by key, ``service.policyGroup`` choosing the key): the merged ``<policyGroup>.yaml`` is checked and every
finding's line moved from inside the embedded text to the line in the file of the ConfigMap the key came from
(exact for a ``|`` block, the key's line otherwise). Also across objects: pods naming a queue nobody creates
(YK-PL-QUEUE) and namespace annotations the shim ignores (YK-G6).

Every command builds every scheduler's profile (each checks only its own objects), so the checks themselves (the
configuration's decoder and validator, the placement rules behind YK-PL-QUEUE: about a sixth of kqctl's start-up)
are imported only when a YuniKorn object is there to check.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from kqctl.findings import Finding, Severity, info, warning
from kqctl.load.objects import LoadedObject
from kqctl.validate.embedded import EmbeddedLines, node_at
from kqctl.validate.profile import ValidationProfile
from kqctl.yunikorn import kinds
from kqctl.yunikorn.api import configmap

if TYPE_CHECKING:
    from kqctl.yunikorn.validate.checks import ConfigCheck

_CHECKED: dict[int, tuple[LoadedObject, ConfigCheck | None, str]] = {}
# The merged check of the ConfigMaps of the last cross-object pass, by ConfigMap object: (object, check, source).
_MERGED: dict[int, tuple[LoadedObject, ConfigCheck, str]] = {}


def _check(obj: LoadedObject) -> tuple[ConfigCheck | None, str]:
    """The check of the object's configuration alone and the key it came from ("" for a bare file)."""
    cached = _CHECKED.get(id(obj))
    if cached is not None and cached[0] is obj:
        return cached[1], cached[2]
    if len(_CHECKED) > 64:
        _CHECKED.clear()
    from kqctl.yunikorn.validate.checks import check_config_text

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
    from kqctl.yunikorn.api.config import parse_config_node
    from kqctl.yunikorn.api.decoding import from_yaml_node
    from kqctl.yunikorn.validate.checks import check_config, check_config_text

    tree = obj.document.tree()
    node = node_at(tree, obj.prefix) if tree is not None else None
    if node is None:
        return check_config_text(json.dumps(obj.body))  # a JSON document: JSON is YAML, typed alike
    return check_config(parse_config_node(from_yaml_node(node)))


def inspect(obj: LoadedObject) -> list[Finding]:
    """Every finding of a bare queues.yaml, located in its file. A ConfigMap's own problems only: its queue
    configuration is checked across objects, merged with the other YuniKorn ConfigMap as the webhook merges."""
    if obj.info is kinds.CONFIG_MAP:
        return [warning("YK-CONFIGMAP", ("binaryData", key), problem, "gzip the text and name the key <name>.gz")
                for _, key, problem in configmap.flatten([obj.body]).problems]
    check, _ = _check(obj)
    return list(check.findings) if check is not None else []


def _entry_findings(holder: LoadedObject, entry: configmap.Entry, check: ConfigCheck) -> Iterator[Finding]:
    """The findings of the text of ``entry`` (a key of ``holder``), located in the holder's file."""
    place = EmbeddedLines(holder, (entry.field, entry.raw_key))
    for finding in check.findings:
        yield dataclasses.replace(finding, path=(entry.field, entry.raw_key, *finding.path),
                                  line=place.line(finding.line))


def effective(obj: LoadedObject) -> dict[str, Any] | None:
    """What YuniKorn uses: for a ConfigMap, the merged configuration when the cross-object pass saw both."""
    merged = _MERGED.get(id(obj))
    if merged is not None and merged[0] is obj:
        return _with_source(merged[1].effective, merged[2])
    check, raw_key = _check(obj)
    if check is None:
        if obj.info is kinds.CONFIG_MAP:
            from kqctl.yunikorn.validate.checks import check_config_text

            default = check_config_text("")
            return default.effective
        return None
    if obj.info is kinds.CONFIG_MAP:
        return _with_source(check.effective, f"{raw_key} of ConfigMap {obj.namespace}/{obj.name}")
    return check.effective


def _with_source(found: dict[str, Any] | None, source: str) -> dict[str, Any] | None:
    """The effective document naming the key it was read from (the check itself is cached: copied, not changed)."""
    if found is None:
        return None
    # A copy: the cached check is shared, and two documents sharing one dict would print as YAML aliases.
    copied = copy.deepcopy(found)
    if "source" in copied:
        copied["source"] = source
    return copied


def cross_object(objects: Sequence[LoadedObject], closed: bool) -> Iterable[tuple[LoadedObject, Finding]]:
    """The queue configuration of the YuniKorn ConfigMaps, flattened as the shim's webhook flattens them
    (``validateConfigMap``: yunikorn-defaults, then yunikorn-configs over it, key by key): the merged
    ``<service.policyGroup>.yaml`` is checked, its findings located in the ConfigMap the winning key came from."""
    from kqctl.yunikorn.validate import pod_annotations
    from kqctl.yunikorn.validate.namespaces import annotation_problems
    from kqctl.yunikorn.validate.pods import unknown_queues

    return [*unknown_queues(objects), *annotation_problems(objects), *pod_annotations.annotation_problems(objects),
            *merged_config_maps(objects),
            *setting_problems(objects)]


def setting_problems(objects: Sequence[LoadedObject]) -> Iterator[tuple[LoadedObject, Finding]]:
    """The shim's typed settings (``service.schedulingInterval``, ...) of the merged ConfigMaps that it cannot
    parse (YK-CONFIGMAP-SETTING), located at the key that wins."""
    from kqctl.yunikorn import settings

    config_maps = {obj.name: obj for obj in objects if obj.info == kinds.CONFIG_MAP}
    ordered = [config_maps[name] for name in kinds.CONFIG_MAP_NAMES if name in config_maps]
    for entry, why in settings.problems(configmap.flatten([obj.body for obj in ordered])):
        yield config_maps[entry.source], warning("YK-CONFIGMAP-SETTING", (entry.field, entry.raw_key), why,
                                                 settings.hint(entry.key))


def merged_config_maps(objects: Sequence[LoadedObject]) -> list[tuple[LoadedObject, Finding]]:
    """The merged queue configuration's findings (what YuniKorn's webhook refuses among them): the part of
    ``cross_object`` that can refuse, which is all the gate every command admits objects through needs (the pod
    lints build a whole snapshot)."""
    # == not is: a parallel run sends the objects over from the workers (pickled, the kind info copied)
    config_maps = {obj.name: obj for obj in objects if obj.info == kinds.CONFIG_MAP}
    ordered = [config_maps[name] for name in kinds.CONFIG_MAP_NAMES if name in config_maps]
    _MERGED.clear()
    found: list[tuple[LoadedObject, Finding]] = []
    if not ordered:
        return found
    merged = configmap.flatten([obj.body for obj in ordered])
    winner = merged.queue_config()
    if winner is None and merged.config_key in merged.refused:
        return found  # its value is not a string: the schema's error (SCHEMA-TYPE) says so, the server refuses it
    if winner is None:
        last = ordered[-1]
        names = " nor ".join(obj.name or "" for obj in ordered)
        what = f"neither {names} has" if len(ordered) > 1 else f"{last.name} has no"
        found.append((last, info("YK-CONFIGMAP", ("data",), f"{what} {merged.config_key}"
                                 f"{'' if len(ordered) > 1 else ': unless the other YuniKorn ConfigMap has one'}"
                                 ", YuniKorn uses its built-in default configuration (every namespace in a dynamic "
                                 "queue root.<namespace>)")))
        return found
    from kqctl.yunikorn.validate.checks import check_config_text

    holder = config_maps[winner.source]
    check = check_config_text(winner.text)
    source = f"{winner.raw_key} of ConfigMap {holder.namespace}/{holder.name}"
    for obj in ordered:
        _MERGED[id(obj)] = (obj, check, source)
    found.extend((holder, finding) for finding in _entry_findings(holder, winner, check))
    if len(ordered) > 1:
        found.extend(_unused_keys(ordered, merged, winner))
    return found


def _unused_keys(ordered: Sequence[LoadedObject], merged: configmap.Flattened,
                 winner: configmap.Entry) -> Iterator[tuple[LoadedObject, Finding]]:
    """A ConfigMap's own queue configuration that YuniKorn does not read: another policy group, or replaced."""
    for obj in ordered:
        own = configmap.flatten([obj.body])
        own_entry = own.queue_config()
        if own_entry is None:
            continue
        if own.config_key != merged.config_key:
            yield obj, warning("YK-CONFIGMAP", (own_entry.field, own_entry.raw_key),
                               f"YuniKorn reads {merged.config_key} ({configmap.POLICY_GROUP_KEY} of the merged "
                               f"ConfigMaps), not {own.config_key}", f"set {configmap.POLICY_GROUP_KEY} in one "
                               "ConfigMap only")
        elif winner.source != obj.name:
            yield obj, Finding("YK-CONFIGMAP", Severity.INFO, (own_entry.field, own_entry.raw_key),
                               f"{own_entry.key} of {obj.name} is not used: the one in {winner.source} replaces it "
                               "(yunikorn-configs wins key by key)", None)


PROFILE = ValidationProfile(
    scheduler=kinds.SCHEDULER,
    groups=frozenset({kinds.GROUP}),
    inspect=inspect,
    effective=effective,
    cross_object=cross_object,
    # The ConfigMaps' queue configuration, pods' queues (YK-PL-QUEUE), namespaces' annotations (YK-G6)...
    cross_object_needs=frozenset({"ConfigMap", "Pod", "Namespace"}),
    # ...and what the snapshot behind YK-PL-QUEUE reads (kqctl.yunikorn.load.build_snapshot).
    cross_object_reads=frozenset({"ConfigMap", "Pod", "Namespace", kinds.QUEUES_CONFIG.kind, "PriorityClass", "Node",
                                  "LimitRange"}),
    cross_object_refusals=merged_config_maps,
)
