"""Split YAML/JSON text into documents, keeping a line for every field.

YAML is read as kubectl reads it (sigs.k8s.io/yaml, YAML 1.1): ``y``/``n`` are booleans, ``2e0``
is a number, timestamps stay strings. Non-integer numbers keep their source text
(:class:`LiteralFloat`) because quantities must never go through float arithmetic (QTY-1).
Alias bombs, very deep nesting, duplicate keys and binary input are rejected with a location.

JSON text (``kubectl get -A -o json`` of a big cluster) is read with the JSON decoder, several times
faster than YAML; lines are still found for every object and field (see :class:`JsonDocument`).
Whatever plain JSON decoding would treat differently from the YAML path (duplicate keys, NaN, deep
nesting, invalid JSON) is left to the YAML path, so verdicts and messages stay the same.

YAML is parsed by libyaml (PyYAML's C parser, the parser go-yaml v2 was ported from). Plain
manifests are built straight from its events, their lines composed only when a finding needs one
(:class:`StreamDocument`); anchors, aliases, tags, merge keys, non-string or duplicate keys and
errors go the general way (compose a node tree, then build), which decides and words them.
The plainest streams (kubectl's own output among them) are read by rapidyaml instead, about twice as
fast, where its answer is certain to be the same (kqctl/load/ryml_stream.py says when).
"""

from __future__ import annotations

import bisect
import gc
import json
import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import yaml

from kqctl.errors import InputError
from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.plain_scalars import (
    BOOL_TAG,
    FLOAT_TAG,
    INT_TAG,
    MERGE_TAG,
    NULL_TAG,
    NUMBER_START,
    PLAIN_NON_STRINGS,
    STR_TAG,
    plain_scalar_tag,
)
from kqctl.load.ryml_stream import read_plain_stream_with_ryml
from kqctl.origin import FieldPath, Origin

# Expanding aliases can blow a few bytes up into billions of values ("billion laughs"): stop long
# before that. Only values reached through an alias count: a document's own size is bounded by the
# input's (a `kubectl get -o yaml` List of 50,000 Workloads is one document of millions of values).
MAX_ALIAS_VALUES = 1_000_000
MAX_DEPTH = 200

_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"

_BOOL_VALUES = {
    "y": True, "yes": True, "true": True, "on": True,
    "n": False, "no": False, "false": False, "off": False,
}


def _base_loader() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: 10x faster


class _KubectlResolver(yaml.resolver.BaseResolver):
    """Implicit scalar typing as go-yaml v2 (used by kubectl) does it.

    Replaces PyYAML's regex table with set look-ups: it runs for every plain scalar.
    """

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if not implicit[0]:
                return STR_TAG
            return plain_scalar_tag(value)
        return _SEQ if kind is yaml.SequenceNode else _MAP


def string_style(value: str) -> str | None:
    """The YAML style that makes a string read back as this same string under kubectl's typing.

    PyYAML writes ``y``, ``n`` or ``1e3`` plain, which kubectl (YAML 1.1) reads as a boolean or a
    number: such strings are quoted; multi-line strings become literal blocks.
    """
    if "\n" in value:
        return "|"
    return None if value and plain_scalar_tag(value) == STR_TAG else "'"


class _Loader(_base_loader(), _KubectlResolver):  # type: ignore[misc]
    pass


@dataclass
class Document:
    """One YAML document: its parsed body and enough of the parse tree to find lines again."""

    origin: Origin
    body: Any
    node: yaml.Node | None = field(default=None, repr=False)
    duplicate_keys: list[FieldPath] = field(default_factory=list)

    def line_of(self, path: FieldPath) -> int:
        """1-based line of the field at ``path``, or of its nearest existing ancestor."""
        if self.node is None:
            return self.origin.line
        return line_in_node(self.node, path)

    def tree(self) -> yaml.Node | None:
        """The document's YAML node tree (composed on demand where it is not kept), or None (JSON)."""
        return self.node


