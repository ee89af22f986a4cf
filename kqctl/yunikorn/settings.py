"""The shim's typed settings in the two ConfigMaps (k8shim ``pkg/conf/schedulerconf.go``: ``parseConfig``).

The shim parses every typed ``service.*``, ``kubernetes.*`` and ``admissionController.*`` key of the flattened
ConfigMaps with Go's parsers (``time.ParseDuration``, ``strconv.ParseInt``, ``strconv.ParseBool``: no trimming), and
one that does not parse fails the whole configuration (``UpdateConfigMaps``: "failed to load configmap"): at
start-up the shim exits ("Unable to load initial configmaps"), on a change it ignores the change, every key of it,
the queue configuration included ("Unable to update configmap, ignoring changes"). The admission webhook only
validates the queue configuration, so such a ConfigMap is stored. kqctl reads the setting's default then, and
validate warns (YK-CONFIGMAP-SETTING).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from kqctl.yunikorn.api.configmap import Entry, Flattened


@dataclass(frozen=True)
class Setting:
    key: str
    kind: str  # "duration", "int32", "int64" or "bool"
    default: str  # as YuniKorn's documentation writes it


SETTINGS = {setting.key: setting for setting in (
    Setting("service.schedulingInterval", "duration", "1s"),
    Setting("service.volumeBindTimeout", "duration", "10m0s"),
    Setting("service.eventChannelCapacity", "int32", "1048576"),
    Setting("service.dispatchTimeout", "duration", "5m0s"),
    Setting("service.disableGangScheduling", "bool", "false"),
    Setting("service.enableConfigHotRefresh", "bool", "true"),
    Setting("service.placeholderRunAsUser", "int64", "the placeholder image's"),
    Setting("service.placeholderRunAsGroup", "int64", "the placeholder image's"),
    Setting("service.placeholderFsGroup", "int64", "the placeholder image's"),
    Setting("kubernetes.qps", "int32", "1000"),
    Setting("kubernetes.burst", "int32", "1000"),
    Setting("admissionController.filtering.generateUniqueAppId", "bool", "false"),
)}
SCHEDULING_INTERVAL = "service.schedulingInterval"
DISABLE_GANG_SCHEDULING = "service.disableGangScheduling"
GENERATE_UNIQUE_APP_IDS = "admissionController.filtering.generateUniqueAppId"

_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_WHAT = {"duration": "a Go duration (time.ParseDuration: 500ms, 2s, 1m30s)",
         "int32": "a 32-bit decimal integer", "int64": "a 64-bit decimal integer",
         "bool": "a boolean (strconv.ParseBool: true, false, 1, 0, t, f)"}


def duration(text: str) -> int | None:
    """``time.ParseDuration`` in nanoseconds, untrimmed as the shim reads it; None when Go refuses it."""
    from kqctl.yunikorn.engine.properties import parse_go_duration

    return parse_go_duration(text)


def boolean(text: str) -> bool | None:
    """``strconv.ParseBool``; None when Go refuses it."""
    return True if text in _TRUE else False if text in _FALSE else None


def _integer(text: str, bits: int) -> int | None:
    if _INTEGER.fullmatch(text) is None:
        return None
    value = int(text)
    return value if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else None


def problem(key: str, text: str) -> str:
    """Why the shim refuses the value of setting ``key``; "" when it parses (or the key is not a typed setting)."""
    setting = SETTINGS.get(key)
    if setting is None:
        return ""
    parsed: object
    if setting.kind == "duration":
        parsed = duration(text)
    elif setting.kind == "bool":
        parsed = boolean(text)
    else:
        parsed = _integer(text, 32 if setting.kind == "int32" else 64)
    if parsed is not None:
        return ""
    return (f"{text!r} is not {_WHAT[setting.kind]}: the shim refuses the whole configuration (at start-up it "
            "exits, on a change it ignores every key of the change, the queue configuration included); kqctl uses "
            f"the default, {setting.default}")


def hint(key: str) -> str:
    setting = SETTINGS[key]
    example = {"duration": "a duration such as 2s", "bool": "true or false"}.get(setting.kind, "a whole number")
    return f"write {example}, or remove the key (the default is {setting.default})"


def problems(flattened: Flattened) -> Iterator[tuple[Entry, str]]:
    """Every typed setting of the flattened ConfigMaps the shim cannot parse, with why."""
    for key, entry in flattened.entries.items():
        why = problem(key, entry.text)
        if why:
            yield entry, why


def value(flattened: Flattened, key: str) -> str | None:
    """The text of setting ``key`` as the shim uses it: None when absent or refused (the default applies)."""
    entry = flattened.entries.get(key)
    if entry is None or problem(key, entry.text):
        return None
    return entry.text
