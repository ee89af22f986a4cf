"""Queue properties (spec §5; yunikorn-core ``queue.go``: ``UpdateQueueProperties``, ``mergeProperties``,
``filterParentProperty``; ``pkg/scheduler/policies``).

Properties are strings the validator never checks: the queue parses each when it is built and falls back to
the default on any error, silently (V22). :func:`resolve` returns what the queue will actually use together
with the values that did not parse, so ``validate`` can say so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

SORT_POLICY = "application.sort.policy"
SORT_PRIORITY = "application.sort.priority"
PRIORITY_POLICY = "priority.policy"
PRIORITY_OFFSET = "priority.offset"
PREEMPTION_POLICY = "preemption.policy"
PREEMPTION_DELAY = "preemption.delay"
QUOTA_PREEMPTION_DELAY = "quota.preemption.delay"
BACKOFF = "application.unschedasks.backoff"
BACKOFF_DELAY = "application.unschedasks.backoff.delay"
KNOWN_KEYS = (SORT_POLICY, SORT_PRIORITY, PRIORITY_POLICY, PRIORITY_OFFSET, PREEMPTION_POLICY, PREEMPTION_DELAY,
              QUOTA_PREEMPTION_DELAY, BACKOFF, BACKOFF_DELAY)

Parser = Callable[[str], tuple[Any, bool]]

FIFO = "fifo"
FAIR = "fair"
DEFAULT = "default"
FENCE = "fence"
DISABLED = "disabled"

SECOND = 1_000_000_000  # durations are Go nanoseconds
DEFAULT_PREEMPTION_DELAY = 30 * SECOND
DEFAULT_BACKOFF_DELAY = 30 * SECOND
MIN_INT32 = -(1 << 31)
MAX_INT32 = (1 << 31) - 1


@dataclass(frozen=True)
class Unparsed:
    """A property value the queue ignored (V22): what it was, what is used instead, and why."""

    key: str
    value: str
    used: str
    reason: str


@dataclass(frozen=True)
class QueueSettings:
    """What a queue does with its properties (the fields ``UpdateQueueProperties`` sets)."""

    sort_policy: str = FIFO  # leaf: its applications' order; parents always sort children fair
    priority_sort_enabled: bool = True
    priority_offset: int = 0
    priority_policy: str = DEFAULT
    preemption_policy: str = DEFAULT
    preemption_delay: int = DEFAULT_PREEMPTION_DELAY
    quota_preemption_delay: int = 0
    unschedulable_asks_backoff: int = 0
    backoff_delay: int = DEFAULT_BACKOFF_DELAY
    unparsed: tuple[Unparsed, ...] = field(default=())
    unknown: tuple[str, ...] = ()  # keys YuniKorn does not know (V23)


def merge_parent(parent: dict[str, str], own: dict[str, str] | None) -> dict[str, str]:
    """``mergeProperties``: the parent's effective map, filtered (priority policy and offset reset, only a
    ``disabled`` preemption policy carried down), then overridden by the queue's own properties."""
    merged = {key: filter_parent_property(key, value) for key, value in parent.items()}
    merged.update(own or {})
    return merged


def filter_parent_property(key: str, value: str) -> str:
    if key == PRIORITY_POLICY:
        return DEFAULT
    if key == PRIORITY_OFFSET:
        return "0"
    if key == PREEMPTION_POLICY:
        policy, ok = preemption_policy(value)
        return value if ok and policy == DISABLED else DEFAULT
    return value


# A released version's property names -> the reference's (None: unknown to it), for validate --yunikorn-version
# (kqctl.yunikorn.validate.releases sets it around a check); empty: the reference's names.
_REFERENCE_NAMES: Mapping[str, str | None] = MappingProxyType({})
RELEASE_NAMES: ContextVar[Mapping[str, str | None]] = ContextVar("yunikorn_release_names", default=_REFERENCE_NAMES)


def known_keys() -> tuple[str, ...]:
    """The property names YuniKorn knows, as the release being validated spells them."""
    names = RELEASE_NAMES.get()
    if not names:
        return KNOWN_KEYS
    kept = [key for key in KNOWN_KEYS if names.get(key, key) is not None]
    return (*kept, *(written for written, meant in names.items() if meant is not None and written not in kept))


def resolve(properties: dict[str, str], leaf: bool) -> QueueSettings:
    """``resetProperties`` then ``UpdateQueueProperties`` on the queue's effective property map."""
    values: dict[str, object] = {"sort_policy": FIFO if leaf else FAIR}
    unparsed: list[Unparsed] = []
    unknown: list[str] = []
    names = RELEASE_NAMES.get()
    for key in sorted(properties):
        value = properties[key]
        meant = names.get(key, key) if names else key
        handler = _HANDLERS.get(meant) if meant is not None else None
        if handler is None:
            unknown.append(key)
            continue
        attribute, parse, default, leaf_only = handler
        if leaf_only and not leaf:
            continue  # YuniKorn reads these on leaves only
        parsed, ok = parse(value)
        values[attribute] = parsed
        if not ok:
            assert meant is not None
            unparsed.append(Unparsed(key, value, _shown(parsed), _REASONS[meant]))
    return QueueSettings(**values, unparsed=tuple(unparsed), unknown=tuple(unknown))  # type: ignore[arg-type]