@dataclass
class JsonDocument(Document):
    """A document read by the JSON decoder: no parse tree is kept, lines are found when asked.

    ``items_spans`` holds the character span of each item of a top-level List, so the line of every
    object is known at once; a field's line is found by composing only that item's text (or the
    whole text, for a document that is not a List), the rare time a finding needs it.
    """

    text: str = field(default="", repr=False)
    start: int = 0
    items_spans: list[tuple[int, int]] | None = field(default=None, repr=False)
    _newlines: list[int] | None = field(default=None, repr=False)
    _cursor: tuple[int, int] = field(default=(0, 1), repr=False)  # an offset asked for, and its line
    _nodes: dict[int, yaml.Node] = field(default_factory=dict, repr=False)

    def line_of(self, path: FieldPath) -> int:
        if self.items_spans is not None and len(path) >= 2 and path[0] == "items" \
                and isinstance(path[1], int) and 0 <= path[1] < len(self.items_spans):
            start, end = self.items_spans[path[1]]
            return self._line_within(start, end, path[2:], key=path[1])
        return self._line_within(self.start, len(self.text), path, key=-1)

    def _line_within(self, start: int, end: int, path: FieldPath, key: int) -> int:
        first_line = self._line_at(start)
        if not path:
            return first_line
        node = self._nodes.get(key)
        if node is None:
            try:
                node = yaml.compose(self.text[start:end], Loader=_Loader)
            except yaml.YAMLError:  # JSON that YAML reads otherwise (a raw U+0085 is a YAML line break)
                return first_line
            if node is None:
                return first_line
            self._nodes[key] = node
        return first_line - 1 + line_in_node(node, path)

    def _line_at(self, offset: int) -> int:
        """The line of the character at ``offset``: one more than the line breaks before it."""
        # The items of a List are asked for in order (every object's origin as it is read): counting the breaks since
        # the last offset asked is C's work; a list of every break (millions in a large List) only for going back.
        cursor, line = self._cursor
        if offset >= cursor:
            line += self.text.count("\n", cursor, offset)
            self._cursor = (offset, line)
            return line
        if self._newlines is None:
            self._newlines = [match.start() for match in _NEWLINE.finditer(self.text)]
        return bisect.bisect_left(self._newlines, offset) + 1


_NEWLINE = re.compile("\n")
# Characters the YAML reader refuses anywhere in a stream (JSON allows some raw, e.g. DEL): such text
# goes to the YAML path, whose error is located.
_NOT_YAML_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
# The ASCII characters _NOT_YAML_PRINTABLE lets through: an ASCII text is checked by deleting them from its bytes
# (C's work, a tenth of the regular expression's time on 80 MiB); another text by the expression.
_YAML_PRINTABLE_ASCII = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x7F)])


def _has_unprintable(text: str) -> bool:
    """Whether ``text`` holds a character the YAML reader refuses anywhere in a stream."""
    if text.isascii():
        return bool(text.encode("ascii").translate(None, _YAML_PRINTABLE_ASCII))
    return _NOT_YAML_PRINTABLE.search(text) is not None


