"""The shipped samples: every valid one validates clean; the broken one shows every kind of finding."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLES = REPO / "samples"
EXPECT = re.compile(r"#\s*expect\s+([A-Z][A-Z0-9-]+)")
VALID_SAMPLES = ["single-clusterqueue", "cohort-borrowing", "spot-gpu", "preemption", "fair-sharing",
                 "hierarchical-cohorts", "replay"]


def expected_rules() -> dict[str, set[str]]:
    """``# expect RULE-ID`` comments in samples/broken, per file."""
    found: dict[str, set[str]] = {}
    for path in sorted((SAMPLES / "broken").glob("*.yaml")):
        rules = set(EXPECT.findall(path.read_text()))
        if rules:
            found[path.name] = rules
    return found


@pytest.mark.parametrize("sample", VALID_SAMPLES)
def test_valid_sample_has_no_errors_or_warnings(kqctl: Kq, sample: str) -> None:
    run = kqctl("validate", str(SAMPLES / sample), "--fail-on", "warning")
    assert run.code == 0, run.out


def test_broken_sample_reports_every_expected_rule_in_its_file(kqctl: Kq) -> None:
    run = kqctl("validate", str(SAMPLES / "broken"), "-o", "json")
    assert run.code == 1
    got: dict[str, set[str]] = {}
    for document in json.loads(run.out)["documents"]:
        name = document["file"].rsplit("/", 1)[-1]
        got.setdefault(name, set()).update(f["ruleId"] for f in document["findings"])
    expected = expected_rules()
    assert len(set().union(*expected.values())) >= 30
    missing = {name: rules - got.get(name, set()) for name, rules in expected.items() if rules - got.get(name, set())}
    assert missing == {}


def test_broken_sample_covers_every_kind_of_finding(kqctl: Kq) -> None:
    run = kqctl("validate", str(SAMPLES / "broken"), "-o", "json")
    rules = {f["ruleId"] for d in json.loads(run.out)["documents"] for f in d["findings"]}
    kinds = {"SCHEMA-", "CEL-", "VAL-", "DEF-3", "XO-", "LOAD-DUPLICATE", "LOAD-SKIPPED"}
    assert {k for k in kinds if any(r.startswith(k) for r in rules)} == kinds


def test_legacy_sample_converts_to_v1beta2(kqctl: Kq) -> None:
    run = kqctl("convert", "-f", str(SAMPLES / "legacy-v1alpha1"), "--to", "v1beta2")
    assert run.code == 0, run.err
    assert "kueue.x-k8s.io/v1alpha1" not in run.out and "nominalQuota" in run.out
