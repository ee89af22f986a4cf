"""Where YuniKorn's queue configuration comes from (spec §1; k8shim ``pkg/conf/schedulerconf.go``:
``FlattenConfigMaps``, ``Decompress``; ``GetPendingPolicyGroup``).

The two ConfigMaps are flattened key by key, ``yunikorn-defaults`` first and ``yunikorn-configs`` over it;
within each, ``binaryData`` after ``data``. A ``binaryData`` key ending in ``.gz`` is gunzipped and loses the
suffix; any other ``binaryData`` key loses its last dotted part and its value (the shim only decompresses).
The queue configuration is the value of ``<service.policyGroup>.yaml`` (``queues.yaml`` by default); none
means YuniKorn's built-in default.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

POLICY_GROUP_KEY = "service.policyGroup"
DEFAULT_POLICY_GROUP = "queues"


@dataclass(frozen=True)
class Entry:
    """One flattened key: its text, and which ConfigMap field it came from (for locating findings)."""

    key: str
    text: str
    source: str  # the ConfigMap's name
    field: str  # "data" or "binaryData"
    raw_key: str  # the key as written (binaryData keys keep their .gz)


@dataclass
class Flattened:
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (source, field path key, message)
    refused: list[str] = field(default_factory=list)  # data keys whose value is not a string (the server refuses)

    @property
    def policy_group(self) -> str:
        entry = self.entries.get(POLICY_GROUP_KEY)
        return entry.text if entry is not None and entry.text else DEFAULT_POLICY_GROUP

    @property
    def config_key(self) -> str:
        return f"{self.policy_group}.yaml"

    def queue_config(self) -> Entry | None:
        """The entry YuniKorn reads its queues from; None means its built-in default."""
        return self.entries.get(self.config_key)


def flatten(config_maps: Sequence[Mapping[str, Any]]) -> Flattened:
    """``FlattenConfigMaps`` over ConfigMap bodies given in merge order (defaults, then configs)."""
    result = Flattened()
    for body in config_maps:
        metadata = body.get("metadata")
        name = str(metadata.get("name", "")) if isinstance(metadata, Mapping) else ""
        data = body.get("data")
        for key, value in (data.items() if isinstance(data, Mapping) else ()):
            if value is not None and not isinstance(value, str):
                # Not map[string]string: the API server refuses the ConfigMap (SCHEMA-TYPE), YuniKorn never sees it.
                result.refused.append(str(key))
                continue
            result.entries[str(key)] = Entry(str(key), value or "", name, "data", str(key))
        binary = body.get("binaryData")
        for key, value in (binary.items() if isinstance(binary, Mapping) else ()):
            stripped, text, problem = decompress(str(key), value)
            if problem:
                result.problems.append((name, str(key), problem))
            result.entries[stripped] = Entry(stripped, text, name, "binaryData", str(key))
    return result


def decompress(key: str, value: Any) -> tuple[str, str, str]:
    """``Decompress``: (key without its last dotted part, text, problem or "")."""
    algorithm = key.split(".")[-1]
    stripped = key[: -len(algorithm) - 1] if key.endswith("." + algorithm) else key
    if algorithm.lower() != "gz":
        return stripped, "", (f"binaryData key {key} is not gzip-compressed (.gz): YuniKorn stores it as key "
                              f"{stripped!r} with an empty value")
    try:
        raw = base64.b64decode(str(value), validate=True)
        return stripped, gzip.decompress(raw).decode("utf-8"), ""
    except (binascii.Error, ValueError, OSError, EOFError, zlib.error, UnicodeDecodeError):
        return "", "", (f"binaryData key {key} is not valid base64 gzip data: YuniKorn cannot decompress it and "
                        "drops it")
