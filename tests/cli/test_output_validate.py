"""validate's findings: one line per finding (compact by default, a table under -o wide), with file:line first."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from support import Run

Kq = Callable[..., Run]
BROKEN = "samples/broken"


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("wide", [False, True])
def test_one_line_per_finding_piped_at_any_width(kqctl: Kq, columns: str, wide: bool) -> None:
    lines = kqctl("validate", BROKEN, *(["-o", "wide"] if wide else []), env={"COLUMNS": columns}).out.splitlines()
    report = json.loads(kqctl("validate", BROKEN, "-o", "json").out)
    findings = [f for doc in report["documents"] for f in doc["findings"]]
    if wide:
        assert lines[0].split()[:3] == ["LOCATION", "SEVERITY", "RULE"]
    assert len(lines) == wide + len(findings) + 2  # (header), one line each, summary, the `kqctl rules` hint


def test_each_line_starts_with_file_and_line_and_keeps_the_hint(kqctl: Kq, write: Callable[..., str]) -> None:
    path = write("cq.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\n"
                            "spec:\n  resourceGroups: []\n")
    line = kqctl("validate", path).out.splitlines()[0]
    assert line.startswith(f"{path}:") and "XO-NS-NIL" in line and "(hint: add `namespaceSelector: {}`" in line


def test_a_multi_line_message_becomes_one_line(kqctl: Kq, write: Callable[..., str]) -> None:
    path = write("bad.yaml", "a: [1\n")
    run = kqctl("validate", path)
    assert run.code == 3
    finding_lines = [line for line in run.out.splitlines() if line.startswith(path)]
    assert len(finding_lines) == 1


def test_validate_name_lists_objects_with_errors_and_no_headers_drops_the_header(kqctl: Kq) -> None:
    names = kqctl("validate", "samples/broken/10-schema.yaml", "-o", "name").out.splitlines()
    assert "clusterqueue.kueue.x-k8s.io/schema-unknown-field" in names
    assert all("/" in n and "." in n.split("/")[0] for n in names)
    rows = kqctl("validate", "samples/broken/10-schema.yaml", "--no-headers", "-o", "wide").out.splitlines()
    assert rows[0].startswith("samples/broken/10-schema.yaml:") and not any(r.startswith("LOCATION") for r in rows)


def test_validate_sort_by_severity_puts_errors_first_and_unknown_columns_are_usage_errors(kqctl: Kq) -> None:
    rows = [row for row in kqctl("validate", BROKEN, "--sort-by", "severity").out.splitlines()
            if row.startswith(BROKEN)]
    severities = [row.split()[2] for row in rows]  # "file:line", icon, severity
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    bad = kqctl("validate", BROKEN, "--sort-by", "nope")
    assert bad.code == 2 and "choose one of: location, severity, rule" in bad.err
