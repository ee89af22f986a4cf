"""Findings: what validation reports about one document, with a stable rule ID."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kqctl.origin import FieldPath, format_path


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Finding:
    """One problem found in one document.

    ``rule_id`` is stable (cite it in CI suppressions); ``path`` is the field path inside the
    document; ``line`` is filled in by the runner from the document's line index.
    """

    rule_id: str
    severity: Severity
    path: FieldPath
    message: str
    hint: str | None = None
    line: int | None = None
    related: tuple[str, ...] = field(default=())
    # The other fields the finding weighs this one against (a Queue's capability for "deserved must be <=
    # capability"): when a --set wrote one of them, the finding names that --set.
    involves: tuple[FieldPath, ...] = field(default=())

    @property
    def field(self) -> str:
        return format_path(self.path)


def error(rule_id: str, path: FieldPath, message: str, hint: str | None = None) -> Finding:
    return Finding(rule_id, Severity.ERROR, path, message, hint)


def warning(rule_id: str, path: FieldPath, message: str, hint: str | None = None) -> Finding:
    return Finding(rule_id, Severity.WARNING, path, message, hint)


def info(rule_id: str, path: FieldPath, message: str, hint: str | None = None) -> Finding:
    return Finding(rule_id, Severity.INFO, path, message, hint)
