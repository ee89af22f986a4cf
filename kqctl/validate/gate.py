"""The one gate every command admits objects through: validate's checks, and validate's verdict.

simulate, explain, audit, replay, diff, plan and convert read an object only as the API server would store it
once applied, and only if the API server (or the scheduler, for its configuration) would store it at all:

* each object goes through the very steps ``kqctl validate`` runs (:func:`kqctl.validate.runner.check_object`:
  schema defaults, the scheduler's mutating webhooks and decoding, schema, metadata, CEL, validating webhooks,
  the scheduler's own checks) and then the checks across objects;
* the first error validate would report ends the command (:class:`~kqctl.errors.InputError`, exit 3), located
  at the field and worded as validate words it; validate itself exits 1 on the same input;
* an admitted object is what those steps leave: CRD defaults and webhook defaults applied (DEF-1), so a
  ClusterQueue without ``queueingStrategy`` is simulated with the ``BestEffortFIFO`` the server stores; the
  fields filled in are recorded on the object (:attr:`LoadedObject.defaulted`), for explanations;
* a written ``status`` whose problems a create would ignore (validate reports them as information) is not
  taken as the cluster's state: the object is admitted without it, with a note.

Objects read from a cluster are stored objects already: they pass as read. ``as_given`` (``--as-given``) skips
the API server altogether: objects are simulated exactly as written, as Kueue's own unit tests build them, and
only what the scheduler's decoding cannot read is refused (by the scheduler's loader).

The work is validate's, not repeated: the engine reads the bodies the checks produced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kqctl.errors import InputError
from kqctl.findings import Finding, Severity
from kqctl.k8s.names import go_quote
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import FieldPath, format_path
from kqctl.validate.profile import ValidationProfile
from kqctl.validate.runner import ObjectCheck, check_object

# Called with an object, the body the gate stores it with and the digest its check shares with the objects written
# alike (ObjectCheck.alike), for work a command does on every admitted object anyway (kqctl.kueue.load.WorkloadsAhead).
Prepare = Callable[[LoadedObject, dict[str, Any], bytes | None], None]


@dataclass
class Admitted:
    """The inputs as admitted: the objects to read, and notes for stderr (never for stdout)."""

    result: LoadResult
    notes: list[str] = field(default_factory=list)


class Checks:
    """validate's per-object checks made ahead, by the process that read each object's file
    (:func:`kqctl.validate.parallel.read_checked`), with ``profiles``: the gate takes an object's check from here
    instead of making it again. Kept by object, not by value: an object a --set replaced is checked anew."""

    def __init__(self, profiles: tuple[ValidationProfile, ...]) -> None:
        self.profiles = profiles
        self._made: dict[int, tuple[LoadedObject, ObjectCheck, tuple[FieldPath, ...] | None]] = {}

    def add(self, obj: LoadedObject, check: ObjectCheck, filled: tuple[FieldPath, ...] | None = None) -> None:
        """``filled``: :func:`defaulted_fields` of the object and the body the check stores, when already known."""
        self._made[id(obj)] = (obj, check, filled)

    def of(self, obj: LoadedObject) -> tuple[ObjectCheck, tuple[FieldPath, ...] | None] | None:
        """The object's check and the fields it fills in (None: not worked out yet), or None if not made."""
        made = self._made.get(id(obj))
        return (made[1], made[2]) if made is not None and made[0] is obj else None


