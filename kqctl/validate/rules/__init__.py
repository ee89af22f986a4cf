"""Rules the API server itself enforces: object metadata for every kind, and the core kinds' own rules.

Each rule is a small function ``(object dict) -> Iterable[Finding]`` named after its rule ID. A
scheduler's webhook rules live in its own package (``kqctl/kueue/validate/rules``) and run through
:func:`run_rules` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kqctl.findings import Finding
from kqctl.k8s.kinds import KindInfo
from kqctl.validate.fields import Rule
from kqctl.validate.rules import batchjob, node, podspec, priorityclass
from kqctl.validate.rules.metadata import metadata_rules_for

# The API server's own validation of core kinds beyond metadata (its registry strategies).
_CORE_RULES: dict[tuple[str, str], tuple[Rule, ...]] = {
    ("scheduling.k8s.io", "PriorityClass"): priorityclass.RULES,
    ("batch", "Job"): batchjob.RULES + podspec.JOB_RULES,
    ("", "Pod"): podspec.POD_RULES,
    ("", "Node"): node.RULES,
}


def run_metadata_rules(info: KindInfo, body: Mapping[str, Any]) -> list[Finding]:
    """The API server's metadata checks (they belong with the schema step of DEF-3)."""
    return run_rules(metadata_rules_for(info), body)


def run_core_rules(group: str, kind: str, body: Mapping[str, Any]) -> list[Finding]:
    """The API server's own rules for a core kind; nothing for other kinds."""
    return run_rules(_CORE_RULES.get((group, kind), ()), body)


def run_rules(rules: tuple[Rule, ...], body: Mapping[str, Any]) -> list[Finding]:
    """Findings of ``rules`` with exact repeats dropped, as Kubernetes' error aggregate does."""
    if not rules:
        return []
    results: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for rule in rules:
        for found in rule(body):
            key = (found.rule_id, found.path, found.message)
            if key not in seen:
                seen.add(key)
                results.append(found)
    return results


__all__ = ["Rule", "metadata_rules_for", "run_core_rules", "run_metadata_rules", "run_rules"]
