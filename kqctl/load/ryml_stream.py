"""The plainest YAML streams read by rapidyaml (ryml) and the JSON decoder, about twice as fast as libyaml.

A ``kubectl get -o yaml`` dump of 50,000 Workloads is 10 files of 5,000 documents. libyaml's fast path
(kqctl/load/documents.py) builds one file's values in about 0.6 s of CPU; here the lines are checked
(0.05 s), ryml parses the file in pieces and emits each piece as one JSON array (0.1 s), which the JSON
decoder turns into the same values (0.1 s).

Why ryml is safe here: ryml types plain scalars by YAML 1.2 rules and rewrites a few while emitting JSON
(``.5`` becomes ``0.5``, ``nan`` becomes ``".nan"``, ``007`` and ``0e0`` stay strings; v0.15's
``Emitter::_json_writev`` and ``scalar_style_choose_json``), where kqctl types them as kubectl does (YAML
1.1, :func:`kqctl.load.plain_scalars.plain_scalar_tag`). So ryml only reads streams whose every line is in
a small grammar (:func:`_safe_line`): block mappings and sequences whose scalars are plain or
quoted without escapes and stand on one line, ``{}`` and ``[]``, comments, ``---`` alone on its
line; and whose plain keys and values, told apart from quoted ones in the text itself, are typed alike
(:func:`_line_reads_the_same`). In that grammar every line is whole, so document lines and a List's item
lines are read from the text itself (:func:`_document_starts`, :func:`_item_lines`). Anything else, every
ryml error, duplicate keys, and the one misreading of ryml's found by testing (_KEY_AFTER_SPACE) return
None: libyaml then reads the stream, deciding and wording errors as before. The dependency is pinned to
the 0.15 series these rules were checked against.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.plain_scalars import (
    BOOL_WORDS,
    NULL_WORDS,
    NUMBER_START,
    PLAIN_NON_STRINGS,
    STR_TAG,
    plain_scalar_tag,
)

# Characters that never appear in a scalar of the subset read here: controls, DEL, C1 controls (U+0085 is a
# line break to libyaml), U+2028/U+2029 (line breaks too), BOM, non-characters and lone surrogates.
_NEVER = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"
# A character inside a plain scalar: no indicator that could start something else (comments, quotes, flow
# collections, anchors, aliases, tags, block scalars, escapes); a colon only when no space follows.
_PLAIN_CHAR = rf"""(?:[^ {_NEVER}:#"'\\\[\]{{}}&*!|>@`]|:(?![ ]|$))"""
# The first character of a plain scalar: also none of the YAML indicators that may not start one.
_PLAIN_FIRST = rf"""(?:[^ {_NEVER}:#"'\\\[\]{{}}&*!|>@`%?,-]|-(?={_PLAIN_CHAR}))"""
_PLAIN = rf"{_PLAIN_FIRST}{_PLAIN_CHAR}*(?:[ ]+{_PLAIN_CHAR}+)*"
# Quoted on one line, in double or single quotes, with no escape (backslash, '') and no double quote inside: its
# text is the value as written, and ryml's JSON of it needs no escape either. (kubectl writes strings that need
# quoting in single quotes: a Kueue condition's message, for one.)
_QUOTED = rf"""(?:"[^"\\{_NEVER}]*"|'[^"'\\{_NEVER}]*')"""
_QUOTED_KEY = rf"""(?:"(?P<quoted_key>(?! )[^"\\{_NEVER}]*)"|'(?P<single_quoted_key>(?! )[^"'\\{_NEVER}]*)')"""
_TAIL = rf"(?:[ ]+\#[^{_NEVER}]*|[ ]*)"  # trailing spaces or a comment
_DASHES = r"[ ]*(?:-[ ]+)*"
# Every line of a stream ryml may read: the whole grammar of the subset. Each line stands alone (no scalar
# continues on the next line); what the grammar accepts and YAML refuses (bad indentation, a mapping
# after a scalar) ryml refuses too (tests/load/test_ryml_stream.py).
@functools.cache
def _safe_line() -> re.Pattern[str]:
    """Compiled the first time a stream is checked: compiling it takes about 13 ms, which a command that reads no
    YAML should not pay at start-up."""
    return re.compile(
        rf"---[ ]*|[ ]*(?:\#[^{_NEVER}]*)?"
        rf"|{_DASHES}(?:(?P<plain_key>{_PLAIN})|{_QUOTED_KEY})[ ]*:(?:[ ]+(?:(?P<plain_value>{_PLAIN})|{_QUOTED}"
        rf"|\{{\}}|\[\]))?{_TAIL}"
        rf"|[ ]*(?:-[ ]+)+(?:(?P<plain_item>{_PLAIN})|{_QUOTED}|\{{\}}|\[\]){_TAIL}"
        rf"|{_DASHES}-{_TAIL}"
    )


# Nesting this deep is left to libyaml, which knows the fast path's limit (_FAST_MAX_DEPTH).
_MAX_INDENT = 64

# ryml's emitter writes these keys and values (quoted or plain) as ".nan", ".inf" or "-.inf".
_NAN_INF_WORDS = frozenset((
    "nan", "inf", "infinity", "-inf", "-infinity", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "-.inf", "-.Inf",
    "-.INF",
))
# Plain values YAML 1.1 reads as booleans or null and ryml writes as strings ("true", "false" and "null" it
# writes as JSON literals, which decode to what YAML 1.1 reads).
_WORDS_TYPED_OTHERWISE = (BOOL_WORDS | NULL_WORDS | _NAN_INF_WORDS) - {"true", "false", "null"}
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")
# ryml 0.15 accepts a line indented deeper than the keys of its mapping after an indentless sequence whose last
# item is quoted or {} or [] ("a:\n- {}\n   b: 1"), which YAML refuses, and reads a key "  b" with the extra
# spaces. No key of the grammar starts with a space, and no string of its JSON holds a double quote: a string
# starting with a space right after "{" or "," in the JSON is that misreading (or a quoted item " x").
_KEY_AFTER_SPACE = re.compile(r'[{,]\s*" ')
# Starts with a literal, so the regular expression engine jumps from one candidate to the next.
_DOCUMENT_MARKER = re.compile(r"\n---[ ]*(?=\n|\Z)")
_CONTENT_LINE = re.compile(r"^[ ]*[^ #\n]", re.MULTILINE)


def _number_reads_the_same(text: str) -> bool:
    """Whether ryml's JSON for the plain scalar ``text`` (starting like a number) decodes to what kubectl's
    typing makes of it.

    Why: ryml writes a plain scalar raw when its own number check accepts it, rewriting ``.5`` to ``0.5`` and
    ``1.`` to ``1.0``, and quotes integers with a leading 0 (``007``, ``0e0``). A JSON number written unchanged
    decodes to the int or LiteralFloat of the same text that _plain_value gives. Any other text that YAML 1.1
    reads as a string is either written as that same string or written raw as something the JSON decoder
    refuses (then libyaml reads the stream); only the nan/inf words are rewritten.
    """
    if _JSON_NUMBER.match(text):
        return len(text) == 1 or not text.startswith("0") or "." in text
    return plain_scalar_tag(text) == STR_TAG and text not in _NAN_INF_WORDS


def _line_reads_the_same(line: str) -> bool:
    """Whether the line is in the subset and its keys and values are typed alike by ryml and YAML 1.1."""
    match = _safe_line().fullmatch(line)
    if match is None or len(line) - len(line.lstrip(" -")) >= _MAX_INDENT:
        return False
    if line.startswith(("---", "...")) and match.group("plain_key") is not None:
        return False  # a key that begins like a document marker: left to libyaml
    plain_key, value = match.group("plain_key", "plain_value")
    quoted_key = match.group("quoted_key") or match.group("single_quoted_key")
    if plain_key is not None and (plain_key[0] in NUMBER_START or plain_key in PLAIN_NON_STRINGS):
        return False  # libyaml's fast path leaves keys that may not be strings to the general path
    if plain_key in _NAN_INF_WORDS or quoted_key in _NAN_INF_WORDS:
        return False  # ryml writes these keys, quoted or not, as ".nan", ".inf" or "-.inf"
    if value is None:
        value = match.group("plain_item")
    if value is None:
        return True
    if value in _WORDS_TYPED_OTHERWISE:
        return False
    return value[0] not in NUMBER_START or _number_reads_the_same(value)


def _new_lines_read_the_same(text: str, checked: set[str]) -> bool:
    """Every line not checked before (``checked``, updated): 5,000 manifests of 29 lines have about 7,600
    distinct lines."""
    new = set(text.split("\n")) - checked
    checked |= new
    return all(map(_line_reads_the_same, new))


def _document_markers(text: str) -> list[tuple[int, int]]:
    """Where each ``---`` line starts and ends (the grammar allows no other text on it)."""
    markers = [(marker.start() + 1, marker.end()) for marker in _DOCUMENT_MARKER.finditer(text)]
    if text.startswith("---"):  # the one marker without a line break before it
        first_end = text.find("\n")
        markers.insert(0, (0, len(text) if first_end < 0 else first_end))
    return markers


def _document_starts(text: str, markers: list[tuple[int, int]]) -> list[tuple[int, int, int]] | None:
    """Each document's first content line: (1-based line, its offset, the offset where the document ends), or None
    when a document is empty (libyaml's line for an empty document is left to it). The line is libyaml's start
    mark of the document's root.

    Lines are those of the grammar: content lines are neither blank nor comments nor markers."""
    starts = [0, *(end for _, end in markers)]
    ends = [*(start for start, _ in markers), len(text)]
    found: list[tuple[int, int, int]] = []
    line, counted_to = 1, 0
    for index, (start, end) in enumerate(zip(starts, ends, strict=True)):
        content = _CONTENT_LINE.search(text, start, end)
        if content is None:
            if index == 0:
                continue  # comments or nothing before the first ---: no document
            return None
        line += text.count("\n", counted_to, content.start())
        counted_to = content.start()
        found.append((line, content.start(), end))
    return found if found else None


def _item_lines(text: str, first_line: int, start: int, end: int, count: int) -> list[int] | None:
    """The 1-based line of each item of the document's top-level ``items`` sequence (what libyaml's fast path keeps
    for a ``kind: List``: the item's ``-`` line, where its value starts), or None when this reading of the lines
    is not certain: the document's mapping not at column 0, ``items`` not a plain key, an item whose value starts
    on a later line, or a count other than the decoded list's."""
    lines = text[start:end].split("\n")
    if lines[0][:1] in (" ", "-"):
        return None  # top-level keys are the lines at column 0 only when the root mapping starts there
    key = next(((i, match) for i, line in enumerate(lines) if (match := _ITEMS_KEY.match(line))), None)
    if key is None:
        return None
    at, key_match = key
    if _EMPTY_FLOW.match(lines[at], key_match.end()):
        return [] if count == 0 else None
    found: list[int] = []
    indent: int | None = None
    for offset, line in enumerate(lines[at + 1:], start=at + 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(line) - len(stripped)
        if indent is None:
            indent = depth
        is_item = _ITEM_DASH.match(stripped) is not None
        if depth < indent or (depth == indent and not is_item):
            break  # the next top-level key: the sequence ended
        if depth == indent:
            if _DASH_ALONE.match(stripped):
                return None  # the item's value starts on a later line (or is empty)
            found.append(first_line + offset)
    return found if len(found) == count else None


_ITEMS_KEY = re.compile(r"items[ ]*:")
_EMPTY_FLOW = re.compile(r"[ ]+\[\]")
_ITEM_DASH = re.compile(r"-(?:[ ]|$)")  # not "-x: 1", a key
_DASH_ALONE = re.compile(r"-[ ]*(?:#|$)")


def _chunks(text: str, markers: list[tuple[int, int]]) -> Iterator[str]:
    """The stream cut at document markers into pieces of about _CHUNK characters (64 KiB), each parsed on its own.

    Why: ryml's tree of a 3.4 MB stream of 5,000 manifests takes about 40 MB, and the stream's list of lines
    (checked by the grammar) 10 MB more; a piece's take about 1 MB. Documents share nothing (no anchors, no
    directives in the grammar), so each piece reads the same."""
    start = 0
    for marker, _ in markers:
        if marker - start >= _CHUNK:
            yield text[start:marker]
            start = marker
    yield text[start:]


_CHUNK = 1 << 16


_ryml: Any = None


def _ryml_module() -> Any:
    """ryml, imported the first time a stream is read (its import costs about 17 ms), or False without it."""
    global _ryml
    if _ryml is None:
        try:
            import ryml
        except ImportError:
            ryml = False
        _ryml = ryml
    return _ryml


_tree: Any = None


def _shared_tree(ryml: Any) -> Any:
    """The one ryml tree every piece is parsed into (see _stream_as_json)."""
    global _tree
    if _tree is None:
        _tree = ryml.Tree()
    return _tree


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 pointed at the null device for a moment.

    ryml's C++ error handler prints the parse error on stderr before Python sees its exception, and the
    Python module offers no way to replace it; users must not see a message about a stream that libyaml
    then reads (and reports on) itself. Redirecting the descriptor (not sys.stderr) is what reaches C++'s
    output. Whatever another thread wrote to stderr meanwhile would be lost too: kqctl writes stderr only from
    the thread that reads the inputs (worker processes read files in their own process), and the window is
    only ryml's own parse and emit of one piece. What Python holds in its stderr buffer goes out first.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _stream_as_json(ryml: Any, text: str, tree: Any) -> str:
    """The stream as one JSON array of its documents (one document without ``---`` is not a stream in ryml's
    tree: it is wrapped). Raises ryml's errors.

    ``tree`` is emptied and reused: one tree for all the pieces of all streams is allocated once, where a
    tree per piece left the C heap fragmented among the values kept (50 MB more peak RSS over 50,000
    manifests)."""
    tree.clear()
    tree.clear_arena()
    encoded = text.encode("utf-8")
    # Into a buffer of ours: ryml 0.15's emit_json_malloc never frees the copy it returns (a leak of the whole
    # JSON text, 55 MB over 50,000 manifests).
    buffer = bytearray(2 * len(encoded) + 64)
    with _stderr_silenced():
        ryml.parse_in_arena(encoded, tree)
        root = tree.root_id()
        failed, size = ryml.emit_json_to_substr(tree, root, buffer)
        if failed:
            buffer = bytearray(size)
            failed, size = ryml.emit_json_to_substr(tree, root, buffer)
    if failed:
        raise ValueError("ryml could not emit the JSON")
    emitted = buffer[:size].decode("utf-8")
    return emitted if tree.is_stream(root) else f"[{emitted}]"


class _NotTheSame(Exception):
    """What the decoder meets that YAML reads otherwise (a duplicate key, NaN): libyaml decides."""


def _no_constant(name: str) -> Any:
    raise _NotTheSame(f"{name} is not JSON")


def _decoder_sharing_strings() -> json.JSONDecoder:
    """A JSON decoder as kqctl's JSON path's (no duplicate keys, no NaN, numbers' text kept), which also makes
    equal keys and string values one object across the stream, as libyaml's fast path does: 50,000 manifests
    repeat the same few hundred of them, and one object each is less memory and far less to pickle from a worker
    process. (The decoder itself shares keys only within one call, and the stream is decoded in pieces.)"""
    strings: dict[str, str] = {}
    same_string = strings.setdefault

    def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = {same_string(key, key): same_string(value, value) if type(value) is str else value
                  for key, value in pairs}
        if len(result) != len(pairs):
            raise _NotTheSame("duplicate key")
        return result

    return json.JSONDecoder(object_pairs_hook=unique_pairs, parse_float=LiteralFloat, parse_constant=_no_constant)


def _decoded_stream(pieces: Iterator[str]) -> list[Any] | None:
    """The value of every document of the stream as ryml reads it, or None (a line out of the grammar or typed
    otherwise, no ryml, a ryml error, JSON that the decoder refuses: duplicate keys, NaN, a number written as
    ``+1``). Each piece's lines are checked before ryml reads it."""
    ryml = _ryml_module()
    if not ryml:
        return None
    decoder = _decoder_sharing_strings()
    checked: set[str] = set()
    bodies: list[Any] = []
    try:
        for piece in pieces:
            if not _new_lines_read_the_same(piece, checked):
                return None
            emitted = _stream_as_json(ryml, piece, _shared_tree(ryml))
            if _KEY_AFTER_SPACE.search(emitted):
                return None
            decoded = decoder.decode(emitted)
            if type(decoded) is not list:
                return None
            bodies.extend(decoded)
    except Exception:  # noqa: BLE001  # ryml's errors, the decoder's, a stderr that cannot be redirected
        return None
    return bodies


def read_plain_stream_with_ryml(text: str) -> tuple[list[Any], list[int], list[list[int] | None]] | None:
    """The value and 1-based line of every document of the stream and the lines of the items of its top-level
    ``items`` sequence (None without one), as libyaml's fast path reads them; or None when ryml's answer is not
    certain to be the same (then libyaml reads the stream)."""
    markers = _document_markers(text)
    starts = _document_starts(text, markers)
    bodies = _decoded_stream(_chunks(text, markers)) if starts is not None else None
    if starts is None or bodies is None or len(bodies) != len(starts):
        return None
    item_lines: list[list[int] | None] = []
    for body, (line, start, end) in zip(bodies, starts, strict=True):
        items = body.get("items") if type(body) is dict else None
        if type(items) is not list:
            item_lines.append(None)
            continue
        found = _item_lines(text, line, start, end, len(items))
        if found is None:
            return None
        item_lines.append(found)
    return bodies, [line for line, _, _ in starts], item_lines
