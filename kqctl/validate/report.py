"""The result of ``kqctl validate``: findings grouped per input document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kqctl.findings import Finding, Severity
from kqctl.origin import Origin


@dataclass
class DocumentReport:
    """Findings for one object (a document, or one item of a ``kind: List``)."""

    origin: Origin
    api_version: str
    kind: str
    namespace: str | None
    name: str | None
    findings: list[Finding] = field(default_factory=list)
    # What the scheduler will actually use of the object (e.g. every queue's settings after inheritance).
    effective: dict[str, Any] | None = None
    # Why the object was not validated at all (--skip, --ignore-missing-kinds); None when it was.
    skipped: str | None = None

    @property
    def valid(self) -> bool:
        """False exactly when the document has an error finding (the json contract)."""
        return not any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def display_name(self) -> str:
        name = self.name or "<unnamed>"
        return f"{self.namespace}/{name}" if self.namespace else name


@dataclass
class ValidationReport:
    documents: list[DocumentReport]

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.documents for f in d.findings if f.severity is severity)

    def worst(self) -> Severity | None:
        ranks = [f.severity for d in self.documents for f in d.findings]
        return max(ranks, key=lambda s: s.rank) if ranks else None

    def summary(self) -> dict[str, int]:
        counts = {severity: 0 for severity in Severity}
        invalid = skipped = 0
        for document in self.documents:
            if document.findings:  # one pass: tens of thousands of documents, most without findings
                for finding in document.findings:
                    counts[finding.severity] += 1
                invalid += not document.valid
            elif document.skipped is not None:
                skipped += 1
        return {
            "documents": len(self.documents),
            "valid": len(self.documents) - invalid - skipped,
            "invalid": invalid,
            "skipped": skipped,
            "errors": counts[Severity.ERROR],
            "warnings": counts[Severity.WARNING],
            "infos": counts[Severity.INFO],
        }
