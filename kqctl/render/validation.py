"""Render a ValidationReport: a kubectl-style table for people (one line per finding);
json/yaml/junit/sarif/github for machines.

Only a coloured ``table`` imports rich. Machine formats are deterministic (same report, same bytes)
and ASCII-safe where the format allows it (json/yaml/sarif escape, junit uses character references),
so they survive any stream encoding. Every finding gets a line: its own, else its document's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from kqctl import __version__
from kqctl.findings import Finding, Severity
from kqctl.render.columns import Column
from kqctl.render.columns import Table as ColumnTable
from kqctl.render.jsontext import dumps_indented, indented_text
from kqctl.validate.report import DocumentReport, ValidationReport

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

VALIDATE_FORMATS: tuple[str, ...] = ("table", "wide", "json", "yaml", "junit", "sarif", "github", "name", "text",
                                     "tap")

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"

FindingRow = tuple[DocumentReport, Finding]


def render_validation(
    report: ValidationReport,
    fmt: str,
    out: TextIO,
    color: str = "auto",
    tool_version: str = __version__,
    *,
    rule_descriptions: Mapping[str, str] | None = None,
    headers: bool = True,
    sort_by: str | None = None,
    summary: bool = True,
    failing: Severity = Severity.ERROR,
) -> None:
    """Write ``report`` to ``out`` in ``fmt`` (one of ``VALIDATE_FORMATS``); ``name`` lists the objects
    with an error as kubectl names them (``clusterqueue.kueue.x-k8s.io/team-a``).

    ``color`` (auto/always/never) only affects ``table``; ``tool_version`` goes into SARIF;
    ``rule_descriptions`` (rule ID -> one-line description) feeds SARIF ``shortDescription``,
    which otherwise falls back to the rule's first message. ``summary`` (--summary/--no-summary) is the closing
    count line of table, github, text and tap; ``failing`` (--fail-on) is the severity a tap test fails at.
    """
    if fmt in ("table", "wide"):
        _render_table(report, out, color, headers, sort_by, wide=fmt == "wide", summary_shown=summary)
    elif fmt == "text":
        out.writelines(line + "\n" for line in text_lines(report, summary))
    elif fmt == "tap":
        out.writelines(line + "\n" for line in tap_lines(report, failing, summary))
    elif fmt == "name":
        out.writelines(f"{resource_name(doc)}\n" for doc in report.documents if not doc.valid)
    elif fmt == "json" and not sort_by:
        out.write(validation_json(report))
    elif fmt == "json" or fmt.startswith(("jsonpath=", "custom-columns=")):
        from kqctl.render.output import write_data

        write_data(out, validation_document(report), fmt, rows="documents", sort_by=sort_by, headers=headers)
    elif fmt == "yaml":
        _render_yaml(report, out, sort_by)
    elif fmt == "junit":
        out.write(junit_xml(report))
    elif fmt == "sarif":
        out.write(dumps_indented(sarif_log(report, tool_version, rule_descriptions)))
    elif fmt == "github":
        lines = github_lines(report)
        out.writelines(line + "\n" for line in (lines if summary else lines[:-1]))
    else:
        raise ValueError(f"unknown output format {fmt!r}; supported formats: {', '.join(VALIDATE_FORMATS)}")


# --- shared helpers -------------------------------------------------------------------------------


def finding_line(doc: DocumentReport, finding: Finding) -> int:
    """The finding's line, or its document's line when the field could not be located."""
    return finding.line if finding.line is not None else doc.origin.line


def object_label(doc: DocumentReport) -> str:
    """``Kind ns/name`` (``Kind name`` for cluster-scoped objects)."""
    return f"{doc.kind or '<unknown kind>'} {doc.display_name}"


def ordered_findings(report: ValidationReport) -> list[FindingRow]:
    """All (document, finding) pairs: files in input order, then by line, most severe first."""
    file_rank = _file_order(report.documents)

    def key(row: FindingRow) -> tuple[int, int, int, int, int]:
        doc, finding = row
        item = -1 if doc.origin.item is None else doc.origin.item
        line = finding_line(doc, finding)
        return (file_rank[doc.origin.file], line, doc.origin.index, item, -finding.severity.rank)

    return sorted(((d, f) for d in report.documents for f in d.findings), key=key)


def summary_line(report: ValidationReport) -> str:
    """``12 documents, 9 valid, 3 invalid: 4 errors, 2 warnings`` (``, 2 skipped`` and ``, 1 info`` when any)."""
    s = report.summary()
    skipped = f", {s['skipped']} skipped" if s["skipped"] else ""
    line = (
        f"{_plural(s['documents'], 'document')}, {s['valid']} valid, {s['invalid']} invalid{skipped}: "
        f"{_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}"
    )
    return line + (f", {s['infos']} info" if s["infos"] else "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _file_order(documents: Iterable[DocumentReport]) -> dict[str, int]:
    order: dict[str, int] = {}
    for doc in documents:
        order.setdefault(doc.origin.file, len(order))
    return order


def _group_by_file(documents: Iterable[DocumentReport]) -> dict[str, list[DocumentReport]]:
    groups: dict[str, list[DocumentReport]] = {}
    for doc in documents:
        groups.setdefault(doc.origin.file, []).append(doc)
    return groups


# --- json / yaml ----------------------------------------------------------------------------------


def validation_document(report: ValidationReport) -> dict[str, Any]:
    """The json/yaml contract: ``{"documents": [...], "summary": {...}}`` in a fixed key order."""
    return {
        "documents": [_document_dict(doc) for doc in report.documents],
        "summary": report.summary(),
    }


def validation_json(report: ValidationReport) -> str:
    """``validation_document`` as ``-o json`` writes it (``dumps_indented``), byte for byte, without building
    the dicts first: a line per field of each of tens of thousands of documents."""
    quoted: dict[str, str] = {}  # file names, apiVersions and kinds repeat

    def text(value: str | None) -> str:
        if value is None:
            return "null"
        known = quoted.get(value)
        if known is None:
            known = quoted[value] = json.encoder.encode_basestring_ascii(value)  # type: ignore[attr-defined]
        return known

    parts = ['{\n  "documents": [']
    separator = "\n    "
    for doc in report.documents:
        origin = doc.origin
        item = "" if origin.item is None else f',\n      "item": {int.__repr__(origin.item)}'
        valid = "false" if doc.findings and not doc.valid else "true"
        if doc.findings:
            findings = indented_text([_finding_dict(doc, f) for f in doc.findings], "\n      ")
        else:
            findings = "[]"
        if doc.effective is not None:  # what the scheduler will use of the object (validation_document's key)
            findings += ',\n      "effective": ' + indented_text(doc.effective, "\n      ")
        if doc.skipped is not None:  # not validated at all (--skip, --ignore-missing-kinds): why
            findings += ',\n      "skipped": ' + text(doc.skipped)
        parts.append(
            f'{separator}{{\n      "file": {text(origin.file)},\n      "index": {int.__repr__(origin.index)},'
            f'\n      "line": {int.__repr__(origin.line)}{item},\n      "apiVersion": {text(doc.api_version)},'
            f'\n      "kind": {text(doc.kind)},\n      "namespace": {text(doc.namespace)},'
            f'\n      "name": {text(doc.name)},\n      "valid": {valid},'
            f'\n      "findings": {findings}\n    }}')
        separator = ",\n    "
    parts.append("\n  ]," if report.documents else "]," )
    parts.append('\n  "summary": ' + indented_text(report.summary(), "\n  ") + "\n}\n")
    return "".join(parts)


def _document_dict(doc: DocumentReport) -> dict[str, Any]:
    out: dict[str, Any] = {"file": doc.origin.file, "index": doc.origin.index, "line": doc.origin.line}
    if doc.origin.item is not None:
        out["item"] = doc.origin.item
    out.update(
        apiVersion=doc.api_version,
        kind=doc.kind,
        namespace=doc.namespace,
        name=doc.name,
        valid=doc.valid,
        findings=[_finding_dict(doc, f) for f in doc.findings],
    )
    if doc.effective is not None:
        out["effective"] = doc.effective
    if doc.skipped is not None:
        out["skipped"] = doc.skipped
    return out


def _finding_dict(doc: DocumentReport, finding: Finding) -> dict[str, Any]:
    return {
        "ruleId": finding.rule_id,
        "severity": finding.severity.value,
        "field": finding.field,
        "message": finding.message,
        "hint": finding.hint,
        "line": finding_line(doc, finding),
    }


def _render_yaml(report: ValidationReport, out: TextIO, sort_by: str | None = None) -> None:
    import yaml

    from kqctl.render.output import sorted_by

    document = sorted_by(validation_document(report), "documents", sort_by)
    yaml.safe_dump(document, out, sort_keys=False, default_flow_style=False)


# --- junit ----------------------------------------------------------------------------------------

# Characters XML 1.0 cannot carry at all, not even as character references.
_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """Replace characters XML forbids (control chars, lone surrogates) with a visible escape."""
    return _XML_INVALID.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def junit_xml(report: ValidationReport) -> str:
    """JUnit XML text: one testsuite per file, one testcase per document, one failure per error."""
    import xml.etree.ElementTree as ET

    root = junit_tree(report)
    ET.indent(root)
    # us-ascii turns every non-ASCII character into a character reference: valid in any encoding.
    body = ET.tostring(root, encoding="us-ascii").decode("ascii")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def junit_tree(report: ValidationReport) -> ET.Element:
    """The ``<testsuites>`` element. ``failures`` counts failed testcases (invalid documents)."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="kqctl validate")
    for file, docs in _group_by_file(report.documents).items():
        suite = ET.SubElement(root, "testsuite", name=_xml_safe(file))
        _set_counts(suite, docs)
        for doc in docs:
            _junit_testcase(suite, doc)
    _set_counts(root, report.documents)
    return root


