"""DEF-3: the compiled codec for objects that decode cleanly gives exactly what the general codec gives
(same object, same key order, same types); anything else is left to the general codec, so decode
errors and their wording are its own."""

from __future__ import annotations

from typing import Any

import pytest
from fast_path_inputs import sample_objects, typed, variants

from kqctl.kueue.validate.webhook_defaults import (
    _decode_and_encode,
    _Irregular,
    apply_mutating_webhooks,
    decode_and_encode,
)
from kqctl.validate.schema import apply_schema_defaults

MUTATED = ("ClusterQueue", "ResourceFlavor", "Workload")


def _mutated_objects() -> list[dict[str, Any]]:
    found = []
    for body in sample_objects():
        if body.get("kind") in MUTATED and str(body.get("apiVersion")) == "kueue.x-k8s.io/v1beta2":
            found.append(apply_schema_defaults(body, body["apiVersion"], body["kind"]))
    return found


OBJECTS = _mutated_objects()


def test_the_samples_hold_every_kind_with_a_mutating_webhook() -> None:
    assert {body["kind"] for body in OBJECTS} == set(MUTATED)


def test_fast_codec_equals_the_general_codec_on_every_variant() -> None:
    compared = fast = 0
    for original in OBJECTS:
        for body in variants(original, per_field=3):
            kind = body.get("kind")
            if not isinstance(kind, str) or kind not in MUTATED:
                continue
            got = decode_and_encode(body, kind)
            expected = _decode_and_encode(body, kind)
            assert typed(got[0]) == typed(expected[0]) and got[1] == expected[1], body
            compared += 1
            fast += not expected[1]
    assert compared > 1000 and fast > compared // 5  # many variants, and many decode cleanly


def test_an_irregular_value_goes_to_the_general_codec() -> None:
    from kqctl.kueue.validate.webhook_defaults import _encode_regular

    body = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "spec": {"podSets": [{"count": "3"}]}}
    with pytest.raises(_Irregular):
        _encode_regular(body, dict(body), "Workload")
    _, findings = apply_mutating_webhooks(body)
    assert [f.rule_id for f in findings] == ["DEF-3-DECODE"]
    assert "cannot unmarshal string into Go struct field PodSet.spec.podSets.count of type int32" in findings[0].message
