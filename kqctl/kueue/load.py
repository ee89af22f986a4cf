"""The last loading step: loaded objects become one typed :class:`Snapshot` for the engine.

Objects come through the gate (kqctl.validate.gate) as the API server would store them: validated,
with CRD and webhook defaults (DEF-1); the fields the server filled in are kept in
``Snapshot.defaulted``, so an explanation can say when a default decided. With ``as_given``
(``--as-given``) objects are built exactly as written, without defaults (DEF-4: how Kueue's own unit
tests build them), and only what Kueue could not even decode is refused here. Objects are converted to
v1beta2; an unreadable input or a duplicate stops here with a located error; objects kqctl does not read
are left out with a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kqctl.errors import InputError
from kqctl.findings import Finding, Severity
from kqctl.k8s.core import LimitRange, ModelError, Namespace, PriorityClass, metadata, namespace_of
from kqctl.kueue.api.config import KueueConfig
from kqctl.kueue.api.decoding import workload_decoding_problem
from kqctl.kueue.api.models import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    Node,
    ResourceFlavor,
    Topology,
    Workload,
    WorkloadPriorityClass,
)
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.api.versions import to_v1beta2
from kqctl.kueue.kinds import CONFIG_GROUP as KUEUE_CONFIG_GROUP
from kqctl.kueue.kinds import GROUP as KUEUE_GROUP
from kqctl.kueue.kinds import MANAGER_CONFIG_KEY, MANAGER_CONFIG_MAP
from kqctl.kueue.submitted import Submitted, add_submitted_workloads
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import format_path


class WorkloadsAhead:
    """Workload models decoded while the inputs are still being read (issue 18: 50,000 workloads on 2 cores): the
    process that reads and checks the files on every core decodes each Workload it has the stored body of as soon as
    that body is known, while another process still reads, instead of all of them after the read.

    A model is taken only for the very object and the very body it was decoded from (the object as the gate admits
    it, its body the check's stored one, unconverted as a v1beta2 body is): the same call on the same value, so the
    same model, whichever process state made it. Anything else (a --set's edited copy, a written status the gate
    drops, another version, a body the decoding refuses) is decoded by :func:`build_snapshot` as without this."""

    def __init__(self) -> None:
        self._models: dict[int, tuple[LoadedObject, dict[str, Any], Workload]] = {}
        # A model decoded from a body written alike (kqctl.validate.alike), by that body's digest and namespace.
        self._alike: dict[tuple[bytes, str | None], Workload] = {}

    def prepare(self, obj: LoadedObject, stored: dict[str, Any], alike: bytes | None = None) -> None:
        """Decodes ``stored``, the body the gate will give ``obj`` if it admits it, when ``obj`` is a Workload.
        ``alike``: the digest its check shares with the objects written alike but for their name, uid and creation
        time; the model of one of them decoded before is then taken with those three of this body."""
        info = obj.info
        if info is None or info.kind != "Workload" or info.group != KUEUE_GROUP:
            return
        try:
            body = to_v1beta2(stored, copy_hub=False).body
            if body is not stored:
                return  # converted: build_snapshot converts again, to another dict
            namespace = namespace_of(stored.get("metadata") if isinstance(stored.get("metadata"), dict) else {},
                                     info.namespaced)
            like = self._alike.get((alike, namespace)) if alike is not None else None
            if like is not None:
                model = _workload_like(like, body, obj)
            else:
                model = _workload_model(body, obj, namespace)
                if alike is not None:
                    self._alike[(alike, namespace)] = model
        except Exception:  # noqa: BLE001  # build_snapshot decodes it again and reports as it always did
            return
        self._models[id(obj)] = (obj, stored, model)

    def take(self, obj: LoadedObject, body: dict[str, Any]) -> Workload | None:
        """The model of ``obj`` decoded ahead from this very ``body`` (its own body now), or None."""
        entry = self._models.pop(id(obj), None)
        if entry is None or entry[0] is not obj or entry[1] is not body or body is not obj.body:
            return None
        return entry[2]


def build_snapshot(result: LoadResult, now: datetime | None = None, as_given: bool = True,
                   ahead: WorkloadsAhead | None = None) -> Snapshot:
    """Every object of the inputs in one snapshot; the first unusable input raises :class:`InputError`.

    ``now`` is the snapshot's clock; submitted Jobs without a creationTimestamp are created then.
    ``as_given``: the objects did not come through the gate, so what Kueue cannot decode is refused here;
    False for objects the gate admitted (checked by validate's steps already: not checked twice).
    ``ahead``: Workload models decoded while the inputs were read, taken instead of decoding again.
    """
    if result.unreadable:
        raise result.unreadable[0]
    snapshot = Snapshot(now=now)
    submitted = Submitted()
    _check_one_configuration(result.objects)
    for obj in result.objects:
        _check_loadable(obj, snapshot)
        if obj.info is None:
            continue
        if as_given:
            _check_decodable(obj)
        elif obj.defaulted:
            _note_defaults(snapshot, obj)
        if (obj.info.group, obj.info.kind) in _SUBMITTED_KINDS:
            submitted.objects.append((obj.origin, _with_namespace(obj.body, obj)))
            continue
        if obj.info.kind == "Workload":
            submitted.workloads.append(obj.body)
        _add(snapshot, obj, as_given, ahead)
    add_submitted_workloads(snapshot, submitted)  # REQ-1..3: after the queues and classes they look up
    return snapshot


def reads_clock(result: LoadResult) -> bool:
    """Whether a snapshot of these objects holds its clock beyond ``Snapshot.now``: a Job or Pod without a
    creationTimestamp gets its Workload created at the clock (REQ-1), so the clock is in the Workload. Without such
    objects the same snapshot serves any clock (kqctl.cli.snapshot_cache)."""
    return any(obj.info is not None and (obj.info.group, obj.info.kind) in _SUBMITTED_KINDS for obj in result.objects)


def _note_defaults(snapshot: Snapshot, obj: LoadedObject) -> None:
    """DEF-1: what the API server filled in of the object's spec (metadata, e.g. a webhook's finalizer, decides
    nothing), with the value it stores."""
    filled = tuple(path for path in obj.defaulted if path[:1] == ("spec",) and len(path) > 1)
    if filled and obj.info is not None:
        snapshot.defaulted.note(_kind_key(obj)[1], obj.info.namespaced, obj.body, filled)


def _check_loadable(obj: LoadedObject, snapshot: Snapshot) -> None:
    for finding in obj.findings:
        if finding.severity is Severity.ERROR:
            hint = f" ({finding.hint})" if finding.hint else ""
            raise InputError(obj.origin.file, f"{finding.rule_id}: {finding.message}{hint}",
                             line=obj.line_of(finding.path), index=obj.origin.index)
        snapshot.warnings.append(f"{obj.origin}: {finding.message}")


# Configuration objects are few (even at 1,000 ClusterQueues): each goes through the per-object
# validation, and what the API server cannot even store — a value of the wrong type or shape, a
# quantity that does not parse, something Kueue's webhook cannot decode — is refused, as validate
# rejects it. Semantic rules (CEL, webhook checks) are not enforced here: Kueue's scheduler handles
# such objects when they exist (its own recorded scenarios hold some), and validate reports them.
# Workloads (tens of thousands) get the checks of the fields the engine reads (kqctl.kueue.api.decoding).
_FULLY_VALIDATED = {"ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "Queue", "WorkloadPriorityClass",
                    "AdmissionCheck", "Topology"}
_OUTSIDE_THE_SIMULATION = {"MultiKueueCluster", "MultiKueueConfig", "ProvisioningRequestConfig"}
# A number out of its field's range (a WorkloadPriorityClass value beyond int32) does not decode either,
# nor does a Job whose pod counts are negative (the API server's VAL-BJOB-1).
_UNSTORABLE = {"SCHEMA-TYPE", "SCHEMA-RANGE", "DEF-3-DECODE", "VAL-BJOB-1"}
# Names that break a CRD pattern ("A", "b_one") are left to validate: Kueue's own scenarios use them.
# A quantity that breaks the quantity pattern cannot be read as a number at all.
_QUANTITY_FIELDS = {"nominalQuota", "borrowingLimit", "lendingLimit", "weight"}
_QUANTITY_MAPS = {"requests", "limits", "overhead"}  # a pod spec's resources: every value is a quantity


def _unstorable(finding: Finding) -> bool:
    if finding.severity is not Severity.ERROR:
        return False
    if finding.rule_id == "SCHEMA-PATTERN":
        path = finding.path
        return bool(path) and (path[-1] in _QUANTITY_FIELDS or (len(path) > 1 and path[-2] in _QUANTITY_MAPS))
    return finding.rule_id in _UNSTORABLE


def _check_decodable(obj: LoadedObject) -> None:
    """What the API server or Kueue would reject is refused here (exit 3), located, not simulated."""
    from kqctl.kueue.validate.profile import PROFILE
    from kqctl.validate.runner import validate_object

    assert obj.info is not None
    if (obj.info.group == KUEUE_CONFIG_GROUP and obj.info.kind == "Configuration") or obj.info == MANAGER_CONFIG_MAP:
        _check_configuration(obj)
        return
    # Jobs and Pods become Workloads (REQ-1..3): what the API server cannot store is not submitted at all.
    submitted = (obj.info.group, obj.info.kind) in _SUBMITTED_KINDS
    if submitted or (obj.info.group == KUEUE_GROUP and obj.info.kind in _FULLY_VALIDATED):
        for finding in validate_object(obj, (PROFILE,)):
            if _unstorable(finding):
                _refuse(obj, finding.rule_id, finding.message, finding.path)


def _check_configuration(obj: LoadedObject) -> None:
    """VAL-CFG-*: a Configuration Kueue's controller-manager would not start with is refused, even --as-given (no
    API server is involved: the manager itself decodes and validates its file), as the gate refuses it."""
    from kqctl.kueue.validate.profile import inspect
    from kqctl.validate.gate import refusal

    for finding in inspect(obj):  # bare, or in its ConfigMap (located inside the embedded text)
        raise refusal(obj, finding)  # the message the gate gives


def _refuse(obj: LoadedObject, rule_id: str, message: str, path: tuple[str | int, ...]) -> None:
    where = format_path(path)  # as validate writes it: spec.podSets[0].count
    set_by = obj.set_by(path)
    source = f" (the value comes from --set {set_by!r}, not from the file)" if set_by else ""
    raise InputError(obj.origin.file, f"{obj.kind} {obj.name}: {where}: {message}{source} ({rule_id}; kqctl "
                     "validate shows every problem)", line=obj.line_of(path), index=obj.origin.index)


def _add(snapshot: Snapshot, obj: LoadedObject, as_given: bool = True, ahead: WorkloadsAhead | None = None) -> None:
    body = obj.body
    if obj.info is not None and obj.info.group == KUEUE_GROUP:
        conversion = to_v1beta2(body, copy_hub=False)
        for issue in conversion.issues:
            if issue.severity == "error":
                raise InputError(obj.origin.file, f"{issue.rule_id}: {issue.message}",
                                 line=obj.line_of(issue.path), index=obj.origin.index)
        body = conversion.body
        if obj.info.kind == "Workload" and as_given:
            problem = workload_decoding_problem(body)
            if problem is not None:
                path, message, rule_id = problem
                _refuse(obj, rule_id, message, path)
    adder = _ADDERS.get(_kind_key(obj))
    if adder is _add_config_map and obj.info != MANAGER_CONFIG_MAP:
        adder = None  # another ConfigMap (another scheduler's): not read
    if adder is _add_workload and ahead is not None:
        model = ahead.take(obj, body)
        if model is not None:
            snapshot.workloads.append(model)
            return
    if adder is None and obj.info is not None and obj.info.kind in _OUTSIDE_THE_SIMULATION:
        return  # read and validated; MultiKueue dispatch and provisioning are not simulated
    if adder is None:
        snapshot.warnings.append(f"{obj.origin}: {obj.kind} {obj.name} is not simulated: kqctl does not yet turn"
                                 f" {obj.kind} objects into workloads")
        return
    try:
        adder(snapshot, body, obj)
    except ModelError as exc:
        raise InputError(obj.origin.file, f"{obj.kind} {obj.name}: {exc}", line=obj.line_of(exc.path),
                         index=obj.origin.index) from None


def _kind_key(obj: LoadedObject) -> tuple[str, str]:
    assert obj.info is not None
    kind = "LocalQueue" if obj.info.kind == "Queue" else obj.info.kind
    return obj.info.group, kind


def _add_flavor(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    flavor = ResourceFlavor.from_v1beta2(body, obj.origin)
    s.resource_flavors[flavor.name] = flavor


def _add_cluster_queue(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    queue = ClusterQueue.from_v1beta2(body, obj.origin)
    s.cluster_queues[queue.name] = queue


def _add_cohort(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    cohort = Cohort.from_v1beta2(body, obj.origin)
    s.cohorts[cohort.name] = cohort


def _add_local_queue(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    body = _with_namespace(body, obj)
    queue = LocalQueue.from_v1beta2(body, obj.origin)
    s.local_queues[queue.key] = queue


def _add_workload(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.workloads.append(_workload_model(body, obj, None))


def _workload_model(body: dict[str, Any], obj: LoadedObject, namespace: str | None) -> Workload:
    """``namespace``: the object's as its body says (LoadedObject.namespace of the object holding ``body``), or None
    to read it from ``obj`` when needed."""
    return Workload.from_v1beta2(_with_namespace(body, obj, namespace), obj.origin)


def _workload_like(like: Workload, body: dict[str, Any], obj: LoadedObject) -> Workload:
    """The model :func:`_workload_model` decodes from ``body``, taken from ``like``, decoded from a body equal to it
    but for the three fields read here (kqctl.validate.alike): nothing else of the model depends on them."""
    meta = metadata(body)
    # What dataclasses.replace makes (Workload has no __post_init__), without its call of __init__ through every
    # field and a frozen __setattr__ for each (an eighth of the time). The instance's own __dict__ is filled, in the
    # fields' order, so that it keeps sharing its keys with every other Workload's (a dict of its own would cost
    # 50,000 models about 10 MiB more).
    model: Workload = object.__new__(Workload)
    fields = model.__dict__
    fields.update(like.__dict__)
    fields["name"], fields["uid"] = meta.string("name"), meta.string("uid")
    fields["creation_timestamp"], fields["origin"] = meta.opt_time("creationTimestamp"), obj.origin
    return model


def _add_wpc(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    wpc = WorkloadPriorityClass.from_v1beta2(body, obj.origin)
    s.workload_priority_classes[wpc.name] = wpc


def _add_check(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    check = AdmissionCheck.from_v1beta2(body, obj.origin)
    s.admission_checks[check.name] = check


def _add_namespace(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    namespace = Namespace.from_v1(body, obj.origin)
    if s.namespaces is None:
        s.namespaces = {}
    s.namespaces[namespace.name] = namespace


def _add_priority_class(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    priority_class = PriorityClass.from_v1(body, obj.origin)
    s.priority_classes[priority_class.name] = priority_class


def _add_limit_range(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.limit_ranges.append(LimitRange.from_v1(_with_namespace(body, obj), obj.origin))


def _add_topology(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    topology = Topology.from_v1beta2(body, obj.origin)
    s.topologies[topology.name] = topology
    # §0.3: TAS is simulated only in the part that decides flavors and admissions (kqctl.kueue.engine.tas_cache).
    s.warnings.append(f"{obj.origin}: Topology {topology.name}: Topology-Aware Scheduling is simulated in part only"
                      " (pod placement on Nodes; not: leader/worker groups, balanced placement, Pods Kueue does not"
                      " manage, node replacement)")


def _add_node(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    node = Node.from_v1(body, obj.origin)
    s.nodes[node.name] = node


def _add_config(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    s.config = KueueConfig.from_body(body)


def _add_config_map(s: Snapshot, body: dict[str, Any], obj: LoadedObject) -> None:
    """Kueue's manager Configuration as deployed, in its ConfigMap: read as the bare file is."""
    from kqctl.kueue.validate import config_map

    configuration = config_map.configuration(obj)
    if configuration is None:  # refused by the gate (or --as-given's check) first: never reached in a command
        raise InputError(obj.origin.file, f"ConfigMap {obj.name}: {MANAGER_CONFIG_KEY} holds no Configuration "
                         "Kueue's manager can read (kqctl validate shows why)", line=obj.line_of(("data",)),
                         index=obj.origin.index)
    s.config = KueueConfig.from_body(configuration)


