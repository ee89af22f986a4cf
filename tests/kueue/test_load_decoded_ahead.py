"""The Kueue snapshot takes the Workload models decoded by the processes that read a large input's files
(validation profile hook ``decode_ahead``), and only while they are models of the body the gate stored: the
snapshot is the one a single process builds, whichever process decoded what."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from support import REPO

import kqctl.validate.parallel as parallel
from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.load import build_snapshot
from kqctl.load.objects import LoadedObject, expand_paths, load_paths
from kqctl.validate.gate import Checks, admit

# Every Kueue sample with Workloads; the v1beta1 one with another file, so that it is read by two processes.
SAMPLES = ["cohort-borrowing", "preemption", "spot-gpu", "single-clusterqueue", "replay", "fair-sharing",
           "legacy-v1alpha1/kueue-v1beta1.yaml+single-clusterqueue/cluster.yaml"]


def _files(sample: str) -> list[str]:
    return expand_paths([str(REPO / "samples" / part) for part in sample.split("+")], recursive=True)


def _snapshot_one_process(files: list[str]) -> Snapshot:
    profiles = validation_profiles(None)
    return build_snapshot(admit(load_paths(ALL_KINDS, files), profiles).result, as_given=False)


def _read_on_two(files: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[LoadedObject], Snapshot]:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)  # every input is worth a second process here
    profiles = validation_profiles(None)
    checks = Checks(profiles)
    result = parallel.read_checked(ALL_KINDS, files, False, checks, [], jobs=2)
    admitted = admit(result, profiles, checks=checks).result
    return admitted.objects, build_snapshot(admitted, as_given=False)


def _comparable(snapshot: Snapshot) -> dict[str, Any]:
    return {field.name: getattr(snapshot, field.name) for field in dataclasses.fields(snapshot)}


@pytest.mark.parametrize("sample", SAMPLES)
def test_workloads_decoded_by_the_readers_make_the_snapshot_one_process_makes(
        sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _files(sample)
    if len(files) < 2:
        pytest.skip("one file is read by one process")
    objects, two = _read_on_two(files, monkeypatch)
    assert _comparable(two) == _comparable(_snapshot_one_process(files))
    ahead = [obj.decoded[1] for obj in objects if obj.decoded is not None]
    if any(obj.kind == "Workload" and obj.api_version.endswith("/v1beta2") for obj in objects):
        assert ahead, "no Workload was decoded where its file was read"
    taken = {id(model) for model in two.workloads}
    assert all(id(model) in taken for model in ahead)  # the snapshot took the readers' models, not new ones


def test_a_model_decoded_ahead_is_not_taken_for_another_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """An object whose body changed since it was read (a --set, a status the gate drops) is decoded anew."""
    objects, _ = _read_on_two(_files("preemption"), monkeypatch)
    workload = next(obj for obj in objects if obj.decoded is not None)
    changed = {**workload.body, "spec": {**workload.body["spec"], "priority": 12345}}
    edited = dataclasses.replace(workload, body=changed)
    snapshot = build_snapshot(dataclasses.replace(_result_of(objects), objects=[
        edited if obj is workload else obj for obj in objects]), as_given=False)
    model = next(m for m in snapshot.workloads if m.name == workload.name and m.namespace == workload.namespace)
    assert model.priority == 12345 and model is not workload.decoded[1]  # type: ignore[index]


def _result_of(objects: list[LoadedObject]) -> Any:
    from kqctl.load.objects import LoadResult

    return LoadResult(objects, [], [])


def test_only_the_kueue_profile_decodes_ahead_and_only_workloads(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n")
    (tmp_path / "b.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team}\n"
        "spec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n"
        "        containers:\n        - name: c\n          resources: {requests: {cpu: '1'}}\n")
    objects, snapshot = _read_on_two([str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")], monkeypatch)
    assert [obj.kind for obj in objects if obj.decoded is not None] == ["Workload"]
    assert snapshot.workloads[0] is objects[1].decoded[1]  # type: ignore[index]
