"""Cross-object checks (XO) read fields the schema may already have rejected: a wrong type in any
field must leave the schema finding as the answer, never crash the cross-object pass."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.validate.crossobject import cross_object_findings
from kqctl.load.objects import LoadedObject, load_paths
from tests.support import REPO

SAMPLES = sorted(p for p in (REPO / "samples").iterdir() if p.is_dir() and p.name != "broken")
WRONG_VALUES: tuple[Any, ...] = (["x"], {"a": "b"}, 7, None)


def field_paths(value: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from field_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from field_paths(item, (*prefix, index))


def replaced(body: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    copied = copy.deepcopy(body)
    parent: Any = copied
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return copied


def _objects(sample: Path) -> list[LoadedObject]:
    return load_paths(ALL_KINDS, [str(sample)], recursive=True).known_objects


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_cross_object_checks_survive_a_wrong_type_in_every_field(sample: Path) -> None:
    objects = _objects(sample)
    crashes: list[str] = []
    seen_kinds: set[str] = set()
    for position, obj in enumerate(objects):
        if obj.kind in seen_kinds:
            continue  # one object of each kind per sample: the others take the same code paths
        seen_kinds.add(obj.kind)
        for path in field_paths(obj.body):
            if len(path) < 2 or path[0] in ("apiVersion", "kind"):
                continue
            for value in WRONG_VALUES:
                mutated = dataclasses.replace(obj, body=replaced(obj.body, path, value), findings=[])
                world = [*objects[:position], mutated, *objects[position + 1:]]
                try:
                    cross_object_findings(world, closed=True)
                except Exception as exc:  # noqa: BLE001 - the point is that nothing escapes
                    crashes.append(f"{obj.describe()} {'.'.join(map(str, path))}={value!r}: {exc!r}")
    assert not crashes, "\n".join(crashes[:20])


def test_resource_group_without_flavors_is_no_crash_xo() -> None:
    text = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
            "spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n")
    from kqctl.load.objects import load_text
    objects = load_text(ALL_KINDS, text, "cq.yaml").known_objects
    assert isinstance(cross_object_findings(objects, closed=True), list)
