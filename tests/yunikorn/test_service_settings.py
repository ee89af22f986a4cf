"""YK-CONFIGMAP-SETTING: a typed setting of the ConfigMaps the shim cannot parse (k8shim ``parseConfig``: Go's
parsers, no trimming) fails the shim's whole configuration; validate warns at the key that wins, names the default
kqctl then uses, and the replay's interval is that default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support import run_kqctl
from yunikorn_build import snapshot

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.load import build_snapshot


def _maps(defaults: dict[str, str], configs: dict[str, str]) -> str:
    return yaml.safe_dump_all([
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "yunikorn"}, "data": data}
        for name, data in (("yunikorn-defaults", defaults), ("yunikorn-configs", configs)) if data])


CASES = [
    # (id, yunikorn-defaults' data, yunikorn-configs' data, (ConfigMap, key) warned or None, the default named)
    ("interval-not-a-duration", {}, {"service.schedulingInterval": "abc"}, ("yunikorn-configs",
                                                                             "service.schedulingInterval"), "1s"),
    ("interval-without-a-unit", {}, {"service.schedulingInterval": "10"}, ("yunikorn-configs",
                                                                            "service.schedulingInterval"), "1s"),
    ("interval-with-blanks-go-does-not-trim", {}, {"service.schedulingInterval": " 2s"},
     ("yunikorn-configs", "service.schedulingInterval"), "1s"),
    ("interval-that-parses", {}, {"service.schedulingInterval": "1m30s"}, None, ""),
    ("boolean-yes", {"service.disableGangScheduling": "yes"}, {"log.level": "info"},
     ("yunikorn-defaults", "service.disableGangScheduling"), "false"),
    ("boolean-go-spelling", {}, {"admissionController.filtering.generateUniqueAppId": "True"}, None, ""),
    ("int32-overflow", {}, {"service.eventChannelCapacity": "99999999999"},
     ("yunikorn-configs", "service.eventChannelCapacity"), "1048576"),
    ("int-as-float", {}, {"kubernetes.qps": "1000.0"}, ("yunikorn-configs", "kubernetes.qps"), "1000"),
    ("bad-default-replaced-key-by-key", {"service.schedulingInterval": "abc"}, {"service.schedulingInterval": "2s"},
     None, ""),
    ("untyped-settings-are-not-checked", {}, {"service.clusterId": "anything at all", "log.level": "x"}, None, ""),
]


@pytest.mark.parametrize(("defaults", "configs", "warned", "default"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_yk_configmap_setting_the_shim_cannot_parse_is_a_located_warning(
        tmp_path: Path, defaults: dict[str, str], configs: dict[str, str], warned: tuple[str, str] | None,
        default: str) -> None:
    path = tmp_path / "maps.yaml"
    path.write_text(_maps(defaults, configs))
    run = run_kqctl("validate", str(path), "-o", "json")
    assert run.code == 0, run.out + run.err
    found = [(d["name"], f) for d in json.loads(run.out)["documents"] for f in d["findings"]
             if f["ruleId"] == "YK-CONFIGMAP-SETTING"]
    if warned is None:
        assert found == []
        return
    [(name, finding)] = found
    assert (name, finding["field"], finding["severity"]) == (warned[0], f"data[{warned[1]}]", "warning")
    assert finding["line"] is not None
    assert "the shim refuses the whole configuration" in finding["message"]
    assert finding["message"].endswith(f"kqctl uses the default, {default}")


@pytest.mark.parametrize(("value", "interval"), [("abc", 1000), (" 2s", 1000), ("2s", 2000), ("250ms", 250),
                                                 ("0s", 1)])
def test_yk_r2_an_interval_the_shim_refuses_is_the_default_in_the_replay(value: str, interval: int) -> None:
    text = _maps({}, {"service.schedulingInterval": value, "queues.yaml": "partitions: [{name: default}]\n"})
    assert build_snapshot(load_text(ALL_KINDS, text, "maps.yaml")).scheduling_interval == interval


def test_gang_scheduling_setting_the_shim_refuses_keeps_the_default() -> None:
    assert snapshot(None).gang_disabled is False
