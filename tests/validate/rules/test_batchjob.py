"""batch/v1 Job rules of the API server (VAL-BJOB-1): a Job's pod counts cannot be negative."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.validate.rules import run_core_rules


def job(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "d"},
            "spec": {**spec, "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}


CASES = [
    ("parallelism-negative", {"parallelism": -2}, [("spec.parallelism", "Invalid value: -2: must be greater than "
                                                     "or equal to 0")]),
    ("completions-negative", {"completions": -1}, [("spec.completions", "Invalid value: -1: must be greater than "
                                                     "or equal to 0")]),
    ("backoff-limit-negative", {"backoffLimit": -6}, [("spec.backoffLimit", "Invalid value: -6: must be greater "
                                                        "than or equal to 0")]),
    ("zero-is-allowed", {"parallelism": 0, "completions": 0, "backoffLimit": 0}, []),
    ("unset-is-allowed", {}, []),
    ("wrong-type-is-the-schemas", {"parallelism": "-2"}, []),
]


@pytest.mark.parametrize("name,spec,expected", CASES, ids=[c[0] for c in CASES])
def test_vbjob1_counts_are_not_negative(name: str, spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    findings = run_core_rules("batch", "Job", job(**spec))
    assert [(f.field, f.message) for f in findings] == expected
    assert all(f.rule_id == "VAL-BJOB-1" for f in findings)
