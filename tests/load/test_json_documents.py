"""JSON input is read by the JSON decoder (fast) with the same verdicts and locations as the YAML path."""

from __future__ import annotations

import json

import pytest

from kqctl.errors import InputError
from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import JsonDocument, parse_documents

LIST = """{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
     "metadata": {"name": "a"}},
    {
      "apiVersion": "kueue.x-k8s.io/v1beta2",
      "kind": "ClusterQueue",
      "metadata": {"name": "b"},
      "spec": {"cohortName": 1.50}
    }
  ]
}
"""


def test_a_json_list_is_read_by_the_json_decoder_with_a_line_for_each_item_and_field() -> None:
    (document,) = parse_documents(LIST, "list.json")
    assert isinstance(document, JsonDocument)
    assert [item["kind"] for item in document.body["items"]] == ["ResourceFlavor", "ClusterQueue"]
    assert document.line_of(("items", 0)) == 5
    assert document.line_of(("items", 0, "metadata", "name")) == 6
    assert document.line_of(("items", 1)) == 7
    assert document.line_of(("items", 1, "spec", "cohortName")) == 11
    assert document.line_of(("kind",)) == 3


def test_json_lines_agree_with_the_yaml_path() -> None:
    (as_json,) = parse_documents(LIST, "list.json")
    (as_yaml,) = parse_documents("---\n" + LIST, "list.yaml")  # '---' forces the YAML path, one line lower
    assert not isinstance(as_yaml, JsonDocument) and as_yaml.body == as_json.body
    for path in [("items", 0), ("items", 1, "metadata", "name"), ("items", 1, "spec", "cohortName")]:
        assert as_json.line_of(path) + 1 == _yaml_line(LIST, path)


def _yaml_line(text: str, path: tuple[str | int, ...]) -> int:
    from kqctl.load import documents

    parsed = documents.parse_documents("---\n" + text, "x.yaml")  # '---' forces the YAML path
    return parsed[0].line_of(path)


def test_non_integer_numbers_keep_their_text_as_in_yaml() -> None:
    (document,) = parse_documents('{"a": 1.50, "b": 2e3, "c": 10}', "n.json")
    assert isinstance(document.body["a"], LiteralFloat) and document.body["a"].text == "1.50"
    assert isinstance(document.body["b"], LiteralFloat) and document.body["b"].text == "2e3"
    assert document.body["c"] == 10 and type(document.body["c"]) is int


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',                   # duplicate key: the YAML path reports it, located
    '{"items": [{"a": 1, "a": 2}], "kind": "List"}',
    '{"a": NaN}',                         # not JSON
    '{"a": 1} {"b": 2}',                  # two values in a row
    "[" * 300 + "]" * 300,                # deeper than the nesting limit
    '{"a": "x\x7f"}',                     # raw DEL: JSON allows it, the YAML reader (and so kqctl) does not
])
def test_what_plain_json_decoding_would_treat_differently_goes_to_the_yaml_path(text: str) -> None:
    try:
        documents = parse_documents(text, "odd.json")
    except InputError:
        return  # the YAML path's located error
    assert not any(isinstance(d, JsonDocument) for d in documents)


def test_a_big_list_round_trips() -> None:
    items = [{"kind": "Workload", "metadata": {"name": f"w{i}"}} for i in range(1000)]
    (document,) = parse_documents(json.dumps({"kind": "List", "items": items}, indent=2), "big.json")
    assert isinstance(document, JsonDocument) and document.body["items"] == items
    assert document.line_of(("items", 999)) > document.line_of(("items", 998))


@pytest.mark.parametrize("extra", ["", "é", "\u0085"], ids=["ascii", "latin", "nel"])
def test_every_character_the_yaml_reader_refuses_is_found_as_the_expression_finds_it(extra: str) -> None:
    """An ASCII text is checked by deleting the characters allowed from its bytes, another by the expression:
    the same verdict for every character below U+0100 (and the ASCII ones beside a non-ASCII one)."""
    from kqctl.load.documents import _NOT_YAML_PRINTABLE, _has_unprintable

    for code in range(0x100):
        text = f'{{"a": "x{chr(code)}{extra}"}}'
        assert _has_unprintable(text) == (_NOT_YAML_PRINTABLE.search(text) is not None), hex(code)


def test_lines_asked_in_any_order_are_the_line_breaks_before_them_plus_one() -> None:
    """Items' lines asked forwards (as they are read) come from counting since the last one asked; asked backwards,
    from the list of every break: the same lines either way."""
    import random

    items = [{"kind": "Workload", "metadata": {"name": f"w{i}"}} for i in range(300)]
    text = json.dumps({"kind": "List", "items": items}, indent=1)
    (document,) = parse_documents(text, "big.json")
    assert isinstance(document, JsonDocument) and document.items_spans is not None
    expected = [text.count("\n", 0, start) + 1 for start, _ in document.items_spans]
    order = list(range(300))
    random.Random(7).shuffle(order)
    for i in [*range(300), *order, *reversed(range(300))]:
        assert document.line_of(("items", i)) == expected[i]
