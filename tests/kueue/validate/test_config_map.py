"""Kueue's manager Configuration in the ConfigMap it is deployed in: recognised by content, checked as the bare file
is (VAL-CFG-*), each finding located at its line inside the ConfigMap's file (kqctl.kueue.validate.config_map)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.kueue import kinds
from kqctl.kueue.api.config import KueueConfig
from kqctl.kueue.validate import config_map
from kqctl.kueue.validate.profile import inspect
from kqctl.load.objects import LoadedObject, load_text

CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing:
  preemptionStrategies: [LessThanInitialShare]
"""


def config_map_text(value: str, name: str = "kueue-manager-config", style: str = "|") -> str:
    if style == "|":
        block = "".join(f"    {line}\n" if line else "\n" for line in value.splitlines())
        embedded = f"|\n{block}"
    else:
        embedded = json.dumps(value) + "\n"
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: kueue-system\ndata:\n"
            f"  controller_manager_config.yaml: {embedded}")


def config_map_body(value: Any, name: str = "kueue-manager-config") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": value}}


def load_one(text: str) -> LoadedObject:
    (obj,) = load_text(ALL_KINDS, text, "cm.yaml").objects
    return obj


def test_recognised_by_its_key_and_a_kueue_configuration_whatever_its_name() -> None:
    assert kinds.recognise(config_map_body(CONFIG)) is kinds.MANAGER_CONFIG_MAP
    assert kinds.recognise(config_map_body(CONFIG, name="anything")) is kinds.MANAGER_CONFIG_MAP
    # the group named with a wrong kind or version is still Kueue's (its problem is reported)
    assert kinds.recognise(config_map_body("apiVersion: config.kueue.x-k8s.io/v1alpha9\nkind: Config\n",
                                           name="x")) is kinds.MANAGER_CONFIG_MAP


@pytest.mark.parametrize("value", ["apiVersion: [unclosed\n", "", "just text", "- a list\n", "kind: Configuration\n"])
def test_an_unreadable_value_is_kueues_only_in_a_configmap_named_manager_config(value: str) -> None:
    assert kinds.recognise(config_map_body(value, name="kueue-manager-config")) is kinds.MANAGER_CONFIG_MAP
    assert kinds.recognise(config_map_body(value, name="my-release-manager-config")) is kinds.MANAGER_CONFIG_MAP
    assert kinds.recognise(config_map_body(value, name="settings")) is None


def test_other_configmaps_are_not_kueues() -> None:
    # kubebuilder scaffolds this very key for every operator: another group is another operator's
    jobset = "apiVersion: config.jobset.x-k8s.io/v1alpha1\nkind: Configuration\n"
    assert kinds.recognise(config_map_body(jobset, name="jobset-manager-config")) is None
    assert kinds.recognise({**config_map_body(CONFIG), "data": {"other.yaml": CONFIG}}) is None
    assert kinds.recognise({**config_map_body(CONFIG), "kind": "Secret"}) is None


def test_loaded_as_kueues_configmap() -> None:
    obj = load_one(config_map_text(CONFIG))
    assert obj.info == kinds.MANAGER_CONFIG_MAP and not obj.findings
    assert inspect(obj) == []
    assert KueueConfig.from_body(config_map.configuration(obj) or {}).preemption_strategies == (
        "LessThanInitialShare",)


def test_a_finding_is_located_at_its_line_inside_a_literal_block() -> None:
    text = config_map_text("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharin:\n"
                           "  enable: true\nresources:\n  quotaCheckStrategy: Bogus\n")
    lines = text.splitlines()
    (typo, strategy) = inspect(load_one(text))
    assert (typo.rule_id, typo.path) == ("VAL-CFG-1", ("data", "controller_manager_config.yaml", "fairSharin"))
    assert lines[typo.line - 1].strip() == "fairSharin:"  # type: ignore[operator]
    assert strategy.rule_id == "VAL-CFG-1"  # v1beta1 has no quotaCheckStrategy
    assert lines[strategy.line - 1].strip() == "quotaCheckStrategy: Bogus"  # type: ignore[operator]


def test_a_finding_of_kueues_validation_is_located_too() -> None:
    text = config_map_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
                           "  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n")
    (found,) = inspect(load_one(text))
    assert found.rule_id == "VAL-CFG-6" and found.path[:3] == ("data", "controller_manager_config.yaml",
                                                               "fairSharing")
    assert "preemptionStrategies" in text.splitlines()[found.line - 1]  # type: ignore[operator]


def test_a_quoted_value_is_located_at_its_key() -> None:
    text = config_map_text(CONFIG.replace("fairSharing:", "fairSharin:"), style='"')
    (typo,) = inspect(load_one(text))
    assert typo.rule_id == "VAL-CFG-1" and typo.line == 7  # the key's line: a quoted text's lines are not the file's


@pytest.mark.parametrize(("value", "said"), [
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: [a\n", "not YAML"),
    ("", "empty"),
    ("- a\n", "not a Configuration mapping"),
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Other\n", "kind is 'Other'"),
    ("apiVersion: config.kueue.x-k8s.io/v1alpha1\nkind: Configuration\n", "Kueue's manager reads"),
])
def test_val_cfg_18_a_value_the_manager_cannot_read(value: str, said: str) -> None:
    obj = load_one(config_map_text(value))
    found = inspect(obj)
    assert [f.rule_id for f in found] == ["VAL-CFG-18"], found
    assert said in found[0].message
    assert found[0].path[:2] == ("data", "controller_manager_config.yaml")
    assert config_map.configuration(obj) is None


def test_val_cfg_18_is_located_inside_the_block() -> None:
    text = config_map_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Other\n")
    (found,) = inspect(load_one(text))
    assert text.splitlines()[found.line - 1].strip() == "kind: Other"  # type: ignore[operator]


def test_a_duplicate_field_is_refused_as_the_strict_decoder_refuses_it() -> None:
    text = config_map_text(CONFIG + "fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare]\n")
    (found,) = inspect(load_one(text))
    assert found.rule_id == "SCHEMA-DUPLICATE-FIELD" and 'duplicate field "fairSharing"' in found.message
    assert text.splitlines()[found.line - 1].strip() == "fairSharing:"  # type: ignore[operator]
