"""How the two ConfigMaps combine (k8shim FlattenConfigMaps, Decompress, policyGroup) and where findings in an
embedded queues.yaml are reported."""

from __future__ import annotations

import base64
import gzip
import json

from support import run_kqctl

from kqctl.yunikorn.api.configmap import flatten

GOOD = "partitions:\n  - name: default\n    queues:\n      - name: root\n"


def _gz(text: str) -> str:
    return base64.b64encode(gzip.compress(text.encode())).decode()


def test_configs_wins_key_by_key_and_binary_data_after_data() -> None:
    defaults = {"metadata": {"name": "yunikorn-defaults"}, "data": {"queues.yaml": "a", "log.level": "info"}}
    configs = {"metadata": {"name": "yunikorn-configs"}, "data": {"queues.yaml": "b"},
               "binaryData": {"queues.yaml.gz": _gz("c")}}
    merged = flatten([defaults, configs])
    assert merged.entries["queues.yaml"].text == "c"
    assert merged.entries["log.level"].text == "info"


def test_policy_group_chooses_the_key() -> None:
    merged = flatten([{"metadata": {"name": "yunikorn-configs"},
                       "data": {"service.policyGroup": "batch", "batch.yaml": GOOD, "queues.yaml": "x"}}])
    entry = merged.queue_config()
    assert entry is not None and entry.key == "batch.yaml"


def test_binary_data_without_gz_is_emptied_and_renamed_as_the_shim_does() -> None:
    merged = flatten([{"metadata": {"name": "yunikorn-configs"}, "binaryData": {"queues.yaml": _gz(GOOD)}}])
    assert merged.entries["queues"].text == "" and merged.problems


def test_findings_in_a_literal_block_point_at_the_configmap_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yunikorn-configs\n  namespace: yunikorn\n"
                "data:\n  queues.yaml: |\n    partitions:\n      - name: default\n        queues:\n"
                "          - name: root\n            queues:\n              - name: bad.name\n")
    path = tmp_path / "cm.yaml"
    path.write_text(manifest)
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 1
    [finding] = json.loads(run.out)["documents"][0]["findings"]
    assert finding["ruleId"] == "YK-V7" and finding["line"] == 13
    assert finding["field"] == "data[queues.yaml].partitions[0].queues[0].queues[0].name"


def test_gzipped_binary_data_is_validated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    broken = GOOD.replace("- name: root\n", "- name: root\n        resources: {max: {vcore: 1}}\n")
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yunikorn-configs\n"
                f"binaryData:\n  queues.yaml.gz: {_gz(broken)}\n")
    path = tmp_path / "cm.yaml"
    path.write_text(manifest)
    report = json.loads(run_kqctl("validate", str(path), "-o", "json").out)["documents"][0]
    assert report["effective"]["validateConf"] == {"allowed": False,
                                                   "reason": "root queue must not have resource limits set"}
