"""Kueue's validating-webhook rules, per kind (§2 of Kueue's semantics; ``pkg/webhooks``).

Each rule is a small function ``(object dict) -> Iterable[Finding]`` named after its rule ID. The
objects are v1beta2 (batch/v1 for Jobs) and already defaulted (DEF-1, DEF-3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kqctl.findings import Finding, Severity
from kqctl.k8s.kinds import CORE_KINDS, KindInfo
from kqctl.kueue.kinds import GROUP, KINDS
from kqctl.kueue.validate.rules import clusterqueue, cohort, job, resourceflavor, workload
from kqctl.validate.fields import Rule
from kqctl.validate.rules import metadata_rules_for, run_core_rules, run_metadata_rules, run_rules

# LocalQueue and WorkloadPriorityClass have no validating webhook (§2.6, §2.7): only the
# schema, CEL and metadata apply to them.
WEBHOOK_RULES: dict[tuple[str, str], tuple[Rule, ...]] = {
    (GROUP, "ClusterQueue"): clusterqueue.RULES,
    (GROUP, "Cohort"): cohort.RULES,
    (GROUP, "ResourceFlavor"): resourceflavor.RULES,
    (GROUP, "Workload"): workload.RULES,
    ("batch", "Job"): job.RULES,  # Kueue's webhook for batch/v1 Jobs
}

_INFO: dict[str, KindInfo] = {info.kind: info for info in (*CORE_KINDS, *KINDS)}


def webhook_rules_for(group: str, kind: str) -> tuple[Rule, ...]:
    return WEBHOOK_RULES.get((group, kind), ())


def run_webhook_rules(kind: str, body: Mapping[str, Any], *, include_metadata: bool = True) -> list[Finding]:
    """Metadata findings, then the kind's webhook findings (a kind named as Kueue or a core kind).

    The webhook part is skipped when the metadata has an error: the API server rejects the
    object in ``BeforeCreate`` and never calls the validating webhooks.
    """
    info = _INFO.get(kind)
    results = run_metadata_rules(info, body) if include_metadata and info is not None else []
    if any(f.severity is Severity.ERROR for f in results):
        return results
    group = info.group if info is not None else GROUP
    return results + run_core_rules(group, kind, body) + run_rules(webhook_rules_for(group, kind), body)


__all__ = ["Rule", "WEBHOOK_RULES", "metadata_rules_for", "run_rules", "run_webhook_rules", "webhook_rules_for"]
