"""kubectl's JSONPath template dialect (client-go util/jsonpath) over python-jsonpath: templates, ranges, printing,
relaxed paths (custom-columns, --sort-by) and the errors kubectl gives."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.render.jsonpath import (
    TemplateError,
    custom_column_cell,
    parse_custom_columns,
    parse_template,
    sort_key_for,
)

DATA: dict[str, Any] = {
    "kind": "List",
    "items": [
        {"metadata": {"name": "a", "labels": {"kueue.x-k8s.io/queue-name": "q1", "app-x": "1"}},
         "spec": {"priority": 3, "flag": True, "nothing": None}},
        {"metadata": {"name": "b", "labels": {}}, "spec": {"priority": 10}},
        {"metadata": {"name": "job-2"}, "spec": {"priority": 1}},
    ],
    "workloads": {"ns/x": {"decision": "Admitted"}, "ns/y": {"decision": "Pending"}},
}


@pytest.mark.parametrize("template, printed", [
    ("{.items[*].metadata.name}", "a b job-2"),  # several values of one action: separated by a space
    ("{range .items[*]}{.metadata.name}{\"\\t\"}{.spec.priority}{\"\\n\"}{end}", "a\t3\nb\t10\njob-2\t1\n"),
    ("{.kind}: {.items[0].metadata.name}", "List: a"),  # text outside actions is kept
    ("{.items[?(@.spec.priority > 2)].metadata.name}", "a b"),  # a filter
    ("{.items[?(@.metadata.name == \"b\")].spec.priority}", "10"),
    ("{.items[-1].metadata.name}", "job-2"),  # a negative index
    ("{.items[0:2].metadata.name}", "a b"),  # a slice
    ("{.items[0].metadata.labels.kueue\\.x-k8s\\.io/queue-name}", "q1"),  # \\. escapes a dot in a name
    ("{.items[0].metadata.labels.app-x}", "1"),  # a hyphen in a field name
    ("{.items[0].metadata.labels['kueue.x-k8s.io/queue-name']}", "q1"),  # a quoted key
    ("{..name}", "a b job-2"),  # recursive descent
    ("{.workloads.*.decision}", "Admitted Pending"),  # a map's values in the document's order
    ("{.items[0].spec}", '{"priority":3,"flag":true,"nothing":null}'),  # maps print as compact JSON
    ("{.items[0].spec.flag}", "true"),
    ("{.items[0].spec.nothing}", "<nil>"),  # null as client-go prints it
    ("{.missing}", ""),  # a missing key prints nothing (--allow-missing-template-keys=true)
    ("{range .items[*]}[{range .metadata.labels.*}{$}{end}]{end}", "[q11][][]"),  # nested ranges; $ is the value
    ("{$.kind}", "List"),
])
def test_templates_print_as_kubectl_prints_them(template: str, printed: str) -> None:
    assert parse_template(template).render(DATA) == printed


@pytest.mark.parametrize("template, message", [
    ("{.items", "unclosed action"),
    ("{end}", "without a {range}"),
    ("{range .items[*]}{.a}", "without an {end}"),
    ("{.items[}", "unclosed '['"),
    ("{items}", "must start with '.'"),
    ("{.items[?(@.a =)]}", "jsonpath"),
])
def test_a_malformed_template_is_an_error_naming_it(template: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("[", r"\[").replace("{", r"\{").replace("}", r"\}")):
        parse_template(template)


def test_custom_columns_take_relaxed_paths_and_join_several_values_with_commas() -> None:
    columns = parse_custom_columns("NAME:.metadata.name,PRIO:{.spec.priority},LABELS:metadata.labels.*")
    assert [c.header for c in columns] == ["NAME", "PRIO", "LABELS"]
    item = DATA["items"][0]
    assert [custom_column_cell(c, item) for c in columns] == ["a", "3", "q1,1"]
    assert custom_column_cell(columns[2], DATA["items"][2]) == "<none>"  # nothing found: kubectl's <none>


@pytest.mark.parametrize("spec", ["", "NAME", "NAME:", ":.a"])
def test_a_custom_columns_spec_without_header_and_path_is_an_error(spec: str) -> None:
    with pytest.raises(TemplateError):
        parse_custom_columns(spec)


def test_sort_by_orders_numbers_by_value_strings_naturally_and_missing_last() -> None:
    items = [{"n": "job-10"}, {"n": "job-2"}, {}, {"n": "job-1"}]
    assert [i.get("n") for i in sorted(items, key=sort_key_for(".n"))] == ["job-1", "job-2", "job-10", None]
    assert [i["spec"]["priority"] for i in sorted(DATA["items"], key=sort_key_for("{.spec.priority}"))] == [1, 3, 10]
