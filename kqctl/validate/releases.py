"""Released versions of a scheduler that ``validate`` can check against (``--kueue-version``, ``--volcano-version``,
``--yunikorn-version``; kubeconform's ``-kubernetes-version``).

Each scheduler package lists its releases (``<scheduler>/validate/releases.py``): the reference version kqctl
mirrors (the default) and the releases users run, each with the CRD schemas it serves (patches in
``schemas/releases/``) and, in words with their rule IDs, what its webhooks or validator do differently.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kqctl.errors import UsageError
from kqctl.validate.profile import ValidationProfile


@dataclass(frozen=True)
class Release:
    version: str  # as the project tags it: "v0.19.2"
    commit: str
    schema: str | None = None  # schemas/releases/<schema>.json; None: the reference schemas
    differences: tuple[str, ...] = ()  # what differs from the reference, with rule IDs
    reference: bool = False  # the version kqctl mirrors (the default)

    @property
    def minor(self) -> str:
        return ".".join(self.version.lstrip("v").split("-")[0].split(".")[:2])


def pick(flag: str, releases: Sequence[Release], requested: str | None) -> Release:
    """The release ``--<scheduler>-version`` names: ``v0.19.2``, ``0.19.2``, or a minor (``v0.19``); another patch
    of a shipped minor is checked as the shipped one (said on stderr). None: the reference."""
    reference = next(r for r in releases if r.reference)
    if requested is None:
        return reference
    wanted = requested.strip().lstrip("vV")
    for release in releases:
        if wanted in (release.version.lstrip("v"), release.minor) or (release.reference and wanted == "reference"):
            return release
    parts = wanted.split(".")
    minor = ".".join(parts[:2])
    same_minor = [r for r in releases if r.minor == minor and not r.reference]
    if len(parts) == 3 and all(p.isdigit() for p in parts) and same_minor:
        sys.stderr.write(f"kqctl: note: {flag} {requested}: checked against {same_minor[0].version}, the "
                         f"{same_minor[0].minor} release kqctl ships (its latest patch; what changed between "
                         "patches is not modelled)\n")
        return same_minor[0]
    shipped = ", ".join(r.version + (" (the default)" if r.reference else "") for r in releases)
    raise UsageError(f"{flag} {requested!r}: kqctl ships {shipped}; `kqctl version` lists what each changes")


@dataclass(frozen=True)
class ReleaseTable:
    """A scheduler's releases, and how its validation profile checks against one of them."""

    releases: tuple[Release, ...]
    apply: Callable[[Release, ValidationProfile], ValidationProfile]

    @property
    def reference(self) -> Release:
        return next(r for r in self.releases if r.reference)
