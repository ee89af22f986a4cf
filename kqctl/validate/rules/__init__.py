"""Per-kind rules enforced by the API server's metadata checks and Kueue's validating webhooks.

Each rule is a small function ``(object dict) -> Iterable[Finding]`` named after its spec ID.
The objects are v1beta2 (batch/v1 for Jobs) and already defaulted (DEF-1, DEF-3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kqctl.validate.findings import Finding, Severity
from kqctl.validate.rules import clusterqueue, cohort, job, priorityclass, resourceflavor, workload
from kqctl.validate.rules._common import Rule
from kqctl.validate.rules.metadata import metadata_rules_for

# LocalQueue and WorkloadPriorityClass have no validating webhook (§2.6, §2.7): only the
# schema, CEL and metadata apply to them.
_KIND_RULES: dict[str, tuple[Rule, ...]] = {
    "ClusterQueue": clusterqueue.RULES,
    "Cohort": cohort.RULES,
    "ResourceFlavor": resourceflavor.RULES,
    "Workload": workload.RULES,
    "Job": job.RULES,
    "PriorityClass": priorityclass.RULES,
}


def webhook_rules_for(kind: str) -> tuple[Rule, ...]:
    """Metadata rules first (the API server checks them before any webhook), then the kind's own."""
    return metadata_rules_for(kind) + _KIND_RULES.get(kind, ())


def run_metadata_rules(kind: str, body: Mapping[str, Any]) -> list[Finding]:
    """Only the API server's metadata checks (they belong with the schema step of DEF-3)."""
    return _run(metadata_rules_for(kind), body)


def run_webhook_rules(kind: str, body: Mapping[str, Any], *, include_metadata: bool = True) -> list[Finding]:
    """Metadata findings, then the kind's webhook findings.

    The webhook part is skipped when the metadata has an error: the API server rejects the
    object in ``BeforeCreate`` and never calls the validating webhooks. A caller that already ran
    :func:`run_metadata_rules` with the schema step passes ``include_metadata=False``.
    """
    results = run_metadata_rules(kind, body) if include_metadata else []
    if any(f.severity is Severity.ERROR for f in results):
        return results
    return results + _run(_KIND_RULES.get(kind, ()), body)


def _run(rules: tuple[Rule, ...], body: Mapping[str, Any]) -> list[Finding]:
    """Findings of ``rules`` with exact repeats dropped, as Kubernetes' error aggregate does."""
    results: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for rule in rules:
        for found in rule(body):
            key = (found.rule_id, found.path, found.message)
            if key not in seen:
                seen.add(key)
                results.append(found)
    return results


__all__ = ["Rule", "metadata_rules_for", "run_metadata_rules", "run_webhook_rules", "webhook_rules_for"]
