"""Human units in tables: exact where short, one decimal otherwise; never raw bytes or milli-bytes."""

from __future__ import annotations

import pytest

from kqctl.k8s.quantity import UNLIMITED
from kqctl.render.units import human

GI = 1024**3


@pytest.mark.parametrize("resource,value,expected", [
    ("memory", 80 * GI, "80Gi"),
    ("memory", 12888 * 1024**2, "12888Mi"),        # exact in Mi beats a rounded 12.6Gi
    ("memory", 3294, "3.2Ki"),                      # never "3294" bytes nor "3294m"
    ("memory", 13_207_024_435, "12.3Gi"),
    ("memory", 512, "512"),
    ("memory", 2**70, "1024Ei"),
    ("memory", -(8 * GI), "-8Gi"),
    ("ephemeral-storage", 100 * GI, "100Gi"),
    ("hugepages-2Mi", 4 * 1024**2, "4Mi"),
    ("cpu", 500, "500m"),
    ("cpu", 2000, "2"),
    ("cpu", 2500, "2.5"),
    ("cpu", 1250, "1.25"),
    ("nvidia.com/gpu", 8, "8"),
    ("pods", 0, "0"),
    ("memory", None, "-"),
    ("memory", UNLIMITED, "unlimited"),
])
def test_human_units(resource: str, value: int | None, expected: str) -> None:
    assert human(resource, value) == expected


@pytest.mark.parametrize("resource,value,expected", [
    ("cpu", UNLIMITED, "9.2P"),                     # a saturated request is huge, never "unlimited"
    ("cpu", 2_305_843_009_213_693_950, "2.3P"),     # not 2305843009213693.95
    ("cpu", 1500, "1.5"),
    ("cpu", 10**15 - 1, "999999999999.999"),        # below the threshold: exact
    ("memory", UNLIMITED, "8Ei"),
    ("pods", UNLIMITED, "9.2E"),
    ("nvidia.com/gpu", 8, "8"),
])
def test_requests_read_as_finite_amounts_in_human_units(resource: str, value: int, expected: str) -> None:
    from kqctl.render.units import human_request

    assert human_request(resource, value) == expected
