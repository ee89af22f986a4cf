"""Kubernetes names, label keys/values and label selectors, validated with Kubernetes' own messages.

The message texts are those of ``k8s.io/apimachinery`` v0.36 as vendored by Kueue at the
reference commit (``pkg/util/validation`` and ``pkg/api/validate/content``). Two quirks of that
version are kept on purpose because users compare our output with the API server's:

* the two packages word length errors differently: ``util/validation`` (object names, namespace
  names, Kueue's queue-name label check) says "must be no more than N characters", while
  ``content`` (label keys and values, and the DNS prefix of a label key) says "... N bytes";
* lengths are counted in UTF-8 bytes, as Go's ``len`` does.

Besides plain message lists, this module renders Kubernetes *field errors*
(``Invalid value: "x": detail``) because label-selector validation reports several fields at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kqctl.origin import FieldPath

LengthUnit = Literal["characters", "bytes"]

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
LABEL_KEY_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024

_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_LABEL_KEY_RE = re.compile(LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


# --- message builders (apimachinery's content/errors.go) -------------------------------------


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``<msg> (e.g. 'a' or 'b', regex used for validation is '<fmt>')``."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    quoted = " or ".join(f"'{example}'" for example in examples)
    return f"{msg} (e.g. {quoted}, regex used for validation is '{fmt}')"


def max_len_error(length: int, unit: LengthUnit = "characters") -> str:
    return f"must be no more than {length} {unit}"


def empty_error() -> str:
    return "must be non-empty"


def byte_len(value: str) -> int:
    """Go's ``len(string)``: the UTF-8 byte count."""
    return len(value.encode("utf-8", "surrogatepass"))


def _full_match(pattern: re.Pattern[str], value: str) -> bool:
    # fullmatch, not match + "$": Python's "$" also matches before a trailing newline, Go's does not.
    return pattern.fullmatch(value) is not None


# --- names -----------------------------------------------------------------------------------


