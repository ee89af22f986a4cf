"""Output formats of ``kqctl validate``: each one parsed back and checked for structure."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

import kqctl
from kqctl.findings import Finding, Severity
from kqctl.origin import Origin
from kqctl.render.console import make_console
from kqctl.render.validation import VALIDATE_FORMATS, render_validation
from kqctl.validate.report import DocumentReport, ValidationReport

ANSI = re.compile(r"\x1b\[")


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


def finding(
    rule_id: str,
    severity: Severity = Severity.ERROR,
    message: str = "something is wrong",
    *,
    path: tuple[str | int, ...] = ("spec",),
    hint: str | None = None,
    line: int | None = 3,
) -> Finding:
    return Finding(rule_id, severity, path, message, hint, line)


def document(
    findings: list[Finding],
    *,
    file: str = "queues.yaml",
    index: int = 0,
    line: int = 1,
    item: int | None = None,
    kind: str = "ClusterQueue",
    namespace: str | None = None,
    name: str | None = "team-a",
) -> DocumentReport:
    origin = Origin(file, index, line, item)
    return DocumentReport(origin, "kueue.x-k8s.io/v1beta1", kind, namespace, name, findings)


def sample_report() -> ValidationReport:
    return ValidationReport(
        [
            document(
                [
                    finding(
                        "KQ101",
                        path=("spec", "resourceGroups", 0, "coveredResources"),
                        message="flavor resource is not covered",
                        hint="add it to coveredResources",
                        line=12,
                    ),
                    finding(
                        "KQ205", Severity.WARNING, "cohort has one member", path=("spec", "cohort"), line=5
                    ),
                ]
            ),
            document(
                [finding("KQ301", Severity.INFO, "queue is unused", line=None)],
                index=1,
                line=20,
                kind="LocalQueue",
                namespace="team-a",
                name="default",
            ),
            document([], file="jobs/list.yaml", item=2, kind="Job", namespace="ml", name="train"),
        ]
    )


def render(report: ValidationReport, fmt: str, out: io.StringIO | None = None, **kwargs: Any) -> str:
    stream = out if out is not None else io.StringIO()
    render_validation(report, fmt, stream, **kwargs)
    return stream.getvalue()


# --- json / yaml ----------------------------------------------------------------------------------


def test_json_output_follows_the_documents_contract() -> None:
    data = json.loads(render(sample_report(), "json"))

    assert list(data) == ["documents", "summary"]
    first, second, listed = data["documents"]
    assert list(first) == [
        "file",
        "index",
        "line",
        "apiVersion",
        "kind",
        "namespace",
        "name",
        "valid",
        "findings",
    ]
    assert first["file"] == "queues.yaml" and first["index"] == 0 and first["namespace"] is None
    assert list(first["findings"][0]) == ["ruleId", "severity", "field", "message", "hint", "line"]
    assert first["findings"][0] == {
        "ruleId": "KQ101",
        "severity": "error",
        "field": "spec.resourceGroups[0].coveredResources",
        "message": "flavor resource is not covered",
        "hint": "add it to coveredResources",
        "line": 12,
    }
    assert first["findings"][1]["hint"] is None
    assert second["index"] == 1 and second["namespace"] == "team-a"
    assert "item" not in first and "item" not in second
    assert listed["item"] == 2 and list(listed)[:4] == ["file", "index", "line", "item"]
    assert data["summary"] == {
        "documents": 3,
        "valid": 2,
        "invalid": 1,
        "skipped": 0,
        "errors": 1,
        "warnings": 1,
        "infos": 1,
    }


def test_json_output_is_deterministic_indented_and_ends_with_a_newline() -> None:
    text = render(sample_report(), "json")

    assert text == render(sample_report(), "json")
    assert text.endswith("}\n")
    assert text.startswith('{\n  "documents": [\n    {\n      "file"')


def test_finding_without_a_line_reports_its_documents_line() -> None:
    data = json.loads(render(sample_report(), "json"))

    assert data["documents"][1]["findings"][0]["line"] == 20


def test_valid_is_false_exactly_when_an_error_finding_exists() -> None:
    report = ValidationReport(
        [
            document([finding("E1")], name="has-error"),
            document([finding("W1", Severity.WARNING), finding("I1", Severity.INFO)], name="warned"),
            document([], name="clean"),
            document([finding("W1", Severity.WARNING), finding("E1")], name="mixed"),
        ]
    )

    data = json.loads(render(report, "json"))

    assert {d["name"]: d["valid"] for d in data["documents"]} == {
        "has-error": False,
        "warned": True,
        "clean": True,
        "mixed": False,
    }
    assert data["summary"]["valid"] == 2 and data["summary"]["invalid"] == 2


def test_yaml_output_has_the_same_structure_as_json() -> None:
    text = render(sample_report(), "yaml")

    assert yaml.safe_load(text) == json.loads(render(sample_report(), "json"))
    assert text.startswith("documents:\n")


def test_unknown_format_raises_value_error_listing_supported_formats() -> None:
    with pytest.raises(ValueError) as excinfo:
        render(sample_report(), "xml")

    for fmt in VALIDATE_FORMATS:
        assert fmt in str(excinfo.value)


def test_machine_formats_do_not_import_rich() -> None:
    code = (
        "import io, sys\n"
        "from kqctl.render.validation import render_validation\n"
        "from kqctl.validate.report import ValidationReport\n"
        "for fmt in ('json', 'yaml', 'junit', 'sarif', 'github'):\n"
        "    render_validation(ValidationReport([]), fmt, io.StringIO())\n"
        "print('rich' in sys.modules)\n"
    )
    root = str(Path(kqctl.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)

    assert result.stdout.strip() == "False"


# --- github ---------------------------------------------------------------------------------------


def test_github_annotations_escape_newlines_and_commas() -> None:
    report = ValidationReport(
        [
            document(
                [finding("KQ1:x", message="100% wrong,\nsee docs\r", hint="fix: it", line=7)],
                file="dir,a/b:c.yaml",
            )
        ]
    )

    lines = render(report, "github").splitlines()

    assert lines[0] == (
        "::error file=dir%2Ca/b%3Ac.yaml,line=7,title=KQ1%3Ax::"
        "ClusterQueue team-a spec: 100%25 wrong,%0Asee docs%0D%0AHint: fix: it"
    )
    assert len(lines) == 2


def test_github_maps_severities_to_commands_and_ends_with_a_summary() -> None:
    lines = render(sample_report(), "github").splitlines()

    assert [line.split(" ", 1)[0] for line in lines[:3]] == ["::warning", "::error", "::notice"]
    assert "line=5," in lines[0] and "line=12," in lines[1] and "line=20," in lines[2]
    assert lines[3] == "3 documents, 2 valid, 1 invalid: 1 error, 1 warning, 1 info"


# --- junit ----------------------------------------------------------------------------------------


def test_junit_is_well_formed_xml_with_one_failure_per_error() -> None:
    report = sample_report()
    report.documents[0].findings.append(finding("KQ102", message="second error", line=14))

    root = ET.fromstring(render(report, "junit"))

    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["queues.yaml", "jobs/list.yaml"]
    assert [s.get("tests") for s in suites] == ["2", "1"]
    cases = suites[0].findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("queues.yaml", "ClusterQueue team-a"),
        ("queues.yaml", "LocalQueue team-a/default"),
    ]
    failures = cases[0].findall("failure")
    assert [f.get("message") for f in failures] == [
        "KQ101: flavor resource is not covered",
        "KQ102: second error",
    ]
    assert "field: spec.resourceGroups[0].coveredResources" in (failures[0].text or "")
    assert "hint: add it to coveredResources" in (failures[0].text or "")
    assert "KQ205" in (cases[0].findtext("system-out") or "")
    assert cases[1].find("failure") is None and "KQ301" in (cases[1].findtext("system-out") or "")
    assert suites[1].find("testcase/failure") is None


def test_junit_escapes_markup_quotes_and_control_characters() -> None:
    nasty = 'a <b> & "c" ]]> \x01 \x1b[31m caf\u00e9'
    report = ValidationReport([document([finding("R<1>", message=nasty)], name='x"y', file="a&b.yaml")])

    text = render(report, "junit")
    root = ET.fromstring(text)

    text.encode("ascii")  # non-ASCII travels as character references
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == 'R<1>: a <b> & "c" ]]> \\u0001 \\u001b[31m caf\u00e9'
    assert root.find("testsuite/testcase").get("name") == 'ClusterQueue x"y'  # type: ignore[union-attr]
    assert root.find("testsuite").get("name") == "a&b.yaml"  # type: ignore[union-attr]


# --- sarif ----------------------------------------------------------------------------------------


def test_sarif_has_one_rule_per_rule_id() -> None:
    report = sample_report()
    report.documents[1].findings.append(finding("KQ101", message="also not covered", line=21))

    log = json.loads(render(report, "sarif", tool_version="1.2.3"))

    driver = log["runs"][0]["tool"]["driver"]
    assert log["version"] == "2.1.0" and driver["name"] == "kqctl" and driver["version"] == "1.2.3"
    assert [r["id"] for r in driver["rules"]] == ["KQ101", "KQ205", "KQ301"]
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    results = log["runs"][0]["results"]
    assert len(results) == 4
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_results_carry_level_message_and_location() -> None:
    log = json.loads(render(sample_report(), "sarif", rule_descriptions={"KQ101": "Resources are covered"}))

    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("KQ205", "warning"),
        ("KQ101", "error"),
        ("KQ301", "note"),
    ]
    location = results[1]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "queues.yaml"}, "region": {"startLine": 12}}
    assert results[1]["message"]["text"] == "flavor resource is not covered"
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]["text"] == "Resources are covered"
    assert render(sample_report(), "sarif") == render(sample_report(), "sarif")


def test_sarif_uri_keeps_relative_paths_and_encodes_spaces() -> None:
    report = ValidationReport([document([finding("KQ1")], file="my dir/q#1.yaml")])

    log = json.loads(render(report, "sarif"))

    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/q%231.yaml"


# --- table ----------------------------------------------------------------------------------------


def test_table_has_no_ansi_codes_when_no_color_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "")

    text = render(sample_report(), "table", FakeTTY())

    assert not ANSI.search(text)
    assert "KQ101" in text


def test_table_on_non_tty_has_no_colour() -> None:
    text = render(sample_report(), "table", io.StringIO())

    assert not ANSI.search(text)


def test_table_on_a_tty_is_coloured_unless_color_never() -> None:
    assert ANSI.search(render(sample_report(), "table", FakeTTY()))
    assert not ANSI.search(render(sample_report(), "table", FakeTTY(), color="never"))


def test_table_color_always_forces_colour_into_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")

    assert ANSI.search(render(sample_report(), "table", io.StringIO(), color="always"))


def test_table_lists_findings_by_file_then_line_with_hint_and_summary() -> None:
    text = render(sample_report(), "table")

    assert text.index("queues.yaml") < text.index("KQ205") < text.index("KQ101") < text.index("KQ301")
    assert "✖ error" in text and "⚠ warning" in text and "ℹ info" in text
    assert "ClusterQueue/team-a" in text and "LocalQueue/team-a/default" in text  # compact: Kind/name
    wide = render(sample_report(), "wide")
    assert "ClusterQueue team-a" in wide and "LocalQueue team-a/default" in wide  # the table's OBJECT column
    assert "add it to coveredResources" in text
    assert text.rstrip().splitlines()[-2] == "3 documents, 2 valid, 1 invalid: 1 error, 1 warning, 1 info"
    assert text.rstrip().splitlines()[-1].startswith("kqctl rules ID explains a rule")


def test_table_prints_user_text_literally_not_as_markup() -> None:
    report = ValidationReport(
        [document([finding("KQ1", message="[bold]x[/bold] :smile:", path=("metadata", "labels", "a/b"))])]
    )

    text = render(report, "table")

    assert "[bold]x[/bold] :smile:" in text
    assert "metadata.labels[a/b]" in text


def test_table_with_no_findings_says_every_document_is_valid() -> None:
    report = ValidationReport([document([]), document([], index=1)])

    assert render(report, "table").strip() == "✓ 2 documents valid"


def test_table_falls_back_to_ascii_icons_on_non_utf8_streams() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    report = ValidationReport([document([finding("KQ1")])])

    render_validation(report, "table", stream)
    stream.flush()
    text = stream.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]

    assert "x error" in text


def test_console_off_a_terminal_never_wraps_whatever_columns_says(monkeypatch: pytest.MonkeyPatch) -> None:
    from kqctl.render.console import NO_WRAP_WIDTH, terminal_width

    monkeypatch.setenv("COLUMNS", "80")
    assert make_console(io.StringIO()).width == NO_WRAP_WIDTH
    assert terminal_width(io.StringIO()) is None


def test_console_rejects_unknown_color_modes() -> None:
    with pytest.raises(ValueError, match="auto, always, never"):
        make_console(io.StringIO(), "sometimes")
