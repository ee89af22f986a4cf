"""--sort-by with -o json/yaml: as kubectl, a JSONPath into the listed objects, relaxed (``reason`` is ``.reason``),
so a column name that is also a field sorts the structured output by that field, and one that is no field (a
table's ``pending-demand``) is a usage error naming the nearest field, never ignored without a word. Every command
and scheduler alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from support import run_kqctl


def _listed(out: str, fmt: str, rows: str) -> list[Any]:
    data = json.loads(out) if fmt == "json" else yaml.safe_load(out)
    collection = data[rows]
    return list(collection.values()) if isinstance(collection, dict) else collection


def _natural_order(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    return present == sorted(present) and values == present + [None] * (len(values) - len(present))


@pytest.mark.parametrize(("args", "fmt", "rows", "field"), [
    (("simulate", "samples/cohort-borrowing", "--sort-by", "reason"), "json", "workloads", "reason"),
    (("simulate", "samples/cohort-borrowing", "--sort-by", "reason"), "yaml", "workloads", "reason"),
    (("simulate", "samples/yunikorn-multi-tenant", "--sort-by", "queue"), "json", "pods", "queue"),
    (("validate", "samples/broken", "--sort-by", "kind"), "json", "documents", "kind"),
    (("validate", "samples/broken", "--sort-by", "kind"), "yaml", "documents", "kind"),
])
def test_a_plain_sort_key_sorts_structured_output_by_that_field_as_kubectl(args: tuple[str, ...], fmt: str,
                                                                          rows: str, field: str) -> None:
    run = run_kqctl(*args, "-o", fmt)
    assert run.code in (0, 1) and not run.err, run.err  # validate's samples/broken exits 1: invalid documents
    values = [item.get(field) for item in _listed(run.out, fmt, rows)]
    assert len(set(values)) > 1 and _natural_order(values), values


@pytest.mark.parametrize(("args", "near"), [
    (("audit", "samples/volcano-hierarchy", "--sort-by", "pending-demand", "-o", "json"), "did you mean .pendingDe"),
    (("audit", "samples/cohort-borrowing", "--sort-by", "util", "-o", "yaml"), "couldn't find any field"),
    (("validate", "samples/broken", "--sort-by", "severity", "-o", "json"), "the objects have: .apiVersion"),
    (("validate", "samples/broken", "--sort-by", "severity", "-o", "yaml"), "the objects have: .apiVersion"),
    (("simulate", "samples/cohort-borrowing", "--sort-by", "borowed", "-o", "json"), "did you mean .borrowed"),
])
def test_a_column_name_that_is_no_field_is_a_usage_error_saying_to_use_a_jsonpath(args: tuple[str, ...],
                                                                                  near: str) -> None:
    run = run_kqctl(*args)
    assert run.code == 2 and not run.out
    assert "sort by a JSONPath into the objects, as kubectl does" in run.err and near in run.err
