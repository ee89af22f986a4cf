"""The YuniKorn releases ``validate --yunikorn-version`` checks against (the reference: yunikorn-core
``be3bb487``, master of July 2026, after v1.9.0-0).

YuniKorn has no CRDs: what differs is its configuration validator and the queue properties its core reads.
yunikorn-core v1.8.0 (``656455ab``) against the reference, ``pkg/common/configs/configvalidator.go``: the quota
preemption delay property is ``preemption.quota.delay`` (``QuotaPreemptionDelay``; renamed
``quota.preemption.delay`` by YUNIKORN-3193); ``checkLimitResource`` and ``checkLimitMaxApplications`` were
rewritten without a change in what they accept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from kqctl.findings import Finding
from kqctl.load.objects import LoadedObject
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.releases import Release
from kqctl.yunikorn.engine import properties

REFERENCE = Release("master-be3bb487", "be3bb487298956dd70906fca15e577bbc12d23cb",
                    reference=True)
RELEASES: tuple[Release, ...] = (
    REFERENCE,
    Release("v1.8.0", "656455abb3523ba3802d1e79513b9f34a2cc69da", None, (
        "YK-V23: the quota preemption delay property is preemption.quota.delay; quota.preemption.delay (the "
        "reference's name) is unknown and ignored",
    )),
)
# Property names as a release spells them -> the reference's name (None: the release does not know it).
PROPERTY_NAMES: dict[str, dict[str, str | None]] = {
    "v1.8.0": {"preemption.quota.delay": properties.QUOTA_PREEMPTION_DELAY, properties.QUOTA_PREEMPTION_DELAY: None},
}

T = TypeVar("T")


def _as_release(version: str, check: Callable[..., T], *arguments: Any) -> T:
    token = properties.RELEASE_NAMES.set(PROPERTY_NAMES.get(version, {}))
    try:
        return check(*arguments)
    finally:
        properties.RELEASE_NAMES.reset(token)


def _cross_object(version: str, check: Callable[[Sequence[LoadedObject], bool], Iterable[tuple[LoadedObject, Finding]]],
                  objects: Sequence[LoadedObject], closed: bool) -> list[tuple[LoadedObject, Finding]]:
    return _as_release(version, lambda: list(check(objects, closed)))


def for_release(release: Release, profile: ValidationProfile) -> ValidationProfile:
    """YuniKorn's profile reading queue properties by ``release``'s names."""
    if release.reference:
        return profile
    return replace(profile, inspect=functools.partial(_as_release, release.version, profile.inspect),
                   cross_object=functools.partial(_cross_object, release.version, profile.cross_object),
                   effective=functools.partial(_as_release, release.version, profile.effective))
