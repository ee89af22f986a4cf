"""FS-1: which Kueue configurations turn fair sharing on (kqctl.kueue.api.config.KueueConfig)."""

from __future__ import annotations

from typing import Any

import pytest

from kqctl.kueue.api.config import KueueConfig


def config(version: str, fair_sharing: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": f"config.kueue.x-k8s.io/{version}", "kind": "Configuration"}
    if fair_sharing is not None:
        body["fairSharing"] = fair_sharing
    return body


@pytest.mark.parametrize(("version", "section", "enabled"), [
    ("v1beta2", None, False),
    ("v1beta2", {}, True),  # v1beta2: the section's presence enables it
    ("v1beta2", {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]}, True),
    ("v1beta1", None, False),
    ("v1beta1", {}, False),  # v1beta1: enable is a plain bool, false unless set
    ("v1beta1", {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]}, False),
    ("v1beta1", {"enable": True}, True),
    ("v1beta1", {"enable": False}, False),
])
def test_fs_1_fair_sharing_is_on_as_each_config_version_says(version: str, section: dict[str, Any] | None,
                                                            enabled: bool) -> None:
    assert KueueConfig.from_body(config(version, section)).fair_sharing is enabled
