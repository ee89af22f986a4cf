"""Workloads decoded while the inputs are still read (kqctl.kueue.load.WorkloadsAhead): the snapshot takes a model
decoded ahead only for the very object and body it was decoded from, so the snapshot is the one it builds itself."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.errors import InputError
from kqctl.kueue.load import WorkloadsAhead, build_snapshot
from kqctl.load.objects import LoadedObject, load_paths, load_text
from kqctl.validate.gate import Checks, admit

WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: team-a}
spec:
  queueName: lq
  priority: PRIORITY
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
"""
FLAVOR = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"


def _object(text: str) -> LoadedObject:
    (obj,) = load_text(ALL_KINDS, text, "in.yaml").objects
    return obj


def _kueue_samples() -> list[str]:
    return sorted(str(p) for p in (REPO / "samples").iterdir()
                  if p.is_dir() and not p.name.startswith(("volcano", "yunikorn")) and p.name != "broken")


@pytest.mark.parametrize("sample", _kueue_samples())
def test_a_snapshot_with_workloads_decoded_while_reading_is_the_one_built_after(
        sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read on two processes, each Workload decoded by this one as its file comes in: the snapshot takes every
    model decoded ahead and equals the snapshot of the same inputs read and decoded after the gate."""
    import kqctl.validate.parallel as parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)  # every input is worth a second process here
    profiles = validation_profiles(None)
    names = sorted(str(p) for p in Path(sample).rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    ahead = WorkloadsAhead()
    taken = _counting_takes(ahead, monkeypatch)
    checks = Checks(profiles)
    read = parallel.read_checked(ALL_KINDS, names, False, checks, [], jobs=2, prepare=ahead.prepare)
    try:
        plain = build_snapshot(admit(load_paths(ALL_KINDS, names), profiles).result, as_given=False)
    except InputError as refused:  # the gate refuses the sample (legacy versions): so it does either way
        with pytest.raises(InputError, match=re.escape(str(refused))):
            build_snapshot(admit(read, profiles, checks=checks).result, as_given=False, ahead=ahead)
        return
    with_ahead = build_snapshot(admit(read, profiles, checks=checks).result, as_given=False, ahead=ahead)
    assert with_ahead.workloads == plain.workloads
    assert [w.origin for w in with_ahead.workloads] == [w.origin for w in plain.workloads]
    if any(obj.kind == "Workload" and obj.api_version.endswith("/v1beta2") and "status" not in obj.body
           for obj in read.objects):
        assert any(taken)  # at least the plain v1beta2 Workloads came decoded


def _replaced_body(obj: LoadedObject) -> None:
    obj.body = copy.deepcopy(obj.body)


@pytest.mark.parametrize(("case", "taken"), [
    ("the object and body decoded", True),
    ("another body since (an edit, a status the gate drops)", False),
    ("another object with the same body (a --set's copy)", False),
])
def test_a_model_decoded_ahead_is_taken_only_for_its_own_object_and_body(case: str, taken: bool) -> None:
    obj = _object(WORKLOAD.replace("PRIORITY", "5"))
    ahead = WorkloadsAhead()
    ahead.prepare(obj, obj.body)
    asked = obj
    if case.startswith("another body"):
        _replaced_body(obj)
    elif case.startswith("another object"):
        asked = dataclasses.replace(obj)
    model = ahead.take(asked, asked.body)
    assert (model is not None) is taken
    if model is not None:
        assert model.name == "w" and model.namespace == "team-a" and model.priority == 5
        assert ahead.take(asked, asked.body) is None  # taken once


@pytest.mark.parametrize("text", [
    FLAVOR,  # not a Workload: nothing to decode ahead
    WORKLOAD.replace("PRIORITY", '"high"'),  # does not decode: build_snapshot reports it as before
    WORKLOAD.replace("v1beta2", "v1beta1").replace("PRIORITY", "5"),  # another version: converted at build
], ids=["not-a-workload", "undecodable", "v1beta1"])
def test_nothing_is_decoded_ahead_where_the_snapshot_must_decide(text: str) -> None:
    obj = _object(text)
    ahead = WorkloadsAhead()
    ahead.prepare(obj, obj.body)
    assert ahead.take(obj, obj.body) is None


def test_a_workload_without_namespace_is_decoded_ahead_into_default_as_after() -> None:
    obj = _object(WORKLOAD.replace("PRIORITY", "1").replace(", namespace: team-a", ""))
    ahead = WorkloadsAhead()
    ahead.prepare(obj, obj.body)
    model = ahead.take(obj, obj.body)
    assert model is not None and model.namespace == "default"
    snapshot = build_snapshot(admit(load_text(ALL_KINDS, WORKLOAD.replace("PRIORITY", "1").replace(
        ", namespace: team-a", ""), "in.yaml"), validation_profiles(None)).result, as_given=False)
    assert snapshot.workloads[0].namespace == "default"


@pytest.mark.parametrize("sample", _kueue_samples())
def test_the_gate_prepares_the_workloads_it_checks_itself_and_the_snapshot_is_the_one_built_after(
        sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One file, or a small input, is read and checked in the command's process: the gate then hands each Workload
    it admits to ``prepare`` with its check, and the snapshot taking those models equals the one decoded after."""
    profiles = validation_profiles(None)
    names = sorted(str(p) for p in Path(sample).rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    try:
        plain = build_snapshot(admit(load_paths(ALL_KINDS, names), profiles).result, as_given=False)
    except InputError:
        return  # the gate refuses the sample (legacy versions): nothing is decoded either way
    ahead = WorkloadsAhead()
    taken = _counting_takes(ahead, monkeypatch)
    read = load_paths(ALL_KINDS, names)
    with_ahead = build_snapshot(admit(read, profiles, prepare=ahead.prepare).result, as_given=False, ahead=ahead)
    assert with_ahead.workloads == plain.workloads
    assert [w.__dict__ for w in with_ahead.workloads] == [w.__dict__ for w in plain.workloads]
    if any(obj.kind == "Workload" and obj.api_version.endswith("/v1beta2") and "status" not in obj.body
           for obj in read.objects):
        assert any(taken)  # at least the plain v1beta2 Workloads came decoded


UID = "0b1a7c2e-5d4f-4e3a-9b8c-7d6e5f4a3b2"  # and a last digit: canonical UUIDs (kqctl.validate.alike)


def test_workloads_written_alike_in_one_file_share_a_decoding_and_each_keeps_its_name_uid_time_and_origin() -> None:
    """Written alike but for name, uid and creation time (kqctl.validate.alike): the later ones are the first one's
    model with their own three fields and origin, every field as a decoding of their own body gives it."""
    written = "---\n".join(
        WORKLOAD.replace("PRIORITY", "7").replace("{name: w,", f"{{name: w{i}, uid: {UID}{i},")
        .replace("namespace: team-a}", f'namespace: team-a, creationTimestamp: "2026-01-0{i + 1}T00:00:0{i}Z"}}')
        for i in range(3))
    profiles = validation_profiles(None)
    ahead = WorkloadsAhead()
    decoded: list[str] = []
    prepare = ahead.prepare

    def counting(obj: LoadedObject, stored: dict[str, Any], alike: bytes | None = None) -> None:
        decoded.append(obj.name if alike is not None else "")
        prepare(obj, stored, alike)

    prepared = admit(load_text(ALL_KINDS, written, "in.yaml"), profiles, prepare=counting).result
    assert decoded == ["w0", "w1", "w2"]  # each checked in the gate, each with the digest it shares
    shared = build_snapshot(prepared, as_given=False, ahead=ahead).workloads
    own = build_snapshot(admit(load_text(ALL_KINDS, written, "in.yaml"), profiles).result, as_given=False).workloads
    assert [w.__dict__ for w in shared] == [w.__dict__ for w in own]
    assert [(w.name, w.uid, w.creation_timestamp.day if w.creation_timestamp else None) for w in shared] == [
        ("w0", f"{UID}0", 1), ("w1", f"{UID}1", 2), ("w2", f"{UID}2", 3)]
    assert shared[1].pod_sets is shared[0].pod_sets  # taken from the first one's model, not decoded again


def _counting_takes(ahead: WorkloadsAhead, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each model the snapshot asks ``ahead`` for, from now on: whether it came decoded (True) or not."""
    taken: list[bool] = []
    original_take = ahead.take

    def take(obj: LoadedObject, body: dict[str, Any]) -> Any:
        model = original_take(obj, body)
        taken.append(model is not None)
        return model

    monkeypatch.setattr(ahead, "take", take)
    return taken
