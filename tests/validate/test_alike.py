"""Objects written alike are checked once (kqctl.validate.alike): the shared answer is the one each object's own
check gives, and nothing is shared where it could differ."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.k8s.core import namespace_of
from kqctl.kueue.load import WorkloadsAhead, _workload_model
from kqctl.load.objects import LoadedObject, load_paths, load_text
from kqctl.validate import alike
from kqctl.validate.gate import defaulted_fields
from kqctl.validate.runner import ObjectCheck, _checked, check_object, has_error

ROOT = Path(__file__).resolve().parents[2]

WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: NAME
  namespace: team-a
  uid: UID
  creationTimestamp: "TIME"
  labels: {app: train}
spec:
  queueName: main
  priority: 100
  podSets:
  - count: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 1Gi}}
"""
UID_A = "5ca260c9-eb76-47c9-b08a-4895d4ffa666"
UID_B = "1b19d8b8-d830-4081-afcc-57dd168fae12"


@pytest.fixture(autouse=True)
def _empty_memo() -> None:
    alike.forget()


def _workload(name: str = "job-a", uid: str = UID_A, time: str = "2026-01-01T00:00:00Z",
              text: str = WORKLOAD) -> LoadedObject:
    written = text.replace("NAME", name).replace("UID", uid).replace("TIME", time)
    [obj] = load_text(ALL_KINDS, written, f"{name}.yaml").objects
    return obj


def _same_as_own_check(obj: LoadedObject, check: ObjectCheck) -> None:
    own = _checked(obj, validation_profiles(None))
    assert (check.findings, check.status_ignored, check.unserved) == (own.findings, own.status_ignored, own.unserved)
    assert repr(check.stored) == repr(own.stored)
    assert list(defaulted_fields(obj.body, check.stored)) == list(defaulted_fields(obj.body, own.stored))


def test_a_workload_written_like_one_checked_before_gets_that_check_with_its_own_name_uid_and_time() -> None:
    profiles = validation_profiles(None)
    first = check_object(_workload(), profiles)
    second_obj = _workload("job-b", UID_B, "2026-01-02T03:04:05Z")
    second = check_object(second_obj, profiles)
    assert first.alike is not None and second.alike == first.alike
    assert second.stored["metadata"]["name"] == "job-b" and second.stored["metadata"]["uid"] == UID_B
    assert second.stored["metadata"]["creationTimestamp"] == "2026-01-02T03:04:05Z"
    assert second.stored["spec"]["podSets"][0]["name"] == "main"  # the webhook's default, shared
    assert second.stored["spec"]["podSets"][0]["template"] is second_obj.body["spec"]["podSets"][0]["template"]
    _same_as_own_check(second_obj, second)


@pytest.mark.parametrize(("name", "uid", "time"), [
    ("x" * 64, UID_B, "2026-01-02T00:00:00Z"),  # longer than a DNS label
    ("Job-B", UID_B, "2026-01-02T00:00:00Z"),  # not lowercase
    ("job.b", UID_B, "2026-01-02T00:00:00Z"),  # a subdomain, not a label
    ("job-b", UID_B.upper(), "2026-01-02T00:00:00Z"),  # not the canonical form of a UUID
    ("job-b", "not-a-uid", "2026-01-02T00:00:00Z"),
    ("job-b", UID_B, "2026-01-02T00:00:00+01:00"),  # not UTC
    ("job-b", UID_B, "2026-02-30T00:00:00Z"),  # no such day
    ("job-b", UID_B, "2026-01-02 00:00:00Z"),
    ("job-b", UID_B, "2026-01-02T00:00:00.1234567890Z"),  # more digits than a time keeps
])
def test_an_object_with_a_name_uid_or_time_outside_what_every_check_accepts_is_checked_itself(
        name: str, uid: str, time: str) -> None:
    profiles = validation_profiles(None)
    check_object(_workload(), profiles)
    obj = _workload(name, uid, time)
    assert alike.key_of(obj, profiles) is None
    check = check_object(obj, profiles)
    assert check.alike is None
    _same_as_own_check(obj, check)


