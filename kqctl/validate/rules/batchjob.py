"""batch/v1 Job rules of the API server itself (``pkg/apis/batch/validation/validation.go``,
``validateJobSpec``): the counts a Job's pods are made from cannot be negative.

Not Kueue rules, but Kueue builds a Job's Workload from these fields (REQ-1): the OpenAPI schema
only says int32, so without them ``parallelism: -2`` would pass validate and become a pod set of
no pods. The spec gives them no ID; they are VAL-BJOB-1 here.
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.k8s.names import invalid
from kqctl.validate.fields import Body, Rule, child, finding, integer

# ValidateNonnegativeField in the order validateJobSpec checks them.
_NON_NEGATIVE = ("parallelism", "completions", "backoffLimit")


def vbjob1_counts_are_not_negative(body: Body) -> Iterator[Finding]:
    for field in _NON_NEGATIVE:
        value = integer(child(body, "spec", field))
        if value is not None and value < 0:
            yield finding("VAL-BJOB-1", invalid(("spec", field), str(value), "must be greater than or equal to 0"),
                          f"set spec.{field} to 0 or more")


RULES: tuple[Rule, ...] = (vbjob1_counts_are_not_negative,)
