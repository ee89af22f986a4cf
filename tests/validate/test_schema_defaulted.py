"""DEF-1: schema_defaulted (validation's defaulting, which shares what no default changes) equals
apply_schema_defaults (a full copy) on every kind, with keys in the same order, and changes nothing in
its input."""

from __future__ import annotations

import copy

from fast_path_inputs import sample_objects, typed, variants

from kqctl.validate.schema import apply_schema_defaults, has_schema, schema_defaulted


def test_sharing_defaults_equal_copying_defaults_and_leave_the_input_alone() -> None:
    compared = changed = 0
    for original in sample_objects():
        api_version, kind = original.get("apiVersion"), original.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or not has_schema(api_version, kind):
            continue
        for body in variants(original, per_field=2):
            before = copy.deepcopy(body)
            shared = schema_defaulted(body, api_version, kind)
            assert typed(shared) == typed(apply_schema_defaults(body, api_version, kind)), body
            assert typed(body) == typed(before)
            compared += 1
            changed += shared is not body
    assert compared > 5000 and changed > compared // 10


def test_nothing_is_copied_when_no_default_applies() -> None:
    body = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q"},
            "spec": {"clusterQueue": "cq", "stopPolicy": "None"}}
    assert schema_defaulted(body, body["apiVersion"], body["kind"]) is body
    body["spec"]["stopPolicy"] = None  # a null where the CRD has a default: pruned, then defaulted
    defaulted = schema_defaulted(body, body["apiVersion"], body["kind"])
    assert defaulted["spec"] == {"clusterQueue": "cq", "stopPolicy": "None"}
    assert defaulted["metadata"] is body["metadata"]