def sort_policy(value: str) -> tuple[str, bool]:
    """``SortPolicyFromString`` (case-sensitive); ``stateaware`` is fifo; anything else falls back to fifo."""
    if value in (FIFO, "", "stateaware"):
        return FIFO, True
    if value == FAIR:
        return FAIR, True
    return FIFO, False


def sort_priority(value: str) -> tuple[bool, bool]:
    lowered = value.lower()
    if lowered in ("enabled", "disabled"):
        return lowered == "enabled", True
    return True, False


def priority_policy(value: str) -> tuple[str, bool]:
    lowered = value.lower()
    if lowered in (DEFAULT, ""):
        return DEFAULT, True
    if lowered == FENCE:
        return FENCE, True
    return DEFAULT, False


def preemption_policy(value: str) -> tuple[str, bool]:
    lowered = value.lower()
    if lowered in (DEFAULT, ""):
        return DEFAULT, True
    if lowered in (FENCE, DISABLED):
        return lowered, True
    return DEFAULT, False


_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")


def priority_offset(value: str) -> tuple[int, bool]:
    """``strconv.ParseInt(value, 10, 32)``; 0 on any error."""
    if not _DECIMAL.match(value):
        return 0, False
    number = int(value)
    return (number, True) if MIN_INT32 <= number <= MAX_INT32 else (0, False)


def unsigned(value: str) -> tuple[int, bool]:
    """``strconv.ParseUint(value, 10, 64)``; 0 on any error."""
    if not re.fullmatch(r"[0-9]+", value):
        return 0, False
    number = int(value)
    return (number, True) if number < (1 << 64) else (0, False)


def delay(default: int) -> Parser:
    def parse(value: str) -> tuple[int, bool]:
        """``convertDelay``: a Go duration > 0, else the default."""
        nanos = parse_go_duration(value)
        if nanos is None or nanos <= 0:
            return default, False
        return nanos, True
    return parse


_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": SECOND, "m": 60 * SECOND,
          "h": 3600 * SECOND}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def parse_go_duration(text: str) -> int | None:
    """``time.ParseDuration`` in nanoseconds; None when Go would refuse it ("10" lacks a unit)."""
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    if not body:
        return None
    total = 0.0
    position = 0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None or match.group(1) in ("", "."):
            return None
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if total > 2**63 - 1:
        return None
    return sign * int(round(total))


def format_duration(nanos: int) -> str:
    """Go's ``Duration.String`` for whole seconds and the common cases (``30s``, ``2m0s``, ``1h0m0s``)."""
    if nanos == 0:
        return "0s"
    if nanos % SECOND:
        return f"{nanos / SECOND:g}s"
    seconds = nanos // SECOND
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "enabled" if value else "disabled"
    if isinstance(value, int) and value >= SECOND:
        return format_duration(value)
    return str(value)


_HANDLERS: dict[str, tuple[str, Parser, object, bool]] = {
    SORT_POLICY: ("sort_policy", sort_policy, FIFO, True),
    SORT_PRIORITY: ("priority_sort_enabled", sort_priority, True, False),
    PRIORITY_OFFSET: ("priority_offset", priority_offset, 0, False),
    PRIORITY_POLICY: ("priority_policy", priority_policy, DEFAULT, False),
    PREEMPTION_POLICY: ("preemption_policy", preemption_policy, DEFAULT, False),
    PREEMPTION_DELAY: ("preemption_delay", delay(DEFAULT_PREEMPTION_DELAY), DEFAULT_PREEMPTION_DELAY, True),
    BACKOFF: ("unschedulable_asks_backoff", unsigned, 0, False),
    BACKOFF_DELAY: ("backoff_delay", delay(DEFAULT_BACKOFF_DELAY), DEFAULT_BACKOFF_DELAY, False),
    QUOTA_PREEMPTION_DELAY: ("quota_preemption_delay", delay(0), 0, False),
}
_REASONS = {
    SORT_POLICY: "not fifo, fair or stateaware (case-sensitive)",
    SORT_PRIORITY: "not enabled or disabled",
    PRIORITY_OFFSET: "not a 32-bit decimal integer",
    PRIORITY_POLICY: "not default or fence",
    PREEMPTION_POLICY: "not default, fence or disabled",
    PREEMPTION_DELAY: "not a positive Go duration such as 30s or 2m",
    BACKOFF: "not an unsigned decimal integer",
    BACKOFF_DELAY: "not a positive Go duration such as 30s or 2m",
    QUOTA_PREEMPTION_DELAY: "not a positive Go duration such as 30s or 2m",
}
