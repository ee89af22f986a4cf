"""YuniKorn's resource arithmetic saturates at int64 as ``addVal``/``subVal`` do (spec §3): the inlined
``add``, ``sub_only_existing`` and ``add_only_existing`` must give what the per-value functions give."""

from __future__ import annotations

import pytest

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import MAX_INT64, MIN_INT64

CASES = [
    ({"vcore": 1, "memory": 2}, {"vcore": 3, "pods": 1}),
    ({"vcore": MAX_INT64}, {"vcore": 1}),
    ({"vcore": MIN_INT64}, {"vcore": -1}),
    ({"vcore": MAX_INT64 - 1, "memory": MIN_INT64 + 1}, {"vcore": 5, "memory": -5}),
    ({"vcore": -5}, {"vcore": MAX_INT64}),
    ({"vcore": 7}, {}),
    ({}, {"vcore": 7}),
]


def _reference_add(left: dict[str, int], right: dict[str, int]) -> dict[str, int]:
    out = dict(left)
    for name, value in right.items():
        out[name] = res.add_val(out.get(name, 0), value)
    return out


@pytest.mark.parametrize(("left", "right"), CASES)
def test_resources_add_saturates_at_int64(left: dict[str, int], right: dict[str, int]) -> None:
    assert res.add(left, right) == _reference_add(left, right)
    assert res.add(None, right) == _reference_add({}, right)
    assert res.add(left, None) == left


@pytest.mark.parametrize(("base", "delta"), CASES)
def test_resources_only_existing_saturates_at_int64(base: dict[str, int], delta: dict[str, int]) -> None:
    assert res.sub_only_existing(base, delta) == {n: res.sub_val(v, delta.get(n, 0)) for n, v in base.items()}
    assert res.add_only_existing(base, delta) == {n: res.add_val(v, delta.get(n, 0)) for n, v in base.items()}
    assert res.sub_only_existing(None, delta) is None and res.sub_only_existing(base, None) == base


def test_resources_saturated_values_are_the_bounds() -> None:
    assert res.add({"vcore": MAX_INT64}, {"vcore": MAX_INT64}) == {"vcore": MAX_INT64}
    assert res.sub_only_existing({"vcore": MIN_INT64}, {"vcore": 1}) == {"vcore": MIN_INT64}
    assert res.add_only_existing({"vcore": MAX_INT64}, {"vcore": 1}) == {"vcore": MAX_INT64}
