"""The fast YAML path (values built from libyaml's events) agrees with the general path (compose, then
build) on every input: same values of the same types, same document origins, same lines for every
field, same errors. Where the fast path declines (anchors, aliases, tags, merge keys, non-string or
duplicate keys, deep nesting, any error), the general path reads the stream, so the result is its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kqctl.errors import InputError
from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import StreamDocument, _parse_composed, parse_documents
from kqctl.origin import FieldPath

# YAML 1.1 as kubectl (sigs.k8s.io/yaml, go-yaml v2) types plain scalars, and look-alikes that stay strings.
TRICKY_SCALARS = [
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "on", "On", "ON", "off", "Off", "true", "True", "FALSE",
    "~", "null", "Null", "NULL", "", "0755", "0o755", "0x1F", "0X1f", "0b101", "-0b1", "1_000", "+12", "-0", "0",
    "00", "08", "1e3", "1E3", "1.5e3", "-1.5", ".5", "5.", "1.", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "1:20",
    "190:20:30", "2024-01-01", "2024-01-01T00:00:00Z", "2001-12-14 21:59:43.10 -5", "12:30", "0.1.2", "1e", "e3",
    "-", "+", ".", "..", "1Gi", "500m", "1.5Gi", "-1", "0x", "0b", "0_", "_1", "1__0", "<<", "=", "yes please",
    "a b", "日本語", "✓", "tab\there", "null-ish", "~x", "nullx", "truex",
]


def _typed(value: Any) -> Any:
    """A value with every scalar's type made part of it (True == 1 and 1.0 == 1 in Python)."""
    if isinstance(value, dict):
        return {"dict": [(k, _typed(v)) for k, v in value.items()]}
    if isinstance(value, list):
        return {"list": [_typed(v) for v in value]}
    if isinstance(value, LiteralFloat):
        return ("LiteralFloat", value.text)
    return (type(value).__name__, value)


def _paths(value: Any, prefix: FieldPath = ()) -> list[FieldPath]:
    found = [prefix, (*prefix, "no-such-field"), (*prefix, 99)]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_paths(item, (*prefix, i)))
    return found


def _outcome(parse: Any, text: str) -> Any:
    try:
        documents = parse(text, "t.yaml")
    except InputError as exc:
        return ("error", str(exc), exc.line, exc.index)
    return [(d.origin, _typed(d.body), d.duplicate_keys, [(p, d.line_of(p)) for p in _paths(d.body)])
            for d in documents]


def assert_same_as_general_path(text: str) -> list[Any]:
    fast = parse_documents(text, "t.yaml") if not _raises(text) else None
    assert _outcome(parse_documents, text) == _outcome(_parse_composed, text)
    return fast or []


def _raises(text: str) -> bool:
    try:
        _parse_composed(text, "t.yaml")
    except InputError:
        return True
    return False


@pytest.mark.parametrize("scalar", TRICKY_SCALARS)
def test_plain_scalars_are_typed_as_the_general_path_types_them(scalar: str) -> None:
    text = f"plain: {scalar}\nlist:\n- {scalar}\nflow: [{scalar}]\nmap: {{k: {scalar}}}\n" if scalar else "plain:\n"
    if scalar.startswith(("-", "?", ":")) and len(scalar) == 1 or scalar in ("<<",):
        text = f"plain: {scalar}\n"
    documents = assert_same_as_general_path(text)
    assert all(isinstance(d, StreamDocument) for d in documents)


@pytest.mark.parametrize("scalar", TRICKY_SCALARS)
def test_quoted_scalars_stay_strings(scalar: str) -> None:
    escaped = scalar.replace("\\", "\\\\").replace('"', '\\"')
    documents = assert_same_as_general_path(f"single: '{scalar}'\ndouble: \"{escaped}\"\n")
    assert documents[0].body == {"single": scalar, "double": scalar}


@pytest.mark.parametrize("text", [
    # shapes the fast path reads itself
    "a: 1\n---\n---\nb: 2\n",
    "---\n...\n",
    "",
    "# only a comment\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n",
    "a: multi\n  line plain\n  scalar\n",
    "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",
    "a: 1\rb: 2\r",
    "a: x\x85y\nb: 1\u2028c: 2\n",
    "\ufeffa: 1\n",
    "? explicit\n: key\n",
    "k: {}\nl: []\nm: {a: [1, {b: c}]}\n",
    "kind: List\nitems:\n- a: 1\n- [x]\n- plain\n-\n- b: 2\n",
    'kind: List\n"items":\n  - a: 1\n  - b: 2\n',
    "kind: List\nspec:\n  items:\n  - a: 1\n",
    "- a\n- b: 1\n  c: 2\n",
    "plain scalar document\n",
    "a:\n  - b:\n    - c:\n      - d: 1\n",
    "a:\tb\n",
    "'quoted key': 1\n\"y\": 2\n'1': 3\n",
    # shapes only the general path reads (the fast path declines them)
    "base: &b {cpu: 1}\nx: *b\n",
    "z: {<<: {a: 1}, b: 2}\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 10\nb: !!int '12'\nc: !!float '1'\nd: !!binary aGk=\ne: !!timestamp 2001-12-14\n",
    "a: ! 12\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "y: 1\non: 2\n1: a\nnull: b\n~: c\n1.5: d\n",
    "? [a, b]\n: c\n",
    "? {a: 1}\n: c\n",
    "a:\n  b: 1\n  b: 2\n",
    "kind: List\nitems:\n- a: 1\n  a: 2\n",
    "[" * 120 + "]" * 120,
    # errors: the general path words and locates them
    "a: !custom 1\n",
    "a: 1\nb: [unclosed\nc: 3\n",
    "a: 1\n---\nb: 2\n---\nc: [\n",
    "a: *undefined\n",
    "a: &x 1\nb: &x 2\n",
    "a: \x07\n",
    "---\na: 1\n---\nb: \x01\n",
    "[" * 300 + "]" * 300,
    "z: {<<: 1}\n",
])
def test_streams_read_as_the_general_path_reads_them(text: str) -> None:
    assert_same_as_general_path(text)


