"""Volcano conformance: queue-webhook cases (TestAdmitQueues, TestAdmitHierarchicalQueues) through kqctl validate.

Each case is one admission request (CREATE, UPDATE or DELETE) against the queues the webhook's informer holds.
It becomes a kqctl diff: ``--against OLD`` holds the existing queues (and the queue a DELETE removes), the
inputs hold the queues after the request, ``--prune`` turns a missing queue into a DELETE, and the case's webhook
flags become ``--webhook-flag``s. The verdict on the request's queue is compared: allowed means no error finding,
refused means an error finding with exactly the expected message.

Two translations of the Go test objects into API requests, both as the API server would receive them:
* fields Go leaves empty are absent (the Queue type's json tags are ``omitempty``): ``parent: ''`` is dropped;
* a CREATE never carries status to the webhook: the API server drops a new queue's status before validating
  admission runs (``customResourceStrategy.PrepareForCreate`` inside ``rest.BeforeCreate``, then
  ``createValidation``). A case whose CREATE carries status is checked twice: against kqctl's webhook function
  with the object as the unit test hands it over, and through kqctl validate for what a real cluster answers
  (the state is ignored; the CRD's enum finding is information).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import REPO, run_kqctl

from kqctl.volcano.validate.queue_webhook import Lister, QueueView, WebhookFlags, admit

CASES = sorted((REPO / "tests" / "conformance" / "data" / "volcano" / "queue-webhook").glob("*.yaml"))


def _case(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def _as_sent(queue: dict[str, Any]) -> dict[str, Any]:
    """The Go object as JSON: empty omitempty strings are absent."""
    spec = dict(queue.get("spec") or {})
    if spec.get("parent") == "":
        del spec["parent"]
    return {**queue, "spec": spec}


def _named(queues: list[dict[str, Any]], name: str) -> bool:
    return any(q["metadata"]["name"] == name for q in queues)


def _states(case: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """(old state, new state, the request's queue) for a case."""
    request = case["request"]
    old = [_as_sent(q) for q in case["existing_queues"]]
    if request["operation"] == "DELETE":
        name = request["name"]
        if not _named(old, name):  # a DELETE removes a queue that exists
            old.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name}})
        return old, [q for q in old if q["metadata"]["name"] != name], name
    obj = _as_sent(request["object"])
    name = obj["metadata"]["name"]
    if request["operation"] == "UPDATE":
        if not _named(old, name):
            old.append(_as_sent(request["oldObject"]))
        return old, [obj if q["metadata"]["name"] == name else q for q in old], name
    return old, [*old, obj], name


def _flags(case: dict[str, Any]) -> list[str]:
    flags = case["webhook_flags"]
    return [f"--webhook-flag={name}={str(value).lower()}" for name, value in sorted(flags.items())]


def _validate(case: dict[str, Any], tmp_path: Path) -> list[dict[str, Any]]:
    """The findings on the request's queue from ``kqctl validate NEW --against OLD --prune -o json``."""
    old, new, name = _states(case)
    old_file, new_file = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old_file.write_text(yaml.safe_dump_all(old) if old else "", encoding="utf-8")
    new_file.write_text(yaml.safe_dump_all(new) if new else "", encoding="utf-8")
    run = run_kqctl("validate", str(new_file), "--against", str(old_file), "--prune", *_flags(case), "-o", "json")
    assert run.code in (0, 1), run.err
    report = json.loads(run.out)
    return [f for doc in report["documents"] if doc["kind"] == "Queue" and doc["name"] == name
            for f in doc["findings"]]


def _creates_with_status(case: dict[str, Any]) -> bool:
    request = case["request"]
    return request["operation"] == "CREATE" and bool(request["object"].get("status"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_queue_webhook_case_through_kqctl_validate(path: Path, tmp_path: Path) -> None:
    case = _case(path)
    findings = _validate(case, tmp_path)
    errors = [f for f in findings if f["severity"] == "error"]
    expected = case["expected"]
    if _creates_with_status(case):
        # The API server drops the new queue's status before the webhook sees it: nothing refuses it.
        assert not errors, errors
        assert any(f["severity"] == "info" and f["field"].startswith("status") for f in findings), findings
        return
    if expected["allowed"]:
        assert not errors, errors
    else:
        assert expected["message"] in [f["message"] for f in errors], errors


@pytest.mark.parametrize("path", [p for p in CASES if _creates_with_status(_case(p))],
                         ids=lambda p: p.stem)
def test_queue_webhook_case_with_status_against_the_webhook_function(path: Path) -> None:
    """The object exactly as the upstream unit test hands it to AdmitQueues (status included)."""
    case = _case(path)
    flags = case["webhook_flags"]
    lister = Lister(QueueView.of(_as_sent(q)) for q in case["existing_queues"])
    denial = admit("CREATE", QueueView.of(_as_sent(case["request"]["object"])), None, lister,
                   WebhookFlags(flags["max-queue-depth"], flags["enable-queue-allocated-pods-check"],
                                flags["enable-root-queue-protection"]))
    expected = case["expected"]
    assert (denial is None) == expected["allowed"]
    assert denial is not None and denial.message == expected["message"]


def test_every_case_is_collected() -> None:
    assert len(CASES) == 16
