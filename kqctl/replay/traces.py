"""Arrival traces: when which workload is submitted, to which queue, with what shape and runtime.

A trace is a CSV file with a header row, or a YAML list of mappings, with these fields:

* ``time`` (required): an offset from the replay's start (``0s``, ``90s``, ``1h30m``) or an RFC 3339
  time (``2026-01-01T09:00:00Z``);
* ``namespace`` and ``queue`` (required): the workload's namespace and its queue in the scheduler's words (a
  Kueue LocalQueue, a Volcano Queue, a YuniKorn queue path such as ``root.tenant1``);
* ``name`` (default ``trace-<n>``, n the row number), ``priority`` (a number) or ``priorityClass``
  (a WorkloadPriorityClass name), ``pods`` (default 1), ``runtime`` (a duration, e.g. ``45m``);
* the per-pod requests: a ``requests`` field (YAML: a mapping; CSV: ``cpu=2 memory=4Gi``, pairs
  separated by spaces or semicolons) and/or one column per resource.

A resource is named as a Pod may request it: ``cpu``, ``memory``, ``ephemeral-storage``,
``hugepages-<size>``, or a name with a domain prefix (``nvidia.com/gpu``, ``example.com/fpga``).
Any other field name is an error with the nearest known field or resource ("did you mean
runtime?"), so a misspelt column never turns silently into a resource nobody offers. Names
(``namespace``: a DNS-1123 label; ``name``: a DNS-1123 subdomain), ``priority`` and ``pods``
(32-bit, as the API) are checked as the API server would; errors name the line and, in a CSV, the
column.

Quantities are exact integers (cpu in milli-cores, memory in bytes), as everywhere in kqctl.
"""

from __future__ import annotations

import csv
import difflib
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from kqctl.k8s.core import ModelError, parse_time
from kqctl.k8s.names import is_dns1123_label, is_dns1123_subdomain
from kqctl.k8s.pods import is_extended_resource
from kqctl.k8s.quantity import QuantityError, parse_quantity, resource_value
from kqctl.replay.durations import DurationError, parse_duration

FIELDS = ("time", "namespace", "queue", "name", "priority", "priorityClass", "pods", "runtime", "requests")
# Resource names a Pod may request without a domain prefix (Kubernetes' standard container resources).
STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage")
HUGEPAGES_PREFIX = "hugepages-"
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class TraceError(ValueError):
    """A trace row that cannot be read: its line (1-based), field and, in a CSV, column (1-based) say where."""

    def __init__(self, line: int, field: str | None, message: str, column: int | None = None) -> None:
        self.line = line
        self.field = field
        self.column = column
        super().__init__(f"{field}: {message}" if field else message)


def is_resource_name(name: str) -> bool:
    """Whether a Pod could request ``name``: a standard resource, hugepages-SIZE, or a domain-prefixed name."""
    if name in STANDARD_RESOURCES or (name.startswith(HUGEPAGES_PREFIX) and len(name) > len(HUGEPAGES_PREFIX)):
        return True
    prefix, slash, rest = name.partition("/")
    return bool(slash) and not is_dns1123_subdomain(prefix) and bool(rest) and "/" not in rest


def unknown_name_message(name: str, field: bool = True) -> str:
    """Why ``name`` is refused (a field of the row, or a resource in ``requests``), with the nearest known name."""
    known = [*FIELDS, *STANDARD_RESOURCES] if field else list(STANDARD_RESOURCES)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    fields = f"a field is one of {', '.join(FIELDS)}; " if field else ""
    return (f"unknown {'field' if field else 'resource'} {name!r}{hint}: {fields}a resource is cpu, memory, "
            "ephemeral-storage, hugepages-SIZE or a name with a domain prefix such as nvidia.com/gpu")


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
    columns: tuple[tuple[str, int], ...] = ()  # a CSV's column (1-based) of each field, for located errors

    def column(self, field: str) -> int | None:
        return dict(self.columns).get(field)


QueueCheck = Callable[[str], list[str]]  # a queue name's problems, in the scheduler's words ([] when valid)


def parse_csv_trace(text: str, queue_check: QueueCheck = is_dns1123_subdomain) -> list[TraceRow]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
        return []
    headers = [h.strip() for h in header]
    columns = _check_header(headers)
    located = tuple(columns.items())
    rows = []
    for number, raw in enumerate((r for r in reader if any(cell.strip() for cell in r)), start=1):
        if len(raw) > len(headers):
            raise TraceError(reader.line_num, None, f"{len(raw)} fields, but the header names {len(headers)}",
                             column=len(headers) + 1)
        values = {h: v.strip() for h, v in zip(headers, raw, strict=False) if v.strip() != ""}
        try:
            rows.append(replace(_row(reader.line_num, number, values, queue_check), columns=located))
        except TraceError as exc:
            if exc.column is None and exc.field is not None:
                exc.column = columns.get(exc.field, columns.get("requests"))
            raise
    return rows


