"""The Volcano releases ``validate --volcano-version`` checks against (the reference: ``ed72c7c8``, a v1.16
development build).

v1.15.1 (``upstream/volcano-releases/v1.15.1.diff``, generated into ``schemas/releases/volcano-v1.15.1.json``):
its Queue and PodGroup CRDs, the chart's queue ValidatingAdmissionPolicy and scheduler configuration are the
reference's; its batch Job CRD embeds an older Kubernetes pod template. Its webhooks
(``pkg/webhooks/admission/{queues,jobs,podgroups}``) differ only in how they are written (the child queues are
looked up by an index) and in how the PodGroup webhook joins two messages, which kqctl does not reproduce word for
word in either version.
"""

from __future__ import annotations

from dataclasses import replace

from kqctl.validate.profile import ValidationProfile
from kqctl.validate.releases import Release

REFERENCE = Release("v1.16.0-devel", "ed72c7c815a9fd547a787134676f73d42e9d049c", reference=True)
RELEASES: tuple[Release, ...] = (
    REFERENCE,
    Release("v1.15.1", "0a56ed331897f5455916a44d3075671376d731d6", "volcano-v1.15.1", (
        "CRD schema: a vcjob's task pod templates have spec.workloadRef (the pod API of the Kubernetes release it "
        "was built with) where the reference has spec.schedulingGroup (SCHEMA-UNKNOWN-FIELD on the other)",
    )),
)


def for_release(release: Release, profile: ValidationProfile) -> ValidationProfile:
    return profile if release.reference else replace(profile, schema_release=release.schema)
