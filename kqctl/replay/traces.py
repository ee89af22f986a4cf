"""Arrival traces: when which workload is submitted, to which queue, with what shape and runtime.

A trace is a CSV file with a header row, or a YAML list of mappings, with these fields:

* ``time`` (required): an offset from the replay's start (``0s``, ``90s``, ``1h30m``) or an RFC 3339
  time (``2026-01-01T09:00:00Z``);
* ``namespace`` and ``queue`` (required): the workload's namespace and LocalQueue;
* ``name`` (default ``trace-<n>``, n the row number), ``priority`` (a number) or ``priorityClass``
  (a WorkloadPriorityClass name), ``pods`` (default 1), ``runtime`` (a duration, e.g. ``45m``);
* the per-pod requests: a ``requests`` field (YAML: a mapping; CSV: ``cpu=2 memory=4Gi``, pairs
  separated by spaces or semicolons) and/or one column per resource (``cpu``, ``memory``,
  ``nvidia.com/gpu``: any other field name is taken as a resource).

Quantities are exact integers (cpu in milli-cores, memory in bytes), as everywhere in kqctl.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kqctl.k8s.core import ModelError, parse_time
from kqctl.k8s.quantity import QuantityError, parse_quantity, resource_value
from kqctl.replay.durations import DurationError, parse_duration

FIELDS = ("time", "namespace", "queue", "name", "priority", "priorityClass", "pods", "runtime", "requests")


class TraceError(ValueError):
    """A trace row that cannot be read: its line (1-based) and field say where."""

    def __init__(self, line: int, field: str | None, message: str) -> None:
        self.line = line
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


@dataclass(frozen=True)
class TraceRow:
    line: int
    at: int | datetime  # ms offset from the start, or an absolute time
    namespace: str
    queue: str
    name: str
    priority: int | None
    priority_class: str | None
    pods: int
    requests: tuple[tuple[str, int], ...]  # per pod, exact integers (QTY-5)
    runtime: int | None  # ms


def parse_csv_trace(text: str) -> list[TraceRow]:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        return []
    headers = [h.strip() for h in reader.fieldnames]
    rows = []
    for number, raw in enumerate(reader, start=1):
        values = {header: (value or "").strip() for header, value in zip(headers, raw.values(), strict=False)}
        rows.append(_row(reader.line_num, number, {k: v for k, v in values.items() if v != ""}))
    return rows


def parse_yaml_trace(data: Any, lines: list[int] | None = None) -> list[TraceRow]:
    """A list of mappings (the YAML document already parsed); ``lines`` gives each item's line if known."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise TraceError(1, None, "expected a list of arrivals (mappings with time, namespace, queue, ...)")
    rows = []
    for number, item in enumerate(data, start=1):
        line = lines[number - 1] if lines is not None and number - 1 < len(lines) else number
        if not isinstance(item, Mapping):
            raise TraceError(line, None, f"arrival {number}: expected a mapping, got {type(item).__name__}")
        rows.append(_row(line, number, item))
    return rows


def _row(line: int, number: int, item: Mapping[str, Any]) -> TraceRow:
    def text(key: str, required: bool = False) -> str | None:
        value = item.get(key)
        if value is None or value == "":
            if required:
                raise TraceError(line, key, "required")
            return None
        if isinstance(value, (dict, list)):
            raise TraceError(line, key, f"expected a single value, got {type(value).__name__}")
        return str(value)

    at = _time(line, item.get("time"))
    priority = _integer(line, "priority", text("priority"))
    pods = _integer(line, "pods", text("pods"))
    if pods is not None and pods < 1:
        raise TraceError(line, "pods", "expected at least 1")
    runtime_text = text("runtime")
    runtime = _duration(line, "runtime", runtime_text) if runtime_text is not None else None
    if runtime is not None and runtime <= 0:
        raise TraceError(line, "runtime", "must be longer than 0")
    return TraceRow(line, at, text("namespace", True) or "", text("queue", True) or "",
                    text("name") or f"trace-{number}", priority, text("priorityClass"), pods or 1,
                    _requests(line, item), runtime)


def _time(line: int, raw: Any) -> int | datetime:
    if raw is None or raw == "":
        raise TraceError(line, "time", "required: an offset such as 90s or an RFC 3339 time")
    if isinstance(raw, datetime):
        return parse_time(raw, ())
    text = str(raw).strip()
    if "T" in text or "t" in text:
        try:
            return parse_time(text, ())
        except ModelError as exc:
            raise TraceError(line, "time", exc.detail) from None
    offset = _duration(line, "time", text)
    if offset < 0:
        raise TraceError(line, "time", "must not be negative")
    return offset


def _duration(line: int, field: str, text: str) -> int:
    try:
        return parse_duration(text)
    except DurationError as exc:
        raise TraceError(line, field, str(exc)) from None


def _integer(line: int, field: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise TraceError(line, field, f"expected a whole number, got {text!r}") from None


def _requests(line: int, item: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    found: dict[str, Any] = {}
    raw = item.get("requests")
    if isinstance(raw, Mapping):
        found.update({str(k): v for k, v in raw.items()})
    elif isinstance(raw, str) and raw.strip():
        for pair in raw.replace(";", " ").split():
            name, sep, value = pair.partition("=")
            if not sep or not name or not value:
                raise TraceError(line, "requests", f"{pair!r}: expected RESOURCE=QUANTITY, e.g. cpu=2")
            found[name] = value
    elif raw is not None and raw != "":
        raise TraceError(line, "requests", "expected RESOURCE=QUANTITY pairs or a mapping")
    for key, value in item.items():
        if key not in FIELDS and value not in (None, ""):
            found[str(key)] = value
    result = []
    for name, value in sorted(found.items()):
        try:
            result.append((name, resource_value(name, parse_quantity(value))))
        except QuantityError as exc:
            raise TraceError(line, name, f"{value!r}: {exc}") from None
    if not result:
        raise TraceError(line, "requests", "no request: give requests or a column per resource (cpu, memory, ...)")
    return tuple(result)
