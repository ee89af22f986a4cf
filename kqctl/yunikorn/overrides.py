"""``--set queue/QUEUE-PATH.FIELD=VALUE`` on YuniKorn's queue configuration: what-if edits of the queues.yaml (a bare
file, or the ConfigMap key YuniKorn reads) without editing it.

The queue is named by its path from ``root`` in partition ``default`` (``root.tenant1``); the field is one of
``properties.KEY`` (a property; its key may hold dots: ``properties.priority.offset``),
``resources.guaranteed.RESOURCE`` or ``resources.max.RESOURCE``, ``maxapplications``, ``submitacl``, ``adminacl``.
The edited configuration then goes through the same checks as a file's (validate's, YuniKorn's validator), so a
value YuniKorn would refuse is refused. Every mistake is a usage error naming the override.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Sequence
from typing import Any

import yaml

from kqctl.errors import UsageError
from kqctl.load.documents import Document
from kqctl.load.objects import LoadedObject
from kqctl.load.overrides import Override
from kqctl.yunikorn import kinds
from kqctl.yunikorn.api import configmap
from kqctl.yunikorn.api.names import DEFAULT_PARTITION, ROOT

FIELDS = ("properties.KEY", "resources.guaranteed.RESOURCE", "resources.max.RESOURCE", "maxapplications",
          "submitacl", "adminacl")


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
    _edit(data, override)
    obj = objects[index]
    edited = list(objects)
    if obj.info is kinds.QUEUES_CONFIG:
        # The loader reads a bare file's composed node when it has one: the edited body stands alone.
        edited[index] = dataclasses.replace(obj, body=data, document=Document(obj.origin, data),
                                            overridden=(*obj.overridden, ((), override.text)))
    else:
        body = json.loads(json.dumps(obj.body))
        body.setdefault("data", {})[key] = yaml.safe_dump(data, sort_keys=False)
        edited[index] = dataclasses.replace(obj, body=body,
                                            overridden=(*obj.overridden, (("data", key), override.text)))
    return edited


def _holder(objects: Sequence[LoadedObject], override: Override) -> tuple[int, str, str]:
    """The object whose text YuniKorn reads its queues from: a bare queues.yaml, else the ConfigMap key."""
    for index, obj in enumerate(objects):
        if obj.info is kinds.QUEUES_CONFIG:
            return index, yaml.safe_dump(obj.body, sort_keys=False), ""
    maps = {obj.name: (index, obj) for index, obj in enumerate(objects) if obj.info is kinds.CONFIG_MAP}
    ordered = [maps[name][1].body for name in kinds.CONFIG_MAP_NAMES if name in maps]
    entry = configmap.flatten(ordered).queue_config()
    if entry is None or entry.field != "data":
        raise UsageError(f"--set {override.text!r}: the inputs hold no queues.yaml to change (YuniKorn would use its "
                         "built-in default, or the configuration is in binaryData)")
    index, _ = maps[entry.source]
    return index, entry.text, entry.raw_key


def _edit(data: dict[str, Any], override: Override) -> None:
    partitions = data.get("partitions")
    partition = next((p for p in partitions if isinstance(p, dict) and str(p.get("name", "")).lower()
                      == DEFAULT_PARTITION), None) if isinstance(partitions, list) else None
    queues = partition.get("queues") if partition is not None else None
    if not isinstance(queues, list) or not queues or not isinstance(queues[0], dict):
        raise UsageError(f"--set {override.text!r}: partition default has no queues to change")
    parts = override.target.split(".")
    queue, path = queues[0], [str(queues[0].get("name", ROOT))]
    rest = parts[1:]
    while rest:
        children = [c for c in queue.get("queues") or [] if isinstance(c, dict)]
        child = next((c for c in children if str(c.get("name", "")).lower() == rest[0].lower()), None)
        if child is None:
            break
        queue, path, rest = child, [*path, str(child.get("name"))], rest[1:]
    if not rest:
        raise UsageError(f"--set {override.text!r}: no field after the queue path; set one of {', '.join(FIELDS)}")
    _set_field(queue, rest, ".".join(path), override)


def _set_field(queue: dict[str, Any], field: list[str], path: str, override: Override) -> None:
    value = override.value
    head = field[0]
    if head == "properties" and len(field) > 1:
        properties = queue.setdefault("properties", {}) or {}
        queue["properties"] = properties
        properties[".".join(field[1:])] = _text(value)
    elif head == "resources" and len(field) == 3 and field[1] in ("guaranteed", "max"):
        resources = queue.setdefault("resources", {}) or {}
        queue["resources"] = resources
        limits = resources.setdefault(field[1], {}) or {}
        resources[field[1]] = limits
        limits[field[2]] = _text(value)
    elif head == "maxapplications" and len(field) == 1:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise UsageError(f"--set {override.text!r}: maxapplications is a whole number (0: no limit)")
        queue["maxapplications"] = value
    elif head in ("submitacl", "adminacl") and len(field) == 1:
        queue[head] = _text(value)
    else:
        children = [str(c.get("name")) for c in queue.get("queues") or [] if isinstance(c, dict)]
        close = difflib.get_close_matches(head, children, n=1)
        hint = (f"; queue {path} has no child {head!r} (did you mean {close[0]}?)" if close else
                f"; queue {path} has children {', '.join(children)}" if children else "")
        raise UsageError(f"--set {override.text!r}: {'.'.join(field)} is not a queue field: set one of "
                         f"{', '.join(FIELDS)}{hint}")


def _text(value: Any) -> str:
    """queues.yaml holds these as strings (``map[string]string``): YAML's scalar as text (true, not True)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
