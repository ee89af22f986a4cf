"""batch/v1 Job rules of Kueue's Job webhook (§2.9, ``pkg/controller/jobs/job/job_webhook.go``,
``pkg/controller/jobframework/validation.go``).

Kueue's validating webhook sees every Job (there is no object selector), so these rules run on
all Jobs; each only fires when its label or annotation is present. Kubernetes defaults
``parallelism`` to 1 before the webhook runs; ``ptr.Deref(x, 1)`` below mirrors that.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kqctl.findings import Finding
from kqctl.k8s.names import go_json, go_quote, invalid, is_dns1123_subdomain
from kqctl.validate.fields import Body, Rule, child, finding, integer, text

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-completions-equal-parallelism"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_GO_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_GO_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


class GoParseError(ValueError):
    """A ``strconv`` error; ``str()`` is Go's ``NumError.Error()`` text."""


def go_atoi(raw: str) -> int:
    """Go's ``strconv.Atoi`` on a 64-bit platform: no spaces, no underscores, int64 range."""
    if not _DECIMAL.fullmatch(raw):
        raise GoParseError(f"strconv.Atoi: parsing {go_quote(raw)}: invalid syntax")
    value = int(raw)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise GoParseError(f"strconv.Atoi: parsing {go_quote(raw)}: value out of range")
    return value


def go_parse_bool(raw: str) -> bool:
    """Go's ``strconv.ParseBool``."""
    if raw in _GO_TRUE:
        return True
    if raw in _GO_FALSE:
        return False
    raise GoParseError(f"strconv.ParseBool: parsing {go_quote(raw)}: invalid syntax")


def _int32(value: int) -> int:
    """Go's ``int32(v)`` conversion: wraps around instead of failing."""
    return (value + 2**31) % 2**32 - 2**31


def _label(body: Body, key: str) -> str | None:
    return text(child(body, "metadata", "labels", key))


def _annotation(body: Body, key: str) -> str | None:
    return text(child(body, "metadata", "annotations", key))


def _spec_int(body: Body, field: str) -> int | None:
    return integer(child(body, "spec", field))


def _pods_count(body: Body) -> int:
    """``Job.podsCount``: parallelism, or completions when that is smaller."""
    parallelism = _spec_int(body, "parallelism")
    count = 1 if parallelism is None else parallelism
    completions = _spec_int(body, "completions")
    return completions if completions is not None and completions < count else count


def vjob1_queue_name_is_dns_subdomain(body: Body) -> Iterator[Finding]:
    queue = _label(body, QUEUE_NAME_LABEL)
    if queue is None:
        return
    errs = is_dns1123_subdomain(queue)
    if errs:
        # ValidateLabelAsCRDName joins the messages with "," into one error.
        yield finding(
            "VAL-JOB-1",
            invalid(("metadata", "labels", QUEUE_NAME_LABEL), go_quote(queue), ",".join(errs)),
            "the queue name must be the name of a LocalQueue in the Job's namespace",
        )


def vjob4_max_exec_time_is_positive_integer(body: Body) -> Iterator[Finding]:
    raw = _label(body, MAX_EXEC_TIME_LABEL)
    if raw is None:
        return
    path = ("metadata", "labels", MAX_EXEC_TIME_LABEL)
    try:
        seconds = go_atoi(raw)
    except GoParseError as exc:
        yield finding("VAL-JOB-4", invalid(path, go_quote(raw), str(exc)), "use a whole number of seconds")
        return
    if seconds <= 0:
        yield finding(
            "VAL-JOB-4",
            invalid(path, str(seconds), "should be greater than 0"),
            "use a whole number of seconds greater than 0",
        )


def vjob2_min_parallelism_within_pods_count(body: Body) -> Iterator[Finding]:
    raw = _annotation(body, MIN_PARALLELISM_ANNOTATION)
    if raw is None:
        return
    path = ("metadata", "annotations", MIN_PARALLELISM_ANNOTATION)
    try:
        minimum = go_atoi(raw)
    except GoParseError as exc:
        yield finding("VAL-JOB-2", invalid(path, go_quote(raw), str(exc)), "use a whole number of pods")
        return
    pods = _pods_count(body)
    # Kueue compares int32(v) with the pod count, so values beyond int32 wrap around first.
    if _int32(minimum) >= pods or minimum <= 0:
        yield finding(
            "VAL-JOB-2",
            invalid(path, str(minimum), f"should be between 0 and {pods - 1}"),
            f"the minimum must be at least 1 and below the Job's pod count ({pods})",
        )


def vjob5_partial_admission_excludes_elastic_job(body: Body) -> Iterator[Finding]:
    raw = _annotation(body, MIN_PARALLELISM_ANNOTATION)
    if raw is None or _annotation(body, ELASTIC_JOB_ANNOTATION) != "true":
        return
    path = ("metadata", "annotations", MIN_PARALLELISM_ANNOTATION)
    yield finding(
        "VAL-JOB-5",
        invalid(path, go_quote(raw), "partial admission and elastic job cannot be used together"),
        f"remove {MIN_PARALLELISM_ANNOTATION} or {ELASTIC_JOB_ANNOTATION}",
    )


def vjob3_completions_equal_parallelism_needs_indexed_job(body: Body) -> Iterator[Finding]:
    raw = _annotation(body, COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION)
    if raw is None:
        return
    path = ("metadata", "annotations", COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION)
    try:
        enabled = go_parse_bool(raw)
    except GoParseError as exc:
        yield finding("VAL-JOB-3", invalid(path, go_quote(raw), str(exc)), 'use "true" or "false"')
        return
    if not enabled:
        return
    if child(body, "spec", "completionMode") in (None, "NonIndexed"):
        yield finding(
            "VAL-JOB-3",
            invalid(path, go_quote(raw), "should not be enabled for NonIndexed jobs"),
            "set spec.completionMode: Indexed",
        )
    yield from _completions_equal_parallelism(body)


def _completions_equal_parallelism(body: Body) -> Iterator[Finding]:
    parallelism = _spec_int(body, "parallelism")
    completions = _spec_int(body, "completions")
    if (1 if parallelism is None else parallelism) == (1 if completions is None else completions):
        return
    msg = f"should be equal to parallelism when {COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION} annotation is true"
    # The bad value is the *int32 itself: an unset completions prints as null.
    yield finding(
        "VAL-JOB-3",
        invalid(("spec", "completions"), go_json(completions), msg),
        "set spec.completions equal to spec.parallelism",
    )


RULES: tuple[Rule, ...] = (
    vjob1_queue_name_is_dns_subdomain,
    vjob4_max_exec_time_is_positive_integer,
    vjob2_min_parallelism_within_pods_count,
    vjob5_partial_admission_excludes_elastic_job,
    vjob3_completions_equal_parallelism_needs_indexed_job,
)
