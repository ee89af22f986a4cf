"""The one gate (kqctl.validate.gate): validate's checks and verdict for every command, the objects as stored."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.errors import InputError
from kqctl.load.objects import LoadResult, load_text
from kqctl.load.overrides import apply_overrides, parse_override
from kqctl.validate.gate import admit, defaulted_fields

CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "NOMINAL"}]
"""


def _loaded(text: str) -> LoadResult:
    return load_text(ALL_KINDS, text, "in.yaml")


def test_an_admitted_object_is_as_the_api_server_stores_it() -> None:
    [obj] = admit(_loaded(CQ.replace("NOMINAL", "4")), validation_profiles(None)).result.objects
    assert obj.body["spec"]["queueingStrategy"] == "BestEffortFIFO"  # DEF-1: the CRD default
    assert obj.body["metadata"]["finalizers"] == ["kueue.x-k8s.io/resource-in-use"]  # DEF-3: the webhook's
    assert ("spec", "queueingStrategy") in obj.defaulted and obj.stored


def test_a_refusal_is_validates_finding_located_at_its_field() -> None:
    with pytest.raises(InputError) as refused:
        admit(_loaded(CQ.replace("NOMINAL", "-4")), validation_profiles(None))
    assert refused.value.line == 10 and refused.value.file == "in.yaml"
    assert "ClusterQueue cq: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota:" in str(refused.value)
    assert "kqctl validate shows every problem" in str(refused.value)


def test_as_given_keeps_the_objects_as_written() -> None:
    [obj] = admit(_loaded(CQ.replace("NOMINAL", "-4")), validation_profiles(None), as_given=True).result.objects
    assert "queueingStrategy" not in obj.body["spec"] and not obj.stored


def test_a_stored_object_is_not_checked_again_until_a_set_changes_it() -> None:
    loaded = _loaded(CQ.replace("NOMINAL", "4"))
    for obj in loaded.objects:
        obj.stored = True  # as read from a cluster
    assert admit(loaded, validation_profiles(None)).result.objects[0].body == loaded.objects[0].body
    edited = apply_overrides(loaded.objects, [parse_override("clusterqueue/cq.flavor.default.cpu.nominalQuota=-1")])
    assert not edited[0].stored
    with pytest.raises(InputError, match="the value comes from --set"):
        admit(LoadResult(edited, []), validation_profiles(None))


def test_an_unreadable_input_is_refused_first() -> None:
    unreadable = InputError("broken.yaml", "cannot parse")
    with pytest.raises(InputError, match="cannot parse"):
        admit(LoadResult([], [unreadable]), validation_profiles(None))


@pytest.mark.parametrize("written,stored,expected", [
    ({"spec": {}}, {"spec": {"a": 1}}, [("spec", "a")]),
    ({"spec": {"a": None}}, {"spec": {"a": 1}}, [("spec", "a")]),
    ({"spec": {"p": {}}}, {"spec": {"p": {"x": "Never", "y": "Never"}}}, [("spec", "p", "x"), ("spec", "p", "y")]),
    ({"spec": {"l": [{}, {"k": 1}]}}, {"spec": {"l": [{"k": 0}, {"k": 1}]}}, [("spec", "l", 0, "k")]),
    ({"spec": {"a": 1}}, {"spec": {"a": "1"}}, []),  # a value re-encoded is not a default
])
def test_defaulted_fields_name_the_topmost_field_filled_in(written: Any, stored: Any, expected: list[Any]) -> None:
    assert list(defaulted_fields(written, stored)) == expected


def test_the_cross_object_refusals_are_the_errors_of_the_whole_cross_object_checks() -> None:
    # The gate runs only the part of each scheduler's checks across objects that can refuse: on every sample, the
    # errors of the whole checks are exactly those of that part (never a refusal left out for speed).
    from support import REPO

    from kqctl.findings import Severity
    from kqctl.load.objects import load_paths

    for sample in sorted(p for p in (REPO / "samples").iterdir() if p.is_dir()):
        known = load_paths(ALL_KINDS, [str(sample)], recursive=True).known_objects
        for profile in validation_profiles(None):
            errors = {(id(o), f) for o, f in profile.cross_object(known, False) if f.severity is Severity.ERROR}
            if profile.cross_object_refusals is not None:
                part = {(id(o), f) for o, f in profile.cross_object_refusals(known) if f.severity is Severity.ERROR}
                assert part == errors, (sample.name, profile.scheduler)


