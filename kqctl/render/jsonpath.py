"""kubectl's JSONPath templates (``-o jsonpath=``, ``-o custom-columns=``, ``--sort-by``) over a JSONPath library.

kubectl's dialect (k8s.io/client-go/util/jsonpath, parser.go and jsonpath.go) is a *template*: literal text with
``{...}`` actions, where an action is a path (``{.items[*].metadata.name}``), a quoted string (``{"\\n"}``), or
``{range PATH}`` ... ``{end}`` repeating what lies between for every value of the path. The paths themselves
are ordinary JSONPath (fields, ``[*]``, ``..``, indexes, slices, unions, ``[?(@.x == "y")]`` filters), and those
are evaluated by python-jsonpath (a maintained, dependency-free RFC 9535 implementation that also accepts
kubectl's ``[?(...)]`` filters and hyphens in field names). No Python library parses kubectl's template layer
(jsonpath-ng and python-jsonpath read one path, not text with actions and ranges), so that layer is ours:
the parser below, and the printing rules of client-go's ``PrintResults``: several values of one action are
separated by a space, strings print as they are, maps and lists as compact JSON, null as ``<nil>``; a path
that finds nothing prints nothing (kubectl's default ``--allow-missing-template-keys=true``); and nothing is
added at the end (no newline), as kubectl writes it.

Our own rules where kubectl has none: a field name may hold any character but ``.``, ``[`` and space
(``\\.`` escapes a dot, as in kubectl: ``{.labels.kueue\\.x-k8s\\.io/queue-name}``); ``$`` is the object the
template (or its ``range``) is applied to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

NONE_CELL = "<none>"  # kubectl's custom-columns cell for a path that finds nothing


class TemplateError(ValueError):
    """A template or path kubectl would refuse; the message names the template."""


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Path:
    path: str  # python-jsonpath syntax, from ``$``


@dataclass(frozen=True)
class _Range:
    path: str
    body: tuple[_Text | _Path | _Range, ...]


_Node = _Text | _Path | _Range


@dataclass(frozen=True)
class Template:
    """A parsed -o jsonpath template."""

    source: str
    nodes: tuple[_Node, ...]

    def render(self, data: Any) -> str:
        return "".join(_render(self.nodes, data))


def parse_template(source: str) -> Template:
    """A -o jsonpath= template; a TemplateError says what is wrong with it."""
    stack: list[tuple[str, list[_Node]]] = [("", [])]
    for kind, text in _actions(source):
        nodes = stack[-1][1]
        if kind == "text":
            nodes.append(_Text(text))
            continue
        words = text.strip()
        if words.startswith(('"', "'")):
            nodes.append(_Text(_unquote(words, source)))
        elif words == "end":
            if len(stack) == 1:
                raise TemplateError(f"jsonpath template {source!r}: {{end}} without a {{range}}")
            path, body = stack.pop()
            stack[-1][1].append(_Range(path, tuple(body)))
        elif words.startswith("range ") or words == "range":
            stack.append((library_path(words[len("range"):].strip(), source), []))
        elif words:
            nodes.append(_Path(library_path(words, source)))
    if len(stack) > 1:
        raise TemplateError(f"jsonpath template {source!r}: {{range}} without an {{end}}")
    return Template(source, tuple(stack[0][1]))


def _actions(source: str) -> list[tuple[str, str]]:
    """The template as ("text", literal) and ("action", inside the braces) parts."""
    parts: list[tuple[str, str]] = []
    at = 0
    while at < len(source):
        opening = source.find("{", at)
        if opening < 0:
            parts.append(("text", source[at:]))
            break
        if opening > at:
            parts.append(("text", source[at:opening]))
        closing = _closing_brace(source, opening)
        parts.append(("action", source[opening + 1:closing]))
        at = closing + 1
    return parts


def _closing_brace(source: str, opening: int) -> int:
    quote = ""
    index = opening + 1
    while index < len(source):
        char = source[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "}":
            return index
        index += 1
    raise TemplateError(f"jsonpath template {source!r}: unclosed action (a '{{' without its '}}')")


def _unquote(words: str, source: str) -> str:
    if len(words) < 2 or words[-1] != words[0]:
        raise TemplateError(f"jsonpath template {source!r}: unterminated string {words}")
    inner = words[1:-1] if words[0] == '"' else words[1:-1].replace('"', '\\"')
    try:
        return str(json.loads(f'"{inner}"', strict=False))
    except json.JSONDecodeError:
        raise TemplateError(f"jsonpath template {source!r}: bad escape in string {words}") from None


def library_path(expression: str, source: str | None = None) -> str:
    """A kubectl path (``.items[*].metadata.name``, ``$.a``, ``..name``) in python-jsonpath's syntax, checked."""
    text = expression.strip()
    if text.startswith(("$", "@")):
        text = text[1:]
    if text and not text.startswith((".", "[")):
        raise TemplateError(f"jsonpath {source or expression!r}: {expression!r} must start with '.' (e.g. .name)")
    converted = "$" + _convert(text, source or expression)
    _compiled(converted, source or expression)
    return converted


