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
    taken: list[bool] = []
    original_take = ahead.take

    def take(obj: LoadedObject, body: dict[str, Any]) -> Any:
        model = original_take(obj, body)
        taken.append(model is not None)
        return model

    monkeypatch.setattr(ahead, "take", take)
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
