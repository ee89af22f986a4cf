"""From documents to objects: Lists, kinds, duplicates, sources."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.errors import InputError
from kqctl.load.objects import load_paths, load_text
from kqctl.load.sources import expand_paths, read_source

CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: {name}
spec: {{}}
"""


def rule_ids(obj: object) -> list[str]:
    return [f.rule_id for f in obj.findings]  # type: ignore[attr-defined]


def test_kubectl_list_is_expanded_into_located_items() -> None:
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n" \
           "- apiVersion: v1\n  kind: Namespace\n  metadata: {name: b}\n"
    objects = load_text(ALL_KINDS, text, "list.yaml").objects
    assert [o.name for o in objects] == ["a", "b"]
    assert [(o.origin.index, o.origin.item, o.origin.line) for o in objects] == [(0, 0, 4), (0, 1, 7)]


def test_typed_list_from_kubectl_get_is_expanded() -> None:
    text = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueueList\nitems:\n- " + \
           CQ.format(name="x").replace("\n", "\n  ").rstrip() + "\n"
    objects = load_text(ALL_KINDS, text).objects
    assert [o.kind for o in objects] == ["ClusterQueue"]


def test_duplicate_object_names_both_places() -> None:
    objects = load_text(ALL_KINDS, CQ.format(name="a") + "---\n" + CQ.format(name="a"), "d.yaml").objects
    assert rule_ids(objects[0]) == []
    assert rule_ids(objects[1]) == ["LOAD-DUPLICATE"]
    assert "d.yaml:1" in objects[1].findings[0].message and "d.yaml:7" in objects[1].findings[0].message


def test_same_name_in_different_namespaces_is_not_a_duplicate() -> None:
    lq = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: q, namespace: {ns}}}\n"
    objects = load_text(ALL_KINDS, lq.format(ns="a") + "---\n" + lq.format(ns="b")).objects
    assert all(not o.findings for o in objects)


def test_unknown_kind_is_skipped_with_a_warning_or_an_error_when_strict() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    assert load_text(ALL_KINDS, text).objects[0].findings[0].severity.value == "warning"
    assert load_text(ALL_KINDS, text, strict=True).objects[0].findings[0].severity.value == "error"


def test_document_that_is_not_a_mapping_is_an_error() -> None:
    obj = load_text(ALL_KINDS, "- 1\n- 2\n").objects[0]
    assert rule_ids(obj) == ["LOAD-NOT-OBJECT"]


def test_missing_kind_is_an_error() -> None:
    assert rule_ids(load_text(ALL_KINDS, "apiVersion: v1\nmetadata: {name: x}\n").objects[0]) == ["LOAD-NO-KIND"]


def test_unserved_version_is_an_error() -> None:
    obj = load_text(ALL_KINDS, "apiVersion: kueue.x-k8s.io/v2\nkind: ClusterQueue\nmetadata: {name: x}\n").objects[0]
    assert rule_ids(obj) == ["LOAD-VERSION"]


def test_legacy_queue_kind_is_known_leg1() -> None:
    text = "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Queue\nmetadata: {name: q, namespace: n}\n"
    obj = load_text(ALL_KINDS, text).objects[0]
    assert obj.known and not obj.findings


def test_namespaced_object_without_namespace_lands_in_default() -> None:
    obj = load_text(ALL_KINDS, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\n").objects[0]
    assert obj.namespace == "default"


def test_directory_is_read_in_name_order_and_recursively_only_with_R(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(CQ.format(name="b"))
    (tmp_path / "a.yml").write_text(CQ.format(name="a"))
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_text('{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}}')
    assert [Path(p).name for p in expand_paths([str(tmp_path)])] == ["a.yml", "b.yaml"]
    assert [Path(p).name for p in expand_paths([str(tmp_path)], recursive=True)] == ["a.yml", "b.yaml", "c.json"]


def test_missing_path_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no such file"):
        expand_paths(["/nonexistent/x.yaml"])


def test_stdin_is_read_with_dash() -> None:
    result = load_paths(ALL_KINDS, ["-"], stdin=io.BytesIO(CQ.format(name="s").encode()))
    assert [(o.origin.file, o.name) for o in result.objects] == [("<stdin>", "s")]


def test_oversized_input_is_rejected(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * 100)
    with pytest.raises(InputError, match="larger than"):
        read_source(str(big), limit=100)


def test_unreadable_file_does_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(CQ.format(name="g"))
    (tmp_path / "bad.yaml").write_text("a: [\n")
    result = load_paths(ALL_KINDS, [str(tmp_path)])
    assert [o.name for o in result.objects] == ["g"]
    assert [Path(e.file).name for e in result.unreadable] == ["bad.yaml"]