def _convert(text: str, source: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "[":
            end = _closing_bracket(text, index, source)
            out.append(text[index:end + 1])
            index = end + 1
        elif char == ".":
            recursive = text.startswith("..", index)
            index += 2 if recursive else 1
            name, index = _field(text, index)
            if recursive:
                out.append(".." + (f"[{json.dumps(name)}]" if name and name != "*" else "[*]" if name else ""))
            elif name == "*":
                out.append("[*]")
            elif name:
                out.append(f"[{json.dumps(name, ensure_ascii=False)}]")
            elif index < len(text) and text[index] != "[":
                raise TemplateError(f"jsonpath {source!r}: empty field name")
        else:
            raise TemplateError(f"jsonpath {source!r}: unexpected {char!r} at {text[index:]!r}")
    return "".join(out)


def _field(text: str, index: int) -> tuple[str, int]:
    name: list[str] = []
    while index < len(text) and text[index] not in ".[ ":
        if text[index] == "\\" and index + 1 < len(text):
            index += 1
        name.append(text[index])
        index += 1
    return "".join(name), index


def _closing_bracket(text: str, opening: int, source: str) -> int:
    depth, quote, index = 0, "", opening
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise TemplateError(f"jsonpath {source!r}: unclosed '['")


@cache
def _compiled(path: str, source: str) -> Any:
    import jsonpath

    try:
        return jsonpath.compile(path)
    except jsonpath.JSONPathError as exc:
        raise TemplateError(f"jsonpath {source!r}: {str(exc).splitlines()[0]}") from None


def _find(path: str, data: Any) -> list[Any]:
    import jsonpath

    try:
        return list(_compiled(path, path).findall(data))
    except jsonpath.JSONPathError as exc:
        raise TemplateError(f"jsonpath: {str(exc).splitlines()[0]}") from None


def _render(nodes: Sequence[_Node], data: Any) -> list[str]:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, _Text):
            parts.append(node.text)
        elif isinstance(node, _Path):
            parts.append(" ".join(value_text(value) for value in _find(node.path, data)))
        else:
            for value in _find(node.path, data):
                parts.extend(_render(node.body, value))
    return parts


def value_text(value: Any) -> str:
    """A value as kubectl prints it: strings as they are, maps and lists as compact JSON, null as <nil>."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


# --- relaxed paths: custom-columns and --sort-by -------------------------------------------------------------


def relaxed(expression: str) -> str:
    """kubectl's RelaxedJSONPathExpression (kubectl/pkg/cmd/get/customcolumn.go): ``{.a.b}``, ``.a.b`` and ``a.b``
    all mean the path ``.a.b``."""
    text = expression.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if text.startswith("$"):
        text = text[1:]
    if text and not text.startswith((".", "[")):
        text = "." + text
    return text


def values_of(expression: str, item: Any) -> list[Any]:
    """Every value a relaxed path finds in ``item``."""
    return _find(library_path(relaxed(expression)), item)


def unmatched_sort_path(expression: str, items: Sequence[Any]) -> str | None:
    """Why --sort-by PATH cannot sort ``items``, as kubectl refuses it: no item has the path (a typo would otherwise
    leave the rows unsorted without a word), with the nearest field the items have; None when one has it, or there
    is no item to look in."""
    if not items or any(values_of(expression, item) for item in items):
        return None
    import difflib

    known = sorted({path for item in items for path in _field_paths(item)})
    wanted = relaxed(expression)
    near = difflib.get_close_matches(wanted, known, n=1, cutoff=0.6)
    fields = sorted({path for path in known if path.count(".") == 1})  # the top-level ones, when nothing is near
    hint = f"; did you mean {near[0]}?" if near else f"; the objects have: {', '.join(fields)}" if fields else ""
    return f'couldn\'t find any field with path "{{{wanted}}}" in the list of objects{hint}'


def _field_paths(value: Any, prefix: str = "", depth: int = 3) -> list[str]:
    """The fields of an object as relaxed paths (``.admission.clusterQueue``), nested objects to ``depth``."""
    if not isinstance(value, dict) or depth == 0:
        return []
    paths = []
    for key, child in value.items():
        path = f"{prefix}.{key}"
        paths.append(path)
        paths.extend(_field_paths(child, path, depth - 1))
    return paths


def sort_key_for(expression: str) -> Callable[[Any], tuple[Any, ...]]:
    """--sort-by PATH: a key ordering items by the path's first value, as kubectl's sorter does
    (kubectl/pkg/cmd/get/sorter.go, isLess): numbers by value, strings in natural order (sortorder.NaturalLess:
    ``job-2`` before ``job-10``); items without the field last (kubectl refuses a path no item has)."""
    path = library_path(relaxed(expression))

    def key(item: Any) -> tuple[Any, ...]:
        found = _find(path, item)
        if not found or found[0] is None:
            return (3,)
        value = found[0]
        if isinstance(value, bool):
            return (0, int(value))
        if isinstance(value, (int, float)):
            return (0, value)
        return (1, _natural(value_text(value)))

    return key


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    import re

    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part)


@dataclass(frozen=True)
class CustomColumn:
    header: str
    path: str  # python-jsonpath syntax


def parse_custom_columns(spec: str) -> list[CustomColumn]:
    """``HEADER:PATH,HEADER:PATH`` as kubectl reads -o custom-columns (a path may be given with or without braces)."""
    if not spec.strip():
        raise TemplateError("custom-columns format specified but no custom columns given")
    columns = []
    for part in spec.split(","):
        header, colon, path = part.partition(":")
        if not colon or not header.strip() or not path.strip():
            raise TemplateError(f"unexpected custom-columns spec: {part!r}, expected <header>:<json-path-expr>")
        columns.append(CustomColumn(header.strip(), library_path(relaxed(path), path)))
    return columns


def custom_column_cell(column: CustomColumn, item: Any) -> str:
    """One cell: the path's values joined by commas, ``<none>`` when it finds nothing (kubectl's custom-columns)."""
    found = _find(column.path, item)
    return ",".join(value_text(value) for value in found) if found else NONE_CELL
