"""Volcano's part of ``kqctl validate``: the Queue webhook over the set of queues, the workloads' queues,
the chart's admission policy (``--vap``), the scheduler configuration and lints (all cross-object).

Every command builds every scheduler's profile (each checks only its own objects), so this module imports the
checks themselves (Volcano's API models, webhooks, admission policy: about a sixth of kqctl's start-up) only when a
Volcano object is there to check.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kqctl.findings import Finding
from kqctl.k8s.kinds import split_api_version
from kqctl.load.objects import LoadedObject
from kqctl.validate.profile import ValidationProfile
from kqctl.volcano.kinds import BATCH_GROUP, GROUP, SCHEDULER_CONF_FILE

if TYPE_CHECKING:
    from kqctl.volcano.validate.crossobject import Context, Found


def profile(context: Context | None = None) -> ValidationProfile:
    """The profile for one way of validating (webhook flags, policy, the old state of a diff)."""
    return ValidationProfile(
        scheduler="volcano",
        groups=frozenset({GROUP, BATCH_GROUP}),
        # The Queue webhook needs the queues that exist, so every Volcano rule runs across objects; the
        # per-object steps are the API server's (schema, metadata).
        mutate=mutate,
        webhooks=webhooks,
        cross_object=functools.partial(cross_object, context=context),
        # cross_object_findings finds nothing without a Queue, a PodGroup, a vcjob or a scheduler configuration
        # (file or ConfigMap) or a pod of the volcano scheduler (VC-POD-PG); "Job", "ConfigMap" and "Pod" of any group
        # count, which is only more often.
        cross_object_needs=frozenset({"Queue", "PodGroup", "Job", SCHEDULER_CONF_FILE.kind, "ConfigMap", "Pod"}),
    )


def cross_object(objects: Sequence[LoadedObject], closed: bool, context: Context | None = None) -> Found:
    """Every Volcano cross-object finding (crossobject.cross_object_findings; the gate calls it only when the
    input holds one of the kinds of ``cross_object_needs``). ``context``: None validates as the chart installs
    Volcano."""
    from kqctl.volcano.validate.crossobject import Context, cross_object_findings

    return cross_object_findings(objects, closed, context if context is not None else Context())


def mutate(body: dict[str, Any], kind: str) -> tuple[dict[str, Any], list[Finding]] | None:
    """Volcano's Queue mutating webhook, before the schema (as the API server calls it on create): weight 0
    becomes 1, reclaimable defaults to true. None for every other kind."""
    group, _ = split_api_version(str(body.get("apiVersion", "")))
    if group != GROUP or kind != "Queue":
        return None
    from kqctl.volcano.validate.queue_mutate import mutated_on_create

    return mutated_on_create(body), []


def webhooks(body: dict[str, Any], kind: str) -> list[Finding]:
    """Volcano's job webhook, per object (``validateTaskTemplate`` in admit_job.go): every task's pod template
    passes Kubernetes' own ``ValidatePodTemplate``, so a negative request, a resource name no container can ask
    for or an extended resource without its limit refuses the vcjob as it would refuse a Pod (VAL-POD-1..3). The
    checks that need the queues run across objects."""
    group, _ = split_api_version(str(body.get("apiVersion", "")))
    if group != BATCH_GROUP or kind != "Job":
        return []
    from kqctl.validate.rules.podspec import pod_template_resources

    spec = body.get("spec")
    tasks = spec.get("tasks") if isinstance(spec, dict) else None
    found: list[Finding] = []
    for index, task in enumerate(tasks if isinstance(tasks, list) else ()):
        template = task.get("template") if isinstance(task, dict) else None
        if isinstance(template, dict):
            found.extend(pod_template_resources(template.get("spec"), ("spec", "tasks", index, "template", "spec")))
    return found


PROFILE = profile()