def admit(result: LoadResult, profiles: Sequence[ValidationProfile], *, as_given: bool = False,
          converting: bool = False, checks: Checks | None = None, prepare: Prepare | None = None) -> Admitted:
    """Every object of ``result`` through validate's checks; the first error validate reports is raised.

    ``converting``: for `kqctl convert`, which writes the objects as written in another version: they are checked
    (an object in a version nobody serves any more as the object it converts to, its version being what convert
    cures) and left as written, without defaults.
    ``checks``: checks already made (with these very ``profiles``), taken instead of making them again.
    ``prepare``: called on each object whose check is made here (not taken from ``checks``: the process that read
    its file prepared it with that check) and that it admits with the body the check stores, as
    :func:`kqctl.validate.parallel.read_checked` calls it (a small input, or one file, is read and checked here).
    """
    if checks is not None and checks.profiles is not profiles:
        checks = None
    if result.unreadable:
        raise result.unreadable[0]
    for obj in result.objects:
        _refuse_first(obj, (f for f in obj.findings if f.severity is Severity.ERROR))
    if as_given:
        return Admitted(result)
    notes: list[str] = []
    stored_bodies: list[tuple[LoadedObject, dict[str, Any], tuple[FieldPath, ...] | None]] = []
    for obj in result.objects:
        if not obj.known or obj.stored:
            continue
        made = checks.of(obj) if checks is not None else None
        check, filled = made if made is not None else (check_object(obj, profiles), None)
        _refuse_first(obj, (f for f in check.findings if f.severity is Severity.ERROR
                            and not (converting and f in check.unserved)))
        if prepare is not None and made is None and not check.status_ignored:
            prepare(obj, check.stored, check.alike)
        stored = check.stored
        if check.status_ignored:
            stored = {key: value for key, value in stored.items() if key != "status"}
            notes.append(f"{obj.origin}: {obj.kind} {_name(obj)}: the written status is not one the cluster could "
                         "hold (kqctl validate shows why); read without it, as the API server creates the object")
        stored_bodies.append((obj, stored, None if check.status_ignored else filled))
    _refuse_across(result.objects, profiles)  # on the objects as written, as validate runs these checks
    if converting:
        return Admitted(result)  # convert writes the objects as written
    for obj, stored, filled in stored_bodies:
        # Changed in place (the command's own objects): from now on it is the object the server stores, and
        # admitting the inputs again (diff's sides share objects) checks only what a --set changed since (an edit
        # makes a new object, not stored).
        # (an object admitted before and changed by a --set keeps what was filled in the first time)
        if filled is None:
            filled = tuple(defaulted_fields(obj.body, stored))
        obj.defaulted = tuple(dict.fromkeys((*obj.defaulted, *filled)))
        obj.body = stored
        obj.stored = True
    return Admitted(LoadResult(result.objects, [], result.files), notes)


def _refuse_across(objects: list[LoadedObject], profiles: Sequence[ValidationProfile]) -> None:
    """The checks across objects validate makes (each profile on the objects as written, as validate runs them):
    an error there is one the API server or the scheduler makes too (a warning is kqctl's knowledge)."""
    known = [obj for obj in objects if obj.known]
    # Kinds counted once, as validate's parallel merge counts them: a scheduler none of whose kinds is in the input
    # is not asked (its checks find nothing there, and 50,000 Workloads need not be scanned to learn it).
    present = {obj.kind for obj in known}
    for profile in profiles:
        if profile.cross_object_needs is not None and present.isdisjoint(profile.cross_object_needs):
            continue
        refusals = profile.cross_object_refusals
        found = refusals(known) if refusals is not None else profile.cross_object(known, False)
        for obj, finding in found:
            if finding.severity is Severity.ERROR:
                _refuse_first(obj, iter((finding,)))


def _refuse_first(obj: LoadedObject, errors: Iterator[Finding]) -> None:
    finding = next(errors, None)
    if finding is not None:
        raise refusal(obj, finding)


def refusal(obj: LoadedObject, finding: Finding) -> InputError:
    """The located error for an object the API server or the scheduler refuses: validate's finding, its rule."""
    where = format_path(finding.path)
    field_part = f"{where}: " if where else ""
    set_source = obj.set_source(finding)
    source = f" ({set_source}, not from the file)" if set_source else ""
    hint = f"; {finding.hint}" if finding.hint else ""
    line = finding.line if finding.line is not None else obj.line_of(finding.path)
    what = f"{obj.kind} {_name(obj)}: " if obj.kind and isinstance(obj.body, dict) else ""
    return InputError(obj.origin.file, f"{what}{field_part}{finding.message}{source} ({finding.rule_id}{hint}; kqctl "
                      "validate shows every problem)", line=line, index=obj.origin.index)


def _name(obj: LoadedObject) -> str:
    """namespace/name as validate's OBJECT column shows it: a control character in a name (anything can be
    written in a file) is escaped as the messages escape it, so it never reaches the terminal raw."""
    name = _visible(obj.name or "<unnamed>")
    namespaced = obj.info is not None and obj.info.namespaced and obj.namespace
    return f"{_visible(obj.namespace or '')}/{name}" if namespaced else name


def _visible(text: str) -> str:
    return text if text.isprintable() else go_quote(text)[1:-1]


def defaulted_fields(written: Any, stored: Any, path: FieldPath = ()) -> Iterator[FieldPath]:
    """The fields ``stored`` holds that ``written`` leaves out (or sets to null): what the API server filled in.
    Only the topmost field of a filled-in value is named (``spec.preemption``, not each policy in it); parts
    the defaulting left alone are the very same objects, so they are skipped without a look."""
    if stored is written or not isinstance(stored, dict) or not isinstance(written, dict):
        if isinstance(stored, list) and isinstance(written, list) and stored is not written:
            for i, (old, new) in enumerate(zip(written, stored, strict=False)):
                yield from defaulted_fields(old, new, (*path, i))
        return
    for key, value in stored.items():
        before = written.get(key)
        if before is None and value is not None:
            yield (*path, key)
        elif value is not before:
            yield from defaulted_fields(before, value, (*path, key))
