"""Arrival traces in CSV and YAML: exact requests, offsets or times, and located errors."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import yaml

from kqctl.replay.traces import TraceError, TraceRow, check_priority_class, parse_csv_trace, parse_yaml_trace

CSV = """time,namespace,queue,priority,pods,cpu,memory,runtime
0s,team-a,lq,100,2,500m,1Gi,45m
90s,team-b,lq,,1,2,,1h30m
"""


def test_csv_rows_with_a_column_per_resource() -> None:
    first, second = parse_csv_trace(CSV)
    assert (first.at, first.namespace, first.queue, first.priority, first.pods) == (0, "team-a", "lq", 100, 2)
    assert first.requests == (("cpu", 500), ("memory", 1024**3)) and first.runtime == 45 * 60_000
    assert (second.at, second.priority, second.requests, second.name) == (90_000, None, (("cpu", 2000),), "trace-2")
    assert first.line == 2 and second.line == 3


def test_a_requests_column_and_absolute_times() -> None:
    (row,) = parse_csv_trace('time,namespace,queue,requests\n2026-01-01T09:00:00Z,ns,lq,"cpu=1 nvidia.com/gpu=2"\n')
    assert row.at == datetime(2026, 1, 1, 9, tzinfo=timezone.utc)
    assert row.requests == (("cpu", 1000), ("nvidia.com/gpu", 2))


def test_yaml_rows_with_a_requests_mapping() -> None:
    data = yaml.safe_load("""
