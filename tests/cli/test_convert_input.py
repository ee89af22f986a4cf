"""convert admits its input through the gate every command uses: what validate rejects is refused (exit 3, located,
in validate's words) instead of converted, never a crash and never exit 0; the version nobody serves any more is
the one thing convert cures, so a legacy object is converted when the v1beta2 object it becomes is valid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support import Run

from kqctl.errors import EXIT_INPUT
from kqctl.kueue.api.versions import convert

Kq = Callable[..., Run]

WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: lq
  priorityClassRef: REF
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""


@pytest.mark.parametrize("field", ["group", "kind"])
@pytest.mark.parametrize("value", ["{a: 1}", "[x]"])
@pytest.mark.parametrize("to", ["v1beta1", "v1beta2"])
def test_def3_decode_a_priority_class_ref_group_or_kind_of_the_wrong_type_is_refused(
        kqctl: Kq, write: Callable[..., str], field: str, value: str, to: str) -> None:
    ref = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "p", field: "VALUE"}
    text = "{" + ", ".join(f"{k}: {v}" for k, v in ref.items()).replace("VALUE", value) + "}"
    run = kqctl("convert", write("w.yaml", WORKLOAD.replace("REF", text)), "--to", to)
    assert run.code == EXIT_INPUT and run.out == ""
    assert f"spec.priorityClassRef.{field}: admission webhook \"mworkload.kb.io\" denied the request" in run.err


@pytest.mark.parametrize("value", [{"a": 1}, ["x"]])
def test_api2_conversion_reads_an_unhashable_reference_as_unknown_rather_than_crashing(value: Any) -> None:
    body = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w"},
            "spec": {"podSets": [], "priorityClassRef": {"group": value, "kind": "WorkloadPriorityClass"}}}
    assert [issue.rule_id for issue in convert(body, "v1beta1").issues] == ["CONV-DROPPED"]


@pytest.mark.parametrize("name,text,rule", [
    ("duplicate-keys", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a}\n"
                       "metadata: {name: b}\n", "SCHEMA-DUPLICATE-FIELD"),
    ("scalar-document", "--- 42\n", "LOAD-NOT-OBJECT"),
    ("yunikorn-rejects", "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n"
                         "          - name: a\n            resources: {guaranteed: {vcore: 10}, max: {vcore: 5}}\n",
     "YK-V10"),
])
@pytest.mark.parametrize("to", ["v1beta2", "kueue"])
def test_convert_refuses_what_validate_rejects(kqctl: Kq, write: Callable[..., str], name: str, text: str,
                                               rule: str, to: str) -> None:
    path = write(f"{name}.yaml", text)
    assert kqctl("validate", path).code == 1
    run = kqctl("convert", path, "--to", to)
    assert run.code == EXIT_INPUT and run.out == "" and f"({rule}" in run.err, run.err


def test_load_empty_input_is_an_error_for_convert_as_for_every_command(kqctl: Kq, write: Callable[..., str]) -> None:
    run = kqctl("convert", write("empty.yaml", ""))
    assert run.code == EXIT_INPUT and "no Kubernetes objects found" in run.err


def test_leg_version_a_legacy_object_is_converted_when_its_v1beta2_form_is_valid(kqctl: Kq) -> None:
    legacy = "samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml"
    assert kqctl("validate", legacy).code == 1  # LEG-VERSION: no API server serves v1alpha1
    run = kqctl("convert", legacy)
    assert run.code == 0 and "apiVersion: kueue.x-k8s.io/v1beta2" in run.out


@pytest.mark.parametrize(("typed", "hint"), [("kueu", "did you mean kueue? "), ("v1beta3", "did you mean v1beta2? "),
                                             ("volcano", "")])
def test_convert_to_an_unknown_target_is_a_usage_error_with_the_close_one(kqctl: Kq, typed: str, hint: str) -> None:
    run = kqctl("convert", "samples/yunikorn-multi-tenant", "--to", typed)
    assert run.code == 2
    assert f"cannot convert to '{typed}'; {hint}supported targets: v1beta2, v1beta1, kueue" in run.err, run.err


@pytest.mark.parametrize(("sample", "product"), [("samples/volcano-two-teams", "Volcano"),
                                                 ("samples/yunikorn-priority", "YuniKorn")])
def test_convert_to_a_kueue_version_says_another_schedulers_input_is_printed_unchanged(kqctl: Kq, sample: str,
                                                                                        product: str) -> None:
    run = kqctl("convert", sample)
    assert run.code == 0 and "kind: Node" in run.out  # as documented: other objects are printed unchanged
    assert (f"kqctl: note: the input holds {product} objects and no Kueue object: nothing to convert to v1beta2, so "
            "every object is printed unchanged; --to kueue converts the queues to Kueue's") in run.err, run.err


def test_convert_of_kueue_input_has_no_note_about_other_schedulers(kqctl: Kq) -> None:
    assert "no Kueue object" not in kqctl("convert", "samples/legacy-v1alpha1").err