def test_times_with_other_fractions_are_not_taken_as_written_alike() -> None:
    profiles = validation_profiles(None)
    keys = {alike.key_of(_workload(time=time), profiles)
            for time in ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.123Z")}
    assert len(keys) == 3


@pytest.mark.parametrize("change", [
    lambda body: body["spec"].__setitem__("priority", "100"),  # a string where an integer was
    lambda body: body["spec"].__setitem__("priority", 101),
    lambda body: body["metadata"]["labels"].__setitem__("app", "serve"),
    lambda body: body["metadata"].__setitem__("namespace", "team-b"),
    lambda body: body["spec"]["podSets"][0].__setitem__("count", True),
])
def test_any_other_difference_makes_another_key(change: Any) -> None:
    profiles = validation_profiles(None)
    obj = _workload()
    other = _workload("job-b", UID_B)
    change(other.body)
    assert alike.key_of(obj, profiles) != alike.key_of(other, profiles)


def test_a_check_with_findings_is_not_shared() -> None:
    profiles = validation_profiles(None)
    broken = WORKLOAD.replace("count: 2", "count: -2")
    first = check_object(_workload(text=broken), profiles)
    assert has_error(first.findings) and first.alike is None
    second_obj = _workload("job-b", UID_B, text=broken)
    assert alike.recall(alike.key_of(second_obj, profiles) or (), second_obj) is None
    _same_as_own_check(second_obj, check_object(second_obj, profiles))


def test_a_stored_body_that_holds_the_name_elsewhere_is_not_kept() -> None:
    profiles = validation_profiles(None)
    obj = _workload()
    stored = copy.deepcopy(obj.body)
    stored["spec"]["podSets"][0]["template"]["metadata"] = {"labels": {"job": "job-a"}}  # as a webhook copying it
    key = alike.key_of(obj, profiles)
    assert key is not None
    assert alike.keep(key, obj, profiles, stored) is None
    assert alike.recall(key, _workload("job-b", UID_B)) is None


def test_the_memo_is_not_shared_between_profiles() -> None:
    obj = _workload()
    profiles = validation_profiles(None)
    assert alike.key_of(obj, profiles) != alike.key_of(obj, profiles[:1])


def test_other_kinds_are_always_checked_themselves() -> None:
    [flavor] = load_text(ALL_KINDS, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                                    "metadata: {name: rf}\n", "rf.yaml").objects
    assert alike.key_of(flavor, validation_profiles(None)) is None


def test_a_workload_model_taken_from_one_written_alike_equals_its_own_decoding() -> None:
    profiles = validation_profiles(None)
    ahead = WorkloadsAhead()
    objects = [_workload(f"job-{i}", UID_A[:-1] + str(i), f"2026-01-01T00:00:0{i}Z") for i in range(3)]
    for obj in objects:
        check = check_object(obj, profiles)
        ahead.prepare(obj, check.stored, check.alike)
        model = ahead.take(obj, check.stored)
        assert model is None  # taken only for the object's own body, which the gate has not given it yet
        ahead.prepare(obj, check.stored, check.alike)
        obj.body = check.stored
        model = ahead.take(obj, check.stored)
        assert model is not None
        assert model == _workload_model(check.stored, obj, namespace_of(check.stored["metadata"], True))
        assert (model.name, model.uid, model.origin) == (obj.name, obj.body["metadata"]["uid"], obj.origin)


def _samples() -> list[LoadedObject]:
    loaded = load_paths(ALL_KINDS, [str(ROOT / "samples")], recursive=True, strict=False)
    return [obj for obj in loaded.objects if obj.known and not has_error(obj.findings)]


def test_every_sample_object_and_its_copy_under_another_name_get_their_own_checks_answer() -> None:
    """Every object of the samples (three schedulers), checked once and then again renamed, with another uid and
    time: each answer, shared or not, is the one its own check gives."""
    profiles = validation_profiles(None)
    shared = 0
    for obj in _samples():
        renamed = LoadedObject(obj.origin, obj.document, obj.prefix, copy.deepcopy(obj.body), obj.info)
        metadata = renamed.body.get("metadata")
        if isinstance(metadata, dict) and metadata.get("name"):
            metadata["name"] = f"{str(metadata['name'])[:50]}-copy"
            if "uid" in metadata:
                metadata["uid"] = UID_B
        for each in (obj, renamed):
            check = check_object(each, profiles)
            _same_as_own_check(each, check)
        shared += check.alike is not None
    assert shared > 20  # the samples' Workloads are shared