def _set_counts(element: ET.Element, docs: list[DocumentReport]) -> None:
    element.set("tests", str(len(docs)))
    element.set("failures", str(sum(1 for d in docs if not d.valid)))
    element.set("errors", "0")
    element.set("skipped", "0")


def _junit_testcase(suite: ET.Element, doc: DocumentReport) -> None:
    import xml.etree.ElementTree as ET

    case = ET.SubElement(
        suite,
        "testcase",
        classname=_xml_safe(doc.origin.file),
        name=_xml_safe(object_label(doc)),
        file=_xml_safe(doc.origin.file),
        line=str(doc.origin.line),
    )
    for finding in doc.findings:
        if finding.severity is Severity.ERROR:
            failure = ET.SubElement(
                case,
                "failure",
                message=_xml_safe(f"{finding.rule_id}: {finding.message}"),
                type=_xml_safe(finding.rule_id),
            )
            failure.text = _xml_safe(_junit_failure_text(doc, finding))
    others = [f for f in doc.findings if f.severity is not Severity.ERROR]
    if others:
        ET.SubElement(case, "system-out").text = _xml_safe("\n".join(_junit_note(doc, f) for f in others))


def _junit_failure_text(doc: DocumentReport, finding: Finding) -> str:
    lines = [f"{doc.origin.file}:{finding_line(doc, finding)}", f"object: {object_label(doc)}"]
    if finding.field:
        lines.append(f"field: {finding.field}")
    lines.append(f"line: {finding_line(doc, finding)}")
    if finding.hint:
        lines.append(f"hint: {finding.hint}")
    return "\n".join(lines)


