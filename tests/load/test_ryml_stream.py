"""The rapidyaml path (documents._parse_with_ryml, kqctl/load/ryml_stream.py) reads as libyaml does, or declines.

Same values of the same types (LiteralFloat with the same text), same number of documents, same document
lines and field lines, same kind of document; where it declines, parse_documents reads the stream with
libyaml exactly as without ryml, errors included (and ryml's own error message never reaches stderr).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kqctl.errors import InputError
from kqctl.load import documents as documents_module
from kqctl.load import ryml_stream
from kqctl.load.documents import StreamDocument, _parse_plain_stream, _parse_with_ryml, parse_documents
from tests.load.test_plain_stream import _VALUES, TRICKY_SCALARS, _block, _outcome

pytest.importorskip("ryml")

ROOT = Path(__file__).resolve().parents[2]


def _libyaml_only(text: str, file: str) -> list[Any]:
    """parse_documents as it reads without the ryml path."""
    original = documents_module._parse_with_ryml
    documents_module._parse_with_ryml = lambda text, file: None  # type: ignore[assignment]
    try:
        return documents_module.parse_documents(text, file)
    finally:
        documents_module._parse_with_ryml = original  # type: ignore[assignment]


def _kinds(parse: Any, text: str) -> Any:
    try:
        return [(type(d).__name__, getattr(d, "item_lines", None)) for d in parse(text, "t.yaml")]
    except InputError:
        return "error"


def ryml_agrees(text: str) -> bool:
    """Checks the ryml path against libyaml on ``text``; True when ryml read it, False when it declined."""
    reference = _outcome(_libyaml_only, text)
    assert _outcome(parse_documents, text) == reference
    read = _parse_with_ryml(text, "t.yaml")
    if read is None:
        return False
    assert _outcome(lambda text, file: read, text) == reference
    assert _kinds(lambda text, file: read, text) == _kinds(_libyaml_only, text)
    return True


# Where a plain scalar appears: as a value, a sequence item, a nested value with a comment, an item of an item.
PLACES = ["a: {}\n", "- {}\n", "a:\n  b: {}  # c\n", "- - {}\n", "a: \"{}\"\n"]
MORE_SCALARS = [
    "0.0", "-0.0", "1e5", "1E+5", "1e-5", "-1e5", "0e5", "-0e5", "0.5e3", "10", "-10", "123456789012345678901234567890",
    "1.0", "01", "0.", "-.5", "+.5", "-1.", "5.0e", "infinity", "-infinity", "Infinity", "NaN", "nan", "inf", "-inf",
    "+inf", "1,2", "a:b", "50%", "a?b", "http://x.y/z?q=1", "-x", "--", "---x", "...x", "true", "false", "null", "é",
    "日本", "a  b", "1e3e", "0o7", "1_0.5", "._5", "-0x1", "+0x1", "0.1_1", "2025-12-31T23:00:00.478Z",
]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("scalar", list(dict.fromkeys(TRICKY_SCALARS + MORE_SCALARS)))
def test_plain_and_quoted_scalars_read_as_libyaml_reads_them(scalar: str, place: str) -> None:
    ryml_agrees(place.format(scalar))


@pytest.mark.parametrize("key", list(dict.fromkeys(TRICKY_SCALARS + MORE_SCALARS)))
def test_keys_read_as_libyaml_reads_them_or_are_declined(key: str) -> None:
    ryml_agrees(f"{key}: a\n")
    ryml_agrees(f'"{key}": a\n')
    ryml_agrees(f"- {key}: a\n")


@pytest.mark.parametrize("text", [
    "a: 1\nb: \"x\"\n",
    "---\na: 1\n---\nb: [] # c\n",
    "--- \n# x\n\n  a: 1\n---\n- b\n",
    "# c\n---\na: 1\n",
    "a: x\n\n\n# c\n---\n\n# d\n  b: 1\n",
    "- a: 1\n  b: 2\n- c: 3\n",
    "-\n  a: 1\n",
    "- -\n",
    "a:\n-\n-\n",
    "key:    value   \n",
    "a : b\n",
    '"a" : b\n',
    "a:  \"b\"  # c\n",
    "- {}\n- []\n",
    "a: {}\nb: []\n",
    'a:\n- ""\n"": a\nb: ""\n',
    "a: 1:2\n",
    "a:x: 1\n",
    "a b: c d\n",
    "é: ü\nx: \"日本語 ✓\"\n",
    "a: x #c: d\n",
    "   a: 1\n   b: 2\n",
    "a: 1\n  \nb: 2\n",
    "a:\n  -   b: 1\n      c: 2\n",
    "a: 1\n  - b\n",  # a plain scalar continued by a line that looks like an item: "1 - b" to both
    "- a\n - b\n",
    "a:\n b:\n  c: 1\n d: 2\n",
    "a: " + "x" * 100_000 + "\n",
    "- - - - - - - - - - - - - - - - - - - - x\n",  # JSON 20 times longer than the YAML: the buffer is grown
    "a: 1\n" + "".join(f"k{i}: \"{i}\"\n" for i in range(2000)),
    "a:\n" + "".join(" " * (2 * i + 2) + f"k{i}:\n" for i in range(30)) + " " * 62 + "z: 1\n",
    # single quotes, as kubectl writes a string that needs quoting
    "a: 'x'\n", "'k': 'v w'\n", "message: 'couldn\u2019t assign: 4 more needed'\n", "a: ''\n'b c': d\n",
    "a: \"it's\"\n", "- 'x'\n- \"y\"\n",
    # a List's items, whose lines are kept (StreamDocument.item_lines)
    "kind: List\nitems:\n- a: 1\n", "apiVersion: v1\nitems:\n- a: 1\n  b: 2\n# c\n\n- c: 3\nkind: List\nmetadata: {}\n",
    "kind: List\nitems:\n  - a: 1\n  - - b\n  - 'c'\nmetadata:\n  x: 1\n", "kind: List\nitems: []\n",
    "---\nitems:\n- 1\n---\n# x\nitems:\n\n- 2\n- 3\n", "items:\n- {}\n- []\n", "- items:\n  - a\n",
])
def test_plain_streams_are_read_by_ryml_as_libyaml_reads_them(text: str) -> None:
    assert ryml_agrees(text)


@pytest.mark.parametrize("text", [
    # what YAML refuses is declined (libyaml words the error)
    "a: 1\n b: 2\n", "a:\n  b: 1\n c: 2\n", "- a\nb: 1\n", "a: 1\n- b\n", "a: b: c\n", "a:\n- b\n c: d\n",
    "a:\n  - b\n  c: d\n", " - a\n- b\n", "a:\n    b: 1\n  c: 2\n", 'a: "x" y\n', 'a: "x"y\n', '"a"b: 1\n',
    "- x\n  y: 1\n", "- a: 1\n  - b\n", "a: b\n   c: d\n", "- a\n-b\n", "a: -\n", "a: - b\n", "a:\n  - b\n - c\n",
    "a:\n  b: 1\n   c: 2\n", "  a: 1\nb: 2\n", "a:\n  -   b: 1\n     c: 2\n", "a: x: y\n", "a: b\nc\n",
    'a: "é\\"\n', "a: 1\nb: [unclosed\nc: 3\n", "a: 1\n---\nb: 2\n---\nc: [\n", "a: \x07\n",
    "---\na: 1\n---\nb: \x01\n", "a: \x7f\n", "a: 1\n  b: x\n",
    # ryml 0.15 reads these as a key "  name" where YAML refuses the over-indented line
    "a:\n  c:\n  - {}\n      name: 1\n", '  c:\n  - "x"\n    name: 1\n', "- c:\n  - []\n    name: 1\n",
    # what ryml would read otherwise, or whose lines only libyaml knows
    "a: .5\n", "a: 1.\n", "a: 007\n", "a: 0e0\n", "a: yes\n", "a: nan\n", "a: ~\n", "nan: 1\n", '"inf": 1\n', "1: a\n",
    "y: 1\n", "<<: {}\n", "-a: 1\n", "a: x\n  y\n", "a: |\n  x\n", "a: >-\n  x\n",
    'a: "\\u00e9\\x41\\N\\_"\n',
    "a: 1\r\nb: 2\r\n", "\ufeffa: 1\n", "a: 1\n\ufeffb: 2\n", "a:\tb\n", "a: &x 1\nb: *x\n", "a: !!str 1\n",
    "%YAML 1.1\n---\na: 1\n", "a: 1\n...\n", "--- a\n", "--- {a: 1}\n", "a: 1\n---\n", "---\n---\na: 1\n",
    "# only a comment\n", "", "a:\n  b: 1\n  b: 2\n", "k: [a, b]\nm: {x: 1}\n", "? a\n: b\n",
    "a: 'it''s'\n", "a: 'x\"y'\n", "'nan': 1\n", "a: 'x' y\n",
    "items:\n-\n  a: 1\n", '"items":\n- a: 1\n', "  items:\n  - a: 1\n", "items:\n- a\n-x: 1\n",
    "a: x\x85y\n", "a: 1\u2028b: 2\n", "plain scalar document\n",
    "a:\n" + " " * 64 + "b: 1\n", '" a": 1\n',
])
def test_streams_ryml_may_read_otherwise_are_declined(text: str) -> None:
    assert not ryml_agrees(text)


def test_a_kueue_snapshot_shaped_stream_is_read_by_ryml() -> None:
    workload = (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: small-{i}\n  namespace: ns\n"
        "  uid: \"5ca260c9-eb76-47c9-b08a-4895d4ffa66{i}\"\n  creationTimestamp: \"2025-12-31T23:00:00.478Z\"\n"
        "  labels:\n    kueue.x-k8s.io/performance-scheduler-running-ms: \"150\"\nspec:\n  queueName: q\n"
        "  priority: 50\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n"
        "        restartPolicy: Never\n        containers:\n        - name: c\n          resources:\n"
        "            requests:\n              cpu: \"1\"\n              memory: 1.5Gi\n              gpu: 0.5\n"
    )
    text = "---\n".join(workload.format(i=i) for i in range(10))
    assert ryml_agrees(text)
    first, second = (document.body for document in (_parse_with_ryml(text, "t.yaml") or [])[:2])
    # equal string values are one object across the stream, as libyaml's fast path makes them
    assert first["kind"] is second["kind"] and first["spec"]["queueName"] is second["spec"]["queueName"]
    assert isinstance(parse_documents(text, "t.yaml")[0], StreamDocument)


def test_ryml_errors_never_reach_stderr_and_libyaml_words_them(capfd: pytest.CaptureFixture[str]) -> None:
    text = "a: 1\n b: 2\n"  # in the grammar, refused by both parsers
    assert _parse_with_ryml(text, "t.yaml") is None
    with pytest.raises(InputError) as raised:
        parse_documents(text, "t.yaml")
    assert capfd.readouterr().err == ""
    assert str(raised.value) == str(pytest.raises(InputError, _libyaml_only, text, "t.yaml").value)


def test_without_ryml_libyaml_reads_every_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ryml_stream, "_ryml", False)
    text = "a: 1\n---\nb: \"x\"\n"
    assert _parse_with_ryml(text, "t.yaml") is None
    assert _outcome(parse_documents, text) == _outcome(_parse_plain_stream, text)


def _yaml_files() -> list[Path]:
    return sorted(path for folder in ("tests", "samples") for pattern in ("*.yaml", "*.yml")
                  for path in (ROOT / folder).rglob(pattern) if path.is_file())


def test_every_yaml_file_of_the_repository_reads_the_same() -> None:
    read_by_ryml = 0
    for path in _yaml_files():
        try:
            text = documents_module.decode_text(path.read_bytes(), str(path))
        except InputError:
            continue
        read_by_ryml += ryml_agrees(text)
    assert read_by_ryml > 50  # the plainest files do take the ryml path


RYML_USE: list[bool] = []


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["a", "b", "name", "k k", "spec", "y", "1", '"q"', "<<"]), _VALUES),
                         min_size=1, max_size=4, unique_by=lambda pair: pair[0]), min_size=1, max_size=3))
def test_generated_streams_read_as_libyaml_reads_them(documents: list[list[tuple[str, Any]]]) -> None:
    text = "---\n".join(_block(tuple(pairs), 0).lstrip("\n") for pairs in documents)
    RYML_USE.append(ryml_agrees(text))


def test_generated_streams_often_take_the_ryml_path() -> None:
    if not RYML_USE:
        test_generated_streams_read_as_libyaml_reads_them()
    assert sum(RYML_USE) > len(RYML_USE) // 10
