"""Kubernetes name, label and selector validation: messages byte for byte as apimachinery v0.36."""

from __future__ import annotations

from kqctl.k8s.names import (
    go_json,
    go_quote,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    name_is_dns1123_subdomain,
    validate_annotations,
    validate_label_selector,
    validate_labels,
)

SUBDOMAIN_REGEX_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_KEY_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex "
    "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_dns_subdomain_accepts_dotted_lowercase_names() -> None:
    assert is_dns1123_subdomain("team-a.example.com") == []


def test_dns_subdomain_rejects_uppercase_with_kubernetes_text() -> None:
    assert is_dns1123_subdomain("Team") == [SUBDOMAIN_REGEX_MSG]


def test_dns_subdomain_reports_length_and_pattern_separately() -> None:
    errs = is_dns1123_subdomain("a" * 254 + "-")
    assert errs == ["must be no more than 253 characters", SUBDOMAIN_REGEX_MSG]


def test_dns_subdomain_rejects_trailing_newline_unlike_python_dollar() -> None:
    assert is_dns1123_subdomain("abc\n") == [SUBDOMAIN_REGEX_MSG]


def test_dns_label_says_dots_when_only_dots_are_wrong() -> None:
    assert is_dns1123_label("a.b") == ["must not contain dots"]


def test_dns_label_at_63_passes_and_64_fails() -> None:
    assert is_dns1123_label("a" * 63) == []
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]


def test_generate_name_prefix_may_end_with_dash() -> None:
    assert name_is_dns1123_subdomain("job-", prefix=True) == []
    assert name_is_dns1123_subdomain("job-") == [SUBDOMAIN_REGEX_MSG]


def test_qualified_name_with_prefix_is_valid() -> None:
    assert is_qualified_name("nvidia.com/gpu") == []
    assert is_qualified_name("MyName") == []


def test_qualified_name_with_bad_prefix_prefixes_message() -> None:
    assert is_qualified_name("Bad_Prefix/x") == ["prefix part " + SUBDOMAIN_REGEX_MSG]


def test_qualified_name_prefix_length_is_counted_in_bytes() -> None:
    # The prefix goes through the content package, whose length message says "bytes".
    assert is_qualified_name("a" * 254 + "/x")[0] == "prefix part must be no more than 253 bytes"


def test_qualified_name_with_empty_name_part_reports_empty_and_pattern() -> None:
    assert is_qualified_name("example.com/") == ["name part must be non-empty", LABEL_KEY_NAME_MSG]


def test_qualified_name_with_two_slashes_has_single_message() -> None:
    errs = is_qualified_name("a/b/c")
    assert len(errs) == 1
    assert errs[0].startswith("a valid label key must consist of")
    assert errs[0].endswith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")


def test_qualified_name_name_part_over_63_bytes() -> None:
    assert is_qualified_name("a" * 64) == ["name part must be no more than 63 bytes"]


def test_label_value_may_be_empty_but_not_start_with_dash() -> None:
    assert is_label_value("") == []
    assert is_label_value("-x") == [LABEL_VALUE_MSG]


def test_go_quote_escapes_like_strconv_quote() -> None:
    assert go_quote('a"b\\c\n\x01é') == '"a\\"b\\\\c\\n\\x01é"'


def test_go_json_escapes_html_characters() -> None:
    assert go_json("<a&b>") == '"\\u003ca\\u0026b\\u003e"'
    assert go_json({"key": "k", "effect": "NoSchedule"}) == '{"key":"k","effect":"NoSchedule"}'


def test_labels_errors_sit_on_the_map_path() -> None:
    errs = validate_labels({"ok": "bad value"}, ("metadata", "labels"))
    assert [(e.path, e.body()) for e in errs] == [
        (("metadata", "labels"), f'Invalid value: "bad value": {LABEL_VALUE_MSG}')
    ]


def test_annotation_keys_are_checked_in_lower_case() -> None:
    assert validate_annotations({"Example.COM/Key": "v"}, ("metadata", "annotations")) == []


def test_annotations_over_256kib_are_too_long() -> None:
    errs = validate_annotations({"a": "x" * (256 * 1024)}, ("metadata", "annotations"))
    assert [e.body() for e in errs] == ["Too long: may not be more than 262144 bytes"]


def test_selector_in_without_values_is_required() -> None:
    errs = validate_label_selector({"matchExpressions": [{"key": "a", "operator": "In"}]}, ("sel",))
    assert [(e.path, e.body()) for e in errs] == [
        (
            ("sel", "matchExpressions", 0, "values"),
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        )
    ]


def test_selector_exists_with_values_is_forbidden() -> None:
    selector = {"matchExpressions": [{"key": "a", "operator": "DoesNotExist", "values": ["x"]}]}
    errs = validate_label_selector(selector, ("sel",))
    assert [e.body() for e in errs] == [
        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
    ]


def test_selector_unknown_operator_is_invalid() -> None:
    errs = validate_label_selector(
        {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}, ("s",)
    )
    assert [(e.path, e.body()) for e in errs] == [
        (("s", "matchExpressions", 0, "operator"), 'Invalid value: "Gt": not a valid selector operator')
    ]


def test_selector_bad_key_and_value_are_both_reported() -> None:
    selector = {"matchExpressions": [{"key": "a b", "operator": "In", "values": ["ok", "no way"]}]}
    errs = validate_label_selector(selector, ("s",))
    assert [e.path for e in errs] == [
        ("s", "matchExpressions", 0, "key"),
        ("s", "matchExpressions", 0, "values", 1),
    ]


def test_empty_and_missing_selectors_are_valid() -> None:
    assert validate_label_selector({}, ("s",)) == []
    assert validate_label_selector(None, ("s",)) == []


def test_val_meta_a_key_remembered_valid_for_annotations_is_still_checked_as_a_label_key() -> None:
    from kqctl.k8s.names import validate_annotations, validate_labels

    # Annotation keys are compared in lower case, label keys are not: "Example.com/x" is only a valid annotation.
    assert validate_annotations({"Example.com/x": "v"}, ("metadata", "annotations")) == []
    assert validate_labels({"Example.com/x": "v"}, ("metadata", "labels"))
    assert validate_labels({"Example.com/x": "v"}, ("metadata", "labels"))  # the second time too