def _check_one_configuration(objects: list[LoadedObject]) -> None:
    """VAL-CFG-19: the manager reads one Configuration; two (bare or in its ConfigMap) are never picked from silently
    (the gate refuses them first, with this message; --as-given comes here)."""
    from kqctl.kueue.validate.profile import one_configuration
    from kqctl.validate.gate import refusal

    for obj, finding in one_configuration(objects):
        raise refusal(obj, finding)


def _with_namespace(body: dict[str, Any], obj: LoadedObject, namespace: str | None = None) -> dict[str, Any]:
    """Namespaced objects without a namespace land in ``default``, as kubectl would put them (``namespace``: the
    object's, when already worked out)."""
    meta = body.get("metadata")
    if isinstance(meta, dict) and meta.get("namespace"):
        return body
    return {**body, "metadata": {**(meta if isinstance(meta, dict) else {}),
                                 "namespace": obj.namespace if namespace is None else namespace}}


_SUBMITTED_KINDS = {("batch", "Job"), ("", "Pod")}

_ADDERS: dict[tuple[str, str], Callable[[Snapshot, dict[str, Any], LoadedObject], None]] = {
    (KUEUE_GROUP, "ResourceFlavor"): _add_flavor,
    (KUEUE_GROUP, "ClusterQueue"): _add_cluster_queue,
    (KUEUE_GROUP, "Cohort"): _add_cohort,
    (KUEUE_GROUP, "LocalQueue"): _add_local_queue,
    (KUEUE_GROUP, "Workload"): _add_workload,
    (KUEUE_GROUP, "WorkloadPriorityClass"): _add_wpc,
    (KUEUE_GROUP, "AdmissionCheck"): _add_check,
    (KUEUE_GROUP, "Topology"): _add_topology,
    (KUEUE_CONFIG_GROUP, "Configuration"): _add_config,
    ("", "ConfigMap"): _add_config_map,
    ("", "Node"): _add_node,
    ("", "Namespace"): _add_namespace,
    ("scheduling.k8s.io", "PriorityClass"): _add_priority_class,
    ("", "LimitRange"): _add_limit_range,
}