def _junit_note(doc: DocumentReport, finding: Finding) -> str:
    where = f"{doc.origin.file}:{finding_line(doc, finding)}"
    field = f" {finding.field}:" if finding.field else ""
    text = f"{finding.severity.value} {finding.rule_id} {where}{field} {finding.message}"
    return text + (f"\n  hint: {finding.hint}" if finding.hint else "")


# --- sarif ----------------------------------------------------------------------------------------

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_log(
    report: ValidationReport,
    tool_version: str = __version__,
    rule_descriptions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run; rules sorted by ID, results in ``ordered_findings`` order."""
    rows = ordered_findings(report)
    rules = _sarif_rules(rows, rule_descriptions or {})
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    driver = {"name": "kqctl", "version": tool_version, "rules": rules}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "results": [_sarif_result(doc, f, rule_index[f.rule_id]) for doc, f in rows],
            }
        ],
    }


def _sarif_rules(rows: list[FindingRow], descriptions: Mapping[str, str]) -> list[dict[str, Any]]:
    first_message: dict[str, str] = {}
    for _, finding in rows:
        first_message.setdefault(finding.rule_id, finding.message)
    return [
        {"id": rule_id, "shortDescription": {"text": descriptions.get(rule_id) or first_message[rule_id]}}
        for rule_id in sorted(first_message)
    ]


def _sarif_result(doc: DocumentReport, finding: Finding, rule_index: int) -> dict[str, Any]:
    properties: dict[str, Any] = {"object": object_label(doc), "field": finding.field}
    if finding.hint:
        properties["hint"] = finding.hint
    return {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": sarif_uri(doc.origin.file)},
                    "region": {"startLine": max(1, finding_line(doc, finding))},
                },
                "logicalLocations": [
                    {"name": doc.display_name, "fullyQualifiedName": object_label(doc), "kind": "resource"}
                ],
            }
        ],
        "properties": properties,
    }


def sarif_uri(path: str) -> str:
    """The file path as given, as a URI reference: ``/`` separators, other specials %-encoded."""
    if os.sep == "\\":
        path = path.replace("\\", "/")
    return quote(path, safe="/")


# --- github ---------------------------------------------------------------------------------------

_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_lines(report: ValidationReport) -> list[str]:
    """One workflow command per finding (``::error file=F,line=L,title=RULE::msg``), then a summary."""
    return [_github_command(doc, f) for doc, f in ordered_findings(report)] + [summary_line(report)]


def _github_command(doc: DocumentReport, finding: Finding) -> str:
    where = f"{object_label(doc)} {finding.field}" if finding.field else object_label(doc)
    text = f"{where}: {finding.message}" + (f"\nHint: {finding.hint}" if finding.hint else "")
    properties = ",".join(
        f"{key}={github_escape_property(value)}"
        for key, value in (
            ("file", doc.origin.file),
            ("line", str(finding_line(doc, finding))),
            ("title", finding.rule_id),
        )
    )
    return f"::{_GITHUB_COMMAND[finding.severity]} {properties}::{github_escape_data(text)}"


def github_escape_data(text: str) -> str:
    """Escape a workflow command's message, as @actions/core ``escapeData`` does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_escape_property(text: str) -> str:
    """Escape a workflow command property value, as @actions/core ``escapeProperty`` does."""
    return github_escape_data(text).replace(":", "%3A").replace(",", "%2C")


# --- table ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Icons:
    ok: str
    error: str
    warning: str
    info: str

    def for_severity(self, severity: Severity) -> str:
        if severity is Severity.ERROR:
            return self.error
        return self.warning if severity is Severity.WARNING else self.info

    def all(self) -> str:
        return self.ok + self.error + self.warning + self.info


_UNICODE_ICONS = _Icons(ok="✓", error="✖", warning="⚠", info="ℹ")
_ASCII_ICONS = _Icons(ok="OK", error="x", warning="!", info="i")

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_SUMMARY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold"}


def _icons_for(out: TextIO) -> _Icons:
    encoding = getattr(out, "encoding", None) or "utf-8"
    try:
        _UNICODE_ICONS.all().encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return _ASCII_ICONS
    return _UNICODE_ICONS


def resource_name(doc: DocumentReport) -> str:
    group = doc.api_version.rpartition("/")[0] if "/" in doc.api_version else ""
    kind = doc.kind.lower() + (f".{group}" if group else "")
    return f"{kind}/{doc.name or '<unnamed>'}"


def _render_table(report: ValidationReport, out: TextIO, color: str, headers: bool = True,
                  sort_by: str | None = None, wide: bool = False, summary_shown: bool = True) -> None:
    """One line per finding: by default kubeconform's compact shape (``file:line  severity  RULE  Kind/name
    field: message``), under -o wide kubectl-style columns. Nothing is cut; on a terminal a long message wraps
    at spaces under its finding (never a name or a path), into a pipe it stays on one line, so every line can be
    grepped and its file:line pasted into an editor. ``summary_shown`` (--no-summary) drops the closing lines;
    --no-headers drops the header only."""
    from kqctl.render.columns import format_lines, rich_painter, sort_rows
    from kqctl.render.console import terminal_width, use_color

    paint = rich_painter(use_color(out, color))
    icons = _icons_for(out)
    rows = ordered_findings(report)
    if not report.documents:
        out.write("No documents to validate.\n")
        return
    if not rows:
        skipped = report.summary()["skipped"]
        ok = f"{icons.ok} {_plural(len(report.documents) - skipped, 'document')} valid" + (
            f", {skipped} skipped" if skipped else "")
        out.write((paint(ok, "bold green") if paint else ok) + "\n")
        return
    table = _findings_table(rows, icons)
    sort_rows(table, sort_by)
    width = terminal_width(out)
    if wide:
        lines = format_lines(table, wide=True, paint=paint, headers=headers, width=width)
    else:
        lines = [line for row, style in zip(table.rows, table.styles, strict=True)
                 for line in _compact_lines(row, style, paint, width)]
    for line in lines:
        out.write(line + "\n")
    if not summary_shown:
        return  # rows only, for scripts
    summary = summary_line(report)
    out.write((paint(summary, _summary_style(report)) if paint else summary) + "\n")
    out.write(f"kqctl rules ID explains a rule, e.g. kqctl rules {rows[0][1].rule_id}\n")


def _summary_style(report: ValidationReport) -> str:
    worst = report.worst()
    return _SUMMARY_STYLE[worst] if worst else "bold green"


def _location_order(cell: str) -> tuple[str, int]:
    file, _, line = cell.rpartition(":")
    return file, int(line) if line.isdigit() else 0


_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_FINDING_COLUMNS = (Column("Location", sort_key=_location_order),
                    Column("Severity", sort_key=lambda cell: _SEVERITY_RANK.get(cell.split()[-1], 3)),
                    Column("Rule"), Column("Object"), Column("Field"), Column("Message", wrap=True),
                    Column("Name", wide=True, narrow=True))  # Kind/name for the compact line (never shown)
_COMPACT_GAP = "  "


def _findings_table(rows: list[FindingRow], icons: _Icons) -> ColumnTable:
    table = ColumnTable(_FINDING_COLUMNS)
    for doc, finding in rows:
        message = finding.message + (f" (hint: {finding.hint})" if finding.hint else "")
        severity = f"{icons.for_severity(finding.severity)} {finding.severity.value}"
        name = f"{doc.kind or '<unknown kind>'}/{doc.display_name}"
        item = {"file": doc.origin.file, "kind": doc.kind, "namespace": doc.namespace, "name": doc.name,
                **_finding_dict(doc, finding)}
        table.add([f"{doc.origin.file}:{finding_line(doc, finding)}", severity, finding.rule_id,
                   object_label(doc), finding.field or "-", _one_line(message), name],
                  [None, _SEVERITY_STYLE[finding.severity], "bold", None, None, None, None], item=item)
    return table


def _compact_lines(row: list[str], styles: list[str | None], paint: Any, width: int | None) -> list[str]:
    """A finding as kubeconform prints a resource, one line: ``file:line  severity  RULE  Kind/name  field:
    message``; on a terminal narrower than that, the message wraps at spaces under it (four spaces in)."""
    from kqctl.render.columns import printable
    from kqctl.render.console import wrap_text

    location, severity, rule, _, field, message, name = (printable(cell) for cell in row)
    # "✖ error" is one token (a private-use character glues it): a line never ends between icon and word.
    glued = severity.replace(" ", "\ue000")
    head = _COMPACT_GAP.join([location, glued, rule, name])
    text = f"{head}{_COMPACT_GAP}{field + ': ' if field != '-' else ''}{message}"
    lines = [line.replace(glued, severity, 1) for line in wrap_text(text, width, "", "    ")]
    if paint is not None:  # the severity and the rule are on the first line, or the line breaks after them
        lines = [line.replace(severity, paint(severity, styles[1] or ""), 1).replace(rule, paint(rule, "bold"), 1)
                 if index == 0 else line for index, line in enumerate(lines)]
    return lines


def _one_line(text: str) -> str:
    # A finding is one line: YAML errors quote the input over several lines.
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


# --- text and tap: one line per object, as kubeconform prints them ----------------------------------------


def text_lines(report: ValidationReport, summary: bool = True) -> list[str]:
    """``FILE:LINE - Kind ns/name is valid|is invalid: ...|skipped (...)``, one line per object, then kubeconform's
    ``Summary: N resources found in M files - Valid: a, Invalid: b, Errors: c, Skipped: d``."""
    lines = [f"{_where(doc)} - {_object_text(doc)} {_verdict(doc)}" for doc in report.documents]
    if summary:
        lines.append(kubeconform_summary(report))
    return lines


def tap_lines(report: ValidationReport, failing: Severity = Severity.ERROR, summary: bool = True) -> list[str]:
    """TAP version 13: ``ok N - FILE:LINE (Kind ns/name)``; ``not ok`` when the object has a finding at or above
    ``failing`` (--fail-on; errors always), with its findings after `` - ``; a skipped object is ``# SKIP``."""
    lines = ["TAP version 13"]
    for number, doc in enumerate(report.documents, start=1):
        label = f"{number} - {_where(doc)} ({_object_text(doc)})"
        if doc.skipped is not None:
            lines.append(f"ok {label} # SKIP {doc.skipped}")
        elif any(f.severity is Severity.ERROR or f.severity.rank >= failing.rank for f in doc.findings):
            lines.append(f"not ok {label} - {_findings_text(doc)}")
        else:
            lines.append(f"ok {label}" + (f" # {_findings_text(doc)}" if doc.findings else ""))
    if summary:
        lines.append(f"# {kubeconform_summary(report)}")
    lines.append(f"1..{len(report.documents)}")
    return lines


def kubeconform_summary(report: ValidationReport) -> str:
    s = report.summary()
    files = len({doc.origin.file for doc in report.documents})
    return (f"Summary: {_plural(s['documents'], 'resource')} found in {_plural(files, 'file')} - Valid: {s['valid']}, "
            f"Invalid: {s['invalid']}, Errors: {s['errors']}, Warnings: {s['warnings']}, Skipped: {s['skipped']}")


def _where(doc: DocumentReport) -> str:
    return f"{doc.origin.file}:{doc.origin.line}"


def _object_text(doc: DocumentReport) -> str:
    return object_label(doc) if doc.kind else "document"


def _verdict(doc: DocumentReport) -> str:
    if doc.skipped is not None:
        return f"skipped ({doc.skipped})"
    if not doc.findings:
        return "is valid"
    if not doc.valid:
        return f"is invalid: {_findings_text(doc)}"
    return f"is valid with {_findings_text(doc)}"


def _findings_text(doc: DocumentReport) -> str:
    """Every finding of the object on one line, most severe first: ``error RULE field: message; ...``."""
    ordered = sorted(doc.findings, key=lambda f: -f.severity.rank)
    return "; ".join(f"{f.severity.value} {f.rule_id} {f.field + ': ' if f.field else ''}{_one_line(f.message)}"
                     for f in ordered)