class _NotPlainJson(Exception):
    """Something the YAML path must decide (it gives the same verdict, located)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _NotPlainJson("duplicate key")
    return result


def _no_constant(name: str) -> Any:
    raise _NotPlainJson(f"{name} is not JSON")


_JSON = json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_float=LiteralFloat, parse_constant=_no_constant)


def parse_json_document(text: str, file: str) -> JsonDocument | None:
    """One JSON value, or None when the text is not plain JSON (then the YAML path reads it)."""
    start = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]  # matches the empty string
    if _may_nest_deeper_than(text, MAX_DEPTH) or _has_unprintable(text):
        return None
    try:
        if text.startswith("{", start):
            body, spans, end = _decode_top_object(text, start)
        else:
            (body, end), spans = _JSON.raw_decode(text, start), None
    except (ValueError, IndexError, RecursionError, _NotPlainJson):
        return None
    if _JSON_SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
        return None  # several JSON values in a row: the YAML path splits or rejects them
    document = JsonDocument(Origin(file, 0, 1), body, text=text, start=start, items_spans=spans)
    document.origin = Origin(file, 0, document.line_of(()))
    return document


_BRACKETS = b"[]{}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_NESTING_STEP = [0] * 256
_NESTING_STEP[ord("[")] = _NESTING_STEP[ord("{")] = 1
_NESTING_STEP[ord("]")] = _NESTING_STEP[ord("}")] = -1


def _may_nest_deeper_than(text: str, limit: int) -> bool:
    """Whether the brackets could nest deeper than ``limit`` (those inside strings count too: an
    overestimate only sends the text to the YAML path, which measures exactly)."""
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False
    return max(accumulate(map(_NESTING_STEP.__getitem__, brackets))) > limit


def _decode_top_object(text: str, start: int) -> tuple[dict[str, Any], list[tuple[int, int]] | None, int]:
    """A top-level object, decoding ``items`` one element at a time to remember where each one is."""
    result: dict[str, Any] = {}
    spans: list[tuple[int, int]] | None = None
    index = _skip_space(text, start + 1)
    if text[index] == "}":
        return result, None, index + 1
    while True:
        if text[index] != '"':
            raise _NotPlainJson("object key")
        key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
        index = _skip_space(text, index)
        if text[index] != ":":
            raise _NotPlainJson("':' expected")
        index = _skip_space(text, index + 1)
        if key in result:
            raise _NotPlainJson("duplicate key")
        if key == "items" and text.startswith("[", index):
            result[key], spans, index = _decode_array_with_spans(text, index)
        else:
            result[key], index = _JSON.raw_decode(text, index)
        index = _skip_space(text, index)
        if text[index] == "}":
            return result, spans, index + 1
        if text[index] != ",":
            raise _NotPlainJson("',' expected")
        index = _skip_space(text, index + 1)


def _decode_array_with_spans(text: str, start: int) -> tuple[list[Any], list[tuple[int, int]], int]:
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    index = _skip_space(text, start + 1)
    if text[index] == "]":
        return items, spans, index + 1
    while True:
        item, end = _JSON.raw_decode(text, index)
        items.append(item)
        spans.append((index, end))
        index = _skip_space(text, end)
        if text[index] == "]":
            return items, spans, index + 1
        if text[index] != ",":
            raise _NotPlainJson("',' expected")
        index = _skip_space(text, index + 1)


def _skip_space(text: str, index: int) -> int:
    return _JSON_SPACE.match(text, index).end()  # type: ignore[union-attr]


def line_in_node(node: yaml.Node, path: FieldPath) -> int:
    line = node.start_mark.line
    current: yaml.Node | None = node
    for part in path:
        if current is None:
            break
        key_line, current = _step(current, part)
        if key_line is None:
            break
        line = key_line
    return line + 1


def _step(node: yaml.Node, part: str | int) -> tuple[int | None, yaml.Node | None]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                # A path ending at a key points at the key's line: that is where the
                # user looks for an unknown or wrong field.
                return key.start_mark.line, value
        return None, None
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        item = node.value[part]
        return item.start_mark.line, item
    return None, None


# Byte-order marks and the NUL pattern of the first character, widest first (a UTF-32LE BOM starts
# with the UTF-16LE one). Editors on Windows save UTF-16 by default; calling that "binary" misleads.
_WIDE_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (b"\xff\xfe\x00\x00", "UTF-32LE", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32BE", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16LE", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16BE", "UTF-16 (big-endian)"),
)


def wide_encoding(data: bytes) -> tuple[str, str] | None:
    """The UTF-16/32 encoding text in ``data`` is in (codec, display name), or None if it is not."""
    for bom, codec, display in _WIDE_BOMS:
        if data.startswith(bom):
            return codec, display
    head = data[:4]
    if len(head) < 4:
        return None
    if head[0] and not head[1] and not head[2] and not head[3]:
        guess = ("UTF-32LE", "UTF-32 (little-endian)")
    elif not head[0] and not head[1] and not head[2] and head[3]:
        guess = ("UTF-32BE", "UTF-32 (big-endian)")
    elif head[0] and not head[1] and head[2] and not head[3]:
        guess = ("UTF-16LE", "UTF-16 (little-endian)")
    elif not head[0] and head[1] and not head[2] and head[3]:
        guess = ("UTF-16BE", "UTF-16 (big-endian)")
    else:
        return None
    try:
        data[: len(data) - len(data) % 4].decode(guess[0])
    except UnicodeDecodeError:
        return None
    return guess


def decode_text(data: bytes, file: str) -> str:
    """Bytes to text, rejecting binary input with the place it was found."""
    if b"\x00" in data[:1_000_000] or b"\x00" in data:
        wide = wide_encoding(data)
        if wide is not None:
            codec, display = wide
            raise InputError(file, f"the file is {display} text; kqctl reads UTF-8 "
                             f"(convert it, e.g. iconv -f {codec} -t UTF-8 {file})", line=1)
        offset = data.index(b"\x00")
        raise InputError(file, f"binary data (NUL byte at offset {offset}); expected YAML or JSON text",
                         line=data.count(b"\n", 0, offset) + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(file, f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start});"
                         " expected YAML or JSON", line=line) from None


def parse_documents(text: str, file: str) -> list[Document]:
    """All documents of a YAML or JSON stream, empty ones included (they keep the index count)."""
    if text.lstrip()[:1] in ("{", "["):
        json_document = parse_json_document(text, file)
        if json_document is not None:
            return [json_document]
    # Parsing creates millions of small objects and no cycles: the cyclic GC only costs time here.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        fast = _parse_with_ryml(text, file)
        if fast is None:
            fast = _parse_plain_stream(text, file)
        return fast if fast is not None else _parse_composed(text, file)
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse_with_ryml(text: str, file: str) -> list[Document] | None:
    """The plainest streams read by rapidyaml, which gives what the libyaml fast path gives (or None)."""
    read = read_plain_stream_with_ryml(text)
    if read is None:
        return None
    bodies, lines, item_lines = read
    stream = _ComposedStream(text)
    return [StreamDocument(Origin(file, index, line), body, stream=stream, item_lines=items)
            for index, (body, line, items) in enumerate(zip(bodies, lines, item_lines, strict=True))]


def _parse_composed(text: str, file: str) -> list[Document]:
    """The general YAML path: compose each document's node tree (kept for lines), then build it."""
    loader = _Loader(text)  # type: ignore[call-arg]  # CSafeLoader takes the stream
    documents: list[Document] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            index = len(documents)
            documents.append(_build_document(node, file, index))
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, file, len(documents)) from None
    except yaml.reader.ReaderError as exc:
        raise _reader_error(exc, text, file) from None
    except yaml.YAMLError as exc:
        raise InputError(file, f"invalid YAML: {exc}", index=len(documents)) from None
    except RecursionError:
        raise InputError(file, f"nesting deeper than {MAX_DEPTH} levels", index=len(documents)) from None
    finally:
        loader.dispose()
    return documents


