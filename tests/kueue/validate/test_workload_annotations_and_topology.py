"""Workload rules of Kueue's webhook on annotations (VAL-WL-15) and topology requests (VAL-WL-16), and
the CRD's own constraints on topology requests, one case per rule."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue.validate.profile import PROFILE
from kqctl.load.objects import load_text
from kqctl.validate.runner import validate_load

WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: ns
spec:
  queueName: q
  podSets:
  - name: main
    count: 4
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: x
          resources: {requests: {cpu: "1"}}
"""


def _findings(annotations: dict[str, str] | None = None,
              topology: dict[str, Any] | None = None) -> list[tuple[str, str, str]]:
    body = yaml.safe_load(WORKLOAD)
    if annotations is not None:
        body["metadata"]["annotations"] = annotations
    if topology is not None:
        body["spec"]["podSets"][0]["topologyRequest"] = topology
    report = validate_load(load_text(ALL_KINDS, yaml.safe_dump(body), "w.yaml"), (PROFILE,))
    return [(f.rule_id, f.field, f.message) for doc in report.documents for f in doc.findings
            if f.severity.value == "error"]


GATE = "kueue.x-k8s.io/admission-gated-by"


@pytest.mark.parametrize("value,expected", [
    ("example.com/gate", None),
    ("example.com/a, example.com/b", None),
    ("example.com/a,,example.com/b", "cannot contain empty gate names"),
    ("example.com/a,example.com/a", "duplicate gate name: example.com/a"),
    ("gate", 'must be a domain-prefixed path (such as "acme.io/foo")'),
    ("Example_Com/gate", "a lowercase RFC 1123 subdomain"),
    ("example.com/" + "g" * 60, "Too long: may not be more than 63 bytes"),
])
def test_admission_gated_by_annotation_val_wl_15(value: str, expected: str | None) -> None:
    found = [m for rule, _, m in _findings({GATE: value}) if rule == "VAL-WL-15"]
    if expected is None:
        assert found == []
    else:
        assert found and expected in found[0], found


@pytest.mark.parametrize("topology,rule,field,expected", [
    ({"required": "rack", "podSetSliceRequiredTopology": "block", "podSetSliceSize": 2}, None, None, None),
    ({"required": "rack", "podSetSliceRequiredTopology": "block"}, "VAL-WL-16",
     "spec.podSets[0].topologyRequest.podSetSliceSize", "must be set when podSetSliceRequiredTopology is specified"),
    ({"required": "rack", "podSetSliceSize": 2}, "VAL-WL-16", "spec.podSets[0].topologyRequest.podSetSliceSize",
     "may not be set when podSetSliceRequiredTopology is not specified"),
    ({"required": "rack", "podSetSliceRequiredTopology": "block", "podSetSliceSize": 0}, "SCHEMA-RANGE",
     "spec.podSets[0].topologyRequest.podSetSliceSize", "greater than or equal to 1"),
    ({"required": "r" * 64}, "SCHEMA-LENGTH", "spec.podSets[0].topologyRequest.required", "63"),
    ({"subGroupCount": -1}, "SCHEMA-RANGE", "spec.podSets[0].topologyRequest.subGroupCount",
     "greater than or equal to 0"),
    ({"podsetSliceRequiredTopologyConstraints": [{"topology": "a", "size": 1}] * 4}, "SCHEMA-ITEMS",
     "spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints", "3"),
    # DEF-3: Kueue's Workload webhook sends no patch (its Default() changes nothing), so the 0 reaches the schema.
    ({"podsetSliceRequiredTopologyConstraints": [{"topology": "a", "size": 0}]}, "SCHEMA-RANGE",
     "spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[0].size", "greater than or equal to 1"),
    ({"podSetGroupName": "g" * 257}, "SCHEMA-LENGTH", "spec.podSets[0].topologyRequest.podSetGroupName", "256"),
    ({"unknownKey": "x"}, "SCHEMA-UNKNOWN-FIELD", "spec.podSets[0].topologyRequest.unknownKey", "unknown field"),
])
def test_topology_request_rules(topology: dict[str, Any], rule: str | None, field: str | None,
                                expected: str | None) -> None:
    found = _findings(topology=topology)
    if rule is None:
        assert found == []
    else:
        assert any(r == rule and f == field and expected in m for r, f, m in found), found
