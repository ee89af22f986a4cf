"""The backfill action (``actions/backfill/backfill.go``): best-effort tasks (no requests) of jobs that are
no longer pending go to the best node that still has room for a pod, with no quota check."""

from __future__ import annotations

from kqctl.volcano.engine.framework import PENDING, Session, Statement
from kqctl.volcano.engine.nodes import NodeChooser


def execute(ssn: Session) -> None:
    chooser: NodeChooser | None = None
    for key in sorted(ssn.jobs):
        job = ssn.jobs[key]
        if job.is_pending() or ssn.job_valid(job) is not None:
            continue
        for task in sorted(job.with_status(PENDING), key=lambda t: t.key):
            if not task.best_effort or task.pod.gated:
                continue
            chooser = chooser or NodeChooser(ssn)
            node = chooser.best(task)
            if node is None:
                job.fit_errors[task.key] = chooser.fit_error(task)
                continue
            statement = Statement(ssn)
            statement.allocate(task, node)
            statement.commit()
            chooser.changed(node)
