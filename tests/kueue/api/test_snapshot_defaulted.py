"""DEF-1: Snapshot.defaulted names each object's spec fields the API server filled in, with the value it stores;
noted while the snapshot is built, worked out when first looked up."""

from __future__ import annotations

import pickle

import pytest

from kqctl.kueue.api.snapshot import DefaultedFields


def _noted() -> DefaultedFields:
    fields = DefaultedFields()
    fields.note("ClusterQueue", False, {"metadata": {"name": "team-a"},
                                        "spec": {"queueingStrategy": "BestEffortFIFO", "stopPolicy": "None"}},
                (("spec", "queueingStrategy"), ("spec", "stopPolicy")))
    fields.note("Workload", True, {"metadata": {"name": "w", "namespace": "ns"},
                                   "spec": {"podSets": [{"name": "main", "count": 1}], "active": True}},
                (("spec", "active"), ("spec", "podSets", 0, "count")))
    fields.note("Workload", True, {"metadata": {"name": "x"}, "spec": {"active": True}}, (("spec", "active"),))
    return fields


@pytest.mark.parametrize(("key", "expected"), [
    ("ClusterQueue/team-a", {"spec.queueingStrategy": "BestEffortFIFO", "spec.stopPolicy": "None"}),
    ("Workload/ns/w", {"spec.active": True, "spec.podSets[0].count": 1}),
    ("Workload/default/x", {"spec.active": True}),  # no namespace written: kubectl's default
])
def test_def1_defaulted_fields_by_object_with_the_stored_value(key: str, expected: dict[str, object]) -> None:
    assert _noted()[key] == expected


def test_def1_an_object_without_defaults_has_none() -> None:
    assert _noted().get("Workload/ns/other", {}) == {}
    assert len(_noted()) == 3


def test_def1_defaulted_fields_travel_to_other_processes_worked_out() -> None:
    fields = _noted()
    copy = pickle.loads(pickle.dumps(fields))
    assert copy == fields and dict(copy) == dict(fields)
    assert b"main" not in pickle.dumps(fields)  # the bodies stay behind (a pod set name): paths and values travel
