"""The drf plugin's job order (``plugins/drf/drf.go``): the job with the smaller dominant share goes first.

A job's share is the largest allocated/total over the cluster's resources (``pods`` included). kqctl models
the job order only; drf's hierarchy (``enableHierarchy``) and namespace order are reported as not simulated.
"""

from __future__ import annotations

from fractions import Fraction

from kqctl.volcano.api.resource import Amount, Resource, share
from kqctl.volcano.engine.framework import JobInfo, Plugin, Session, TaskInfo


class Drf:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.total = ssn.total
        self.shares: dict[str, Amount] = {key: self._share(job.allocated) for key, job in ssn.jobs.items()}
        plugin.hooks["job_order"] = self.job_order
        ssn.event_handlers.append((self.on_change, self.on_change))

    def _share(self, allocated: Resource) -> Amount:
        best: Amount = Fraction(0)
        for name in self.total.names():
            best = max(best, share(allocated.get(name), self.total.get(name)))
        return best

    def job_order(self, left: JobInfo, right: JobInfo) -> int:
        l_share, r_share = self.shares.get(left.key, 0), self.shares.get(right.key, 0)
        if l_share == r_share:
            return 0
        return -1 if l_share < r_share else 1

    def on_change(self, task: TaskInfo) -> None:
        self.shares[task.job.key] = self._share(task.job.allocated)
