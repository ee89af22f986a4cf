"""The YAML/JSON reader: kubectl's typing, exact numbers, lines, and bad input."""

from __future__ import annotations

import pytest

from kqctl.errors import InputError
from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import MAX_ALIAS_VALUES, decode_text, parse_documents


def body(text: str) -> object:
    return parse_documents(text, "t.yaml")[0].body


def test_multi_document_stream_keeps_every_document_index() -> None:
    docs = parse_documents("a: 1\n---\n---\nb: 2\n", "t.yaml")
    assert [d.origin.index for d in docs] == [0, 1, 2]
    assert docs[1].body is None
    assert docs[2].body == {"b": 2}
    assert docs[2].origin.line == 4


def test_non_integer_number_keeps_its_source_text_qty1() -> None:
    value = body("q: 0.50\n")["q"]  # type: ignore[index]
    assert isinstance(value, LiteralFloat)
    assert value.text == "0.50"


def test_exponent_without_dot_is_a_number_as_kubectl_reads_it_def3() -> None:
    value = body("q: 2e0\n")["q"]  # type: ignore[index]
    assert isinstance(value, LiteralFloat) and value.text == "2e0"


@pytest.mark.parametrize("text,expected", [("y", True), ("n", False), ("on", True), ("Off", False), ("true", True)])
def test_yaml_1_1_booleans_as_kubectl_reads_them_def3(text: str, expected: bool) -> None:
    assert body(f"v: {text}\n") == {"v": expected}


def test_timestamps_stay_strings() -> None:
    assert body("t: 2024-01-01T00:00:00Z\n") == {"t": "2024-01-01T00:00:00Z"}


def test_json_input_is_read() -> None:
    assert body('{"kind": "Namespace", "n": 1.5}') == {"kind": "Namespace", "n": 1.5}


def test_line_of_nested_field_and_of_missing_field_falls_back_to_parent() -> None:
    doc = parse_documents("a:\n  b:\n  - x: 1\n    y: 2\n", "t.yaml")[0]
    assert doc.line_of(("a", "b", 0, "y")) == 4
    assert doc.line_of(("a", "b", 0, "missing")) == 3


def test_duplicate_keys_are_recorded_with_their_path() -> None:
    doc = parse_documents("a:\n  b: 1\n  b: 2\n", "t.yaml")[0]
    assert doc.duplicate_keys == [("a", "b")]


def test_invalid_yaml_is_a_located_input_error() -> None:
    with pytest.raises(InputError) as caught:
        parse_documents("a: 1\nb: [unclosed\nc: 3\n", "bad.yaml")
    assert caught.value.file == "bad.yaml"
    assert caught.value.line is not None and caught.value.line >= 2
    assert "invalid YAML" in str(caught.value)


def test_alias_bomb_is_rejected_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    with pytest.raises(InputError) as caught:
        parse_documents("\n".join(lines) + "\n", "bomb.yaml")
    assert f"{MAX_ALIAS_VALUES:,}" in str(caught.value) and "alias bomb" in str(caught.value)


def test_a_list_far_larger_than_the_alias_cap_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    # `kubectl get workloads -A -o yaml` of a big cluster: one document, no aliases, millions of values.
    # The cap is lowered so that a small list is already far above it.
    monkeypatch.setattr("kqctl.load.documents.MAX_ALIAS_VALUES", 100)
    item = "- {kind: Workload, metadata: {name: w%d, namespace: ns, labels: {a: b, c: d}}, spec: {queueName: q}}"
    text = "kind: List\nitems:\n" + "\n".join(item % i for i in range(2_000)) + "\n"
    (document,) = parse_documents(text, "list.yaml")
    assert len(document.body["items"]) == 2_000
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    with pytest.raises(InputError, match="more than 100 values"):
        parse_documents(bomb, "bomb.yaml")


def test_an_alias_used_a_few_times_is_expanded() -> None:
    (document,) = parse_documents("base: &b {cpu: 1, memory: 2Gi}\nx: *b\nz: {<<: *b, cpu: 2}\n", "a.yaml")
    assert document.body["x"] == {"cpu": 1, "memory": "2Gi"}
    assert document.body["z"] == {"cpu": 2, "memory": "2Gi"}


def test_deep_nesting_is_rejected() -> None:
    with pytest.raises(InputError):
        parse_documents("[" * 300 + "]" * 300, "deep.yaml")


def test_binary_input_is_rejected_with_offset() -> None:
    with pytest.raises(InputError) as caught:
        decode_text(b"apiVersion: v1\n\x00\x01\x02", "junk.bin")
    assert "binary data" in str(caught.value)
    assert caught.value.line == 2


def test_invalid_utf8_is_rejected() -> None:
    with pytest.raises(InputError) as caught:
        decode_text(b"a: \xff\xfe\n", "latin.yaml")
    assert "not UTF-8" in str(caught.value)


def test_unknown_tag_is_a_located_error() -> None:
    with pytest.raises(InputError) as caught:
        parse_documents("a: !custom 1\n", "t.yaml")
    assert caught.value.line == 1


def test_kubectl_typing_is_the_resolver_in_use() -> None:
    from kqctl.load.documents import _KubectlResolver, _Loader

    assert _Loader.resolve is _KubectlResolver.resolve


@pytest.mark.parametrize("text", ["'10'", '"y"', "!!str 10"])
def test_quoted_or_tagged_scalars_stay_strings(text: str) -> None:
    assert isinstance(body(f"v: {text}\n")["v"], str)  # type: ignore[index]


@pytest.mark.parametrize("text,expected", [("10", 10), ("0x1f", 31), ("-3", -3), ("~", None), ("null", None)])
def test_plain_integers_and_nulls(text: str, expected: object) -> None:
    assert body(f"v: {text}\n") == {"v": expected}


def test_written_yaml_reads_back_as_the_same_strings() -> None:
    from kqctl.render.structured import dump_yaml

    data = {"a": "y", "b": "1e3", "c": "plain", "d": "two\nlines", "e": "010", "f": "on"}
    assert parse_documents(dump_yaml(data), "t.yaml")[0].body == data
