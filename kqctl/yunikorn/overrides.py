"""``--set queue/QUEUE-PATH.FIELD=VALUE`` on YuniKorn's queue configuration: what-if edits of the queues.yaml (a bare
file, or the ConfigMap key YuniKorn reads) without editing it.

The queue is named by its path from ``root`` in partition ``default`` (``root.tenant1``); the field is one of
``properties.KEY`` (a property; its key may hold dots: ``properties.priority.offset``),
``resources.guaranteed.RESOURCE`` or ``resources.max.RESOURCE``, ``maxapplications``, ``submitacl``, ``adminacl``.
The edited configuration then goes through the same checks as a file's (validate's, YuniKorn's validator): what
they find at the field the override sets and did not find before (an unknown property key, a value that does not
parse, a resource pods never ask for, a value YuniKorn refuses) is a usage error naming the override, with
validate's message and hint. Every mistake is a usage error naming the override; a queue that is not in the
configuration but that placement creates (a dynamic queue) is named as such.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Sequence
from typing import Any

import yaml

from kqctl.errors import UsageError
from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import Document
from kqctl.load.objects import LoadedObject
from kqctl.load.overrides import Override
from kqctl.yunikorn import kinds
from kqctl.yunikorn.api import configmap
from kqctl.yunikorn.api.names import DEFAULT_PARTITION, ROOT

FIELDS = ("properties.KEY", "resources.guaranteed.RESOURCE", "resources.max.RESOURCE", "maxapplications",
          "submitacl", "adminacl")
_HEADS = ("properties", "resources", "maxapplications", "submitacl", "adminacl")


def is_queue_override(override: Override, objects: Sequence[LoadedObject]) -> bool:
    """A ``queue/root...`` override, and the inputs hold a YuniKorn queue configuration to change (a Volcano Queue
    or a LocalQueue is never named ``root...``)."""
    target = override.target.lower()
    return override.kind == "LocalQueue" and (target == ROOT or target.startswith(ROOT + ".")) \
        and any(obj.info in (kinds.QUEUES_CONFIG, kinds.CONFIG_MAP) for obj in objects)


def apply_queue_override(objects: Sequence[LoadedObject], override: Override) -> list[LoadedObject]:
    """The objects with the queue configuration edited (the inputs are left untouched)."""
    index, text, key = _holder(objects, override)
    try:
        data = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        raise UsageError(f"--set {override.text!r}: the queue configuration is not valid YAML (kqctl validate shows "
                         "where)") from None
    if not isinstance(data, dict):
        raise UsageError(f"--set {override.text!r}: the queue configuration holds no partitions to change")
    where = _edit(data, override, objects)
    obj = objects[index]
    _check(text, data, where, override, obj)
    edited = list(objects)
    if obj.info is kinds.QUEUES_CONFIG:
        # The loader reads a bare file's composed node when it has one: the edited body stands alone.
        edited[index] = dataclasses.replace(obj, body=data, document=Document(obj.origin, data),
                                            overridden=(*obj.overridden, ((), override.text)))
    else:
        body = json.loads(json.dumps(obj.body))
        body.setdefault("data", {})[key] = _dump(data)
        edited[index] = dataclasses.replace(obj, body=body,
                                            overridden=(*obj.overridden, (("data", key), override.text)))
    return edited


def _holder(objects: Sequence[LoadedObject], override: Override) -> tuple[int, str, str]:
    """The object whose text YuniKorn reads its queues from: a bare queues.yaml, else the ConfigMap key."""
    for index, obj in enumerate(objects):
        if obj.info is kinds.QUEUES_CONFIG:
            return index, _dump(obj.body), ""
    maps = {obj.name: (index, obj) for index, obj in enumerate(objects) if obj.info is kinds.CONFIG_MAP}
    ordered = [maps[name][1].body for name in kinds.CONFIG_MAP_NAMES if name in maps]
    entry = configmap.flatten(ordered).queue_config()
    if entry is None or entry.field != "data":
        raise UsageError(f"--set {override.text!r}: the inputs hold no queues.yaml to change (YuniKorn would use its "
                         "built-in default, or the configuration is in binaryData)")
    index, _ = maps[entry.source]
    return index, entry.text, entry.raw_key


def _edit(data: dict[str, Any], override: Override, objects: Sequence[LoadedObject]) -> tuple[str | int, ...]:
    """Sets the override's field in ``data``; returns the field's path in it (as validate's findings name it)."""
    partitions = data.get("partitions")
    number, partition = next(((i, p) for i, p in enumerate(partitions) if isinstance(p, dict) and
                              str(p.get("name", "")).lower() == DEFAULT_PARTITION), (0, None)) \
        if isinstance(partitions, list) else (0, None)
    queues = partition.get("queues") if partition is not None else None
    if not isinstance(queues, list) or not queues or not isinstance(queues[0], dict):
        raise UsageError(f"--set {override.text!r}: partition default has no queues to change")
    parts = override.target.split(".")
    queue, path = queues[0], [str(queues[0].get("name", ROOT))]
    where: tuple[str | int, ...] = ("partitions", number, "queues", 0)
    rest = parts[1:]
    while rest:
        found = next(((i, c) for i, c in enumerate(queue.get("queues") or []) if isinstance(c, dict)
                      and str(c.get("name", "")).lower() == rest[0].lower()), None)
        if found is None:
            break
        index, child = found
        queue, path, rest, where = child, [*path, str(child.get("name"))], rest[1:], (*where, "queues", index)
    if not rest:
        raise UsageError(f"--set {override.text!r}: no field after the queue path; set one of {', '.join(FIELDS)}")
    if rest[0] not in _HEADS and len(rest) > 1:
        _dynamic(objects, override, ".".join(path), rest)
    return (*where, *_set_field(queue, rest, ".".join(path), override))


def _dynamic(objects: Sequence[LoadedObject], override: Override, configured: str, rest: list[str]) -> None:
    """The override names a queue below ``configured`` that the configuration does not hold: when placement creates
    it (a dynamic queue), say so; --set only edits configured queues."""
    from kqctl.errors import InputError
    from kqctl.load.objects import LoadResult
    from kqctl.yunikorn.engine.partition import PartitionError, build_partition
    from kqctl.yunikorn.load import build_snapshot

    try:
        partition = build_partition(build_snapshot(LoadResult(list(objects), [])))
    except (InputError, PartitionError):
        return
    for length in range(len(rest), 0, -1):
        queue = partition.tree.get(".".join([configured, *rest[:length]]).lower())
        if queue is None or queue.managed:
            continue
        apps = sorted(app.app_id for app in partition.apps.values()
                      if app.queue is not None and (app.queue is queue or queue in app.queue.ancestors()))
        rules = sorted({app.placement for app in partition.apps.values() if app.app_id in apps and app.placement})
        made = f" by placement ({', '.join(rules)}) for {', '.join(apps[:3])}{' and more' if len(apps) > 3 else ''}" \
            if apps else " by placement"
        raise UsageError(
            f"--set {override.text!r}: {queue.path} is a dynamic queue, not in the configuration: it is created"
            f"{made}; --set changes configured queues only: add {queue.path} to the configuration, or change what "
            f"{configured} gives its dynamic children (its childtemplate, in the file)")


def _set_field(queue: dict[str, Any], field: list[str], path: str, override: Override) -> tuple[str, ...]:
    """Sets the field; returns its path below the queue."""
    value = override.value
    head = field[0]
    if head == "properties" and len(field) > 1:
        properties = queue.setdefault("properties", {}) or {}
        queue["properties"] = properties
        key = ".".join(field[1:])
        properties[key] = _text(value)
        return ("properties", key)
    if head == "resources" and len(field) == 3 and field[1] in ("guaranteed", "max"):
        resources = queue.setdefault("resources", {}) or {}
        queue["resources"] = resources
        limits = resources.setdefault(field[1], {}) or {}
        resources[field[1]] = limits
        limits[field[2]] = _text(value)
        return ("resources", field[1], field[2])
    if head == "maxapplications" and len(field) == 1:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise UsageError(f"--set {override.text!r}: maxapplications is a whole number (0: no limit)")
        queue["maxapplications"] = value
        return ("maxapplications",)
    if head in ("submitacl", "adminacl") and len(field) == 1:
        queue[head] = _text(value)
        return (head,)
    raise UsageError(f"--set {override.text!r}: {'.'.join(field)} is not a queue field: set one of "
                     f"{', '.join(FIELDS)}{_field_hint(queue, field, path)}")


def _field_hint(queue: dict[str, Any], field: list[str], path: str) -> str:
    """A did-you-mean for a misspelt field (resource.max.vcore), or the queue's children for a misspelt queue."""
    head = field[0]
    close_head = difflib.get_close_matches(head.lower(), _HEADS, n=1, cutoff=0.6)
    if close_head and close_head[0] == "resources" and len(field) == 3:
        middle = difflib.get_close_matches(field[1].lower(), ("guaranteed", "max"), n=1, cutoff=0.5)
        return f" (did you mean resources.{middle[0] if middle else field[1]}.{field[2]}?)"
    if close_head and close_head[0] != head and (close_head[0] != "resources" or len(field) == 3):
        return f" (did you mean {'.'.join([close_head[0], *field[1:]])}?)"
    if head == "resources":
        return " (resources.guaranteed.RESOURCE or resources.max.RESOURCE, e.g. resources.max.vcore)"
    children = [str(c.get("name")) for c in queue.get("queues") or [] if isinstance(c, dict)]
    close = difflib.get_close_matches(head, children, n=1)
    return (f"; queue {path} has no child {head!r} (did you mean {close[0]}?)" if close else
            f"; queue {path} has children {', '.join(children)}" if children else "")


def _check(before: str, after: dict[str, Any], where: tuple[str | int, ...], override: Override,
           holder: LoadedObject) -> None:
    """validate's checks of the edited configuration: a finding at the field set (or a queue setting it belongs to)
    that the configuration did not have before refuses the override, with validate's words. An error (YuniKorn
    refuses the configuration) ends the command as a value the API server rejects does for Kueue and Volcano (exit 3,
    located at the configuration the --set changes); a warning (a key YuniKorn ignores, a value it replaces by its
    default) is a usage error: the --set would change nothing the way it says."""
    from kqctl.errors import InputError
    from kqctl.findings import Severity
    from kqctl.yunikorn.validate.checks import check_config_text

    def related(path: tuple[str | int, ...]) -> bool:
        shorter = min(len(path), len(where))
        return len(path) > 4 and path[:shorter] == where[:shorter]

    known = {(f.rule_id, f.path, f.message) for f in check_config_text(before).findings}
    for finding in check_config_text(_dump(after)).findings:
        if finding.severity is Severity.INFO or (finding.rule_id, finding.path, finding.message) in known \
                or not related(finding.path):
            continue
        hint = f" ({finding.hint})" if finding.hint else ""
        if finding.severity is Severity.ERROR:
            why = f"{finding.rule_id}; {finding.hint}" if finding.hint else finding.rule_id
            raise InputError(holder.origin.file, f"--set {override.text!r}: YuniKorn would reject the queue "
                             f"configuration: {finding.message} ({why}; kqctl validate shows every problem)",
                             line=holder.origin.line, index=holder.origin.index)
        raise UsageError(f"--set {override.text!r}: {finding.message} ({finding.rule_id}, as kqctl validate says of "
                         f"it in a file){hint}")


class _Dumper(yaml.SafeDumper):
    """YAML's safe dumper that writes a number the loader kept as written (``vcore: 2.5``) as its text."""


_Dumper.add_representer(LiteralFloat, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:float",
                                                                                     value.text))


def _dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False)


def _text(value: Any) -> str:
    """queues.yaml holds these as strings (``map[string]string``): YAML's scalar as text (true, not True)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
