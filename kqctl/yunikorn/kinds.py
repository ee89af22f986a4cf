"""What kqctl reads as YuniKorn's: its two ConfigMaps by name, and a bare ``queues.yaml`` by its content.

YuniKorn has no CRDs (spec §1): its configuration lives in the ConfigMaps ``yunikorn-defaults`` and
``yunikorn-configs``; a ``queues.yaml`` on its own is a document with no ``apiVersion`` and no ``kind`` whose
top-level keys are YuniKorn's (``partitions``, ``checksum``), or close to them (a typo the strict parse will
then name). Everything else YuniKorn reads (Pods, Nodes, Namespaces, PriorityClasses) is a core kind.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from kqctl.k8s.kinds import KindInfo

SCHEDULER = "yunikorn"
GROUP = "yunikorn.apache.org"
CONFIG_MAP_NAMES = ("yunikorn-defaults", "yunikorn-configs")  # in merge order: yunikorn-configs wins
SCHEDULER_NAME = "yunikorn"  # pods' spec.schedulerName
DEFAULT_NAMESPACE = "yunikorn"  # where the Helm chart installs YuniKorn and its ConfigMaps

QUEUES_CONFIG = KindInfo(GROUP, "QueuesConfig", False, ("",), SCHEDULER, api_object=False)
CONFIG_MAP = KindInfo("", "ConfigMap", True, ("v1",), SCHEDULER)
KINDS: tuple[KindInfo, ...] = ()  # nothing registered by kind: both are recognised below

_TOP_LEVEL = ("partitions", "checksum")


def recognise(body: Mapping[str, Any]) -> KindInfo | None:
    """YuniKorn's ConfigMaps (by name) and a bare ``queues.yaml`` (by its keys)."""
    if "apiVersion" in body or "kind" in body:
        return CONFIG_MAP if is_config_map(body) else None
    keys = [key for key in body if isinstance(key, str)]
    if keys and all(key in _TOP_LEVEL or difflib.get_close_matches(key.lower(), _TOP_LEVEL, n=1, cutoff=0.7)
                    for key in keys):
        return QUEUES_CONFIG
    return None


def is_config_map(body: Mapping[str, Any]) -> bool:
    metadata = body.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return body.get("apiVersion") == "v1" and body.get("kind") == "ConfigMap" and name in CONFIG_MAP_NAMES


def is_yunikorn_pod(body: Mapping[str, Any]) -> bool:
    spec = body.get("spec")
    return isinstance(spec, Mapping) and spec.get("schedulerName") == SCHEDULER_NAME
