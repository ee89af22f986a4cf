"""What one scheduler adds to the API server's own checks, handed to the validation runner.

The runner (``validate/runner.py``) knows the steps every API server takes on create: schema defaults,
structural schema, metadata, CEL, dropping ``status``. A scheduler adds its own: versions it no longer
serves, its mutating webhooks, its validating webhooks, and checks across objects no server makes. Each
scheduler package builds one :class:`ValidationProfile`; the CLI passes in the ones that apply, so this
package never imports a scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqctl.findings import Finding

if TYPE_CHECKING:
    from kqctl.load.objects import LoadedObject

Body = dict[str, Any]


@dataclass(frozen=True)
class LegacyConversion:
    """An object in a version the API server no longer serves, as the version it converts to."""

    body: Body
    findings: list[Finding]  # the conversion's own findings (what ``kqctl convert`` would say)
    unserved: Finding  # the API server's "no matches for kind ... in version"


def _no_legacy(obj: LoadedObject) -> LegacyConversion | None:
    return None


def _no_mutation(body: Body, kind: str) -> tuple[Body, list[Finding]] | None:
    return None


def _no_webhooks(body: Body, kind: str) -> list[Finding]:
    return []


def _no_cross_checks(objects: Sequence[LoadedObject], closed: bool) -> list[tuple[LoadedObject, Finding]]:
    return []


def no_refusals(objects: Sequence[LoadedObject]) -> list[tuple[LoadedObject, Finding]]:
    """For a scheduler whose checks across objects are all kqctl's knowledge (warnings) without --closed."""
    return []


def _untrimmed(obj: LoadedObject) -> LoadedObject:
    return obj


def _no_inspection(obj: LoadedObject) -> list[Finding]:
    return []


def _nothing_effective(obj: LoadedObject) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class ValidationProfile:
    """One scheduler's part of validation. Every hook is a module-level function, so a profile can be
    sent to worker processes."""

    scheduler: str
    groups: frozenset[str]  # the API groups the scheduler owns
    # An object of one of ``groups`` in a version nobody serves any more, converted; None when served.
    legacy: Callable[[LoadedObject], LegacyConversion | None] = _no_legacy
    # The scheduler's mutating webhooks for (body, kind) of any group: the new body and decode errors,
    # or None when no webhook of the scheduler mutates that kind.
    mutate: Callable[[Body, str], tuple[Body, list[Finding]] | None] = _no_mutation
    # Rule IDs that stay errors inside ``status`` (a webhook that runs before the server drops status).
    kept_in_status: frozenset[str] = frozenset()
    # The scheduler's validating webhooks for (defaulted body, kind); [] for kinds it does not watch.
    webhooks: Callable[[Body, str], list[Finding]] = _no_webhooks
    # Checks across every object of the input that no API server makes.
    cross_object: Callable[[Sequence[LoadedObject], bool], Iterable[tuple[LoadedObject, Finding]]] = (
        _no_cross_checks)
    # The kinds (by name) without which the cross-object checks find nothing: a run whose input holds none of them
    # skips the checks, decided from the kinds counted once (not by each profile scanning every object). None: the
    # checks always run.
    cross_object_needs: frozenset[str] | None = None
    # The kinds (by name) the cross-object checks read: a run may pass them only those objects (in input order).
    # None: every object.
    cross_object_reads: frozenset[str] | None = None
    # The kinds (by name) of objects whose cross-object findings depend only on the object itself and on the objects
    # of the other kinds (never on one another), and that no other object's findings depend on (Kueue: Workloads).
    # validate --cache reuses an unchanged file's findings for them while those other objects are unchanged.
    cross_object_subjects: frozenset[str] = frozenset()
    # The part of ``cross_object`` that can report an error without --closed (a refusal the API server or the
    # scheduler makes across objects), which the gate every command admits objects through runs; None: the whole of
    # ``cross_object``. Lints across 50,000 pods need not run where only refusals matter.
    cross_object_refusals: Callable[[Sequence[LoadedObject]], Iterable[tuple[LoadedObject, Finding]]] | None = None
    # The part of an object the cross-object checks read (workers send only that back to the parent).
    trim: Callable[[LoadedObject], LoadedObject] = _untrimmed
    # Checks of one of the scheduler's objects that need the object itself, e.g. a configuration file embedded
    # in a ConfigMap (findings may carry their own line inside it); run after the validating webhooks.
    inspect: Callable[[LoadedObject], list[Finding]] = _no_inspection
    # What the scheduler will actually use of one of its objects (shown as "effective" by validate -o json/yaml).
    effective: Callable[[LoadedObject], dict[str, Any] | None] = _nothing_effective
    # The released version whose CRD schemas the scheduler's objects are checked against (``schemas/releases/
    # <name>.json``, e.g. "kueue-v0.19.2"); None: the reference version kqctl mirrors.
    schema_release: str | None = None

    def owns(self, group: str) -> bool:
        return group in self.groups

    def reads(self, scheduler: str, group: str) -> bool:
        """Whether an object of ``group`` recognised for ``scheduler`` ("" for core kinds) is this profile's."""
        return self.owns(group) or (scheduler != "" and scheduler == self.scheduler)
