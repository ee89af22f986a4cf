"""How the two ConfigMaps combine (k8shim FlattenConfigMaps, Decompress, policyGroup) and where findings in an
embedded queues.yaml are reported."""

from __future__ import annotations

import base64
import gzip
import json

import pytest
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


def _config_maps(defaults: dict[str, str], configs: dict[str, str], binary: dict[str, str] | None = None) -> str:
    """Both YuniKorn ConfigMaps as one manifest (data values as JSON strings: YAML reads them alike)."""
    def one(name: str, data: dict[str, str], binary_data: dict[str, str] | None) -> str:
        text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: yunikorn}}\n"
        if data:
            text += "data:\n" + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in data.items())
        if binary_data:
            text += "binaryData:\n" + "".join(f"  {key}: {value}\n" for key, value in binary_data.items())
        return text
    return one("yunikorn-defaults", defaults, None) + "---\n" + one("yunikorn-configs", configs, binary)


BAD = GOOD + "        queues:\n          - name: a.b\n"
MERGED_CASES = [
    # (id, defaults' data, configs' data, configs' binaryData, validate exit, ConfigMap of the first error)
    ("policy-group-in-defaults-selects-the-key-of-configs", {"service.policyGroup": "batch"}, {"batch.yaml": BAD},
     None, 1, "yunikorn-configs"),
    ("invalid-defaults-key-replaced-by-a-valid-configs-key", {"queues.yaml": BAD}, {"queues.yaml": GOOD}, None, 0,
     None),
    ("invalid-defaults-key-used-when-configs-has-none", {"queues.yaml": BAD}, {"log.level": "info"}, None, 1,
     "yunikorn-defaults"),
    ("policy-group-in-configs-selects-the-key-of-defaults", {"batch.yaml": BAD}, {"service.policyGroup": "batch"},
     None, 1, "yunikorn-defaults"),
    ("gz-key-of-configs-replaces-data-key-of-defaults", {"service.policyGroup": "batch", "batch.yaml": GOOD},
     {}, {"batch.yaml.gz": _gz(BAD)}, 1, "yunikorn-configs"),
]


@pytest.mark.parametrize(("defaults", "configs", "binary", "code", "holder"),
                         [case[1:] for case in MERGED_CASES], ids=[case[0] for case in MERGED_CASES])
def test_yk_configmap_validate_checks_the_merged_configuration_as_the_webhook(
        tmp_path, defaults: dict[str, str], configs: dict[str, str], binary: dict[str, str] | None, code: int,
        holder: str | None) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "maps.yaml"
    path.write_text(_config_maps(defaults, configs, binary))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == code, run.out + run.err
    errors = [(d["name"], f) for d in json.loads(run.out)["documents"] for f in d["findings"]
              if f["severity"] == "error"]
    assert [name for name, _ in errors[:1]] == ([holder] if holder else [])
    if holder:
        assert errors[0][1]["ruleId"] == "YK-V7"
    # simulate reads the same merged configuration: it refuses exactly what validate rejects
    assert run_kqctl("simulate", str(path)).code == (3 if code else 0)


def test_yk_configmap_effective_source_names_the_key_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "maps.yaml"
    path.write_text(_config_maps({"service.policyGroup": "batch", "queues.yaml": BAD}, {},
                                 {"batch.yaml.gz": _gz(GOOD)}))
    run = run_kqctl("validate", str(path), "-o", "json")
    documents = json.loads(run.out)["documents"]
    assert run.code == 0, run.out
    assert {d["effective"]["source"] for d in documents} == {"batch.yaml.gz of ConfigMap yunikorn/yunikorn-configs"}


SYNTAX = GOOD + "        queues:\n          - name: a\n            resources: {max: {vcore: 2}\n"


@pytest.mark.parametrize("args", [(), ("--scheduler", "yunikorn")])
@pytest.mark.parametrize("in_config_map", [False, True])
def test_yk_parse_a_yaml_syntax_error_is_one_located_finding(tmp_path, args: tuple[str, ...],
                                                             in_config_map: bool) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "queues.yaml"
    if in_config_map:
        path.write_text(_config_maps({}, {"queues.yaml": SYNTAX}))
    else:
        path.write_text(SYNTAX)
    run = run_kqctl("validate", str(path), *args, "-o", "json")
    assert (run.code, run.err) == (1, "")
    [finding] = [f for d in json.loads(run.out)["documents"] for f in d["findings"]]
    assert finding["ruleId"] == "YK-PARSE" and finding["message"] == "yaml: line 8: did not find expected ',' or '}'"
    # the end of the text in a file of its own; a quoted (not literal) ConfigMap value: its key's line
    assert finding["line"] == (9 if in_config_map else 8)


def test_yk_parse_other_unreadable_yaml_stays_an_input_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x\n")
    run = run_kqctl("validate", str(path))
    assert run.code == 3 and "LOAD-UNREADABLE" in run.out


NOT_STRINGS = [
    # (id, the ConfigMap's data as written, the field path of the error, what it must be, its line)
    ("queue-configuration-as-a-mapping", "data:\n  queues.yaml:\n    partitions: [{name: default}]\n",
     "data[queues.yaml]", "string", 5),
    ("data-as-a-list", 'data: ["a"]\n', "data", "object", 4),
    ("an-integer-setting", "data: {log.level: 5}\n", "data[log.level]", "string", 4),
    ("binary-data-as-a-mapping", "binaryData:\n  queues.yaml.gz: {a: b}\n", "binaryData[queues.yaml.gz]", "string",
     5),
]


@pytest.mark.parametrize(("data", "path", "expected", "line"), [case[1:] for case in NOT_STRINGS],
                         ids=[case[0] for case in NOT_STRINGS])
@pytest.mark.parametrize("name", ["yunikorn-configs", "yunikorn-defaults"])
def test_configmap_data_that_is_not_map_string_string_is_refused_as_the_api_server_does(
        tmp_path, name: str, data: str, path: str, expected: str, line: int) -> None:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "cm.yaml"
    manifest.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: yunikorn}}\n{data}")
    run = run_kqctl("validate", str(manifest), "-o", "json")
    assert run.code == 1, run.out + run.err
    [error] = [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["severity"] == "error"]
    assert (error["ruleId"], error["line"]) == ("SCHEMA-TYPE", line)
    assert error["message"].startswith("Invalid value") and f"{path} in body must be of type {expected}" in \
        error["message"]
    # no second story about what YuniKorn would make of a value the server never stores
    assert not [f for d in json.loads(run.out)["documents"] for f in d["findings"] if f["ruleId"].startswith("YK-V")]
    refused = run_kqctl("simulate", str(manifest))
    assert refused.code == 3 and f"{manifest}:{line}" in refused.err and path in refused.err
    assert "Traceback" not in refused.err
