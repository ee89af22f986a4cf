"""Tests for kqctl.k8s.quantity: rules QTY-1..QTY-6 and Q-10 of kueue-semantics.md.

Where the design text is silent the expected values follow Kubernetes' resource.Quantity.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kqctl.k8s.quantity import (
    CPU_UNLIMITED_CORES,
    ERR_FORMAT,
    ERR_NUMERIC,
    ERR_SUFFIX,
    MAX_INT64,
    MIN_INT64,
    UNLIMITED,
    Quantity,
    QuantityError,
    canonical_quantity,
    format_quantity_value,
    format_resource_value,
    int64_sat_add,
    int64_sat_sub,
    parse_quantity,
    quota_value,
    resource_value,
    sat_add,
    sat_mul,
    sat_sub,
)
from kqctl.k8s.scalars import LiteralFloat

REGEX_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def q(text: str) -> Quantity:
    return parse_quantity(text)


# --- QTY-1 grammar ---------------------------------------------------------------------------


def test_qty1_error_texts_are_the_kubernetes_messages() -> None:
    assert ERR_FORMAT == REGEX_MESSAGE
    assert ERR_SUFFIX == "unable to parse quantity's suffix"
    assert ERR_NUMERIC == "unable to parse numeric part of quantity"


def test_qty1_rejects_1_2_3_with_regex_message() -> None:
    with pytest.raises(QuantityError) as err:
        q("1.2.3")
    assert str(err.value) == REGEX_MESSAGE
    assert err.value.kind == "format"


def test_qty1_rejects_K_with_suffix_message() -> None:
    with pytest.raises(QuantityError, match="^unable to parse quantity's suffix$") as err:
        q("1K")
    assert err.value.kind == "suffix"


def test_qty1_rejects_1KB_with_regex_message() -> None:
    with pytest.raises(QuantityError) as err:
        q("1KB")
    assert str(err.value) == REGEX_MESSAGE


def test_qty1_rejects_empty_string_with_regex_message() -> None:
    with pytest.raises(QuantityError) as err:
        q("")
    assert str(err.value) == REGEX_MESSAGE


def test_qty1_quantity_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        q("abc")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1e1.5", "format"),  # the CRD pattern admits it, the parser does not
        ("1e3e", "format"),
        ("1 ", "format"),  # no whitespace trimming
        (" 1", "format"),
        ("1\n", "format"),
        ("abc", "format"),
        ("nan", "format"),
        ("inf", "format"),
        ("--1", "suffix"),  # scanner reads "-1" as the suffix
        ("1Gb", "format"),
        ("1mm", "suffix"),
        ("1e", "suffix"),  # `e` alone is not a suffix (`E` is exa)
        ("1Ee3", "suffix"),
        ("1ki", "suffix"),
        ("1KI", "format"),  # "I" is not a suffix letter
        ("1-", "suffix"),
        ("1e99999999999999999999", "suffix"),  # exponent must fit int64
        ("Ei", "numeric"),  # slow path needs a digit
        (".Pi", "numeric"),
        (".e-10", "numeric"),
    ],
)
def test_qty1_rejects_malformed_quantities_with_kubernetes_error_kind(text: str, kind: str) -> None:
    with pytest.raises(QuantityError) as err:
        q(text)
    assert err.value.kind == kind


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", Fraction(1)),
        ("1.5", Fraction(3, 2)),
        ("1.", Fraction(1)),
        (".5", Fraction(1, 2)),
        ("+1", Fraction(1)),
        ("-1", Fraction(-1)),
        ("007", Fraction(7)),
    ],
)
def test_qty1_accepts_signed_numbers_with_at_most_one_dot(text: str, value: Fraction) -> None:
    assert q(text).value == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1n", Fraction(1, 10**9)),
        ("1u", Fraction(1, 10**6)),
        ("1m", Fraction(1, 1000)),
        ("1k", Fraction(10**3)),
        ("1M", Fraction(10**6)),
        ("1G", Fraction(10**9)),
        ("1T", Fraction(10**12)),
        ("1P", Fraction(10**15)),
        ("1E", Fraction(10**18)),
        ("1Ki", Fraction(2**10)),
        ("1Mi", Fraction(2**20)),
        ("1Gi", Fraction(2**30)),
        ("1Ti", Fraction(2**40)),
        ("1Pi", Fraction(2**50)),
        ("1Ei", Fraction(2**60)),
        ("1e3", Fraction(1000)),
        ("12E-1", Fraction(6, 5)),
        ("1e+2", Fraction(100)),
    ],
)
def test_qty1_suffix_multipliers(text: str, value: Fraction) -> None:
    assert q(text).value == value


def test_qty1_E_alone_is_exa_and_E3_is_an_exponent() -> None:
    assert (q("2E").value, q("2E").format) == (2 * 10**18, "DecimalSI")
    assert (q("2E3").value, q("2E3").format) == (2000, "DecimalExponent")


@pytest.mark.parametrize("text", ["Ki", "m", "+", "-", ".", "e3"])
def test_qty1_empty_number_parses_as_zero_like_kubernetes(text: str) -> None:
    # Kubernetes' scanner treats a missing numerator as 0 on its fast path.
    assert q(text).value == 0


def test_qty1_yaml_int_is_read_as_its_text() -> None:
    quantity = parse_quantity(10)
    assert quantity.text == "10"
    assert quantity.canonical() == "10"


def test_qty1_literal_float_is_read_as_source_text_not_float() -> None:
    quantity = parse_quantity(LiteralFloat("0.10"))
    assert quantity.text == "0.10"
    assert quantity.value == Fraction(1, 10)  # exact, no binary float error


def test_qty1_literal_float_exponent_keeps_its_spelling() -> None:
    assert parse_quantity(LiteralFloat("1e3")).canonical() == "1e3"


def test_qty1_plain_float_uses_repr() -> None:
    quantity = parse_quantity(0.5)
    assert (quantity.text, quantity.value) == ("0.5", Fraction(1, 2))


def test_qty1_yaml_bool_is_rejected_with_regex_message() -> None:
    with pytest.raises(QuantityError) as err:
        parse_quantity(True)
    assert str(err.value) == REGEX_MESSAGE


def test_qty1_parse_quantity_returns_a_quantity_unchanged() -> None:
    quantity = q("1Gi")
    assert parse_quantity(quantity) is quantity


def test_qty1_parse_is_cached_for_repeated_text() -> None:
    assert parse_quantity("500m") is parse_quantity("500m")


# --- QTY-2 exact value -----------------------------------------------------------------------


def test_qty2_value_is_exact() -> None:
    assert q("0.1").value == Fraction(1, 10)
    assert q("1.5Gi").value == 1610612736


def test_qty2_rounds_0_1n_up_to_1n() -> None:
    assert q("0.1n").value == Fraction(1, 10**9)
    assert q("0.1n").canonical() == "1n"


def test_qty2_rounds_negative_values_away_from_zero() -> None:
    assert q("-0.1n").canonical() == "-1n"


def test_qty2_rounds_long_fractions_up_to_the_next_nano() -> None:
    assert q("1.0000000001").canonical() == "1000000001n"
    assert q("0.0000000001Ki").canonical() == "103n"  # 102.4n rounds up


def test_qty2_tiny_exponent_rounds_to_1n_without_expanding() -> None:
    assert q("1e-1000000000").value == Fraction(1, 10**9)


def test_qty2_binary_si_is_capped_at_max_int64() -> None:
    assert q("8Ei").value == MAX_INT64
    assert q("-8Ei").value == -MAX_INT64


def test_qty2_decimal_si_is_not_capped_and_flags_overflow() -> None:
    quantity = q("9223372036854775808")
    assert quantity.value == 2**63
    assert quantity.overflows_int64
    assert not q("9223372036854775807").overflows_int64


def test_qty2_absurd_exponent_is_rejected_instead_of_expanded() -> None:
    with pytest.raises(QuantityError) as err:
        q("1e999999999")
    assert err.value.kind == "too-large"


# --- QTY-3 remembered format -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("1", "DecimalSI"),
        ("1m", "DecimalSI"),
        ("1k", "DecimalSI"),
        ("1Ki", "BinarySI"),
        ("0.5Ki", "BinarySI"),  # 512: not below 1
        ("1e3", "DecimalExponent"),
        ("1E-3", "DecimalExponent"),
    ],
)
def test_qty3_remembers_the_format_of_the_suffix(text: str, fmt: str) -> None:
    assert q(text).format == fmt


def test_qty3_binary_value_below_one_becomes_decimal_si() -> None:
    assert q("0.0001Ki").format == "DecimalSI"


# --- QTY-4 canonical string ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # spec examples
        ("1.5", "1500m"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("0.1", "100m"),
        ("2e3", "2e3"),
        ("100M", "100M"),
        ("1.5Gi", "1536Mi"),
        ("0.5Gi", "512Mi"),
        ("1024Ki", "1Mi"),
        ("1025Ki", "1025Ki"),
        ("0.5Ki", "512"),
        # more of the same rules
        ("0", "0"),
        ("0.0", "0"),
        ("-0", "0"),
        ("0Ki", "0"),
        ("1000m", "1"),
        ("1500000", "1500k"),
        ("-1.5", "-1500m"),
        ("0.5", "500m"),
        ("2e4", "20e3"),
        ("1000e3", "1e6"),
        ("1000Ki", "1000Ki"),
        ("2048Ki", "2Mi"),
        ("1.5Ki", "1536"),
        ("1.25Ki", "1280"),
        ("0.1Ki", "102400m"),
        ("-2048Ki", "-2Mi"),
        ("8Ei", "9223372036854775807"),
        ("1500E", "1500E"),
    ],
)
def test_qty4_canonical_string(text: str, canonical: str) -> None:
    assert q(text).canonical() == canonical


@pytest.mark.parametrize(
    "text",
    ["1.", "1500", "2Ki", "1.500", "+1", "-1", "0010", "1.Ki", "10e3", "1E3", "1025Ki", "-3Ki"],
)
def test_qty4_quirk_canonical_looking_input_keeps_its_spelling(text: str) -> None:
    assert q(text).canonical() == text


def test_qty4_quirk_1_dot_prints_1_dot() -> None:
    assert q("1.").canonical() == "1."


def test_qty4_quirk_12E_minus_1_prints_1200e_minus_3() -> None:
    assert q("12E-1").canonical() == "1200e-3"


def test_qty4_quirk_decimal_si_from_10_pow_21_prints_without_suffix() -> None:
    assert q("1000E").canonical() == "1"


def test_qty4_str_is_canonical() -> None:
    assert str(q("1.5Gi")) == "1536Mi"


def test_qty4_canonical_quantity_convenience() -> None:
    assert canonical_quantity("1000") == "1k"
    assert canonical_quantity(LiteralFloat("1.5")) == "1500m"


def test_qty4_text_keeps_the_original_spelling() -> None:
    assert q("1000").text == "1000"


# --- value semantics (comparisons are by value) --------------------------------------------


def test_quantities_compare_equal_by_value_across_spellings() -> None:
    assert q("1k") == q("1000")
    assert hash(q("1k")) == hash(q("1000"))
    assert q("1Ki") == 1024


def test_quantities_order_by_value() -> None:
    assert q("1G") < q("1Gi")
    assert sorted([q("2"), q("1500m"), q("1")]) == [q("1"), q("1500m"), q("2")]
    assert q("9223372036854775") >= CPU_UNLIMITED_CORES


# --- QTY-5 Kueue integers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "text", "expected"),
    [
        ("cpu", "1.5", 1500),
        ("cpu", "100m", 100),
        ("cpu", "0.0001", 1),  # ceil of 0.1 milli-cores
        ("memory", "1.5", 2),  # ceil of 1.5 bytes
        ("memory", "1Gi", 2**30),
        ("nvidia.com/gpu", "0.5", 1),
        ("pods", "3", 3),
    ],
)
def test_qty5_request_value_is_ceil_milli_for_cpu_and_ceil_otherwise(
    resource: str, text: str, expected: int
) -> None:
    assert resource_value(resource, q(text)) == expected


def test_qty5_rounding_happens_per_pod_before_multiplying() -> None:
    assert sat_mul(resource_value("nvidia.com/gpu", q("0.5")), 4) == 4


@pytest.mark.parametrize(
    ("resource", "text", "expected"),
    [
        ("cpu", "9223372036854776", MAX_INT64),
        ("cpu", "9223372036854775.808", MAX_INT64),
        ("cpu", "9223372036854775.807", MAX_INT64),
        ("cpu", "9223372036854775.806", MAX_INT64 - 1),
        ("cpu", "1e21", MAX_INT64),
        ("memory", "1e19", MAX_INT64),
        ("memory", "9223372036854775806", MAX_INT64 - 1),
        ("memory", "-1e19", MIN_INT64),
        ("cpu", "-1e19", MIN_INT64),
    ],
)
def test_qty5_request_saturates_at_int64_bounds(resource: str, text: str, expected: int) -> None:
    assert resource_value(resource, q(text)) == expected


@pytest.mark.parametrize(
    ("resource", "text", "expected"),
    [
        ("cpu", "1e21", UNLIMITED),
        ("cpu", "1E", UNLIMITED),
        ("cpu", "9223372036854775", UNLIMITED),  # milli value would still fit
        ("cpu", "9223372036854774.999", 9223372036854774999),
        ("cpu", "10", 10000),
        ("memory", "9223372036854775807", UNLIMITED),
        ("memory", "9223372036854775806", 9223372036854775806),
        ("memory", "8Ei", UNLIMITED),  # capped to 2^63-1 by QTY-2, then UNLIMITED
        ("memory", "36Gi", 36 * 2**30),
        ("nvidia.com/gpu", "1e30", UNLIMITED),
    ],
)
def test_qty5_quota_value_uses_unlimited_thresholds(resource: str, text: str, expected: int) -> None:
    assert quota_value(resource, q(text)) == expected


def test_qty5_cpu_unlimited_threshold_is_floor_of_max_int64_over_1000() -> None:
    assert CPU_UNLIMITED_CORES == 9223372036854775


def test_qty5_milli_value_rounds_away_from_zero() -> None:
    assert q("0.0001").milli_value() == 1
    assert q("-0.0001").milli_value() == -1


def test_qty5_value_ceil_rounds_away_from_zero() -> None:
    assert q("1.5").value_ceil() == 2
    assert q("-1.5").value_ceil() == -2
    assert q("3").value_ceil() == 3


# --- Q-10 arithmetic -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (UNLIMITED, 5, UNLIMITED),
        (5, UNLIMITED, UNLIMITED),
        (UNLIMITED, -5, UNLIMITED),
        (UNLIMITED, UNLIMITED, UNLIMITED),
        (2, 3, 5),
        (MAX_INT64 - 1, 10, MAX_INT64),
        (MIN_INT64, -1, MIN_INT64),
    ],
)
def test_q10_sat_add(a: int, b: int, expected: int) -> None:
    assert sat_add(a, b) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (UNLIMITED, 5, UNLIMITED),
        (5, UNLIMITED, MIN_INT64),
        (UNLIMITED, UNLIMITED, 0),
        (5, 3, 2),
        (MIN_INT64 + 1, 10, MIN_INT64),
        (MAX_INT64 - 1, -10, MAX_INT64),
    ],
)
def test_q10_sat_sub(a: int, b: int, expected: int) -> None:
    assert sat_sub(a, b) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (3, 4, 12),
        (MAX_INT64, 2, MAX_INT64),
        (MAX_INT64, -2, MIN_INT64),
        (MIN_INT64, -1, MAX_INT64),
        (0, MAX_INT64, 0),
    ],
)
def test_q10_sat_mul(a: int, b: int, expected: int) -> None:
    assert sat_mul(a, b) == expected


def test_q10_request_side_max_is_a_number_not_unlimited() -> None:
    assert int64_sat_add(MAX_INT64, -5) == MAX_INT64 - 5
    assert int64_sat_sub(5, MAX_INT64) == 5 - MAX_INT64
    assert int64_sat_add(MAX_INT64, 1) == MAX_INT64


# --- QTY-6 printing Kueue integers -----------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "v", "text"),
    [
        ("cpu", 1500, "1500m"),
        ("cpu", 2000, "2"),
        ("cpu", 1000000, "1k"),
        ("cpu", 0, "0"),
        ("memory", 5368709120, "5Gi"),
        ("memory", 3072, "3Ki"),
        ("memory", 2048000, "2000Ki"),
        ("memory", 1610612736, "1536Mi"),
        ("memory", 1000000000, "1G"),
        ("memory", 1000, "1k"),
        ("memory", 1536, "1536"),
        ("memory", 512, "512"),
        ("memory", 2000, "2k"),
        ("memory", -2048, "-2Ki"),
        ("ephemeral-storage", 5368709120, "5Gi"),
        ("hugepages-2Mi", 2097152, "2Mi"),
        ("pods", 10, "10"),
        ("pods", 1000, "1k"),
        ("nvidia.com/gpu", 1024, "1024"),
    ],
)
def test_qty6_format_resource_value(resource: str, v: int, text: str) -> None:
    assert format_resource_value(resource, v) == text


def test_qty6_clamped_cpu_request_prints_as_a_number() -> None:
    assert format_resource_value("cpu", MAX_INT64) == "9223372036854775807m"


def test_qty6_clamped_non_cpu_request_prints_as_a_number() -> None:
    assert format_resource_value("memory", MAX_INT64) == "9223372036854775807"
    assert format_resource_value("pods", MAX_INT64) == "9223372036854775807"


@pytest.mark.parametrize("resource", ["cpu", "memory", "pods"])
def test_qty6_unlimited_prints_as_unlimited_on_the_quota_side(resource: str) -> None:
    assert format_resource_value(resource, UNLIMITED, quota_side=True) == "<unlimited>"


def test_qty6_bounded_quota_prints_normally() -> None:
    assert format_resource_value("cpu", 10000, quota_side=True) == "10"


def test_qty6_reproduces_the_integer_overflow_conformance_message() -> None:
    # schedule/prevent-integer-overflow-in-resourcevalue-conversion-to-millivalue
    request = resource_value("cpu", q("9223372036854776"))
    capacity = quota_value("cpu", q("10"))
    message = (
        f"previously considered podsets requests ({format_resource_value('cpu', 0, quota_side=True)})"
        f" + current podset request ({format_resource_value('cpu', request)})"
        f" > maximum capacity ({format_resource_value('cpu', capacity, quota_side=True)})"
    )
    assert message == (
        "previously considered podsets requests (0) + current podset request "
        "(9223372036854775807m) > maximum capacity (10)"
    )


def test_qty6_min_int64_memory_prints_as_a_plain_number() -> None:
    # Kubernetes cannot negate -2^63 to strip factors of 1024, so no "-8Ei".
    assert format_resource_value("memory", MIN_INT64) == "-9223372036854775808"


def test_qty6_extra_binary_resources_print_like_memory() -> None:
    assert format_resource_value("example.com/bytes", 3072) == "3072"
    assert format_resource_value("example.com/bytes", 3072, binary_resources={"example.com/bytes"}) == "3Ki"


def test_qty6_format_quantity_value_is_an_alias() -> None:
    assert format_quantity_value("memory", 3072) == "3Ki"
