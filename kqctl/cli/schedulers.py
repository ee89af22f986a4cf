"""The schedulers kqctl serves, in one table: the only place that knows them all.

Each scheduler package declares its kinds, what to read from a live cluster, and its part of
validation; the commands look a scheduler up here (``--scheduler``, or the API groups in the input) and
call into its package. Nothing below the CLI imports more than one scheduler.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqctl.errors import UsageError
from kqctl.k8s.kinds import CORE_KINDS, KindInfo, KindRegistry, Recogniser
from kqctl.kueue import kinds as kueue_kinds
from kqctl.volcano import kinds as volcano_kinds
from kqctl.yunikorn import kinds as yunikorn_kinds

if TYPE_CHECKING:
    from kqctl.load.cluster import ReadPlan
    from kqctl.load.objects import LoadedObject
    from kqctl.validate.profile import ValidationProfile
    from kqctl.validate.releases import Release, ReleaseTable


def _kueue_read_plan() -> ReadPlan:
    from kqctl.kueue.cluster import READ_PLAN

    return READ_PLAN


def _kueue_validation() -> ValidationProfile:
    from kqctl.kueue.validate.profile import PROFILE

    return PROFILE


def _volcano_read_plan() -> ReadPlan:
    from kqctl.volcano.cluster import READ_PLAN

    return READ_PLAN


def _volcano_validation() -> ValidationProfile:
    from kqctl.volcano.validate.profile import PROFILE

    return PROFILE


def _yunikorn_read_plan() -> ReadPlan:
    from kqctl.yunikorn.cluster import READ_PLAN

    return READ_PLAN


def _yunikorn_validation() -> ValidationProfile:
    from kqctl.yunikorn.validate.profile import PROFILE

    return PROFILE


def _kueue_releases() -> ReleaseTable:
    from kqctl.kueue.validate import releases
    from kqctl.validate.releases import ReleaseTable

    return ReleaseTable(releases.RELEASES, releases.for_release)


def _volcano_releases() -> ReleaseTable:
    from kqctl.validate.releases import ReleaseTable
    from kqctl.volcano.validate import releases

    return ReleaseTable(releases.RELEASES, releases.for_release)


def _yunikorn_releases() -> ReleaseTable:
    from kqctl.validate.releases import ReleaseTable
    from kqctl.yunikorn.validate import releases

    return ReleaseTable(releases.RELEASES, releases.for_release)


def _yunikorn_claims(objects: Iterable[LoadedObject]) -> bool:
    # YuniKorn has no kinds of its own: its pods say who schedules them.
    return any(obj.kind == "Pod" and isinstance(obj.body, dict) and yunikorn_kinds.is_yunikorn_pod(obj.body)
               for obj in objects)


def _claims_nothing(objects: Iterable[LoadedObject]) -> bool:
    return False


@dataclass(frozen=True)
class Scheduler:
    name: str  # as --scheduler spells it
    product: str  # as messages name it
    kinds: tuple[KindInfo, ...]
    # Imported only when used: ``kqctl --help`` must not pay for every scheduler's modules.
    read_plan: Callable[[], ReadPlan]
    validation_profile: Callable[[], ValidationProfile]
    # The released versions validate checks against (--<name>-version), the reference kqctl mirrors first.
    releases: Callable[[], ReleaseTable]
    # Documents known by content (a configuration file, a ConfigMap by name), and core objects that only this
    # scheduler would read (YuniKorn: pods with schedulerName yunikorn).
    recognise: Recogniser | None = None
    claims: Callable[[Iterable[LoadedObject]], bool] = _claims_nothing
    # What a document with neither apiVersion nor kind is read as when --scheduler names this scheduler.
    configuration_kind: KindInfo | None = None
    # What it reads, in words: the hint of an object skipped as a kind it does not read (LOAD-SKIPPED).
    reads: str = ""

    @property
    def groups(self) -> frozenset[str]:
        return frozenset(info.group for info in self.kinds if info.scheduler and info.group)


SCHEDULERS: dict[str, Scheduler] = {
    "kueue": Scheduler("kueue", "Kueue", kueue_kinds.KINDS, _kueue_read_plan, _kueue_validation, _kueue_releases,
                       kueue_kinds.recognise,
                       reads="Kueue objects (kueue.x-k8s.io), its manager Configuration (bare, or the ConfigMap "
                             f"holding {kueue_kinds.MANAGER_CONFIG_KEY}), Namespaces, PriorityClasses, LimitRanges, "
                             "Jobs, Pods and Nodes"),
    "volcano": Scheduler("volcano", "Volcano", volcano_kinds.KINDS, _volcano_read_plan, _volcano_validation,
                         _volcano_releases, claims=volcano_kinds.claims,
                         reads=f"Volcano objects (Queues, PodGroups, vcjobs), the ConfigMap "
                               f"{volcano_kinds.SCHEDULER_CONFIGMAP} (by name) or a bare volcano-scheduler.conf, "
                               "Nodes, Namespaces, PriorityClasses, LimitRanges and Pods"),
    "yunikorn": Scheduler("yunikorn", "YuniKorn", yunikorn_kinds.KINDS, _yunikorn_read_plan, _yunikorn_validation,
                          _yunikorn_releases, yunikorn_kinds.recognise, _yunikorn_claims,
                          yunikorn_kinds.QUEUES_CONFIG,
                          reads=f"the ConfigMaps {' and '.join(yunikorn_kinds.CONFIG_MAP_NAMES)} (by name, no other "
                                "ConfigMap) or a bare queues.yaml, Pods (schedulerName "
                                f"{yunikorn_kinds.SCHEDULER_NAME}; others occupy their node), Nodes, Namespaces, "
                                "PriorityClasses and LimitRanges"),
}
DEFAULT = "kueue"  # what an input holding only core kinds (Jobs, Pods, Namespaces) is read for
ALL_KINDS = KindRegistry((*CORE_KINDS, *(info for s in SCHEDULERS.values() for info in s.kinds)),
                         tuple(s.recognise for s in SCHEDULERS.values() if s.recognise is not None),
                         "; ".join(f"for {s.product}: {s.reads}" for s in SCHEDULERS.values()))


def kinds_for(requested: str | None) -> KindRegistry:
    """The kinds to read the input with: with --scheduler, its configuration files need no recognisable keys."""
    chosen = named(requested)
    if chosen is None:
        return ALL_KINDS
    if chosen.configuration_kind is None:
        return KindRegistry(ALL_KINDS, ALL_KINDS.recognisers, chosen.reads)
    named_kind = functools.partial(_configuration_file, chosen.configuration_kind)
    return KindRegistry(ALL_KINDS, (named_kind, *ALL_KINDS.recognisers), chosen.reads)


def _configuration_file(kind: KindInfo, body: Mapping[str, Any]) -> KindInfo | None:
    return kind if "apiVersion" not in body and "kind" not in body else None


def named(name: str | None) -> Scheduler | None:
    """The scheduler ``--scheduler`` names (None when not given); a usage error for an unknown name."""
    if name is None:
        return None
    found = SCHEDULERS.get(name.lower())
    if found is None:
        import difflib

        close = difflib.get_close_matches(name.lower(), list(SCHEDULERS), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(f"unknown --scheduler {name!r}; {hint}choose one of: {', '.join(SCHEDULERS)}")
    return found


def present(objects: Iterable[LoadedObject]) -> list[Scheduler]:
    """The schedulers whose objects the input holds (by kind, or claimed), in table order."""
    objects = list(objects)
    names = {obj.info.scheduler for obj in objects if obj.info is not None and obj.info.scheduler}
    return [s for s in SCHEDULERS.values() if s.name in names or s.claims(objects)]


def choose(requested: str | None, objects: Iterable[LoadedObject]) -> Scheduler:
    """One scheduler for commands that simulate: ``--scheduler``, else the one a kqctl snapshot in the input was
    saved for, else the one whose objects the input holds.

    With a scheduler named (by ``--scheduler`` or by the snapshot), another scheduler's pods are what they are to
    it: other pods using node capacity (Volcano, YuniKorn; Kueue reads only the pods submitted to it), and a note
    on stderr says so once. Another scheduler's own objects (queues, jobs, configuration), or two schedulers'
    objects with no scheduler named, are a usage error: their queues never share a decision.
    """
    objects = list(objects)
    chosen = named(requested) or _saved_for(objects)
    found = present(objects)
    others = [s for s in found if s is not chosen]
    from kqctl import diagnostics

    if chosen is not None:
        queued = [s for s in others if any(o.info is not None and o.info.scheduler == s.name for o in objects)]
        if queued:  # another scheduler's own objects (queues, jobs, its configuration) are never dropped silently
            products = " and ".join(s.product for s in queued)
            raise UsageError(f"--scheduler {chosen.name}, but the input holds objects of {products} "
                             f"({_some_objects(queued, objects)}): one simulation serves one scheduler; split the "
                             "input")
        how = "--scheduler" if requested is not None else "snapshot"
        diagnostics.log_once(2, f"scheduler: {chosen.name} ({how})")
        if others:
            _note_others(chosen, others, objects, how)
        return chosen
    diagnostics.log_once(2, f"scheduler: {found[0].name if len(found) == 1 else DEFAULT} (the input holds objects of "
                       f"{', '.join(s.product for s in found) or 'no scheduler: core kinds only'})")
    if len(found) > 1:
        raise UsageError(f"the input holds objects of {' and '.join(s.product for s in found)}: one simulation "
                         "serves one scheduler; pass --scheduler NAME (another scheduler's pods are then other pods "
                         "on the nodes) or split the input")
    return found[0] if found else SCHEDULERS[DEFAULT]


def _saved_for(objects: list[LoadedObject]) -> Scheduler | None:
    """The scheduler the kqctl snapshot(s) in the input were saved for, when they agree on one."""
    saved = {obj.read_for for obj in objects if obj.read_for is not None}
    return SCHEDULERS.get(saved.pop()) if len(saved) == 1 else None


NOTED: set[tuple[str, ...]] = set()  # one note per run, however many times a command asks


def _note_others(chosen: Scheduler, others: list[Scheduler], objects: list[LoadedObject], why: str) -> None:
    key = (chosen.name, *(s.name for s in others))
    if key in NOTED:
        return
    NOTED.add(key)
    import sys

    how = f"--scheduler {chosen.name}" if why == "--scheduler" else "the snapshot was saved for it"
    sys.stderr.write(f"kqctl: note: reading the input for {chosen.product} ({how}): "
                     f"{'; '.join(_what_others_are(chosen, other, objects) for other in others)}\n")


def _what_others_are(chosen: Scheduler, other: Scheduler, objects: list[LoadedObject]) -> str:
    own = [o for o in objects if o.kind != "Pod" and other.claims([o])]
    pods = [o for o in objects if o.kind == "Pod" and (o.info is None or not o.info.scheduler)
            and isinstance(o.body, dict) and other.claims([o])]
    parts = []
    if pods:
        use = ("other pods using node capacity" if chosen.name != "kueue"
               else "ignored (Kueue reads only the pods submitted to it)")
        parts.append(f"{len(pods)} pod(s) of {other.product} are {use}")
    if own:  # only what claims() recognises among core kinds (Volcano's scheduler ConfigMap)
        parts.append(f"{len(own)} object(s) of {other.product} are ignored")
    return ", ".join(parts) or f"the objects of {other.product} are ignored"


def _some_objects(schedulers: list[Scheduler], objects: list[LoadedObject]) -> str:
    names = {s.name for s in schedulers}
    theirs = [o for o in objects if o.info is not None and o.info.scheduler in names]
    shown = ", ".join(f"{o.kind} {o.name} at {o.origin}" for o in theirs[:3])
    return shown + (f" and {len(theirs) - 3} more" if len(theirs) > 3 else "") if theirs else "its pods"


def validation_profiles(requested: str | None) -> tuple[ValidationProfile, ...]:
    """validate checks each object against its own scheduler's rules, so every scheduler's profile takes part
    (a repository may hold several; each acts only on its own objects). ``--scheduler`` is checked, and says how
    to read configuration files without apiVersion and kind, but drops no profile: another scheduler's objects
    in the input are still validated rather than passed unread as valid."""
    named(requested)
    return tuple(s.validation_profile() for s in SCHEDULERS.values())


def target_releases(requested: Mapping[str, str | None]) -> dict[str, Release]:
    """The release of each scheduler validate checks against (``--kueue-version`` ...): scheduler name -> release,
    the reference for those not named. A version kqctl does not ship is a usage error that lists the shipped ones."""
    from kqctl.validate.releases import pick

    return {name: pick(f"--{name}-version", scheduler.releases().releases, requested.get(name))
            for name, scheduler in SCHEDULERS.items()}


def with_releases(profiles: tuple[ValidationProfile, ...],
                  releases: Mapping[str, Release]) -> tuple[ValidationProfile, ...]:
    """Each scheduler's profile checking against its release (the reference's profile is returned unchanged)."""
    return tuple(SCHEDULERS[p.scheduler].releases().apply(releases[p.scheduler], p)
                 if p.scheduler in SCHEDULERS and p.scheduler in releases else p for p in profiles)
