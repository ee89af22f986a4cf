"""YAML as YuniKorn reads ``queues.yaml``: ``go.yaml.in/yaml/v3`` into Go structs, strict.

What differs from the Kubernetes (YAML 1.1) reading kqctl uses for manifests, and matters here:

* only the first document is read; an empty text is an empty config;
* scalars typed as YAML 1.2 core (``yes``/``on`` are strings, ``true``/``True``/``TRUE`` booleans); a
  string field takes any scalar's text as written (``offset: 5`` is the string ``"5"``); a bool field
  also takes YAML 1.1's ``y``/``yes``/``on``/``n``/``no``/``off``; an unsigned field takes a
  non-negative integer or a float it truncates;
* ``KnownFields(true)``: a key a struct does not have is an error, as are repeated keys; every such
  problem is collected (``yaml: unmarshal errors:`` followed by one line each), the rest still decodes.

Every decoded value keeps the line it came from and its field path, so findings point into the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from kqctl.origin import FieldPath

_NULL_WORDS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUE_WORDS = frozenset(("true", "True", "TRUE"))
_FALSE_WORDS = frozenset(("false", "False", "FALSE"))
_YAML11_TRUE = frozenset(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"))
_YAML11_FALSE = frozenset(("n", "N", "no", "No", "NO", "off", "Off", "OFF"))
_SPECIAL_FLOATS = {".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan, ".inf": math.inf, ".Inf": math.inf,
                   ".INF": math.inf, "+.inf": math.inf, "+.Inf": math.inf, "+.INF": math.inf,
                   "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf, "-0": -0.0, "-0.0": -0.0}
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?\Z")
_TYPE_NAMES = {"str": "string", "bool": "bool", "uint64": "uint64", "float64": "float64"}


@dataclass
class Node:
    """A YAML node: ``kind`` is scalar, mapping or sequence; mappings keep their (key, value) pairs."""

    kind: str
    line: int
    value: str = ""
    tag: str = ""  # the resolved short tag of a scalar: !!str, !!int, !!float, !!bool, !!null, !!timestamp
    quoted: bool = False
    pairs: list[tuple[Node, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    @property
    def is_null(self) -> bool:
        return self.kind == "scalar" and self.tag == "!!null"


@dataclass(frozen=True)
class DecodeError:
    """One problem decoding the text, with YuniKorn's wording where kqctl can give it."""

    line: int
    message: str
    path: FieldPath = ()


class SyntaxProblem(Exception):
    """The text is not YAML at all (go-yaml: ``yaml: line N: ...``); nothing decodes."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"yaml: line {line}: {problem}")
        self.line = line
        self.problem = problem


def first_document(text: str) -> Node | None:
    """The first YAML document of ``text`` as a node tree; None for an empty stream."""
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for raw in yaml.compose_all(text, Loader=loader_class):
            return _convert(raw, {}) if raw is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SyntaxProblem((mark.line + 1) if mark else 1, exc.problem or str(exc)) from None
    except yaml.YAMLError as exc:
        raise SyntaxProblem(1, str(exc)) from None
    except RecursionError:
        raise SyntaxProblem(1, "document is nested too deeply") from None
    return None


def from_yaml_node(raw: yaml.Node) -> Node:
    """A PyYAML node (e.g. one the manifest loader composed, lines relative to its file) as go-yaml would type
    it: plain scalars are re-resolved with YAML 1.2 core rules, whatever tag the loader gave them."""
    return _convert(raw, {})


def _convert(raw: yaml.Node, seen: dict[int, Node]) -> Node:
    known = seen.get(id(raw))
    if known is not None:
        return known  # an alias: the same node again
    line = raw.start_mark.line + 1
    if isinstance(raw, yaml.ScalarNode):
        quoted = raw.style is not None and raw.style != ""
        node = Node("scalar", line, raw.value, _scalar_tag(raw, quoted), quoted)
    elif isinstance(raw, yaml.SequenceNode):
        node = Node("sequence", line)
        seen[id(raw)] = node
        node.items = [_convert(item, seen) for item in raw.value]
    else:
        node = Node("mapping", line)
        seen[id(raw)] = node
        node.pairs = [(_convert(k, seen), _convert(v, seen)) for k, v in raw.value]
    seen[id(raw)] = node
    return node


def _scalar_tag(raw: yaml.ScalarNode, quoted: bool) -> str:
    if quoted:
        return "!!str"
    tag = raw.tag or ""
    if tag.startswith("tag:yaml.org,2002:") and tag[18:] not in ("str", "int", "float", "bool", "null",
                                                                  "timestamp", "merge"):
        return "!!" + tag[18:]  # an explicit tag such as !!binary
    return resolve_plain(raw.value)


def resolve_plain(value: str) -> str:
    """go-yaml v3's ``resolve`` for a plain scalar: its tag."""
    if value in _NULL_WORDS:
        return "!!null"
    if value in _TRUE_WORDS or value in _FALSE_WORDS:
        return "!!bool"
    if value in _SPECIAL_FLOATS:
        return "!!float"
    first = value[0]
    if first == ".":
        return "!!float" if _YAML_FLOAT.match(value) else "!!str"
    if first in "+-0123456789":
        if _TIMESTAMP.match(value):
            return "!!timestamp"
        plain = value.replace("_", "")
        if _GO_INT.match(plain):
            return "!!int"
        if _YAML_FLOAT.match(plain):
            return "!!float"
    return "!!str"


