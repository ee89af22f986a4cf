"""Volcano's part of ``kqctl validate``: the Queue webhook over the set of queues, the workloads' queues,
the chart's admission policy (``--vap``), the scheduler configuration and lints (all cross-object)."""

from __future__ import annotations

import functools

from kqctl.validate.profile import ValidationProfile
from kqctl.volcano.kinds import BATCH_GROUP, GROUP
from kqctl.volcano.validate.crossobject import Context, cross_object_findings


def profile(context: Context | None = None) -> ValidationProfile:
    """The profile for one way of validating (webhook flags, policy, the old state of a diff)."""
    context = context if context is not None else Context()
    return ValidationProfile(
        scheduler="volcano",
        groups=frozenset({GROUP, BATCH_GROUP}),
        # The Queue webhook needs the queues that exist, so every Volcano rule runs across objects; the
        # per-object steps are the API server's (schema, metadata).
        cross_object=functools.partial(cross_object_findings, context=context),
    )


PROFILE = profile()