def _check_header(headers: list[str]) -> dict[str, int]:
    """Column (1-based) of each header; an unknown or repeated one is an error located on line 1."""
    columns: dict[str, int] = {}
    for column, name in enumerate(headers, start=1):
        if not name:
            raise TraceError(1, None, "a column without a name in the header", column=column)
        if name in columns:
            raise TraceError(1, name, f"repeats column {columns[name]}", column=column)
        if name not in FIELDS and not is_resource_name(name):
            raise TraceError(1, None, unknown_name_message(name), column=column)
        columns[name] = column
    return columns


def parse_yaml_trace(data: Any, lines: list[int] | None = None,
                     queue_check: QueueCheck = is_dns1123_subdomain) -> list[TraceRow]:
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
        rows.append(_row(line, number, item, queue_check))
    return rows


def _row(line: int, number: int, item: Mapping[str, Any], queue_check: QueueCheck) -> TraceRow:
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
    if priority is not None and not INT32_MIN <= priority <= INT32_MAX:
        raise TraceError(line, "priority", f"{priority} is out of range: a priority is a 32-bit integer "
                                           f"({INT32_MIN} to {INT32_MAX})")
    pods = _integer(line, "pods", text("pods"))
    if pods is not None and not 1 <= pods <= INT32_MAX:
        raise TraceError(line, "pods", f"expected at least 1 and at most {INT32_MAX}")
    runtime_text = text("runtime")
    runtime = _duration(line, "runtime", runtime_text) if runtime_text is not None else None
    if runtime is not None and runtime <= 0:
        raise TraceError(line, "runtime", "must be longer than 0")
    namespace = _name(line, "namespace", text("namespace", True), is_dns1123_label) or ""
    queue = _name(line, "queue", text("queue", True), queue_check) or ""
    name = _name(line, "name", text("name"), is_dns1123_subdomain) or f"trace-{number}"
    priority_class = _name(line, "priorityClass", text("priorityClass"), is_dns1123_subdomain)
    return TraceRow(line, at, namespace, queue, name, priority, priority_class, pods or 1, _requests(line, item),
                    runtime)


def _name(line: int, field: str, value: str | None, check: Callable[[str], list[str]]) -> str | None:
    """A name the API server would accept (its own messages), or a located error."""
    if value is None:
        return None
    problems = check(value)
    if problems:
        raise TraceError(line, field, f"invalid value {value!r}: {'; '.join(problems)}")
    return value


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
        if not is_resource_name(name):
            # A field of the row (a YAML key) or a name inside ``requests``: both must be resources a Pod can ask for.
            in_row = name in item
            raise TraceError(line, None if in_row else "requests", unknown_name_message(name, field=in_row))
        try:
            amount = parse_quantity(value)
        except QuantityError as exc:
            raise TraceError(line, name, f"{value!r}: {exc}") from None
        if is_extended_resource(name) and amount.value.denominator != 1:
            # The API server refuses the pod (VAL-POD-1): reading 500m GPUs as 1 would be a silent wrong answer.
            raise TraceError(line, name, f"{value!r}: must be an integer (an extended resource such as {name} "
                                         "counts whole units; VAL-POD-1)")
        result.append((name, resource_value(name, amount)))
    if not result:
        raise TraceError(line, "requests", "no request: give requests or a column per resource (cpu, memory, ...)")
    return tuple(result)


def check_priority_class(row: TraceRow, classes: Mapping[str, int], from_class: str, mismatch: str = "") -> None:
    """A row's priorityClass must be one of the inputs' PriorityClasses, and a priority it also gives must be that
    class's value: Volcano and YuniKorn read a pod's priority from its class. ``from_class`` says why a priority
    without a class is refused; ``mismatch`` ends the message of a priority that differs from its class's."""
    if row.priority_class is not None and row.priority_class not in classes:
        raise TraceError(row.line, "priorityClass", f"PriorityClass {row.priority_class!r} is not in the inputs",
                         row.column("priorityClass"))
    if row.priority is None:
        return
    if row.priority_class is None:
        raise TraceError(row.line, "priority", f"{from_class}: give priorityClass (a PriorityClass of the inputs) "
                         "instead", row.column("priority"))
    if classes[row.priority_class] != row.priority:
        raise TraceError(row.line, "priority", f"PriorityClass {row.priority_class} has the value "
                         f"{classes[row.priority_class]}, not {row.priority}{mismatch}", row.column("priority"))