def is_dns1123_label(value: str, unit: LengthUnit = "characters") -> list[str]:
    """DNS-1123 label (namespace names, pod set names): ≤ 63, no dots."""
    errs: list[str] = []
    if byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH, unit))
    if not _full_match(_DNS1123_LABEL_RE, value):
        if _full_match(_DNS1123_SUBDOMAIN_RE, value):
            # A valid subdomain that is not a valid label can only differ by its dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str, unit: LengthUnit = "characters") -> list[str]:
    """DNS-1123 subdomain (object names, Kueue references): ≤ 253."""
    errs: list[str] = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, unit))
    if not _full_match(_DNS1123_SUBDOMAIN_RE, value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def name_is_dns1123_subdomain(name: str, prefix: bool = False) -> list[str]:
    """``NameIsDNSSubdomain``: object-name check; ``prefix`` for ``generateName``."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1123_label(name: str, prefix: bool = False) -> list[str]:
    """``NameIsDNSLabel``: namespace-name check; ``prefix`` for ``generateName``."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def _mask_trailing_dash(name: str) -> str:
    # Mirrors apimachinery's maskTrailingDash byte for byte, including its quirk of dropping
    # the *two* last characters before appending "a" (so "ab-" is checked as "a").
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


# --- labels ----------------------------------------------------------------------------------


def is_qualified_name(value: str) -> list[str]:
    """A label key / qualified name: optional DNS-subdomain prefix, ``/``, name ≤ 63."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errs: list[str] = []
    if len(parts) == 2:
        errs.extend(_label_key_prefix_errors(parts[0]))
    errs.extend(_label_key_name_errors(parts[-1]))
    return errs


def _label_key_prefix_errors(prefix: str) -> list[str]:
    if not prefix:
        return ["prefix part " + empty_error()]
    return ["prefix part " + msg for msg in is_dns1123_subdomain(prefix, unit="bytes")]


def _label_key_name_errors(name: str) -> list[str]:
    errs: list[str] = []
    if not name:
        errs.append("name part " + empty_error())
    elif byte_len(name) > LABEL_KEY_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(LABEL_KEY_NAME_MAX_LENGTH, "bytes"))
    # The pattern is checked even after an emptiness/length error, as Kubernetes does.
    if not _full_match(_LABEL_KEY_RE, name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    """A label value: empty, or ≤ 63 characters of ``[-A-Za-z0-9_.]`` starting/ending alphanumeric."""
    errs: list[str] = []
    if byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH, "bytes"))
    if not _full_match(_LABEL_VALUE_RE, value):
        errs.append(regex_error(_LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


# --- field errors ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldError:
    """One Kubernetes field error: ``<path>: <error type>[: <value>][: <detail>]``.

    ``value`` is already rendered (Go-quoted string, JSON, number) or ``None`` when the error
    type shows no value (``Required value``, ``Forbidden``, ``Too long``).
    """

    path: FieldPath
    error_type: str
    value: str | None
    detail: str = ""

    def body(self) -> str:
        """The part after the path, as ``field.Error.ErrorBody`` prints it."""
        text = self.error_type if self.value is None else f"{self.error_type}: {self.value}"
        return f"{text}: {self.detail}" if self.detail else text


def invalid(path: FieldPath, value: str, detail: str) -> FieldError:
    return FieldError(path, "Invalid value", value, detail)


def required(path: FieldPath, detail: str = "") -> FieldError:
    return FieldError(path, "Required value", None, detail)


def forbidden(path: FieldPath, detail: str) -> FieldError:
    return FieldError(path, "Forbidden", None, detail)


def duplicate(path: FieldPath, value: str, detail: str = "") -> FieldError:
    return FieldError(path, "Duplicate value", value, detail)


def not_found(path: FieldPath, value: str) -> FieldError:
    return FieldError(path, "Not found", value)


def not_supported(path: FieldPath, value: str, supported: Sequence[str]) -> FieldError:
    detail = "supported values: " + ", ".join(go_quote(v) for v in supported) if supported else ""
    return FieldError(path, "Unsupported value", value, detail)


def too_long(path: FieldPath, max_length: int) -> FieldError:
    unit = "byte" if max_length == 1 else "bytes"
    return FieldError(path, "Too long", None, f"may not be more than {max_length} {unit}")


# --- Go value rendering ----------------------------------------------------------------------

_GO_SHORT_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(value: str) -> str:
    """Go's ``strconv.Quote`` (how a plain ``string`` bad value is printed, ``%q``)."""
    out = ['"']
    for char in value:
        out.append(_go_quote_char(char))
    out.append('"')
    return "".join(out)


def _go_quote_char(char: str) -> str:
    if char in _GO_SHORT_ESCAPES:
        return _GO_SHORT_ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_json(value: object) -> str:
    """Go's ``json.Marshal``: how typed strings, structs, lists and ``int`` bad values print.

    Mappings keep their insertion order, so callers build them in the Go struct's field order
    (and leave out ``omitempty`` fields themselves).
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    # encoding/json escapes HTML-significant characters and the JS line separators by default.
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


# --- label maps and selectors ----------------------------------------------------------------


def validate_label_name(key: str, path: FieldPath) -> list[FieldError]:
    """``ValidateLabelName``: one ``Invalid value`` per qualified-name message."""
    return [invalid(path, go_quote(key), msg) for msg in is_qualified_name(key)]


# Label keys and values already found valid: 50,000 objects repeat a handful of keys and values.
_VALID_LABEL_TEXTS: set[tuple[str, str]] = set()  # ("key" | "value" | "annotation", text)
_VALID_LABEL_TEXTS_KEPT = 4096


def validate_labels(labels: Mapping[object, object], path: FieldPath) -> list[FieldError]:
    """``ValidateLabels``: keys and values, all reported on the map's own path (not per key).

    Non-string keys or values are left to the schema layer.
    """
    errs: list[FieldError] = []
    for key, value in labels.items():
        if isinstance(key, str) and ("key", key) not in _VALID_LABEL_TEXTS:
            found = validate_label_name(key, path)
            if found:
                errs.extend(found)
            else:
                _remember_valid("key", key)
        if isinstance(value, str) and ("value", value) not in _VALID_LABEL_TEXTS:
            problems = is_label_value(value)
            if problems:
                errs.extend(invalid(path, go_quote(value), msg) for msg in problems)
            else:
                _remember_valid("value", value)
    return errs


def _remember_valid(what: str, text: str) -> None:
    if len(_VALID_LABEL_TEXTS) >= _VALID_LABEL_TEXTS_KEPT:
        _VALID_LABEL_TEXTS.clear()
    _VALID_LABEL_TEXTS.add((what, text))


def validate_annotations(annotations: Mapping[object, object], path: FieldPath) -> list[FieldError]:
    """``ValidateAnnotations``: keys are qualified names compared in lower case; total ≤ 256 KiB."""
    errs: list[FieldError] = []
    for key in annotations:
        if isinstance(key, str) and ("annotation", key) not in _VALID_LABEL_TEXTS:
            problems = is_qualified_name(key.lower())
            if problems:
                errs.extend(invalid(path, go_quote(key), msg) for msg in problems)
            else:
                _remember_valid("annotation", key)
    if _annotations_size(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT_B))
    return errs


def _annotations_size(annotations: Mapping[object, object]) -> int:
    return sum(byte_len(str(key)) + byte_len(str(value)) for key, value in annotations.items())


def validate_label_selector(selector: object, path: FieldPath) -> list[FieldError]:
    """``ValidateLabelSelector`` with default options (VAL-CQ-27).

    Parts with a wrong JSON type, and requirements without ``key``/``operator``, are the schema
    layer's findings and are skipped here.
    """
    if not isinstance(selector, Mapping):
        return []
    errs: list[FieldError] = []
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, Mapping):
        errs.extend(validate_labels(match_labels, (*path, "matchLabels")))
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        for index, requirement in enumerate(expressions):
            errs.extend(validate_selector_requirement(requirement, (*path, "matchExpressions", index)))
    return errs


def validate_selector_requirement(requirement: object, path: FieldPath) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement``: operator/values pairing, key, then each value."""
    if not isinstance(requirement, Mapping):
        return []
    values = requirement.get("values")
    value_list = values if isinstance(values, list) else []
    errs = _operator_errors(requirement.get("operator"), value_list, path)
    key = requirement.get("key")
    if isinstance(key, str):
        errs.extend(validate_label_name(key, (*path, "key")))
    for index, value in enumerate(value_list):
        if isinstance(value, str):
            errs.extend(
                invalid((*path, "values", index), go_quote(value), msg) for msg in is_label_value(value)
            )
    return errs


def _operator_errors(operator: object, values: list[object], path: FieldPath) -> list[FieldError]:
    if not isinstance(operator, str):
        return []
    if operator in ("In", "NotIn"):
        if not values:
            return [required((*path, "values"), "must be specified when `operator` is 'In' or 'NotIn'")]
        return []
    if operator in ("Exists", "DoesNotExist"):
        if values:
            return [
                forbidden(
                    (*path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            ]
        return []
    # LabelSelectorOperator is a named string type, so Kubernetes renders it through JSON.
    return [invalid((*path, "operator"), go_json(operator), "not a valid selector operator")]
