"""REQ-6: trimmed Workloads carry their pod sets' requests, remembered per resource shape; the
remembered answer is always spec_requests' own, for plain and odd pod specs alike."""

from __future__ import annotations

from fast_path_inputs import sample_objects, variants

from kqctl.k8s.pods import spec_requests
from kqctl.kueue.validate.crossobject import _requests_key, _requests_of


def _pod_specs() -> list[dict[str, object]]:
    specs = []
    for body in sample_objects():
        if body.get("kind") != "Workload" or not isinstance(body.get("spec"), dict):
            continue
        for pod_set in body["spec"].get("podSets") or []:
            template = pod_set.get("template") if isinstance(pod_set, dict) else None
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                specs.append(template["spec"])
    return specs


def test_remembered_requests_are_spec_requests_for_every_variant() -> None:
    remembered = 0
    for original in _pod_specs():
        for spec in variants(original, per_field=2):
            expected = spec_requests(spec)
            assert _requests_of(spec) == expected and _requests_of(spec) == expected, spec
            remembered += _requests_key(spec) is not None
    assert remembered > 100


def test_odd_values_are_never_remembered() -> None:
    assert _requests_key({"containers": [{"resources": {"requests": {"cpu": 1}}}]}) is None  # a number
    assert _requests_key({"containers": [{"resources": {"requests": {"cpu": True}}}]}) is None
    assert _requests_key({"containers": {"name": "c"}}) is None
    assert _requests_key({"containers": [{"resources": {"requests": {"cpu": "1"}}}]}) is not None
