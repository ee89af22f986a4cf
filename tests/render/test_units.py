"""One human style for quantities everywhere (issue 18, kqctl.k8s.units): bytes in the largest binary unit with
three significant digits; cpu a person set exact, computed cpu three significant digits; suggestions exact."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kqctl.k8s.quantity import UNLIMITED
from kqctl.render.units import human, human_figure, human_request, settable

GI = 1024**3
MI = 1024**2


@pytest.mark.parametrize("resource,value,expected", [
    ("memory", 80 * GI, "80Gi"),
    ("memory", 1536 * MI, "1.5Gi"),                 # a set amount exact when exact is short
    ("memory", 12888 * MI, "12.6Gi"),               # not 12888Mi: three significant digits, largest unit
    ("memory", 4669 * GI, "4.56Ti"),                # not 4669Gi beside 1.8Ti in the same column
    ("memory", 1500 * MI, "1.46Gi"),
    ("memory", 1000 * GI, "1000Gi"),                # the integer part is never rounded away
    ("memory", 1023 * GI + 1000 * MI, "1Ti"),       # 1023.98Gi rounds up into the next unit, not to 1024Gi
    ("memory", 3294, "3.22Ki"),                     # never "3294" bytes nor "3294m"
    ("memory", 13_207_024_435, "12.3Gi"),
    ("memory", 200 * 10**9, "186Gi"),               # decimal suffixes read in binary units like everything else
    ("memory", 512, "512"),
    ("memory", 2**70, "1024Ei"),
    ("memory", -(8 * GI), "-8Gi"),
    ("ephemeral-storage", 100 * GI, "100Gi"),
    ("hugepages-2Mi", 4 * MI, "4Mi"),
    ("cpu", 500, "500m"),
    ("cpu", 2000, "2"),
    ("cpu", 2500, "2.5"),
    ("cpu", 1250, "1.25"),
    ("cpu", 3294, "3.294"),                         # cpu a person set reads back exactly
    ("nvidia.com/gpu", 8, "8"),
    ("pods", 0, "0"),
    ("memory", None, "-"),
    ("memory", UNLIMITED, "unlimited"),
])
def test_set_amounts_read_in_one_human_style(resource: str, value: int | None, expected: str) -> None:
    assert human(resource, value) == expected


@pytest.mark.parametrize("resource,value,expected", [
    ("cpu", 3294, "3.29"),                          # LENT 3.294 read as 3.29
    ("cpu", 12872, "12.9"),                         # MEAN USED 12.872 read as 12.9
    ("cpu", 129_400, "129"),
    ("cpu", 1_290_400, "1290"),                     # whole cores are never rounded away
    ("cpu", Fraction(3456, 10), "346m"),            # below one core: whole milli-cores
    ("cpu", Fraction(99_960, 100), "1"),            # 999.6m rounds to a whole core
    ("cpu", 16_000, "16"),
    ("memory", Fraction(12888 * MI, 1), "12.6Gi"),
    ("nvidia.com/gpu", Fraction(7, 3), "2.33"),
    ("nvidia.com/gpu", 8, "8"),
    ("cpu", 0, "0"),
    ("cpu", None, "-"),
    ("cpu", UNLIMITED, "unlimited"),
])
def test_computed_figures_keep_three_significant_digits(resource: str, value: int | Fraction | None,
                                                        expected: str) -> None:
    assert human_figure(resource, value) == expected


@pytest.mark.parametrize("resource,value,expected", [
    ("cpu", UNLIMITED, "9.2P"),                     # a saturated request is huge, never "unlimited"
    ("cpu", 2_305_843_009_213_693_950, "2.3P"),     # not 2305843009213693.95
    ("cpu", 1500, "1.5"),
    ("cpu", 10**15 - 1, "999999999999.999"),        # below the threshold: exact
    ("memory", UNLIMITED, "8Ei"),
    ("memory", 12888 * MI, "12.6Gi"),
    ("pods", UNLIMITED, "9.2E"),
    ("nvidia.com/gpu", 8, "8"),
])
def test_requests_read_as_finite_amounts_in_human_units(resource: str, value: int, expected: str) -> None:
    assert human_request(resource, value) == expected


@pytest.mark.parametrize("resource,value,expected", [
    ("memory", 12888 * MI, "12888Mi"),              # what explain suggests is written back as is: never rounded
    ("memory", 4669 * GI, "4669Gi"),
    ("memory", 80 * GI, "80Gi"),
    ("memory", 200 * 10**9, "195312500Ki"),         # exact (Kueue's own spelling) when no short binary form is
    ("cpu", 1001, "1.001"),
    ("cpu", 500, "500m"),
    ("nvidia.com/gpu", 2, "2"),
])
def test_settable_amounts_are_exact_kubernetes_quantities(resource: str, value: int, expected: str) -> None:
    from kqctl.k8s.quantity import parse_quantity, resource_value

    assert settable(resource, value) == expected
    assert resource_value(resource, parse_quantity(expected)) == value  # round trip: what is shown is what is set
