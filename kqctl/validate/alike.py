"""Objects written alike are checked once.

A cluster's Workloads come from a few templates: thousands of them differ only in their name, uid and
creation time. The per-object steps (defaulting, webhooks, schema, CEL) are pure functions of the body, and none
of them reads those three fields beyond checking their syntax, so an object that is written like one checked
before, and whose three fields are of a syntax every check accepts, gets that earlier check's answer: no finding,
and the body the server would store, with its own parts in it.

Kept only where that is safe to show:

- only Kueue's Workloads (they come by the thousand, and their checks are costly: CRD schema, CEL, Kueue's
  webhooks; a Pod's own checks cost about what its key would, so Pods are checked one by one);
- only an answer without any finding (a finding's message may name the object);
- only names that are DNS-1123 labels of at most 63 characters, canonical lowercase UUIDs and RFC 3339 UTC times
  (every name rule of the API server and the schedulers accepts those; the time is also a real date);
- only when the stored body holds none of the three values anywhere but in their own fields (a defaulting or
  webhook that copied the name elsewhere would make the body depend on it);
- the body is compared whole otherwise (``repr``: every type YAML reads stays apart, "1", 1 and True differ; keys
  in their order).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kqctl.k8s.names import is_dns1123_label
from kqctl.load.objects import LoadedObject
from kqctl.validate.profile import ValidationProfile

# (group, kind) of the kinds whose checks are shared between objects written alike.
SHARED_KINDS = frozenset({("kueue.x-k8s.io", "Workload")})
VOLATILE = ("name", "uid", "creationTimestamp")
# Entries kept at most (the memo is emptied when full): far more templates than a cluster has.
MEMO_LIMIT = 4096

_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?Z\Z")


class _Masked:
    """Stands for a volatile value in a key: its repr is no value's repr."""

    def __init__(self, shape: str) -> None:
        self.shape = shape

    def __repr__(self) -> str:
        return f"<{self.shape}>"


_NAME, _UID_MASK = _Masked("name"), _Masked("uid")
_TIME_MASKS = {digits: _Masked(f"time{digits}") for digits in range(10)}


@dataclass(frozen=True)
class _Kept:
    profiles: tuple[ValidationProfile, ...]  # held so that the ids in the key are not reused meanwhile
    body: dict[str, Any]
    stored: dict[str, Any]
    digest: bytes


_memo: dict[tuple[Any, ...], _Kept] = {}


def key_of(obj: LoadedObject, profiles: Sequence[ValidationProfile]) -> tuple[Any, ...] | None:
    """What decides the object's check, its volatile values masked; None when it cannot be shared."""
    info = obj.info
    if info is None or (info.group, info.kind) not in SHARED_KINDS or obj.findings or obj.overridden:
        return None
    body = obj.body
    metadata = body.get("metadata") if type(body) is dict else None
    if type(metadata) is not dict:
        return None
    masked: dict[str, Any] = {}
    for field, value in metadata.items():
        if field in VOLATILE:
            mask = _mask(field, value)
            if mask is None:
                return None
            masked[field] = mask
        else:
            masked[field] = value
    return tuple(map(id, profiles)), info, obj.read_for, repr({**body, "metadata": masked})


def _mask(field: str, value: Any) -> _Masked | None:
    if type(value) is not str:
        return None
    if field == "name":
        return _NAME if not is_dns1123_label(value) else None
    if field == "uid":
        return _UID_MASK if _UID.match(value) else None
    time = _TIME.match(value)
    if time is None or not _real_time(time):
        return None
    fraction = time.group(7)
    return _TIME_MASKS[len(fraction) - 1 if fraction else 0]


def _real_time(time: re.Match[str]) -> bool:
    year, month, day, hour, minute, second = (int(part) for part in time.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True


def digest(key: tuple[Any, ...]) -> bytes:
    """The key's body as a short digest, the same in every process: what a reader of the stored bodies may share
    between objects written alike (a Workload's model, built again with its own name, uid and creation time)."""
    return hashlib.blake2b(key[-1].encode(), digest_size=16).digest()


def recall(key: tuple[Any, ...], obj: LoadedObject) -> tuple[dict[str, Any], bytes] | None:
    """The body the server would store for ``obj``, from the check of an object written alike, and the digest of
    their key; None if none is kept."""
    kept = _memo.get(key)
    if kept is None:
        return None
    stored = _transplanted(kept.stored, kept.body, obj.body)
    metadata = stored.get("metadata")
    written = obj.body["metadata"]
    if type(metadata) is not dict or any(metadata.get(field) is not written.get(field) for field in VOLATILE):
        return None  # the stored metadata is not the written one's: check the object itself
    return stored, kept.digest


def keep(key: tuple[Any, ...], obj: LoadedObject, profiles: Sequence[ValidationProfile],
         stored: dict[str, Any]) -> bytes | None:
    """Keep the body a check without any finding stores for ``obj``, for the objects written alike that come later;
    returns the digest of its key when kept."""
    metadata = stored.get("metadata") if type(stored) is dict else None
    if type(metadata) is not dict:
        return None
    values = [obj.body["metadata"].get(field) for field in VOLATILE]
    if any(metadata.get(field) != value for field, value in zip(VOLATILE, values, strict=True)):
        return None
    elsewhere = repr({**stored, "metadata": {k: v for k, v in metadata.items() if k not in VOLATILE}})
    if any(value is not None and repr(value) in elsewhere for value in values):
        return None
    if len(_memo) >= MEMO_LIMIT:
        _memo.clear()
    kept = _Kept(tuple(profiles), obj.body, stored, digest(key))
    _memo[key] = kept
    return kept.digest


def forget() -> None:
    """Empty the memo (tests)."""
    _memo.clear()


def _transplanted(stored: Any, written: Any, other: Any) -> Any:
    """``stored`` (the body kept for ``written``) for ``other``, a body equal to ``written`` but for volatile
    values: every part the server left as written is ``other``'s own (as a fresh check would leave it, which
    :func:`~kqctl.validate.gate.defaulted_fields` relies on), the parts it filled in or changed are shared."""
    if stored is written:
        return other
    if type(stored) is dict and type(written) is dict and type(other) is dict:
        return {key: _transplanted(value, written.get(key), other.get(key)) for key, value in stored.items()}
    if type(stored) is list and type(written) is list and type(other) is list and len(written) == len(other):
        return [_transplanted(value, written[i], other[i]) if i < len(written) else value
                for i, value in enumerate(stored)]
    return stored
