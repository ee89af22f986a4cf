"""Split YAML/JSON text into documents, keeping a line for every field.

YAML is read as kubectl reads it (sigs.k8s.io/yaml, YAML 1.1): ``y``/``n`` are booleans, ``2e0``
is a number, timestamps stay strings. Non-integer numbers keep their source text
(:class:`LiteralFloat`) because quantities must never go through float arithmetic (QTY-1).
Alias bombs, very deep nesting, duplicate keys and binary input are rejected with a location.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kqctl.api.origin import FieldPath, Origin
from kqctl.api.scalars import LiteralFloat
from kqctl.errors import InputError

# Expanding aliases can blow a few bytes up into billions of values ("billion laughs"):
# stop long before that. 1e6 values is far above any real Kueue object.
MAX_VALUES_PER_DOCUMENT = 1_000_000
MAX_DEPTH = 200

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"

_BOOL_VALUES = {
    "y": True, "yes": True, "true": True, "on": True,
    "n": False, "no": False, "false": False, "off": False,
}


def _base_loader() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: 10x faster


class _KubectlResolver(yaml.resolver.Resolver):
    """Implicit scalar typing as go-yaml v2 (used by kubectl) does it."""


_KubectlResolver.yaml_implicit_resolvers = {}
_KubectlResolver.add_implicit_resolver(
    _BOOL,
    re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
    list("yYnNtTfFoO"),
)
_KubectlResolver.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"),
)
_KubectlResolver.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_KubectlResolver.add_implicit_resolver(_MERGE, re.compile(r"^(?:<<)$"), ["<"])
_KubectlResolver.add_implicit_resolver(_NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])


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


def decode_text(data: bytes, file: str) -> str:
    """Bytes to text, rejecting binary input with the place it was found."""
    if b"\x00" in data[:1_000_000] or b"\x00" in data:
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
    loader = _Loader(text)
    documents: list[Document] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            index = len(documents)
            documents.append(_build_document(node, file, index))
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, file, len(documents)) from None
    except yaml.YAMLError as exc:
        raise InputError(file, f"invalid YAML: {exc}", index=len(documents)) from None
    except RecursionError:
        raise InputError(file, f"nesting deeper than {MAX_DEPTH} levels", index=len(documents)) from None
    finally:
        loader.dispose()
    return documents


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
    body = builder.build(node, (), 0)
    origin = Origin(file, index, node.start_mark.line + 1)
    return Document(origin, body, node, builder.duplicate_keys)


class _Builder:
    """Turns a composed YAML node tree into plain dicts/lists/scalars, counting values."""

    def __init__(self, file: str, index: int) -> None:
        self.file = file
        self.index = index
        self.values = 0
        self.duplicate_keys: list[FieldPath] = []

    def build(self, node: yaml.Node, path: FieldPath, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES_PER_DOCUMENT:
            raise InputError(self.file, f"document expands to more than {MAX_VALUES_PER_DOCUMENT:,} values"
                             " (an alias bomb?)", line=node.start_mark.line + 1, index=self.index)
        if depth > MAX_DEPTH:
            raise InputError(self.file, f"nesting deeper than {MAX_DEPTH} levels",
                             line=node.start_mark.line + 1, index=self.index)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        return self._mapping(node, path, depth)

    def _mapping(self, node: yaml.MappingNode, path: FieldPath, depth: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                self._merge(result, value_node, path, depth)
                continue
            key = self.build(key_node, path, depth + 1)
            if not isinstance(key, str):
                # JSON objects only have string keys; kubectl converts like this too.
                key = "true" if key is True else "false" if key is False else "null" if key is None else str(key)
            if key in result:
                self.duplicate_keys.append((*path, key))
            result[key] = self.build(value_node, (*path, key), depth + 1)
        return result

    def _merge(self, result: dict[Any, Any], node: yaml.Node, path: FieldPath, depth: int) -> None:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            merged = self.build(source, path, depth + 1)
            if not isinstance(merged, dict):
                raise InputError(self.file, "merge key '<<' needs a mapping",
                                 line=source.start_mark.line + 1, index=self.index)
            for key, value in merged.items():
                result.setdefault(key, value)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag == _STR:
            return text
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return _BOOL_VALUES.get(text.lower(), text)
        if tag == _INT:
            return _to_int(text)
        if tag == _FLOAT:
            return _to_number(text)
        if tag.startswith("tag:yaml.org,2002:"):
            return text  # binary, timestamp, set ...: kept as text, as JSON would see it
        raise InputError(self.file, f"unsupported YAML tag {tag!r}", line=node.start_mark.line + 1,
                         index=self.index)


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
