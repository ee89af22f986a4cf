"""Volcano's resource vector (api/resource_info.go): units, the 0.1 tolerance, and the comparisons the gates use."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kqctl.volcano.api.resource import (
    INFINITE,
    Resource,
    diff,
    exceeded_part,
    exceeding_requested_dims,
    format_vector,
    greater_on_relevant_dims,
    intersection,
    less_equal,
    less_equal_partly_zero_filtered,
    less_equal_with_names,
    less_partly,
    maximum,
    resource_list,
    share,
)


def r(cpu: int = 0, memory: int = 0, **scalars: int | Fraction | float) -> Resource:
    return Resource(cpu, memory, {k.replace("_", "/"): v for k, v in scalars.items()})


@pytest.mark.parametrize("raw,expected", [
    ({"cpu": "1.5"}, {"cpu": 1500}),
    ({"memory": "1Gi"}, {"memory": 1024**3}),
    ({"pods": "10"}, {"pods": 10}),  # whole units
    ({"nvidia.com/gpu": "2"}, {"nvidia.com/gpu": 2000}),  # scalars in milli-units
    ({"ephemeral-storage": "1Ki"}, {"ephemeral-storage": 1024_000}),
    ({"hugepages-2Mi": "2Mi"}, {"hugepages-2Mi": 2 * 1024**2 * 1000}),
    ({"count/pods": "3", "requests.cpu": "1", "storage": "1Gi"}, {}),  # ignored names
])
def test_new_resource_units(raw: dict[str, str], expected: dict[str, int]) -> None:
    assert resource_list(raw) == expected


def test_a_bad_quantity_names_the_resource() -> None:
    with pytest.raises(ValueError, match="^cpu: "):
        resource_list({"cpu": "one"})


def test_less_equal_tolerates_a_tenth_and_reads_missing_scalars_by_default() -> None:
    assert less_equal(r(cpu=Fraction(1001, 1000) + 1000 - 1), r(cpu=1000), "zero")
    assert not less_equal(r(cpu=1001), r(cpu=1000), "zero")
    assert not less_equal(r(gpu=1000), r(), "zero")  # missing on the right is 0
    assert less_equal(r(nvidia_gpu=1000), r(), "infinity")  # ... or unlimited
    assert not less_equal(r(), r(nvidia_gpu=1), "infinity")  # a scalar only the right has


def test_exceeding_requested_dims_compares_only_what_the_request_asks_and_never_pods() -> None:
    allocated_plus = r(cpu=2000, memory=3 * 10**9, pods=2)
    capability = r(cpu=2000, memory=2 * 10**9, pods=1)
    assert exceeding_requested_dims(allocated_plus, capability, r(cpu=1000, pods=1)) == []
    assert exceeding_requested_dims(allocated_plus, capability, r(cpu=1000, memory=1, pods=1)) == ["memory"]


def test_less_equal_with_names_lists_every_failing_dimension() -> None:
    assert less_equal_with_names(r(cpu=3, memory=3), r(cpu=2, memory=2), "zero") == ["cpu", "memory"]


def test_less_partly_missing_scalar_on_the_left_counts_zero() -> None:
    assert less_partly(r(), r(gpu=1), "zero")
    assert not less_partly(r(cpu=2), r(cpu=1), "zero")


def test_diff_and_exceeded_part() -> None:
    increased, decreased = diff(r(cpu=5, memory=1), r(cpu=2, memory=4))
    assert (increased.cpu, increased.memory, decreased.memory) == (3, 0, 3)
    assert exceeded_part(r(cpu=5, pods=3), r(cpu=7, pods=1)).as_dict() == {"pods": 2}


def test_maximum_drops_negative_scalars() -> None:
    assert maximum(r(cpu=1, gpu=-1), r(cpu=2)).as_dict() == {"cpu": 2}


def test_share() -> None:
    assert share(0, 0) == 0 and share(1, 0) == 1 and share(3, 2) == Fraction(3, 2) and share(5, INFINITE) == 0


def test_zero_filtered_and_relevant_dimensions() -> None:
    # Dimensions where both sides are below 0.1 are ignored.
    assert less_equal_partly_zero_filtered(r(cpu=0), r(cpu=0), r(cpu=1)) == []
    assert less_equal_partly_zero_filtered(r(cpu=3), r(cpu=4), r(cpu=1, memory=1)) == ["cpu"]
    # A scalar of deserved counts when present, even at 0; cpu and memory only from 0.1.
    assert greater_on_relevant_dims(r(gpu=1), r(gpu=0), r(gpu=1)) == ["gpu"]
    assert greater_on_relevant_dims(r(cpu=5), r(cpu=0), r(cpu=1)) == []


def test_intersection_uses_dimensions_of_a_tenth_or_more() -> None:
    assert intersection(r(cpu=1, memory=0), r(cpu=2, memory=5)) == ["cpu"]


def test_format_vector_is_volcanos_string() -> None:
    assert format_vector(r(cpu=9000, memory=19327352832)) == "cpu 9000.00, memory 19327352832.00"
    assert format_vector(r(cpu=1, pods=2, b=Fraction(1, 3))) == "cpu 1.00, memory 0.00, b 0.33, pods 2.00"
    assert format_vector(Resource.infinite()) == "cpu maxFloat, memory maxFloat"
