"""YuniKorn conformance, resources/: quantity parsing (R1-R3) and the fair share of §7.1, value by value,
through the package API (single functions on fragments)."""

from __future__ import annotations

import pytest
import yaml
from yunikorn_conformance import DATA

from kqctl.yunikorn.api import resources as res

_QUANTITY = yaml.safe_load((DATA / "resources" / "parse-quantity.yaml").read_text())["cases"]
_VCORE = yaml.safe_load((DATA / "resources" / "parse-vcore.yaml").read_text())["cases"]
_FAIR = yaml.safe_load((DATA / "resources" / "fair-share.yaml").read_text())["cases"]


def _check(parse, case) -> None:  # type: ignore[no-untyped-def]
    if case["valid"]:
        assert parse(case["input"]) == case["value"]
    else:
        with pytest.raises(res.QuantityError) as raised:
            parse(case["input"])
        assert str(raised.value) == case["error"]


@pytest.mark.parametrize("case", _QUANTITY, ids=[c["case"] for c in _QUANTITY])
def test_r1_r2_parse_quantity(case) -> None:  # type: ignore[no-untyped-def]
    _check(res.parse_quantity, case)


@pytest.mark.parametrize("case", _VCORE, ids=[c["case"] for c in _VCORE])
def test_r3_parse_vcore(case) -> None:  # type: ignore[no-untyped-def]
    _check(res.parse_vcore, case)


@pytest.mark.parametrize("case", _FAIR, ids=[str(i) for i in range(len(_FAIR))])
def test_fair_share(case) -> None:  # type: ignore[no-untyped-def]
    assert res.fair_share(case["allocated"], case["guaranteed"], case["fair_max"]) == pytest.approx(
        case["expected_share"], abs=0.0)