# --- the fast path: plain manifests built straight from libyaml's events ---------------------------
#
# Composing a node tree and then building values from it costs two Python objects and four Python
# calls per value (node, resolver hooks, builder). Manifests as people and kubectl write them use no
# anchors, aliases, merge keys, tags, non-string keys or duplicate keys: for those, values are built
# directly from the parser's events, with the same scalar typing (plain_scalar_tag, _plain_value),
# and the node tree is composed only if a finding needs a line inside a document. Anything else
# sends the whole stream to the general path, so verdicts, messages and lines are the same.

# Deeper than this, the general path decides (it reports nesting beyond MAX_DEPTH).
_FAST_MAX_DEPTH = 100
_NO_KEY = object()
# libyaml's parser, the one _Loader composes with (None when PyYAML was built without libyaml).
_EventParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)


class _NotPlain(Exception):
    """The stream uses something only the general path handles."""


class _ComposedStream:
    """The node trees of a whole YAML stream, composed the first time one is asked for."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._nodes: list[yaml.Node] | None = None

    def node(self, index: int) -> yaml.Node:
        if self._nodes is None:
            loader = _Loader(self.text)  # type: ignore[call-arg]  # CSafeLoader takes the stream
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                nodes = []
                while loader.check_node():
                    nodes.append(loader.get_node())
            finally:
                loader.dispose()
                if gc_was_enabled:
                    gc.enable()
            self._nodes = nodes
        return self._nodes[index]


@dataclass
class StreamDocument(Document):
    """A document built from parser events: lines inside it come from the stream composed on demand.

    The line of the document and, for a ``kind: List``, of each item are known at once (objects are
    located by them); a field's line is looked up the rare time a finding needs one.
    """

    stream: _ComposedStream | None = field(default=None, repr=False)
    item_lines: list[int] | None = field(default=None, repr=False)

    def line_of(self, path: FieldPath) -> int:
        if not path:
            return self.origin.line
        lines = self.item_lines
        if lines is not None and len(path) == 2 and path[0] == "items" and isinstance(path[1], int) \
                and 0 <= path[1] < len(lines):
            return lines[path[1]]
        if self.stream is None:
            return self.origin.line
        return line_in_node(self.stream.node(self.origin.index), path)

    def tree(self) -> yaml.Node | None:
        return self.stream.node(self.origin.index) if self.stream is not None else None


def _plain_value(value: str) -> Any:
    """A plain scalar's value under kubectl's typing: what _Builder makes of the resolved node."""
    tag = plain_scalar_tag(value)
    if tag == NULL_TAG:
        return None
    if tag == INT_TAG:
        return _to_int(value)
    if tag == FLOAT_TAG:
        return _to_number(value)
    if tag == BOOL_TAG:
        return _BOOL_VALUES.get(value.lower(), value)
    return value  # a string, or "<<" as a value (kept as text, as the general path does)


def _parse_plain_stream(text: str, file: str) -> list[Document] | None:
    """Every document of a plain YAML stream, or None when the general path must read it (including
    on any error: it reports errors with their location)."""
    if _EventParser is None:
        return None  # without libyaml the general path is about as fast
    parser = _EventParser(text)
    stream = _ComposedStream(text)
    documents: list[Document] = []
    strings: dict[str, str] = {}
    try:
        parser.get_event()  # StreamStartEvent
        while type(parser.get_event()) is not yaml.StreamEndEvent:  # else a DocumentStartEvent
            body, line, item_lines = _build_from_events(parser.get_event, strings)
            origin = Origin(file, len(documents), line)
            documents.append(StreamDocument(origin, body, stream=stream, item_lines=item_lines))
    except Exception:  # noqa: BLE001  # whatever it is, the general path decides and words it
        return None
    finally:
        parser.dispose()
    return documents


def _build_from_events(next_event: Any, strings: dict[str, str]) -> tuple[Any, int, list[int] | None]:
    """One document's value from its events (up to its DocumentEndEvent), its 1-based line and the lines
    of the items of a top-level ``items`` sequence. Raises _NotPlain for what only the general path reads.

    One loop with an explicit stack: this runs for every value of every document. Equal strings (keys and
    values) are one object across the stream (``strings``): 50,000 manifests repeat the same few hundred keys
    and values, and one object each is less memory and far less to pickle when a worker process read the file.
    """
    same_string = strings.setdefault
    scalar_event, mapping_start, sequence_start = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    end_events = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    stack: list[tuple[Any, bool, Any]] = []
    current: Any = None  # the open mapping or sequence
    in_mapping = False
    key: Any = _NO_KEY  # in a mapping: the key waiting for its value
    root: Any = None
    line = 0
    item_lines: list[int] | None = None
    items: list[Any] | None = None  # the top-level items sequence, whose items' lines are kept
    while True:
        event = next_event()
        kind = type(event)
        if kind is scalar_event:
            if event.anchor is not None or event.tag is not None:
                raise _NotPlain
            value = event.value
            if event.implicit[0] and (not value or value[0] in NUMBER_START or value in PLAIN_NON_STRINGS):
                if in_mapping and key is _NO_KEY:
                    raise _NotPlain  # a key that is not a string (or a merge key)
                value = _plain_value(value)
            else:
                value = same_string(value, value)
            if in_mapping:
                if key is _NO_KEY:
                    if value in current:
                        raise _NotPlain  # duplicate key: the general path records where
                    key = value
                else:
                    current[key] = value
                    key = _NO_KEY
            elif current is not None:
                if current is items:
                    item_lines.append(event.start_mark.line + 1)  # type: ignore[union-attr]
                current.append(value)
            else:
                root, line = value, event.start_mark.line + 1
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None or event.tag is not None or len(stack) >= _FAST_MAX_DEPTH:
                raise _NotPlain
            new: Any = {} if kind is mapping_start else []
            if in_mapping:
                if key is _NO_KEY:
                    raise _NotPlain  # a mapping or sequence as a key
                current[key] = new
                if key == "items" and kind is sequence_start and len(stack) == 1:
                    items, item_lines = new, []
            elif current is not None:
                if current is items:
                    item_lines.append(event.start_mark.line + 1)  # type: ignore[union-attr]
                current.append(new)
            else:
                root, line = new, event.start_mark.line + 1
            stack.append((current, in_mapping, key))
            current, in_mapping, key = new, kind is mapping_start, _NO_KEY
        elif kind in end_events:
            current, in_mapping, key = stack.pop()
            key = _NO_KEY
        elif kind is yaml.DocumentEndEvent:
            return root, line, item_lines
        else:
            raise _NotPlain  # an alias


_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)


def _reader_error(exc: yaml.reader.ReaderError, text: str, file: str) -> InputError:
    """A character YAML refuses (control characters, ...), located at its line and document.

    The reader checks characters before the parser has seen any document (libyaml reads ahead), so
    the document count at the time of the error says nothing: count the document starts before it.
    """
    character = exc.character if isinstance(exc.character, str) else chr(exc.character)
    # libyaml reports a byte offset of the UTF-8 text, the pure-Python reader a character offset; a
    # character the reader refuses is refused everywhere in the stream, so its first occurrence is it.
    found = text.find(character)
    position = found if found >= 0 else min(max(exc.position, 0), len(text))
    line = text.count("\n", 0, position) + 1
    starts = [m.start() for m in _DOCUMENT_START.finditer(text, 0, position)]
    leading = _DOCUMENT_START.match(text, _first_content(text)) is not None
    index = max(len(starts) - (1 if leading else 0), 0)
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return InputError(file, f"invalid YAML: character U+{ord(character):04X} is not allowed in YAML text "
                      f"({exc.reason}; column {column})", line=line, index=index)


def _first_content(text: str) -> int:
    """Where the first line that is neither blank nor a comment nor a directive starts."""
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "%")):
            return offset
        offset += len(line)
    return offset


def _yaml_error(exc: yaml.MarkedYAMLError, file: str, index: int) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    parts = [p for p in (exc.context, exc.problem) if p]
    message = "invalid YAML: " + (", ".join(parts) if parts else str(exc))
    line = mark.line + 1 if mark is not None else None
    if mark is not None:
        message += f" (column {mark.column + 1})"
    return InputError(file, message, line=line, index=index)


def _build_document(node: yaml.Node | None, file: str, index: int) -> Document:
    if node is None:
        return Document(Origin(file, index, 1), None)
    builder = _Builder(file, index)
    body = builder.build(node, 0)
    origin = Origin(file, index, node.start_mark.line + 1)
    duplicates = [_path_to(node, mapping, key) for mapping, key in builder.duplicates]
    return Document(origin, body, node, duplicates)


class _Builder:
    """Turns a composed YAML node tree into plain dicts/lists/scalars, counting values.

    This is the hot path of loading (tens of thousands of documents), so it tracks no field
    paths; the rare duplicate key is located afterwards by searching the tree.
    """

    def __init__(self, file: str, index: int) -> None:
        self.file = file
        self.index = index
        self.alias_values = 0
        self.in_alias = False
        # Collection nodes built so far: meeting one again means an alias is being expanded.
        self.built: set[int] = set()
        self.duplicates: list[tuple[yaml.MappingNode, str]] = []

    def build(self, node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self._too_big(node, depth)
        if self.in_alias:
            self.alias_values += 1
            if self.alias_values > MAX_ALIAS_VALUES:
                raise self._too_big(node, depth)
        if node.id == "scalar":
            if node.tag == STR_TAG:
                return node.value
            return self._scalar(node)
        if not self.in_alias and id(node) in self.built:
            return self._expand_alias(node, depth)
        self.built.add(id(node))
        if node.id == "sequence":
            return [self.build(item, depth + 1) for item in node.value]
        return self._mapping(node, depth)

    def _expand_alias(self, node: Any, depth: int) -> Any:
        """A collection met a second time: everything inside it counts against MAX_ALIAS_VALUES."""
        self.in_alias = True
        try:
            return self.build(node, depth)
        finally:
            self.in_alias = False

    def _too_big(self, node: yaml.Node, depth: int) -> InputError:
        if depth > MAX_DEPTH:
            message = f"nesting deeper than {MAX_DEPTH} levels"
        else:
            message = f"aliases expand to more than {MAX_ALIAS_VALUES:,} values (an alias bomb)"
        return InputError(self.file, message, line=node.start_mark.line + 1, index=self.index)

    def _mapping(self, node: yaml.MappingNode, depth: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                self._merge(result, value_node, depth)
                continue
            key = key_node.value if key_node.tag == STR_TAG else self._key(key_node, depth)
            if key in result:
                self.duplicates.append((node, key))
            result[key] = self.build(value_node, depth + 1)
        return result

    def _key(self, key_node: yaml.Node, depth: int) -> str:
        key = self.build(key_node, depth + 1)
        if isinstance(key, str):
            return key
        # JSON objects only have string keys; kubectl converts like this too.
        return "true" if key is True else "false" if key is False else "null" if key is None else str(key)

    def _merge(self, result: dict[Any, Any], node: yaml.Node, depth: int) -> None:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            merged = self.build(source, depth + 1)
            if not isinstance(merged, dict):
                raise InputError(self.file, "merge key '<<' needs a mapping",
                                 line=source.start_mark.line + 1, index=self.index)
            for key, value in merged.items():
                result.setdefault(key, value)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag == NULL_TAG:
            return None
        if tag == INT_TAG:
            return _to_int(text)
        if tag == FLOAT_TAG:
            return _to_number(text)
        if tag == BOOL_TAG:
            return _BOOL_VALUES.get(text.lower(), text)
        if tag.startswith("tag:yaml.org,2002:"):
            return text  # binary, timestamp, set ...: kept as text, as JSON would see it
        raise InputError(self.file, f"unsupported YAML tag {tag!r}", line=node.start_mark.line + 1,
                         index=self.index)


def _path_to(root: yaml.Node, target: yaml.Node, key: str) -> FieldPath:
    """The field path of ``key`` inside the mapping node ``target`` (searched from ``root``)."""
    stack: list[tuple[yaml.Node, FieldPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if node is target:
            return (*path, key)
        if isinstance(node, yaml.MappingNode):
            stack.extend((v, (*path, k.value)) for k, v in node.value if isinstance(k, yaml.ScalarNode))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, (*path, i)) for i, v in enumerate(node.value))
    return (key,)


def _to_int(text: str) -> int | str:
    cleaned = text.replace("_", "")
    sign = -1 if cleaned.startswith("-") else 1
    digits = cleaned.lstrip("+-")
    try:
        if digits.startswith(("0x", "0X")):
            return sign * int(digits[2:], 16)
        if digits.startswith(("0b", "0B")):
            return sign * int(digits[2:], 2)
        if len(digits) > 1 and digits.startswith("0"):
            return sign * int(digits, 8)  # YAML 1.1 octal
        return sign * int(digits)
    except ValueError:
        return text


def _to_number(text: str) -> int | LiteralFloat:
    # ``2e0`` or ``1.0`` is still a float in JSON; keep the text so quantities stay exact.
    return LiteralFloat(text)