def int_value(node: Node) -> int | None:
    """The integer a !!int scalar stands for (Go's base prefixes; a leading 0 is octal)."""
    text = node.value.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    lower = body.lower()
    if lower.startswith(("0x", "0o", "0b")):
        value = int(body[2:], {"x": 16, "o": 8, "b": 2}[lower[1]])
    elif len(body) > 1 and body.startswith("0"):
        value = int(body, 8)
    else:
        value = int(body)
    return sign * value


def float_value(node: Node) -> float:
    if node.value in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[node.value]
    return float(node.value.replace("_", ""))


# --- decoding into typed values -----------------------------------------------------------------------


class Decoder:
    """Collects every type error and unknown field, in the order go-yaml meets them."""

    def __init__(self) -> None:
        self.errors: list[DecodeError] = []

    def type_error(self, node: Node, go_type: str, path: FieldPath) -> None:
        # go-yaml's terror: "cannot unmarshal !!str `abc` into uint64" (values over 10 characters cut).
        if node.kind == "scalar":
            shown = node.value if len(node.value) <= 10 else node.value[:7] + "..."
            what = f"{node.tag} `{shown}`"
        else:
            what = "!!map" if node.kind == "mapping" else "!!seq"
        self.errors.append(DecodeError(node.line, f"cannot unmarshal {what} into {go_type}", path))

    def unique_keys(self, node: Node, path: FieldPath) -> bool:
        """go-yaml refuses a mapping that repeats a key (the whole mapping is then not decoded)."""
        before = len(self.errors)
        for i, (key, _) in enumerate(node.pairs):
            for later, _ in node.pairs[i + 1:]:
                if later.kind == key.kind and later.value == key.value and key.kind == "scalar":
                    self.errors.append(DecodeError(
                        later.line, f'mapping key "{later.value}" already defined at line {key.line}', path))
        return len(self.errors) == before

    def string(self, node: Node, path: FieldPath) -> str:
        if node.kind != "scalar":
            self.type_error(node, "string", path)
            return ""
        return "" if node.is_null else node.value

    def boolean(self, node: Node, path: FieldPath) -> bool:
        if node.kind == "scalar" and not node.is_null:
            if node.tag == "!!bool":
                return node.value in _TRUE_WORDS
            if node.value in _YAML11_TRUE:
                return True
            if node.value in _YAML11_FALSE:
                return False
        if not node.is_null:
            self.type_error(node, "bool", path)
        return False

    def uint64(self, node: Node, path: FieldPath) -> int:
        if node.kind == "scalar" and not node.is_null:
            if node.tag == "!!int":
                value = int_value(node)
                if value is not None and 0 <= value < (1 << 64):
                    return value
            elif node.tag == "!!float":
                number = float_value(node)
                if not math.isnan(number) and 0 <= number < 2.0**64:
                    return int(number)  # Go converts the float to uint64, dropping the fraction
        if not node.is_null:
            self.type_error(node, "uint64", path)
        return 0

    def float64(self, node: Node, path: FieldPath) -> float:
        if node.kind == "scalar" and node.tag in ("!!int", "!!float"):
            return float(int_value(node) or 0) if node.tag == "!!int" else float_value(node)
        if not node.is_null:
            self.type_error(node, "float64", path)
        return 0.0

    def string_list(self, node: Node, path: FieldPath) -> list[str] | None:
        """A ``[]string``: None when absent or null, dropping items that do not decode."""
        if node.is_null:
            return None
        if node.kind != "sequence":
            self.type_error(node, "[]string", path)
            return None
        result: list[str] = []
        for i, item in enumerate(node.items):
            if item.kind == "scalar" and not item.is_null:
                result.append(item.value)
            elif item.kind != "scalar":
                self.type_error(item, "string", (*path, i))
            # go-yaml cannot set a null item into a string: the item is dropped.
        return result

    def mapping(self, node: Node, path: FieldPath, value_type: str,
                convert: Callable[[Node, FieldPath], tuple[bool, Any]]) -> tuple[dict[str, Any], dict[str, int]] | None:
        """A Go map with string keys: None when null; (values, line of each key). A null value is the zero
        value; a value that does not decode leaves its key out."""
        if node.is_null:
            return None
        if node.kind != "mapping":
            self.type_error(node, f"map[string]{value_type}", path)
            return None
        if not self.unique_keys(node, path):
            return None
        values: dict[str, Any] = {}
        lines: dict[str, int] = {}
        for key, value in node.pairs:
            if key.kind != "scalar":
                self.type_error(key, "string", path)
                continue
            name = key.value
            lines[name] = key.line
            if value.is_null:
                values[name] = "" if value_type == "string" else 0.0
                continue
            ok, converted = convert(value, (*path, name))
            if ok:
                values[name] = converted
        return values, lines

    def string_value(self, node: Node, path: FieldPath) -> tuple[bool, str]:
        """A map value of type string."""
        if node.kind != "scalar":
            self.type_error(node, "string", path)
            return False, ""
        return True, node.value

    def float_value(self, node: Node, path: FieldPath) -> tuple[bool, float]:
        """A map value of type float64."""
        if node.kind == "scalar" and node.tag in ("!!int", "!!float"):
            return True, self.float64(node, path)
        self.type_error(node, "float64", path)
        return False, 0.0

    def fields(self, node: Node, path: FieldPath, go_type: str,
               known: frozenset[str]) -> Iterator[tuple[str, Node, int]]:
        """The (key, value, key line) pairs of a struct mapping; unknown keys are errors (KnownFields)."""
        if node.is_null:
            return
        if node.kind != "mapping":
            self.type_error(node, go_type, path)
            return
        if not self.unique_keys(node, path):
            return
        for key, value in node.pairs:
            if key.kind != "scalar":
                self.type_error(key, "string", path)
                continue
            if key.value not in known:
                self.errors.append(DecodeError(key.line, f"field {key.value} not found in type {go_type}",
                                               (*path, key.value)))
                continue
            yield key.value, value, key.line

    def sequence(self, node: Node, path: FieldPath, go_type: str) -> list[Node] | None:
        """The items of a ``[]T``: None when null."""
        if node.is_null:
            return None
        if node.kind != "sequence":
            self.type_error(node, go_type, path)
            return None
        return node.items


def unmarshal_errors_text(errors: list[DecodeError]) -> str:
    """go-yaml's aggregated message for decode problems."""
    return "yaml: unmarshal errors:\n" + "\n".join(f"  line {e.line}: {e.message}" for e in errors)