def _admitted_both_ways(tmp_path: Any, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The gate's answer on ``files`` read in one process and read on two (the checks made by the readers):
    (objects as admitted, or the refusal's text) each way."""
    import kqctl.validate.parallel as parallel
    from kqctl.load.objects import load_paths
    from kqctl.validate.gate import Checks

    names = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        names.append(str(tmp_path / name))
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)  # every input is worth a second process here
    answers = []
    for two in (False, True):
        profiles = validation_profiles(None)
        checks = Checks(profiles) if two else None
        result = parallel.read_checked(ALL_KINDS, names, False, checks, [], jobs=2) if checks is not None \
            else load_paths(ALL_KINDS, names)
        if checks is not None and not result.unreadable:
            assert any(checks.of(obj) is not None for obj in result.objects)  # made ahead, by the readers
        try:
            admitted = admit(result, profiles, checks=checks).result
            answers.append([(o.origin, o.body, o.defaulted, o.stored, o.findings) for o in admitted.objects])
        except InputError as exc:
            answers.append(str(exc))
    return answers


def test_checks_made_by_the_processes_reading_the_files_admit_exactly_what_one_process_admits(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate takes each object's check from the process that read its file (a large input is read on every
    core): the objects come out as one process would store them, CRD and webhook defaults and all."""
    files = {"a.yaml": CQ.replace("NOMINAL", "4"),
             "b.yaml": "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n",
             "c.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n---\nkind: Unknown\n"
                       "apiVersion: example.com/v1\nmetadata: {name: x}\n"}
    one, two = _admitted_both_ways(tmp_path, files, monkeypatch)
    assert isinstance(one, list) and one == two
    assert one[0][1]["spec"]["queueingStrategy"] == "BestEffortFIFO"


@pytest.mark.parametrize("files", [
    {"a.yaml": CQ.replace("NOMINAL", "-4"), "b.yaml": CQ.replace("NOMINAL", "4").replace("name: cq", "name: ok")},
    {"a.yaml": CQ.replace("NOMINAL", "4"), "b.yaml": CQ.replace("NOMINAL", "5")},  # a duplicate, refused first
    {"a.yaml": CQ.replace("NOMINAL", "4"), "b.yaml": "a: [unclosed\n"},  # unreadable
], ids=["schema", "duplicate", "unreadable"])
def test_checks_made_by_the_readers_refuse_with_the_words_and_place_of_one_process(
        tmp_path: Any, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = _admitted_both_ways(tmp_path, files, monkeypatch)
    assert isinstance(one, str) and one == two


@pytest.mark.parametrize(("text", "asked"), [
    ("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n", False),
    ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\nspec: {weight: 1}\n", True),
], ids=["none-of-its-kinds", "one-of-its-kinds"])
def test_the_gate_asks_a_schedulers_cross_object_checks_only_when_one_of_their_kinds_is_there(
        text: str, asked: bool) -> None:
    """As validate's parallel merge: kinds are counted once, and a scheduler none of whose kinds is in the input is
    not asked (its checks find nothing there)."""
    import dataclasses

    from kqctl.validate.profile import ValidationProfile

    calls: list[int] = []

    def refusals(objects: Any) -> list[Any]:
        calls.append(len(objects))
        return []

    profile = dataclasses.replace(next(p for p in validation_profiles(None) if p.scheduler == "volcano"),
                                  cross_object_refusals=refusals)
    assert isinstance(profile, ValidationProfile) and "Queue" in (profile.cross_object_needs or ())
    admit(_loaded(text), (profile,))
    assert bool(calls) is asked