def test_the_fast_path_is_taken_for_plain_manifests_and_knows_list_item_lines_at_once() -> None:
    text = "apiVersion: v1\nkind: List\nitems:\n- kind: A\n  x: 1\n\n- kind: B\n"
    (document,) = parse_documents(text, "t.yaml")
    assert isinstance(document, StreamDocument)
    assert document.item_lines == [4, 7]
    assert document.stream is not None and document.stream._nodes is None  # nothing composed yet
    assert document.line_of(("items", 1)) == 7
    assert document.stream._nodes is None
    assert document.line_of(("items", 0, "x")) == 5  # composed now, for a field's line
    assert document.stream._nodes is not None


def test_equal_strings_of_a_stream_are_one_object_and_numbers_keep_their_types() -> None:
    # Keys and string values repeated across documents are shared (less memory, less to pickle from a worker);
    # a plain scalar that is a number, boolean or null is still its own typed value, never a shared string.
    text = "kind: W\nspec: {queue: q, count: '1', size: 1}\n---\nkind: W\nspec: {queue: q, count: '1', size: 1.5}\n"
    first, second = (document.body for document in parse_documents(text, "t.yaml"))
    assert isinstance(first, dict) and isinstance(second, dict)
    assert [k for k in first] == ["kind", "spec"]
    assert next(iter(first)) is next(iter(second))
    assert first["kind"] is second["kind"] and first["spec"]["queue"] is second["spec"]["queue"]
    assert first["spec"]["count"] is second["spec"]["count"] == "1"
    assert type(first["spec"]["size"]) is int and isinstance(second["spec"]["size"], LiteralFloat)
    assert_same_as_general_path(text)


@pytest.mark.parametrize("text", ["a: &x 1\n", "a: !!str x\n", "a:\n  b: 1\n  b: 2\n", "1: a\n", "x: *y\n"])
def test_the_fast_path_declines_what_only_the_general_path_reads(text: str) -> None:
    try:
        documents = parse_documents(text, "t.yaml")
    except InputError:
        return
    assert not any(isinstance(d, StreamDocument) for d in documents)


# --- generated streams ------------------------------------------------------------------------------

# Mostly keys the fast path reads, sometimes one it declines (a boolean, a number, null, a merge key).
_KEYS = st.sampled_from(["a", "b", "name", "items", "'q'", '"y"', "k k", "spec", "c", "d", "e", "f"] * 4
                        + ["y", "on", "1", "<<", "null"])
_SCALARS = st.sampled_from(TRICKY_SCALARS).map(
    lambda s: s if s and not s.startswith(("-", "?", ":", "<<", "=")) and ": " not in s else f"'{s}'")


def _block(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, tuple):  # a mapping as (key, value) pairs, duplicates allowed
        if not value:
            return " {}\n"
        return "\n" + "".join(f"{pad}{k}:{_block(v, indent + 2)}" for k, v in value)
    if isinstance(value, list):
        if not value:
            return " []\n"
        return "\n" + "".join(f"{pad}-{_block(v, indent + 2)}" for v in value)
    return f" {value}\n"


_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(st.tuples(_KEYS, inner), max_size=3, unique_by=lambda pair: pair[0]).map(tuple)
    | st.lists(st.tuples(_KEYS, inner), max_size=3).map(tuple),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.tuples(_KEYS, _VALUES), min_size=1, max_size=4, unique_by=lambda pair: pair[0]),
                min_size=1, max_size=3))
def test_generated_streams_read_as_the_general_path_reads_them(documents: list[list[tuple[str, Any]]]) -> None:
    text = "---\n".join(_block(tuple(pairs), 0).lstrip("\n") for pairs in documents)
    assert_same_as_general_path(text)
    FAST_PATH_USE.append(any(isinstance(d, StreamDocument) for d in _documents_or_none(text)))


FAST_PATH_USE: list[bool] = []


def _documents_or_none(text: str) -> list[Any]:
    try:
        return parse_documents(text, "t.yaml")
    except InputError:
        return []


def test_generated_streams_mostly_take_the_fast_path() -> None:
    if not FAST_PATH_USE:
        test_generated_streams_read_as_the_general_path_reads_them()
    assert sum(FAST_PATH_USE) > len(FAST_PATH_USE) // 4