- {time: 10m, namespace: ns, queue: lq, priorityClass: high, requests: {cpu: "4", memory: 8Gi}, runtime: 2h}
""")
    (row,) = parse_yaml_trace(data, lines=[2])
    assert (row.at, row.priority_class, row.runtime, row.line) == (600_000, "high", 7_200_000, 2)
    assert row.requests == (("cpu", 4000), ("memory", 8 * 1024**3))


@pytest.mark.parametrize("text,field,message", [
    ("time,namespace,queue,cpu\n,ns,lq,1\n", "time", "required"),
    ("time,namespace,queue,cpu\n5x,ns,lq,1\n", "time", "not a duration"),
    ("time,namespace,queue,cpu\n0s,,lq,1\n", "namespace", "required"),
    ("time,namespace,queue\n0s,ns,lq\n", "requests", "no request"),
    ("time,namespace,queue,cpu\n0s,ns,lq,lots\n", "cpu", "'lots'"),
    ("time,namespace,queue,cpu,pods\n0s,ns,lq,1,0\n", "pods", "at least 1"),
    ("time,namespace,queue,cpu,priority\n0s,ns,lq,1,high\n", "priority", "whole number"),
    ("time,namespace,queue,cpu,runtime\n0s,ns,lq,1,0s\n", "runtime", "longer than 0"),
    ("time,namespace,queue,requests\n0s,ns,lq,cpu\n", "requests", "RESOURCE=QUANTITY"),
])
def test_bad_rows_say_which_line_and_field(text: str, field: str, message: str) -> None:
    with pytest.raises(TraceError) as caught:
        parse_csv_trace(text)
    assert caught.value.line == 2 and caught.value.field == field and message in str(caught.value)


def test_a_yaml_trace_must_be_a_list_of_mappings() -> None:
    with pytest.raises(TraceError, match="expected a list"):
        parse_yaml_trace({"time": "0s"})
    with pytest.raises(TraceError, match="expected a mapping"):
        parse_yaml_trace(["0s"])
    assert parse_yaml_trace(None) == [] and parse_csv_trace("") == []


@pytest.mark.parametrize("text,line,column,field,message", [
    # A misspelt column is refused with the nearest name, never taken as a resource nobody offers.
    ("time,namespace,queue,cpu,runtme\n0s,ns,lq,1,30m\n", 1, 5, None, "unknown field 'runtme' (did you mean runtime?)"),
    ("time,namespace,queue,memroy\n0s,ns,lq,1Gi\n", 1, 4, None, "(did you mean memory?)"),
    ("time,namespace,qeue,cpu\n0s,ns,lq,1\n", 1, 3, None, "(did you mean queue?)"),
    ("time,namespace,queue,gpu\n0s,ns,lq,1\n", 1, 4, None, "a name with a domain prefix such as nvidia.com/gpu"),
    ("time,namespace,queue,cpu,cpu\n0s,ns,lq,1,2\n", 1, 5, "cpu", "repeats column 4"),
    ("time,namespace,queue,requests\n0s,ns,lq,gpu=1\n", 2, 4, "requests", "unknown resource 'gpu'"),
    ("time,namespace,queue,cpu\n0s,Team_A,lq,1\n", 2, 2, "namespace", "'Team_A': a lowercase RFC 1123 label"),
    ("time,namespace,queue,cpu,name\n0s,ns,lq,1,Bad_Name\n", 2, 5, "name", "a lowercase RFC 1123 subdomain"),
    ("time,namespace,queue,cpu\n0s,ns,Bad_Queue,1\n", 2, 3, "queue", "a lowercase RFC 1123 subdomain"),
    ("time,namespace,queue,cpu,priority\n0s,ns,lq,1,2147483648\n", 2, 5, "priority", "out of range"),
    ("time,namespace,queue,cpu,priority\n0s,ns,lq,1,-2147483649\n", 2, 5, "priority", "out of range"),
    ("time,namespace,queue,cpu,pods\n0s,ns,lq,1,2147483648\n", 2, 5, "pods", "at most 2147483647"),
    ("time,namespace,queue,cpu\n0s,ns,lq,1\n0s,ns,lq,1,extra\n", 3, 5, None, "5 fields, but the header names 4"),
])
def test_bad_csv_traces_say_which_line_and_column(text: str, line: int, column: int, field: str | None,
                                                  message: str) -> None:
    with pytest.raises(TraceError) as caught:
        parse_csv_trace(text)
    error = caught.value
    assert (error.line, error.column, error.field) == (line, column, field) and message in str(error), str(error)


def test_resources_are_named_as_a_pod_requests_them() -> None:
    (row,) = parse_csv_trace("time,namespace,queue,cpu,memory,ephemeral-storage,hugepages-2Mi,nvidia.com/gpu,"
                             "priority\n0s,ns,lq,1,1Gi,2Gi,4Mi,2,2147483647\n")
    assert dict(row.requests) == {"cpu": 1000, "memory": 1024**3, "ephemeral-storage": 2 * 1024**3,
                                  "hugepages-2Mi": 4 * 1024**2, "nvidia.com/gpu": 2}
    assert row.priority == 2**31 - 1 and row.column("nvidia.com/gpu") == 8


def test_a_yaml_trace_refuses_unknown_fields_and_resources() -> None:
    with pytest.raises(TraceError, match=r"unknown field 'runtme' \(did you mean runtime\?\)"):
        parse_yaml_trace([{"time": "0s", "namespace": "ns", "queue": "lq", "cpu": "1", "runtme": "30m"}])
    with pytest.raises(TraceError, match="unknown resource 'gpu'"):
        parse_yaml_trace([{"time": "0s", "namespace": "ns", "queue": "lq", "requests": {"gpu": 1}}])


def _row(priority: int | None, priority_class: str | None) -> TraceRow:
    return TraceRow(7, 0, "default", "q", "job", priority, priority_class, 1, (("cpu", 1000),), None)


@pytest.mark.parametrize(("priority", "priority_class", "field", "message"), [
    (None, None, None, None),
    (None, "high", None, None),
    (100, "high", None, None),
    (None, "missing", "priorityClass", "PriorityClass 'missing' is not in the inputs"),
    (100, None, "priority", "WHY: give priorityClass (a PriorityClass of the inputs) instead"),
    (5, "high", "priority", "PriorityClass high has the value 100, not 5; ENDING"),
])
def test_a_trace_rows_priority_comes_from_its_priority_class(priority: int | None, priority_class: str | None,
                                                             field: str | None, message: str | None) -> None:
    row = _row(priority, priority_class)
    if message is None:
        check_priority_class(row, {"high": 100}, "WHY", "; ENDING")
        return
    with pytest.raises(TraceError) as raised:
        check_priority_class(row, {"high": 100}, "WHY", "; ENDING")
    assert message in str(raised.value) and field in str(raised.value)
