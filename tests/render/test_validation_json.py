"""-o json of validate is written without building dicts first: it must be byte for byte what
json.dumps(validation_document(report), indent=2, ensure_ascii=True) gives, for every report."""

from __future__ import annotations

import json

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.findings import Finding, Severity
from kqctl.load.objects import load_paths
from kqctl.origin import Origin
from kqctl.render.jsontext import dumps_indented
from kqctl.render.validation import sarif_log, validation_document, validation_json
from kqctl.validate.report import DocumentReport, ValidationReport
from kqctl.validate.runner import validate_load


def reference(report: ValidationReport) -> str:
    return json.dumps(validation_document(report), indent=2, ensure_ascii=True) + "\n"


@pytest.mark.parametrize("sample", sorted(p.name for p in (REPO / "samples").iterdir() if p.is_dir()))
def test_every_sample_report_is_written_as_json_dumps_writes_it(sample: str) -> None:
    files = [str(p) for p in sorted((REPO / "samples" / sample).rglob("*.yaml"))]
    report = validate_load(load_paths(ALL_KINDS, files), validation_profiles(None))
    assert validation_json(report) == reference(report)
    assert dumps_indented(sarif_log(report, "test")) == json.dumps(sarif_log(report, "test"), indent=2,
                                                               ensure_ascii=True) + "\n"


def test_odd_text_items_and_nulls_are_written_as_json_dumps_writes_them() -> None:
    odd = 'quote " backslash \\ tab \t newline \n nul \x00 del \x7f é 日本 😀 \u2028 \ud800'
    findings = [Finding("R-1", Severity.ERROR, ("spec", 0, odd), odd, None, 3),
                Finding("R-2", Severity.INFO, (), "m", odd, None)]
    report = ValidationReport([
        DocumentReport(Origin(odd, 0, 1), odd, odd, None, None, []),
        DocumentReport(Origin("f.yaml", 2, 10, item=7), "v1", "Namespace", "ns", odd, findings),
        DocumentReport(Origin("f.yaml", 3, 12), "", "", odd, "", []),
    ])
    assert validation_json(report) == reference(report)
    assert validation_json(ValidationReport([])) == reference(ValidationReport([]))
